#!/usr/bin/env python3
"""make_pages.py -- turn the repository's Markdown into Doxygen pages, \
at build time.

    make_pages.py --root <repo> --chapters <a,b,...> --out <dir>
                  [--diff diff] [--plots <dir with the bench plots>]
                  [--depfile <file> --stamp <file>]

Pages it writes under OUT/pages (one Doxygen page each, id in braces):
  mainpage.md          README.md {index}: "Start here", then the README, then
                       the list of the site's pages
  chapters.md          the chapters grouped by part {chapters}
  part-<slug>.md       one per part, listing its chapters {part-<slug>}
  chNN.md              a chapter's README (its Fix section folded behind
                       "try it first"), the BUG/FIX neighbourhood, its programs
                       (C and PyCUDA), the coloured diff of the fix and the
                       recorded outputs {chNN}
  outcomes.md          every chapter's recorded broken and fixed outcome
                       {outcomes}
  <name>.md            each docs/<name>.md {<name>}
  seeds.md, bench.md, contributing.md   when seeds/README.md, bench/README.md,
                       CONTRIBUTING.md exist
and OUT/examples (copies of the programs for \\include), OUT/images (the
pictures the pages show) and OUT/extra/clinic-search-index.js (the text of
every section, for the site's full-text search).

Section anchors. Every heading of every page gets a stable anchor
<page>-<slug> (a Doxygen \\anchor, so it is also the HTML id), where <slug> is
the anchor GitHub gives the same heading: lower case; everything but ASCII
letters, digits, spaces, '-' and '_' dropped; spaces become '-'; a repeated
heading gets -1, -2, ... So the link
  [..](../chapters/12-grid-too-small/README.md#symptom)
works on GitHub and becomes [..](@ref ch12-symptom) here
(ch12.html#ch12-symptom).
A link to a heading that does not exist stops the build with a message listing
the page's anchors; a link to a repository file that is not on the site is
shown as its text.

Markdown that Doxygen 1.9.4 renders differently from GitHub is rewritten:
titles become plain text; **bold** becomes <b>; "file:" gets a % so it is no
URL; code spans with ' or " or on two lines are written so Doxygen keeps them
code (see code_span).

With --depfile, it also writes a Makefile-style dependency file naming every
file and folder it read, so the build re-runs it only when one of them changes.
"""

import argparse
import html
import os
import posixpath
import re
import shutil
import subprocess
import sys
import tempfile

# The parts of the clinic, in reading order (the README's **Part: <part>.**).
PART_NAMES = [
    "allocation",
    "pointers",
    "synchronization",
    "launch configuration",
    "structs",
    "streams and pinned memory",
    "staging of kernel-allocated memory",
    "silent device bugs",
    "the Python boundary",
    "several GPUs and managed memory",
]
MARK = "\x05"  # marks a masked code span
WHITESPACE = (
    " \t\n\r\f\v"  # what CMake's string(STRIP) removed; not Unicode spaces
)


# A chapter's program or twin: chapters/NN-slug/broken.cu, fixed_cupy.py...
# broken/fixed .cu and their twins, or a variant's .cu (see variants())
PROGRAM_PATH = (r"chapters/([0-9][0-9])-[^/]+/(broken|fixed|[a-z0-9_]+(?=\.cu))"
                r"(_cupy)?\.(cu|py)\Z")


class BuildError(Exception):
    """A mistake in the pages (a link to a heading that does not exist, ...)."""


# ---------------------------------------------------------------------------
# Text helpers.


def ascii_lower(text):
    """Lower case for ASCII letters only (as GitHub's anchors and CMake do)."""
    return re.sub(r"[A-Z]", lambda m: m.group(0).lower(), text)


def html_escape(text):
    """Escapes text for HTML inside a Doxygen page ('*' too: "*/" would end a
    comment)."""
    for a, b in (
        ("&", "&amp;"),
        ("<", "&lt;"),
        (">", "&gt;"),
        ('"', "&quot;"),
        ("*", "&#42;"),
    ):
        text = text.replace(a, b)
    return text


def plain_text(text):
    """The plain text of Markdown (for titles and the search index)."""
    text = re.sub(r"\{#[^}]*\}", "", text)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"<[/a-zA-Z][^>]*>", "", text)
    text = re.sub(r"[`*]", "", text)
    text = re.sub(r"\\([_*#])", r"\1", text)
    text = re.sub(r"[ \t]+", " ", text)
    return text.strip(WHITESPACE)


def reader_inline(text, titles):
    """One line of Markdown or Doxygen source (not in a code block) as the
    reader sees it: link text only, no commands, tags or emphasis; code spans
    kept as they are shown."""
    spans = []

    def keep(m):
        spans.append(re.sub(r"[ \t]+", " ", m.group(2).strip(" \t")))
        return "%s%d%s" % (MARK, len(spans) - 1, MARK)

    text = re.sub(r"(`+)(.+?)\1", keep, text)
    # Doxygen's references show the quoted text, else the page's title.
    text = re.sub(
        r"[@\\](?:ref|subpage)[ \t]+([A-Za-z0-9_.-]*[A-Za-z0-9_])"
        r'(?:[ \t]+"([^"]*)")?',
        lambda m: m.group(2)
        if m.group(2) is not None
        else titles.get(m.group(1), ""),
        text,
    )
    text = re.sub(r"[@\\]anchor[ \t]+\S+", "", text)
    text = re.sub(
        r"[@\\](?:htmlonly|endhtmlonly|include(?:\{[^}]*\})?[ \t]+\S+)",
        "",
        text,
    )
    text = re.sub(r"\{#[^}]*\}", "", text)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"<((?:https?|mailto):[^>\s]+)>", r"\1", text)
    text = re.sub(r"</?[a-zA-Z][^>]*>", "", text)
    text = re.sub(r"(\A|\|)[ \t]*#[ \t]*(?=\|)", r"\1", text)  # "# |"
    text = re.sub(r"[|]+[ :|-]*", " ", text)
    text = re.sub(r"\\([\\_*#@<>&`|\[\]])", r"\1", text)
    text = html.unescape(re.sub(r"[*`]+", "", text))
    return re.sub(
        MARK + r"([0-9]+)" + MARK, lambda m: spans[int(m.group(1))], text
    )


def index_text(text, titles=None):
    """The text of Markdown or Doxygen source as the reader sees it, on one
    line, for the search index: no heading marks, list or quote marks,
    Doxygen commands, link targets, tags or emphasis; code blocks kept as
    they are, their fences left out."""
    titles = titles or {}
    out, fence = [], False
    for line in text.split("\n"):
        if is_fence(line):
            fence = not fence
            continue
        if fence:
            out.append(line)
            continue
        line = line.strip(WHITESPACE)
        if re.match(r"([-*_][ \t]*){3,}\Z", line):
            continue  # a rule
        line = re.sub(r"\A(>[ \t]?)+", "", line)
        if re.match(r"#{1,6}([ \t]|\Z)", line):
            line = re.sub(r"[ \t]+#+\Z", "", line.lstrip("#"))
        line = re.sub(r"\A(?:[-*+]|[0-9]+[.)])[ \t]+", "", line)
        out.append(reader_inline(line, titles))
    text = " ".join(out)
    return re.sub(r"[ \t\r\n\f\v]+", " ", text).strip(WHITESPACE)


