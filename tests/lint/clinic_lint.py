#!/usr/bin/env python3
"""clinic_lint.py -- the structure lint: what every chapter must have.

    python3 tests/lint/clinic_lint.py [ROOT]

ROOT is the repository (default: two folders above this file). Prints one
line per problem, `path:line: [rule] what to change`, the way a compiler
does, so that an editor can jump to it and a chapter's author sees the whole
to-do list at once. Exits 1 when it found a problem, 0 otherwise.

The rules, by the name printed in brackets (CONTRIBUTING.md says the same):

  folder      chapters/NN-slug, numbered 01, 02, ... without a gap.
  files       broken.cu, fixed.cu, README.md, CMakeLists.txt and doctor.json
              exist; the CMakeLists.txt calls clinic_chapter(); doctor.json
              holds a JSON object; the README.md at the top links the chapter
              from its chapter table.
  record      expected/<prog>.out exists for broken, fixed and every .py twin
              (and seeds/expected/<seed>.out for every seeds/q*.py); every
              expected/*.out ends with its closing line, `[exit status: N]`
              or `[compilation failed]`.
  fixed-run   expected/fixed.out and every fixed twin's record show a
              run that printed something and exited 0, unless the fixed
              program errs on purpose: expected/ holds a fixed.<tool> pattern
              file (fixed.memcheck, ...) or the CMakeLists.txt says
              FIXED_SANITIZER.
  header      each .cu opens with `/**`, ` * \\file <name>.cu`, ` * \\brief `,
              includes check_cuda.h and calls require_gpu_or_skip() (or
              require_gpus_or_skip(N) in a two-GPU chapter). A file that
              clinic_chapter(SOURCES ...) shares between the programs (a
              second .cu, a header) is no program: it exists, opens the same
              way, and keeps to the width and statements rules.
  marker      broken.cu has a BUG: comment, fixed.cu a FIX: comment.
  length      broken.cu and fixed.cu have at most 130 lines.
  width       broken.cu, fixed.cu and the chapter's .py files have no line
              wider than 80 columns (characters, tabs to 8).
  statements  broken.cu, fixed.cu and the variants hold one statement a
              line: no two `;` on a line, outside string literals, comments
              and `for (...)` headers (see statement_counts()).
  diff        the fix is the smallest change, from broken.cu to fixed.cu and
              from each twin to its fixed twin (see check_fix_diff()).
  readme      the title `# NN · ...`; a `**Part: <part>.**` with a known
              part; the sections Symptom, Cause, Hint, Fix, See it yourself,
              PyCUDA, Sources, in that order (others may sit between): the
              Hint before the Fix, so a learner meets it first; no PyCUDA
              code block (```py...).
  transcript  every output block in the README is in a record, and the
              README quotes broken.out or fixed.out (see check_transcripts()).
  streams     a chapter whose programs create a stream (cudaStreamCreate,
              Stream(), cuda.stream(), ...) says clinic_chapter(STREAMS), and
              one that says STREAMS has such a program (check_streams()).
  symptoms    docs/symptoms.md: no two rows with the same symptom (first
              cell); no row routes to "Not covered yet" from outside that
              section, and no row of that section links a chapter (see
              check_symptom_index()).
"""

import io
import json
import os
import re
import sys
import tokenize

PARTS = ("allocation", "pointers", "synchronization", "launch configuration",
         "structs", "streams and pinned memory",
         "staging of kernel-allocated memory", "silent device bugs",
         "the python boundary", "several gpus and managed memory")
SECTIONS = ("Symptom", "Cause", "Hint", "Fix", "See it yourself", "PyCUDA",
            "Sources")
SANITIZER_TOOLS = ("memcheck", "racecheck", "initcheck", "synccheck")
WAIVER = "Why the fix is larger"
HINT_FIRST = (": move '## Hint' above '## Fix', so that a learner doing the "
              "exercise reads the hint before the answer")
LENGTH_WAIVER = "Why the program is longer"
MAX_LINES = 130
MAX_COLUMNS = 80
MAX_FIX_LINES = 15
WIDTH_REPORTS_PER_FILE = 10

CLOSING_LINE = re.compile(r"\[(exit status: [^]]+|compilation failed)\]")
CHAPTER_NAME = re.compile(r"^([0-9][0-9])-[a-z0-9]+(-[a-z0-9]+)*$")
OUTPUT_INFO = ("", "text")  # fence info strings that mark program output
SANITIZER_PREFIX = re.compile(r"^========= ?")


class Problem:
    """One thing to change: where (repository-relative path, 1-based line or
    0 for the whole file), which rule, and what to do."""

    def __init__(self, path, line, rule, text):
        self.path, self.line, self.rule, self.text = path, line, rule, text

    def __str__(self):
        where = "%s:%d" % (self.path, self.line) if self.line else self.path
        return "%s: [%s] %s" % (where, self.rule, self.text)

    def __repr__(self):
        return "Problem(%r)" % str(self)


