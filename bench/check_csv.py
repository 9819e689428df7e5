#!/usr/bin/env python3
"""The copy lab's checker: the CSV files are well formed, the copied data were
right, pinned memory beat pageable memory, and the pipeline overlapped. No
timing is judged beyond those two comparisons, which hold by wide margins;
the P2P rows (device 0 to device 1, on hosts with two GPUs) are checked for
their form, their data and the paths the program said it would measure.

Run a program with --quick, then check what it wrote (the `bench` tests):
    check_csv.py --program <exe> --kind bandwidth|overlap --work <dir>
                 [--timeout <s>]
Check the files in a folder (the recording step, and the test of the recorded
results):
    check_csv.py --dir <dir> [--allow-missing]
--allow-missing: a folder with none of the three files skips (nothing
recorded yet).
Exits 0 (passed), 1 (failed) or 77 (skipped, only as the test drivers allow).
"""

import argparse
import csv
import os
import re
import shutil
import sys

sys.path.insert(
    0,
    os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "drivers"
    ),
)
# The one skip predicate and CLINIC_REQUIRE, shared with the test drivers.
import clinic_driver as driver  # noqa: E402

BANDWIDTH = (
    "direction,memory,bytes,reps,median_ms,min_ms,max_ms,gbps,link_gbps,"
    "link_fraction,data_ok"
)
OVERLAP = (
    "streams,chunks,chunk_bytes,reps,median_ms,min_ms,max_ms,serial_ms,"
    "ideal_ms,"
    "speedup_vs_serial,ratio_to_ideal,h2d_ms,kernel_ms,d2h_ms,data_ok"
)
TIMELINE = "streams,chunk,stage,stream,ready_ms,start_ms,end_ms"
INT = re.compile(r"[0-9]+")
NUM = re.compile(
    r"[0-9]+(\.[0-9]+)?"
)  # what the programs print: no sign, exponent, inf or nan
# The pipeline must beat one stream by this factor. With one copy engine for
# both directions the kernels still overlap the copies: 3 equal stages per
# chunk then take 2 per chunk, 1.4x for the 8 chunks of --quick; with two
# engines it is near 3x. 1.2 leaves room for launch overheads.
OVERLAP_MARGIN = 1.2
# The P2P rows' paths, in the order bandwidth measures them: peer-on only
# where the two GPUs can reach each other's memory.
PEER_PATHS = ("peer-off", "staged", "peer-on")
# The line of bandwidth's output that says which P2P rows it measures.
PEER_LINE = re.compile(r"^Peer copies \(P2P\): (.*)$", re.M)
Fail = driver.Fail


def read_rows(path, header):
    """The data rows of <path> as dicts, which must start with <header>."""
    if not os.path.exists(path):
        raise Fail("%s: missing" % path)
    with open(path, newline="") as f:
        text = f.read()
    if re.search(r'[;"]', text):  # the programs never quote, and never use ';'
        raise Fail("%s: holds a semicolon or a quote" % path)
    if not text.endswith("\n"):
        raise Fail("%s: does not end with a newline" % path)
    rows = list(csv.reader(text.splitlines()))
    names = header.split(",")
    if rows[0] != names:
        raise Fail(
            "%s: the header is\n  %s\nnot\n  %s"
            % (path, ",".join(rows[0]), header)
        )
    if len(rows) < 2:
        raise Fail("%s: no data rows" % path)
    out = []
    for row in rows[1:]:
        if len(row) != len(names):
            raise Fail(
                "%s: %d fields, not %d, in the row\n  %s"
                % (path, len(row), len(names), ",".join(row))
            )
        out.append(dict(zip(names, row), _row=",".join(row)))
    return out


def expect(path, r, pattern, *names):
    """Each named field of row <r> matches <pattern>; returns them as
    numbers."""
    values = []
    for n in names:
        if not pattern.fullmatch(r[n]):
            raise Fail(
                "%s: %s is '%s' in the row\n  %s" % (path, n, r[n], r["_row"])
            )
        values.append(float(r[n]))
    return values


