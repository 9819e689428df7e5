#!/usr/bin/env python3
"""browser_test.py -- use the built docs site in headless Chromium as a reader
does: click, type or paste, and read what the screen shows (see --help).

Every page reachable from the main page (links, anchors, no literal markup or
script error), each chapter against its folder, the navigation tree, the top
tabs, the phone menu, the search (typed and pasted), listings at phone width.
Waits on conditions, never fixed sleeps; the scripts it runs in the page are
in browser_test.js. Exit status 1 when a check fails.
"""

import argparse
import functools
import glob
import http.server
import os
import re
import sys
import threading
import urllib.parse

from selenium import webdriver
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

DESKTOP, PHONE, NARROW = (1280, 900), (390, 844), 420
MARKUP = re.compile(r"\*\*|</?(strong|tt|b|em|code)>|@ref\b|@subpage\b|"
                    r"\\anchor\b|\\htmlonly|\{#[a-z]|`")
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "browser_test.js"), encoding="utf-8") as js:
    JS = dict(re.findall(r"^//: (\w+).*?\n(.*?)(?=^//: |\Z)", js.read(),
                         re.M | re.S))  # {name: the script after its line}
FAILURES = []
# Queries people type: (query, the chapter's slug, how high it must rank).
QUERIES = [("segfault", "device-pointer-on-host", 3),
           ("out of memory", "unchecked-allocation", 3),
           ("illegal memory access", "host-pointer-in-kernel", 3),
           ("struct padding", "struct-layout-mismatch", 3),
           ("2048 threads per block", "block-too-large", 3),
           ("in-kernel malloc NULL", "device-heap-exhausted", 3),
           ("2GB", "index-overflow", 1),
           ("my cudaMemcpy returns zeros", "nonblocking-stream", 1),
           ("why doesn\u2019t cudaMemcpy wait for my kernel",
            "nonblocking-stream", 1),
           ("cudaMemset doesn't set my ints to 1", "memset-sets-bytes", 1)]
SAME = ("2GB", "2 GB", "2 GiB", "2gib")  # one size: the same first result
LITTLE = ("doesn't", "doesn\u2019t", "does not")  # say too little


def fail(msg):
    FAILURES.append(msg)
    print("FAIL: " + msg, flush=True)


def chapters_of(links):
    return re.findall(r"(ch\d\d)\.html", " ".join(links))


def serve(site):
    quiet = type("Quiet", (http.server.SimpleHTTPRequestHandler,),
                 {"log_message": lambda *args: None})
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(quiet, directory=site))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, "http://127.0.0.1:%d/" % server.server_address[1]


def start_browser(chromium, chromedriver):
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("headless=new no-sandbox disable-gpu disable-dev-shm-usage "
                "hide-scrollbars force-color-profile=srgb lang=en-US "
                "window-size=%d,%d disable-extensions disable-component-update"
                % DESKTOP).split():  # chromedriver adds no-first-run & co.
        options.add_argument("--" + arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(chromedriver), options=options)
    driver.set_script_timeout(90)
    return driver