def doxygen_title(text):
    """A title as Doxygen must get it: plain text (it shows titles verbatim in
    the navigation tree and the window title), with '_' escaped so that
    __device__ is not read as bold."""
    return plain_text(text).replace("_", "\\_").replace("<", "&lt;")


def strip_anchor_id(text):
    """A heading without its trailing {#id}."""
    return re.sub(r"[ ]*\{#[^}]*\}[ ]*\Z", "", text)


def gh_slug(text):
    """The anchor GitHub gives a heading (ASCII headings)."""
    t = strip_anchor_id(text)
    t = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", t)
    t = re.sub(r"<[/a-zA-Z][^>]*>", "", t)
    t = ascii_lower(t.strip(WHITESPACE))
    t = re.sub(r"[^a-z0-9 _-]", "", t).replace(" ", "-")
    return t or "section"


def unique_slug(slug, taken):
    """slug, or slug-1, slug-2, ... whichever is not in taken yet."""
    s, k = slug, 0
    while s in taken:
        k += 1
        s = "%s-%d" % (slug, k)
    return s


def doxygen_file(name):
    """The file Doxygen writes for a page or file name."""
    return name.replace("_", "__").replace(".", "_8") + ".html"


def json_string(text):
    """A JavaScript string literal (UTF-8 kept as it is; "</" can't end the
    script)."""
    text = text.replace("\\", "\\\\").replace('"', '\\"')
    text = re.sub(r"[\t\r\n]+", " ", text)
    return '"' + text.replace("</", "<\\/") + '"'


def cut_utf8(text, limit):
    """text cut to at most limit bytes of UTF-8, never inside a character."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    return data[:limit].decode("utf-8", "ignore")


def read_text(path):
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def read_lines(path):
    """The lines of a text file (no line ends; no empty last line)."""
    t = read_text(path).replace("\r", "")
    if t.endswith("\n"):
        t = t[:-1]
    return t.split("\n") if t else []


def heading_match(line):
    """(hashes, text) of a Markdown heading line, or None."""
    m = re.match(r"(#+)[ ]+(.*[^ ])[ ]*\Z", line)
    return (m.group(1), m.group(2)) if m else None


def is_fence(line):
    return re.match(r"[ ]*(```|~~~)", line) is not None


def heading_anchors(lines):
    """The GitHub anchors of a page's headings, outside fenced code; the first
    level-1 heading is the page's title and has none."""
    slugs, fence, first = [], False, True
    for line in lines:
        if is_fence(line):
            fence = not fence
            continue
        if fence:
            continue
        if first and line.startswith("# "):
            first = False
            continue
        h = heading_match(line)
        if h:
            slugs.append(unique_slug(gh_slug(h[1]), slugs))
    return slugs


def read_title(path):
    """The title (first line "# ...") of a Markdown file, or ""."""
    if not os.path.isfile(path):
        return ""
    with open(path, "rb") as f:
        first = f.read(4000).decode("utf-8", "ignore")
    m = re.match(r"\n*# +([^\n]*[^ \n])[ ]*\n", first)
    return re.sub(r"[ ]*\{#[^}]*\}\Z", "", m.group(1)) if m else ""


# ---------------------------------------------------------------------------
# Inline Markdown: code spans, bold, "file:".


def fix_file_urls(text):
    """'file:' gets a % so that Doxygen does not take "file:line:" for a URL.
    Each search starts where the last match ended, as if the text began there
    (as CMake's string(REGEX REPLACE) did): "file:afile:b" gets two."""
    pattern = re.compile(r"(^|[^A-Za-z0-9_%/.-])file:([^/])")
    out, rest = [], text
    while True:
        m = pattern.search(rest)
        if not m:
            break
        out.append(rest[: m.start()] + m.group(1) + "%file:" + m.group(2))
        rest = rest[m.end() :]
    return "".join(out) + rest


def code_span(code):
    """A code span (the text between the backticks) written so that Doxygen
    1.9.4 keeps it code."""
    # Doxygen 1.9.4 does not close a code span on a later line: join them.
    code = re.sub(r"[ \t]*\n[ \t]*", " ", code)
    quotes = code.count('"')
    if quotes and (quotes % 2 or re.search(r"[\\<>&@#$%]", code)):
        # Inside "..." in a code span Doxygen 1.9.4 stops escaping (and an odd
        # number of quotes swallows the end of the span): write the span as
        # HTML with every special character escaped instead.
        code = code.replace("\\", "\\\\")
        for c in '"@#$%*_':
            code = code.replace(c, "\\" + c)
        code = (
            code.replace("&", "&amp;")
            .replace("<", "&lt;")
            .replace(">", "&gt;")
        )
        return "<code>" + fix_file_urls(code) + "</code>"
    if "'" in code:
        # Doxygen reads `text' as LaTeX-style quotes; ``text`` is always code.
        return "``" + fix_file_urls(code) + "``"
    return "`" + fix_file_urls(code) + "`"


def mask_code(text):
    """(text with each code span replaced by a marker, the spans as Doxygen
    must get them)."""
    spans, masked, rest = [], [], text
    while True:
        a = rest.find("`")
        if a < 0:
            break
        b = rest.find("`", a + 1)
        if b < 0:
            break
        masked.append(rest[:a] + MARK + str(len(spans)) + MARK)
        spans.append(code_span(rest[a + 1 : b]))
        rest = rest[b + 1 :]
    return "".join(masked) + rest, spans


def unmask(text, spans):
    for i, span in enumerate(spans):
        text = text.replace(MARK + str(i) + MARK, span)
    return text


def bold_to_html(text):
    """**bold** becomes <b>bold</b>, across the lines of a paragraph: Doxygen
    1.9.4 leaves ** next to a code span as text."""
    masked, spans = mask_code(text)
    masked = re.sub(r"\*\*([^* \t\n][^*]*)\*\*", r"<b>\1</b>", masked)
    return unmask(masked, spans)


# ---------------------------------------------------------------------------
# The site: its pages, their anchors, the search index.