def positive(path, r, *names):
    for n in names:
        if not float(r[n]) > 0:
            raise Fail(
                "%s: %s is not above zero in the row\n  %s"
                % (path, n, r["_row"])
            )
    lo, mid, hi = (float(r[n]) for n in ("min_ms", "median_ms", "max_ms"))
    if not lo <= mid <= hi:
        raise Fail(
            "%s: not min <= median <= max in the row\n  %s" % (path, r["_row"])
        )


def peer_paths_said(text):
    """The P2P paths that bandwidth's output `text` says it measures, or
    None where the output has no such line (a run older than the P2P
    rows)."""
    m = PEER_LINE.search(text)
    if m is None:
        return None
    if m.group(1).startswith("skipped"):
        return ()
    if "no peer-on row" in m.group(1):
        return PEER_PATHS[:2]
    return PEER_PATHS


def check_peer_rows(path, sizes, reference, said):
    """The P2P rows: every path measured over the same sizes, all of them
    sizes of the other series, the largest included; peer-off and staged
    whenever there are any; and exactly the paths the output said (`said`,
    from peer_paths_said(); None: any of those)."""
    paths = tuple(m for m in PEER_PATHS if ("P2P", m) in sizes)
    allowed = (said,) if said is not None else ((), PEER_PATHS[:2], PEER_PATHS)
    if paths not in allowed:
        raise Fail(
            "%s: P2P rows for %s, not for %s%s"
            % (
                path,
                ", ".join(paths) or "no path",
                " or ".join(", ".join(a) or "no path" for a in allowed),
                "" if said is None else " as the program's output said",
            )
        )
    if not paths:
        return None
    first = sizes["P2P", paths[0]]
    for m in paths:
        if sizes["P2P", m] != first:
            raise Fail(
                "%s: P2P %s has sizes %s, P2P %s %s"
                % (path, m, sizes["P2P", m], paths[0], first)
            )
    if not set(first) <= set(reference) or max(first) != max(reference):
        raise Fail(
            "%s: P2P sizes %s are not among the other sizes %s, or lack "
            "the largest" % (path, first, reference)
        )
    return max(first)


