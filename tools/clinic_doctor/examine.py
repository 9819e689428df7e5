"""The examination: the runs, the tools, and the diagnosis that turns what
they saw into findings."""

import concurrent.futures
import re
import shutil
import tempfile
import time
from pathlib import Path

from . import CANNOT_EXAMINE, FINDINGS, NO_FINDING, CannotExamine
from . import chapters as chapter_data
from . import environment, evidence, program, ranking, reports, runs
from . import trace, tracerun
from . import sanitizer as sanitizers
from .runs import result_transcript as transcript

SOURCE_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".c", ".h", ".py")
KEEP_HEAD, KEEP_TAIL = 64 * 1024, 16 * 1024  # what of an output is read back
NO_IMAGE_ERRORS = (  # the runtime's names, then the driver's (PyCUDA)
    "cudaErrorNoKernelImageForDevice",
    "cudaErrorUnsupportedPtxVersion",
    "cudaErrorInvalidKernelImage",
    "CUDA_ERROR_NO_BINARY_FOR_GPU",
    "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
    "no kernel image is available",
)


class Clock:
    """The examination's time budget (--budget): each run gets at most what
    is left, or a share of it."""

    def __init__(self, budget):
        self.budget = budget
        self.deadline = time.monotonic() + budget

    def left(self):
        return self.deadline - time.monotonic()

    def limit(self, own, share=1.0):
        return max(0.0, min(own, self.left() * share))


def run_program(command, args, scratch, env_extra=None, timeout=None):
    """One run of the examined command under the doctor's limits."""
    try:
        limit = args.timeout if timeout is None else max(timeout, 0.1)
        return runs.run(command, limit, env_extra,
                        scratch=scratch, output_limit=args.output_limit << 20,
                        keep=(KEEP_HEAD, KEEP_TAIL))
    except OSError as error:
        raise CannotExamine(f"cannot start {command[0]}: {error}")


def skipped_run(why):
    """A run the time budget left no room for."""
    return {"out": "", "err": "", "status": f"not made: {why}", "code": None,
            "signal": None, "seconds": 0.0, "timed_out": False,
            "too_much": False, "sizes": (0, 0), "skipped": True}


def find_sources(names, given, program_path):
    """The text of the source files the reports and the output name, looked
    for in --source paths, the program's folder and the current folder."""
    places = []
    for g in given:
        p = Path(g)
        places.append(p if p.is_dir() else p.parent)
    places += [Path(program_path).resolve().parent, Path.cwd()]
    texts = []
    wanted = set(names)
    for g in given:
        files = [Path(g)] if Path(g).is_file() else sorted(
            f for f in Path(g).glob("*") if f.suffix in SOURCE_SUFFIXES)
        for f in files:
            try:
                texts.append(f.read_text(errors="replace"))
            except OSError:
                continue
            wanted.discard(f.name)
    for name in sorted(wanted):
        for place in places:
            candidate = place / name
            if candidate.is_file():
                try:
                    texts.append(candidate.read_text(errors="replace"))
                except OSError:
                    pass
                break
    return "\n".join(texts)


def keep_transcripts(keep, plain, blocking, repeats):
    """--keep: the runs' transcripts into the folder."""
    folder = Path(keep)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "plain.out").write_text(transcript(plain))
    (folder / "blocking.out").write_text(transcript(blocking))
    for i, r in enumerate(repeats, 2):
        (folder / f"run{i}.out").write_text(transcript(r))


def plain_runs(report, args, command, scratch, clock, plain):
    """The blocking run and the repeats (the plain one is made before),
    each while the budget leaves room for one more plain run."""
    def one(env=None):
        need = max(1.0, plain["seconds"] * 1.5)
        if clock.left() < need:
            return skipped_run("the time budget was spent")
        return run_program(command, args, scratch, env,
                           clock.limit(args.timeout))

    blocking = one({"CUDA_LAUNCH_BLOCKING": "1"})
    report["runs"]["blocking"] = summary_of(blocking)
    repeats = [one() for _ in range(max(0, args.repeat - 1))]
    report["runs"]["repeats"] = [summary_of(r) for r in repeats]
    if any(r.get("skipped") for r in [blocking] + repeats):
        report["notes"].append(
            f"the time budget ({args.budget:g} s, --budget) left no room "
            "for every plain run: the ones not made are left out")
    return blocking, repeats