class Site:
    """Everything the pages share: where things are and what was found."""

    def __init__(self, root, out, chapters, diff="diff", plots=""):
        self.root, self.out, self.diff, self.plots = root, out, diff, plots
        self.chapters = [c for c in chapters if re.match(r"[0-9][0-9]-", c)]
        self.pages = (
            {}
        )  # id -> (source file, repository folder links are relative to)
        self.anchors = {}  # id -> the anchors of its headings
        self.gen_anchors = (
            {}
        )  # (id, section) -> anchor of a section make_pages adds
        self.doc_ids = {}  # docs/<name>.md -> id
        self.toc = {}  # id -> the <li> items of its table of contents
        self.search = []  # the search index's entries (JavaScript lines)
        self.titles = {}  # id -> the title a reference to it shows
        self.read = set()  # every file and folder read, for the depfile
        self.messages = []

    def note(self, msg):
        self.messages.append(msg)
        print("-- docs: " + msg)

    def add_page(self, pid, src, folder):
        self.pages[pid] = (src, folder)

    def add_anchors(self, pid, sections):
        """Anchors for the sections make_pages adds to a page."""
        a = self.anchors.setdefault(pid, [])
        for s in sections:
            t = unique_slug(s, a)
            a.append(t)
            self.gen_anchors[(pid, s)] = t

    def gen_anchor(self, pid, section):
        return "%s-%s" % (pid, self.gen_anchors.get((pid, section), ""))

    def exists(self, path):
        self.read.add(os.path.dirname(path) or ".")
        if os.path.exists(path):
            self.read.add(path)
            return True
        return False

    def read_file(self, path):
        self.read.add(path)
        return read_text(path)

    def add_search_entry(self, url, title, section, text, verbatim=False):
        """An entry of the search index: text is Markdown or Doxygen source
        (shown as the reader sees it), or, verbatim, a program's output."""
        if verbatim:
            text = re.sub(r"[ \t\r\n\f\v]+", " ", text).strip(WHITESPACE)
        else:
            text = index_text(text, self.titles)
        self.search.append(
            '{"u":%s,"t":%s,"s":%s,"x":%s},\n'
            % (
                json_string(url),
                json_string(title),
                json_string(section),
                json_string(cut_utf8(text, 6000)),
            )
        )

    def heading(self, pid, hashes, anchor, text):
        """A heading with a stable anchor. (A heading with a Doxygen id, {#id},
        would also appear in the navigation tree, under its page; \\anchor does
        not.) Level-2 headings go into the page's table of contents."""
        if hashes == "##":
            self.toc[pid] = self.toc.get(
                pid, ""
            ) + '<li class="level1"><a href="#%s">%s</a></li>' % (
                anchor,
                html_escape(plain_text(text)),
            )
        return "%s \\anchor %s %s\n" % (hashes, anchor, text)

    def toc_html(self, pid):
        return (
            '\\htmlonly[block]\n<div class="toc clinic-toc">'
            "<h3>Table of Contents</h3><ul>%s"
            "</ul></div>\n\\endhtmlonly\n" % self.toc.get(pid, "")
        )

    # ---- links --------------------------------------------------------------
    def page_target(self, pid, frag, origin):
        """ "@ref <page>" or "@ref <page>-<anchor>"; a missing anchor is an
        error."""
        if not frag:
            return "@ref " + pid
        frag = ascii_lower(frag)
        if frag not in self.anchors.get(pid, []):
            raise BuildError(
                "%s: a link points at #%s in page '%s', "
                "which has no such heading. "
                "Its headings' anchors are: %s"
                % (origin, frag, pid, ", ".join(self.anchors.get(pid, [])))
            )
        return "@ref %s-%s" % (pid, frag)

    def resolve_link(self, target, self_id, folder, origin):
        """A GitHub-style relative link as a link between the site's pages:
        "@ref <target>", or "" where the target is not on the site (the link
        is then shown as its text)."""
        if re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith(
            "@ref "
        ):
            return target
        path, _, frag = target.partition("#")
        if path == "":
            return self.page_target(self_id, frag, origin)
        p = repo_path(folder, path).rstrip("/")
        pid = ""
        m = re.match(r"chapters/([0-9][0-9])-[^/]+(/README\.md)?\Z", p)
        if m:
            pid = "ch" + m.group(1)
        elif re.match(PROGRAM_PATH, p):
            m = re.match(PROGRAM_PATH, p)
            pid = "ch" + m.group(1)
            frag = (
                self.gen_anchors.get(
                    (pid, "%s%s-%s" % (m.group(2), m.group(3) or "",
                                       m.group(4)))
                )
                or frag
            )
        elif re.match(r"chapters/([0-9][0-9])-[^/]+/expected(/.*)?\Z", p):
            pid = "ch" + p[9:11]
            frag = self.gen_anchors.get((pid, "recorded-output"), "")
        elif re.match(r"docs/([^/]+)\.md\Z", p):
            pid = self.doc_ids.get(p[5:-3], "")
        elif p in ("", ".", "README.md"):
            pid = "index"
        elif re.match(r"(seeds|bench)(/README\.md)?\Z", p):
            pid = p.split("/")[0]
        elif re.match(r"seeds/([^/]+\.py)\Z", p):
            pid = "seeds"
            frag = self.gen_anchors.get(("seeds", gh_slug(p[6:])), "")
        elif p == "CONTRIBUTING.md":
            pid = "contributing"
        elif p == "common/check_cuda.h":
            return "@ref check_cuda.h"
        if not pid or pid not in self.pages:
            if re.match(r"chapters/[0-9][0-9]-", p) and not os.path.exists(
                os.path.join(self.root, p)
            ):
                raise BuildError(
                    "%s: a link points at %s, which does not exist"
                    % (origin, target)
                )
            self.note(
                "%s: the link to %s is not on the site; shown as text"
                % (origin, target)
            )
            return ""
        return self.page_target(pid, frag, origin)

    def resolve_image(self, target, folder):
        """An image, copied into OUT/images where Doxygen's IMAGE_PATH finds it:
        its name there, or "" where it does not exist."""
        if re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:", target):
            return target
        p = repo_path(folder, target)
        name = posixpath.basename(p)
        found = ""
        if os.path.isfile(os.path.join(self.root, p)):
            found = os.path.join(self.root, p)
        elif self.plots and os.path.exists(os.path.join(self.plots, name)):
            found = os.path.join(self.plots, name)
        if not found:
            return ""
        self.read.add(found)
        shutil.copy2(found, os.path.join(self.out, "images"))
        return name

    def transform_line(self, line, self_id, folder, origin):
        """A line of Markdown with its links and images made the site's."""
        masked, spans = mask_code(line)
        masked = fix_file_urls(masked)
        out, rest = [], masked
        link = re.compile(r"(!?)\[([^\]]*)\]\(([^) ]*)\)")
        while True:
            m = link.search(rest)
            if not m:
                break
            out.append(rest[: m.start()])
            rest = rest[m.end() :]
            bang, text, target = m.groups()
            # A '<' that starts no tag would end Doxygen's link text early.
            text = re.sub(r"<(?![A-Za-z/!])", "&lt;", text)
            if bang:
                r = self.resolve_image(target, folder)
                if r:
                    out.append("![%s](%s)" % (text, r))
                else:
                    out.append(
                        "*(picture not available yet: %s; "
                        "build the bench_plots target)*" % text
                    )
                    self.note(
                        "%s: image %s not found; the page says so"
                        % (origin, target)
                    )
            else:
                r = self.resolve_link(target, self_id, folder, origin)
                out.append("[%s](%s)" % (text, r) if r else text)
        out.append(rest)
        return unmask("".join(out), spans)


def repo_path(folder, target):
    """The repository path of a link target written in a page whose folder is
    folder (relative to the repository root; "" for the root)."""
    p = target if folder == "" else folder + "/" + target
    return posixpath.normpath(p) if p else ""


# ---------------------------------------------------------------------------
# Pages from Markdown.