def check_bandwidth(path, said=None):
    """`said`: the P2P paths the program's output named (peer_paths_said),
    None when unknown."""
    rows = read_rows(path, BANDWIDTH)
    gbps, sizes, links = {}, {}, set()
    for r in rows:
        expect(path, r, INT, "bytes", "reps")
        expect(path, r, NUM, "median_ms", "min_ms", "max_ms", "gbps")
        positive(path, r, "bytes", "reps", "median_ms", "min_ms", "gbps")
        memories = {
            "H2D": ("pageable", "pinned"),
            "D2H": ("pageable", "pinned"),
            "D2D": ("device",),
            "P2P": PEER_PATHS,
        }
        if r["memory"] not in memories.get(r["direction"], ()):
            raise Fail(
                "%s: direction/memory '%s %s' in the row\n  %s"
                % (path, r["direction"], r["memory"], r["_row"])
            )
        links.add(r["link_gbps"])  # the link is known on every row or on none
        if r["link_gbps"]:
            expect(path, r, NUM, "link_gbps")
        if r["link_gbps"] == "" or r["direction"] in ("D2D", "P2P"):
            if r["link_fraction"]:
                raise Fail(
                    "%s: a link_fraction without a link in the row\n  %s"
                    % (path, r["_row"])
                )
        else:
            expect(path, r, NUM, "link_fraction")
        if r["data_ok"] != "1":
            raise Fail(
                "%s: the copied data were wrong in the row\n  %s"
                % (path, r["_row"])
            )
        key = (r["direction"], r["memory"])
        if (key, int(r["bytes"])) in gbps:
            raise Fail(
                "%s: %s %s %s bytes appears twice"
                % (path, key[0], key[1], r["bytes"])
            )
        gbps[key, int(r["bytes"])] = float(r["gbps"])
        sizes.setdefault(key, []).append(int(r["bytes"]))
    if len(links) > 1:
        raise Fail("%s: link_gbps changes between rows" % path)
    reference = sizes.get(("H2D", "pinned"))
    for key in (
        ("H2D", "pageable"),
        ("H2D", "pinned"),
        ("D2H", "pageable"),
        ("D2H", "pinned"),
        ("D2D", "device"),
    ):
        if sizes.get(key) != reference or not reference:
            raise Fail(
                "%s: %s %s has sizes %s, H2D pinned %s"
                % (path, key[0], key[1], sizes.get(key), reference)
            )
    largest = max(reference)
    for d in (
        "H2D",
        "D2H",
    ):  # the first timing fact: pinned beats pageable for the largest copies
        pinned, pageable = (
            gbps[(d, "pinned"), largest],
            gbps[(d, "pageable"), largest],
        )
        if not pinned > pageable:
            raise Fail(
                "%s: %s of %d bytes: pinned %s GB/s does not beat "
                "pageable %s GB/s" % (path, d, largest, pinned, pageable)
            )
        print(
            "%s %d bytes: pinned %s GB/s > pageable %s GB/s"
            % (d, largest, pinned, pageable)
        )
    peer_largest = check_peer_rows(path, sizes, reference, said)
    if peer_largest:
        print(
            "P2P %d bytes, device 0 to device 1 (not judged): %s"
            % (
                peer_largest,
                ", ".join(
                    "%s %s GB/s" % (m, gbps[("P2P", m), peer_largest])
                    for m in PEER_PATHS
                    if (("P2P", m), peer_largest) in gbps
                ),
            )
        )
    print("%s: %d rows well formed, data correct" % (path, len(rows)))


def check_overlap(path):
    """Returns the chunk count, for the timeline's check."""
    rows = read_rows(path, OVERLAP)
    medians = {}
    for r in rows:
        expect(path, r, INT, "streams", "chunks", "chunk_bytes", "reps")
        expect(
            path,
            r,
            NUM,
            "median_ms",
            "min_ms",
            "max_ms",
            "serial_ms",
            "ideal_ms",
            "speedup_vs_serial",
            "ratio_to_ideal",
            "h2d_ms",
            "kernel_ms",
            "d2h_ms",
        )
        positive(
            path,
            r,
            "streams",
            "chunks",
            "chunk_bytes",
            "reps",
            "median_ms",
            "min_ms",
            "serial_ms",
            "ideal_ms",
            "h2d_ms",
            "kernel_ms",
            "d2h_ms",
        )
        s = int(r["streams"])
        if s > 8 or s in medians:
            raise Fail("%s: streams %d out of 1..8 or twice" % (path, s))
        medians[s] = float(r["median_ms"])
        if r["chunks"] != rows[0]["chunks"]:
            raise Fail(
                "%s: the chunk count changes at the row\n  %s"
                % (path, r["_row"])
            )
        if r["data_ok"] != "1":
            raise Fail(
                "%s: the pipeline's output was wrong in the row\n  %s"
                % (path, r["_row"])
            )
    if sorted(medians) != list(range(1, 9)):
        raise Fail("%s: stream counts %s, not 1 to 8" % (path, sorted(medians)))
    serial = {r["serial_ms"] for r in rows}
    if serial != {next(r["median_ms"] for r in rows if r["streams"] == "1")}:
        raise Fail(
            "%s: serial_ms (%s) is not the 1-stream median"
            % (path, ", ".join(sorted(serial)))
        )
    best = min(
        medians[s] for s in range(2, 9)
    )  # the second timing fact: the pipeline overlaps
    if not best * OVERLAP_MARGIN <= medians[1]:
        raise Fail(
            "%s: no overlap: the best pipelined run takes %s ms, "
            "one stream %s ms "
            "(it must be %.1fx faster)"
            % (path, best, medians[1], OVERLAP_MARGIN)
        )
    print(
        "%s: %d rows well formed, output correct, "
        "pipelined %.2fx faster than one stream"
        % (path, len(rows), medians[1] / best)
    )
    return int(rows[0]["chunks"])


