"""Unit tests of tools/clinic-doctor (the package tools/clinic_doctor), run
by `ctest -L doctor` without a GPU.

The report parser and the routing are tested on real compute-sanitizer
reports: the samples in samples/ (recorded on an H100/H200 by the doctor's
--keep, addresses and paths as the tool wrote them) and every
chapters/*/expected/broken.<tool>.out that the update-expected preset has
recorded. Each must route to its own chapter, given the chapter's recorded
transcript (expected/broken.out) and source, as the doctor would see them.
The bad-input tests run the doctor end to end with a stand-in program and a
stand-in compute-sanitizer (samples/fake-sanitizer), so they need no GPU.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import types
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
SAMPLES = HERE / "samples"
RUNS = SAMPLES / "runs"  # the doctor's --keep folders from a GPU run
DOCTOR = ROOT / "tools" / "clinic-doctor"
sys.path.insert(0, str(ROOT / "tests" / "drivers"))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tools"))
import doctor_gpu  # noqa: E402
from clinic_doctor import chapters as chapter_data  # noqa: E402
from clinic_doctor import evidence, program, ranking  # noqa: E402
from clinic_doctor import reports as parsing, sanitizer  # noqa: E402
from clinic_doctor import examine as examination  # noqa: E402
from clinic_doctor import trace  # noqa: E402


# The doctor's functions the tests call, by the names they had when the
# doctor was one file.
doctor = types.SimpleNamespace(
    address_facts=parsing.address_facts, parse_report=parsing.parse_report,
    consequences=ranking.consequences, diagnose=examination.diagnose,
    finish=lambda report, started, _args: examination.finish(report,
                                                             started),
    load_chapters=chapter_data.load_chapters, validate=chapter_data.validate,
    run_facts=evidence.run_facts, script_of=program.script_of,
    SANITIZER_TOOLS=sanitizer.TOOLS)
CHAPTERS = doctor.load_chapters(ROOT)
# What the doctor is told about the GPU in the end-to-end tests.
FAKE_GPU = json.dumps({"driver": 13000, "devices": 1,
                       "gpus": [{"name": "stand-in", "cc": "9.0"}]})


def fake_plain(text):
    """A plain run's result from a recorded transcript ("[stderr]" and
    "[exit status: N]" as the harness writes them)."""
    m = re.search(r"\[exit status: ([^]]*)\]\n?$", text)
    status = m.group(1) if m else "0"
    body = text[:m.start()] if m else text
    out, _, err = body.partition("[stderr]\n")
    code = int(status) if status.lstrip("-").isdigit() else None
    return {"out": out, "err": err, "status": status, "code": code,
            "signal": None if code is not None else status,
            "timed_out": False, "too_much": False, "seconds": 0,
            "sizes": (len(out), len(err))}


def route(chapter_dir, reports, transcript_text):
    """The doctor offline: {tool: report text} of one chapter's broken
    program, with its transcript and source. Returns the report dict."""
    plain = fake_plain(transcript_text)
    facts, observations = doctor.run_facts(plain, None, [], None, True)
    records = []
    for tool, text in reports.items():
        records += doctor.parse_report(text, tool)[0]
    source = (chapter_dir / "broken.cu").read_text() if (
        chapter_dir / "broken.cu").exists() else ""
    report = {"notes": []}
    return doctor.diagnose(report, CHAPTERS, records, facts, observations,
                           plain, source_text=source)


def chapter_dir(number):
    for d in (ROOT / "chapters").iterdir():
        if d.name.startswith(number + "-"):
            return d
    raise LookupError(number)


def in_clinic(number):
    """A kept run or report belongs to a chapter of the clinic (a chapter
    teaches the doctor by being added to chapters/)."""
    return any(d.name.startswith(number + "-")
               for d in (ROOT / "chapters").iterdir())


def recorded_reports():
    """(chapter number, tool, report text, transcript) for every recorded
    report that found errors: samples/runs/chNN-broken/<tool>.txt (with its
    plain.out) and chapters/*/expected/broken.<tool>.out (with
    expected/broken.out)."""
    found = []
    for run in sorted(RUNS.glob("ch[0-9][0-9]-broken")):
        if not in_clinic(run.name[2:4]):
            continue
        for tool in doctor.SANITIZER_TOOLS:
            report = run / f"{tool}.txt"
            if report.exists() and doctor.parse_report(
                    report.read_text(), tool)[0]:
                found.append((run.name[2:4], tool, report.read_text(),
                              (run / "plain.out").read_text()))
    for d in sorted((ROOT / "chapters").iterdir()):
        for tool in doctor.SANITIZER_TOOLS:
            report = d / "expected" / f"broken.{tool}.out"
            record = d / "expected" / "broken.out"
            if report.exists() and record.exists():
                found.append((d.name[:2], tool, report.read_text(),
                              record.read_text()))
    return found


def recorded_trace(number, prog):
    """The trace recorded on the GPU host for a chapter program
    (traces/chNN/<prog>.jsonl and its children's), read as the doctor
    reads a trace run's folder, or None."""
    files = sorted((HERE / "traces" / f"ch{number}").glob(f"{prog}.*jsonl"))
    files = [f for f in files if f.name == f"{prog}.jsonl" or re.fullmatch(
        re.escape(prog) + r"\.[0-9]+\.jsonl", f.name)]
    if not files:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        for i, path in enumerate(files, 1):
            (Path(tmp) / f"api-{i}.jsonl").write_text(path.read_text())
        return trace.read_trace(tmp)


def replay(run, with_trace=False, wrong_result=None):
    """The doctor offline on one kept GPU run (samples/runs/chNN-<prog>):
    its plain, blocking and repeated transcripts and its sanitizer reports,
    as tests/doctor/doctor_gpu.py ran it. Returns the report dict."""
    number, prog = run.name[2:4], run.name[5:]
    plain = fake_plain((run / "plain.out").read_text())
    blocking = fake_plain((run / "blocking.out").read_text())
    repeats = [fake_plain(f.read_text()) for f in sorted(run.glob("run*.out"))]
    facts, seen = doctor.run_facts(plain, blocking, repeats,
                                   doctor_gpu.IGNORE.get(number),
                                   prog == "broken" if wrong_result is None
                                   else wrong_result)
    records = []
    for tool in doctor.SANITIZER_TOOLS:
        if (run / f"{tool}.txt").exists():
            records += doctor.parse_report((run / f"{tool}.txt").read_text(),
                                           tool)[0]
    source = (chapter_dir(number) / f"{prog}.cu").read_text()
    report = {"notes": [], "cannot_examine": [], "seconds": 0,
              "runs": {}, "program": [prog]}
    if not records and not any(run.glob("*.txt")):
        report["cannot_examine"].append("the sanitizer tools did not finish "
                                        "in this run")
    doctor.diagnose(report, CHAPTERS, records, facts, seen, plain,
                    source_text=source,
                    found=recorded_trace(number, prog) if with_trace
                    else None)
    return doctor.finish(report, 0, None)


class ChapterData(unittest.TestCase):
    def test_every_chapter_has_valid_data(self):
        folders = [d for d in (ROOT / "chapters").iterdir()
                   if re.match(r"^[0-9][0-9]-", d.name)]
        with_data = {c["folder"] for c in CHAPTERS}
        missing = sorted(d.name for d in folders if d.name not in with_data)
        self.assertFalse(missing, "no doctor.json in " + ", ".join(missing))

    def test_data_names_real_places_and_facts(self):
        known_facts = re.compile(
            r"^(global|shared|local|read|write|atomic|null|past-end|"
            r"past-end-far|past-end-near|before-start|before-start-far|"
            r"inside-allocation|freed|device-heap|no-allocation-near|wild|"
            r"host-address|before-start-wrap|"
            r"exit-nonzero|crash-signal|segfault|host-heap-corruption|"
            r"timed-out|wrong-result|blocking-moves-error|"
            r"blocking-changes-output|differs-between-runs|"
            r"first-error-at-copy|no-kernel-image|"
            r"(failed|api|error|output-error|signal):.+)$")
        for c in CHAPTERS:
            for sign in c.get("signs", []):
                for fact in sign.get("facts", []):
                    self.assertRegex(fact, known_facts,
                                     f"chapter {c['number']}")

    def test_validate_rejects_mistakes(self):
        good = {"cause": "x", "confirm": "y", "signs": []}
        doctor.validate(good, "t")
        for bad in ({"cause": "x"},
                    dict(good, signs=[{"in": "nowhere", "match": "a"}]),
                    dict(good, signs=[{"in": "memcheck", "match": "("}]),
                    dict(good, signs=[{"in": "memcheck"}]),
                    dict(good, silent={"prior": 1})):
            with self.assertRaises(ValueError):
                doctor.validate(bad, "t")

    def test_titles_come_from_the_readmes(self):
        titled = [c for c in CHAPTERS
                  if (ROOT / c["readme"]).exists()]
        self.assertTrue(titled)
        for c in titled:
            self.assertNotRegex(c["title"], r"^#|^[0-9][0-9] ·")


class Parsing(unittest.TestCase):
    REPORT = (
        "========= COMPUTE-SANITIZER\n"
        "========= Invalid __global__ write of size 4 bytes\n"
        "=========     at squares(int *, int)+0x80 in broken.cu:17\n"
        "=========     by thread (100,0,0) in block (0,0,0)\n"
        "=========     Access to 0x7f1b30800790 is out of bounds\n"
        "=========     and is 1937 bytes after the nearest allocation at "
        "0x7f1b30800000 of size 1000 bytes\n"
        "=========\n"
        "========= Program hit cudaErrorLaunchFailure (error 719) due to "
        "\"unspecified launch failure\" on CUDA API call to cudaMemcpy.\n"
        "=========\n"
        "========= ERROR SUMMARY: 2 errors\n")

    def test_a_memcheck_record(self):
        records, summary = doctor.parse_report(self.REPORT, "memcheck")
        self.assertEqual(summary["errors"], 2)
        access, api = records
        self.assertEqual(access["kind"], "invalid-access")
        self.assertEqual(access["kernel"], "squares(int *, int)")
        self.assertEqual((access["file"], access["line"]), ("broken.cu", 17))
        self.assertIn("past-end-far", access["facts"])
        self.assertIn("1937 bytes", access["address"])
        self.assertEqual((api["api"], api["error"]),
                         ("cudaMemcpy", "cudaErrorLaunchFailure"))

    def test_the_failed_calls_after_a_fault_are_consequences(self):
        records, _ = doctor.parse_report(self.REPORT, "memcheck")
        kept, notes = doctor.consequences(records, fake_plain("[exit "
                                                              "status: 2]"))
        self.assertEqual([r["kind"] for r in kept], ["invalid-access"])
        self.assertIn("consequences", notes[0])

    def test_no_lineinfo_is_said(self):
        text = self.REPORT.replace(" in broken.cu:17", "")
        report = doctor.diagnose({"notes": []}, CHAPTERS,
                                 doctor.parse_report(text, "memcheck")[0],
                                 set(), [], fake_plain("[exit status: 0]"),
                                 source_text="")
        self.assertIn("-lineinfo", report["findings"][0]["lineinfo"])

    def test_address_facts(self):
        near = "Access to 0x10 is out of bounds"
        self.assertIn("null", doctor.address_facts(near)[0])
        before = ("and is 2147483648 bytes before the nearest allocation at "
                  "0x... of size 2148532224 bytes")
        self.assertIn("before-start-far", doctor.address_facts(before)[0])
        host = "Access to 0x55d0c0ffee00 is out of bounds"
        self.assertIn("no-allocation-near", doctor.address_facts(host)[0])

    @staticmethod
    def before(distance, size):
        return (f"Access to 0x7f0000001000 is out of bounds\n"
                f"and is {distance:,} bytes before the nearest allocation at "
                f"0x7f0000002000 of size {size:,} bytes")

    def test_a_wrapped_index_of_each_element_size(self):
        """An int index into k-byte elements that wraps past 2^31 - 1 lands
        about k * 2^31 bytes before an allocation of more than 2^31 such
        elements: 2 GiB for bytes, 4 for short, 8 for int, 16 for double."""
        for k in (1, 2, 4, 8):
            size = (k << 31) + (64 << 10)
            for distance in ((k << 31) - 4097, k << 31, (k << 30) + 8):
                with self.subTest(k=k, distance=distance):
                    facts, says = doctor.address_facts(
                        self.before(distance, size))
                    self.assertIn("before-start-wrap", facts)
                    self.assertIn(f"about {2 * k} GiB (2^31 × {k} byte",
                                  says)

    def test_no_wrap_where_no_index_can_wrap(self):
        big = 1 << 36  # 64 GiB: room for 2^31 elements of any size
        for distance, size in (
            ((1 << 30) - 1, big),  # under 1 GiB
            ((1 << 34) + (1 << 30), big),  # over 16 GiB
            ((1 << 33) - 4096, 1 << 32),  # 8 GiB before 4 GiB: 2^30 ints
            (8680112128, 8388864),  # chapter 21: NULL, a small heap
        ):
            with self.subTest(distance=distance, size=size):
                facts, says = doctor.address_facts(
                    self.before(distance, size))
                self.assertIn("before-start", facts)
                self.assertNotIn("before-start-wrap", facts)
                self.assertNotIn("wraps", says)

    def test_a_wrapped_int_index_names_chapter_27(self):
        text = ("========= Invalid __global__ write of size 4 bytes\n"
                "=========     at fill(float *, long long)+0x90 in big.cu:20\n"
                "=========     Access to 0x7f0000001000 is out of bounds\n"
                "=========     and is 8,589,930,496 bytes before the nearest "
                "allocation at 0x7f0200000000 of size 8,590,000,128 bytes\n"
                "=========\n========= ERROR SUMMARY: 1 error\n")
        records = doctor.parse_report(text, "memcheck")[0]
        report = doctor.diagnose({"notes": []}, CHAPTERS, records, set(), [],
                                 fake_plain("[exit status: 1]\n"),
                                 source_text="")
        self.assertEqual(report["suspects"][0], "27")
        self.assertIn("4-byte elements (int, float)",
                      report["findings"][0]["address"])

    def test_racecheck_summary(self):
        text = ("========= RACECHECK SUMMARY: 3 hazards displayed "
                "(2 errors, 1 warnings)\n")
        self.assertEqual(doctor.parse_report(text, "racecheck")[1]["hazards"],
                         3)


class Routing(unittest.TestCase):
    def test_recorded_reports_route_to_their_chapter(self):
        cases = recorded_reports()
        self.assertTrue(cases, "no recorded report to route")
        for number, tool, text, transcript in cases:
            with self.subTest(chapter=number, tool=tool):
                report = route(chapter_dir(number), {tool: text}, transcript)
                self.assertIn(number, report["suspects"][:2],
                              f"{tool} report of chapter {number} routed to "
                              f"{report['suspects']}")

    def test_the_gpu_runs_replayed(self):
        """Every kept GPU run, routed again by today's doctor and data: as
        doctor_gpu.py judges a live run (broken: its chapter named, for 90%
        among the first two; fixed: no finding but the on-purpose ones)."""
        runs = [r for r in sorted(RUNS.glob("ch[0-9][0-9]-*"))
                if in_clinic(r.name[2:4])]
        self.assertTrue(runs)
        top2 = broken = 0
        for run in runs:
            number, prog = run.name[2:4], run.name[5:]
            with self.subTest(run=run.name):
                report = replay(run)
                verdict, detail = doctor_gpu.judge(number, prog, report)
                print(f"{run.name}: {verdict} {detail}")
                self.assertIn(verdict, ("first", "top2", "listed", "clean",
                                        "skipped"), detail)
                if prog == "broken" and verdict != "skipped":
                    broken += 1
                    top2 += verdict in ("first", "top2")
        self.assertGreaterEqual(top2, 0.9 * broken)

    def test_the_gpu_runs_with_their_traces_name_the_chapter_first(self):
        """Every kept GPU run with the trace recorded of the same program,
        judged as a user runs the doctor (no --source, no --wrong-result):
        each broken program's chapter comes first; each fixed program has
        no finding but the faults chapters 02 and 10 make on purpose."""
        runs = [r for r in sorted(RUNS.glob("ch[0-9][0-9]-*"))
                if in_clinic(r.name[2:4])
                and recorded_trace(r.name[2:4], r.name[5:])]
        self.assertTrue(runs)
        for run in runs:
            number, prog = run.name[2:4], run.name[5:]
            with self.subTest(run=run.name):
                report = replay(run, with_trace=True, wrong_result=False)
                verdict, detail = doctor_gpu.judge(number, prog, report)
                self.assertIn(verdict, ("first", "clean", "skipped"),
                              detail)

    def test_silent_causes_are_ranked_by_evidence(self):
        plain = fake_plain("*** stack smashing detected ***\n"
                           "[exit status: 1]\n")
        facts, seen = doctor.run_facts(plain, None, [], None, False)
        report = doctor.diagnose({"notes": []}, CHAPTERS, [], facts, seen,
                                 plain, source_text="")
        self.assertEqual(report["silent_causes"][0]["number"], "03")

    def test_a_changed_output_under_blocking_names_the_waits(self):
        plain = fake_plain("0 of 4 right\n[exit status: 1]\n")
        blocking = fake_plain("4 of 4 right\n[exit status: 0]\n")
        facts, seen = doctor.run_facts(plain, blocking, [], None, False)
        self.assertIn("blocking-changes-output", facts)
        report = doctor.diagnose({"notes": []}, CHAPTERS, [], facts, seen,
                                 plain, source_text="")
        self.assertEqual(set(report["suspects"][:3]), {"08", "09", "19"})
        self.assertIn("34", report["suspects"])
        managed = doctor.diagnose({"notes": []}, CHAPTERS, [], facts, seen,
                                  plain, source_text="cudaMallocManaged(&p, n)")
        self.assertEqual(managed["suspects"][0], "34")

    def test_the_page_names_the_chapters_of_a_changed_output(self):
        """docs/doctor.md lists, for output that changes under
        CUDA_LAUNCH_BLOCKING=1, exactly the chapters whose doctor.json has a
        run sign for it."""
        page = (ROOT / "docs" / "doctor.md").read_text()
        item = re.search(r"If the output changes(.*?)\n\d\. ", page, re.S)
        self.assertIsNotNone(item, "step 2 of 'What it runs' has moved")
        on_page = set(re.findall(r"chapters/([0-9][0-9])-", item.group(1)))
        in_data = {c["number"] for c in CHAPTERS for sign in c["signs"]
                   if sign["in"] == "run"
                   and "blocking-changes-output" in sign.get("facts", [])}
        self.assertIn("34", in_data)
        self.assertEqual(on_page, in_data)

    def test_a_moved_error_names_chapter_10(self):
        plain = fake_plain("copy: cudaErrorIllegalAddress\n"
                           "[exit status: 2]\n")
        blocking = fake_plain("launch: cudaErrorIllegalAddress\n"
                              "[exit status: 2]\n")
        facts, seen = doctor.run_facts(plain, blocking, [], None, False)
        report = doctor.diagnose({"notes": []}, CHAPTERS, [], facts, seen,
                                 plain, source_text="")
        self.assertEqual(report["suspects"][0], "10")


class BadInput(unittest.TestCase):
    """The doctor end to end, on stand-in programs; never a traceback."""

    def doctor(self, *args, env=None, timeout=120):
        environment = dict(os.environ, CLINIC_DOCTOR_PROBE=FAKE_GPU)
        environment.update(env or {})
        p = subprocess.run([sys.executable, str(DOCTOR), *args],
                           capture_output=True, text=True, timeout=timeout,
                           env=environment)
        self.assertNotIn("Traceback", p.stdout + p.stderr)
        return p

    def script(self, folder, body):
        path = Path(folder) / "program.py"
        path.write_text("#!" + sys.executable + "\n" + body)
        path.chmod(0o755)
        return str(path)

    def test_missing_path(self):
        p = self.doctor("--", "/no/such/program")
        self.assertEqual(p.returncode, 2)
        self.assertIn("no such program", p.stdout)
        self.assertIn("not a clean bill of health", p.stdout)

    def test_not_a_cuda_program(self):
        """A program is examined whatever its binary holds; the trace,
        which sees no CUDA call, says it is not a CUDA program."""
        true = "/bin/true" if os.path.exists("/bin/true") else "/usr/bin/true"
        p = self.doctor("--trace-library", __file__, "--", true)
        self.assertEqual(p.returncode, 2)
        self.assertIn("not a CUDA program", p.stdout)
        self.assertIn("the trace saw no CUDA call", p.stdout)

    def test_no_program_named(self):
        self.assertEqual(self.doctor().returncode, 2)

    def test_a_hang_meets_the_time_limit(self):
        with tempfile.TemporaryDirectory() as tmp:
            prog = self.script(tmp, "import time\ntime.sleep(60)\n")
            p = self.doctor("--timeout", "1", "--repeat", "1", "--tools=",
                            "--", prog)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn("time limit", p.stdout)

    def test_megabytes_of_output(self):
        with tempfile.TemporaryDirectory() as tmp:
            prog = self.script(
                tmp, "import sys\nwhile True:\n"
                "    sys.stdout.write('x' * 1000000 + '\\n')\n")
            p = self.doctor("--timeout", "60", "--repeat", "1", "--tools=",
                            "--output-limit", "4", "--json", "--", prog)
        report = json.loads(p.stdout)
        self.assertIn("more than 4 MiB", " ".join(report["notes"]))
        self.assertLess(len(p.stdout), 1 << 20)

    def test_a_crash_by_signal(self):
        with tempfile.TemporaryDirectory() as tmp:
            prog = self.script(tmp, "import os, signal\n"
                               "os.kill(os.getpid(), signal.SIGSEGV)\n")
            p = self.doctor("--repeat", "1", "--tools=", "--json", "--",
                            prog)
        report = json.loads(p.stdout)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(report["findings"][0]["kind"], "crash-signal")
        self.assertEqual(report["suspects"][0], "05")

    def test_no_gpu_is_no_clean_bill(self):
        with tempfile.TemporaryDirectory() as tmp:
            prog = self.script(tmp, "print('fine')\n")
            p = self.doctor("--", prog, env={
                "CLINIC_DOCTOR_PROBE": json.dumps(
                    {"driver": None, "why": "stand-in"})})
        self.assertEqual(p.returncode, 2)
        self.assertIn("no CUDA driver", p.stdout)

    def test_no_sanitizer_is_no_clean_bill(self):
        with tempfile.TemporaryDirectory() as tmp:
            prog = self.script(tmp, "print('fine')\n")
            p = self.doctor("--sanitizer", "/no/compute-sanitizer", "--",
                            prog)
        self.assertEqual(p.returncode, 2)
        self.assertIn("compute-sanitizer was not found", p.stdout)

    def test_the_report_names_the_program_as_typed(self):
        """The report's first line is the command as the user typed it,
        run from their folder: no temporary folder of the doctor's."""
        with tempfile.TemporaryDirectory() as tmp:
            self.script(tmp, "print('b: 8 of 8 elements wrong')\n"
                        "raise SystemExit(1)\n")
            p = subprocess.run(
                [sys.executable, str(DOCTOR), "--sanitizer",
                 str(SAMPLES / "fake-sanitizer"), "--repeat", "1", "--",
                 "./program.py", "--size", "8"],
                capture_output=True, text=True, timeout=120, cwd=tmp,
                env=dict(os.environ, CLINIC_DOCTOR_PROBE=FAKE_GPU,
                         FAKE_SANITIZER_REPORTS=str(RUNS / "ch13-broken")))
        self.assertEqual(p.stdout.splitlines()[0],
                         "clinic-doctor: ./program.py --size 8")
        self.assertNotIn("clinic-doctor-", p.stdout)  # its scratch folder
        self.assertNotIn(tmp, p.stdout)
        self.assertNotIn(tempfile.gettempdir() + "/", p.stdout)

    def test_a_python_script_is_read_for_hints(self):
        """python3 script.py: the script is the program's source, so its
        float64 data puts chapter 29 first among the silent causes."""
        with tempfile.TemporaryDirectory() as tmp:
            script = Path(tmp) / "scale.py"
            script.write_text("data = 'float64'  # stand-in for numpy\n"
                              "print('out: 8 of 8 elements wrong')\n"
                              "raise SystemExit(1)\n")
            p = self.doctor("--repeat", "1", "--tools=", "--json", "--",
                            sys.executable, "-B", str(script))
        report = json.loads(p.stdout)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertEqual(report["silent_causes"][0]["number"], "29")

    def test_the_script_of_a_command(self):
        with tempfile.TemporaryDirectory() as tmp:
            script = self.script(tmp, "print('x')\n")
            self.assertEqual(doctor.script_of(["python3", script]), script)
            self.assertEqual(doctor.script_of(["python3", "-u", script, "8"]),
                             script)
            self.assertEqual(doctor.script_of(["env", "python3", script]),
                             script)
            self.assertEqual(doctor.script_of([script, "8"]), script)
            self.assertIsNone(doctor.script_of(["python3", "-m", "app"]))
            self.assertIsNone(doctor.script_of(["python3", "-c", "pass"]))
        self.assertIsNone(doctor.script_of(["python3", "/no/such.py"]))
        self.assertIsNone(doctor.script_of([sys.executable]))

    def test_a_reader_that_stops_reading(self):
        """clinic-doctor ... | head: the reader is gone before the report is
        written; the doctor ends quietly, with the verdict's exit status."""
        read_end, write_end = os.pipe()
        os.close(read_end)
        with tempfile.TemporaryDirectory() as tmp:
            prog = self.script(tmp, "import os, signal\n"
                               "os.kill(os.getpid(), signal.SIGSEGV)\n")
            try:
                p = subprocess.run(
                    [sys.executable, str(DOCTOR), "--repeat", "1", "--tools=",
                     "--", prog], stdout=write_end, stderr=subprocess.PIPE,
                    text=True, timeout=120,
                    env=dict(os.environ, CLINIC_DOCTOR_PROBE=FAKE_GPU))
            finally:
                os.close(write_end)
        self.assertEqual(p.stderr, "")
        self.assertEqual(p.returncode, 1)  # a finding: the crash

    def test_no_kernel_image_is_a_finding(self):
        """A program built for other GPUs was examined: its build is at
        fault, so it is a finding of chapter 28 (exit 1), with or without a
        sanitizer to see the launch, never "could not examine" (exit 2)."""
        body = ("import sys\nprint('launch: cudaErrorNoKernelImageForDevice"
                " (no kernel image is available for execution on the "
                "device)')\nraise SystemExit(int(sys.argv[1]))\n")
        for status in ("0", "1"):
            with self.subTest(program_exit=status), \
                    tempfile.TemporaryDirectory() as tmp:
                prog = self.script(tmp, body)
                p = self.doctor("--repeat", "1", "--tools=", "--json", "--",
                                prog, status)
                report = json.loads(p.stdout)
                self.assertEqual(p.returncode, 1, p.stdout)
                self.assertEqual(report["exit"], 1)
                # Only the trace may be missing: no library on this
                # machine, or a library that saw this stand-in make no call.
                for text in report["cannot_examine"]:
                    self.assertRegex(
                        text, "trace unavailable|trace saw no CUDA call")
                self.assertEqual(report["findings"][0]["kind"],
                                 "no-kernel-image")
                self.assertEqual(report["suspects"][0], "28")
                self.assertIn("-arch=native", " ".join(report["notes"]))

    def test_no_kernel_image_seen_by_memcheck_is_one_finding(self):
        """Chapter 28's GPU run: memcheck saw the launch fail, so the program's
        own line adds no second finding."""
        report = replay(RUNS / "ch28-broken")
        self.assertEqual(report["exit"], 1)
        kinds = [f["kind"] for f in report["findings"]]
        self.assertNotIn("no-kernel-image", kinds)
        self.assertEqual(report["suspects"][0], "28")

    def test_a_sanitizer_report_end_to_end(self):
        """A stand-in compute-sanitizer replays a recorded report."""
        with tempfile.TemporaryDirectory() as tmp:
            prog = self.script(tmp, "print('b: 8 of 8 elements wrong')\n"
                               "raise SystemExit(1)\n")
            p = self.doctor("--sanitizer", str(SAMPLES / "fake-sanitizer"),
                            "--repeat", "1", "--json", "--", prog,
                            env={"FAKE_SANITIZER_REPORTS":
                                 str(RUNS / "ch13-broken")})
        report = json.loads(p.stdout)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(report["suspects"][0], "13")


if __name__ == "__main__":
    unittest.main()
