#!/usr/bin/env python3
"""Unit tests of clinic_lint.py, and its mutants.

    python3 -B tests/lint/test_clinic_lint.py

Each test builds a small repository in a temporary folder (one sample
chapter that passes every rule), breaks one thing, and asserts that the lint
names it: file, line where there is one, and rule. A lint that cannot fail
is a defect, so MUTANTS plants likely lint bugs, one at a time, in a copy of
clinic_lint.py; MutantTest runs the tests against each and passes only if
some test fails (the mutant is "killed").
"""

import contextlib
import io
import os
import shutil
import sys
import tempfile
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import clinic_lint  # noqa: E402

LINT = clinic_lint  # the module under test; MutantTest swaps in a mutant

CH = "chapters/01-sample"


def program(name, brief, body):
    """A lesson program: the opening comment, then body (a list of lines)."""
    return "\n".join(["/**", " * \\file %s" % name, " * \\brief %s" % brief,
                      " */", '#include "check_cuda.h"', "", "int main(void)",
                      "{", "    require_gpu_or_skip();"] + body + ["}", ""])


BROKEN_BODY = ["    int n = 4;",
               "    /* BUG: elements, not bytes. */",
               "    size_t size = n;",
               "",
               '    printf("size %zu\\n", size);',
               "    return 0;"]
FIXED_BODY = ["    int n = 4;",
              "    /* FIX: bytes, from the element type. */",
              "    size_t size = n * sizeof(int);",
              "",
              '    printf("size %zu\\n", size);',
              "    return 0;"]

README = """# 01 · Sample

**Part: allocation.** A sample chapter.

## Symptom

The program prints:

```
squares: 3 of 4 elements wrong
[exit status: 1]
```

## Cause

Elements where bytes are due.

## Hint

Count bytes.

## Fix

```c
size_t size = n * sizeof(int);
```

## See it yourself

```sh
./build-01/broken
```

## PyCUDA

The twins do the same.

## Sources

- The manual.
"""


def twin(name, brief, body):
    """A Python twin: the opening docstring, then body (a list of lines)."""
    return "\n".join(['"""%s -- %s"""' % (name, brief), "import sys", ""]
                     + body + ["", "sys.exit(0)", ""])


TWIN_BROKEN_BODY = ["n = 4",
                    "# BUG: elements, not bytes.",
                    "size = n",
                    "",
                    'print("size %d" % size)']
TWIN_FIXED_BODY = ["n = 4",
                   "# FIX: bytes, from the element type.",
                   "size = n * 4",
                   "",
                   'print("size %d" % size)']

BROKEN_OUT = "squares: 3 of 4 elements wrong\n[exit status: 1]\n"
FIXED_OUT = "squares: 0 of 4 elements wrong\n[exit status: 0]\n"
EXIT_1 = "[exit status: 1]\n"
FIXED_FAILS = "squares: 0 of 4 elements wrong\n[exit status: 2]\n"

FIX_LINK = "[01 · Fix](../chapters/01-sample/README.md#fix)"
SYMPTOMS = """# Symptom index

## Wrong results

| What you see | Likely cause | Where it is answered |
|---|---|---|
| Only the **first** N results are right | bytes | \
[01 · Cause](../chapters/01-sample/README.md#cause) |
| `cudaMemcpy2D` fails with “invalid pitch argument” | a pitch in elements \
| %s |

## Not covered yet

| What you see | Possible cause | Where it is documented |
|---|---|---|
| A graph never changes the data | not launched; chapter 01 shows another \
case | [Guide](https://docs.nvidia.com/) |
""" % FIX_LINK
ROW_PITCH = 8  # the line of the cudaMemcpy2D row in SYMPTOMS
ROW_GRAPH = 14  # the line of the Not covered yet row

FILES = {
    "README.md": "| [01](chapters/01-sample/) | sample |\n",
    CH + "/CMakeLists.txt": "project(ch01)\nclinic_chapter()\n",
    CH + "/doctor.json": '{"cause": "bytes", "confirm": "print it"}\n',
    CH + "/broken.cu": program("broken.cu", "Sample, broken.", BROKEN_BODY),
    CH + "/fixed.cu": program("fixed.cu", "Sample, fixed.", FIXED_BODY),
    CH + "/broken.py": twin("broken.py", "Sample, broken.", TWIN_BROKEN_BODY),
    CH + "/fixed.py": twin("fixed.py", "Sample, fixed.", TWIN_FIXED_BODY),
    CH + "/README.md": README,
    CH + "/expected/broken.out": BROKEN_OUT,
    CH + "/expected/fixed.out": FIXED_OUT,
    CH + "/expected/broken.py.out": BROKEN_OUT,
    CH + "/expected/fixed.py.out": FIXED_OUT,
    "seeds/q000_sample.py": "print('hello')\n",
    "seeds/expected/q000_sample.out": "hello\n[exit status: 0]\n",
    "docs/symptoms.md": SYMPTOMS,
}


STREAMS_CMAKE = "project(ch01)\nclinic_chapter(STREAMS)\n"


class LintCase(unittest.TestCase):
    """A sample repository in a temporary folder, and helpers to change it."""

    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="clinic-lint-")
        self.addCleanup(shutil.rmtree, self.root)
        for path, text in FILES.items():
            self.write(path, text)

    def path(self, path):
        """path in the repository; ~/ stands for the sample chapter."""
        if path.startswith("~/"):
            path = CH + path[1:]
        return os.path.join(self.root, path)

    def write(self, path, text):
        full = self.path(path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)

    def read(self, path):
        with open(self.path(path), encoding="utf-8") as f:
            return f.read()

    def replace(self, path, old, new):
        text = self.read(path)
        self.assertIn(old, text)
        self.write(path, text.replace(old, new, 1))

    def remove(self, path):
        os.remove(self.path(path))

    def problems(self):
        return [str(p) for p in LINT.lint(self.root)[0]]

    def expect(self, where, rule, *words):
        """Some problem starts with 'where: [rule]' and holds every word.
        where is relative to the chapter, or to the root if it starts with /."""
        found = self.problems()
        where = where[1:] if where.startswith("/") else CH + "/" + where
        prefix = "%s: [%s] " % (where, rule)
        for problem in found:
            if problem.startswith(prefix) and all(w in problem for w in words):
                return
        self.fail("no problem '%s...%s' among:\n  %s"
                  % (prefix, words, "\n  ".join(found)))

    def assertClean(self):
        self.assertEqual(self.problems(), [])


