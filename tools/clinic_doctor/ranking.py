"""Findings to chapters: each finding's chapters scored by the signs of the
chapters' data, the suspects in order, and the silent causes no tool sees."""

import re

from .sanitizer import TOOLS

# What a call returns after a kernel faulted (the runtime's names).
KERNEL_FAULTS = (
    "cudaErrorLaunchFailure",
    "cudaErrorIllegalAddress",
    "cudaErrorIllegalInstruction",
    "cudaErrorMisalignedAddress",
    "cudaErrorInvalidAddressSpace",
    "cudaErrorInvalidPc",
    "cudaErrorHardwareStackError",
    "cudaErrorAssert",
    # The driver API's names for the same (PyCUDA, cuda-python).
    "CUDA_ERROR_LAUNCH_FAILED",
    "CUDA_ERROR_ILLEGAL_ADDRESS",
    "CUDA_ERROR_ILLEGAL_INSTRUCTION",
    "CUDA_ERROR_MISALIGNED_ADDRESS",
    "CUDA_ERROR_INVALID_ADDRESS_SPACE",
    "CUDA_ERROR_INVALID_PC",
    "CUDA_ERROR_HARDWARE_STACK_ERROR",
    "CUDA_ERROR_ASSERT",
)


# Calls that libraries make to probe what the driver offers, whose failure
# the library expects and handles: consequences, never findings (PyCUDA asks
# cuGetErrorString for every error code it knows).
PROBING = re.compile(r"^(cuGetErrorString|cuGetErrorName|cuGetProcAddress\w*|"
                     r"cudaGetDriverEntryPoint\w*|cuDriverGetVersion|"
                     r"cuModuleGetLoadingMode)$")
# Libraries whose allocators keep freed memory in a pool until the process
# ends, and what in a program's source says it uses one.
POOLED = re.compile(r"^\s*(?:import|from)\s+(cupy|torch|numba|jax|rmm)\b|"
                    r"\b(DeviceMemoryPool|PageLockedMemoryPool|"
                    r"cudaMallocAsync|cudaMemPool\w*)\b", re.M)
# A host frame in a Python extension module or the interpreter itself.
PYTHON_FRAME = re.compile(r"\.cpython-[0-9]+|libpython[0-9.]*\.so|"
                          r"\b_PyObject_\w+|\bPyObject_Call\b")


def pooled_libraries(text, trace_libs=()):
    """The pooled allocators a program uses, from its source and the
    libraries its Python launch check wrapped."""
    found = {m.group(1) or m.group(2) for m in POOLED.finditer(text or "")}
    found |= {lib for lib in trace_libs
              if lib in ("cupy", "torch", "numba", "jax")}
    return sorted(found)


def sign_matches(sign, text, facts):
    need = sign.get("facts", [])
    if not all(f in facts for f in need):
        return False
    if "match" in sign:
        return re.search(sign["match"], text, re.M) is not None
    return True


def said(sign):
    return sign.get("says", sign.get("match", ""))


def score_chapters(chapters, where, text, facts, context):
    """{number: (score, [why...])} for one finding. <where> is the tool (or
    "run"); context holds the program's output and source for the signs
    that only strengthen a chapter already suspected."""
    scores = {}
    for chapter in chapters:
        total, why = 0, []
        for sign in chapter.get("signs", []):
            if sign["in"] == where and sign_matches(sign, text, facts):
                total += sign.get("score", 1)
                why.append(said(sign))
        if total <= 0:
            continue
        for sign in chapter.get("signs", []):
            place = sign["in"]
            if place in ("output", "source") and sign_matches(
                sign, context.get(place, ""), facts
            ):
                total += sign.get("score", 1)
                why.append(said(sign))
        if chapter["number"] in context.get("trace_against", ()):
            total -= AGAINST
            why.append("the trace speaks against it (a checked launch, a "
                       "grid that covers its count, a memset of 0)")
        scores[chapter["number"]] = (total, why)
    return scores


def ranked(scores, prefer=(), against=(), after=()):
    """Chapters by score; a tie goes to the chapter the trace named
    (<prefer>) and never to one it speaks against (<against>) or to one that
    explains only how the fault was reported (<after>), then to the one more
    signs point to. Only where no evidence tells them apart does the number
    decide."""
    return sorted(scores.items(), key=lambda kv: (
        -kv[1][0], kv[0] in against, kv[0] in after, kv[0] not in prefer,
        -len(kv[1][1]), kv[0]))