class Reader:
    """A reader of the site at base in driver; screenshots go to outdir."""

    def __init__(self, driver, base, site, root, outdir):
        self.d, self.base, self.site = driver, base, site
        self.root, self.outdir = root, outdir

    def js(self, name, *args):  # a script that calls done is waited for
        run = self.d.execute_async_script if re.search(
            r"\bdone\b", JS[name]) else self.d.execute_script
        return run(JS["HELPERS"] + JS[name], *args)

    def wait(self, timeout=10):
        return WebDriverWait(self.d, timeout, poll_frequency=0.02)

    def viewport(self, size, mobile=False):
        self.d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": size[0], "height": size[1], "deviceScaleFactor": 1,
            "mobile": mobile})

    def ready(self, settle=False):
        state = self.js("READY", 15, settle)
        if not state["loaded"]:
            raise TimeoutException("%s did not load" % self.d.current_url)
        if not state["tree"]:
            fail("%s: the navigation tree stayed empty" % self.d.current_url)

    def open(self, path, settle=False):
        if "#" in path:  # a new load, even where only the #anchor differs
            self.d.get("about:blank")
        self.d.get(self.base + path)
        self.ready(settle)

    def shot(self, name, anchor=None):  # scrolled to anchor, "": the top
        if anchor is not None:
            self.d.execute_script("document.getElementById(arguments[0])"
                                  ".scrollIntoView()", anchor or "top")
        self.js("SETTLE")
        self.d.save_screenshot(os.path.join(self.outdir, name + ".png"))

    def read_page(self, path):
        """The facts of the page shown; its literal markup fails. Returns
        (facts, [(target path, fragment, text)] of its links in the site)."""
        facts, links = self.js("FACTS"), []
        for title in facts["titles"]:
            if re.search(r"[<>`]|\*\*|&lt;", title):
                fail("%s: literal markup in the title %r" % (path, title))
        for t in facts["text"]:
            m = MARKUP.search(t)
            if m:
                fail("%s: literal markup %r in %r"
                     % (path, m.group(0), t[:120]))
        for raw, url, text in facts["links"]:
            parts = urllib.parse.urlsplit(url)
            if raw.startswith("javascript:") or raw == "#":
                continue
            if not url.startswith(self.base):
                if parts.scheme not in ("http", "https", "mailto") or \
                        parts.hostname in ("127.0.0.1", "localhost"):
                    fail("%s: link %r (%s) leaves the site" % (path, raw,
                                                               text))
                continue
            target = urllib.parse.unquote(parts.path[1:]) or "index.html"
            links.append((target, urllib.parse.unquote(parts.fragment), text))
        return facts, links

    def crawl(self, visit):
        """Opens every page reachable from the main page; visit(path) makes
        that page's other checks in the same visit. Returns {path: facts}."""
        pages, links, queue = {}, [], ["index.html"]
        while queue:
            path = queue.pop(0)
            self.d.get(self.base + path)
            try:
                self.ready()
                pages[path], found = self.read_page(path)
                visit(path, pages[path])
            except TimeoutException:
                fail("%s: did not finish loading" % path)
                continue
            for target, frag, text in found:
                links.append((path, target, frag, text))
                if target.endswith(".html") and "/" not in target and \
                        target not in pages and target not in queue and \
                        os.path.isfile(os.path.join(self.site, target)):
                    queue.append(target)
            for entry in self.d.get_log("browser"):
                if entry["level"] == "SEVERE" and "favicon" not in \
                        entry["message"]:
                    fail("%s: script error: %s" % (path, entry["message"]))
        for page, target, frag, text in links:
            if not os.path.isfile(os.path.join(self.site, target)):
                fail("%s: broken link to %s (%r)" % (page, target, text))
            elif frag and target in pages and \
                    frag not in pages[target]["ids"]:
                fail("%s: link to %s#%s (%r): no such anchor"
                     % (page, target, frag, text))
        print("crawl: %d pages, %d links" % (len(pages), len(links)))
        return pages

    def check_chapter(self, folder, facts):
        """A chapter page, as it arrives, against the chapter's folder."""
        num, page = folder[:2], "ch%s.html" % folder[:2]
        if not facts["titles"][1].startswith(num):
            fail("%s: title %r lacks the number" % (page, facts["titles"][1]))
        want = ["the-programs", "the-fix-as-a-diff", "recorded-output"]
        with open(os.path.join(self.root, "chapters", folder, "README.md"),
                  encoding="utf-8") as f:
            want += [re.sub(r"[^a-z0-9 _-]", "", h.lower()).replace(" ", "-")
                     for h in re.findall(r"^## +(.*?) *$", f.read(), re.M)]
        for a in want:
            if "ch%s-%s" % (num, a) not in facts["ids"]:
                fail("%s: no section ch%s-%s" % (page, num, a))
        f = self.js("CHAPTER", num)
        for what in f["bad"]:
            fail("%s: %s" % (page, what))
        for out in sorted(glob.glob(os.path.join(
                self.root, "chapters", folder, "expected", "*.out"))):
            if not re.match(r"\w+(\.py)?\.out\Z", os.path.basename(out)):
                continue  # a sanitizer's report, which the README quotes
            with open(out, encoding="utf-8") as o:
                record = re.sub(r"\s+", "", o.read())
            if not any(record == re.sub(r"\s+", "", t)
                       for t in f["outputs"]):
                fail("%s: the recorded output %s is not shown" % (
                    page, os.path.basename(out)))

    def check_theme(self, page):
        """The theme's extensions are at work (on the first chapter)."""
        for what, css in (
                ("copy buttons", "doxygen-awesome-fragment-copy-button"),
                ("dark mode toggle", "doxygen-awesome-dark-mode-toggle"),
                ("interactive table of contents",
                 ".contents > .toc.interactive")):
            if not self.d.find_elements(By.CSS_SELECTOR, css):
                fail("%s: no %s (%s)" % (page, what, css))

    def check_navtree(self, path):
        """On the main page, a click on the Chapters entry's arrow shows the
        parts; on a chapter page, the tree selects that chapter."""
        if path != "index.html":
            sel = self.d.find_elements(By.CSS_SELECTOR, "#nav-tree #selected")
            if not sel or not sel[0].text.strip().startswith(path[2:4]):
                fail("navigation tree on %s selects %r" % (
                    path, sel[0].text if sel else None))
            return
        try:
            self.js("SETTLE")
            self.d.find_element(By.XPATH, "//div[@id='nav-tree']//a[contains("
                                "@href,'chapters.html')]/ancestor::div["
                                "contains(@class,'item')][1]/a[span[contains("
                                "@class,'arrow')]]").click()
            self.wait().until(lambda d: self.js("PARTS"))
        except (WebDriverException, TimeoutException) as e:
            fail("navigation tree: Chapters does not open to show the parts"
                 " (%s)" % e.__class__.__name__)

    def check_tabs(self, pages):
        """The top tabs lead to the site's ways in, each a page with text (as
        the crawl read it); a click on one opens its page."""
        tabs = self.js("TABS")
        for need in ("chapters.html", "symptoms.html", "myths.html"):
            if not any(h.endswith(need) for _, h in tabs):
                fail("no top tab leads to %s" % need)
        for text, href in tabs[1:]:
            words = pages.get(href[len(self.base):], {}).get("words", 0)
            if words < 30:
                fail("top tab %r opens %s, a page of %d words" % (
                    text, href, words))
        try:
            self.d.find_element(By.LINK_TEXT, "Myths").click()
            self.wait(5).until(lambda d: d.current_url.endswith("myths.html"))
        except (WebDriverException, TimeoutException) as e:
            fail("top tab Myths: a click does not open it (%s)" %
                 e.__class__.__name__)

    def search(self, query, paste=False):
        """Clicks the search box, clears it as a person does (select all,
        delete), types or pastes the query and reads the results shown:
        (links, what the list says when it lists nothing)."""
        field = self.d.find_element(By.ID, "MSearchField")
        field.click()
        field.send_keys(Keys.CONTROL, "a", Keys.NULL, Keys.DELETE)
        if paste:
            self.d.execute_cdp_cmd("Input.insertText", {"text": query})
        else:
            field.send_keys(query)
        out = self.js("RESULTS")
        if out["value"] != query:
            fail("search: typed %r, the box holds %r" % (query, out["value"]))
        if not out["shown"]:
            fail("search %r: no results list" % query)
        for hit in out["hits"]:
            text = hit["text"]
            for a, b in hit["marks"]:
                if b - a < 2 or re.match(r"\w", text[a - 1:a] or " ") or \
                        re.match(r"\w", text[b:b + 1] or " "):
                    fail("search %r: the highlight %r sits inside a word: %r"
                         % (query, text[a:b], text[max(0, a - 20):b + 20]))
            if re.search(r"[@\\](ref|subpage|anchor)\b|\A#+ ", text):
                fail("search %r: a result shows the source: %r"
                     % (query, text[:120]))
        return out["links"], out["said"]

    def check_queries(self, chapters):
        """Queries typed into the main page's box, one after another."""
        self.open("index.html")
        for query, slug, rank in QUERIES:
            folder = [c for c in chapters if c[3:] == slug]
            links = self.search(query)[0]
            print("search %r: %s" % (query, [h.split("/")[-1]
                                             for h in links[:rank]]))
            if not folder or "ch" + folder[0][:2] not in chapters_of(
                    links[:rank]):
                fail("search %r: chapter %s is not among the first %d "
                     "results" % (query, slug, rank))
            if rank == 3 or query == "2GB":
                self.shot("search-" + re.sub(r"\W+", "-", query.lower()))
        firsts = {q: (self.search(q)[0] or [None])[0] for q in SAME}
        if len(set(firsts.values())) != 1:
            fail("search: one size spelled several ways: %s" % firsts)
        for query in LITTLE:
            links, said = self.search(query)
            if links or "too little" not in said:
                fail("search %r: lists %d results and says %r" % (
                    query, len(links), said))
        self.shot("search-little-words")
        self.search("stale data")
        self.shot("search-desktop")

    def check_symptom_search(self):
        """Each row of the symptom index: its longest code term, pasted into
        the box, finds a chapter the row links to; Enter opens the first
        result."""
        self.open("symptoms.html")
        checked = 0
        for row in self.js("ROWS"):
            terms = sorted((t for t in row["terms"] if len(t) >= 6), key=len)
            linked = set(chapters_of(row["links"]))
            if not terms or not linked:
                continue
            found = set(chapters_of(self.search(terms[-1], paste=True)[0]))
            checked += 1
            if not found & linked:
                fail("search %r (symptom %r) finds none of %s; it finds %s"
                     % (terms[-1], row["text"][:60], sorted(linked),
                        sorted(found)))
        print("search: %d symptom terms checked" % checked)
        links = self.search("illegal memory access")[0]
        before = self.d.current_url
        self.d.find_element(By.ID, "MSearchField").send_keys(Keys.ENTER)
        try:
            self.wait().until(lambda d: d.current_url != before)
            self.ready()
            if links and self.d.current_url != links[0]:
                fail("search: Enter opened %s, not the first result %s"
                     % (self.d.current_url, links[0]))
        except TimeoutException:
            fail("search: Enter did not open the first result")

    def check_listings(self, page):
        cut, wide, window, culprit = self.js("LISTINGS")
        if cut:
            fail("%s at %d px: %d listing(s) cut off, e.g. %r" % (
                page, window, len(cut), cut[0]))
        if wide > window:
            fail("%s at %d px: the page scrolls sideways, %d px wide (%s)"
                 % (page, window, wide, culprit))

    def check_symptom_links(self, width):
        off = self.js("OFFSCREEN")
        if off:
            fail("symptoms.html at %d px: %d links off-screen, e.g. %s" % (
                width, len(off), ", ".join(off[:5])))

    def phone_menu(self, target):
        """Opens the phone menu, checks its ways in and clicks target."""
        try:
            self.d.find_element(By.CSS_SELECTOR, "label.main-menu-btn").click()
            self.wait(5).until(lambda d: d.find_element(
                By.ID, "main-menu").is_displayed())
            self.js("SETTLE")
            links = [a for a in self.d.find_elements(By.CSS_SELECTOR,
                                                     "#main-menu a")
                     if a.is_displayed()]
            hrefs = [a.get_attribute("href") for a in links]
            for need in ("chapters", "symptoms", "myths", "doctor"):
                if not any(h.endswith(need + ".html") for h in hrefs):
                    fail("phone menu: no link to %s.html" % need)
            self.shot("phone-menu")
            links[[h.endswith(target) for h in hrefs].index(True)].click()
            self.wait().until(lambda d: d.current_url.endswith(target))
            self.ready(settle=True)
        except (WebDriverException, TimeoutException, ValueError) as e:
            fail("phone menu: could not reach %s (%s)" % (
                target, e.__class__.__name__))

    def check_phone(self, pages, shots):
        """Every page of pages at phone width: listings, sideways scrolling,
        screenshots; then the menu, and the symptom index at 420 px."""
        self.viewport(PHONE, mobile=True)
        for path in pages:
            self.open(path)
            for name, anchor in shots.get(path, []):
                self.shot(name + "-phone", anchor or "")
            self.check_listings(path)
        self.open("index.html", settle=True)
        for target in ("chapters.html", "doctor.html"):
            self.phone_menu(target)
        self.shot("phone-doctor")
        self.open("index.html")
        self.search("stale data")
        self.shot("search-phone")
        self.viewport((NARROW, PHONE[1]), mobile=True)
        self.open("symptoms.html")
        self.check_symptom_links(NARROW)
        self.viewport(DESKTOP)

    def check_pages(self, chapters, shots, listings):
        """The crawl, with the checks made at desktop width in each page's
        visit; the top tabs; the phone widths."""
        chapters = {"ch%s.html" % c[:2]: c for c in chapters}

        def visit(path, facts):
            if path == "symptoms.html":
                self.check_symptom_links(DESKTOP[0])
            if path in chapters:
                self.check_chapter(chapters[path], facts)
                if path == min(chapters):
                    self.check_theme(path)
                if path == max(chapters):
                    self.check_navtree(path)
            for name, anchor in shots.get(path, []):
                self.shot(name + "-desktop", anchor or "")
            if path in listings:
                self.check_listings(path)
            if path == "index.html":  # the ways in, before the first heading
                first = self.js("OPENING")
                for need in ("symptoms.html", "chapters", "myths.html"):
                    if not any(need in h for h in first):
                        fail("index.html: the opening has no way in to %s"
                             % need)
                self.check_navtree(path)
        pages = self.crawl(visit)
        wanted = list(dict.fromkeys(listings + list(shots)))
        for path in wanted:
            if path not in pages:
                fail("%s: not reachable from the main page" % path)
        self.check_tabs(pages)
        self.check_phone(wanted, shots)