class CleanTree(LintCase):
    def test_sample_tree_passes(self):
        self.assertClean()

    def test_main_exit_status_and_format(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(LINT.main(["lint", self.root]), 0)
        self.remove("~/expected/fixed.out")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(LINT.main(["lint", self.root]), 1)
        self.assertIn(CH + "/expected/fixed.out: [record] is not recorded",
                      out.getvalue())


class Folders(LintCase):
    def test_bad_folder_name(self):
        os.makedirs(os.path.join(self.root, "chapters/2-Bad"))
        self.expect("/chapters/2-Bad", "folder", "NN-slug")

    def test_gap_in_numbers(self):
        os.makedirs(os.path.join(self.root, "chapters/03-gap"))
        self.expect("/chapters/03-gap", "folder", "number 03 where 02 was due")


class Files(LintCase):
    def test_missing_file(self):
        self.remove("~/fixed.cu")
        self.expect("fixed.cu", "files", "is missing")

    def test_missing_doctor_data(self):
        self.remove("~/doctor.json")
        self.expect("doctor.json", "files", "is missing",
                    "what the clinic doctor should know")

    def test_doctor_data_not_json(self):
        self.write("~/doctor.json", '{\n  "cause": "bytes",\n}\n')
        self.expect("doctor.json:3", "files", "is not valid JSON")
        self.write("~/doctor.json", '["cause"]\n')
        self.expect("doctor.json", "files", "must hold a JSON object")

    def test_stream_without_streams(self):
        for prog in ("~/broken.cu", "~/fixed.cu"):
            self.replace(prog, "require_gpu_or_skip();",
                         "require_gpu_or_skip();\n    cudaStreamCreate(&s);")
        self.expect("CMakeLists.txt", "streams", "broken.cu", "STREAMS")
        self.write("~/CMakeLists.txt", STREAMS_CMAKE)
        self.assertClean()

    def test_streams_without_a_stream(self):
        self.write("~/CMakeLists.txt", STREAMS_CMAKE)
        self.expect("CMakeLists.txt", "streams", "no program")

    def test_cmake_without_clinic_chapter(self):
        self.write("~/CMakeLists.txt", "project(x)\n")
        self.expect("CMakeLists.txt", "files", "clinic_chapter()")

    def test_chapter_table_row(self):
        self.write("README.md", "no table\n")
        self.expect("/README.md", "files", "chapters/01-sample/")


class Records(LintCase):
    def test_missing_fixed_record(self):
        self.remove("~/expected/fixed.out")
        self.expect("expected/fixed.out", "record", "not recorded yet")

    def test_missing_broken_record(self):
        self.remove("~/expected/broken.out")
        self.expect("expected/broken.out", "record", "not recorded yet")

    def test_missing_twin_record(self):
        self.remove("~/expected/broken.py.out")
        self.expect("expected/broken.py.out", "record", "not recorded yet")

    def test_missing_seed_record(self):
        self.remove("seeds/expected/q000_sample.out")
        self.expect("/seeds/expected/q000_sample.out", "record",
                    "not recorded yet")

    def test_record_without_closing_line(self):
        self.write("~/expected/broken.py.out", "squares: 3 of 4 wrong\n")
        self.expect("expected/broken.py.out:1", "record", "[exit status: N]")

    def test_sanitizer_report_record(self):
        self.write("~/expected/broken.memcheck.out",
                   "========= COMPUTE-SANITIZER\n"
                   "========= ERROR SUMMARY: 1 error\n")
        self.assertClean()

    def test_sanitizer_report_without_summary(self):
        self.write("~/expected/broken.memcheck.out",
                   "========= COMPUTE-SANITIZER\n")
        self.expect("expected/broken.memcheck.out:1", "record", "SUMMARY")

    def test_compilation_failed_closes_a_record(self):
        self.write("~/expected/broken.py.out", "[compilation failed]\n")
        self.assertClean()


class FixedRun(LintCase):
    def test_fixed_run_that_fails(self):
        self.write("~/expected/fixed.py.out", FIXED_FAILS)
        self.expect("expected/fixed.py.out:2", "fixed-run", "[exit status: 2]")

    def test_fixed_cupy_run_that_fails(self):
        self.write("~/fixed_cupy.py", "print('x')\n")
        self.write("~/broken_cupy.py", "print('x')\n")
        self.write("~/expected/broken_cupy.py.out", "x\n[exit status: 1]\n")
        self.write("~/expected/fixed_cupy.py.out", FIXED_FAILS)
        self.expect("expected/fixed_cupy.py.out:2", "fixed-run",
                    "[exit status: 2]")

    def test_fixed_cu_run_that_fails(self):
        self.write("~/expected/fixed.out", "oops\n[stderr]\nbad\n"
                   "[exit status: 1]\n")
        self.expect("expected/fixed.out:4", "fixed-run", "[exit status: 1]")

    def test_fixed_that_does_not_compile(self):
        self.write("~/expected/fixed.out", "x\n[compilation failed]\n")
        self.expect("expected/fixed.out:2", "fixed-run", "compilation failed")

    def test_pattern_file_says_it_errs_on_purpose(self):
        self.write("~/expected/fixed.py.out", FIXED_FAILS)
        self.write("~/expected/fixed.memcheck", "ERROR SUMMARY: 1 error\n")
        self.assertClean()

    def test_fixed_sanitizer_says_it_errs_on_purpose(self):
        self.write("~/expected/fixed.py.out", FIXED_FAILS)
        self.write("~/CMakeLists.txt",
                   "x\nclinic_chapter(FIXED_SANITIZER memcheck \"1 error\")\n")
        self.assertClean()

    def test_other_pattern_file_is_no_excuse(self):
        self.write("~/expected/fixed.py.out", FIXED_FAILS)
        self.write("~/expected/broken.memcheck", "ERROR SUMMARY: 1 error\n")
        self.expect("expected/fixed.py.out:2", "fixed-run")

    def test_empty_fixed_record(self):
        self.write("~/expected/fixed.py.out", "")
        self.expect("expected/fixed.py.out", "fixed-run", "printed nothing")

    def test_fixed_record_with_only_its_closing_line(self):
        self.write("~/expected/fixed.py.out", "[exit status: 0]\n")
        self.expect("expected/fixed.py.out", "fixed-run", "printed nothing")


class Variants(LintCase):
    """A variant program (clinic_chapter(VARIANTS ...)) is a program too."""

    def add_variant(self, text):
        broken = self.read("~/broken.cu")
        self.write("~/second_form.cu",
                   text(broken.replace("\\file broken.cu",
                                       "\\file second_form.cu")))

    def test_variant_needs_its_record(self):
        self.add_variant(lambda t: t)
        self.expect("expected/second_form.out", "record", "not recorded yet")

    def test_variant_needs_its_header_and_bug_marker(self):
        self.add_variant(lambda t: t.replace("BUG:", "Note:").replace(
            "\\file second_form.cu", "\\file other.cu"))
        self.write("~/expected/second_form.out", "x\n[exit status: 1]\n")
        self.expect("second_form.cu:1", "header", "\\file second_form.cu")
        self.expect("second_form.cu", "marker", "BUG:")


class SharedSources(LintCase):
    """Files that clinic_chapter(SOURCES ...) builds into every program
    (chapter 44's second .cu and header) are not programs."""

    def share(self, names, text=None):
        self.write("~/CMakeLists.txt", "project(ch01)\nclinic_chapter("
                   "SOURCES %s)\n" % " ".join(names))
        for name in names:
            self.write("~/" + name, text or "/**\n * \\file %s\n * "
                       "\\brief shared\n */\nint twice(int x);\n" % name)

    def test_shared_files_are_no_variants(self):
        self.share(["kernel.cu", "kernel.cuh"])
        self.assertClean()

    def test_shared_file_missing(self):
        self.share(["kernel.cu"])
        self.remove("~/kernel.cu")
        self.expect("kernel.cu", "files", "SOURCES")

    def test_shared_file_header_width_statements(self):
        self.share(["kernel.cu"], "int a; int b;\n" + "x" * 81 + "\n")
        self.expect("kernel.cu:1", "header", "\\file kernel.cu")
        self.expect("kernel.cu:1", "statements")
        self.expect("kernel.cu:2", "width")


class Programs(LintCase):
    def test_opening_comment(self):
        self.replace("~/broken.cu", "\\file broken.cu", "\\file other.cu")
        self.expect("broken.cu:1", "header", "\\file broken.cu")

    def test_include(self):
        self.replace("~/fixed.cu", '"check_cuda.h"', "<stdio.h>")
        self.expect("fixed.cu", "header", "check_cuda.h")

    def test_require_gpu(self):
        self.replace("~/fixed.cu", "require_gpu_or_skip();", "")
        self.expect("fixed.cu", "header", "require_gpu_or_skip()")

    def test_two_gpu_programs_call_require_gpus_or_skip(self):
        for prog in ("~/broken.cu", "~/fixed.cu"):
            self.replace(prog, "require_gpu_or_skip();",
                         "require_gpus_or_skip(2);")
        self.assertClean()

    def test_bug_marker(self):
        self.replace("~/broken.cu", "BUG:", "Note:")
        self.expect("broken.cu", "marker", "BUG:")

    def test_fix_marker(self):
        self.replace("~/fixed.cu", "FIX:", "Note:")
        self.expect("fixed.cu", "marker", "FIX:")

    def padded(self, total):
        """fixed.cu and broken.cu, padded to total lines by the same lines."""
        for name in ("broken.cu", "fixed.cu"):
            text = self.read("~/" + name)
            pad = total - len(text.splitlines())
            text = text.replace("    return", "    ;\n" * pad + "    return")
            self.write("~/" + name, text)

    def test_130_lines_pass(self):
        self.padded(130)
        self.assertClean()

    def test_131_lines_fail(self):
        self.padded(131)
        self.expect("broken.cu:131", "length", "131 lines, at most 130")

    def test_131_line_twin_fails(self):
        self.write("~/broken.py", "pass\n" * 131)
        self.expect("broken.py:131", "length", "131 lines, at most 130")

    def test_length_waiver_accepts_a_longer_program(self):
        self.padded(131)
        self.replace("~/README.md", "## Sources",
                     "## Why the program is longer\n\nIt measures time."
                     "\n\n## Sources")
        self.assertClean()

    def test_length_waiver_not_needed(self):
        self.replace("~/README.md", "## Sources",
                     "## Why the program is longer\n\nIt measures time."
                     "\n\n## Sources")
        self.expect("broken.cu:16", "length", "drop '## Why the program is")

    def test_80_columns_pass(self):
        line = "    return 0; /*" + "x" * 62 + "*/"
        self.assertEqual(len(line), 80)
        self.replace("~/fixed.cu", "    return 0;", line)
        self.replace("~/broken.cu", "    return 0;", line)
        self.assertClean()

    def test_81_columns_fail(self):
        line = "    return 0; /*" + "x" * 63 + "*/"
        self.replace("~/fixed.cu", "    return 0;", line)
        self.expect("fixed.cu:15", "width", "81 columns, at most 80")

    def test_tab_counts_to_the_next_stop(self):
        line = "\treturn 0; /*" + "x" * 67 + "*/"
        self.replace("~/broken.cu", "    return 0;", line)
        self.expect("broken.cu:15", "width", "89 columns")

    def test_python_twin_width(self):
        self.write("~/fixed.py", "x = 1\nprint('" + "y" * 80 + "')\n")
        self.expect("fixed.py:2", "width", "89 columns")

    def test_many_wide_lines_are_summed_up(self):
        self.write("~/fixed.py", ("#" + "y" * 80 + "\n") * 13)
        self.expect("fixed.py:11", "width", "and 3 more lines", "11, 12, 13")


class FixDiff(LintCase):
    def broken_body(self, lines):
        text = program("broken.cu", "Sample, broken.", lines)
        self.write("~/broken.cu", text)

    def fixed_body(self, lines):
        self.write("~/fixed.cu", program("fixed.cu", "Sample, fixed.", lines))

    def test_brief_is_outside_the_measure(self):
        self.write("~/fixed.cu", program(
            "fixed.cu", "Other words\n *        on two lines.", FIXED_BODY))
        self.assertClean()

    def test_fifteen_changed_lines_pass(self):
        body = list(FIXED_BODY)
        body[2:3] = ["    size_t size = n * 4; /* %d */" % k for k in range(12)]
        self.fixed_body(body)  # 2 removed (BUG comment, line), 1 + 12 added
        self.assertClean()

    def test_sixteen_changed_lines_fail(self):
        body = list(FIXED_BODY)
        body[2:3] = ["    size_t size = n * 4; /* %d */" % k for k in range(13)]
        self.fixed_body(body)
        self.expect("fixed.cu", "diff",
                    "changes 16 lines (2 removed, 14 added)", "at most 15")

    def test_changed_lines_count_both_sides(self):
        # 8 lines changed in place: 8 removed + 8 added = 16, over the limit.
        broken = list(BROKEN_BODY)
        fixed = list(FIXED_BODY)
        broken[2:3] = ["    size_t size = n; /* b%d */" % k for k in range(7)]
        fixed[2:3] = ["    size_t size = 4 * n; /* %d */" % k for k in range(7)]
        self.broken_body(broken)
        self.fixed_body(fixed)
        self.expect("fixed.cu", "diff", "changes 16 lines (8 removed, 8 added)")

    def test_change_outside_the_regions(self):
        body = list(FIXED_BODY)
        body[4] = '    printf("bytes %zu\\n", size);'
        self.fixed_body(body)
        self.expect("fixed.cu:14", "diff", "touches no BUG:/FIX: region")

    def test_region_ends_at_a_blank_line(self):
        body = list(FIXED_BODY)
        body[3:4] = ["", "    size = size;"]  # after the blank line
        self.fixed_body(body)
        self.expect("fixed.cu:14", "diff", "touches no BUG:/FIX: region")

    def test_region_ends_at_the_next_comment(self):
        broken = list(BROKEN_BODY)
        broken[3:3] = ["    /* another thought */"]
        self.broken_body(broken)
        body = list(FIXED_BODY)
        body[3:3] = ["    /* another thought */", "    size = size;"]
        self.fixed_body(body)
        self.expect("fixed.cu:14", "diff", "touches no BUG:/FIX: region")

    def test_trailing_fix_comment_marks_its_line(self):
        body = list(FIXED_BODY)
        body[4] = '    printf("bytes %zu\\n", size); /* FIX: say bytes */'
        self.fixed_body(body)
        self.assertClean()

    def test_removed_line_in_bug_region(self):
        broken = list(BROKEN_BODY)
        broken[2:3] = ["    size_t size = n;", "    size = size;"]
        self.broken_body(broken)
        self.assertClean()

    def test_removed_line_outside_bug_region(self):
        broken = list(BROKEN_BODY)
        broken[0:0] = ["    int spare = 0;", ""]
        self.broken_body(broken)
        self.expect("broken.cu:10", "diff", "(2 removed, 0 added)")

    def test_slash_slash_in_a_string_is_no_comment(self):
        body = list(FIXED_BODY)
        body[4] = '    printf("see // FIX: %zu\\n", size);'
        self.fixed_body(body)
        self.expect("fixed.cu:14", "diff", "touches no BUG:/FIX: region")

    def waiver(self, text):
        self.replace("~/README.md", "## Sources",
                     "## Why the fix is larger\n\n%s## Sources" % text)

    def test_waiver_accepts_a_larger_fix(self):
        body = list(FIXED_BODY)
        body[4] = '    printf("bytes %zu\\n", size);'
        self.fixed_body(body)
        self.waiver("The printout must change too.\n\n")
        self.assertClean()

    def test_empty_waiver_is_no_waiver(self):
        body = list(FIXED_BODY)
        body[4] = '    printf("bytes %zu\\n", size);'
        self.fixed_body(body)
        self.waiver("")
        self.expect("fixed.cu:14", "diff", "touches no BUG:/FIX: region")

    def test_waiver_of_a_small_fix_is_stale(self):
        self.waiver("No reason.\n\n")
        self.expect("README.md", "diff", "drop that section")

    def test_diff_hunks_are_minimal(self):
        hunks = LINT.diff_hunks(["a", "b", "c", "d"], ["a", "x", "c", "d", "e"])
        self.assertEqual(hunks, [([1], [1]), ([], [4])])


class Statements(LintCase):
    """One statement a line in the C programs (issue 25, 1)."""

    def both(self, old, new):
        for name in ("~/broken.cu", "~/fixed.cu"):
            self.replace(name, old, new)

    def test_two_statements_on_a_line(self):
        self.replace("~/broken.cu", "    int n = 4;", "    int n = 4; n++;")
        self.expect("broken.cu:10", "statements", "2 statements on one line")

    def test_four_calls_on_a_line(self):
        self.replace("~/fixed.cu", "    int n = 4;",
                     "    int n = 4;\n    f(); g(); h(); k();")
        self.expect("fixed.cu:11", "statements", "4 statements")

    def test_a_variant_is_checked(self):
        self.write("~/second_form.cu", self.read("~/broken.cu").replace(
            "\\file broken.cu", "\\file second_form.cu").replace(
                "    int n = 4;", "    int n = 4; n--;"))
        self.write("~/expected/second_form.out", "x\n[exit status: 1]\n")
        self.expect("second_form.cu:10", "statements", "2 statements")

    def test_for_header_is_one_statement(self):
        self.both("    int n = 4;", "    int n = 4;\n"
                  "    for (int i = 0; i < n; i++)\n        n--;")
        self.assertClean()

    def test_for_header_over_two_lines(self):
        self.both("    int n = 4;", "    int n = 4;\n"
                  "    for (int i = 0,\n         j = (n + 1); i < j; i++)\n"
                  "        n--;")
        self.assertClean()

    def test_for_body_on_the_header_line_counts(self):
        self.replace("~/broken.cu", "    int n = 4;", "    int n = 4;\n"
                     "    for (int i = 0; i < n; i++) { n--; n--; }")
        self.expect("broken.cu:11", "statements", "2 statements")

    def test_a_name_that_starts_with_for_is_no_for(self):
        self.replace("~/broken.cu", "    int n = 4;",
                     "    int n = 4;\n    format(n); n++;")
        self.expect("broken.cu:11", "statements", "2 statements")

    def test_literals_and_comments_hold_no_statements(self):
        self.both("    return 0;", "    return 0; /* a; b; */")
        self.both("    int n = 4;", '    int n = 4; // c; d;\n'
                  "    char c = ';';\n"
                  '    printf("e; \\" f;\\n");')
        self.assertClean()

    def test_block_comment_over_lines(self):
        self.both("    int n = 4;", "    int n = 4; /* a;\n    b; c; */")
        self.assertClean()


class TwinDiff(LintCase):
    """The twins' fix keeps to the C pair's rules (issue 25, 1)."""

    def broken_body(self, lines, name="broken.py"):
        self.write("~/" + name, twin(name, "Sample, broken.", lines))

    def fixed_body(self, lines, name="fixed.py"):
        self.write("~/" + name, twin(name, "Sample, fixed.", lines))

    def test_docstring_is_outside_the_measure(self):
        self.write("~/fixed.py", twin("fixed.py", "Other words,\n"
                                      "on two lines.", TWIN_FIXED_BODY))
        self.assertClean()

    def test_sixteen_changed_lines_fail(self):
        body = list(TWIN_FIXED_BODY)
        body[2:3] = ["size = n * 4  # %d" % k for k in range(13)]
        self.fixed_body(body)
        self.expect("fixed.py", "diff", "broken.py -> fixed.py changes 16 "
                    "lines (2 removed, 14 added)", "at most 15")

    def test_fifteen_changed_lines_pass(self):
        body = list(TWIN_FIXED_BODY)
        body[2:3] = ["size = n * 4  # %d" % k for k in range(12)]
        self.fixed_body(body)
        self.assertClean()

    def test_change_outside_the_regions(self):
        body = list(TWIN_FIXED_BODY)
        body[4] = 'print("bytes %d" % size)'
        self.fixed_body(body)
        self.expect("fixed.py:8", "diff", "touches no BUG:/FIX: region",
                    "broken.py and fixed.py")

    def test_trailing_fix_comment_marks_its_line(self):
        body = list(TWIN_FIXED_BODY)
        body[4] = 'print("bytes %d" % size)  # FIX: say bytes'
        self.fixed_body(body)
        self.assertClean()

    def test_hash_in_a_string_is_no_comment(self):
        body = list(TWIN_FIXED_BODY)
        body[4] = 'print("# FIX: %d" % size)'
        self.fixed_body(body)
        self.expect("fixed.py:8", "diff", "touches no BUG:/FIX: region")

    def test_a_comment_over_two_lines_is_one_region(self):
        # The comment's second line is the same in both twins, so the
        # changed line after it is a hunk of its own.
        broken = list(TWIN_BROKEN_BODY)
        broken[1:2] = ["# BUG: elements,", "# not bytes."]
        fixed = list(TWIN_FIXED_BODY)
        fixed[1:2] = ["# FIX: bytes,", "# not bytes."]
        self.broken_body(broken)
        self.fixed_body(fixed)
        self.assertClean()

    def test_region_ends_at_the_next_comment(self):
        broken = list(TWIN_BROKEN_BODY)
        broken[3:3] = ["# another thought"]
        self.broken_body(broken)
        fixed = list(TWIN_FIXED_BODY)
        fixed[3:3] = ["# another thought", "size = size"]
        self.fixed_body(fixed)
        self.expect("fixed.py:8", "diff", "touches no BUG:/FIX: region")

    def test_kernel_comment_in_a_string_marks_a_region(self):
        kernel = ['KERNEL = """', "__global__ void f(int *p)", "{",
                  "    %s", "    %s", "}", '"""']
        broken = list(TWIN_BROKEN_BODY)
        broken[0:0] = [k.replace("%s", v) for k, v in zip(kernel, [
            "", "", "", "// BUG: one int short.", "p[3] = 1;", "", ""])]
        fixed = list(TWIN_FIXED_BODY)
        fixed[0:0] = [k.replace("%s", v) for k, v in zip(kernel, [
            "", "", "", "// FIX: every int.", "p[4] = 1;", "", ""])]
        self.broken_body(broken)
        self.fixed_body(fixed)
        self.assertClean()

    def test_cupy_twins_are_measured(self):
        self.write("~/broken_cupy.py",
                   twin("broken_cupy.py", "Sample.", TWIN_BROKEN_BODY))
        body = list(TWIN_FIXED_BODY)
        body[4] = 'print("bytes %d" % size)'
        self.fixed_body(body, "fixed_cupy.py")
        self.write("~/expected/broken_cupy.py.out", BROKEN_OUT)
        self.write("~/expected/fixed_cupy.py.out", FIXED_OUT)
        self.expect("fixed_cupy.py:8", "diff", "touches no BUG:/FIX: region",
                    "broken_cupy.py and fixed_cupy.py")

    def test_waiver_covers_the_twins(self):
        body = list(TWIN_FIXED_BODY)
        body[4] = 'print("bytes %d" % size)'
        self.fixed_body(body)
        self.replace("~/README.md", "## Sources",
                     "## Why the fix is larger\n\nIt prints bytes.\n\n"
                     "## Sources")
        self.assertClean()

    def test_waiver_stale_only_when_every_pair_keeps_to_it(self):
        self.replace("~/README.md", "## Sources",
                     "## Why the fix is larger\n\nNo reason.\n\n"
                     "## Sources")
        self.expect("README.md", "diff", "drop that section", "fixed.cu 4",
                    "fixed.py 4")


class Readme(LintCase):
    def test_title(self):
        self.replace("~/README.md", "# 01 · Sample", "# Sample")
        self.expect("README.md:1", "readme", "'# 01 · ...'")

    def test_part(self):
        self.replace("~/README.md", "Part: allocation.", "Part: cooking.")
        self.expect("README.md", "readme", "**Part: <part>.**")

    def test_missing_hint(self):
        self.replace("~/README.md", "## Hint\n", "## Hints\n")
        self.expect("README.md", "readme", "no '## Hint' section")

    def test_sections_in_order(self):
        text = self.read("~/README.md")
        pycuda = "## PyCUDA\n\nThe twins do the same.\n\n"
        text = text.replace(pycuda, "").replace("## Symptom\n",
                                                pycuda + "## Symptom\n")
        self.write("~/README.md", text)
        self.expect("README.md:5", "readme",
                    "'## PyCUDA' must come after '## See it yourself'")

    def test_hint_before_fix(self):
        """The Hint comes before the Fix, with a message that says why."""
        text = self.read("~/README.md")
        hint = "## Hint\n\nCount bytes.\n\n"
        text = text.replace(hint, "").replace("## See it yourself\n",
                                              hint + "## See it yourself\n")
        self.write("~/README.md", text)
        self.expect("README.md:18", "readme",
                    "'## Fix' must come after '## Hint'",
                    "move '## Hint' above '## Fix'", "before the answer")

    def test_other_sections_may_sit_between(self):
        self.replace("~/README.md", "## Hint",
                     "## More about it\n\nYes.\n\n## Hint")
        self.assertClean()

    def test_no_python_code_block(self):
        self.replace("~/README.md", "The twins do the same.",
                     "```python\nimport x\n```")
        self.expect("README.md:36", "readme", "PyCUDA code belongs")


class Transcripts(LintCase):
    SYMPTOM = "```\nsquares: 3 of 4 elements wrong\n[exit status: 1]\n```"

    def quote(self, block):
        self.replace("~/README.md", self.SYMPTOM, block)

    def test_wrong_line(self):
        self.quote("```\nsquares: 2 of 4 elements wrong\n[exit status: 1]\n```")
        self.expect("README.md:9", "transcript", "squares: 2 of 4",
                    "none of expected")

    def test_closest_record_is_named(self):
        self.write("~/expected/broken.out", "a\nb\nc\n[exit status: 1]\n")
        self.quote("```\na\nb\nx\n```\n\n```\na\nb\nc\n[exit status: 1]\n```")
        self.expect("README.md:9", "transcript", "expected/broken.out",
                    "first 2 line(s)", "block line 3, 'x'")

    def test_excerpt(self):
        self.write("~/expected/broken.out", "a\nb\nc\n[exit status: 1]\n")
        self.quote("```\nb\nc\n```")
        self.assertClean()

    def test_excerpt_is_contiguous(self):
        self.write("~/expected/broken.out", "a\nb\nc\n[exit status: 1]\n")
        self.quote("```\na\nc\n```")
        self.expect("README.md:9", "transcript", "block line 2, 'c'")

    def test_elided_lines(self):
        self.write("~/expected/broken.out", "a\nb\nc\nd\n[exit status: 1]\n")
        self.quote("```\na\n    ...\nd\n```")
        self.assertClean()

    def test_elided_text(self):
        self.write("~/expected/broken.out", "at 0x7f3a in f\n" + EXIT_1)
        self.quote("```\nat 0x... in f\n```")
        self.assertClean()

    def test_quoted_line_is_whole(self):
        self.write("~/expected/broken.out", "at 0x7f3a in f\n" + EXIT_1)
        self.quote("```\nat 0x7f3a\n```")
        self.expect("README.md:9", "transcript", "at 0x7f3a")

    def test_sanitizer_prefix_may_be_left_out(self):
        self.write("~/expected/broken.out",
                   "========= Invalid write\n=========     at f\n" + EXIT_1)
        self.quote("```\nInvalid write\n    at f\n```")
        self.assertClean()

    def test_whole_record_from_its_first_line(self):
        self.write("~/expected/broken.out", "a\nb\n[exit status: 1]\n")
        self.quote("```\nb\n[exit status: 1]\n```")
        self.expect("README.md:9", "transcript", "quotes a whole record")

    def test_text_blocks_are_output(self):
        self.replace("~/README.md", "## Cause\n",
                     "## Cause\n\n```text\nnot printed\n```\n")
        self.expect("README.md:16", "transcript", "'not printed'")

    def test_code_blocks_are_not_output(self):
        self.replace("~/README.md", "## Cause\n",
                     "## Cause\n\n```sh\nnot printed\n```\n")
        self.assertClean()

    def test_indented_block(self):
        self.replace("~/README.md", "## Cause\n",
                     "## Cause\n\n1. It prints:\n\n   ```\n"
                     "   squares: 3 of 4 elements wrong\n   ```\n")
        self.assertClean()

    def test_must_quote_a_transcript(self):
        self.quote("(no output shown)")
        self.expect("README.md", "transcript", "quotes neither")

    def test_a_twin_transcript_is_not_enough(self):
        self.write("~/expected/broken.py.out", "python says\n" + EXIT_1)
        self.quote("```\npython says\n[exit status: 1]\n```")
        self.expect("README.md", "transcript", "quotes neither")

    def test_a_fixed_transcript_is_enough(self):
        self.quote("```\nsquares: 0 of 4 elements wrong\n[exit status: 0]\n```")
        self.assertClean()


class SymptomIndex(LintCase):
    """docs/symptoms.md: one row per symptom, and no stale route to "Not
    covered yet"."""

    INDEX = "/docs/symptoms.md"

    def add_row(self, row, before="\n## Not covered yet"):
        """Adds a row to the table above "before", or at the end."""
        if before is None:
            self.write(self.INDEX[1:], self.read(self.INDEX[1:]) + row + "\n")
        else:
            self.replace(self.INDEX[1:], before, row + "\n" + before)

    def line(self, number):
        return "%s:%d" % (self.INDEX, number)

    def test_duplicate_row(self):
        # The same symptom, written with other case, markup and a full stop.
        self.add_row("| only the first n results are `right`. | other | %s |"
                     % FIX_LINK)
        self.expect(self.line(ROW_PITCH + 1), "symptoms", "also on line 7",
                    "merge")

    def test_duplicate_in_another_section(self):
        self.add_row("| A graph never changes the data | capture | %s |"
                     % FIX_LINK, before=None)
        self.expect(self.line(ROW_GRAPH + 1), "symptoms",
                    "also on line %d" % ROW_GRAPH)

    def test_stale_link_to_not_covered(self):
        # The pitch row of issue 23: routed to a chapter and to "Not
        # covered yet" at once.
        self.replace(self.INDEX[1:], "#fix) |\n\n## Not",
                     "#fix), [Not covered yet](#not-covered-yet) |\n\n## Not")
        self.expect(self.line(ROW_PITCH), "symptoms", "chapter 01", "stale")

    def test_chapter_named_in_words_makes_the_link_stale(self):
        self.add_row("| Zeros from a dtype | chapter 01 shows it | "
                     "[Not covered yet](#not-covered-yet) |")
        self.expect(self.line(ROW_PITCH + 1), "symptoms", "chapter 01",
                    "stale")

    def test_link_to_not_covered_without_a_chapter(self):
        self.add_row("| Zeros from a dtype | a mismatch | "
                     "[Not covered yet](#not-covered-yet) |")
        self.expect(self.line(ROW_PITCH + 1), "symptoms", "its own row")

    def test_not_covered_row_that_links_a_chapter(self):
        self.replace(self.INDEX[1:], "[Guide](https://docs.nvidia.com/)",
                     FIX_LINK)
        self.expect(self.line(ROW_GRAPH), "symptoms", "not covered",
                    "chapter 01")

    def test_pipe_in_code_is_not_a_cell_border(self):
        # Two symptoms that differ only after a | inside code.
        self.add_row("| `a | b` fails | x | %s |" % FIX_LINK)
        self.add_row("| `a | c` fails | x | %s |" % FIX_LINK)
        self.assertClean()

    def test_no_index_no_problem(self):
        self.remove(self.INDEX[1:])
        self.assertClean()


class RealTree(unittest.TestCase):
    """The lint reads the real repository without an error (what it finds
    there is the structure.lint test's business)."""

    def test_lints_the_repository(self):
        problems, chapters = clinic_lint.lint(os.path.join(HERE, "..", ".."))
        self.assertGreater(len(chapters), 0)


FUNCTIONAL = (CleanTree, Folders, Files, Records, FixedRun, Programs,
              Variants, SharedSources, Statements, FixDiff, TwinDiff,
              Readme, Transcripts, SymptomIndex)

# (id, what it plants, text of clinic_lint.py, its mutated form)
MUTANTS = [
    ("no_record_presence", "lint missing the record-presence check",
     "problems += check_record_presence(chapter, rel, programs)",
     "problems += []"),
    ("twins_not_recorded", "no record asked of the PyCUDA twins",
     "    programs += twins\n", ""),
    ("variants_not_recorded", "no record asked of a variant program",
     'programs = ["broken.cu", "fixed.cu"] + [v + ".cu" for v in variants]',
     'programs = ["broken.cu", "fixed.cu"]'),
    ("variants_unchecked", "a variant's header and marker not checked",
     '(v, "BUG") for v in variants]', '(v, "BUG") for v in []]'),
    ("no_doctor_data", "a chapter without doctor.json accepted",
     "problems += check_doctor_data(chapter, rel)", "problems += []"),
    ("doctor_data_any_json", "a doctor.json that is not an object accepted",
     "    if not isinstance(data, dict):", "    if False:"),
    ("no_seed_records", "seed records not checked",
     "problems += lint_seeds(root)", "problems += []"),
    ("any_closing_line", "a record without its closing line accepted",
     "if closing_line(text) is None:", "if False:"),
    ("fixed_any_status", "a fixed run's exit status not checked",
     'status != "exit status: 0"', 'status == "compilation failed"'),
    ("fixed_always_on_purpose", "every chapter taken to err on purpose",
     'return os.path.exists(cmake) and "FIXED_SANITIZER" in',
     "return True or"),
    ("fixed_pattern_ignored", "expected/fixed.<tool> not taken as waiver",
     '"fixed." + tool)', '"fixed." + tool + ".none")'),
    ("fixed_empty_ok", "a fixed record of only its closing line accepted",
     "if not [line for line in lines if not CLOSING_LINE.fullmatch(line)]:",
     "if not lines:"),
    ("header_any", "any /** opening accepted",
     'code.startswith("/**\\n * \\\\file %s\\n * \\\\brief " % name)',
     'code.startswith("/**")'),
    ("no_bug_marker", "BUG: not required",
     'if tag + ":" not in read_text(path):', "if False:"),
    ("length_off_by_one", "131 lines accepted",
     "if count > MAX_LINES and not waived:  # the limit",
     "if count > MAX_LINES + 1 and not waived:  # the limit"),
    ("width_off_by_one", "81 columns accepted", "if columns > MAX_COLUMNS:",
     "if columns > MAX_COLUMNS + 1:"),
    ("width_no_tabs", "a tab counted as one column",
     "len(line.expandtabs(8))", "len(line)"),
    ("twins_width_skipped", "the .py twins' width not checked",
     'check_width(os.path.join(chapter, twin), rel + "/" + twin)', "[]"),
    ("diff_with_header", "the opening comment counted in the diff",
     "hunks = diff_hunks(broken[b0:], fixed[f0:])",
     "hunks = diff_hunks(broken, fixed)"),
    ("diff_counts_one_side", "a changed line counted once",
     "sum(len(removed) + len(added) for removed, added in hunks)",
     "sum(max(len(removed), len(added)) for removed, added in hunks)"),
    ("diff_limit_off", "16 changed lines accepted",
     "if size > MAX_FIX_LINES:", "if size > MAX_FIX_LINES + 1:"),
    ("regions_ignored", "hunks outside the BUG:/FIX: regions accepted",
     "if any(b0 + i in bug for i in removed) or \\",
     "if True or \\"),
    ("region_to_end", "a region running to the end of the file",
     "if not stripped or stripped.startswith(starts):", "if False:"),
    ("strings_hold_comments", "// inside a string taken for a comment",
     'elif c in "\\"\'":', "elif False:"),
    ("statements_unchecked", "statements per line not checked",
     "problems += check_statements(path, where)", "problems += []"),
    ("statements_off_by_one", "two statements on a line accepted",
     "        if count > 1:", "        if count > 2:"),
    ("for_header_counted", "a for header's ; counted as statements",
     'elif c == ";" and not for_depth:', 'elif c == ";":'),
    ("for_header_one_line", "a for header ends at its line",
     "        quote = None  # a literal ends with its line",
     "        quote = None\n        for_depth = 0"),
    ("statement_literals", "a ; in a string literal counted",
     """elif c == '"' or c == "'":  # a literal's ; is no statement's""",
     "elif False:"),
    ("statement_comments", "a ; in a // comment counted",
     'elif line[i:i + 2] == "//":  # nor is a comment\'s', "elif False:"),
    ("twins_diff_skipped", "the PyCUDA twins' fix not measured",
     ' ("broken.py", "fixed.py"),', ""),
    ("shared_as_variants", "files shared by every program (SOURCES) taken "
     "for variant programs", " and\n                      f not in shared)",
     ")"),
    ("cupy_diff_skipped", "the CuPy twins' fix not measured",
     '\n             ("broken_cupy.py", "fixed_cupy.py"),', ""),
    ("twin_docstring_counted", "a twin's opening docstring in the diff",
     "opening = opening_docstring_end if python else opening_comment_end",
     "opening = opening_comment_end"),
    ("twin_regions_as_c", "a twin's # comments not taken for comments",
     "spans = python_comment_spans(lines) if python else comment_spans(lines)",
     "spans = comment_spans(lines)"),
    ("twin_hash_lines_apart", "a # comment over two lines taken as two",
     "        if merged and first == merged[-1][1] + 1 and \\",
     "        if False and \\"),
    ("twin_kernel_comments_ignored", "the kernel source's comments ignored",
     "elif token.type == tokenize.STRING and last > first:", "elif False:"),
    ("twin_region_past_comment", "a twin's region runs past a # comment",
     'starts = ("#", "/*", "//") if python else ("/*", "//")',
     'starts = ("/*", "//")'),
    ("empty_waiver", "an empty '## Why the fix is larger' accepted",
     "return bool(match and match.group(1).strip())", "return bool(match)"),
    ("waiver_ignored", "the waiver not accepted",
     "    if waived:", "    if False:"),
    ("no_hint", "the Hint section not required",
     '"Hint", "Fix", "See it yourself"', '"Fix", "See it yourself"'),
    ("hint_after_fix", "the Hint may follow the Fix",
     '"Cause", "Hint", "Fix"', '"Cause", "Fix", "Hint"'),
    ("order_ignored", "sections in any order",
     "if previous and headings[section] < headings[previous]:", "if False:"),
    ("any_part", "any part accepted",
     "if not match or match.group(1).lower() not in PARTS:",
     "if not match:"),
    ("text_blocks_skipped", "```text blocks not checked",
     'OUTPUT_INFO = ("", "text")', 'OUTPUT_INFO = ("",)'),
    ("line_prefix_matches", "a quoted line matching a record line's start",
     "return any(re.fullmatch(pattern, candidate)",
     "return any(re.match(pattern, candidate)"),
    ("no_inline_elision", "'...' within a line taken literally",
     'parts = quoted.rstrip().split("...")', "parts = [quoted.rstrip()]"),
    ("whole_not_from_start", "a block ending in [exit status] found anywhere",
     "starts = [0] if whole else range(len(record) + 1)",
     "starts = range(len(record) + 1)"),
    ("any_transcript_quoted", "a twin's transcript taken for the C ones'",
     'if not quoted & {"broken.out", "fixed.out"}:', "if not quoted:"),
    ("no_table_row", "the chapter table not checked",
     'if "(chapters/%s/)" % name not in top_readme:', "if False:"),
    ("gaps_accepted", "chapter numbers with gaps accepted",
     "if number != expected_number:", "if False:"),
    ("no_symptom_index", "docs/symptoms.md not linted",
     "problems += lint_symptom_index(root)", "problems += []"),
    ("symptom_dupes_accepted", "two rows with one symptom accepted",
     "            if key in seen:", "            if False:"),
    ("symptom_key_as_written", "symptoms compared as written",
     "key = symptom_key(cells[0])", "key = cells[0]"),
    ("symptom_heads_compared", "a table's heading row taken for a symptom",
     "continue  # a separator row, or the heading row above one",
     "pass  # a separator row, or the heading row above one"),
    ("symptom_code_pipes_split", "a | inside code taken for a cell border",
     'if c == "|" and not code:', 'if c == "|":'),
    ("not_covered_link_accepted", "a row elsewhere may link Not covered yet",
     'elif "](%s)" % anchor in rest:', "elif False:"),
    ("chapter_names_ignored", "a chapter named in words is no route",
     "CHAPTER_NAMED.finditer(rest)", 'CHAPTER_NAMED.finditer("")'),
    ("not_covered_chapters_accepted", "Not covered yet may link a chapter",
     "if section == NOT_COVERED:", "if section == NOT_COVERED and False:"),
    ("exit_zero", "main exits 0 with problems",
     "        return 1\n", "        return 0\n"),
]


def mutant_module(original, mutated):
    with open(clinic_lint.__file__, encoding="utf-8") as f:
        source = f.read().replace(original, mutated)
    module = types.ModuleType("clinic_lint_mutant")
    module.__file__ = clinic_lint.__file__
    exec(compile(source, "clinic_lint_mutant", "exec"), module.__dict__)
    return module


def run_functional_tests():
    """The functional tests against LINT, quietly; the unittest result."""
    suite = unittest.TestSuite()
    for case in FUNCTIONAL:
        suite.addTests(unittest.defaultTestLoader.loadTestsFromTestCase(case))
    runner = unittest.TextTestRunner(stream=io.StringIO(), verbosity=0)
    return runner.run(suite)


class MutantTest(unittest.TestCase):
    def test_mutants_are_real(self):
        """Each mutant's text occurs exactly once, so none goes stale."""
        with open(clinic_lint.__file__, encoding="utf-8") as f:
            source = f.read()
        for ident, _, original, _ in MUTANTS:
            with self.subTest(mutant=ident):
                self.assertEqual(source.count(original), 1, original)

    def test_every_mutant_is_killed(self):
        global LINT
        for ident, what, original, mutated in MUTANTS:
            with self.subTest(mutant=ident, plants=what):
                LINT = mutant_module(original, mutated)
                try:
                    result = run_functional_tests()
                finally:
                    LINT = clinic_lint
                self.assertFalse(result.wasSuccessful(),
                                 "mutant %s (%s) survived" % (ident, what))
                killers = [str(test).split()[0]
                           for test, _ in result.failures + result.errors]
                print("mutant %s killed by %s"
                      % (ident, ", ".join(killers[:3])))


if __name__ == "__main__":
    # --mutants: only the planted lint bugs (the harness preset runs them);
    # --functional: every test but those. Neither: all of them.
    if "--mutants" in sys.argv[1:]:
        sys.argv.remove("--mutants")
        sys.argv.append("MutantTest")
    elif "--functional" in sys.argv[1:]:
        sys.argv.remove("--functional")
        sys.argv += [name for name, c in list(globals().items())
                     if isinstance(c, type) and c is not MutantTest
                     and issubclass(c, unittest.TestCase)]
    unittest.main()