def transform_page(site, self_id, page_title):
    """A page's Markdown as Doxygen must get it: (body, title, number of
    level-2 headings). Headings get their anchors, links are rewritten,
    **bold** becomes <b>, and the plain text of each section goes into the
    search index under page_title."""
    src, folder = site.pages[self_id]
    origin = os.path.relpath(src, site.root)
    lines = read_lines(src)
    site.read.add(src)
    url = "index.html" if self_id == "index" else doxygen_file(self_id)
    body, para = [], []
    title, fence, slugs, h2 = "", False, [], 0
    sec_url, sec_title, sec_text = url, "", []

    def flush_para():
        if para:
            body.append(bold_to_html("".join(para)))
            para.clear()

    for line in lines:
        if is_fence(line):
            flush_para()
            fence = not fence
            body.append(line + "\n")
            sec_text.append(line + "\n")
            continue
        if fence:
            body.append(line + "\n")
            sec_text.append(line + "\n")
            continue
        if title == "":
            m = re.match(r"# +(.*[^ ])[ ]*\Z", line)
            if m:
                title = re.sub(r"[ ]*\{#[^}]*\}\Z", "", m.group(1))
                continue
        h = heading_match(line)
        if h:
            flush_para()
            hashes, text = h
            s = unique_slug(gh_slug(text), slugs)
            slugs.append(s)
            m = re.search(r"\{#([^}]*)\}[ ]*\Z", text)
            if m:
                anchor = m.group(1)
                text = strip_anchor_id(text)
            else:
                anchor = "%s-%s" % (self_id, s)
            if hashes == "##":
                h2 += 1
            site.add_search_entry(
                sec_url, page_title, sec_title, "".join(sec_text)
            )
            sec_url, sec_title, sec_text = (
                "%s#%s" % (url, anchor),
                plain_text(text),
                [],
            )
            text = bold_to_html(
                site.transform_line(text, self_id, folder, origin)
            )
            body.append(site.heading(self_id, hashes, anchor, text))
            continue
        sec_text.append(line + "\n")
        line = site.transform_line(line, self_id, folder, origin)
        para.append(line + "\n")
        if re.match(r"[ \t]*\Z", line):
            flush_para()
    flush_para()
    site.add_search_entry(sec_url, page_title, sec_title, "".join(sec_text))
    return "".join(body), title, h2


# ---------------------------------------------------------------------------
# Programs, diffs and recorded outputs.


def strip_header(text, is_python):
    """(text without its leading header comment (/** ... */ in C,
    \"\"\"...\"\"\" in Python), the number of lines left out): the diff of two
    such files is the fix and nothing else."""
    close_at = -1
    if is_python:
        m = re.match(r"[ \t\n]*(\"\"\"|''')", text)
        if m:
            c = text.find(m.group(1), m.end())
            if c >= 0:
                close_at = c + 3
    elif re.match(r"[ \t\n]*/\*", text):
        c = text.find("*/")
        if c >= 0:
            close_at = c + 2
    if close_at < 0:
        return text, 0
    header, rest = text[:close_at], text[close_at:]
    nl = rest.find("\n")  # the rest of the comment's last line goes too
    return ("" if nl < 0 else rest[nl + 1 :]), header.count("\n") + 1


def diff_lines_html(diff_text, skipped_a, skipped_b):
    """The output of diff -u as coloured HTML; hunk line numbers shifted by the
    header lines left out, so that they are those of the whole files."""
    if diff_text.endswith("\n"):
        diff_text = diff_text[:-1]
    html = ['<div class="fragment clinic-diff">']
    for line in diff_text.split("\n") if diff_text else []:
        cls = ""
        m = re.match(
            r"@@ -([0-9]+)(,[0-9]+)? \+([0-9]+)(,[0-9]+)? @@(.*)\Z", line, re.S
        )
        if m:
            line = "@@ -%d%s +%d%s @@%s" % (
                int(m.group(1)) + skipped_a,
                m.group(2) or "",
                int(m.group(3)) + skipped_b,
                m.group(4) or "",
                m.group(5),
            )
            cls = " hunk"
        elif re.match(r"(---|\+\+\+) ", line):
            cls = " file"
        elif line.startswith("+"):
            cls = " add"
        elif line.startswith("-"):
            cls = " del"
        html.append('<div class="line%s">%s</div>' % (cls, html_escape(line)))
    return "".join(html) + "</div>"


def diff_html(site, folder, a, b):
    """The coloured diff of two files of folder, without their header
    comments."""
    with tempfile.TemporaryDirectory() as work:
        skipped = []
        for side, name in (("a", a), ("b", b)):
            text, n = strip_header(
                site.read_file(os.path.join(folder, name)),
                name.endswith(".py"),
            )
            os.makedirs(os.path.join(work, side))
            with open(
                os.path.join(work, side, name),
                "w",
                encoding="utf-8",
                newline="",
            ) as f:
                f.write(text)
            skipped.append(n)
        run = subprocess.run(
            [site.diff, "-u", "--label", a, "--label", b, "a/" + a, "b/" + b],
            cwd=work,
            stdout=subprocess.PIPE,
        )
    if run.returncode == 0:
        return (
            "<p>The two files are the same, "
            "apart from their header comments.</p>"
        )
    if run.returncode != 1:
        raise BuildError(
            "diff of %s/%s and %s failed (exit %d)"
            % (folder, a, b, run.returncode)
        )
    return diff_lines_html(
        run.stdout.decode("utf-8", "replace"), skipped[0], skipped[1]
    )


def outcome_verdict(transcript):
    """(what the last line of a recorded output says about how the program
    ended, its CSS class)."""
    m = re.search(r"\[exit status: ([0-9]+)\]\Z", transcript)
    if m:
        code = int(m.group(1))
        return {
            0: ("exit 0: the results were right", "clinic-ok"),
            1: ("exit 1: wrong results", "clinic-bad"),
            2: ("exit 2: a CUDA call failed", "clinic-bad"),
            77: ("exit 77: skipped", "clinic-other"),
        }.get(code, ("exit %d" % code, "clinic-bad"))
    if re.search(r"\[compilation failed\]\Z", transcript):
        return "does not compile: nvcc's diagnostic", "clinic-bad"
    return "recorded", "clinic-other"


def outcome_html(site, path, label):
    """A recorded output as HTML: a heading that says how the program ended,
    then the transcript."""
    if not site.exists(path):
        return (
            '<div class="clinic-out clinic-none">'
            '<div class="clinic-out-head"><code>%s</code>'
            '</div><p class="clinic-missing">not recorded yet</p></div>'
            % label
        )
    t = site.read_file(path)
    if t.endswith("\n"):
        t = t[:-1]
    verdict, cls = outcome_verdict(t)
    lines = "".join(
        '<div class="line">%s</div>' % html_escape(line)
        for line in (t.split("\n") if t else [])
    )
    return (
        '<div class="clinic-out %s">'
        '<div class="clinic-out-head"><code>%s</code>: %s</div>'
        '<div class="fragment">%s</div></div>' % (cls, label, verdict, lines)
    )


def outcome_text(site, path):
    return site.read_file(path) if site.exists(path) else ""