def chapter_ref(chapter, score=None, why=()):
    ref = {"number": chapter["number"], "title": chapter["title"],
           "cause": chapter["cause"], "readme": chapter["readme"],
           "page": chapter["page"], "confirm": chapter["confirm"]}
    if score is not None:
        ref["score"] = score
        ref["why"] = [w for w in why if w]
    return ref


# A fault a sanitizer saw in a kernel has a cause of its own (13, 21, 27,
# ...); chapter 10 explains only that the fault was reported late, so on a
# tie the cause goes first.
FAULTS = ("invalid-access",)
LATE = ("10",)


def tool_finding(group, chapters, by_number, global_facts, context):
    """The finding of one group of sanitizer records."""
    facts = set(group["facts"]) | global_facts
    scores = score_chapters(chapters, group["tool"], group["text"], facts,
                            context)
    finding = {
        "source": group["tool"], "kind": group["kind"],
        "summary": group["headline"], "count": group["count"],
        "kernel": group["kernel"], "file": group["file"],
        "line": group["line"], "api": group["api"],
        "error": group["error"], "address": group["address"],
        "facts": group["facts"],
        "evidence": "\n".join(group["lines"][:10]),
        "chapters": [chapter_ref(by_number[n], s, w) for n, (s, w) in
                     ranked(scores, context.get("trace_chapters", ()),
                            context.get("trace_against", ()),
                            LATE if group["kind"] in FAULTS else ())],
    }
    if group["kind"] in ("invalid-access", "uninitialized-read",
                         "race", "barrier") and not group["file"]:
        finding["lineinfo"] = (
            "the report has no file:line: build with nvcc -lineinfo "
            "(CMake: target_compile_options(<target> PRIVATE -lineinfo))"
            " and run the doctor again"
        )
    return finding


TRACE_SCORE = 12  # a strong trace finding: the calls themselves show it
AGAINST = 2  # what the trace speaking against a candidate takes off


def trace_finding(found, by_number):
    """A report finding from a trace rule's (or the Python launch
    check's) finding."""
    chapter = by_number.get(found["chapter"])
    python = found.get("source") == "pylaunch"
    return {
        "source": "python launch check" if python else "trace",
        "kind": "trace-rule", "summary": found["summary"], "count": 1,
        "evidence": "\n".join(found["evidence"]), "facts": [],
        "strength": found["strength"],
        "chapters": [chapter_ref(chapter, found.get("score", TRACE_SCORE),
                                 [found["summary"]])]
        if chapter else [],
    }


def build_findings(chapters, groups, global_facts, observations, context,
                   traced=()):
    """Trace, tool and run findings, each with its ranked chapters; the
    strongest first (a trace finding first among equals)."""
    by_number = {c["number"]: c for c in chapters}
    findings = [trace_finding(f, by_number) for f in traced]
    findings += [tool_finding(g, chapters, by_number, global_facts, context)
                 for g in groups]
    for fact, what, evidence in observations:
        # A compiler's refusal at run time reads like a build's.
        where, text = (("build", evidence) if fact == "runtime-compile-error"
                       else ("run", fact))
        scores = score_chapters(chapters, where, text, global_facts | {fact},
                                context)
        findings.append({
            "source": "runs", "kind": fact, "summary": what.splitlines()[0],
            "count": 1, "evidence": what + ("\n" + evidence if evidence
                                            and evidence not in what else ""),
            "facts": [fact],
            "chapters": [chapter_ref(by_number[n], s, w) for n, (s, w) in
                         ranked(scores, context.get("trace_chapters", ()),
                                context.get("trace_against", ()))],
        })
    findings.sort(key=lambda f: -(f["chapters"][0]["score"]
                                  if f["chapters"] else 0))
    return findings


def suspects(findings):
    """The chapters named, most likely first: each finding's first chapter in
    finding order, then the alternatives."""
    order = []
    for finding in findings:
        if finding["chapters"]:
            n = finding["chapters"][0]["number"]
            if n not in order:
                order.append(n)
    for finding in findings:
        for ref in finding["chapters"][1:]:
            if ref["number"] not in order:
                order.append(ref["number"])
    return order


