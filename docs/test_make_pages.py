#!/usr/bin/env python3
"""test_make_pages.py -- unit tests of the page generator, one or more per
function.

python3 -B -m unittest test_make_pages     (from docs/; CTest: docs.make_pages)
"""

import os
import re
import shutil
import tempfile
import unittest

import make_pages as mp


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


class TextHelpers(unittest.TestCase):
    def test_ascii_lower_leaves_other_letters(self):
        self.assertEqual(mp.ascii_lower("AbÜ İ"), "abÜ İ")

    def test_html_escape(self):
        self.assertEqual(
            mp.html_escape('a<b>&"*/'), "a&lt;b&gt;&amp;&quot;&#42;/"
        )

    def test_plain_text(self):
        self.assertEqual(
            mp.plain_text(
                "  **Bold** [link](x.md) `code` <b>t</b> \\_x {#id}  "
            ),
            "Bold link code t _x",
        )

    def test_index_text_drops_doxygen_references(self):
        titles = {"chapters": "Chapters", "ch20": "20 · Heap"}
        self.assertEqual(
            mp.index_text(
                "# Part 7: Staging {#part-7}\n\n"
                "Part 7 of 9 of the @ref chapters.\n\n"
                "- @subpage ch20 — a [link](@ref ch21 \"x\") here\n"
                "- @subpage ch99\n"
                '  - \\ref ch20 "the heap chapter", \\anchor a-b end\n',
                titles,
            ),
            "Part 7: Staging Part 7 of 9 of the Chapters. "
            "20 · Heap — a link here the heap chapter, end",
        )

    def test_index_text_drops_markdown_marks(self):
        self.assertEqual(
            mp.index_text(
                "## Cause ##\n"
                "> **Note:** a *quote*\n"
                "1. first &lt;step&gt;\n"
                "* star <b>item</b>, <https://x.org/a>\n"
                "+ plus ![a plot](p.png)\n"
                "---\n"
                "| # | Chapter |\n|---|:--|\n| 01 | Bytes |\n"
                "\\_x \\# y"
            ),
            "Cause Note: a quote first <step> star item, https://x.org/a "
            "plus a plot Chapter 01 Bytes _x # y",
        )

    def test_index_text_keeps_code_as_shown(self):
        # Code spans and code blocks are shown as they are: no markup there.
        self.assertEqual(
            mp.index_text(
                "Use `<<<grid, block>>>` and `(void **)&p`.\n"
                "```\n# a shell comment\n- not a list\n```\n"
                "- after"
            ),
            "Use <<<grid, block>>> and (void **)&p. # a shell comment "
            "- not a list after",
        )

    def test_doxygen_title(self):
        self.assertEqual(
            mp.doxygen_title("`__device__` a<b"), "\\_\\_device\\_\\_ a&lt;b"
        )

    def test_strip_anchor_id(self):
        self.assertEqual(mp.strip_anchor_id("Title {#custom} "), "Title")

    def test_gh_slug(self):
        self.assertEqual(mp.gh_slug("The fix, as a diff"), "the-fix-as-a-diff")
        self.assertEqual(mp.gh_slug("[`spitch`](x) < width"), "spitch--width")
        self.assertEqual(mp.gh_slug("Über {#x}"), "ber")
        self.assertEqual(mp.gh_slug("!!!"), "section")

    def test_unique_slug(self):
        self.assertEqual(mp.unique_slug("fix", ["fix", "fix-1"]), "fix-2")
        self.assertEqual(mp.unique_slug("fix", []), "fix")

    def test_twin_of(self):
        self.assertEqual(mp.twin_of("fixed.cu"), "")
        self.assertIn("PyCUDA twin of `broken.cu`", mp.twin_of("broken.py"))
        self.assertIn("CuPy twin of `fixed.cu`", mp.twin_of("fixed_cupy.py"))
        path = "chapters/29-x/fixed_cupy.py"
        self.assertTrue(re.match(mp.PROGRAM_PATH, path))
        self.assertFalse(re.match(mp.PROGRAM_PATH, "chapters/29-x/other.py"))
        m = re.match(mp.PROGRAM_PATH, "chapters/28-x/symbol_as_string.cu")
        self.assertEqual(m.group(2, 3, 4), ("symbol_as_string", None, "cu"))
        m = re.match(mp.PROGRAM_PATH, "chapters/29-x/broken_cupy.py")
        self.assertEqual(m.group(2, 3, 4), ("broken", "_cupy", "py"))

    def test_part_names_keep_their_spelling(self):
        text = "**Part: the python boundary.** ..."
        self.assertEqual(mp.chapter_part(text), "the Python boundary")
        self.assertEqual(mp.part_id("the Python boundary"),
                         "part-the-python-boundary")

    def test_doxygen_file(self):
        self.assertEqual(
            mp.doxygen_file("check_cuda.h"), "check__cuda_8h.html"
        )

    def test_json_string(self):
        self.assertEqual(
            mp.json_string('a"b\\c\n\td</x>'), '"a\\"b\\\\c d<\\/x>"'
        )

    def test_cut_utf8_never_splits_a_character(self):
        self.assertEqual(mp.cut_utf8("aé", 2), "a")
        self.assertEqual(mp.cut_utf8("abc", 6000), "abc")

    def test_read_lines(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(
                mp.read_lines(write(d, "a.md", "x\r\n\ny\n")), ["x", "", "y"]
            )
            self.assertEqual(mp.read_lines(write(d, "b.md", "")), [])

    def test_heading_match_and_is_fence(self):
        self.assertEqual(mp.heading_match("## Fix  "), ("##", "Fix"))
        self.assertIsNone(mp.heading_match("#include <x>"))
        self.assertTrue(mp.is_fence("  ```c"))
        self.assertFalse(mp.is_fence("text ```"))

    def test_heading_anchors_skip_title_and_fences(self):
        lines = [
            "# Title",
            "## Fix",
            "```",
            "## not",
            "```",
            "## Fix",
            "### Hint",
        ]
        self.assertEqual(mp.heading_anchors(lines), ["fix", "fix-1", "hint"])

    def test_read_title(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(
                mp.read_title(write(d, "a.md", "\n# 01 · A: b {#x}\ntext")),
                "01 · A: b",
            )
            self.assertEqual(mp.read_title(os.path.join(d, "none.md")), "")


class InlineMarkdown(unittest.TestCase):
    def test_fix_file_urls(self):
        self.assertEqual(
            mp.fix_file_urls("see file:line: and /file:x"),
            "see %file:line: and /file:x",
        )
        # Each search starts where the last one ended (as CMake's did).
        self.assertEqual(mp.fix_file_urls("file:afile:b"), "%file:a%file:b")
        self.assertEqual(mp.fix_file_urls("file:/x"), "file:/x")

    def test_code_span(self):
        self.assertEqual(mp.code_span("x"), "`x`")
        self.assertEqual(mp.code_span("it's"), "``it's``")
        self.assertEqual(
            mp.code_span('a "b" <c>'), '<code>a \\"b\\" &lt;c&gt;</code>'
        )
        self.assertEqual(mp.code_span("a\n  b"), "`a b`")

    def test_mask_code_and_unmask(self):
        masked, spans = mp.mask_code("a `x` b `y")
        self.assertEqual(masked, "a " + mp.MARK + "0" + mp.MARK + " b `y")
        self.assertEqual(spans, ["`x`"])
        self.assertEqual(mp.unmask(masked, spans), "a `x` b `y")

    def test_bold_to_html(self):
        self.assertEqual(
            mp.bold_to_html("**a `b`** and `**c**`"),
            "<b>a `b`</b> and `**c**`",
        )
        self.assertEqual(mp.bold_to_html("** not bold**"), "** not bold**")

    def test_repo_path(self):
        self.assertEqual(
            mp.repo_path("chapters/01-a", "../02-b/README.md"),
            "chapters/02-b/README.md",
        )
        self.assertEqual(mp.repo_path("", "README.md"), "README.md")
        self.assertEqual(mp.repo_path("docs", ".."), ".")


class SiteTests(unittest.TestCase):
    """A small repository with two chapters, a docs page, seeds and a header."""

    def setUp(self):
        self.root = tempfile.mkdtemp()
        self.out = os.path.join(self.root, "out")
        r = self.root
        write(
            r,
            "README.md",
            "# Clinic\n\nSee [symptoms](docs/symptoms.md#wrong) and "
            "[ch1](chapters/01-a/).\n\n"
            "## Chapters\n\ntext\n",
        )
        write(
            r,
            "docs/symptoms.md",
            "# Symptom index\n\n## Wrong\n\n| a | b |\n|---|---|\n"
            "| x | [fix](../chapters/01-a/README.md#fix) |\n",
        )
        write(
            r,
            "chapters/01-a/README.md",
            "# 01 · Alpha: the `first` one\n\n**Part: pointers.** Intro.\n\n"
            "## Symptom\n\nIt fails.\n\n"
            "## Fix\n\nDo **this**.\n\n```c\n# not a heading\n```\n\n"
            "## Hint\n\nLook.\n\n"
            "## See it yourself\n\n"
            "[broken](broken.cu) [out](expected/broken.out)\n",
        )
        write(
            r,
            "chapters/01-a/broken.cu",
            "/** \\file broken.cu\n * \\brief b\n */\nint a;\n"
            "/* BUG: wrong */\nint b = 1;\nint c;\n",
        )
        write(
            r,
            "chapters/01-a/fixed.cu",
            "/** \\file fixed.cu\n */\nint a;\n"
            "/* FIX: right */\nint b = 2;\nint c;\n",
        )
        write(
            r,
            "chapters/01-a/expected/broken.out",
            "bad <x>\n[exit status: 1]\n",
        )
        write(
            r, "chapters/01-a/expected/fixed.out", "good\n[exit status: 0]\n"
        )
        write(
            r,
            "chapters/02-b/README.md",
            "# 02 · Beta\n\n**Part: weird.** [a](../01-a/fixed.cu)\n",
        )
        write(r, "seeds/README.md", "# Seeds\n\nRun them.\n")
        write(r, "seeds/s1.py", "print(1)\n")
        write(r, "seeds/expected/s1.py.out", "1\n[exit status: 0]\n")
        write(
            r,
            "common/check_cuda.h",
            "/** \\file check_cuda.h checks; all */\nint x;\n",
        )
        self.site = mp.Site(r, self.out, ["01-a", "02-b", "notachapter"])

    def tearDown(self):
        shutil.rmtree(self.root)

    def registered(self):
        os.makedirs(os.path.join(self.out, "images"), exist_ok=True)
        return mp.register_pages(self.site)

    def test_site_keeps_only_chapter_folders(self):
        self.assertEqual(self.site.chapters, ["01-a", "02-b"])

    def test_register_pages(self):
        doc_ids, seeds = self.registered()
        self.assertEqual(doc_ids, ["symptoms"])
        self.assertEqual(seeds, ["s1.py"])
        self.assertIn("ch01", self.site.pages)
        self.assertEqual(
            self.site.anchors["ch01"][:4],
            ["symptom", "fix", "hint", "see-it-yourself"],
        )
        self.assertEqual(
            self.site.gen_anchor("ch01", "broken-cu"), "ch01-broken-cu"
        )
        self.assertEqual(
            self.site.gen_anchor("ch01", "where-the-bug-is"),
            "ch01-where-the-bug-is",
        )

    def test_add_anchors_and_gen_anchor(self):
        self.site.anchors["p"] = ["the-programs"]
        self.site.add_anchors("p", ["the-programs"])
        self.assertEqual(
            self.site.gen_anchor("p", "the-programs"), "p-the-programs-1"
        )

    def test_exists_and_read_file_are_remembered(self):
        path = os.path.join(self.root, "README.md")
        self.assertTrue(self.site.exists(path))
        self.assertFalse(self.site.exists(os.path.join(self.root, "nothing")))
        self.site.read_file(path)
        self.assertIn(path, self.site.read)
        self.assertIn(
            self.root, self.site.read
        )  # a new file there changes the folder

    def test_add_search_entry(self):
        self.site.titles["ch01"] = "01 · A"
        self.site.add_search_entry(
            "a.html", "T", "S", "| x | **y** |\n- @ref ch01"
        )
        self.site.add_search_entry("b.html", "T", "", "a **b**\n- c", True)
        self.assertEqual(
            self.site.search,
            [
                '{"u":"a.html","t":"T","s":"S","x":"x y 01 · A"},\n',
                '{"u":"b.html","t":"T","s":"","x":"a **b** - c"},\n',
            ],
        )

    def test_heading_and_toc(self):
        h = self.site.heading("p", "##", "p-x", "A `b`")
        self.assertEqual(h, "## \\anchor p-x A `b`\n")
        self.site.heading("p", "###", "p-y", "Not in the contents")
        self.assertIn(
            '<li class="level1"><a href="#p-x">A b</a></li></ul>',
            self.site.toc_html("p"),
        )
        self.assertNotIn("p-y", self.site.toc_html("p"))

    def test_page_target(self):
        self.registered()
        self.assertEqual(
            self.site.page_target("ch01", "Fix", "t"), "@ref ch01-fix"
        )
        self.assertEqual(self.site.page_target("ch01", "", "t"), "@ref ch01")
        with self.assertRaises(mp.BuildError):
            self.site.page_target("ch01", "nope", "t")

    def test_resolve_link(self):
        self.registered()
        r = self.site.resolve_link
        self.assertEqual(
            r("https://x.org/a", "index", "", "t"), "https://x.org/a"
        )
        self.assertEqual(
            r("../01-a/fixed.cu", "ch02", "chapters/02-b", "t"),
            "@ref ch01-fixed-cu",
        )
        self.assertEqual(
            r("expected/broken.out", "ch01", "chapters/01-a", "t"),
            "@ref ch01-recorded-output",
        )
        self.assertEqual(
            r("docs/symptoms.md#wrong", "index", "", "t"),
            "@ref symptoms-wrong",
        )
        self.assertEqual(
            r("../README.md", "symptoms", "docs", "t"), "@ref index"
        )
        self.assertEqual(r("seeds/s1.py", "index", "", "t"), "@ref seeds-s1py")
        self.assertEqual(
            r("common/check_cuda.h", "index", "", "t"), "@ref check_cuda.h"
        )
        self.assertEqual(r("LICENSE", "index", "", "t"), "")
        with self.assertRaises(mp.BuildError):
            r("chapters/09-none/", "index", "", "t")

    def test_resolve_image(self):
        os.makedirs(os.path.join(self.out, "images"))
        write(self.root, "docs/pic.png", "png")
        self.assertEqual(self.site.resolve_image("pic.png", "docs"), "pic.png")
        self.assertTrue(
            os.path.isfile(os.path.join(self.out, "images", "pic.png"))
        )
        self.assertEqual(self.site.resolve_image("none.png", "docs"), "")

    def test_transform_line(self):
        self.registered()
        line = self.site.transform_line(
            "[`x` < y](#fix) file:line: ![p](none.png)",
            "ch01",
            "chapters/01-a",
            "t",
        )
        self.assertEqual(
            line,
            "[`x` &lt; y](@ref ch01-fix) %file:line: "
            "*(picture not available yet: p; build the bench_plots target)*",
        )

    def test_transform_page(self):
        self.registered()
        body, title, h2 = mp.transform_page(self.site, "ch01", "01 · Alpha")
        self.assertEqual(title, "01 · Alpha: the `first` one")
        self.assertEqual(h2, 4)
        self.assertIn("## \\anchor ch01-fix Fix\n", body)
        self.assertIn("Do <b>this</b>.", body)
        self.assertIn("# not a heading\n", body)
        self.assertIn("[broken](@ref ch01-broken-cu)", body)
        self.assertIn('"u":"ch01.html#ch01-fix"', "".join(self.site.search))

    def test_strip_header(self):
        self.assertEqual(
            mp.strip_header("/** a\n b */ x\nint y;\n", False), ("int y;\n", 2)
        )
        self.assertEqual(
            mp.strip_header('"""doc\n"""\nx = 1\n', True), ("x = 1\n", 2)
        )
        self.assertEqual(mp.strip_header("int y;\n", False), ("int y;\n", 0))

    def test_diff_lines_html(self):
        html = mp.diff_lines_html(
            "--- a\n+++ b\n@@ -1,2 +1,2 @@\n-x<\n+y\n ctx\n", 3, 2
        )
        self.assertIn('<div class="line hunk">@@ -4,2 +3,2 @@</div>', html)
        self.assertIn(
            '<div class="line del">-x&lt;</div><div class="line add">+y</div>',
            html,
        )
        self.assertIn('<div class="line file">--- a</div>', html)

    def test_diff_html(self):
        d = os.path.join(self.root, "chapters", "01-a")
        html = mp.diff_html(self.site, d, "broken.cu", "fixed.cu")
        self.assertIn("@@ -4,4 +3,4 @@", html)
        write(
            self.root,
            "chapters/01-a/same.cu",
            "/** other */\nint a;\n/* BUG: wrong */\nint b = 1;\nint c;\n",
        )
        write(
            self.root,
            "chapters/01-a/same2.cu",
            "int a;\n/* BUG: wrong */\nint b = 1;\nint c;\n",
        )
        self.assertIn(
            "the same", mp.diff_html(self.site, d, "same.cu", "same2.cu")
        )

    def test_outcome_verdict(self):
        self.assertEqual(
            mp.outcome_verdict("x\n[exit status: 0]"),
            ("exit 0: the results were right", "clinic-ok"),
        )
        self.assertEqual(
            mp.outcome_verdict("[exit status: 139]"),
            ("exit 139", "clinic-bad"),
        )
        self.assertEqual(
            mp.outcome_verdict("x\n[compilation failed]")[1], "clinic-bad"
        )
        self.assertEqual(mp.outcome_verdict("x"), ("recorded", "clinic-other"))

    def test_outcome_html_and_text(self):
        exp = os.path.join(self.root, "chapters", "01-a", "expected")
        html = mp.outcome_html(
            self.site, os.path.join(exp, "broken.out"), "broken"
        )
        self.assertIn('<div class="line">bad &lt;x&gt;</div>', html)
        self.assertIn("exit 1: wrong results", html)
        self.assertIn(
            "not recorded yet",
            mp.outcome_html(self.site, os.path.join(exp, "none.out"), "x"),
        )
        self.assertEqual(
            mp.outcome_text(self.site, os.path.join(exp, "fixed.out")),
            "good\n[exit status: 0]\n",
        )
        self.assertEqual(
            mp.outcome_text(self.site, os.path.join(exp, "none.out")), ""
        )

    def test_pair_html_and_htmlonly(self):
        self.assertIn(
            'clinic-pair clinic-single">a<', mp.pair_html("a", "", single=True)
        )
        self.assertEqual(
            mp.htmlonly("<p/>"), "\\htmlonly[block]\n<p/>\n\\endhtmlonly\n"
        )

    def test_marker_ranges(self):
        lines = [
            "/** h BUG: no */",
            "a",
            "",
            "b",
            "/* BUG: x",
            "   y */",
            "c",
            "d",
            "e",
            "f",
        ]
        self.assertEqual(mp.marker_ranges(lines, "BUG:", start=1), [(3, 8)])
        self.assertEqual(
            mp.marker_ranges(["x; /* FIX: y */", "z"], "FIX:"), [(0, 1)]
        )

    def test_excerpt_html(self):
        html = mp.excerpt_html(
            ["a", "/* BUG: x", " y */", "b<"], [(0, 3)], "BUG:"
        )
        self.assertIn(
            '<div class="line clinic-marker">'
            '<span class="lineno">3</span> y &#42;/</div>',
            html,
        )
        self.assertIn('<span class="lineno">4</span>b&lt;', html)

    def test_fold_section(self):
        body = (
            "## \\anchor c-fix Fix\n\nText.\n\n```\n## in code\n```\n\n"
            "## \\anchor c-hint Hint\n\nLook.\n"
        )
        folded = mp.fold_section(body, "c-fix", "Try.", "the fix")
        self.assertIn(
            "## \\anchor c-fix Fix\n\\htmlonly[block]\n<details", folded
        )
        self.assertLess(folded.index("## in code"), folded.index("</details>"))
        self.assertLess(
            folded.index("</details>"), folded.index("c-hint Hint")
        )
        self.assertEqual(mp.fold_section(body, "c-none", "x", "y"), body)

    def test_neighbourhood_html(self):
        html = mp.neighbourhood_html(
            self.site, os.path.join(self.root, "chapters", "01-a")
        )
        self.assertIn("<code>broken.cu</code>, lines 4–7", html)
        self.assertLess(html.index("BUG: wrong"), html.index("<details"))
        self.assertLess(html.index("<details"), html.index("FIX: right"))
        self.assertEqual(
            mp.neighbourhood_html(
                self.site, os.path.join(self.root, "chapters", "02-b")
            ),
            "",
        )

    def test_chapter_titles_and_part(self):
        self.assertEqual(
            mp.chapter_titles("01 · A: b: c", "01-a"), ("01 · A", "b: c")
        )
        self.assertEqual(
            mp.chapter_titles("", "03-some-thing"), ("03 · some thing", "")
        )
        self.assertEqual(
            mp.chapter_part("**Part: Launch configuration.** x"),
            "launch configuration",
        )
        self.assertEqual(mp.chapter_part("no part"), "not sorted yet")

    def test_order_parts_id_title(self):
        self.assertEqual(
            mp.order_parts(["weird", "structs", "allocation", "weird"]),
            ["allocation", "structs", "weird"],
        )
        self.assertEqual(
            mp.part_id("streams and pinned memory"),
            "part-streams-and-pinned-memory",
        )
        self.assertEqual(mp.part_title("structs"), "Structs")

    def test_prev_next_html(self):
        nav = mp.prev_next_html(["ch01", "ch02"], 0, "pointers")
        self.assertIn("← @ref chapters", nav)
        self.assertIn("Next: @ref ch02 →", nav)
        self.assertIn(
            "@ref outcomes →", mp.prev_next_html(["ch01", "ch02"], 1, "x")
        )

    def test_chapter(self):
        ch = mp.Chapter(self.site, "01-a")
        self.assertEqual(
            (ch.id, ch.short, ch.sub, ch.part),
            ("ch01", "01 · Alpha", "the `first` one", "pointers"),
        )
        self.assertEqual(ch.title_plain(), "01 · Alpha: the first one")

    def test_chapter_page(self):
        self.registered()
        ch = mp.Chapter(self.site, "01-a")
        page, c, py = mp.chapter_page(self.site, ch, ["ch01", "ch02"], 0)
        self.assertTrue(page.startswith("# 01 · Alpha {#ch01}\n"))
        self.assertIn("<b>Part: [pointers](@ref part-pointers).</b>", page)
        fix = page.index("\\anchor ch01-fix ")
        self.assertLess(fix, page.index("<details", fix))
        self.assertLess(
            page.index("</details>", fix), page.index("\\anchor ch01-hint ")
        )
        self.assertIn("the Hint below points the way", page)
        self.assertLess(
            page.index("ch01-where-the-bug-is"),
            page.index("\\anchor ch01-the-programs"),
        )
        diff = page.index("\\anchor ch01-the-fix-as-a-diff")
        self.assertLess(
            page.index("<details", diff), page.index("clinic-diff", diff)
        )
        self.assertIn("\\include{lineno} ch01/broken.cu", page)
        self.assertIn("exit 0: the results were right", c)
        self.assertEqual(py, "")
        self.assertNotIn("@CLINIC_TOC@", page)

    def test_chapters_and_parts(self):
        self.registered()
        chs = [mp.Chapter(self.site, f) for f in self.site.chapters]
        pages = mp.chapters_and_parts(self.site, chs, ["pointers", "weird"])
        self.assertIn(
            '- @subpage part-pointers "Part 1: Pointers"', pages["chapters.md"]
        )
        self.assertIn(
            "- @subpage ch01 — the `first` one", pages["part-pointers.md"]
        )

    def test_outcomes_page(self):
        self.registered()
        chs = [mp.Chapter(self.site, "01-a")]
        page = mp.outcomes_page(
            self.site, chs, ["pointers"], {"ch01": ("<C/>", "")}
        )
        self.assertIn("\\anchor outcomes-ch01\n", page)
        self.assertIn("\\htmlonly[block]\n<C/>\n\\endhtmlonly\n", page)

    def test_plain_page(self):
        self.registered()
        page = mp.plain_page(self.site, "symptoms")
        self.assertTrue(page.startswith("# Symptom index {#symptoms}\n\n"))
        self.assertIn("[fix](@ref ch01-fix)", page)
        self.assertTrue(
            mp.plain_page(self.site, "index", "X").startswith("# Clinic\n\n")
        )

    def test_seeds_programs(self):
        self.registered()
        extra = mp.seeds_programs(self.site, ["s1.py"])
        self.assertIn("\\include{lineno} seeds/s1.py", extra)
        self.assertIn("exit 0: the results were right", extra)

    def test_site_map(self):
        text = mp.site_map(["symptoms", "outcomes", "myths"], {"seeds": 1})
        self.assertEqual(
            text.split("\n")[3:8],
            [
                "- @subpage chapters",
                "- @subpage symptoms",
                "- @subpage outcomes",
                "- @subpage myths",
                "- @subpage seeds",
            ],
        )

    def test_header_search_text(self):
        self.assertEqual(
            mp.header_search_text("/** \\file a; b */ int x; /* c */").split(),
            ["file", "a", "b", "c"],
        )

    def test_make_site_and_main_with_depfile(self):
        dep = os.path.join(self.out, "site.d")
        rc = mp.main(
            [
                "--root",
                self.root,
                "--chapters",
                "01-a,02-b",
                "--out",
                self.out,
                "--depfile",
                dep,
                "--stamp",
                "/b/site.stamp",
            ]
        )
        self.assertEqual(rc, 0)
        for name in (
            "mainpage.md",
            "ch01.md",
            "ch02.md",
            "chapters.md",
            "outcomes.md",
            "symptoms.md",
            "seeds.md",
            "part-pointers.md",
            "part-weird.md",
        ):
            self.assertTrue(
                os.path.isfile(os.path.join(self.out, "pages", name)), name
            )
        self.assertTrue(
            os.path.isfile(
                os.path.join(self.out, "examples", "ch01", "fixed.cu")
            )
        )
        with open(
            os.path.join(self.out, "extra", "clinic-search-index.js"),
            encoding="utf-8",
        ) as f:
            index = f.read()
        self.assertIn('"u":"check__cuda_8h.html"', index)
        # The index holds what the reader sees, not the pages' source.
        for source in ("@ref", "@subpage", "\\\\ref", '"x":"#', "- "):
            self.assertNotIn(source, index)
        self.assertRegex(index, r'"u":"part-pointers.html".*"x":"Part [0-9]')
        with open(dep, encoding="utf-8") as f:
            deps = f.read()
        self.assertTrue(deps.startswith("/b/site.stamp: \\\n"))
        for need in (
            "chapters/01-a/README.md",
            "chapters/01-a/expected/fixed.out",
            "docs/symptoms.md",
            os.path.join("chapters", "01-a") + " \\",
        ):
            self.assertIn(need, deps)

    def test_main_reports_a_broken_link(self):
        write(
            self.root,
            "docs/bad.md",
            "# Bad\n\n[x](../chapters/01-a/README.md#nope)\n",
        )
        self.assertEqual(
            mp.main(
                ["--root", self.root, "--chapters", "01-a", "--out", self.out]
            ),
            1,
        )

    def test_depfile_text_escapes(self):
        self.assertEqual(
            mp.depfile_text("o", ["/a b", "/c$"]),
            "o: \\\n  /a\\ b \\\n  /c$$\n",
        )


if __name__ == "__main__":
    unittest.main()