def read_text(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


# ---------------------------------------------------------------- records

def closing_line(text):
    """The record's closing line without brackets ('exit status: 0',
    'compilation failed'), or None when the text does not end with one."""
    match = re.search(r"\[(exit status: [^]]+|compilation failed)\]\n\Z", text)
    return match.group(1) if match else None


def check_record_presence(chapter, rel, names):
    """Every program has its recorded output (names: the program files)."""
    problems = []
    label = "ch" + os.path.basename(chapter)[:2]
    for name in names:
        out = name[:-3] + ".out" if name.endswith(".cu") else name + ".out"
        if not os.path.exists(os.path.join(chapter, "expected", out)):
            problems.append(Problem(
                rel + "/expected/" + out, 0, "record",
                "is not recorded yet (on a GPU host: ctest --preset "
                "update-expected -L '^%s$')" % label))
    return problems


def check_record_format(path, rel):
    """A program's record ends with the line the drivers append to every
    transcript; a sanitizer report's record (<prog>.<tool>.out) with the
    tool's ERROR or RACECHECK SUMMARY line."""
    text = read_text(path)
    name = os.path.basename(path)
    if any(name.endswith("." + tool + ".out") for tool in SANITIZER_TOOLS):
        if not re.search(r"^========= (ERROR|RACECHECK) SUMMARY: ", text,
                         re.M):
            return [Problem(rel, text.count("\n") or 1, "record",
                            "not a recorded sanitizer report: no SUMMARY "
                            "line (record it again, never by hand)")]
        return []
    if closing_line(text) is None:
        return [Problem(rel, text.count("\n") or 1, "record",
                        "not a recorded transcript: the last line must be "
                        "[exit status: N] (record it again, never by hand)")]
    return []


def faults_on_purpose(chapter):
    """The fixed program errs on purpose: its sanitizer expectation is a
    pattern file expected/fixed.<tool>, or (older form) FIXED_SANITIZER."""
    for tool in SANITIZER_TOOLS:
        if os.path.exists(os.path.join(chapter, "expected", "fixed." + tool)):
            return True
    cmake = os.path.join(chapter, "CMakeLists.txt")
    return os.path.exists(cmake) and "FIXED_SANITIZER" in read_text(cmake)


def check_fixed_run(chapter, rel):
    """The fixed programs' records show a clean run (issue 13, 1.6)."""
    problems = []
    on_purpose = faults_on_purpose(chapter)
    for out in ("fixed.out", "fixed.py.out", "fixed_cupy.py.out",
                "fixed_torch.py.out", "fixed_numba.py.out"):
        path = os.path.join(chapter, "expected", out)
        if not os.path.exists(path):
            continue
        text = read_text(path)
        lines = text.splitlines()
        where = rel + "/expected/" + out
        status = closing_line(text)
        if not [line for line in lines if not CLOSING_LINE.fullmatch(line)]:
            problems.append(Problem(where, 0, "fixed-run",
                                    "the recorded fixed run printed nothing: "
                                    "a fixed program prints its verdict"))
        if status is not None and status != "exit status: 0" and not on_purpose:
            problems.append(Problem(
                where, len(lines), "fixed-run",
                "the fixed program's recorded run ended with [%s]: fix the "
                "program so that it exits 0 and record it again, or, if it "
                "errs on purpose, say so with expected/fixed.<tool>" % status))
    return problems


# ---------------------------------------------------------------- programs

def chapter_call(chapter):
    """The words of the clinic_chapter(...) call in the chapter's
    CMakeLists.txt ([] without one)."""
    cmake = os.path.join(chapter, "CMakeLists.txt")
    call = re.search(r"\bclinic_chapter\(([^)]*)\)",
                     read_text(cmake) if os.path.exists(cmake) else "")
    return call.group(1).split() if call else []


def shared_sources(chapter):
    """The files that clinic_chapter(SOURCES ...) in the chapter's
    CMakeLists.txt builds into every program: not programs themselves."""
    words = chapter_call(chapter)
    names = []
    for word in words[words.index("SOURCES") + 1:] if "SOURCES" in words \
            else []:
        if word.isupper():  # the next option
            break
        names.append(word)
    return names


def check_shared_source(chapter, rel, name):
    """A shared file exists, opens with its \\file comment and keeps to the
    width and statements rules."""
    path = os.path.join(chapter, name)
    where = rel + "/" + name
    if not os.path.exists(path):
        return [Problem(where, 0, "files", "is missing (clinic_chapter("
                        "SOURCES ...) in CMakeLists.txt names it)")]
    problems = []
    if not read_text(path).startswith("/**\n * \\file %s\n * \\brief "
                                      % name):
        problems.append(Problem(where, 1, "header", "must open with a /** "
                                "\\file %s + \\brief comment" % name))
    return problems + check_width(path, where) + check_statements(path,
                                                                  where)


def check_program_header(path, rel, name):
    problems = []
    code = read_text(path)
    if not code.startswith("/**\n * \\file %s\n * \\brief " % name):
        problems.append(Problem(rel, 1, "header",
                                "must open with a /** \\file %s + \\brief "
                                "comment" % name))
    if '#include "check_cuda.h"' not in code:
        problems.append(Problem(rel, 0, "header", "does not include the "
                                "common header check_cuda.h"))
    if not re.search(r"require_gpu_or_skip\(\);|require_gpus_or_skip\(\d+\);",
                     code):
        problems.append(Problem(rel, 0, "header",
                                "never calls require_gpu_or_skip()"))
    return problems


def check_marker(path, rel, tag):
    if tag + ":" not in read_text(path):
        return [Problem(rel, 0, "marker", "has no %s: comment (mark the %s "
                        "and say why)" % (tag, "the bug" if tag == "BUG"
                                          else "the fix"))]
    return []


def check_length(path, rel, waived=False):
    """At most MAX_LINES lines, unless the README says, under '## Why the
    program is longer', why not (waived); a waiver that is not needed is
    itself a problem."""
    count = len(read_text(path).splitlines())
    if count > MAX_LINES and not waived:  # the limit
        return [Problem(rel, count, "length",
                        "%d lines, at most %d: shorten the program by %d lines,"
                        " or explain under '## %s' in README.md"
                        % (count, MAX_LINES, count - MAX_LINES,
                           LENGTH_WAIVER))]
    if count <= MAX_LINES and waived and rel.endswith("broken.cu"):
        return [Problem(rel, count, "length",
                        "%d lines, within %d: drop '## %s' from README.md"
                        % (count, MAX_LINES, LENGTH_WAIVER))]
    return []


def check_width(path, rel):
    problems = []
    wide = []
    for number, line in enumerate(read_text(path).splitlines(), 1):
        columns = len(line.expandtabs(8))
        if columns > MAX_COLUMNS:
            wide.append((number, columns))
    for number, columns in wide[:WIDTH_REPORTS_PER_FILE]:
        problems.append(Problem(rel, number, "width",
                                "%d columns, at most %d: wrap this line"
                                % (columns, MAX_COLUMNS)))
    rest = wide[WIDTH_REPORTS_PER_FILE:]
    if rest:
        problems.append(Problem(rel, rest[0][0], "width", "and %d more lines "
                                "wider than %d columns: %s" % (
                                    len(rest), MAX_COLUMNS,
                                    ", ".join(str(n) for n, _ in rest))))
    return problems


def statement_counts(lines):
    """{0-based line: number of statements that end on it} for C source: the
    `;` outside string and character literals, comments and the parentheses
    of a `for` header (whose two `;` belong to one statement)."""
    counts = {}
    in_block = False  # inside /* ... */
    for_depth = 0  # parentheses open in a for header
    for_pending = False  # saw `for`, its `(` not yet
    for number, line in enumerate(lines):
        i = 0
        quote = None  # a literal ends with its line
        while i < len(line):
            c = line[i]
            if in_block:
                end = line.find("*/", i)
                if end < 0:
                    break
                in_block = False
                i = end + 2
                continue
            if quote:
                if c == "\\":
                    i += 2
                    continue
                if c == quote:
                    quote = None
            elif c == '"' or c == "'":  # a literal's ; is no statement's
                quote = c
            elif line[i:i + 2] == "//":  # nor is a comment's
                break
            elif line[i:i + 2] == "/*":
                in_block = True
                i += 2
                continue
            elif re.match(r"for\b", line[i:]) and \
                    (i == 0 or not re.match(r"\w", line[i - 1])):
                for_pending = True
                i += 3
                continue
            elif c == "(" and (for_pending or for_depth):
                for_pending = False
                for_depth += 1
            elif c == ")" and for_depth:
                for_depth -= 1
            elif c == ";" and not for_depth:
                counts[number] = counts.get(number, 0) + 1
            i += 1
    return counts


def check_statements(path, rel):
    """One statement a line: two `;` on one line (outside literals, comments
    and for headers) pack statements to meet the length cap."""
    problems = []
    lines = read_text(path).splitlines()
    for number, count in sorted(statement_counts(lines).items()):
        if count > 1:
            problems.append(Problem(rel, number + 1, "statements",
                                    "%d statements on one line: put each "
                                    "on a line of its own" % count))
    return problems


# ---------------------------------------------------------------- the fix diff

def opening_comment_end(lines):
    """Number of lines of the leading /** ... */ comment (0 if none)."""
    if not lines or not lines[0].startswith("/**"):
        return 0
    for index, line in enumerate(lines):
        if "*/" in line:
            return index + 1
    return len(lines)


def opening_docstring_end(lines):
    """Number of lines of a twin's leading \"\"\"docstring\"\"\" (0 if
    none): the Python twins' opening comment."""
    if not lines or not lines[0].startswith('"""'):
        return 0
    for index, line in enumerate(lines):
        if '"""' in line[3 if index == 0 else 0:]:
            return index + 1
    return len(lines)


def python_comment_spans(lines):
    """(first, last, text) of each comment of a Python twin, 0-based lines:
    its # comments, a run of whole-line ones taken as one comment, and the C
    comments of the kernel source it holds in multi-line strings."""
    spans = []
    try:
        tokens = list(tokenize.generate_tokens(
            io.StringIO("\n".join(lines) + "\n").readline))
    except (tokenize.TokenError, SyntaxError):
        tokens = []
    for token in tokens:
        (first, _), (last, _) = token.start, token.end
        if token.type == tokenize.COMMENT:
            spans.append((first - 1, first - 1, token.string[1:]))
        elif token.type == tokenize.STRING and last > first:
            for a, b, text in comment_spans(lines[first - 1:last]):
                spans.append((first - 1 + a, first - 1 + b, text))
    spans.sort()
    merged = []
    for first, last, text in spans:
        if merged and first == merged[-1][1] + 1 and \
                lines[first].lstrip().startswith(("#", "//")) and \
                lines[merged[-1][0]].lstrip().startswith(("#", "//")):
            merged[-1] = (merged[-1][0], last, merged[-1][2] + "\n" + text)
        else:
            merged.append((first, last, text))
    return merged


def comment_spans(lines):
    """(first, last, text) of each C comment, 0-based lines. Knows string
    and character literals, so a "//" in a string is not a comment."""
    spans = []
    in_block = None  # (first line, text so far) while inside /* ... */
    for number, line in enumerate(lines):
        i = 0
        quote = None
        while i < len(line):
            if in_block is not None:
                end = line.find("*/", i)
                if end < 0:
                    in_block = (in_block[0], in_block[1] + line[i:] + "\n")
                    break
                spans.append((in_block[0], number, in_block[1] + line[i:end]))
                in_block = None
                i = end + 2
                continue
            c = line[i]
            if quote:
                if c == "\\":
                    i += 2
                    continue
                if c == quote:
                    quote = None
            elif c in "\"'":
                quote = c
            elif line.startswith("//", i):
                spans.append((number, number, line[i + 2:]))
                break
            elif line.startswith("/*", i):
                in_block = (number, "")
                i += 2
                continue
            i += 1
    if in_block is not None:
        spans.append((in_block[0], len(lines) - 1, in_block[1]))
    return spans


def marker_regions(lines, tag, python=False):
    """The lines (0-based) of each `tag:` region: the comment that holds
    `tag:` and the lines after it, up to the next blank line or the next line
    that starts with a comment. python: the lines are a Python twin's (#
    comments, and C comments in its kernel source)."""
    regions = set()
    spans = python_comment_spans(lines) if python else comment_spans(lines)
    starts = ("#", "/*", "//") if python else ("/*", "//")
    for first, last, text in spans:
        if tag + ":" not in text:
            continue
        regions.update(range(first, last + 1))
        number = last + 1
        while number < len(lines):
            stripped = lines[number].strip()
            if not stripped or stripped.startswith(starts):
                break
            regions.add(number)
            number += 1
    return regions


def diff_hunks(old, new):
    """A minimal line diff (longest common subsequence, like diff(1)): a
    list of hunks (removed old indices, added new indices), 0-based."""
    n, m = len(old), len(new)
    lcs = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            if old[i] == new[j]:
                lcs[i][j] = lcs[i + 1][j + 1] + 1
            else:
                lcs[i][j] = max(lcs[i + 1][j], lcs[i][j + 1])
    hunks = []
    removed, added = [], []
    i = j = 0
    while i < n or j < m:
        if i < n and j < m and old[i] == new[j]:
            if removed or added:
                hunks.append((removed, added))
                removed, added = [], []
            i += 1
            j += 1
        elif j < m and (i == n or lcs[i][j + 1] >= lcs[i + 1][j]):
            added.append(j)
            j += 1
        else:
            removed.append(i)
            i += 1
    if removed or added:
        hunks.append((removed, added))
    return hunks


def readme_has_waiver(readme_text, heading=WAIVER):
    """True when the README explains, under '## <heading>' (by default
    'Why the fix is larger'), why the rule cannot be kept: a heading with
    some text under it."""
    match = re.search(r"^## %s\n(.*?)(?=^## |\Z)" % re.escape(heading),
                      readme_text, re.M | re.S)
    return bool(match and match.group(1).strip())


# The lesson pairs whose diff is only the fix: the C programs and the twins.
FIX_PAIRS = (("broken.cu", "fixed.cu"), ("broken.py", "fixed.py"),
             ("broken_cupy.py", "fixed_cupy.py"),
             ("broken_torch.py", "fixed_torch.py"),
             ("broken_numba.py", "fixed_numba.py"))


def fix_diff_problems(chapter, rel, broken_name, fixed_name):
    """What is wrong with the diff from broken_name to fixed_name (see
    check_fix_diff()), and its size."""
    python = broken_name.endswith(".py")
    opening = opening_docstring_end if python else opening_comment_end
    broken = read_text(os.path.join(chapter, broken_name)).splitlines()
    fixed = read_text(os.path.join(chapter, fixed_name)).splitlines()
    b0, f0 = opening(broken), opening(fixed)
    hunks = diff_hunks(broken[b0:], fixed[f0:])
    bug = marker_regions(broken, "BUG", python)
    fix = marker_regions(fixed, "FIX", python)
    found = []
    size = sum(len(removed) + len(added) for removed, added in hunks)
    if size > MAX_FIX_LINES:
        found.append(Problem(
            rel + "/" + fixed_name, 0, "diff",
            "%s -> %s changes %d lines (%d removed, %d added) outside the "
            "opening comment, at most %d: keep only the fix, or explain "
            "under '## %s' in README.md" % (
                broken_name, fixed_name, size,
                sum(len(r) for r, _ in hunks),
                sum(len(a) for _, a in hunks), MAX_FIX_LINES, WAIVER)))
    for removed, added in hunks:
        if any(b0 + i in bug for i in removed) or \
                any(f0 + j in fix for j in added):
            continue
        if added:
            where, line = fixed_name, f0 + added[0] + 1
        else:
            where, line = broken_name, b0 + removed[0] + 1
        found.append(Problem(
            rel + "/" + where, line, "diff",
            "this change (%d removed, %d added) touches no BUG:/FIX: region: "
            "make %s and %s agree here, or mark the change with a FIX: "
            "comment (on its line or right above it)"
            % (len(removed), len(added), broken_name, fixed_name)))
    return found, size


def check_fix_diff(chapter, rel):
    """The broken -> fixed diff is only the fix (issue 14, 2), for broken.cu
    and fixed.cu and for each pair of twins (issue 25, 1).

    Measured outside each file's opening /** ... */ comment (a twin's
    opening docstring), which differs by design, with a minimal line diff.
    Its size is the number of removed plus added lines (a changed line
    counts twice, as in `git diff --stat`): at most MAX_FIX_LINES. Each hunk
    (a run of removed and added lines between unchanged ones) must touch a
    BUG: region of the broken file (with a removed line) or a FIX: region of
    the fixed one (with an added line); see marker_regions(). A README
    section '## Why the fix is larger' waives both rules for every pair, and
    is itself a problem when all the pairs keep to them."""
    found = []
    sizes = []
    for broken_name, fixed_name in FIX_PAIRS:
        if os.path.exists(os.path.join(chapter, broken_name)) and \
                os.path.exists(os.path.join(chapter, fixed_name)):
            problems, size = fix_diff_problems(chapter, rel, broken_name,
                                               fixed_name)
            found += problems
            sizes.append("%s %d" % (fixed_name, size))
    if not sizes:
        return []
    readme_path = os.path.join(chapter, "README.md")
    waived = os.path.exists(readme_path) and \
        readme_has_waiver(read_text(readme_path))
    if waived:
        if not found:
            return [Problem(rel + "/README.md", 0, "diff",
                            "'## %s' explains a fix that keeps to the limits "
                            "(changed lines: %s): drop that section"
                            % (WAIVER, ", ".join(sizes)))]
        return []
    return found


# ---------------------------------------------------------------- README

def check_readme_structure(text, rel, num):
    problems = []
    if not text.startswith("# %s · " % num):
        problems.append(Problem(rel, 1, "readme",
                                "the first line must be the title "
                                "'# %s · ...'" % num))
    match = re.search(r"\n\*\*Part: ([A-Za-z -]+)\.\*\*", text)
    if not match or match.group(1).lower() not in PARTS:
        problems.append(Problem(rel, 0, "readme",
                                "no '**Part: <part>.**' with a part from: %s"
                                % ", ".join(PARTS)))
    headings = {}
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("## ") and line[3:] not in headings:
            headings[line[3:]] = number
    previous = None
    for section in SECTIONS:
        if section not in headings:
            problems.append(Problem(rel, 0, "readme",
                                    "no '## %s' section (order: %s)"
                                    % (section, ", ".join(SECTIONS))))
            continue
        if previous and headings[section] < headings[previous]:
            problems.append(Problem(rel, headings[section], "readme",
                                    "'## %s' must come after '## %s' "
                                    "(order: %s)%s"
                                    % (section, previous, ", ".join(SECTIONS),
                                       HINT_FIRST if section == "Fix" else "")))
        previous = section
    if "```py" in text:
        number = text[:text.index("```py")].count("\n") + 1
        problems.append(Problem(rel, number, "readme",
                                "PyCUDA code belongs in broken.py/fixed.py, "
                                "which run, not in a code block"))
    return problems


def fenced_blocks(text):
    """(line of the opening fence, info string, content lines) of each
    fenced block; the fence's indentation is removed from its lines."""
    blocks = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        match = re.match(r"^( *)(```+)\s*([^`\s]*)[^`]*$", lines[i])
        if not match:
            i += 1
            continue
        indent, fence = len(match.group(1)), match.group(2)
        info = match.group(3)
        body = []
        j = i + 1
        while j < len(lines) and not re.match(r"^ *%s`*\s*$" % fence, lines[j]):
            line = lines[j]
            body.append(line[indent:] if line[:indent].strip() == "" else line)
            j += 1
        blocks.append((i + 1, info, body))
        i = j + 1
    return blocks


def line_matches(quoted, recorded):
    """A quoted line matches a recorded one. '...' in the quoted line stands
    for any text; the sanitizer's '========= ' prefix may be left out."""
    parts = quoted.rstrip().split("...")
    pattern = ".*".join(re.escape(part) for part in parts)
    recorded = recorded.rstrip()
    return any(re.fullmatch(pattern, candidate) for candidate in
               (recorded, SANITIZER_PREFIX.sub("", recorded)))


def block_matches(block, record, whole, open_end=False):
    """The quoted lines appear in the record, one after another; a line
    that is only '...' stands for any number of record lines. whole: the
    block must cover the record from its first line to its last (to any
    line with open_end)."""

    def match_from(b, r):
        if b == len(block):
            return not whole or open_end or r == len(record)
        if block[b].strip() == "...":
            return any(match_from(b + 1, k) for k in range(r, len(record) + 1))
        return r < len(record) and line_matches(block[b], record[r]) and \
            match_from(b + 1, r + 1)

    starts = [0] if whole else range(len(record) + 1)
    return any(match_from(0, s) for s in starts)


def closest_record(block, records, whole):
    """(name, number of leading block lines found) of the record that holds
    the longest beginning of the block."""
    best = (None, 0)
    for name in sorted(records):
        for k in range(len(block), 0, -1):
            if block_matches(block[:k], records[name], whole, open_end=True):
                break
        else:
            k = 0
        if k > best[1]:
            best = (name, k)
    return best


def check_transcripts(chapter, text, rel):
    """Every output block quotes a record (issue 13, 2), and the README
    quotes at least one of the C programs' transcripts (issue 13, 1.6).

    An output block is a fenced block without an info string (or ```text);
    code and commands name their language (```c, ```sh). Its lines must
    appear, one after another, in one of the chapter's expected/*.out. A
    block that ends with a closing line ([exit status: N]) quotes a whole
    record, from its first line. '...' as a whole line stands for omitted
    record lines, '...' within a line for omitted text (an address), and the
    sanitizer's '========= ' prefix may be left out."""
    problems = []
    records = {}
    expected = os.path.join(chapter, "expected")
    if os.path.isdir(expected):
        for name in sorted(os.listdir(expected)):
            if name.endswith(".out"):
                path = os.path.join(expected, name)
                records[name] = read_text(path).splitlines()
    quoted = set()
    for number, info, body in fenced_blocks(text):
        if info not in OUTPUT_INFO or not body:
            continue
        whole = CLOSING_LINE.fullmatch(body[-1].strip()) is not None
        hits = [name for name in sorted(records)
                if block_matches(body, records[name], whole)]
        quoted.update(hits)
        if hits:
            continue
        first = body[0].strip()
        if len(first) > 50:
            first = first[:47] + "..."
        name, found = closest_record(body, records, whole)
        if name and found:
            detail = ("closest is expected/%s, which has the first %d line(s) "
                      "but not block line %d, %r: copy the lines from the "
                      "record" % (name, found, found + 1,
                                  body[min(found, len(body) - 1)].strip()))
        else:
            detail = ("no record has its first line: quote a record, or record "
                      "this output on the GPU host first (never by hand)")
        if whole:
            detail += ("; a block that ends in [exit status: N] quotes a whole "
                       "record, from its first line")
        problems.append(Problem(rel, number, "transcript",
                                "the output block '%s' is in none of "
                                "expected/*.out; %s" % (first, detail)))
    if not quoted & {"broken.out", "fixed.out"}:
        problems.append(Problem(rel, 0, "transcript",
                                "quotes neither expected/broken.out nor "
                                "expected/fixed.out: show what a program "
                                "printed in a ``` block (under Symptom)"))
    return problems


# ---------------------------------------------------------------- symptom index

SYMPTOM_INDEX = "docs/symptoms.md"
NOT_COVERED = "Not covered yet"  # the heading of the index's last section
CHAPTER_LINK = re.compile(r"\]\([^)]*chapters/([0-9][0-9])-")
CHAPTER_NAMED = re.compile(r"\b(?:[Cc]hapters? |)([0-9][0-9]) ·|"
                           r"\b[Cc]hapters? ([0-9][0-9])\b")


def table_cells(line):
    """The cells of a Markdown table row: split at the | that are outside
    code spans and not escaped."""
    cells, cell, code, k = [], "", False, 0
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    while k < len(body):
        c = body[k]
        if c == "\\" and k + 1 < len(body):
            cell += body[k:k + 2]
            k += 2
            continue
        if c == "`":
            code = not code
        if c == "|" and not code:
            cells.append(cell.strip())
            cell = ""
        else:
            cell += c
        k += 1
    if cell.strip():
        cells.append(cell.strip())
    return cells


def symptom_key(cell):
    """A symptom as the reader sees it, for comparing rows: link targets,
    code and emphasis marks dropped, quotes made plain, case and spacing
    folded."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", cell)
    text = re.sub(r"[`*]+", "", text)
    text = re.sub("[\u201c\u201d\u2018\u2019\"']", "", text)
    return " ".join(text.lower().split()).rstrip(".;:,")


def check_symptom_index(text, rel):
    """The symptom index routes each symptom once, and honestly.

    - Duplicates: no two rows of any table have the same first cell (the
      symptom), compared as symptom_key() folds it. Two rows for one symptom
      drift apart; merge them into one that names every cause.
    - Stale routes: the "Not covered yet" section is the one place for a
      cause no chapter shows, each such cause a row of its own table. So a
      row of another section never links to #not-covered-yet: when a
      chapter covers the cause, the link is stale (route the row to the
      chapter), and when none does, the link points at an entry that may
      not exist (give the cause its own row in that table). Conversely, a
      row of "Not covered yet" that links a chapter's page lists a covered
      cause as uncovered. Naming a related chapter in words there is fine
      ("chapter 19 shows the reuse case"): only links count.
    """
    problems = []
    anchor = "#" + "-".join(NOT_COVERED.lower().split())
    section = ""
    seen = {}
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):
        if line.startswith("## "):
            section = line[3:].strip()
            continue
        if not line.lstrip().startswith("|"):
            continue
        following = lines[number] if number < len(lines) else ""
        if re.fullmatch(r"\s*\|?[\s:|-]*-[\s:|-]*", line) or \
                re.fullmatch(r"\s*\|?[\s:|-]*-[\s:|-]*", following):
            continue  # a separator row, or the heading row above one
        cells = table_cells(line)
        if not cells:
            continue
        key = symptom_key(cells[0])
        if key:
            if key in seen:
                problems.append(Problem(rel, number, "symptoms",
                                        "the symptom '%s' is also on line %d: "
                                        "merge the two rows into one"
                                        % (cells[0][:60], seen[key])))
            else:
                seen[key] = number
        rest = " | ".join(cells[1:])
        chapters = sorted(set(m.group(1) for m in CHAPTER_LINK.finditer(rest)))
        if section == NOT_COVERED:
            if chapters:
                problems.append(Problem(rel, number, "symptoms",
                                        "'%s' lists as not covered a cause "
                                        "it links chapter %s for: move the "
                                        "row to its section and route it to "
                                        "the chapter"
                                        % (NOT_COVERED, ", ".join(chapters))))
        elif "](%s)" % anchor in rest:
            named = chapters or sorted(set(
                m.group(1) or m.group(2) for m in CHAPTER_NAMED.finditer(rest)))
            if named:
                problems.append(Problem(rel, number, "symptoms",
                                        "links to '%s' and to chapter %s: "
                                        "a chapter covers the cause, so the "
                                        "link is stale; route the row to "
                                        "the chapter"
                                        % (NOT_COVERED, ", ".join(named))))
            else:
                problems.append(Problem(rel, number, "symptoms",
                                        "links to '%s': a cause no chapter "
                                        "shows gets its own row in that "
                                        "section's table instead"
                                        % NOT_COVERED))
    return problems


def lint_symptom_index(root):
    path = os.path.join(root, SYMPTOM_INDEX)
    if not os.path.exists(path):
        return []
    return check_symptom_index(read_text(path), SYMPTOM_INDEX)


# ---------------------------------------------------------------- the walk

def chapter_folders(root, problems):
    """The chapter folders in reading order, named and numbered correctly."""
    base = os.path.join(root, "chapters")
    checked = []
    expected_number = 1
    for name in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        if not os.path.isdir(os.path.join(base, name)):
            continue
        match = CHAPTER_NAME.match(name)
        if not match:
            problems.append(Problem("chapters/" + name, 0, "folder",
                                    "a chapter folder is named NN-slug (lower "
                                    "case, digits, dashes)"))
            continue
        number = int(match.group(1))
        if number != expected_number:
            problems.append(Problem("chapters/" + name, 0, "folder",
                                    "number %s where %02d was due (numbers "
                                    "are unique, without gaps)"
                                    % (match.group(1), expected_number)))
        expected_number = number + 1
        checked.append(name)
    return checked


def check_doctor_data(chapter, rel):
    """doctor.json, what tools/clinic-doctor knows of the chapter, is there
    and holds a JSON object (the doctor's own tests check its fields)."""
    where = rel + "/doctor.json"
    path = os.path.join(chapter, "doctor.json")
    if not os.path.exists(path):
        return [Problem(where, 0, "files", "is missing: write what the clinic "
                        "doctor should know of this chapter (docs/doctor.md "
                        "says what it holds; copy another chapter's to start)")]
    try:
        data = json.loads(read_text(path))
    except ValueError as error:
        return [Problem(where, getattr(error, "lineno", 0), "files",
                        "is not valid JSON: %s" % error)]
    if not isinstance(data, dict):
        return [Problem(where, 0, "files", "must hold a JSON object, "
                        "{\"cause\": ..., \"confirm\": ..., ...}")]
    return []


STREAM_MADE = re.compile(r"cudaStreamCreate|cuStreamCreate|\bStream\(\)|"
                         r"cuda\.stream\(\)|torch\.cuda\.Stream\(")


def check_streams(chapter, rel, programs):
    """STREAMS (cmake/clinic.cmake) keeps the driver's eight work queues for
    the chapter's golden tests; the others run with one, where streams
    cannot run side by side. So a chapter says STREAMS exactly when one of
    its programs creates a stream."""
    says = "STREAMS" in chapter_call(chapter)
    makers = [p for p in programs if os.path.exists(os.path.join(chapter, p))
              and STREAM_MADE.search(read_text(os.path.join(chapter, p)))]
    if makers and not says:
        return [Problem(rel + "/CMakeLists.txt", 0, "streams", "%s creates a "
                        "stream: say clinic_chapter(STREAMS), so that its "
                        "golden tests keep the driver's eight work queues"
                        % makers[0])]
    if says and not makers:
        return [Problem(rel + "/CMakeLists.txt", 0, "streams", "says STREAMS, "
                        "but no program creates a stream: drop it, so that "
                        "the golden tests run with one work queue")]
    return []


def lint_chapter(root, name, top_readme):
    chapter = os.path.join(root, "chapters", name)
    rel = "chapters/" + name
    num = name[:2]
    problems = []
    for f in ("broken.cu", "fixed.cu", "README.md", "CMakeLists.txt"):
        if not os.path.exists(os.path.join(chapter, f)):
            problems.append(Problem(rel + "/" + f, 0, "files", "is missing"))
    cmake = os.path.join(chapter, "CMakeLists.txt")
    if os.path.exists(cmake) and "\nclinic_chapter(" not in read_text(cmake):
        problems.append(Problem(rel + "/CMakeLists.txt", 0, "files",
                                "does not call clinic_chapter()"))
    problems += check_doctor_data(chapter, rel)

    twins = sorted(f for f in os.listdir(chapter) if f.endswith(".py"))
    # A variant (clinic_chapter(VARIANTS ...)) shows a second form of the bug.
    # Files every program is built with (SOURCES) are not variants.
    shared = shared_sources(chapter)
    variants = sorted(f[:-3] for f in os.listdir(chapter) if f.endswith(".cu")
                      and f not in ("broken.cu", "fixed.cu") and
                      f not in shared)
    programs = ["broken.cu", "fixed.cu"] + [v + ".cu" for v in variants]
    programs += twins
    problems += check_record_presence(chapter, rel, programs)
    problems += check_streams(chapter, rel, programs)
    expected = os.path.join(chapter, "expected")
    if os.path.isdir(expected):
        for out in sorted(os.listdir(expected)):
            if out.endswith(".out"):
                problems += check_record_format(os.path.join(expected, out),
                                                rel + "/expected/" + out)
    problems += check_fixed_run(chapter, rel)

    readme_path = os.path.join(chapter, "README.md")
    long_waived = os.path.exists(readme_path) and readme_has_waiver(
        read_text(readme_path), LENGTH_WAIVER)
    for prog, tag in [("broken", "BUG"), ("fixed", "FIX")] + [
            (v, "BUG") for v in variants]:
        path = os.path.join(chapter, prog + ".cu")
        if os.path.exists(path):
            where = rel + "/" + prog + ".cu"
            problems += check_program_header(path, where, prog + ".cu")
            problems += check_marker(path, where, tag)
            problems += check_length(path, where, long_waived)
            problems += check_width(path, where)
            problems += check_statements(path, where)
    for file_name in shared:
        problems += check_shared_source(chapter, rel, file_name)
    for twin in twins:  # the Python twins are lessons too
        problems += check_length(os.path.join(chapter, twin),
                                 rel + "/" + twin, long_waived)
        problems += check_width(os.path.join(chapter, twin), rel + "/" + twin)
    problems += check_fix_diff(chapter, rel)

    readme = os.path.join(chapter, "README.md")
    if os.path.exists(readme):
        text = read_text(readme)
        problems += check_readme_structure(text, rel + "/README.md", num)
        problems += check_transcripts(chapter, text, rel + "/README.md")
    if "(chapters/%s/)" % name not in top_readme:
        problems.append(Problem("README.md", 0, "files",
                                "the chapter table has no row linking "
                                "chapters/%s/" % name))
    return problems


def lint_seeds(root):
    problems = []
    seeds = os.path.join(root, "seeds")
    if not os.path.isdir(seeds):
        return problems
    for seed in sorted(os.listdir(seeds)):
        if re.fullmatch(r"q.*\.py", seed):
            out = seed[:-3] + ".out"
            if not os.path.exists(os.path.join(seeds, "expected", out)):
                problems.append(Problem("seeds/expected/" + out, 0, "record",
                                        "is not recorded yet (on a GPU host: "
                                        "ctest --preset update-expected)"))
    return problems


def lint(root):
    """All problems of the repository at root, and the chapters checked."""
    problems = []
    chapters = chapter_folders(root, problems)
    top = os.path.join(root, "README.md")
    top_readme = read_text(top) if os.path.exists(top) else ""
    for name in chapters:
        problems += lint_chapter(root, name, top_readme)
    problems += lint_seeds(root)
    problems += lint_symptom_index(root)
    return problems, chapters


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "..", "..")
    problems, chapters = lint(os.path.abspath(root))
    for problem in problems:
        print(problem)
    if problems:
        rules = {}
        for problem in problems:
            rules[problem.rule] = rules.get(problem.rule, 0) + 1
        print("structure lint: %d problems (%s) in %d chapters" % (
            len(problems),
            ", ".join("%s %d" % rule for rule in sorted(rules.items())),
            len(chapters)))
        return 1
    print("structure lint: %d chapters, numbered 01 to %02d in reading order, "
          "no problems" % (len(chapters), len(chapters)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