def silent_causes(chapters, facts, context):
    """The chapters whose bug no tool sees, ordered by the evidence from
    this program (what the runs showed, its output and source, what the
    trace named), with each chapter's fixed prior only breaking ties."""
    listed = []
    named = context.get("trace_chapters", ())
    for chapter in chapters:
        silent = chapter.get("silent")
        if not silent:
            continue
        total, why = 0, []
        for sign in chapter.get("signs", []):
            place = sign["in"]
            if place not in ("run", "output", "source") or (
                    place == "run" and "match" in sign):
                continue
            text = context.get(place, "") if place != "run" else ""
            if sign_matches(sign, text, facts):
                total += sign.get("score", 1)
                why.append(said(sign))
        if chapter["number"] in named:
            total += 10
            why.append("the trace shows it")
        if chapter["number"] in context.get("trace_against", ()):
            total -= 10
            why.append("the trace speaks against it")
        listed.append((chapter, total, silent.get("prior", 0), why))
    listed.sort(key=lambda t: (-t[1], -t[2], t[0]["number"]))
    return [dict(chapter_ref(c), symptom=c["silent"]["symptom"], score=s,
                 prior=p, why=w) for c, s, p, w in listed]


def python_leak(record):
    """A leak whose allocation a Python extension module made: memory that
    Python objects still held when the interpreter tore down (garbage
    collection runs after the context is gone), not the program's leak."""
    return record["kind"] == "leak" and PYTHON_FRAME.search(
        record.get("text", "")) is not None


def consequences(records, plain, pooled=(), python=False):
    """Drops the records that follow from another: the failed calls after a
    kernel that memcheck stopped (it aborts the kernel at its first bad
    access), a library's probing calls, leaks of a program that stopped
    early on an error, memory that a pooled allocator (<pooled>) holds at
    exit, and memory a Python program (<python>) still held when the
    interpreter tore down. Returns (records kept, notes on what was
    dropped)."""
    device_side = {r["tool"] for r in records
                   if r["kind"] in ("invalid-access", "device-heap",
                                    "device-fault")}
    after = [r for r in records if r["kind"] == "api-error" and (
        (r["tool"] in device_side and r["error"] in KERNEL_FAULTS)
        or r["api"] in ("cudaGetLastError", "cudaPeekAtLastError"))]
    probes = [r for r in records if r["kind"] == "api-error"
              and r not in after and PROBING.match(r["api"] or "")]
    leaks = [r for r in records if r["kind"] == "leak"]
    early = plain["code"] != 0
    python = python or any(python_leak(r) for r in leaks)
    dropped = after + probes + (leaks if early or pooled or python else [])
    kept = [r for r in records if r not in dropped]
    notes = consequence_notes(after, probes, leaks, plain, pooled)
    if leaks and python and not early and not pooled:
        notes.append(f"memcheck found {len(leaks)} leak(s): memory a Python "
                     "program still held when the interpreter tore down "
                     "(objects collected after the CUDA context is gone), "
                     "not a leak")
    return kept, notes


def consequence_notes(after, probes, leaks, plain, pooled):
    notes = []
    if after:
        calls = sorted({r["api"] for r in after})
        notes.append(f"{len(after)} CUDA call(s) ({', '.join(calls)}) failed "
                     "after the kernel fault: consequences, not causes")
    if probes:
        calls = sorted({r["api"] for r in probes})
        notes.append(f"{len(probes)} failed call(s) to {', '.join(calls)}: "
                     "a library probing what the driver offers, not the "
                     "program's mistake")
    if leaks and plain["code"] != 0:
        notes.append(f"memcheck found {len(leaks)} leak(s): the program "
                     "stopped early (exit status "
                     f"{plain['status']}) without freeing its memory")
    elif leaks and pooled:
        notes.append(f"memcheck found {len(leaks)} leak(s): memory that "
                     f"{', '.join(pooled)}'s pooled allocator keeps for "
                     "reuse until the process ends, not a leak")
    return notes


def tool_saw(findings):
    """A sanitizer tool or the trace saw the fault itself."""
    return any(f["source"] in TOOLS + ("trace", "python launch check")
               for f in findings)
