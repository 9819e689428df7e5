#!/usr/bin/env python3
"""test_make_pages.py -- unit tests of the page generator.

python3 -B -m unittest test_make_pages     (from docs/; CTest: docs.make_pages)
"""

import json
import os
import shutil
import tempfile
import unittest

import make_pages as mp

README = """# 01 · Alpha: the `first` one

**Part: pointers.** Intro, see [b](../02-b/README.md#cause).

## Symptom

It fails: `bad "x\\n"` and **`y`** at file:line:.

## Fix

Do **this**.

```c
# not a heading
```

## Hint

Look.

## See it yourself

[broken](broken.cu) [out](expected/broken.out) [cmake](CMakeLists.txt)
"""
FILES = {
    "README.md": "# Clinic\n\nBy [symptom](docs/symptoms.md#wrong).\n",
    "docs/symptoms.md": "# Symptom index\n\n## Wrong\n\n| a | b | c |\n"
    "|---|---|---|\n| x | y | [fix](../chapters/01-a/README.md#fix) |\n",
    "docs/gpu-host.md": "# On a GPU host\n\nText.\n",
    "chapters/01-a/README.md": README,
    "chapters/01-a/broken.cu": "/** \\file broken.cu\n * \\brief b\n */\n"
    "int a;\n/* BUG: wrong */\nint b = 1;\nint c;\n",
    "chapters/01-a/fixed.cu": "/** \\file fixed.cu\n */\nint a;\n"
    "/* FIX: right */\nint b = 2;\nint c;\n",
    "chapters/01-a/CMakeLists.txt": "clinic_chapter(SOURCES k.cu k.cuh)\n",
    "chapters/01-a/k.cu": "int k;\n",  # built into every program
    "chapters/01-a/k.cuh": "int k(void);\n",
    "chapters/01-a/other.cu": "int o;\n",  # a variant
    "chapters/01-a/broken.py": '"""b"""\nx = 1\n',
    "chapters/01-a/fixed.py": '"""f"""\nx = 2\n',
    "chapters/01-a/expected/broken.out": "bad <x>\n[exit status: 1]\n",
    "chapters/01-a/expected/fixed.out": "good\n[exit status: 0]\n",
    "chapters/01-a/expected/broken.py.out": "b\n[exit status: 1]\n",
    "chapters/01-a/expected/fixed.py.out": "f\n[exit status: 0]\n",
    "chapters/01-a/expected/other.out": "o\n[exit status: 1]\n",
    "chapters/02-b/README.md": "# 02 · Beta\n\n**Part: weird.**\n\n"
    "## Cause\n\nSee [a](../01-a/fixed.cu).\n",
    "seeds/README.md": "# Seeds\n\nRun [s1](s1.py).\n",
    "seeds/s1.py": "print(1)\n",
    "seeds/expected/s1.out": "1\n[exit status: 0]\n",
    "common/check_cuda.h": "/** \\file check_cuda.h checks; all */\n",
    "bench/README.md": "# Copy lab\n", "CONTRIBUTING.md": "# Contributing\n",
}
FILES.update({"chapters/02-b/" + name: text for name, text in (
    ("broken.cu", "int b;\n/* BUG: b */\n"), ("CMakeLists.txt", "x()\n"),
    ("fixed.cu", "int b;\n/* FIX: f */\n"),
    ("expected/broken.out", "b\n[exit status: 1]\n"),
    ("expected/fixed.out", "f\n[exit status: 0]\n"))})


class Text(unittest.TestCase):
    def test_text_helpers(self):
        def link(bang, text, target):
            return "<%s%s|%s>" % (bang, text, target)
        for got, want in (  # slugs as GitHub makes them, headings in code not
                (mp.gh_slug("What CUDA *actually* does?"),
                 "what-cuda-actually-does"),
                (mp.gh_slug("`cudaMemcpy` hangs"), "cudamemcpy-hangs"),
                (mp.heading_slugs("# T\n## A\n```\n## no\n```\n## A"),
                 ["a", "a-1"]),
                (mp.plain("**a**  [b](c.md) `d` <i>e</i> \\_f &amp;"),
                 "a b d e _f &"),
                (mp.search_text("## H\n- [x](y)\n| a | b |\n|---|\n```\n"
                                "# code\n```\n> q"), "H x a b # code q"),
                # bold next to code, links, file: URLs; code spans kept
                (mp.inline("**`x`** [a](b) file:1 `[c](d) **e`", link),
                 "<b>`x`</b> <a|b> %file:1 `[c](d) **e`"),
                # code spans as Doxygen 1.9.4 keeps them code
                (mp.code_span('`a "b#"`'), '<code>a \\"b\\#\\"</code>'),
                (mp.code_span("`it's`"), "``it's``"),
                (mp.code_span('`f("x")`'), '`f("x")`'),
                (mp.strip_header("/** a\n */ x\nint y;\n", False),
                 ("int y;\n", 2)),
                (mp.strip_header('"""d"""\nx\n', True), ("x\n", 1)),
                (mp.strip_header("int y;\n", False), ("int y;\n", 0))):
            self.assertEqual(got, want)

    def test_fold_keeps_heading_and_later_sections(self):
        body = "## \\anchor p-fix Fix\n\ntext\n```\n## x\n```\n## \\anchor " \
            "p-h Hint\n"
        out = mp.fold(body, "p-fix", "Try", "it")
        self.assertIn("<details", out.split("text")[0])
        self.assertIn("</details>", out.split("## x")[1].split("Hint")[0])
        self.assertTrue(out.startswith("## \\anchor p-fix Fix\n"))


