"""The doctor offline on runs it kept on the GPU host (issue 24, the sixth
GPU check: samples/gpu6/, each a program's sanitizer reports, transcripts
and trace as `clinic-doctor --keep` left them). Each case is a row the
doctor got wrong there: a Python program's memory at teardown called a
leak, a driver API error no chapter knew, a kernel fault's later failed
call left without a chapter, a broken program whose chapter the trace and
launch check could show. Run by `ctest -L doctor` without a GPU.
"""

import sys
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = Path(__file__).resolve().parent / "samples" / "gpu6"
sys.path.insert(0, str(ROOT / "tools"))
from clinic_doctor import chapters as chapter_data  # noqa: E402
from clinic_doctor import evidence, examine, ranking, reports  # noqa: E402
from clinic_doctor import trace, sanitizer  # noqa: E402
from test_doctor import fake_plain  # noqa: E402

CHAPTERS = chapter_data.load_chapters(ROOT)
# What tests/doctor/doctor_gpu.py passed as --ignore (timing verdicts).
IGNORE = {"18": r"^overlapped:"}


def script_of(name):
    """chapters/NN-*/<program> for a kept folder chNN-<program> (a
    compiled program's .cu source)."""
    number, program = name[2:4], name[5:]
    folder = next((ROOT / "chapters").glob(number + "-*"))
    return folder / (program if program.endswith(".py") else
                     program + ".cu")


def transcript(folder, name):
    path = folder / name
    return fake_plain(path.read_text()) if path.exists() else None


def replay(name):
    """The doctor's report of a kept run folder, routed again offline as
    examine.examine would route it (plain, blocking and repeated runs,
    the four tools' reports, the trace)."""
    folder = SAMPLES / name
    plain = transcript(folder, "plain.out")
    repeats = [r for r in (transcript(folder, "run2.out"),
                           transcript(folder, "run3.out")) if r]
    facts, seen = evidence.run_facts(plain, transcript(folder, "blocking.out"),
                                     repeats, IGNORE.get(name[2:4]), False)
    records = []
    for tool in sanitizer.TOOLS:
        path = folder / f"{tool}.txt"
        if path.exists():
            records += reports.parse_report(path.read_text(), tool)[0]
    found = trace.read_trace(folder / "trace") if (
        folder / "trace").is_dir() else None
    script = script_of(name)
    command = (["python3", str(script)] if script.suffix == ".py" else
               [str(script.with_suffix(""))])
    report = {"notes": [], "program": command}
    return examine.diagnose(report, CHAPTERS, records, facts, seen, plain,
                            source_text=script.read_text(), found=found)


def first_chapters(report):
    return [f["chapters"][0]["number"] if f["chapters"] else None
            for f in report["findings"]]


class PythonTeardown(unittest.TestCase):
    LEAK = {"tool": "memcheck", "kind": "leak", "api": None, "error": None,
            "headline": "Leaked 4,096 bytes at 0x7f0000000000",
            "text": "Leaked 4,096 bytes at 0x7f0000000000\n    Host Frame: "
            "mem_alloc_wrap in wrap_cudadrv.cpp:107 [0x124acb] in "
            "_driver.cpython-312-x86_64-linux-gnu.so"}
    C_LEAK = dict(LEAK, text="Leaked 4,096 bytes at 0x7f0000000000\n    "
                  "Host Frame: main in broken.cu:20 [0x1234] in broken")

    def test_a_python_objects_memory_at_teardown_is_a_note(self):
        kept, notes = ranking.consequences([self.LEAK], fake_plain(""))
        self.assertEqual(kept, [])
        self.assertIn("Python", notes[0])
        kept, _ = ranking.consequences([self.C_LEAK], fake_plain(""),
                                       python=True)
        self.assertEqual(kept, [])

    def test_a_c_programs_leak_stays_a_finding(self):
        kept, _ = ranking.consequences([self.C_LEAK], fake_plain(""))
        self.assertEqual(kept, [self.C_LEAK])

    def test_pycuda_fixed_programs_are_clean(self):
        for name in ("ch04-fixed.py", "ch06-fixed.py", "ch09-fixed.py",
                     "ch18-fixed.py", "ch19-fixed.py"):
            with self.subTest(program=name):
                report = replay(name)
                self.assertEqual(report["findings"], [])
                self.assertTrue(any("Python" in n for n in report["notes"]))


class OnPurpose(unittest.TestCase):
    """Fixed programs of 02 and 10 fault on purpose: every finding must
    route to their own chapter first."""

    def test_02_pycuda_out_of_memory_is_02(self):
        report = replay("ch02-fixed.py")
        self.assertTrue(report["findings"])
        self.assertEqual(set(first_chapters(report)), {"02"})

    def test_10_a_kernel_faults_later_failed_sync_is_a_consequence(self):
        for name in ("ch10-fixed.py", "ch10-fixed", "ch10-broken.py"):
            with self.subTest(program=name):
                report = replay(name)
                self.assertTrue(report["findings"])
                self.assertEqual(set(first_chapters(report)), {"10"})


class DriverErrors(unittest.TestCase):
    def test_pycuda_lookup_and_block_shape_errors_have_chapters(self):
        for name, number in (("ch11-broken.py", "11"),
                             ("ch14-broken.py", "14")):
            with self.subTest(program=name):
                self.assertEqual(replay(name)["suspects"][:1], [number])


def judged_first(report):
    """The first chapter the doctor names: its findings' first, else the
    first silent cause (as tests/doctor/doctor_gpu.py judges it)."""
    named = report["suspects"] + [c["number"] for c in
                                  report.get("silent_causes", [])]
    return named[:1]


class NoToolFinding(unittest.TestCase):
    """Broken programs no sanitizer sees: the trace, the launch check or
    the output name their chapter; the fixed twins stay clean."""
    CASES = (("06", "the read-back never reached CUDA"),
             ("16", "packed layout"), ("22", "compiler refused"),
             ("26", "pitched memory"),
             ("28", "CUDA_ERROR_NO_BINARY_FOR_GPU"))

    def test_their_chapter_first(self):
        for number, said in self.CASES:
            with self.subTest(chapter=number):
                report = replay(f"ch{number}-broken.py")
                self.assertEqual(judged_first(report), [number])
                text = str(report.get("trace", {}).get("findings")) + str(
                    report["findings"])
                self.assertIn(said, text)

    def test_the_fixed_twins_stay_clean(self):
        for number in ("06", "16", "22", "26"):
            with self.subTest(chapter=number):
                report = replay(f"ch{number}-fixed.py")
                self.assertEqual(report["findings"], [])
                self.assertNotIn("silent_causes", report)


class FaultCauseFirst(unittest.TestCase):
    def test_a_fault_s_cause_before_its_late_report(self):
        """21's PyCUDA twin: memcheck's NULL write points to 21 and 10
        equally, and the trace sees the fault reported late (10); the cause
        goes first, 10 only explains the report."""
        report = replay("ch21-broken.py")
        self.assertEqual(judged_first(report), ["21"])
        self.assertIn("10", [c["number"] for c in
                             report["findings"][0]["chapters"]])


if __name__ == "__main__":
    unittest.main()
