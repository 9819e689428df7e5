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
        chapter whose broken program runs, or where it matches by luck, a
        sanitizer tool's expected report tells the two apart."""
        count = 0
        for chapter, broken in runnable_records("broken"):
            record = (chapter / "expected" / "fixed.out").read_text()
            with self.subTest(chapter=chapter.name):
                same, diff = tool.compare(record, broken, "expected/fixed.out")
                if same:  # the output is right by luck (40): a sanitizer
                    # tool's report, which check runs next, tells them apart
                    self.assertTrue(list((chapter / "expected").glob(
                        "broken.*check")), "no output or tool tells them apart")
                    count += 1
                    continue
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


def code_only(text):
    """A program without its comments and blank space, to compare the code
    of two versions (both taken apart the same way)."""
    text = re.sub(r"(?s)/\*.*?\*/", " ", text)
    text = re.sub(r"//[^\n]*", " ", text)
    return " ".join(text.split())


class TheCopy(unittest.TestCase):
    """What `start` gives the learner: no BUG: text, a TODO: at the bug."""

    def test_no_bug_text_and_a_todo_at_each_bug(self):
        for chapter in tool.chapters(ROOT):
            original = (chapter / "broken.cu").read_text()
            copy = tool.learner_source(original, chapter)
            with self.subTest(chapter=chapter.name):
                self.assertNotIn("BUG:", copy)
                self.assertNotIn("FIX:", copy)
                self.assertEqual(copy.count("TODO:"),
                                 original.count("BUG:"))
                self.assertIn("\\brief Chapter %s, your exercise"
                              % chapter.name[:2], copy)
                self.assert_todo_at_each_bug(original, copy)
                self.assertEqual(code_only(copy), code_only(original),
                                 "the copy's code differs, not only comments")
            cmake = tool.learner_cmake(
                (chapter / "CMakeLists.txt").read_text(), chapter,
                ROOT / "exercises" / chapter.name)
            self.assertNotIn("BUG:", cmake)

    def assert_todo_at_each_bug(self, original, copy):
        """Where broken.cu has a BUG: comment alone on its lines, the copy
        has a TODO: right above the same code line; where the comment
        follows code, the copy's same code line ends with a TODO:."""
        old, new = original.split("\n"), copy.split("\n")
        at = 0
        for i, line in enumerate(old):
            if "BUG:" not in line:
                continue
            code = line.split("/*")[0].split("//")[0]
            if code.strip():
                match = [j for j, n in enumerate(new) if n.startswith(code)
                         and tool.TODO_HERE in n]
                self.assertTrue(match, line)
                continue
            end = i
            while "*/" not in old[end] and "//" not in line:
                end += 1
            while line.lstrip().startswith("//") and \
                    old[end + 1].lstrip().startswith("//"):
                end += 1
            after = [j for j in range(at + 1, len(new))
                     if new[j] == old[end + 1]
                     and tool.TODO_BELOW in new[j - 1]]
            self.assertTrue(after, "no TODO: above " + old[end + 1])
            at = after[0]

    def test_comment_forms(self):
        text = ("int a; /* BUG: short */\n"
                "    /* BUG: long,\n       two lines */\n"
                "    x = 1;\n"
                "    // BUG: slashes,\n    // and more\n    y = 2;\n"
                "    z = 3; // BUG: here\n"
                "    // a comment that stays\n")
        self.assertEqual(
            tool.neutral_comments(text, "//"),
            "int a; /* %s */\n    /* %s */\n    x = 1;\n"
            "    // %s\n    y = 2;\n    z = 3; // %s\n"
            "    // a comment that stays\n"
            % (tool.TODO_HERE, tool.TODO_BELOW, tool.TODO_BELOW,
               tool.TODO_HERE))
        cmake = "# BUG: it. FIX: that.\n# more\nset(a 1)\n# other\n"
        self.assertEqual(tool.neutral_comments(cmake, "#"),
                         "# %s\nset(a 1)\n# other\n" % tool.TODO_BELOW)

    def test_a_build_bug_is_part_of_the_exercise(self):
        """Chapter 28's bug is in its CMakeLists.txt: the copy has it, with
        the lines about broken and none about the programs it lacks; the
        solved copy (fixed's lines) builds broken as the chapter builds
        fixed."""
        chapter = tool.find_chapter("28", ROOT)
        text = (chapter / "CMakeLists.txt").read_text()
        inside = ROOT / "exercises" / chapter.name
        mine = tool.learner_cmake(text, chapter, inside)
        self.assertIn(
            "include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/clinic.cmake)",
            mine)
        self.assertIn("project(ch28_no_kernel_image", mine)
        self.assertIn("ch28_broken PROPERTIES CUDA_ARCHITECTURES 75-real)",
                      mine)
        self.assertNotIn("ch28_fixed", mine)
        solved = tool.learner_cmake(text, chapter, inside, "fixed")
        self.assertIn("ch28_broken PROPERTIES CUDA_ARCHITECTURES 75)", solved)
        self.assertNotIn("75-real", solved)
        with tempfile.TemporaryDirectory() as folder:
            elsewhere = tool.learner_cmake(text, chapter, Path(folder))
            self.assertIn("include(%s)" % (ROOT / "cmake" / "clinic.cmake"),
                          elsewhere)

    def test_configure_command(self):
        folder = Path("/x/exercises/28-no-kernel-image")
        command = tool.configure_command(folder, "/cuda/bin/nvcc",
                                         "75-real,90")
        for word in ("-DCLINIC_EXERCISE=ON", "-DCMAKE_BUILD_TYPE=Release",
                     "-DCMAKE_CUDA_COMPILER=/cuda/bin/nvcc",
                     "-DCMAKE_CUDA_ARCHITECTURES=75-real;90", str(folder),
                     str(folder / "build")):
            self.assertIn(word, command)
        self.assertEqual(
            tool.build_command(folder, tool.find_chapter("28", ROOT))[-2:],
            ["--target", "ch28_broken"])


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
        stand-in nvcc fails the configure: not solved, not a setup
        error)."""
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
            self.assertIn("CMake cannot configure your copy", checked.stdout)
            self.assertIn(f"run `{then}` again", checked.stdout)


class Chapters(unittest.TestCase):
    def test_compile_fail_chapters(self):
        self.assertEqual(sorted(c.name[:2] for c in COMPILE_FAIL), ["11", "22"])

    def test_shared_sources(self):
        """clinic_chapter(SOURCES ...) names what every program is built
        with; `start` copies those files, and the digest covers them."""
        self.assertEqual(tool.shared_sources(tool.find_chapter("01", ROOT)),
                         [])
        with tempfile.TemporaryDirectory() as folder:
            cmake = Path(folder) / "CMakeLists.txt"
            cmake.write_text("clinic_chapter(SOURCES a.cu a.cuh FAULTS)\n")
            self.assertEqual(tool.shared_sources(folder), ["a.cu", "a.cuh"])
            before = tool.digest(folder)
            (Path(folder) / "a.cuh").write_text("changed\n")
            self.assertNotEqual(tool.digest(folder), before)
            cmake.write_text("clinic_chapter(\n  VARIANTS b\n  SOURCES c.cu)")
            self.assertEqual(tool.shared_sources(folder), ["c.cu"])

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
            fresh = tool.learner_source((chapter / "broken.cu").read_text(),
                                        chapter)
            self.assertEqual(copy.read_text(), fresh)
            self.assertTrue((copy.parent / "CMakeLists.txt").exists())
            copy.write_text("my work\n")
            self.assertEqual(
                tool.main(["--exercises", folder, "start", "01"]),
                tool.SETUP_ERROR,
            )
            self.assertEqual(copy.read_text(), "my work\n")
            self.assertEqual(tool.exercise_state(chapter, folder), "started")
            (copy.parent / ".solved").write_text(
                tool.digest(copy.parent) + "\n")
            self.assertEqual(tool.exercise_state(chapter, folder), "solved")
            copy.write_text("changed since\n")
            self.assertEqual(tool.exercise_state(chapter, folder), "started")
            self.assertEqual(
                tool.main(["--exercises", folder, "start", "01", "--force"]), 0
            )
            self.assertEqual(
                (copy.parent / "broken.cu.old").read_text(), "changed since\n"
            )
            self.assertEqual(copy.read_text(), fresh)

    def test_check_without_a_copy(self):
        with tempfile.TemporaryDirectory() as folder:
            self.assertEqual(
                tool.main(["--exercises", folder, "check", "01"]),
                tool.SETUP_ERROR,
            )


if __name__ == "__main__":
    unittest.main()
