"""Facts from the plain, blocking and repeated runs: the exit status, the
CUDA errors a program prints, and output that changes between runs or under
CUDA_LAUNCH_BLOCKING=1."""

import difflib
import re

from .runs import result_transcript as transcript

CUDA_ERROR = re.compile(r"\b(cudaError[A-Z][A-Za-z]+|CUDA_ERROR_[A-Z_]+)\b")
# A number followed by a time or rate unit is a timing, which differs
# between runs: masked before runs are compared. Longer units first.
TIME_UNITS = (
    r"(?:[kKMGTP]i?(?:B|b|Flop|FLOP|flop|op|OP)s?/s|[kKMGTP]?FLOPS|"
    r"[kKMGTP]?[Ff]lops|[kKMGT]?(?:ops|it|iter|elem|elements|B|bytes)/s|"
    r"nanoseconds?|microseconds?|milliseconds?|seconds?|minutes?|"
    r"hours?|nsecs?|usecs?|msecs?|secs?|mins?|ns|us|µs|μs|ms|s)"
)
TIMING = re.compile(r"[-+]?[0-9]+(?:[.,][0-9]+)*(?:[eE][-+]?[0-9]+)?\s*"
                    + TIME_UNITS + r"(?![A-Za-z0-9])")


def comparable(result, ignore):
    """A run's transcript with the lines matching --ignore dropped, numbers
    with a time unit masked and hexadecimal addresses masked."""
    lines = []
    for line in transcript(result).splitlines():
        if ignore and re.search(ignore, line):
            continue
        line = re.sub(r"0x[0-9a-fA-F]+", "0x...", line)
        line = TIMING.sub("<t>", line)
        lines.append(line)
    return "\n".join(lines)


def cuda_errors(text):
    """The CUDA error names in a text, in order of first appearance."""
    seen = []
    for name in CUDA_ERROR.findall(text):
        if name not in seen and name not in ("cudaErrorNotReady",):
            seen.append(name)
    return seen


def first_error_line(text):
    """The first line of a text that names a CUDA error (not NotReady)."""
    for line in text.splitlines():
        names = CUDA_ERROR.findall(line)
        if [n for n in names if n != "cudaErrorNotReady"]:
            return line.strip()
    return None


# A compiler's error line (nvcc, NVRTC) in a program's output: a kernel the
# program compiles while it runs (PyCUDA's SourceModule, CuPy's RawKernel).
COMPILER_ERROR = re.compile(r"^\S+\([0-9]+\): (?:catastrophic )?error: .+$",
                            re.M)


def compile_facts(text, facts, seen):
    """A kernel compiled at run time that the compiler refused: the
    compiler's error lines, routed like a build's diagnostics."""
    lines = COMPILER_ERROR.findall(text)
    if not lines:
        return
    facts.add("runtime-compile-error")
    seen.append(("runtime-compile-error", "the program compiled a kernel "
                 "while it ran and the compiler refused it:\n  " + lines[0],
                 "\n".join(lines)))


def plain_facts(plain, wrong_result, facts, seen):
    """Facts from the plain run alone."""
    text = transcript(plain)
    for name in cuda_errors(text):
        facts.add(f"output-error:{name}")
    if plain["code"] not in (0, None):
        facts.add("exit-nonzero")
    if plain["signal"]:
        facts.add("crash-signal")
        facts.add(f"signal:{plain['signal']}")
        seen.append(("crash-signal",
                     f"the program died of a signal: {plain['signal']}",
                     text))
    if re.search(r"SIGSEGV|Segmentation fault", text):
        facts.add("segfault")
    if re.search(r"stack smashing|corrupted|double free|free\(\): invalid",
                 text):
        facts.add("host-heap-corruption")
    if plain["timed_out"]:
        facts.add("timed-out")
        seen.append(("timed-out", f"the program was {plain['status']}",
                     text))
    compile_facts(text, facts, seen)
    if wrong_result or "exit-nonzero" in facts:
        facts.add("wrong-result")
    first = first_error_line(text)
    if first and re.search(r"[Mm]emcpy|memcpy_[dh]to[dh]", first):
        facts.add("first-error-at-copy")


def blocking_facts(plain, blocking, ignore, facts, seen):
    """Facts from comparing the plain run with the blocking one."""
    text, b_text = transcript(plain), transcript(blocking)
    first, b_first = first_error_line(text), first_error_line(b_text)
    if first != b_first:
        if first and b_first:
            facts.add("blocking-moves-error")
            what = ("with CUDA_LAUNCH_BLOCKING=1 the first error moves:\n"
                    f"  plain:    {first}\n  blocking: {b_first}")
        elif first:
            facts.add("blocking-clears-error")
            what = ("with CUDA_LAUNCH_BLOCKING=1 the error disappears:\n"
                    f"  plain:    {first}")
        else:
            facts.add("blocking-adds-error")
            what = ("with CUDA_LAUNCH_BLOCKING=1 an error appears:\n"
                    f"  blocking: {b_first}")
        seen.append(("blocking-moves-error", what, b_text))
    elif comparable(blocking, ignore) != comparable(plain, ignore):
        facts.add("blocking-changes-output")
        seen.append(("blocking-changes-output",
                     "with CUDA_LAUNCH_BLOCKING=1 the output changes",
                     diff_text(text, b_text, "plain", "blocking")))


def comparable_run(result):
    """A run that ended by itself: one stopped at the time or output limit
    (or never made, for the time budget) is not compared."""
    return result is not None and not result["timed_out"] and not (
        result["too_much"] or result.get("skipped"))


def run_facts(plain, blocking, repeats, ignore, wrong_result):
    """Facts about the plain, blocking and repeated runs, and a note on each
    observation that is a finding of its own: (facts, observations)."""
    facts, seen = set(), []
    plain_facts(plain, wrong_result, facts, seen)
    if blocking is not None and comparable_run(blocking):
        blocking_facts(plain, blocking, ignore, facts, seen)
    if not comparable_run(plain):
        return facts, seen
    base = comparable(plain, ignore)
    differing = [r for r in repeats if comparable_run(r)
                 and comparable(r, ignore) != base]
    if differing:
        facts.add("differs-between-runs")
        seen.append(("differs-between-runs",
                     f"the output differs between runs ({len(differing)} of "
                     f"{len(repeats)} repeats)",
                     diff_text(transcript(plain), transcript(differing[0]),
                               "run 1", "another run")))
    return facts, seen


def diff_text(a, b, name_a, name_b):
    lines = list(difflib.unified_diff(a.splitlines(), b.splitlines(), name_a,
                                      name_b, lineterm="", n=1))
    return "\n".join(lines[:24])