def tool_runs(report, args, command, scratch, sanitizer, clock):
    """The sanitizer tools' runs and what keeps their verdict incomplete."""
    records, info = [], {}
    if sanitizer:
        share = clock.limit(args.tool_timeout) - 1.0
        limits = {"timeout": max(share, 1.0),
                  "output_limit": args.output_limit << 20,
                  "keep": (KEEP_HEAD, KEEP_TAIL),
                  "why": (f"its share of the {args.budget:g} s time budget "
                          "(--budget)" if share < args.tool_timeout - 1.0
                          else "its time limit (--tool-timeout)")}
        records, info = sanitizers.run_tools(sanitizer, args.tools, command,
                                             scratch, limits, args.keep)
    report["runs"]["sanitizer"] = info
    for tool, entry in info.items():
        if entry.get("problem"):
            report["notes"].append(f"{tool}: {entry['problem']}")
    unfinished = [t for t, r in info.items() if r.get("problem")]
    if unfinished:
        report["cannot_examine"].append(
            f"{', '.join(unfinished)} did not finish: the findings below "
            "come from the other runs, and a program without findings is "
            "not declared clean")
    if any(r.get("not_cuda") for r in info.values()):
        report["cannot_examine"].append(
            "compute-sanitizer says the program never used CUDA: it is "
            "not a CUDA program, or it stopped before its first CUDA "
            "call")
    return records


def no_image_note(report, probe):
    if "no-kernel-image" in report["facts"]:
        gpus = ", ".join(f"{g['name']} (compute capability {g['cc']})"
                         for g in probe.get("gpus", []))
        report["notes"].append(
            "the program holds no machine code or PTX this GPU can run"
            + (f": {gpus}" if gpus else "") + "; rebuild with "
            "-DCMAKE_CUDA_ARCHITECTURES=native, or nvcc -arch=native")


# The last line of a Python traceback that is not CUDA's: the program
# failed before it did CUDA work (when the trace, if any, agrees).
EXCEPTION = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Warning))"
                       r"\b(.*)$")
CUDA_EXCEPTION = re.compile(r"cuda|CUDA|cupy|pycuda|numba\.cuda|cuBLAS|NCCL|"
                            r"LogicError|LaunchError|MemoryError|OutOfMemory")
BEFORE_CUDA = ("ImportError", "ModuleNotFoundError", "AttributeError",
               "NameError", "SyntaxError", "IndentationError",
               "FileNotFoundError", "PermissionError")


def early_failure(plain, found):
    """The traceback's last line of a program that failed before it did
    CUDA work with an exception that is not CUDA's, or None."""
    if "Traceback (most recent call last):" not in plain["err"]:
        return None
    lines = [x.strip() for x in plain["err"].splitlines() if x.strip()]
    m = EXCEPTION.match(lines[-1]) if lines else None
    if not m:
        return None
    plain_python = m.group(1).split(".")[-1] in BEFORE_CUDA
    if not plain_python and CUDA_EXCEPTION.search(lines[-1]):
        return None  # CUDA's own error: the runs and tools judge it
    if found is not None and not trace.unavailable(found):
        return None if tracerun.did_cuda_work(found) else lines[-1]
    return lines[-1] if plain_python else None


def trace_status(report, found, library, trace_result):
    """Notes and gaps of the trace run: never "clean" without it."""
    if not library:
        report["cannot_examine"].append(
            "trace unavailable: the API trace library (libclinic_trace.so) "
            "was not found (build the project where CUPTI is installed, or "
            "pass --trace-library)")
        return
    why = trace.unavailable(found)
    if why:
        report["cannot_examine"].append(f"trace unavailable: {why}")
    elif trace_result and not trace_result["timed_out"] and not found[
            "api"] and not trace_result.get("skipped"):
        report["cannot_examine"].append(
            "the trace saw no CUDA call: the program is not a CUDA program, "
            "or it stopped before its first CUDA call")
    for process in found["api"]:
        if process["dropped"]:
            report["notes"].append(
                f"trace of process {process['pid']}: the record cap was "
                f"reached, {sum(process['dropped'].values())} calls not "
                "logged")
        if not process["complete"]:
            report["notes"].append(
                f"trace of process {process['pid']} ends without its end "
                "record: the process crashed or was stopped")