def pair_html(left, right, single=False):
    if single:
        return (
            '<div class="clinic-pair-box">'
            '<div class="clinic-pair clinic-single">%s</div></div>' % left
        )
    return (
        '<div class="clinic-pair-box"><div class="clinic-pair">%s%s</div></div>'
        % (left, right)
    )


def htmlonly(html):
    return "\\htmlonly[block]\n%s\n\\endhtmlonly\n" % html


# ---------------------------------------------------------------------------
# The lines around a BUG: or FIX: comment, and sections folded until asked for.


def marker_ranges(lines, marker, start=0, before=2, after=3):
    """The 0-based (first, last) line ranges around each comment of lines that
    holds marker ("BUG:" or "FIX:"): the whole comment, `before` lines above it
    and `after` lines below it, without blank lines at either end; ranges that
    touch are merged. Lines before start (the header comment) are not searched.
    """
    ranges = []
    for i, line in enumerate(lines):
        if i < start or marker not in line:
            continue
        end = i
        if "/*" in line and "*/" not in line[line.index("/*") :]:
            while end + 1 < len(lines) and "*/" not in lines[end]:
                end += 1
        else:
            while (
                end + 1 < len(lines)
                and lines[end + 1].strip().startswith("//")
                and marker in line
            ):
                end += 1
        first, last = max(start, i - before), min(len(lines) - 1, end + after)
        while first < i and not lines[first].strip():
            first += 1
        while last > end and not lines[last].strip():
            last -= 1
        if ranges and first <= ranges[-1][1] + 2:
            ranges[-1] = (ranges[-1][0], max(last, ranges[-1][1]))
        else:
            ranges.append((first, last))
    return ranges


def excerpt_html(lines, ranges, marker):
    """The lines of ranges as a listing with the file's line numbers; the
    marker's comment stands out."""
    out = ['<div class="fragment clinic-excerpt">']
    for k, (first, last) in enumerate(ranges):
        if k:
            out.append('<div class="line clinic-gap">⋮</div>')
        in_comment = False
        for n in range(first, last + 1):
            line = lines[n]
            starts = marker in line
            cls = " clinic-marker" if starts or in_comment else ""
            if (
                starts
                and "/*" in line
                and "*/" not in line[line.index("/*") :]
            ):
                in_comment = True
            elif in_comment and "*/" in line:
                in_comment = False
                cls = " clinic-marker"
            out.append(
                '<div class="line%s"><span class="lineno">%d</span>%s</div>'
                % (cls, n + 1, html_escape(line))
            )
    return "".join(out) + "</div>"


TRY_FIRST = (
    '<details class="clinic-try"><summary>'
    '<span class="clinic-try-title">Try it first.</span> '
    '%s <span class="clinic-try-open">Show %s</span></summary>\n'
)


def fold_section(body, anchor, summary, what):
    """body with the text of the section whose heading has anchor folded in a
    "try it first" <details>; the heading stays, and so do later sections."""
    lines = body.split("\n")
    start = next(
        (
            i
            for i, l in enumerate(lines)
            if re.match(r"#+ \\anchor %s " % re.escape(anchor), l)
        ),
        None,
    )
    if start is None:
        return body
    level = len(lines[start]) - len(lines[start].lstrip("#"))
    end, fence = len(lines), False
    for i in range(start + 1, len(lines)):
        if is_fence(lines[i]):
            fence = not fence
        h = None if fence else re.match(r"(#+) ", lines[i])
        if h and len(h.group(1)) <= level:
            end = i
            break
    while end - 1 > start and not lines[end - 1].strip():
        end -= 1
    inner = "\n".join(lines[start + 1 : end]).strip("\n")
    folded = (
        "\\htmlonly[block]\n"
        + TRY_FIRST % (summary, what)
        + "\\endhtmlonly\n\n"
        + inner
        + "\n\n\\htmlonly[block]\n</details>\n\\endhtmlonly"
    )
    return "\n".join(lines[: start + 1] + [folded] + lines[end:])


def neighbourhood_html(site, folder):
    """The lines around the BUG: comment of broken.cu, and, folded, those
    around the FIX: comments of fixed.cu; "" where there are none."""
    parts = []
    for name, marker in (("broken.cu", "BUG:"), ("fixed.cu", "FIX:")):
        path = os.path.join(folder, name)
        if not os.path.isfile(path):
            return ""
        text = site.read_file(path)
        lines = text.split("\n")
        ranges = marker_ranges(
            lines, marker, start=strip_header(text, False)[1]
        )
        if not ranges:
            return ""
        where = ", ".join("%d–%d" % (a + 1, b + 1) for a, b in ranges)
        parts.append(
            '<p class="clinic-excerpt-head"><code>%s</code>, lines %s:</p>%s'
            % (name, where, excerpt_html(lines, ranges, marker))
        )
    return (
        parts[0]
        + TRY_FIRST
        % (
            "Find the fix yourself, then compare it with the same place in "
            "<code>fixed.cu</code>.",
            "fixed.cu",
        )
        + parts[1]
        + "</details>"
    )


# ---------------------------------------------------------------------------
# Chapters.


def chapter_titles(full, folder):
    """(short title for the navigation tree, subtitle) of a chapter whose
    README's title is full ("NN · Short: the rest")."""
    if not full:
        full = "%s · %s" % (folder[:2], folder[3:].replace("-", " "))
    m = re.match(r"([^:]+): (.+)\Z", full, re.S)
    return (m.group(1), m.group(2)) if m else (full, "")


def chapter_part(readme_text):
    """The part a chapter belongs to (its README's **Part: <part>.**)."""
    m = re.search(r"\*\*Part: ([^*.]+)\.\*\*", readme_text)
    part = ascii_lower(m.group(1)).strip(WHITESPACE) if m else ""
    for known in PART_NAMES:  # the known spelling: "the Python boundary"
        if ascii_lower(known) == part:
            return known
    return part or "not sorted yet"


def order_parts(chapter_parts):
    """The parts that have chapters: the known ones in reading order, then the
    others in chapter order."""
    parts = [p for p in PART_NAMES if p in chapter_parts]
    for p in chapter_parts:
        if p not in parts:
            parts.append(p)
    return parts


def part_id(part):
    return "part-" + re.sub(r"[^a-z0-9]+", "-", ascii_lower(part))


def part_title(part):
    return part[:1].upper() + part[1:]


def prev_next_html(ids, idx, part):
    """The previous / part / next bar of the chapter ids[idx]."""
    nav = '<div class="clinic-prevnext">'
    if idx > 0:
        nav += (
            '<span class="clinic-prev">← Previous: @ref %s</span>'
            % ids[idx - 1]
        )
    else:
        nav += '<span class="clinic-prev">← @ref chapters</span>'
    nav += '<span class="clinic-up">Part: [%s](@ref %s)</span>' % (
        part_title(part),
        part_id(part),
    )
    if idx + 1 < len(ids):
        nav += (
            '<span class="clinic-next">Next: @ref %s →</span>' % ids[idx + 1]
        )
    else:
        nav += '<span class="clinic-next">@ref outcomes →</span>'
    return nav + "</div>"


