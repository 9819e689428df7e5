#!/usr/bin/env python3
"""browser_test.py -- use the built docs site in headless Chromium as a reader
does: click, type or paste, and read what the screen shows (see --help). It
waits on conditions, never fixed sleeps; the scripts it runs in the page are in
browser_test.js. Exit status 1 when a check fails.
"""

import argparse
import glob
import os
import pathlib
import re
import sys
from urllib.parse import unquote, urlsplit

from selenium import webdriver
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

DESKTOP, PHONE, NARROW = (1280, 900), (390, 844), 420
JS = dict(re.findall(r"^//: (\w+).*?\n(.*?)(?=^//: |\Z)", pathlib.Path(
    __file__).with_suffix(".js").read_text(encoding="utf-8"), re.M | re.S))
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
WAYS_IN = ("chapters", "symptoms", "myths")


def fail(msg):
    FAILURES.append(msg)
    print("FAIL: " + msg, flush=True)


def chapters_of(links):
    return re.findall(r"(ch\d\d)\.html", " ".join(links))


def need(where, hrefs, pages=WAYS_IN):
    for page in pages:
        if not any(page in h.split("/")[-1] for h in hrefs):
            fail("%s: no way in to %s" % (where, page))


class Reader:
    """A reader of the site (args.site) in headless Chromium."""

    def __init__(self, args):
        options = webdriver.ChromeOptions()
        options.binary_location = args.chromium
        for arg in ("headless=new no-sandbox disable-gpu disable-dev-shm-usage "
                    "hide-scrollbars force-color-profile=srgb lang=en-US "
                    "disable-extensions disable-component-update").split():
            options.add_argument("--" + arg)  # chromedriver adds the rest
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.d = webdriver.Chrome(service=Service(args.chromedriver),
                                  options=options)
        self.d.set_script_timeout(90)
        self.site, self.root, self.out = args.site, args.root, args.screenshots
        self.base = pathlib.Path(args.site).as_uri() + "/"

    def js(self, name, *args):  # a script that calls done is waited for
        run = self.d.execute_async_script if re.search(
            r"\bdone\b", JS[name]) else self.d.execute_script
        return run(JS["HELPERS"] + JS[name], *args)

    def wait(self, timeout=10):
        return WebDriverWait(self.d, timeout, poll_frequency=0.02)

    def viewport(self, size, mobile=False):
        self.d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", dict(
            width=size[0], height=size[1], deviceScaleFactor=1, mobile=mobile))

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

    def shot(self, name, anchor=None):  # scrolled to the element anchor
        if anchor:
            self.d.execute_script("document.getElementById(arguments[0])"
                                  ".scrollIntoView()", anchor)
        self.js("SETTLE")
        self.d.save_screenshot(os.path.join(self.out, name + ".png"))

    def read_page(self, path):
        """Fails for the page's literal markup and links out of the site;
        returns its facts and its other links: [(target, fragment, text)]."""
        facts, links = self.js("FACTS"), []
        for what in facts["markup"]:
            fail("%s: literal markup %s" % (path, what))
        for raw, url, text in facts["links"]:
            if raw.startswith("javascript:") or raw == "#":
                continue
            if url.startswith(self.base):
                target, _, frag = url[len(self.base):].partition("#")
                links.append((unquote(target) or "index.html", unquote(frag),
                              text))
            elif urlsplit(url).scheme not in ("http", "https", "mailto"):
                fail("%s: link %r (%s) leaves the site" % (path, raw, text))
        return facts, links

    def crawl(self, visit):
        """Opens every page reachable from the main page; visit(path, facts)
        checks more and returns more links to check. Returns {path: facts}."""
        pages, links, queue = {}, [], ["index.html"]
        while queue:
            path = queue.pop(0)
            self.d.get(self.base + path)
            try:
                self.ready()
                pages[path], found = self.read_page(path)
                found += visit(path, pages[path])
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
                if entry["level"] == "SEVERE":
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
        """A chapter page, as it arrives, against the chapter's folder;
        returns its sections, as links for the crawl to check."""
        num, page = folder[:2], "ch%s.html" % folder[:2]
        if not facts["title"].startswith(num):
            fail("%s: title %r lacks the number" % (page, facts["title"]))
        f = self.js("CHAPTER", num)
        for what in f["bad"]:
            fail("%s: %s" % (page, what))
        for out in sorted(glob.glob(os.path.join(
                self.root, "chapters", folder, "expected", "*.out"))):
            name = os.path.basename(out)  # skip a sanitizer's (README quotes)
            record = re.sub(r"\s+", "", pathlib.Path(out).read_text("utf-8"))
            if re.match(r"\w+(\.py)?\.out\Z", name) and \
                    record not in f["outputs"]:
                fail("%s: the recorded output %s is not shown" % (page, name))
        heads = ["the programs", "the fix as a diff", "recorded output"]
        readme = pathlib.Path(self.root, "chapters", folder, "README.md")
        heads += re.findall(r"^## +(.*?) *$", readme.read_text("utf-8"), re.M)
        return [(page, "ch%s-%s" % (num, re.sub(r"[^a-z0-9 _-]", "", h.lower())
                                    .replace(" ", "-")), "section " + h)
                for h in heads]

    def check_navtree(self, path):
        """On a chapter page, the tree selects that chapter; on the main
        page, a click on the Chapters entry's arrow shows the parts."""
        if path != "index.html":
            sel = self.d.find_elements(By.CSS_SELECTOR, "#nav-tree #selected")
            if not sel or not sel[0].text.strip().startswith(path[2:4]):
                fail("navigation tree on %s selects %r" % (
                    path, sel[0].text if sel else None))
            return
        try:
            self.js("SETTLE")
            self.d.find_element(By.XPATH, "//*[@id='nav-tree']//a[contains("
                                "@href,'chapters.html')]/ancestor::div[1]"
                                "/a/span").click()
            self.wait().until(lambda d: any(a.is_displayed() for a in (
                d.find_elements(By.CSS_SELECTOR, "#nav-tree a[href*=part-]"))))
        except WebDriverException as e:
            fail("navigation tree: Chapters does not open to show the parts"
                 " (%s)" % e.__class__.__name__)

    def menu(self, where, pages=WAYS_IN):
        """The menu's links in view (the top tabs, or the phone menu when
        open), which must lead to pages."""
        links = [a for a in self.d.find_elements(By.CSS_SELECTOR,
                                                 "#main-menu a")
                 if a.is_displayed()]
        need(where, [a.get_attribute("href") for a in links], pages)
        return links

    def click(self, where, links, target):
        try:
            next(a for a in links
                 if a.get_attribute("href").endswith(target)).click()
            self.wait().until(lambda d: d.current_url.endswith(target))
            self.ready(settle=True)
        except (WebDriverException, StopIteration) as e:
            fail("%s: a click does not open %s (%s)" % (
                where, target, e.__class__.__name__))

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
        out = self.js("RESULTS", query)
        for what in out["bad"]:
            fail("search %r: %s" % (query, what))
        return out["links"], out["said"]

    def check_queries(self, chapters):
        """Queries typed into the main page's box, one after another."""
        self.open("index.html")
        for query, slug, rank in QUERIES:
            links = self.search(query)[0][:rank]
            print("search %r: %s" % (query, [h.split("/")[-1] for h in links]))
            if not any(c[3:] == slug and "ch" + c[:2] in chapters_of(links)
                       for c in chapters):
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

    def check_symptom_search(self, num):
        """Each row of the symptom index: its longest code term, pasted into
        the box, finds a chapter the row links to; Enter opens the first
        result; a link to a chapter's Fix opens its fold."""
        self.open("symptoms.html")
        rows = self.js("ROWS")
        for row in rows:
            linked = set(chapters_of(row["links"]))
            found = set(chapters_of(self.search(row["term"], paste=True)[0]))
            if not found & linked:
                fail("search %r (symptom %r) finds none of %s; it finds %s"
                     % (row["term"], row["text"], sorted(linked),
                        sorted(found)))
        print("search: %d symptom terms checked" % len(rows))
        links = self.search("illegal memory access")[0]
        self.d.find_element(By.ID, "MSearchField").send_keys(Keys.ENTER)
        try:
            self.wait().until(lambda d: d.current_url == links[0])
        except (TimeoutException, IndexError):
            fail("search: Enter opened %s, not the first result %s"
                 % (self.d.current_url, links[:1]))
        self.open("ch%s.html#ch%s-fix" % (num, num))
        folds = self.d.find_elements(By.CSS_SELECTOR, "details.clinic-try")
        if not folds or not folds[0].get_attribute("open"):
            fail("ch%s.html#ch%s-fix: the link leaves the fix folded"
                 % (num, num))

    def check_listings(self, page):
        for what in self.js("LISTINGS"):
            fail("%s %s" % (page, what))

    def check_phone(self, pages, shots):
        """Every page of pages at phone width: what sticks out, screenshots;
        then the menu, and the symptom index at 420 px."""
        self.viewport(PHONE, mobile=True)
        for path in pages:
            self.open(path)
            for name, anchor in shots.get(path, []):
                self.shot(name + "-phone", anchor)
            self.check_listings(path)
        self.open("index.html", settle=True)
        for target in ("chapters.html", "doctor.html"):
            self.d.find_element(By.CSS_SELECTOR, "label.main-menu-btn").click()
            self.js("SETTLE")
            links = self.menu("phone menu", WAYS_IN + ("doctor",))
            self.shot("phone-menu")
            self.click("phone menu", links, target)
        self.shot("phone-doctor")
        self.open("index.html")
        self.search("stale data")
        self.shot("search-phone")
        self.viewport((NARROW, PHONE[1]), mobile=True)
        self.open("symptoms.html")
        self.check_listings("symptoms.html")
        self.viewport(DESKTOP)

    def check_pages(self, chapters, shots, listings):
        """The crawl, with the checks made at desktop width in each page's
        visit; the top tabs; the phone widths."""
        chapters = {"ch%s.html" % c[:2]: c for c in chapters}

        def visit(path, facts):
            found = self.check_chapter(chapters[path], facts) \
                if path in chapters else []
            for name, anchor in shots.get(path, []):
                self.shot(name + "-desktop", anchor)
            if path in listings:
                self.check_listings(path)
            if path == "index.html":  # the ways in, before the first heading
                need("index.html: the opening", self.js("OPENING"))
            if path in ("index.html", max(chapters, default=None)):
                self.check_navtree(path)
            return found
        pages = self.crawl(visit)
        wanted = list(dict.fromkeys(listings + list(shots)))
        for path in wanted:
            if path not in pages:
                fail("%s: not reachable from the main page" % path)
        tabs = self.menu("top tabs")  # each opens a page with text
        for a in tabs[1:]:
            href = a.get_attribute("href")[len(self.base):]
            if pages.get(href, {"words": 0})["words"] < 30:
                fail("top tab %r opens %s, not a page of text" % (a.text, href))
        self.click("top tabs", tabs, "myths.html")
        self.check_phone(wanted, shots)