class SiteTests(unittest.TestCase):
    """The site of FILES, made once."""

    @classmethod
    def setUpClass(cls):
        cls.root = tempfile.mkdtemp()
        for rel, text in FILES.items():
            mp.write(os.path.join(cls.root, rel), text)
        cls.out = os.path.join(cls.root, "out")
        cls.site = mp.Site(cls.root, cls.out, ["01-a", "02-b", "x"])
        mp.make_site(cls.site)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.root)

    def page(self, pid):
        return mp.read_text(os.path.join(self.out, "pages", pid + ".md"))

    def test_links_become_references(self):
        link, b, a = self.site.link, "chapters/02-b", "chapters/01-a"
        for target, pid, folder, want in (
                ("../01-a/README.md#fix", "ch02", b, "@ref ch01-fix"),
                ("../01-a/fixed.cu", "ch02", b, "@ref ch01-fixed-cu"),
                ("chapters/01-a/expected/broken.out", "index", "",
                 "@ref ch01-recorded-output"),
                ("docs/gpu-host.md", "index", "", "@ref gpuhost"),
                ("s1.py", "seeds", "seeds", "@ref seeds-s1py"),
                ("#hint", "ch01", a, "@ref ch01-hint"),
                ("../README.md", "seeds", "seeds", "@ref index"),
                ("https://x.org/a#b", "ch01", "", "https://x.org/a#b"),
                ("tools/x.sh", "index", "", "")):
            self.assertEqual(link(target, pid, folder, "o"), want, target)
        self.assertIn("tools/x.sh", self.site.notes[-1])
        with self.assertRaisesRegex(mp.BuildError, "no such heading.*fix"):
            link("../01-a/README.md#nope", "ch02", "chapters/02-b", "o")
        with self.assertRaisesRegex(mp.BuildError, "does not exist"):
            link("../01-a/gone.cu", "ch02", "chapters/02-b", "o")

    def test_chapter_page(self):
        ch = self.page("ch01")
        self.assertTrue(ch.startswith("# 01 · Alpha {#ch01}"))
        self.assertIn('<div class="clinic-subtitle">the `first` one</div>', ch)
        for anchor in ("symptom", "fix", "hint", "where-the-bug-is",
                       "the-programs", "broken-cu", "fixed-py",
                       "the-fix-as-a-diff", "recorded-output"):
            self.assertIn("\\anchor ch01-%s " % anchor, ch)
        for want in (
                'href="#ch01-fix"', 'href="#ch01-recorded-output"',
                "<b>Part: [pointers](@ref part-pointers).</b>",
                "[b](@ref ch02-cause)", "\\include{lineno} ch01/broken.py",
                "The PyCUDA twin of `broken.cu`.",
                '<div class="line del">-int b = 1;</div>',
                '<div class="line add">+int b = 2;</div>',
                '<div class="line hunk">@@ -4,4 +3,4 @@</div>',
                '<div class="line">bad &lt;x&gt;</div>',
                "exit 0: the results were right",
                "<code>broken.py</code>: exit 1: wrong results",
                '<div class="line clinic-marker"><span class="lineno">5'
                '</span>/&#42; BUG: wrong &#42;/</div>',
                "<code>broken.cu</code>, lines 4–7:", "%file:line:",
                "Next: @ref ch02 →",
                # files built into every program: listed, not recorded
                "\\include{lineno} ch01/k.cuh", "Built into every program",
                "`other.cu`:"):
            self.assertIn(want, ch)
        self.assertNotIn("`k.cu`:", ch)
        fix = ch.split("\\anchor ch01-fix ")[1].split("\\anchor ch01-hint")[0]
        self.assertIn('<details class="clinic-try">', fix)
        self.assertIn("the Hint above", fix)
        self.assertTrue(os.path.isfile(os.path.join(
            self.out, "examples", "ch01", "fixed.cu")))

    def test_other_pages(self):
        main = self.page("mainpage")
        self.assertIn("[symptom](@ref symptoms-wrong)", main)
        self.assertIn("- @subpage symptoms\n- @subpage gpuhost\n", main)
        self.assertIn("- @subpage seeds\n", main)
        self.assertIn("# On a GPU host {#gpuhost}", self.page("gpuhost"))
        chapters = self.page("chapters")
        self.assertIn('- @subpage part-pointers "Part 1: Pointers"', chapters)
        self.assertIn("  - @ref ch01 — the `first` one", chapters)
        self.assertIn("- @subpage ch02", self.page("part-weird"))
        self.assertIn("\\include{lineno} seeds/s1.py", self.page("seeds"))

    def test_search_index(self):
        text = mp.read_text(os.path.join(self.out, "extra",
                                         "clinic-search-index.js"))
        index = json.loads(text[text.index("["):text.rindex("]") + 1])
        by_url = {e["u"]: e for e in index}
        e = by_url["ch01.html#ch01-symptom"]
        self.assertEqual((e["t"], e["s"]), ("01 · Alpha: the first one",
                                            "Symptom"))
        self.assertEqual(e["x"], 'It fails: bad "x\\n" and y at file:line:.')
        self.assertIn("bad <x>", by_url["ch01.html#ch01-recorded-output"]["x"])
        self.assertIn("seeds.html#seeds-s1py", by_url)
        self.assertIn("check__cuda_8h.html", by_url)

    def test_main_reports_errors(self):
        args = ["--root", self.root, "--out", os.path.join(self.root, "o2"),
                "--chapters", "01-a,02-b"]
        self.assertEqual(mp.main(args), 0)
        myths = os.path.join(self.root, "docs", "myths.md")
        mp.write(myths, "# Myths\n\n[x](../chapters/01-a/README.md#nope)\n")
        self.addCleanup(os.remove, myths)
        self.assertEqual(mp.main(args), 1)


if __name__ == "__main__":
    unittest.main()