def check_timeline(path, chunks):
    rows = read_rows(path, TIMELINE)
    ops = dict.fromkeys(range(1, 9), 0)
    for r in rows:
        s, c, st = (
            int(v) for v in expect(path, r, INT, "streams", "chunk", "stream")
        )
        ready, start, end = expect(
            path, r, NUM, "ready_ms", "start_ms", "end_ms"
        )
        if not 1 <= s <= 8 or c >= chunks:
            raise Fail(
                "%s: streams or chunk out of range in the row\n  %s"
                % (path, r["_row"])
            )
        if st != c % s:
            raise Fail(
                "%s: chunk %d is not on stream %d in the row\n  %s"
                % (path, c, c % s, r["_row"])
            )
        if r["stage"] not in ("h2d", "kernel", "d2h"):
            raise Fail(
                "%s: stage '%s' in the row\n  %s"
                % (path, r["stage"], r["_row"])
            )
        if not ready <= start <= end:
            raise Fail(
                "%s: not ready <= start <= end in the row\n  %s"
                % (path, r["_row"])
            )
        ops[s] += 1
    for s, n in ops.items():
        if n != chunks * 3:
            raise Fail(
                "%s: %d operations for %d streams, not %d"
                % (path, n, s, chunks * 3)
            )
    print("%s: %d rows well formed" % (path, len(rows)))


def check_dir(d, allow_missing):
    files = ("bandwidth.csv", "overlap.csv", "overlap-timeline.csv")
    if allow_missing and not any(
        os.path.exists(os.path.join(d, f)) for f in files
    ):
        driver.skip(
            "bench-results", [], "no copy-lab results recorded in %s yet" % d
        )
    said = None  # the table bench_record kept beside the CSV, if any
    table = os.path.join(d, "bandwidth.txt")
    if os.path.exists(table):
        with open(table) as f:
            said = peer_paths_said(f.read())
    check_bandwidth(os.path.join(d, "bandwidth.csv"), said)
    check_timeline(
        os.path.join(d, "overlap-timeline.csv"),
        check_overlap(os.path.join(d, "overlap.csv")),
    )


def check_program(a):
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    args = ["--quick", "--csv", os.path.join(a.work, a.kind + ".csv")]
    if a.kind == "overlap":
        args += ["--timeline", os.path.join(a.work, "overlap-timeline.csv")]
    out, err, status = driver.run([a.program] + args, timeout=a.timeout)
    why = driver.program_skip(out, err, status)
    if why:
        driver.skip("gpu", ["gpu"], why)
    print("%s %s\n%s%s" % (a.program, " ".join(args), out, err))
    if status != "0":
        raise Fail("%s exited with %s, not 0" % (a.kind, status))
    if a.kind == "bandwidth":
        said = peer_paths_said(out)
        if said is None:
            raise Fail("bandwidth printed no line 'Peer copies (P2P): ...'")
        check_bandwidth(os.path.join(a.work, "bandwidth.csv"), said)
    else:
        chunks = check_overlap(os.path.join(a.work, "overlap.csv"))
        check_timeline(os.path.join(a.work, "overlap-timeline.csv"), chunks)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--program")
    p.add_argument("--kind", choices=("bandwidth", "overlap"))
    p.add_argument("--work")
    p.add_argument("--timeout", type=float, default=240)
    p.add_argument("--dir")
    p.add_argument("--allow-missing", action="store_true")
    a = p.parse_args()
    if a.program:
        return driver.verdict(lambda: check_program(a))
    return driver.verdict(lambda: check_dir(a.dir, a.allow_missing))


if __name__ == "__main__":
    sys.exit(main())
