"""The report: text for a person, JSON for other tools."""

import json
import textwrap

from . import NO_FINDING

SILENT_SHOWN = 6  # silent causes listed in the text report
WRAP = textwrap.TextWrapper(width=78, subsequent_indent="            ")


def indent(text, prefix="    | "):
    return "\n".join(prefix + line for line in text.splitlines())


def chapter_line(ref):
    return f"chapter {ref['number']} · {ref['title']}"


def header(report):
    """The command and one line per run."""
    out = [f"clinic-doctor: {' '.join(report['program'])}"]
    runs = report["runs"]
    if "plain" in runs:
        out.append(f"  plain run: {runs['plain']['status']} "
                   f"({runs['plain']['seconds']} s)")
    if "trace" in runs:
        traced = report.get("trace", {})
        out.append(f"  trace run: {runs['trace']['status']} "
                   f"({runs['trace']['seconds']} s; "
                   f"{traced.get('processes', 0)} process(es) traced, "
                   f"{traced.get('calls', 0)} calls)")
    for tool, info in runs.get("sanitizer", {}).items():
        count = (f"{info['hazards']} hazards" if "hazards" in info else
                 f"{info['errors']} errors" if info["errors"] is not None
                 else "no summary")
        out.append(f"  {tool}: {count} ({info['seconds']} s)")
    for text in report["cannot_examine"]:
        out.append("")
        out.append(WRAP.fill("CANNOT EXAMINE: " + text))
    if report["cannot_examine"] and not report["findings"]:
        out.append("This is not a clean bill of health: the program was not "
                   "examined.")
        if runs.get("plain", {}).get("transcript"):
            out.append("The program's output:")
            out.append(indent(runs["plain"]["transcript"]))
    return out


def finding_lines(i, f):
    """The lines of one finding."""
    times = f" ({f['count']} times)" if f.get("count", 1) > 1 else ""
    out = ["", f"Finding {i}: {f['source']}: {f['summary']}{times}"]
    where = []
    if f.get("kernel"):
        where.append(f"in {f['kernel']}")
    if f.get("api"):
        where.append(f"CUDA call {f['api']} returned {f['error']}")
    if f.get("file"):
        where.append(f"at {f['file']}:{f['line']}")
    if where:
        out.append(WRAP.fill("  where:    " + ", ".join(where)))
    if f.get("lineinfo"):
        out.append(WRAP.fill("  note:     " + f["lineinfo"]))
    if f.get("address"):
        out.append(WRAP.fill("  address:  " + f["address"]))
    if f["chapters"]:
        top = f["chapters"][0]
        out.append(WRAP.fill(f"  likely:   {chapter_line(top)}: "
                             f"{top['cause']}"))
        out.append(f"            read {top['readme']} "
                   f"(docs: {top['page']})")
        for ref in f["chapters"][1:3]:
            out.append(WRAP.fill(f"  or:       {chapter_line(ref)}: "
                                 f"{ref['cause']}"))
    else:
        out.append("  likely:   no chapter describes this report")
    out.append("  evidence:")
    out.append(indent(f["evidence"]))
    if f["chapters"]:
        out.append(WRAP.fill("  confirm:  " + f["chapters"][0]["confirm"]))
    return out


def silent_lines(causes):
    out = ["", "No tool saw a fault, yet the result is wrong. The causes "
           "no tool can see,\nmost likely first (by what the runs "
           "showed):"]
    shown = causes[:SILENT_SHOWN]
    for ref in shown:
        out.append(WRAP.fill(f"  {ref['number']} · {ref['title']}: "
                             f"{ref['symptom']}"))
        out.append(f"            {ref['readme']} (docs: {ref['page']})")
    more = len(causes) - len(shown)
    if more > 0:
        out.append(f"  ... and {more} more (--json lists them all)")
    return out


def render(report):
    """The report as text."""
    out = header(report)
    for i, f in enumerate(report["findings"], 1):
        out += finding_lines(i, f)
    if report.get("silent_causes"):
        out += silent_lines(report["silent_causes"])
    hints = [f for f in report.get("trace", {}).get("findings", [])
             if f["strength"] != "strong"]
    for f in hints:
        out.append("")
        out.append(WRAP.fill(f"hint (trace): chapter {f['chapter']}: "
                             f"{f['summary']}"))
        out.append(indent("\n".join(f["evidence"])))
    for note in report["notes"]:
        out.append("")
        out.append(WRAP.fill("note: " + note))
    out.append("")
    if report.get("suspects"):
        out.append("Chapters named, most likely first: "
                   + ", ".join(report["suspects"]))
    out.append(f"Verdict: {report['verdict']} ({report['seconds']} s; "
               f"exit {report['exit']})")
    if report["exit"] == NO_FINDING:
        out.append("No tool and no run showed a fault. If the result is "
                   "still wrong, run again with --wrong-result for the "
                   "causes no tool can see.")
    return "\n".join(out) + "\n"


def as_json(report):
    return json.dumps(report, indent=2)