def fatal(report, plain, texts, started):
    report["cannot_examine"] += texts
    report["runs"]["plain"]["transcript"] = excerpt(transcript(plain))
    return finish(report, started)


def examine(args, command):
    chapters = chapter_data.load_chapters(args.root)
    program_path = program.check_program(command)
    scratch = tempfile.mkdtemp(prefix="clinic-doctor-")
    started, clock = time.monotonic(), Clock(args.budget)
    report = {"program": command, "runs": {}, "findings": [], "notes": [],
              "cannot_examine": [], "environment": {}}
    try:
        probe = environment.probe_driver(timeout=clock.limit(30, 0.5))
        report["environment"] = probe
        plain = run_program(command, args, scratch,
                            timeout=clock.limit(args.timeout, 0.4))
        report["runs"]["plain"] = summary_of(plain)
        sanitizer = (sanitizers.find_sanitizer(args.sanitizer)
                     if args.tools else None)
        problems = environment.environment_problems(probe, plain, sanitizer,
                                                    args.tools)
        if [p for p in problems if p[0] != "no-sanitizer"]:
            return fatal(report, plain, [t for _, t in problems], started)
        library = trace.find_library(args.trace_library)
        traced, found = tracerun.run_trace(
            lambda env: run_program(command, args, scratch, env,
                                    clock.limit(args.timeout, 0.5)),
            library, program.is_python(command), scratch, args.keep)
        if traced:
            report["runs"]["trace"] = summary_of(traced)
        failure = early_failure(plain, found)
        if failure:
            return fatal(report, plain, ["the program failed before it did "
                                         f"CUDA work: {failure}"], started)
        report["cannot_examine"] += [t for _, t in problems]
        if found is not None or not library:
            trace_status(report, found, library, traced)
        if plain["too_much"]:
            report["notes"].append(
                f"output cut: the program wrote more than {args.output_limit}"
                " MiB and was stopped there; the doctor read its first and "
                "last lines")
        blocking, repeats, records = concurrent_runs(
            report, args, command, scratch, clock, plain, sanitizer)
        facts, observations = evidence.run_facts(
            plain, blocking, repeats, args.ignore, args.wrong_result)
        diagnose(report, chapters, records, facts, observations, plain,
                 sources_of(args, command, program_path), program_path,
                 found=found)
        no_image_note(report, probe)
        report["plain_output"] = excerpt(transcript(plain))
        return finish(report, started)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def concurrent_runs(report, args, command, scratch, clock, plain, sanitizer):
    """The sanitizer tools, in parallel with the blocking and repeated
    runs: (blocking, repeats, sanitizer records)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        tools = pool.submit(tool_runs, report, args, command, scratch,
                            sanitizer, clock)
        try:
            blocking, repeats = plain_runs(report, args, command, scratch,
                                           clock, plain)
            records = tools.result()
        except BaseException:
            runs.stop_all()
            raise
    if args.keep:
        keep_transcripts(args.keep, plain, blocking, repeats)
    return blocking, repeats, records


def sources_of(args, command, program_path):
    """The files read for hints: --source, the script of a Python program,
    and a compiled program's own source (named in its binary or beside
    it)."""
    script = program.script_of(command)
    sources = list(args.source) + ([script] if script else [])
    if not script and not program.INTERPRETERS.match(
            Path(program_path).name):
        sources += program.own_sources(program_path)
    return sources


def normalised(source):
    """Source text with the blanks after commas and parentheses removed, so
    that a sign's regex cannot take a blank for an argument
    (cudaMemset(d, 0, n) is cudaMemset(d,0,n))."""
    return re.sub(r"([,(])[ \t]+", r"\1", source)


def diagnose(report, chapters, records, facts, observations, plain,
             sources=(), program_path=".", source_text=None, found=None):
    """Fills report's facts, findings, silent causes and suspects from the
    sanitizer records, the runs' facts and observations and the trace. It
    is also the doctor offline (the tests route recorded reports and
    traces with it)."""
    for record in records:
        if record["api"]:
            facts.add(f"failed:{record['api']}:{record['error']}")
        if record["error"] in NO_IMAGE_ERRORS:
            facts.add("no-kernel-image")
    out_text = transcript(plain)
    for name in NO_IMAGE_ERRORS:
        if name in out_text:
            facts.add("no-kernel-image")
    observations = list(observations) + no_image_observation(records,
                                                             out_text)
    if source_text is None:
        source_text = read_sources(out_text, records, sources, program_path)
    context = {"output": out_text, "source": normalised(source_text)}
    trace_found = traced_findings(report, found, source_text)
    context["trace_chapters"] = [f["chapter"] for f in trace_found
                                 if f["chapter"] not in report.get(
                                     "trace", {}).get("against", [])]
    context["trace_against"] = report.get("trace", {}).get("against", [])
    report["facts"] = sorted(facts)
    libs = [lib for p in (found or {}).get("py", []) for lib in p["libs"]]
    python = bool((found or {}).get("py")) or program.is_python(
        report.get("program") or ["?"])
    records, dropped = ranking.consequences(
        records, plain, ranking.pooled_libraries(source_text, libs), python)
    report.setdefault("notes", []).extend(dropped)
    groups = reports.group_records(records)
    report["findings"] = ranking.build_findings(
        chapters, groups, facts, observations, context,
        [f for f in trace_found if f["strength"] == "strong"])
    if not ranking.tool_saw(report["findings"]) and (
            "wrong-result" in facts):
        report["silent_causes"] = ranking.silent_causes(chapters, facts,
                                                        context)
    report["suspects"] = ranking.suspects(report["findings"])
    return report


def read_sources(out_text, records, sources, program_path):
    """The text of the sources: the given ones and those the output and
    the reports name."""
    # The lookbehind starts a name only where a word starts: without it a
    # long line of word characters takes quadratic time.
    names = set(re.findall(r"(?<![\w.-])([\w.-]+\.(?:cu|cuh|cpp|cc|c)):"
                           r"[0-9]+",
                           out_text + "\n".join(r["text"] for r in records)))
    return find_sources(names, sources, program_path)


def traced_findings(report, found, source_text):
    """The trace rules' findings, kept in the report (JSON: "trace")."""
    if not found:
        return []
    result = tracerun.findings(found, {"source": source_text})
    report["trace"] = {"against": tracerun.ruled_out(found),
                       "processes": len(found["api"]),
                       "python_processes": len(found["py"]),
                       "calls": sum(len(p["calls"]) for p in found["api"]),
                       "findings": result}
    return result


