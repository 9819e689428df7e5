#!/usr/bin/env python3
"""make_pages.py -- the repository's Markdown as Doxygen pages (see --help).

Doxygen renders the Markdown; this adds what it cannot know: page ids and
GitHub's heading anchors (a link to a missing heading stops the build); a
chapter's folded Fix, the lines around its BUG:, its programs, the diff of its
fix and its recorded outputs; the chapters and part pages; the seeds'
programs; and OUT/extra/clinic-search-index.js, every section's text.
"""

import argparse
import html
import itertools
import json
import os
import posixpath
import re
import shutil
import subprocess
import sys
import tempfile

TWINS = tuple((lib, "broken%s.py" % s, "fixed%s.py" % s) for lib, s in (
    ("PyCUDA", ""), ("CuPy", "_cupy"), ("PyTorch", "_torch"),
    ("Numba", "_numba")))
PROGRAMS = ("broken.cu", "fixed.cu") + tuple(
    x for _, b, f in TWINS for x in (b, f))
LIBRARY = {x: lib for lib, b, f in TWINS for x in (b, f)}  # twin: library
FIRST_PAGES = ("symptoms", "myths", "python")
FENCE = re.compile(r" *(```|~~~)")
HEADING = re.compile(r"(#{1,6}) +(.*[^ ]) *\Z")
LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^) ]*)\)")
TRY_FIRST = ('<details class="clinic-try"><summary><span class='
             '"clinic-try-title">Try it first.</span> %s <span '
             'class="clinic-try-open">Show %s</span></summary>\n')
VERDICTS = {0: ("exit 0: the results were right", "clinic-ok"),
            1: ("exit 1: wrong results", "clinic-bad"),
            2: ("exit 2: a CUDA call failed", "clinic-bad"),
            77: ("exit 77: skipped", "clinic-other")}


class BuildError(Exception):
    """A mistake in the pages, such as a link to a missing heading."""


