"""Unit tests of tools/clinic-exercise, run by `ctest -L cpu` without a GPU.

The checker's comparison is tested against the recorded transcripts of the
chapters themselves: the fixed program's record is what a solved exercise
prints, the broken program's record what an unsolved one prints.
"""

import importlib.machinery
import importlib.util
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "drivers"))
# The harness, whose transcripts the checker must match.
import clinic_driver  # noqa: E402


TOOL = ROOT / "tools" / "clinic-exercise"


def load_tool():
    loader = importlib.machinery.SourceFileLoader("clinic_exercise", str(TOOL))
    spec = importlib.util.spec_from_loader("clinic_exercise", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


tool = load_tool()
# The chapters with recorded outputs (a chapter being written has none yet;
# the structure lint names what it lacks).
CHAPTERS = [
    c for c in tool.chapters(ROOT) if (c / "expected" / "fixed.out").exists()
]
COMPILE_FAIL = [c for c in CHAPTERS if tool.compile_fails(c)]


def split_transcript(text):
    """The stdout, stderr and exit status a recorded transcript was made of."""
    match = re.match(
        r"^(.*?)(?:\[stderr\]\n(.*))?\[exit status: ([^]]*)\]\n$", text, re.S
    )
    return match.group(1), match.group(2) or "", match.group(3)


def runnable_records(prog):
    """(chapter, text) for each chapter's expected/<prog>.out of a program that
    ran (not the diagnostics of one that must not compile)."""
    for chapter in CHAPTERS:
        text = (chapter / "expected" / f"{prog}.out").read_text()
        if re.search(r"\[exit status: [^]]*\]\n$", text):
            yield chapter, text


class Transcripts(unittest.TestCase):
    def test_rebuilds_every_record(self):
        """transcript() writes what clinic_run() wrote into every record."""
        count = 0
        for prog in ("broken", "fixed"):
            for chapter, text in runnable_records(prog):
                with self.subTest(chapter=chapter.name, prog=prog):
                    stdout, stderr, status = split_transcript(text)
                    self.assertEqual(
                        tool.transcript(stdout, stderr, status), text
                    )
                    count += 1
        self.assertEqual(count, 2 * len(CHAPTERS) - len(COMPILE_FAIL))

    def test_same_as_the_harness(self):
        """The harness's driver writes the same transcript and status names."""
        for parts in (
            ("", "", "0"),
            ("a", "", "1"),
            ("a\n", "e", "2"),
            ("a\r\nb", "e\r\n", "3"),
        ):
            self.assertEqual(
                tool.transcript(*parts), clinic_driver.transcript(*parts)
            )
        for returncode in (0, 2, 77, -signal.SIGSEGV, -signal.SIGABRT):
            with self.subTest(returncode=returncode):
                self.assertEqual(
                    tool.exit_status_text(returncode),
                    clinic_driver.run(
                        [
                            sys.executable,
                            "-c",
                            (
                                f"import os, signal; os.kill(os.getpid(), "
                                f"{-returncode})"
                                if returncode < 0
                                else f"raise SystemExit({returncode})"
                            ),
                        ]
                    )[2],
                )

    def test_format_details(self):
        self.assertEqual(tool.transcript("", "", "0"), "[exit status: 0]\n")
        self.assertEqual(tool.transcript("a", "", "1"), "a\n[exit status: 1]\n")
        self.assertEqual(
            tool.transcript("a\n", "e", "2"),
            "a\n[stderr]\ne\n[exit status: 2]\n",
        )
        self.assertEqual(
            tool.transcript("a\r\n", "", "0"), "a\n[exit status: 0]\n"
        )

    def test_exit_status_names(self):
        self.assertEqual(tool.exit_status_text(0), "0")
        self.assertEqual(tool.exit_status_text(77), "77")
        self.assertEqual(
            tool.exit_status_text(-signal.SIGSEGV), "Segmentation fault"
        )

    def test_skip_path(self):
        self.assertEqual(
            tool.skip_reason("[SKIPPED] no GPU\n", "", "77"), "no GPU"
        )
        self.assertIsNone(tool.skip_reason("[SKIPPED] no GPU\n", "", "0"))
        self.assertIsNone(
            tool.skip_reason("[SKIPPED] no GPU\nmore\n", "", "77")
        )
        self.assertIsNone(
            tool.skip_reason("[SKIPPED] no GPU\n", "oops\n", "77")
        )


class Comparison(unittest.TestCase):
    def test_solved_accepted(self):
        """The fixed program's own transcript passes, for every chapter."""
        for chapter in CHAPTERS:
            with self.subTest(chapter=chapter.name):
                record = (chapter / "expected" / "fixed.out").read_text()
                self.assertEqual(tool.compare(record, record), (True, ""))

    def test_solved_from_broken_cu_accepted(self):
        """A solved copy is called broken.cu and its lines may move: an error
        message's file:line does not count (chapters 02 and 10 print one)."""
        for chapter in CHAPTERS:
            record = (chapter / "expected" / "fixed.out").read_text()
            moved = re.sub(
                r"(?m)^fixed\.cu:([0-9]+):",
                lambda m: f"broken.cu:{int(m.group(1)) + 7}:",
                record,
            )
            with self.subTest(chapter=chapter.name):
                self.assertTrue(tool.compare(record, moved)[0])
        self.assertIn(
            "fixed.cu:",
            (
                ROOT
                / "chapters"
                / "02-unchecked-allocation"
                / "expected"
                / "fixed.out"
            ).read_text(),
        )

    def test_unsolved_rejected(self):
        """The broken program's transcript fails, with a diff, in every
        chapter whose broken program runs."""
        count = 0
        for chapter, broken in runnable_records("broken"):
            record = (chapter / "expected" / "fixed.out").read_text()
            with self.subTest(chapter=chapter.name):
                same, diff = tool.compare(record, broken, "expected/fixed.out")
                self.assertFalse(same)
                self.assertIn(
                    "--- expected/fixed.out\n+++ your program\n", diff
                )
                count += 1
        self.assertEqual(count, len(CHAPTERS) - len(COMPILE_FAIL))
        self.assertGreaterEqual(count, 20)

    def test_only_file_and_line_ignored(self):
        record = (
            "[stderr]\nfixed.cu:25: cudaMalloc(p) failed: "
            "cudaErrorMemoryAllocation\n"
            "[exit status: 2]\n"
        )
        self.assertTrue(
            tool.compare(record, record.replace("fixed.cu:25", "broken.cu:3"))[
                0
            ]
        )
        self.assertFalse(
            tool.compare(
                record, record.replace("cudaMalloc(p)", "cudaMalloc(q)")
            )[0]
        )
        self.assertFalse(
            tool.compare(record, record.replace("status: 2", "status: 0"))[0]
        )
        self.assertFalse(
            tool.compare(record, record.replace("[stderr]\n", ""))[0]
        )

    def test_recorded_status(self):
        self.assertEqual(tool.recorded_status("x\n[exit status: 2]\n"), "2")


class Sanitizer(unittest.TestCase):
    CLEAN = "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n"
    RACE_CLEAN = (
        "========= RACECHECK SUMMARY: 0 hazards displayed "
        "(0 errors, 0 warnings)\n"
    )
    WRITE = (
        "========= Invalid __global__ write of size 4 bytes\n"
        "=========     at k()\n"
    )

    def test_expectations(self):
        """CLEAN everywhere, except memcheck in chapters 02 and 10, whose fixed
        programs make an error on purpose and pin the error count."""
        for chapter in CHAPTERS:
            for name in tool.SANITIZER_TOOLS:
                expect = tool.sanitizer_expectation(chapter, name)
                with self.subTest(chapter=chapter.name, tool=name):
                    if name == "memcheck" and chapter.name[:2] in ("02", "10"):
                        self.assertNotEqual(expect, "CLEAN")
                        self.assertTrue(
                            any("ERROR SUMMARY: " in p for p in expect)
                        )
                    else:
                        self.assertEqual(expect, "CLEAN")

    def test_clean_verdicts(self):
        self.assertTrue(
            tool.sanitizer_verdict("memcheck", self.CLEAN, "0", "CLEAN", "0")[0]
        )
        self.assertTrue(
            tool.sanitizer_verdict(
                "racecheck", self.RACE_CLEAN, "0", "CLEAN", "0"
            )[0]
        )
        # racecheck's summary differs: "ERROR SUMMARY" alone is no proof there
        self.assertFalse(
            tool.sanitizer_verdict("racecheck", self.CLEAN, "0", "CLEAN", "0")[
                0
            ]
        )
        dirty = self.WRITE + "========= ERROR SUMMARY: 24 errors\n"
        self.assertFalse(
            tool.sanitizer_verdict("memcheck", dirty, "86", "CLEAN", "0")[0]
        )
        # clean, but the program exits otherwise than the fixed one recorded
        self.assertFalse(
            tool.sanitizer_verdict("initcheck", self.CLEAN, "1", "CLEAN", "0")[
                0
            ]
        )

    def test_fault_on_purpose(self):
        """Chapter 10: the fixed program's fault is the expected report."""
        chapter = ROOT / "chapters" / "10-late-error"
        expect = tool.sanitizer_expectation(chapter, "memcheck")
        four = self.WRITE * 4 + "========= ERROR SUMMARY: 4 errors\n"
        self.assertTrue(
            tool.sanitizer_verdict("memcheck", four, "86", expect, "2")[0]
        )
        self.assertFalse(
            tool.sanitizer_verdict("memcheck", four, "0", expect, "2")[0]
        )
        self.assertFalse(
            tool.sanitizer_verdict("memcheck", self.CLEAN, "0", expect, "2")[0]
        )
        eight = self.WRITE * 8 + "========= ERROR SUMMARY: 8 errors\n"
        self.assertFalse(
            tool.sanitizer_verdict("memcheck", eight, "86", expect, "2")[0]
        )

    def test_patterns_in_order(self):
        """The regexes of expected/fixed.<tool> match one after the other."""
        with tempfile.TemporaryDirectory() as folder:
            chapter = Path(folder) / "99-demo"
            (chapter / "expected").mkdir(parents=True)
            self.assertEqual(
                tool.sanitizer_expectation(chapter, "memcheck"), "CLEAN"
            )
            (chapter / "expected" / "fixed.memcheck").write_text(
                "first\n\nERROR SUMMARY: 1 error\n"
            )
            expect = tool.sanitizer_expectation(chapter, "memcheck")
            self.assertEqual(expect, ["first", "ERROR SUMMARY: 1 error"])
            report = "first\nERROR SUMMARY: 1 error\n"
            self.assertTrue(
                tool.sanitizer_verdict("memcheck", report, "86", expect, "2")[0]
            )
            backwards = "ERROR SUMMARY: 1 error\nfirst\n"
            self.assertFalse(
                tool.sanitizer_verdict(
                    "memcheck", backwards, "86", expect, "2"
                )[0]
            )


class Building(unittest.TestCase):
    def test_arch_flags(self):
        self.assertEqual(
            tool.arch_flags("75-real;80-real;90"),
            [
                "--generate-code=arch=compute_75,code=sm_75",
                "--generate-code=arch=compute_80,code=sm_80",
                "--generate-code=arch=compute_90,code=[sm_90,compute_90]",
            ],
        )
        self.assertEqual(
            tool.arch_flags("90a-virtual"),
            ["--generate-code=arch=compute_90a,code=compute_90a"],
        )
        self.assertEqual(tool.arch_flags("native"), ["-arch=native"])
        with self.assertRaises(tool.SetupError):
            tool.arch_flags("sm_90")

    def test_build_command(self):
        command = tool.build_command(
            "nvcc", "x/broken.cu", "x/build/broken", "90", ROOT
        )
        for flag in ("-lineinfo", "-std=c++17", str(ROOT / "common")):
            self.assertIn(flag, command)

    def test_default_architectures_follow_the_build(self):
        text = (ROOT / "cmake" / "clinic.cmake").read_text()
        self.assertIn(f'"{tool.default_architectures(ROOT)}"', text)


class CommandLine(unittest.TestCase):
    def test_list_into_a_closed_pipe(self):
        """`clinic-exercise list | head -1`: the reader goes away after one
        line, or before the first; the tool ends quietly, no traceback."""
        for lines_read in (1, 0):
            with self.subTest(lines_read=lines_read):
                process = subprocess.Popen(
                    [sys.executable, str(TOOL), "list"],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                )
                for _ in range(lines_read):
                    self.assertIn(b"chapter", process.stdout.readline())
                process.stdout.close()
                err = process.stderr.read().decode()
                process.stderr.close()
                status = process.wait(timeout=60)
                self.assertNotIn("Traceback", err)
                self.assertNotIn("BrokenPipeError", err)
                self.assertIn(status, (0, 1))

    def test_list_into_a_pipe_closed_before_it_writes(self):
        """The reader is gone before the tool writes anything: the write
        fails for certain, and the tool still ends quietly with status 1."""
        read_end, write_end = os.pipe()
        os.close(read_end)
        try:
            p = subprocess.run(
                [sys.executable, str(TOOL), "list"],
                stdout=write_end,
                stderr=subprocess.PIPE,
                text=True,
                timeout=60,
            )
        finally:
            os.close(write_end)
        self.assertEqual(p.stderr, "")
        self.assertEqual(p.returncode, 1)


class CommandsToRunNext(unittest.TestCase):
    """The commands the tool prints work from the folder it was run in."""

    def in_folder(self, folder, *words, **options):
        here = os.getcwd()
        os.chdir(folder)
        try:
            return tool.tool_command(*words, **options)
        finally:
            os.chdir(here)

    def test_the_tool_as_reached_from_each_folder(self):
        chapter = tool.find_chapter("08", ROOT)
        self.assertEqual(self.in_folder(ROOT, "check", "08"),
                         "tools/clinic-exercise check 08")
        self.assertEqual(self.in_folder(chapter, "check", "08"),
                         "../../tools/clinic-exercise check 08")
        self.assertEqual(self.in_folder(ROOT / "tools", "list"),
                         "./clinic-exercise list")
        with tempfile.TemporaryDirectory() as folder:
            self.assertEqual(
                self.in_folder(folder, "check", "08"),
                f"{shlex.quote(str(TOOL))} check 08",
            )
            (Path(folder) / "my exercises").mkdir()
            self.assertEqual(
                self.in_folder(folder, "check", "08",
                               exercises=Path(folder) / "my exercises"),
                f"{shlex.quote(str(TOOL))} --exercises 'my exercises' "
                "check 08",
            )

    def test_start_outside_the_repository(self):
        """`cd /tmp && .../tools/clinic-exercise start 01`, then the check
        command it printed, typed in the same folder, finds the copy (a
        stand-in nvcc fails the build: not solved, not a setup error)."""
        with tempfile.TemporaryDirectory() as folder:
            started = subprocess.run(
                [sys.executable, str(TOOL), "--exercises", "mine",
                 "start", "01"],
                cwd=folder, capture_output=True, text=True, timeout=60,
            )
            self.assertEqual(started.returncode, 0, started.stderr)
            then = re.search(r"then run: (.+)", started.stdout).group(1)
            self.assertEqual(
                then, f"{shlex.quote(str(TOOL))} --exercises mine check 01"
            )
            false = "/bin/false" if os.path.exists("/bin/false") else (
                "/usr/bin/false")
            checked = subprocess.run(
                shlex.split(then) + ["--nvcc", false],
                cwd=folder, capture_output=True, text=True, timeout=60,
            )
            self.assertEqual(checked.returncode, tool.NOT_SOLVED,
                             checked.stdout + checked.stderr)
            self.assertIn("your copy does not compile", checked.stdout)
            self.assertIn(f"run `{then}` again", checked.stdout)


class Chapters(unittest.TestCase):
    def test_compile_fail_chapters(self):
        self.assertEqual(sorted(c.name[:2] for c in COMPILE_FAIL), ["11", "22"])

    def test_find_chapter(self):
        self.assertEqual(tool.find_chapter("8", ROOT).name[:3], "08-")
        self.assertEqual(tool.find_chapter("ch08", ROOT).name[:3], "08-")
        with self.assertRaises(tool.SetupError):
            tool.find_chapter("99", ROOT)

    def test_every_chapter_has_a_hint(self):
        """A short ## Hint right before the Fix section, which a learner
        reads after it."""
        for chapter in CHAPTERS:
            text = (chapter / "README.md").read_text()
            with self.subTest(chapter=chapter.name):
                hint = tool.read_hint(text)
                self.assertTrue(hint, "no ## Hint section")
                self.assertLess(
                    len(hint), 500, "a hint is one or two sentences"
                )
                headings = re.findall(r"(?m)^## (.+)$", text)
                self.assertEqual(headings[headings.index("Hint") + 1], "Fix")

    def test_see_it_yourself_shows_the_exercise(self):
        for chapter in CHAPTERS:
            text = (chapter / "README.md").read_text()
            section = re.search(
                r"(?ms)^## See it yourself\n(.*?)(?=^## |\Z)", text
            ).group(1)
            number = chapter.name[:2]
            with self.subTest(chapter=chapter.name):
                self.assertIn(f"tools/clinic-exercise start {number}", section)
                self.assertIn(f"tools/clinic-exercise check {number}", section)
                if (chapter / "broken.py").exists():
                    self.assertIn(
                        f"python3 chapters/{chapter.name}/broken.py", section
                    )

    def test_start_keeps_the_learners_copy(self):
        with tempfile.TemporaryDirectory() as folder:
            chapter = tool.find_chapter("01", ROOT)
            copy = Path(folder) / chapter.name / "broken.cu"
            self.assertEqual(
                tool.exercise_state(chapter, folder), "not started"
            )
            self.assertEqual(
                tool.main(["--exercises", folder, "start", "01"]), 0
            )
            self.assertEqual(
                copy.read_bytes(), (chapter / "broken.cu").read_bytes()
            )
            copy.write_text("my work\n")
            self.assertEqual(
                tool.main(["--exercises", folder, "start", "01"]),
                tool.SETUP_ERROR,
            )
            self.assertEqual(copy.read_text(), "my work\n")
            self.assertEqual(tool.exercise_state(chapter, folder), "started")
            (copy.parent / ".solved").write_text(tool.digest(copy) + "\n")
            self.assertEqual(tool.exercise_state(chapter, folder), "solved")
            copy.write_text("changed since\n")
            self.assertEqual(tool.exercise_state(chapter, folder), "started")
            self.assertEqual(
                tool.main(["--exercises", folder, "start", "01", "--force"]), 0
            )
            self.assertEqual(
                (copy.parent / "broken.cu.old").read_text(), "changed since\n"
            )
            self.assertEqual(
                copy.read_bytes(), (chapter / "broken.cu").read_bytes()
            )

    def test_a_build_bug_is_part_of_the_exercise(self):
        """Chapter 28's bug is in its CMakeLists.txt: start hands the learner
        what broken is built for, and check builds with what they write."""
        chapter = tool.find_chapter("28", ROOT)
        self.assertEqual(tool.chapter_architectures(chapter, "broken"),
                         "75-real")
        self.assertEqual(tool.chapter_architectures(chapter, "fixed"), "75")
        self.assertIsNone(
            tool.chapter_architectures(tool.find_chapter("01", ROOT),
                                       "broken"))
        with tempfile.TemporaryDirectory() as folder:
            self.assertEqual(
                tool.main(["--exercises", folder, "start", "28"]), 0)
            mine = Path(folder) / chapter.name
            self.assertEqual(tool.exercise_architectures(mine), "75-real")
            tool.write_architectures(mine, chapter, "native")
            self.assertEqual(tool.exercise_architectures(mine), "native")
            self.assertIsNone(tool.exercise_architectures(Path(folder)))

    def test_check_without_a_copy(self):
        with tempfile.TemporaryDirectory() as folder:
            self.assertEqual(
                tool.main(["--exercises", folder, "check", "01"]),
                tool.SETUP_ERROR,
            )


if __name__ == "__main__":
    unittest.main()