class Chapter:
    """One chapter folder: its ids, titles and part."""

    def __init__(self, site, folder):
        self.folder = folder
        self.id = "ch" + folder[:2]
        self.dir = os.path.join(site.root, "chapters", folder)
        self.readme = os.path.join(self.dir, "README.md")
        self.full = read_title(self.readme) if site.exists(self.readme) else ""
        self.short, self.sub = chapter_titles(self.full, folder)
        self.part = chapter_part(
            site.read_file(self.readme) if os.path.isfile(self.readme) else ""
        )

    def subtitle_md(self, site):
        """The subtitle as Markdown, with its links made safe."""
        if not self.sub:
            return ""
        where = "chapters/" + self.folder
        return site.transform_line(
            self.sub, self.id, where, where + "/README.md"
        )

    def title_plain(self):
        t = plain_text(self.short)
        return t + ": " + plain_text(self.sub) if self.sub else t


PROGRAMS = (
    "broken.cu",
    "fixed.cu",
    "broken.py",
    "fixed.py",
    "broken_cupy.py",
    "fixed_cupy.py",
)


def variants(folder):
    """A chapter's variant programs (clinic_chapter(VARIANTS ...)): its .cu
    files other than broken.cu and fixed.cu, each another form of the bug."""
    if not os.path.isdir(folder):
        return []
    return sorted(f for f in os.listdir(folder)
                  if f.endswith(".cu") and f not in PROGRAMS)


# The Python twins of a chapter's C pair: (library, broken, fixed).
TWINS = (
    ("PyCUDA", "broken.py", "fixed.py"),
    ("CuPy", "broken_cupy.py", "fixed_cupy.py"),
)


def twin_of(f):
    """What a listing is: "" for a C program, else the line that names the
    C program it is the twin of."""
    if f.endswith("_cupy.py"):
        return "\n\nThe CuPy twin of `%s`." % f.replace("_cupy.py", ".cu")
    if f.endswith(".py"):
        return "\n\nThe PyCUDA twin of `%s`." % f.replace(".py", ".cu")
    return ""


def chapter_page(site, ch, ids, idx):
    """A chapter's page: (its Markdown, the HTML of its C and PyCUDA
    outcomes)."""
    pid = part_id(ch.part)
    nav = prev_next_html(ids, idx, ch.part)
    sub = ch.subtitle_md(site)
    page = "# %s {#%s}\n\n" % (doxygen_title(ch.short), ch.id)
    if sub:
        page += '<div class="clinic-subtitle">%s</div>\n\n' % sub
    page += nav + "\n\n@CLINIC_TOC@\n"
    if os.path.isfile(ch.readme):
        body = transform_page(site, ch.id, ch.title_plain())[0]
        body = re.sub(
            r"<b>Part: ([^.<]+)\.</b>",
            lambda m: "<b>Part: [%s](@ref %s).</b>" % (m.group(1), pid),
            body,
        )
        hint = "\\anchor %s-hint " % ch.id in body
        page += fold_section(
            body,
            ch.id + "-fix",
            "Change <code>broken.cu</code> until it passes%s."
            % (" (the Hint below points the way)" if hint else ""),
            "the fix",
        )
    else:
        page += "This chapter's README.md is not written yet.\n"

    # Where the bug is: the lines around the BUG: and (folded) FIX: comments.
    near = neighbourhood_html(site, ch.dir)
    if near:
        h = site.heading(
            ch.id,
            "##",
            site.gen_anchor(ch.id, "where-the-bug-is"),
            "Where the bug is",
        )
        page += (
            "\n%s\nThe lines around the `BUG:` comment, "
            "numbered as in the full listings below.\n\n%s"
            % (h, htmlonly(near))
        )

    # The programs.
    h = site.heading(
        ch.id, "##", site.gen_anchor(ch.id, "the-programs"), "The programs"
    )
    page += (
        "\n%s\nBoth programs in full, as the tests build and run them.\n" % h
    )
    os.makedirs(os.path.join(site.out, "examples", ch.id), exist_ok=True)
    for f in PROGRAMS + tuple(variants(ch.dir)):
        path = os.path.join(ch.dir, f)
        if site.exists(path):
            shutil.copy2(path, os.path.join(site.out, "examples", ch.id))
            what = twin_of(f) if f in PROGRAMS else (
                "\n\nAnother cause of the same symptom, on its own.")
            h = site.heading(
                ch.id, "###", site.gen_anchor(ch.id, f.replace(".", "-")), f
            )
            page += "\n%s%s\n\n\\include{lineno} %s/%s\n" % (h, what, ch.id, f)
        elif f.endswith(".cu"):
            page += (
                '\n<p class="clinic-missing"><code>%s</code> '
                "is not written yet.</p>\n" % f
            )

    # The diff.
    h = site.heading(
        ch.id,
        "##",
        site.gen_anchor(ch.id, "the-fix-as-a-diff"),
        "The fix, as a diff",
    )
    page += "\n%s\n" % h
    if os.path.isfile(os.path.join(ch.dir, "broken.cu")) and os.path.isfile(
        os.path.join(ch.dir, "fixed.cu")
    ):
        page += (
            "`fixed.cu` against `broken.cu`, "
            "made from the two files when this site was built. "
            "Their header comments (`\\file`, `\\brief`) are left out; "
            "the rest is the whole fix. "
            "Line numbers are those of the listings above.\n\n"
            + htmlonly(
                TRY_FIRST
                % (
                    "Fix <code>broken.cu</code> yourself, then compare.",
                    "the diff",
                )
                + diff_html(site, ch.dir, "broken.cu", "fixed.cu")
            )
        )
        for library, broken, fixed in TWINS:
            if os.path.isfile(os.path.join(ch.dir, broken)) and os.path.isfile(
                os.path.join(ch.dir, fixed)
            ):
                page += (
                    "\nThe %s twins, `%s` against `%s` "
                    "(docstrings left out):\n\n" % (library, fixed, broken)
                    + htmlonly(diff_html(site, ch.dir, broken, fixed))
                )
        page += htmlonly("</details>")
    else:
        page += (
            "Not available yet: "
            "the chapter needs both `broken.cu` and `fixed.cu`.\n"
        )

    # The recorded outputs.
    a = site.gen_anchor(ch.id, "recorded-output")
    h = site.heading(ch.id, "##", a, "Recorded output")
    page += (
        "\n%s\nRecorded on a real GPU by the update command (see the main "
        "page), and checked by the chapter's tests on every run: stdout, then "
        "stderr (if any), then how the program ended.\n\n" % h
    )
    exp = os.path.join(ch.dir, "expected")
    outcome_c = pair_html(
        outcome_html(site, os.path.join(exp, "broken.out"), "broken"),
        outcome_html(site, os.path.join(exp, "fixed.out"), "fixed"),
    )
    page += htmlonly(outcome_c)
    search_text = "broken: %s fixed: %s" % (
        outcome_text(site, os.path.join(exp, "broken.out")),
        outcome_text(site, os.path.join(exp, "fixed.out")),
    )
    outcome_py = ""  # the PyCUDA twins', for the outcomes page
    for library, broken, fixed in TWINS:
        records = [os.path.join(exp, broken + ".out"),
                   os.path.join(exp, fixed + ".out")]
        if not (
            site.exists(os.path.join(ch.dir, broken))
            or site.exists(os.path.join(ch.dir, fixed))
            or any(site.exists(r) for r in records)
        ):
            continue
        outcome = pair_html(
            outcome_html(site, records[0], broken),
            outcome_html(site, records[1], fixed),
        )
        if library == "PyCUDA":
            outcome_py = outcome
        page += "\nThe %s twins:\n\n" % library + htmlonly(outcome)
        search_text += " %s: %s %s: %s" % (
            broken, outcome_text(site, records[0]),
            fixed, outcome_text(site, records[1]),
        )
    for f in variants(ch.dir):
        record = os.path.join(exp, f[:-3] + ".out")
        page += "\n`%s`:\n\n" % f + htmlonly(
            outcome_html(site, record, f[:-3]))
        search_text += " %s: %s" % (f[:-3], outcome_text(site, record))
    site.add_search_entry(
        "%s#%s" % (doxygen_file(ch.id), a),
        ch.title_plain(),
        "Recorded output",
        search_text,
        verbatim=True,
    )

    page += "\n%s\n" % nav
    page = page.replace("@CLINIC_TOC@", site.toc_html(ch.id))
    return page, outcome_c, outcome_py