def read_text(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def esc(text):
    """Text for HTML in a Doxygen page ('*' too: "*/" would end a comment)."""
    return html.escape(text).replace("*", "&#42;")


def plain(md):
    """One line of Markdown as the reader sees it: no links, tags, marks."""
    md = re.sub(r"\{#[^}]*\}", "", md)
    md = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", md)
    md = re.sub(r"</?[a-zA-Z][^>]*>|[*`]", "", md)
    md = re.sub(r"\\([\\_*#@<>&`|\[\]])", r"\1", md)
    return re.sub(r"\s+", " ", html.unescape(md)).strip()


def search_text(md):
    """A section's Markdown as the reader sees it, for the search index:
    code blocks kept, fences, heading, list, quote and table marks left out."""
    out, fence = [], False
    for line in md.split("\n"):
        if FENCE.match(line):
            fence = not fence
        elif fence:
            out.append(line)
        elif not re.match(r" *([-*_] *){3,}\Z|\|?[ :|-]+\Z", line):
            line = re.sub(r"\A *(> ?)*(#+ |[-*+] |[0-9]+[.)] )?", "",
                          line.replace("|", " "))
            out.append(plain(line))
    return re.sub(r"\s+", " ", " ".join(out)).strip()


def gh_slug(text):
    """The anchor GitHub gives a heading."""
    t = plain(text).lower()
    return re.sub(r"[^a-z0-9 _-]", "", t).replace(" ", "-") or "section"


def md_lines(text):
    """(title, [(line, heading or None, in_fence)]) of a Markdown text; the
    title is the first level-1 heading, which is not in the lines."""
    title, out, fence = "", [], False
    for line in text.replace("\r", "").rstrip("\n").split("\n"):
        if FENCE.match(line):
            fence = not fence
            out.append((line, None, True))
            continue
        h = None if fence else HEADING.match(line)
        if h and not title and h.group(1) == "#":
            title = re.sub(r" *\{#[^}]*\}\Z", "", h.group(2))
            continue
        out.append((line, h, fence))
    return title, out


def heading_slugs(text):
    """The GitHub anchors of a Markdown text's headings, title left out; a
    repeated one gets -1, -2, ..."""
    slugs = []
    for h in (h for _, h, _ in md_lines(text)[1] if h):
        slug = gh_slug(h.group(2))
        slugs.append(next(s for s in [slug] + ["%s-%d" % (slug, k) for k in (
            range(1, len(slugs) + 1))] if s not in slugs))
    return slugs


def doxygen_file(pid):
    """The file Doxygen writes for a page or file name."""
    return pid.replace("_", "__").replace(".", "_8") + ".html"


def inline(text, link):
    """A line of Markdown as Doxygen 1.9.4 must get it: code spans kept as
    they are; outside them, links made by link(bang, text, target), **bold**
    as <b> (Doxygen leaves ** next to a code span as text), and "file:" given
    a % so that "file:line:" is no URL."""
    parts = re.split(r"(`+[^`]*`+)", text)
    for i, p in enumerate(parts):
        p = code_span(p) if i % 2 else LINK.sub(lambda m: link(*m.groups()), p)
        parts[i] = re.sub(r"(^|[^\w%/.-])file:(?=[^/])", r"\1%file:", p)
    masked = "".join(p if i % 2 == 0 else "\x05%d\x05" % i
                     for i, p in enumerate(parts))
    masked = re.sub(r"\*\*([^*\s](?:[^*]*[^*\s])?)\*\*", r"<b>\1</b>",
                    masked)
    return re.sub("\x05([0-9]+)\x05", lambda m: parts[int(m.group(1))],
                  masked)


def code_span(span):
    """A code span as Doxygen 1.9.4 keeps it code: with quotes and a special
    character, as HTML (inside "..." Doxygen stops escaping, and an odd
    number of quotes swallows the end of the span); with a ', in double
    backticks (`x' is a LaTeX-style quote to Doxygen)."""
    ticks = re.match(r"`+", span).group(0)
    code = span[len(ticks):-len(ticks)]
    quotes = code.count('"')
    if quotes and (quotes % 2 or re.search(r"[\\<>&@#$%]", code)):
        code = re.sub(r'(["@#$%*_])', r"\\\1", code.replace("\\", "\\\\"))
        return "<code>%s</code>" % html.escape(code, quote=False)
    return "``%s``" % code if "'" in code and len(ticks) == 1 else span


def strip_header(text, python):
    """(text without its header comment, the number of lines left out)."""
    m = re.match(r'\s*("""|\'\'\')' if python else r"\s*/\*", text)
    end = text.find(m.group(1) if python else "*/", m.end()) if m else -1
    if end < 0:
        return text, 0
    head = text[:text.find("\n", end) + 1] or text
    return text[len(head):], head.count("\n") + (not head.endswith("\n"))


def part_id(part):
    return "part-" + re.sub(r"[^a-z0-9]+", "-", part.lower())


def htmlonly(text):
    return "\\htmlonly[block]\n%s\n\\endhtmlonly\n" % text


class Chapter:
    """A chapter folder (complete: the lint sees to that): its id, titles
    and part."""

    def __init__(self, site, folder):
        self.folder, self.id = folder, "ch" + folder[:2]
        self.dir = os.path.join(site.root, "chapters", folder)
        text = read_text(os.path.join(self.dir, "README.md"))
        full = md_lines(text)[0]
        self.short, _, self.sub = full.partition(": ")
        self.part = re.search(r"\*\*Part: ([^*.]+)\.\*\*", text).group(1)
        self.title = plain(full)


def shared_sources(folder):
    """The files clinic_chapter(SOURCES ...) in the chapter's CMakeLists.txt
    builds into every program (chapter 44's second .cu and its header)."""
    call = re.search(r"\bclinic_chapter\([^)]*?\bSOURCES\b([^)]*)\)",
                     read_text(os.path.join(folder, "CMakeLists.txt")))
    names = itertools.takewhile(lambda w: not w.isupper(),  # next option
                                call.group(1).split() if call else [])
    return [n for n in names if os.path.isfile(os.path.join(folder, n))]


def variants(folder):
    """A chapter's other .cu files, each another cause of the symptom."""
    shared = shared_sources(folder)
    return sorted(f for f in os.listdir(folder) if f.endswith(".cu") and
                  f not in PROGRAMS and f not in shared)


class Site:
    """The pages, their anchors, the search index and what was read."""

    def __init__(self, root, out, chapters, diff="diff", plots=""):
        self.root, self.out, self.diff, self.plots = root, out, diff, plots
        self.chapters = [c for c in chapters if re.match(r"\d\d-", c)]
        # id -> (Markdown file, its folder in the repo), its headings'
        # anchors, its title as plain text
        self.pages, self.anchors, self.titles = {}, {}, {}
        self.search, self.notes = [], []

    def note(self, msg):
        self.notes.append(msg)
        print("-- docs: " + msg)

    def add_page(self, pid, src, folder, extra_anchors=()):
        self.pages[pid] = (src, folder)
        text = read_text(src) if src else ""
        self.anchors[pid] = heading_slugs(text) + list(extra_anchors)
        self.titles[pid] = plain(md_lines(text)[0])

    def entry(self, url, title, section, text):
        self.search.append({"u": url, "t": title, "s": section,
                            "x": text[:6000]})

    def target(self, pid, frag, origin):
        """ "@ref page" or "@ref page-anchor"; a missing anchor stops."""
        if frag and frag.lower() not in self.anchors.get(pid, []):
            raise BuildError(
                "%s: a link points at #%s in page '%s', which has no such "
                "heading. Its headings' anchors are: %s" % (
                    origin, frag, pid, ", ".join(self.anchors.get(pid, []))))
        return "@ref " + pid + ("-" + frag.lower() if frag else "")

    def page_of(self, p):
        """(page id, anchor) of a repository path; ("", "") if none."""
        m = re.match(r"chapters/(\d\d)-[^/]+(/README\.md|/(expected)(/.*)?|"
                     r"/([^/]+))?\Z", p)
        if m:
            return "ch" + m.group(1), ("recorded-output" if m.group(3) else
                                       (m.group(5) or "").replace(".", "-")
                                       or None)
        m = re.match(r"seeds/([^/]+\.py)\Z", p)
        if m:
            return "seeds", gh_slug(m.group(1))
        m = re.match(r"(?:docs/)?([^/]+)(?:/README)?\.md\Z|(seeds|bench|\.)\Z",
                     p)
        name = re.sub(r"[^a-z0-9]", "", (m.group(1) or m.group(2)).lower()) \
            if m else None
        return ("", "") if m is None else (
            "index" if name in ("", "readme") else name, None)

    def link(self, target, pid, folder, origin):
        """A GitHub-style link as a link of the site: "@ref ...", the target
        itself (a URL), or "" (not on the site: shown as its text)."""
        if re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:|@ref ", target):
            return target
        path, _, frag = target.partition("#")
        if not path:
            return self.target(pid, frag, origin)
        p = posixpath.normpath(posixpath.join(folder, path)) if folder \
            else posixpath.normpath(path)
        if p == "common/check_cuda.h":
            return "@ref check_cuda.h"
        page, anchor = self.page_of(p)
        if page in self.pages and anchor in self.anchors[page] + [None]:
            return self.target(page, frag if anchor is None else anchor,
                               origin)
        if re.match(r"chapters/\d\d-", p) and not os.path.exists(
                os.path.join(self.root, p)):
            raise BuildError("%s: a link points at %s, which does not exist"
                             % (origin, target))
        self.note("%s: the link to %s is not on the site; shown as text"
                  % (origin, target))
        return ""

    def image(self, text, target, folder, origin):
        """An image, copied where Doxygen's IMAGE_PATH finds it."""
        name = posixpath.basename(target)
        for found in (os.path.join(self.root, folder, target),
                      os.path.join(self.plots, name) if self.plots else ""):
            if found and os.path.isfile(found):
                shutil.copy2(found, os.path.join(self.out, "images"))
                return "![%s](%s)" % (text, name)
        raise BuildError("%s: image %s not found (the bench_plots target "
                         "draws the copy lab's)" % (origin, target))

    def md_link(self, pid, folder, origin):
        """What inline() makes of the links of a page."""
        def link(bang, text, target):
            if bang:
                return self.image(text, target, folder, origin)
            r = self.link(target, pid, folder, origin)
            return "[%s](%s)" % (text, r) if r else text
        return link

    def markdown(self, pid, title=None):
        """A page's Markdown as Doxygen must get it, without its title line;
        each section's text goes into the search index."""
        src, folder = self.pages[pid]
        origin = os.path.relpath(src, self.root)
        url = "index.html" if pid == "index" else doxygen_file(pid)
        title = title or self.titles[pid]
        link = self.md_link(pid, folder, origin)
        out, slugs, sections = [], iter(self.anchors[pid]), [(url, "", [])]
        for line, h, fence in md_lines(read_text(src))[1]:
            if h:
                slug = next(slugs)  # as add_page() made them
                sections.append(("%s#%s-%s" % (url, pid, slug),
                                 plain(h.group(2)), []))
                line = "%s \\anchor %s-%s %s" % (
                    h.group(1), pid, slug,
                    inline(re.sub(r" *\{#[^}]*\}\Z", "", h.group(2)), link))
            else:
                sections[-1][2].append(line)
                line = line if fence else inline(line, link)
            out.append(line)
        for u, section, lines in sections:
            self.entry(u, title, section, search_text("\n".join(lines)))
        return "\n".join(out) + "\n"

    def page(self, pid, title, body, toc=True):
        """A whole page: title with its id, a table of contents of its
        level-2 headings (Doxygen's own lists only sections, and a section
        would also show in the navigation tree), the body."""
        # the title as Doxygen shows it verbatim: plain, '_' escaped
        head = "# " + plain(title).replace("_", "\\_").replace("<", "&lt;")
        if pid != "index":
            head += " {#%s}" % pid
        items = "".join('<li class="level1"><a href="#%s">%s</a></li>' % (
            a, esc(plain(t))) for a, t in re.findall(
                r"^## \\anchor (\S+) (.*)$", body, re.M))
        if toc:
            head += "\n\n" + htmlonly(
                '<div class="toc clinic-toc"><h3>Table of Contents</h3><ul>'
                '%s</ul></div>' % items)
        return head + "\n\n" + body


def fold(body, anchor, summary, what):
    """body with the text of the section whose heading has \\anchor anchor
    folded in a "try it first" <details>; the heading itself stays. (Only
    headings outside code have an \\anchor.)"""
    m = re.search(r"^(#+) \\anchor %s .*\n" % anchor, body, re.M)
    if not m:
        return body
    end = re.compile(r"^#{1,%d} \\anchor " % len(m.group(1)), re.M).search(
        body, m.end())
    end = end.start() if end else len(body)
    return "\n".join((body[:m.end()] + htmlonly(TRY_FIRST % (summary, what)),
                      body[m.end():end].strip("\n"), "",
                      htmlonly("</details>"), body[end:]))


def excerpt(ch, name, marker):
    """The lines around the comments holding marker (two above, three
    below; the comment marked), numbered as in the full listing, as HTML.
    (Doxygen's \\dontinclude numbers a second range one line off.)"""
    text = read_text(os.path.join(ch.dir, name))
    lines, start = text.rstrip("\n").split("\n"), strip_header(text, 0)[1]
    marked, in_comment = [], False
    for i, line in enumerate(lines[start:], start):
        if marker in line or in_comment or (marked and marked[-1] == i - 1
                                            and line.strip()[:2] == "//"):
            marked.append(i)
            in_comment = ("/*" in line or in_comment) and \
                "*/" not in line.split("/*")[-1]
    near = {n for i in marked for n in range(max(start, i - 2),
                                             min(len(lines), i + 4))}
    shown = sorted(n for n in near if lines[n].strip() or
                   {n - 1, n + 1} <= near)  # no blank line at either end
    runs = [[n for _, n in run] for _, run in itertools.groupby(
        enumerate(shown), lambda x: x[1] - x[0])]  # runs of adjacent lines
    rows = '<div class="line clinic-gap">⋮</div>'.join("".join(
        '<div class="line%s"><span class="lineno">%d</span>%s</div>' % (
            " clinic-marker" if n in marked else "", n + 1, esc(lines[n]))
        for n in run) for run in runs)
    return shown and (
        '<p class="clinic-excerpt-head"><code>%s</code>, lines %s:</p><div '
        'class="fragment clinic-excerpt">%s</div>' % (name, ", ".join(
            "%d–%d" % (r[0] + 1, r[-1] + 1) for r in runs), rows))


def diff_html(site, folder, a, b):
    """The coloured diff of two programs without their header comments; the
    hunks numbered as the whole files are."""
    with tempfile.TemporaryDirectory() as work:
        skipped = []
        for name in (a, b):
            text, n = strip_header(read_text(os.path.join(folder, name)),
                                   name.endswith(".py"))
            write(os.path.join(work, name), text)
            skipped.append(n)
        run = subprocess.run([site.diff, "-u", "--label", a, "--label", b,
                              a, b], cwd=work, stdout=subprocess.PIPE)
    if run.returncode == 0:
        return "<p>The two files are the same, apart from their headers.</p>"
    if run.returncode != 1:
        raise BuildError("diff of %s/%s and %s failed (exit %d)"
                         % (folder, a, b, run.returncode))
    rows = []
    for line in run.stdout.decode("utf-8", "replace").rstrip("\n").split("\n"):
        m = re.match(r"@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@", line)
        if m:
            line = "@@ -%d%s +%d%s @@%s" % (
                int(m.group(1)) + skipped[0], m.group(2) or "",
                int(m.group(3)) + skipped[1], m.group(4) or "", line[m.end():])
        cls = (" hunk" if m else " file" if re.match(r"(---|\+\+\+) ", line)
               else {"+": " add", "-": " del"}.get(line[:1], ""))
        rows.append('<div class="line%s">%s</div>' % (cls, esc(line)))
    return '<div class="fragment clinic-diff">%s</div>' % "".join(rows)


def outcome_html(path, label):
    """A recorded output: how the program ended, then the transcript."""
    text = read_text(path).rstrip("\n")
    m = re.search(r"\[exit status: (\d+)\]\Z", text)
    verdict, cls = ("recorded", "clinic-other")
    if m:
        verdict, cls = VERDICTS.get(int(m.group(1)), (
            "exit %d" % int(m.group(1)), "clinic-bad"))
    elif text.endswith("[compilation failed]"):
        verdict, cls = ("does not compile: nvcc's diagnostic", "clinic-bad")
    lines = "".join('<div class="line">%s</div>' % esc(line)
                    for line in text.split("\n"))
    return ('<div class="clinic-out %s"><div class="clinic-out-head"><code>%s'
            '</code>: %s</div><div class="fragment">%s</div></div>'
            % (cls, label, verdict, lines))


def pair(*outcomes):
    return ('<div class="clinic-pair-box"><div class="clinic-pair">%s</div>'
            '</div>' % "".join(outcomes))


def subtitle(site, ch):
    where = "chapters/" + ch.folder
    return inline(ch.sub, site.md_link(ch.id, where, where + "/README.md"))


def chapter_programs(site, ch):
    """Where the bug is, and the programs in full."""
    bug = excerpt(ch, "broken.cu", "BUG:")
    fix = excerpt(ch, "fixed.cu", "FIX:")
    text = ("\n## \\anchor %s-where-the-bug-is Where the bug is\n\nThe "
            "lines around the `BUG:` comment, numbered as in the full "
            "listings below.\n\n" % ch.id + htmlonly(
                bug + TRY_FIRST % ("Find the fix yourself, then compare it "
                                   "with the same place in <code>fixed.cu"
                                   "</code>.", "fixed.cu") + fix +
                "</details>"))
    text += ("\n## \\anchor %s-the-programs The programs\n\nBoth programs "
             "in full, as the tests build and run them.\n" % ch.id)
    os.makedirs(os.path.join(site.out, "examples", ch.id), exist_ok=True)
    # C, the twins, the variants, the files built into every program
    have = [f for f in PROGRAMS if os.path.exists(os.path.join(ch.dir, f))]
    for f in have + variants(ch.dir) + shared_sources(ch.dir):
        shutil.copy2(os.path.join(ch.dir, f),
                     os.path.join(site.out, "examples", ch.id))
        twin = re.sub(r"(_[a-z]+)?\.py", ".cu", f)
        what = ("The %s twin of `%s`." % (LIBRARY[f], twin)
                if f in LIBRARY else
                "" if f in PROGRAMS else
                "Built into every program of the chapter, beside its own "
                "file." if f in shared_sources(ch.dir) else
                "Another cause of the same symptom, on its own.")
        text += "\n### \\anchor %s-%s %s\n\n%s\n\n\\include{lineno} %s/%s\n" % (
            ch.id, f.replace(".", "-"), f, what, ch.id, f)
    return text


def chapter_diff(site, ch):
    text = "\n## \\anchor %s-the-fix-as-a-diff The fix, as a diff\n\n" % ch.id
    pairs = [(lib, b, f) for lib, b, f in (("C",) + PROGRAMS[:2],) + TWINS
             if all(os.path.isfile(os.path.join(ch.dir, x)) for x in (b, f))]
    text += ("`fixed.cu` against `broken.cu`, made from the two files when "
             "this site was built. Their header comments (`\\file`, `\\brief`)"
             " are left out; the rest is the whole fix. Line numbers are "
             "those of the listings above.\n\n" + htmlonly(TRY_FIRST % (
                 "Fix <code>broken.cu</code> yourself, then compare.",
                 "the diff") + diff_html(site, ch.dir, "broken.cu",
                                         "fixed.cu")))
    for lib, b, f in pairs[1:]:
        text += ("\nThe %s twins, `%s` against `%s` (docstrings left out):"
                 "\n\n" % (lib, f, b) + htmlonly(diff_html(site, ch.dir, b, f)))
    return text + htmlonly("</details>")


def chapter_outputs(site, ch):
    exp = os.path.join(ch.dir, "expected")
    text = ("\n## \\anchor %s-recorded-output Recorded output\n\nRecorded "
            "on a real GPU by the update command (see the main page), and "
            "checked by the chapter's tests on every run: stdout, then stderr"
            " (if any), then how the program ended.\n\n" % ch.id)
    groups = [("", ("broken", "fixed"))] + [
        ("\nThe %s twins:\n\n" % lib, (b, f)) for lib, b, f in TWINS
        if os.path.exists(os.path.join(ch.dir, b))] + [
        ("\n`%s`:\n\n" % v, (v[:-3],)) for v in variants(ch.dir)]
    found = []
    for intro, names in groups:
        records = [(os.path.join(exp, x + ".out"), x) for x in names]
        text += intro + htmlonly(pair(*(outcome_html(*r) for r in records)))
        found += ["%s: %s" % (x, read_text(r)) for r, x in records]
    site.entry("%s.html#%s-recorded-output" % (ch.id, ch.id), ch.title,
               "Recorded output", re.sub(r"\s+", " ", " ".join(found)))
    return text


def chapter_page(site, chapters, idx):
    """A chapter's page, as Markdown, between previous / part / next."""
    ch = chapters[idx]
    prev = ("← Previous: @ref " + chapters[idx - 1].id if idx
            else "← @ref chapters")
    nxt = ("Next: @ref %s →" % chapters[idx + 1].id
           if idx + 1 < len(chapters) else "@ref chapters →")
    nav = ('<div class="clinic-prevnext"><span class="clinic-prev">%s</span>'
           '<span class="clinic-up">Part: [%s](@ref %s)</span><span class='
           '"clinic-next">%s</span></div>\n' % (
               prev, ch.part[:1].upper() + ch.part[1:], part_id(ch.part), nxt))
    head = ('<div class="clinic-subtitle">%s</div>\n\n' % subtitle(site, ch)
            if ch.sub else "")
    # the README, its Part linked, its Fix folded
    readme = re.sub(r"<b>Part: ([^.<]+)\.</b>", lambda m: "<b>Part: [%s]("
                    "@ref %s).</b>" % (m.group(1), part_id(ch.part)),
                    site.markdown(ch.id, ch.title), 1)
    readme = fold(readme, ch.id + "-fix", "Change <code>broken.cu</code> "
                  "until it passes (the Hint above points the way).", "the fix")
    body = (head + nav + "\n" + readme + chapter_programs(site, ch) +
            chapter_diff(site, ch) + chapter_outputs(site, ch) + "\n" + nav)
    return site.page(ch.id, ch.short, body)


def chapter_list(site, chapters, parts):
    """The chapters page and one page per part: {page id: Markdown}."""
    pages, everything = {}, ""
    text = "One bug per chapter, in reading order, grouped by part.\n\n"
    for n, p in enumerate(parts, 1):
        title = "Part %d: %s" % (n, p[:1].upper() + p[1:])
        mine = [ch for ch in chapters if ch.part == p]
        lines = "".join("- @subpage %s%s\n" % (ch.id, " — " + subtitle(
            site, ch) if ch.sub else "") for ch in mine)
        text += '- @subpage %s "%s"\n' % (part_id(p), title) + "".join(
            "  " + x.replace("@subpage", "@ref") + "\n"
            for x in lines.splitlines())
        pages[part_id(p)] = site.page(part_id(p), title, "Part %d of %d of "
                                      "the @ref chapters.\n\n%s" % (
                                          n, len(parts), lines), toc=False)
        words = " ".join(ch.title for ch in mine)
        site.entry(doxygen_file(part_id(p)), title, "", words)
        everything += " %s %s" % (title, words)
    pages["chapters"] = site.page("chapters", "Chapters", text, toc=False)
    site.entry("chapters.html", "Chapters", "", everything.strip())
    return pages


def seeds_programs(site, files):
    """The seeds' programs and their recorded outputs."""
    text = "\n## \\anchor seeds-the-programs The programs\n"
    os.makedirs(os.path.join(site.out, "examples", "seeds"), exist_ok=True)
    for f in files:
        shutil.copy2(os.path.join(site.root, "seeds", f),
                     os.path.join(site.out, "examples", "seeds"))
        out = os.path.join(site.root, "seeds", "expected", f[:-3] + ".out")
        text += ("\n### \\anchor seeds-%s %s\n\n\\include{lineno} seeds/%s\n\n"
                 "Recorded output:\n\n%s" % (gh_slug(f), f, f, htmlonly(
                     pair(outcome_html(out, f)))))
        site.entry("seeds.html#seeds-" + gh_slug(f), "Seeds", f,
                   re.sub(r"\s+", " ", read_text(out)))
    return text


def register(site):
    """Finds the pages. Returns (the ids of the pages the main page lists
    after the chapters, in order; the seeds' programs)."""
    root, docs = site.root, []
    for name in sorted(os.listdir(os.path.join(root, "docs"))):
        if name.endswith(".md"):
            docs.append(re.sub(r"[^a-z0-9]", "", name[:-3].lower()))
            site.add_page(docs[-1], os.path.join(root, "docs", name), "docs")
    docs.sort(key=lambda p: (FIRST_PAGES + (p,)).index(p))
    files = sorted(f for f in os.listdir(os.path.join(root, "seeds"))
                   if f.endswith(".py"))
    for folder in site.chapters:
        d = os.path.join(root, "chapters", folder)
        site.add_page("ch" + folder[:2], os.path.join(d, "README.md"),
                      "chapters/" + folder, [
                          "where-the-bug-is", "the-programs",
                          "the-fix-as-a-diff", "recorded-output"] + [
                          f.replace(".", "-") for f in PROGRAMS +
                          tuple(variants(d) + shared_sources(d))])
    for pid, src in (("index", "README.md"), ("seeds", "seeds/README.md"),
                     ("bench", "bench/README.md"),
                     ("contributing", "CONTRIBUTING.md")):
        site.add_page(pid, os.path.join(root, src), os.path.dirname(src),
                      ["the-programs"] + [gh_slug(f) for f in files]
                      if pid == "seeds" else [])
    return docs + ["seeds", "bench", "contributing"], files


def make_site(site):
    """Writes the pages, the examples, the images and the search index."""
    for sub in ("pages", "examples", "images", "extra"):
        shutil.rmtree(os.path.join(site.out, sub), ignore_errors=True)
        os.makedirs(os.path.join(site.out, sub))
    docs, seed_files = register(site)
    chapters = [Chapter(site, folder) for folder in site.chapters]
    parts = list(dict.fromkeys(ch.part for ch in chapters))  # reading order
    for p in parts:
        site.pages[part_id(p)] = ("", "")
    pages = {ch.id: chapter_page(site, chapters, idx)
             for idx, ch in enumerate(chapters)}
    pages.update(chapter_list(site, chapters, parts))
    for pid in docs:
        extra = seeds_programs(site, seed_files) if pid == "seeds" else ""
        pages[pid] = site.page(pid, site.titles[pid], site.markdown(pid) +
                               extra, toc=len(site.anchors[pid]) >= 4)
    # the main page: the README, then the list of the site's pages
    text = "\n## \\anchor index-on-this-site On this site\n\n" + "".join(
        "- @subpage %s\n" % p for p in ["chapters"] + docs)
    pages["mainpage"] = site.page("index", site.titles["index"], site.markdown(
        "index") + text, toc=False)
    for pid, text in pages.items():
        write(os.path.join(site.out, "pages", pid + ".md"), text)
    comments = re.findall(r"/\*.*?\*/", read_text(os.path.join(
        site.root, "common", "check_cuda.h")), re.S)
    site.entry("check__cuda_8h.html", "check_cuda.h", "",
               "check_cuda check_launch require_gpu_or_skip check_ints " +
               re.sub(r"[/*\\;\s]+", " ", " ".join(comments)))
    write(os.path.join(site.out, "extra", "clinic-search-index.js"),
          "/* Generated by make_pages.py: the text of every section. */\n"
          "window.CLINIC_SEARCH_INDEX = %s;\n" % json.dumps(
              site.search, ensure_ascii=False, indent=0).replace("</", "<\\/"))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", required=True, help="the repository")
    ap.add_argument("--chapters", default="", help="chapter folders, a,b,...")
    ap.add_argument("--out", required=True, help="where the pages go")
    ap.add_argument("--diff", default="diff", help="the diff program")
    ap.add_argument("--plots", default="", help="the copy lab's plots")
    args = ap.parse_args(argv)
    try:
        make_site(Site(os.path.abspath(args.root), os.path.abspath(args.out),
                       [c for c in args.chapters.split(",") if c], args.diff,
                       args.plots))
    except BuildError as e:
        print("make_pages.py: error: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
