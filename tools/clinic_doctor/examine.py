"""The examination: the runs, the tools, and the diagnosis that turns what
they saw into findings."""

import re
import shutil
import tempfile
import time
from pathlib import Path

from . import CANNOT_EXAMINE, FINDINGS, NO_FINDING, CannotExamine
from . import chapters as chapter_data
from . import environment, evidence, program, ranking, reports, runs
from . import sanitizer as sanitizers
from .runs import result_transcript as transcript

SOURCE_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".c", ".h", ".py")
KEEP_HEAD, KEEP_TAIL = 64 * 1024, 16 * 1024  # what of an output is read back
NO_IMAGE_ERRORS = (
    "cudaErrorNoKernelImageForDevice",
    "cudaErrorUnsupportedPtxVersion",
    "cudaErrorInvalidKernelImage",
)


def run_program(command, args, scratch, env_extra=None, timeout=None):
    """One run of the examined command under the doctor's limits."""
    try:
        return runs.run(command, timeout or args.timeout, env_extra,
                        scratch=scratch, output_limit=args.output_limit << 20,
                        keep=(KEEP_HEAD, KEEP_TAIL))
    except OSError as error:
        raise CannotExamine(f"cannot start {command[0]}: {error}")


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


def plain_runs(report, args, command, scratch):
    """The blocking run and the repeats (the plain one is made before)."""
    blocking = run_program(command, args, scratch,
                           {"CUDA_LAUNCH_BLOCKING": "1"})
    report["runs"]["blocking"] = summary_of(blocking)
    repeats = [run_program(command, args, scratch)
               for _ in range(max(0, args.repeat - 1))]
    report["runs"]["repeats"] = [summary_of(r) for r in repeats]
    return blocking, repeats


def tool_runs(report, args, command, scratch, sanitizer, problems):
    """The sanitizer tools' runs and what keeps their verdict incomplete."""
    records, info = [], {}
    if sanitizer:
        limits = {"timeout": args.tool_timeout,
                  "output_limit": args.output_limit << 20,
                  "keep": (KEEP_HEAD, KEEP_TAIL)}
        records, info = sanitizers.run_tools(sanitizer, args.tools, command,
                                             scratch, limits, args.keep)
    else:
        report["cannot_examine"] = [t for _, t in problems]
    report["runs"]["sanitizer"] = info
    for tool, entry in info.items():
        if entry.get("problem"):
            report["notes"].append(f"{tool}: {entry['problem']}")
    unfinished = [t for t, r in info.items() if r.get("problem")]
    if unfinished:
        report["cannot_examine"].append(
            f"{', '.join(unfinished)} did not finish: a program "
            "without findings from the others is not declared clean")
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


def examine(args, command):
    chapters = chapter_data.load_chapters(args.root)
    program_path = program.check_program(command)
    scratch = tempfile.mkdtemp(prefix="clinic-doctor-")
    started = time.monotonic()
    report = {"program": command, "runs": {}, "findings": [], "notes": [],
              "cannot_examine": [], "environment": {}}
    try:
        probe = environment.probe_driver()
        report["environment"] = probe
        plain = run_program(command, args, scratch)
        report["runs"]["plain"] = summary_of(plain)
        sanitizer = (sanitizers.find_sanitizer(args.sanitizer)
                     if args.tools else None)
        problems = environment.environment_problems(probe, plain, sanitizer,
                                                    args.tools)
        if [p for p in problems if p[0] != "no-sanitizer"]:
            report["cannot_examine"] = [t for _, t in problems]
            report["runs"]["plain"]["transcript"] = excerpt(transcript(plain))
            return finish(report, started)
        if plain["too_much"]:
            report["notes"].append(
                f"the program wrote more than {args.output_limit} MiB and "
                "was stopped; the doctor read its first and last lines")
        blocking, repeats = plain_runs(report, args, command, scratch)
        if args.keep:
            keep_transcripts(args.keep, plain, blocking, repeats)
        facts, observations = evidence.run_facts(
            plain, blocking, repeats, args.ignore, args.wrong_result)
        records = tool_runs(report, args, command, scratch, sanitizer,
                            problems)
        script = program.script_of(command)
        sources = list(args.source) + ([script] if script else [])
        diagnose(report, chapters, records, facts, observations, plain,
                 sources, script or program_path)
        no_image_note(report, probe)
        report["plain_output"] = excerpt(transcript(plain))
        return finish(report, started)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def diagnose(report, chapters, records, facts, observations, plain,
             sources=(), program_path=".", source_text=None):
    """Fills report's facts, findings, silent causes and suspects from the
    sanitizer records and the runs' facts and observations. It is also the
    doctor offline (the tests route recorded reports with it)."""
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
        # The lookbehind starts a name only where a word starts: without it a
        # long line of word characters takes quadratic time.
        names = set(re.findall(r"(?<![\w.-])([\w.-]+\.(?:cu|cuh|cpp|cc|c)):"
                               r"[0-9]+",
                               out_text + "\n".join(r["text"]
                                                    for r in records)))
        source_text = find_sources(names, sources, program_path)
    context = {"output": out_text, "source": source_text}
    report["facts"] = sorted(facts)
    records, dropped = ranking.consequences(records, plain)
    report.setdefault("notes", []).extend(dropped)
    groups = reports.group_records(records)
    report["findings"] = ranking.build_findings(chapters, groups, facts,
                                                observations, context)
    if not ranking.tool_saw(report["findings"]) and "wrong-result" in facts:
        report["silent_causes"] = ranking.silent_causes(chapters, facts,
                                                        context)
    report["suspects"] = ranking.suspects(report["findings"])
    return report


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
    if report["cannot_examine"] and not report["findings"]:
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