def chapters_and_parts(site, chapters, parts):
    """The chapter list grouped by part, and one page per part:
    {file: Markdown}."""
    text = (
        "# Chapters {#chapters}\n\n"
        "One bug per chapter, in reading order, grouped by part. "
        "The @ref outcomes page shows every chapter's recorded result "
        "on one page.\n\n"
    )
    pages = {}
    for pnum, p in enumerate(parts, 1):
        pid = part_id(p)
        text += '- @subpage %s "Part %d: %s"\n' % (pid, pnum, part_title(p))
        ppage = (
            "# Part %d: %s {#%s}\n\nPart %d of %d of the @ref chapters.\n\n"
            % (pnum, part_title(p), pid, pnum, len(parts))
        )
        for ch in chapters:
            if ch.part == p:
                sub = ch.subtitle_md(site)
                line = "@ref " + ch.id + (" — " + sub if sub else "")
                text += "  - %s\n" % line
                ppage += "- %s\n" % line.replace(
                    "@ref " + ch.id, "@subpage " + ch.id
                )
        pages[pid + ".md"] = ppage
        site.add_search_entry(
            doxygen_file(pid),
            "Part %d: %s" % (pnum, part_title(p)),
            "",
            ppage.split("\n", 1)[1],  # the title is the entry's
        )
    pages["chapters.md"] = text
    site.add_search_entry(
        "chapters.html", "Chapters", "", text.split("\n", 1)[1]
    )
    return pages


def outcomes_page(site, chapters, parts, outcomes):
    """Every chapter's outcome, side by side, for readers without a GPU."""
    page = (
        "# Outcomes at a glance {#outcomes}\n\n"
        "What every chapter's programs did on a real GPU, the broken program "
        "next to the fixed one, as recorded by the update command and checked "
        "by the tests on every run. A chapter whose outputs have not been "
        "recorded yet says so.\n\n"
    )
    for p in parts:
        page += (
            site.heading(
                "outcomes",
                "##",
                "outcomes-" + re.sub(r"[^a-z0-9]+", "-", p),
                part_title(p),
            )
            + "\n"
        )
        for ch in chapters:
            if ch.part != p:
                continue
            sub = ch.subtitle_md(site)
            page += (
                "\\anchor outcomes-%s\n"
                '<div class="clinic-outcome-title"><b>@ref %s</b>'
                % (ch.id, ch.id)
            )
            if sub:
                page += " — " + sub
            c, py = outcomes[ch.id]
            page += "</div>\n\n" + htmlonly(c) + "\n"
            if py:
                page += htmlonly(py) + "\n"
    site.add_search_entry(
        "outcomes.html",
        "Outcomes at a glance",
        "",
        "broken fixed recorded output exit status every chapter",
    )
    return page


# ---------------------------------------------------------------------------
# The other pages.


def plain_page(site, pid, extra=""):
    """A page made from a Markdown file as it is, with extra appended."""
    src = site.pages[pid][0]
    title_plain = plain_text(read_title(src))
    # Sections added after the page's text come after it in the contents.
    added = site.toc.pop(pid, "")
    body, title, h2 = transform_page(site, pid, title_plain)
    site.toc[pid] = site.toc.get(pid, "") + added
    if pid == "index":
        page = "# %s\n\n" % doxygen_title(title)
    else:
        page = "# %s {#%s}\n\n" % (doxygen_title(title), pid)
    if h2 >= 4:
        page += site.toc_html(pid) + "\n"
    return page + body + extra


def seeds_programs(site, seed_files):
    """The seeds' programs and their recorded outputs, for the seeds page."""
    extra = "\n" + site.heading(
        "seeds", "##", site.gen_anchor("seeds", "the-programs"), "The programs"
    )
    os.makedirs(os.path.join(site.out, "examples", "seeds"), exist_ok=True)
    for f in seed_files:
        shutil.copy2(
            site_path(site, "seeds", f),
            os.path.join(site.out, "examples", "seeds"),
        )
        a = site.gen_anchor("seeds", gh_slug(f))
        out = site_path(site, "seeds", "expected", f + ".out")
        if not site.exists(out):
            out = site_path(
                site, "seeds", "expected", re.sub(r"\.py\Z", "", f) + ".out"
            )
        o = outcome_html(site, out, f)
        extra += (
            "\n%s\n\\include{lineno} seeds/%s\n\nRecorded output:\n\n%s"
            % (
                site.heading("seeds", "###", a, f),
                f,
                htmlonly(pair_html(o, "", single=True)),
            )
        )
        site.add_search_entry(
            "seeds.html#" + a,
            "Seeds",
            f,
            outcome_text(site, out),
            verbatim=True,
        )
    return extra


def site_map(doc_ids, pages):
    """The list of the site's pages under the main page, in this order."""
    text = (
        "\n## \\anchor index-on-this-site On this site\n\n"
        "- @subpage chapters\n"
    )
    for pid in doc_ids:
        if pid == "outcomes":
            continue
        text += "- @subpage %s\n" % pid
        if pid == "symptoms":
            text += "- @subpage outcomes\n"
    if "symptoms" not in doc_ids:
        text += "- @subpage outcomes\n"
    for pid in ("seeds", "bench", "contributing"):
        if pid in pages:
            text += "- @subpage %s\n" % pid
    return text


def header_search_text(header_text):
    """The words of a header's comments, for the search."""
    comments = [
        m.group(0)
        for m in re.finditer(r"/\*[^*]*\*+([^/*][^*]*\*+)*/", header_text)
    ]
    return re.sub(r"[/*\\]+", " ", " ".join(comments).replace(";", " "))


def site_path(site, *parts):
    return os.path.join(site.root, *parts)


# ---------------------------------------------------------------------------
# The whole site.