def shot_list(num):
    """{page: [(screenshot name, anchor scrolled to)]}."""
    ch = "ch%s-" % num
    return {"index.html": [("main", "top")],
            "symptoms.html": [("symptoms", "top")],
            "myths.html": [("myths", "top"),
                           ("myths-sources", "myths-sources")],
            "ch%s.html" % num: [("chapter", "top"), ("chapter-fix", ch + "fix"),
                                ("chapter-where", ch + "where-the-bug-is"),
                                ("chapter-diff", ch + "the-fix-as-a-diff"),
                                ("chapter-output", ch + "recorded-output")]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for name in "site screenshots root chromium chromedriver".split():
        ap.add_argument("--" + name, required=True)  # root: the repository's
    ap.add_argument("--chapters", default="", help="chapter folders, a,b,...")
    ap.add_argument("--part", choices=("pages", "search"),
                    help="only the crawl, tabs and phone checks (pages) or "
                    "only the search checks (search); both without it")
    args = ap.parse_args()
    args.site = os.path.abspath(args.site)
    if not os.path.isfile(os.path.join(args.site, "index.html")):
        print("FAIL: no site at %s (build the docs target first)" % args.site)
        return 1
    chapters = [c for c in args.chapters.split(",") if c]
    num = next((c[:2] for c in chapters if c.startswith("08")),
               chapters[0][:2] if chapters else "00")
    os.makedirs(args.screenshots, exist_ok=True)
    listings = [p + ".html" for p in
                "index symptoms myths python doctor seeds".split()
                if os.path.isfile(os.path.join(args.site, p + ".html"))]
    listings += ["ch%s.html" % c[:2] for c in chapters]
    reader = Reader(args)
    try:
        reader.viewport(DESKTOP)
        if args.part != "search":
            reader.check_pages(chapters, shot_list(num), listings)
        if args.part != "pages":
            reader.check_queries(chapters)
            reader.check_symptom_search(num)
    finally:
        reader.d.quit()
    if FAILURES:
        print("\n%d failure(s)" % len(FAILURES))
        return 1
    print("docs.browser%s: all checks passed" % (
        "." + args.part if args.part else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