def no_image_observation(records, out_text):
    """A run observation for a program that says it has no kernel image for
    this GPU, where no sanitizer record says so (no sanitizer ran, or it did
    not see the call): the program was examined, and its build is at fault
    (chapter 28), so this is a finding, not an environment problem."""
    if any(r["error"] in NO_IMAGE_ERRORS for r in records):
        return []
    for line in out_text.splitlines():
        if any(name in line for name in NO_IMAGE_ERRORS):
            return [("no-kernel-image", "the program reports no kernel image "
                     "for this GPU:\n  " + line.strip(), "")]
    return []


def summary_of(result):
    return {"status": result["status"], "seconds": result["seconds"],
            "output_bytes": sum(result["sizes"])}


def excerpt(text, lines=30):
    split = text.splitlines()
    if len(split) <= lines:
        return text
    return "\n".join(split[:lines - 5] + [f"[... {len(split) - lines + 1} "
                                          "lines ...]"] + split[-4:]) + "\n"


def finish(report, started):
    report["seconds"] = round(time.monotonic() - started, 1)
    if report["cannot_examine"] and not report["findings"] and not (
            report.get("silent_causes")):
        report["exit"] = CANNOT_EXAMINE
        report["verdict"] = "could not examine the program"
    elif report["findings"]:
        report["exit"] = FINDINGS
        report["verdict"] = f"{len(report['findings'])} finding(s)"
    elif report.get("silent_causes"):
        report["exit"] = FINDINGS
        report["verdict"] = ("no tool saw a fault, but the result is wrong: "
                             "a silent cause")
    else:
        report["exit"] = NO_FINDING
        report["verdict"] = "no finding"
    return report