def register_pages(site):
    """Finds the pages, their headings' anchors and the anchors of the sections
    make_pages adds. Returns (docs page ids in site order, the seeds' programs).
    """
    root = site.root
    if site.exists(os.path.join(root, "README.md")):
        site.add_page("index", os.path.join(root, "README.md"), "")
    docs = os.path.join(root, "docs")
    site.read.add(docs)
    doc_ids = []
    for name in sorted(f for f in os.listdir(docs) if f.endswith(".md")):
        stem = name.split(".")[0]
        pid = re.sub(r"[^a-z0-9]", "", ascii_lower(stem))
        if pid in ("", "readme", "index"):
            continue
        site.add_page(pid, os.path.join(docs, name), "docs")
        site.doc_ids[stem] = pid
        doc_ids.append(pid)
    # The docs pages in a sensible order: the routing pages first.
    first = [
        p for p in ("symptoms", "outcomes", "myths", "pycuda") if p in doc_ids
    ]
    doc_ids = first + [p for p in doc_ids if p not in first]
    for folder in site.chapters:
        site.add_page(
            "ch" + folder[:2],
            os.path.join(root, "chapters", folder, "README.md"),
            "chapters/" + folder,
        )
    for extra in ("seeds", "bench"):
        if site.exists(os.path.join(root, extra, "README.md")):
            site.add_page(extra, os.path.join(root, extra, "README.md"), extra)
    if site.exists(os.path.join(root, "CONTRIBUTING.md")):
        site.add_page(
            "contributing", os.path.join(root, "CONTRIBUTING.md"), ""
        )
    seed_files = []
    if "seeds" in site.pages:
        site.read.add(os.path.join(root, "seeds"))
        seed_files = sorted(
            f
            for f in os.listdir(os.path.join(root, "seeds"))
            if f.endswith(".py")
        )

    for pid, (src, _) in site.pages.items():
        site.anchors[pid] = (
            heading_anchors(read_lines(src)) if os.path.isfile(src) else []
        )
    for folder in site.chapters:
        files = [
            f.replace(".", "-")
            for f in PROGRAMS
            if site.exists(os.path.join(root, "chapters", folder, f))
        ] + [f.replace(".", "-")
             for f in variants(os.path.join(root, "chapters", folder))]
        site.add_anchors(
            "ch" + folder[:2],
            ["the-programs"]
            + files
            + ["the-fix-as-a-diff", "recorded-output", "where-the-bug-is"],
        )
    if seed_files:
        site.add_anchors(
            "seeds", ["the-programs"] + [gh_slug(f) for f in seed_files]
        )
    site.add_page("outcomes", "", "")
    return doc_ids, seed_files


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def make_site(site):
    """Writes every page, the examples, the images and the search index."""
    for sub in ("pages", "examples", "images", "extra", "work"):
        shutil.rmtree(os.path.join(site.out, sub), ignore_errors=True)
    for sub in ("pages", "examples", "images", "extra"):
        os.makedirs(os.path.join(site.out, sub))
    pages_dir = os.path.join(site.out, "pages")
    doc_ids, seed_files = register_pages(site)

    chapters = [Chapter(site, folder) for folder in site.chapters]
    parts = order_parts([ch.part for ch in chapters])
    for pnum, p in enumerate(parts, 1):
        site.add_page(part_id(p), "", "")
        site.titles[part_id(p)] = "Part %d: %s" % (pnum, part_title(p))
    # What a reference to a page shows, for the search index's text.
    site.titles.update({ch.id: plain_text(ch.short) for ch in chapters})
    site.titles.update(chapters="Chapters", outcomes="Outcomes at a glance")
    for pid in list(doc_ids) + ["seeds", "bench", "contributing"]:
        if pid in site.pages and site.pages[pid][0]:
            site.titles[pid] = plain_text(read_title(site.pages[pid][0]))
    ids = [ch.id for ch in chapters]
    outcomes = {}
    for idx, ch in enumerate(chapters):
        site.read.add(ch.dir)
        site.read.add(os.path.join(ch.dir, "expected"))
        page, c, py = chapter_page(site, ch, ids, idx)
        outcomes[ch.id] = (c, py)
        write(os.path.join(pages_dir, ch.id + ".md"), page)
    for name, text in chapters_and_parts(site, chapters, parts).items():
        write(os.path.join(pages_dir, name), text)
    write(
        os.path.join(pages_dir, "outcomes.md"),
        outcomes_page(site, chapters, parts, outcomes),
    )

    for pid in doc_ids:
        write(os.path.join(pages_dir, pid + ".md"), plain_page(site, pid))
    if "seeds" in site.pages:
        extra = seeds_programs(site, seed_files) if seed_files else ""
        write(
            os.path.join(pages_dir, "seeds.md"),
            plain_page(site, "seeds", extra),
        )
    for pid in ("bench", "contributing"):
        if pid in site.pages:
            write(os.path.join(pages_dir, pid + ".md"), plain_page(site, pid))
    smap = site_map(doc_ids, site.pages)
    if "index" in site.pages:
        write(
            os.path.join(pages_dir, "mainpage.md"),
            plain_page(site, "index", smap),
        )
    else:
        write(
            os.path.join(pages_dir, "mainpage.md"),
            "# CUDA Memcpy Clinic\n" + smap,
        )

    header = os.path.join(site.root, "common", "check_cuda.h")
    if site.exists(header):
        site.add_search_entry(
            doxygen_file("check_cuda.h"),
            "check_cuda.h",
            "",
            "check_cuda check_launch require_gpu_or_skip check_ints "
            + header_search_text(site.read_file(header)),
        )
    write(
        os.path.join(site.out, "extra", "clinic-search-index.js"),
        "/* Generated by make_pages.py: "
        "the text of every section of the site. */\n"
        "window.CLINIC_SEARCH_INDEX = [\n%s];\n" % "".join(site.search),
    )


def depfile_text(target, paths):
    """A Makefile-style dependency file: target depends on paths."""

    def esc(p):
        return re.sub(r"([ #:])", r"\\\1", p.replace("$", "$$"))

    return "%s: \\\n  %s\n" % (
        esc(target),
        " \\\n  ".join(esc(p) for p in sorted(paths)),
    )


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", required=True, help="the repository")
    ap.add_argument(
        "--chapters", default="", help="chapter folders, comma separated"
    )
    ap.add_argument("--out", required=True, help="where the pages go")
    ap.add_argument("--diff", default="diff", help="the diff program")
    ap.add_argument(
        "--plots", default="", help="the folder of the copy lab's plots"
    )
    ap.add_argument(
        "--depfile",
        help="write the files read here, as a Makefile rule for --stamp",
    )
    ap.add_argument("--stamp", help="the file the depfile's rule is for")
    args = ap.parse_args(argv)
    site = Site(
        os.path.abspath(args.root),
        os.path.abspath(args.out),
        [c for c in args.chapters.split(",") if c],
        args.diff,
        args.plots,
    )
    try:
        make_site(site)
    except BuildError as e:
        print("make_pages.py: error: %s" % e, file=sys.stderr)
        return 1
    if args.depfile:
        site.read.add(os.path.abspath(__file__))
        if site.plots:
            site.read.add(site.plots)
        write(
            args.depfile,
            depfile_text(
                args.stamp or "docs", (os.path.abspath(p) for p in site.read)
            ),
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