def shot_list(num):
    """{page: [(screenshot name, anchor scrolled to)]}."""
    return {"index.html": [("main", None)],
            "symptoms.html": [("symptoms", None)],
            "myths.html": [("myths", None), ("myths-sources",
                                             "myths-sources")],
            "ch%s.html" % num: [("chapter", None)] + [
                ("chapter-" + n, "ch%s-%s" % (num, a)) for n, a in (
                    ("fix", "fix"), ("where", "where-the-bug-is"),
                    ("diff", "the-fix-as-a-diff"),
                    ("output", "recorded-output"))]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for name in ("site", "screenshots", "root"):  # the repository's root
        ap.add_argument("--" + name, required=True)
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    ap.add_argument("--chapters", default="", help="chapter folders, a,b,...")
    ap.add_argument("--part", choices=("pages", "search"),
                    help="only the crawl, tabs and phone checks (pages) or "
                    "only the search checks (search); both without it")
    args = ap.parse_args()
    site = os.path.abspath(args.site)
    if not os.path.isfile(os.path.join(site, "index.html")):
        print("FAIL: no site at %s (build the docs target first)" % site)
        return 1
    chapters = [c for c in args.chapters.split(",") if c]
    num = next((c[:2] for c in chapters if c.startswith("08")),
               chapters[0][:2] if chapters else "00")
    os.makedirs(args.screenshots, exist_ok=True)
    listings = [p for p in ("index.html", "symptoms.html", "myths.html",
                            "python.html", "doctor.html", "seeds.html")
                if os.path.isfile(os.path.join(site, p))]
    listings += ["ch%s.html" % c[:2] for c in chapters]
    server, base = serve(site)
    driver = start_browser(args.chromium, args.chromedriver)
    reader = Reader(driver, base, site, args.root, args.screenshots)
    try:
        reader.viewport(DESKTOP)
        if args.part != "search":
            reader.check_pages(chapters, shot_list(num), listings)
        if args.part != "pages":
            reader.check_queries(chapters)
            reader.check_symptom_search()
            reader.open("ch%s.html#ch%s-fix" % (num, num))  # opens its fold
            if not reader.js("FOLDED"):
                fail("ch%s.html#ch%s-fix: the link leaves the fix folded"
                     % (num, num))
    finally:
        driver.quit()
        server.shutdown()
    if FAILURES:
        print("\n%d failure(s)" % len(FAILURES))
        return 1
    print("docs.browser%s: all checks passed" % (
        "." + args.part if args.part else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
