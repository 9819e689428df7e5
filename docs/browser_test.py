#!/usr/bin/env python3
"""browser_test.py -- use the built docs site in headless Chromium as a reader
does: click, type or paste, and read what the screen shows.

    browser_test.py --site build/docs/html --screenshots <dir> --root <repo>
                    [--chromium chromium] [--chromedriver chromedriver]
                    [--chapters 01-a,02-b,...] [--part pages|search]

Opens every page reachable from the main page: links, anchors, no literal
markup or script error; each chapter against its folder (sections, where the
bug is, diff, recorded outputs, Fix folded); the navigation tree, the top
tabs and the phone menu; the search, typed and pasted; listings and phone
widths. --part runs half of it (pages: the crawl, tabs and phone widths;
search: the queries, the symptom terms and the Fix link), so that the two
halves can run side by side (docs.browser.pages, docs.browser.search).
Waits on conditions, never fixed sleeps. Exit status 0 when all is
well, 1 with the failures listed. (Debian 12: apt-get install chromium
chromium-driver python3-selenium)
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
FAILURES = []


def fail(msg):
    FAILURES.append(msg)
    print("FAIL: " + msg, flush=True)


def wait(driver, timeout=10):
    return WebDriverWait(driver, timeout, poll_frequency=0.02)


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(site):
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=site))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, "http://127.0.0.1:%d/" % server.server_address[1]


def start_browser(chromium, chromedriver):
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--hide-scrollbars",
                "--force-color-profile=srgb", "--lang=en-US",
                "--window-size=%d,%d" % DESKTOP, "--disable-extensions",
                "--disable-background-networking", "--disable-sync",
                "--disable-component-update", "--no-first-run"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(chromedriver), options=options)
    driver.set_script_timeout(90)
    return driver


def set_viewport(driver, size, mobile=False):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": size[0], "height": size[1], "deviceScaleFactor": 1,
        "mobile": mobile})


# Helpers run in the page: how many animations run (jQuery's, and CSS's that
# end), waiting for a condition every 10 ms, and whether an element shows.
HELPERS_JS = r"""
function running() {
  var n = window.jQuery && jQuery.timers ? jQuery.timers.length : 0;
  (document.getAnimations ? document.getAnimations() : []).forEach(
    function (a) {
      var end = a.effect ? a.effect.getComputedTiming().endTime : 0;
      if (a.playState === 'running' && isFinite(end)) n++;
    });
  return n;
}
function until(test, ms, then) {
  var end = performance.now() + ms;
  (function look() {
    var ok = false;
    try { ok = test(); } catch (e) {}
    if (ok || performance.now() > end) then(ok); else setTimeout(look, 10);
  })();
}
function frames(then) {
  requestAnimationFrame(function () { requestAnimationFrame(then); });
}
function shows(e) {
  var r = e.getBoundingClientRect(), s = getComputedStyle(e);
  return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' &&
         !e.closest('[hidden], details:not([open]) > :not(summary)');
}
"""
# The page loaded, jQuery's ready handlers run, the navigation tree filled
# and (within 3 s) synced, no animation running with settle, two frames.
READY_JS = HELPERS_JS + r"""
var limit = arguments[0] * 1000, settle = arguments[1];
var done = arguments[arguments.length - 1], out = {loaded: false};
var tree = function () { return document.getElementById('nav-tree'); };
until(function () { return document.readyState === 'complete'; }, limit,
  function (ok) {
    out.loaded = ok;
    if (!ok) return done(out);
    var ran = !window.jQuery;
    if (window.jQuery) jQuery(function () { ran = true; });
    until(function () { return ran; }, limit, function () {
      until(function () {
        return !tree() || tree().querySelectorAll('a[href]').length > 1;
      }, limit, function (ok) {
        out.tree = ok;
        until(function () { return !tree() || tree().querySelector(
          '#selected'); }, 3000, function () {
          until(function () { return !settle || !running(); }, limit,
                function () { frames(function () { done(out); }); });
        });
      });
    });
  });
"""


def wait_ready(driver, settle=False):
    state = driver.execute_async_script(READY_JS, 15, settle)
    if not state["loaded"]:
        raise TimeoutException("%s did not load" % driver.current_url)
    if not state["tree"]:
        fail("%s: the navigation tree stayed empty" % driver.current_url)


def settle(driver):
    driver.execute_async_script(
        HELPERS_JS + "var done = arguments[0];"
        "until(function () { return !running(); }, 10000, function () {"
        " frames(function () { done(true); }); });")


def open_page(driver, url, settle=False):
    """Opens url as a new load, even where only its #anchor differs."""
    here = urllib.parse.urldefrag(driver.current_url)[0]
    if "#" in url and urllib.parse.urldefrag(url)[0] == here:
        driver.get("about:blank")
    driver.get(url)
    wait_ready(driver, settle)


def shot(driver, outdir, name):
    settle(driver)
    driver.save_screenshot(os.path.join(outdir, name + ".png"))


def scroll_shot(driver, outdir, name, anchor):
    driver.execute_script("var e = document.getElementById(arguments[0]);"
                          " if (e) e.scrollIntoView();", anchor or "top")
    shot(driver, outdir, name)


# What a reader sees of a page: its text outside code, its ids, its links.
FACTS_JS = r"""
var skip = 'pre, code, tt, kbd, .fragment, script, style, textarea, ' +
  '#clinic-search-results, #MSearchResultsWindow, #MSearchSelectWindow';
var texts = [], ids = [], links = [], n;
var walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
while ((n = walker.nextNode()))
  if (n.parentElement && !n.parentElement.closest(skip) && n.nodeValue.trim())
    texts.push(n.nodeValue);
document.querySelectorAll('[id]').forEach(function (e) { ids.push(e.id); });
document.querySelectorAll('a[name]').forEach(function (e) {
  ids.push(e.getAttribute('name')); });
document.querySelectorAll('a[href]').forEach(function (a) {
  links.push([a.getAttribute('href'), a.href, a.textContent.trim()]); });
var title = document.querySelector('.title');
var contents = document.querySelector('div.contents');
return {text: texts, ids: ids, links: links, titles: [document.title,
        title ? title.textContent.trim() : ''],
        words: contents ? contents.innerText.split(/\s+/).length : 0};
"""


def read_page(driver, path, base, site):
    """The facts of the page shown; its literal markup fails. Returns
    (facts, [(target path, fragment, text)] of its links in the site)."""
    facts = driver.execute_script(FACTS_JS)
    for title in facts["titles"]:
        if re.search(r"[<>`]|\*\*|&lt;", title):
            fail("%s: literal markup in the title %r" % (path, title))
    for t in facts["text"]:
        m = MARKUP.search(t)
        if m:
            fail("%s: literal markup %r in %r" % (path, m.group(0), t[:120]))
    links = []
    for raw, url, text in facts["links"]:
        parts = urllib.parse.urlsplit(url)
        if raw.startswith("javascript:") or raw == "#":
            continue
        if not url.startswith(base):
            if parts.scheme not in ("http", "https", "mailto") or \
                    parts.hostname in ("127.0.0.1", "localhost"):
                fail("%s: link %r (%s) leaves the site" % (path, raw, text))
            continue
        target = urllib.parse.unquote(parts.path[len(
            urllib.parse.urlsplit(base).path):]) or "index.html"
        links.append((target, urllib.parse.unquote(parts.fragment), text))
    return facts, links


def crawl(driver, base, site, visit):
    """Opens every page reachable from the main page; visit(path) makes that
    page's other checks in the same visit. Returns {path: facts}, links."""
    pages, links, queue = {}, [], ["index.html"]
    while queue:
        path = queue.pop(0)
        driver.get(base + path)
        try:
            wait_ready(driver)
            pages[path], found = read_page(driver, path, base, site)
            visit(path, pages[path])
        except TimeoutException:
            fail("%s: did not finish loading" % path)
            continue
        for target, frag, text in found:
            links.append((path, target, frag, text))
            if target.endswith(".html") and "/" not in target and \
                    target not in pages and target not in queue and \
                    os.path.isfile(os.path.join(site, target)):
                queue.append(target)
        for entry in driver.get_log("browser"):
            if entry["level"] == "SEVERE" and "favicon" not in \
                    entry["message"]:
                fail("%s: script error: %s" % (path, entry["message"]))
    for page, target, frag, text in links:
        if not os.path.isfile(os.path.join(site, target)):
            fail("%s: broken link to %s (%r)" % (page, target, text))
        elif frag and target in pages and frag not in pages[target]["ids"]:
            fail("%s: link to %s#%s (%r): no such anchor"
                 % (page, target, frag, text))
    print("crawl: %d pages, %d links" % (len(pages), len(links)))
    return pages


# A chapter as it arrives: its folds, Hint, diff lines and recorded outputs.
CHAPTER_JS = r"""
var id = 'ch' + arguments[0], q = function (s) {
  return document.querySelectorAll(s); };
var fix = document.getElementById(id + '-fix'), hint =
  document.getElementById(id + '-hint'), fixFolded = false, hintShown = false;
var next = function (el) {
  var h = el.closest('h1, h2, h3') || el, out = [];
  for (var n = h.nextElementSibling; n && !/^H[1-3]$/.test(n.tagName);
       n = n.nextElementSibling) out.push(n);
  return out;
};
if (fix) fixFolded = next(fix).some(function (n) {
  return n.matches('details.clinic-try') ||
         !!n.querySelector('details.clinic-try'); });
if (hint) hintShown = next(hint).some(function (n) {
  return n.getBoundingClientRect().height > 0 && !n.closest('details'); });
var where = document.getElementById(id + '-where-the-bug-is');
var programs = document.getElementById(id + '-the-programs');
var outputs = Array.prototype.map.call(q('.clinic-out .fragment'),
  function (f) { return f.textContent; });
return {open: Array.prototype.filter.call(q('details.clinic-try'),
          function (d) { return d.open; }).length,
        fix: !!fix, fixFolded: fixFolded, hint: !!hint, hintShown: hintShown,
        whereFirst: !!(where && programs &&
                       where.compareDocumentPosition(programs) & 4),
        changed: Array.prototype.filter.call(q('.clinic-diff'), function (d) {
          return d.textContent.indexOf('+++ fixed.cu') >= 0; }).map(
          function (d) { return d.querySelectorAll('.add, .del').length; })
          .concat([0])[0],
        outputs: outputs};
"""


def check_chapter(driver, root, folder, facts):
    """A chapter page, as it arrives, against the chapter's folder."""
    num, page = folder[:2], "ch%s.html" % folder[:2]
    if not facts["titles"][1].startswith(num):
        fail("%s: title %r lacks the number" % (page, facts["titles"][1]))
    readme = os.path.join(root, "chapters", folder, "README.md")
    want = ["the-programs", "the-fix-as-a-diff", "recorded-output"]
    with open(readme, encoding="utf-8") as f:
        want += [re.sub(r"[^a-z0-9 _-]", "", h.lower()).replace(" ", "-")
                 for h in re.findall(r"^## +(.*?) *$", f.read(), re.M)]
    for a in want:
        if "ch%s-%s" % (num, a) not in facts["ids"]:
            fail("%s: no section ch%s-%s" % (page, num, a))
    f = driver.execute_script(CHAPTER_JS, num)
    if f["open"]:
        fail("%s: %d 'try it first' fold(s) open on arrival" % (page,
                                                                f["open"]))
    if not f["fix"] or not f["fixFolded"]:
        fail("%s: the Fix is not folded behind 'try it first'" % page)
    if not f["whereFirst"]:
        fail("%s: no 'Where the bug is' above the full listings" % page)
    if f["hint"] and not f["hintShown"]:
        fail("%s: the Hint is not in plain view" % page)
    if not f["changed"]:
        fail("%s: the diff of the fix takes out and puts in no line" % page)
    for out in sorted(glob.glob(os.path.join(root, "chapters", folder,
                                             "expected", "*.out"))):
        if not re.match(r"\w+(\.py)?\.out\Z", os.path.basename(out)):
            continue  # a sanitizer's report, which the README quotes
        with open(out, encoding="utf-8") as o:
            record = re.sub(r"\s+", "", o.read())
        if not any(record == re.sub(r"\s+", "", t) for t in f["outputs"]):
            fail("%s: the recorded output %s is not shown" % (
                page, os.path.basename(out)))


def check_theme(driver, page):
    """The theme's extensions are at work (on the first chapter)."""
    for what, css in (("copy buttons", "doxygen-awesome-fragment-copy-button"),
                      ("dark mode toggle", "doxygen-awesome-dark-mode-toggle"),
                      ("interactive table of contents",
                       ".contents > .toc.interactive")):
        if not driver.find_elements(By.CSS_SELECTOR, css):
            fail("%s: no %s (%s)" % (page, what, css))


def check_navtree(driver, path):
    """On the main page, a click on the Chapters entry's arrow shows the
    parts; on a chapter page, the tree selects that chapter."""
    if path != "index.html":
        sel = driver.find_elements(By.CSS_SELECTOR, "#nav-tree #selected")
        if not sel or not sel[0].text.strip().startswith(path[2:4]):
            fail("navigation tree on %s selects %r" % (
                path, sel[0].text if sel else None))
        return
    try:
        settle(driver)
        driver.find_element(By.XPATH, "//div[@id='nav-tree']//a[contains("
                            "@href,'chapters.html')]/ancestor::div[contains("
                            "@class,'item')][1]/a[span[contains(@class,"
                            "'arrow')]]").click()
        wait(driver).until(lambda d: d.execute_script(
            HELPERS_JS + "return Array.prototype.some.call(document."
            "querySelectorAll('#nav-tree a[href*=\"part-\"]'), shows);"))
    except (WebDriverException, TimeoutException) as e:
        fail("navigation tree: Chapters does not open to show the parts (%s)"
             % e.__class__.__name__)


def check_main_page(driver):
    """The main page opens with the ways in, before the first heading."""
    first = driver.execute_script(
        "var out = [], tb = document.querySelector('div.contents .textblock');"
        "for (var n = tb.firstElementChild; n && !/^H[1-3]$/.test(n.tagName);"
        " n = n.nextElementSibling) n.querySelectorAll('a[href]').forEach("
        "function (a) { out.push(a.getAttribute('href')); }); return out;")
    for need in ("symptoms.html", "chapters", "myths.html"):
        if not any(need in h for h in first):
            fail("index.html: the opening has no way in to %s" % need)


def check_tabs(driver, base, pages):
    """The top tabs lead to the site's ways in, each a page with text (as the
    crawl read it); a click on one opens its page."""
    tabs = driver.execute_script(
        "return Array.prototype.map.call(document.querySelectorAll("
        "'#main-menu > li > a'), function (a) { return [a.textContent."
        "trim(), a.href]; });")
    for need in ("chapters.html", "symptoms.html", "myths.html"):
        if not any(h.endswith(need) for _, h in tabs):
            fail("no top tab leads to %s" % need)
    for text, href in tabs[1:]:
        words = pages.get(href[len(base):], {}).get("words", 0)
        if words < 30:
            fail("top tab %r opens %s, a page of %d words" % (
                text, href, words))
    try:
        driver.find_element(By.LINK_TEXT, "Myths").click()
        wait(driver, 5).until(lambda d: d.current_url.endswith("myths.html"))
    except (WebDriverException, TimeoutException) as e:
        fail("top tab Myths: a click does not open it (%s)" %
             e.__class__.__name__)


# Once a query is typed: waits for the list that answers what the box holds,
# then reads it as shown: each snippet with where its highlights sit, the
# visible results' links, and what the list says when it lists nothing.
RESULTS_JS = HELPERS_JS + r"""
var done = arguments[arguments.length - 1];
var p = function () { return document.getElementById('clinic-search-results');
}, f = document.getElementById('MSearchField');
until(function () {
  return p() && !p().hidden && p().children.length > 0 &&
         p().getAttribute('data-query') === f.value;
}, 10000, function (ok) {
  var out = {value: f.value, shown: ok, hits: [], links: [], said: ''};
  if (!ok) return done(out);
  p().querySelectorAll('.clinic-hit-text').forEach(function (el) {
    var text = '', marks = [];
    el.childNodes.forEach(function (n) {
      if (n.nodeName === 'MARK')
        marks.push([text.length, text.length + n.textContent.length]);
      text += n.textContent;
    });
    out.hits.push({text: text, marks: marks});
  });
  p().querySelectorAll('a.clinic-hit').forEach(function (a) {
    if (shows(a)) out.links.push(a.href); });
  var no = p().querySelector('.clinic-nohit');
  out.said = no ? no.textContent : '';
  done(out);
});
"""


def search(driver, query, paste=False):
    """Clicks the search box, clears it as a person does (select all,
    delete), types or pastes the query and reads the results shown:
    (links, what the list says when it lists nothing)."""
    field = driver.find_element(By.ID, "MSearchField")
    field.click()
    field.send_keys(Keys.CONTROL, "a", Keys.NULL, Keys.DELETE)
    if paste:
        driver.execute_cdp_cmd("Input.insertText", {"text": query})
    else:
        field.send_keys(query)
    out = driver.execute_async_script(RESULTS_JS)
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
            fail("search %r: a result shows the source: %r" % (query,
                                                               text[:120]))
    return out["links"], out["said"]


def chapters_of(links):
    return [m.group(1) for h in links
            for m in [re.search(r"(ch\d\d)\.html", h)] if m]


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


def check_queries(driver, base, chapters, outdir):
    """Queries typed into the main page's box, one after another."""
    open_page(driver, base + "index.html")
    for query, slug, rank in QUERIES:
        folder = [c for c in chapters if c[3:] == slug]
        links = search(driver, query)[0]
        top = chapters_of(links[:rank]) if rank > 1 else \
            chapters_of(links[:1])
        print("search %r: %s" % (query, [h.split("/")[-1]
                                         for h in links[:rank]]))
        if not folder or "ch" + folder[0][:2] not in top:
            fail("search %r: chapter %s is not among the first %d results"
                 % (query, slug, rank))
        if rank == 3 or query == "2GB":
            shot(driver, outdir, "search-" + re.sub(r"\W+", "-",
                                                    query.lower()))
    firsts = {q: (search(driver, q)[0] or [None])[0] for q in SAME}
    if len(set(firsts.values())) != 1:
        fail("search: one size spelled several ways: %s" % firsts)
    for query in LITTLE:
        links, said = search(driver, query)
        if links or "too little" not in said:
            fail("search %r: lists %d results and says %r" % (
                query, len(links), said))
    shot(driver, outdir, "search-little-words")
    search(driver, "stale data")
    shot(driver, outdir, "search-desktop")


def check_symptom_search(driver, base):
    """Each row of the symptom index: its longest code term, pasted into the
    box, finds a chapter the row links to; Enter opens the first result."""
    open_page(driver, base + "symptoms.html")
    rows = driver.execute_script(
        "return Array.prototype.map.call(document.querySelectorAll('table."
        "markdownTable tr'), function (tr) { var c = tr.querySelector('td');"
        " return {text: c ? c.textContent : '', terms: c ? Array.prototype."
        "map.call(c.querySelectorAll('code'), function (e) { return e."
        "textContent.trim(); }) : [], links: Array.prototype.map.call(tr."
        "querySelectorAll('a[href]'), function (a) { return a.href; })}; });")
    checked = 0
    for row in rows:
        terms = sorted((t for t in row["terms"] if len(t) >= 6), key=len)
        linked = set(chapters_of(row["links"]))
        if not terms or not linked:
            continue
        found = set(chapters_of(search(driver, terms[-1], paste=True)[0]))
        checked += 1
        if not found & linked:
            fail("search %r (symptom %r) finds none of %s; it finds %s" % (
                terms[-1], row["text"][:60], sorted(linked), sorted(found)))
    print("search: %d symptom terms checked" % checked)
    links = search(driver, "illegal memory access")[0]
    before = driver.current_url
    driver.find_element(By.ID, "MSearchField").send_keys(Keys.ENTER)
    try:
        wait(driver).until(lambda d: d.current_url != before)
        wait_ready(driver)
        if links and driver.current_url != links[0]:
            fail("search: Enter opened %s, not the first result %s"
                 % (driver.current_url, links[0]))
    except TimeoutException:
        fail("search: Enter did not open the first result")


def check_fix_link(driver, base, num):
    """A link to a chapter's Fix section opens its fold."""
    open_page(driver, base + "ch%s.html#ch%s-fix" % (num, num))
    if not driver.execute_script(
            "var d = document.querySelector('details.clinic-try');"
            "return d && d.open;"):
        fail("ch%s.html#ch%s-fix: the link leaves the fix folded" % (
            num, num))


# Opens every fold, then lists the listings wider than their box and, on a
# phone, how wide the page is and the first text that sticks out.
LISTINGS_JS = HELPERS_JS + r"""
var done = arguments[arguments.length - 1];
document.querySelectorAll('details').forEach(function (d) { d.open = true; });
frames(function () {
  var cut = [], w = window.innerWidth, doc = document.getElementById(
    'doc-content') || document.body, out = '', n;
  document.querySelectorAll('div.fragment, pre').forEach(function (f) {
    if (f.scrollWidth > f.clientWidth + 1)
      cut.push(f.innerText.split('\n')[0].slice(0, 50)); });
  var wide = Math.max(document.documentElement.scrollWidth,
                      document.body.scrollWidth, doc.scrollWidth);
  var walker = document.createTreeWalker(doc, NodeFilter.SHOW_TEXT);
  while (wide > w && !out && (n = walker.nextNode())) {
    var e = n.parentElement, own = false;
    for (; e && e !== doc; e = e.parentElement)
      own = own || /auto|scroll|hidden/.test(getComputedStyle(e).overflowX);
    var r = document.createRange();
    r.selectNodeContents(n);
    if (!own && n.nodeValue.trim() && r.getBoundingClientRect().right > w + 1)
      out = n.parentElement.tagName + ': ' + n.nodeValue.trim().slice(0, 60);
  }
  done([cut, wide, w, out]);
});
"""


def check_listings(driver, page, phone):
    cut, wide, window, culprit = driver.execute_async_script(LISTINGS_JS)
    if cut:
        fail("%s at %d px: %d listing(s) cut off, e.g. %r" % (
            page, window, len(cut), cut[0]))
    if phone and wide > window:
        fail("%s at %d px: the page scrolls sideways, %d px wide (%s)" % (
            page, window, wide, culprit))


# Links of the symptom index's tables outside the window or their table.
OFFSCREEN_JS = r"""
var bad = [];
document.querySelectorAll('table.markdownTable').forEach(function (t) {
  var box = (t.querySelector('tbody') || t).getBoundingClientRect();
  t.querySelectorAll('a').forEach(function (a) {
    var r = a.getBoundingClientRect();
    if (r.width > 0 && (r.right > Math.min(box.right, window.innerWidth) + 1
                        || r.left < -1)) bad.push(a.textContent.trim());
  });
});
return bad;
"""


def check_symptom_links(driver, width):
    off = driver.execute_script(OFFSCREEN_JS)
    if off:
        fail("symptoms.html at %d px: %d links off-screen, e.g. %s" % (
            width, len(off), ", ".join(off[:5])))


def check_phone(driver, base, pages, outdir, shots):
    """Every page of pages at phone width: listings, sideways scrolling,
    screenshots; then the menu, and the symptom index at 420 px."""
    set_viewport(driver, PHONE, mobile=True)
    for path in pages:
        open_page(driver, base + path)
        for name, anchor in shots.get(path, []):
            scroll_shot(driver, outdir, name + "-phone", anchor)
        check_listings(driver, path, phone=True)
    open_page(driver, base + "index.html", settle=True)
    for target in ("chapters.html", "doctor.html"):
        try:
            driver.find_element(By.CSS_SELECTOR, "label.main-menu-btn").click()
            wait(driver, 5).until(lambda d: d.find_element(
                By.ID, "main-menu").is_displayed())
            settle(driver)
            links = [a for a in driver.find_elements(By.CSS_SELECTOR,
                                                     "#main-menu a")
                     if a.is_displayed()]
            hrefs = [a.get_attribute("href") for a in links]
            for need in ("chapters", "symptoms", "myths", "doctor"):
                if not any(h.endswith(need + ".html") for h in hrefs):
                    fail("phone menu: no link to %s.html" % need)
            shot(driver, outdir, "phone-menu")
            links[[h.endswith(target) for h in hrefs].index(True)].click()
            wait(driver).until(lambda d: d.current_url.endswith(target))
            wait_ready(driver, settle=True)
        except (WebDriverException, TimeoutException, ValueError) as e:
            fail("phone menu: could not reach %s (%s)" % (
                target, e.__class__.__name__))
    shot(driver, outdir, "phone-doctor")
    open_page(driver, base + "index.html")
    search(driver, "stale data")
    shot(driver, outdir, "search-phone")
    set_viewport(driver, (NARROW, PHONE[1]), mobile=True)
    open_page(driver, base + "symptoms.html")
    check_symptom_links(driver, NARROW)
    set_viewport(driver, DESKTOP)


def shot_list(num):
    """{page: [(screenshot name, anchor scrolled to)]}."""
    ch = "ch%s.html" % num
    return {"index.html": [("main", None)],
            "symptoms.html": [("symptoms", None)],
            "myths.html": [("myths", None), ("myths-sources",
                                             "myths-sources")],
            ch: [("chapter", None)] + [
                ("chapter-" + n, "ch%s-%s" % (num, a)) for n, a in (
                    ("fix", "fix"), ("where", "where-the-bug-is"),
                    ("diff", "the-fix-as-a-diff"),
                    ("output", "recorded-output"))]}


def check_pages(driver, base, site, args, chapters, shots, listings):
    """The crawl, with the checks made at desktop width in each page's
    visit; the top tabs; the phone widths."""
    chapters = {"ch%s.html" % c[:2]: c for c in chapters}
    outdir = args.screenshots

    def visit(path, facts):
        if path == "symptoms.html":
            check_symptom_links(driver, DESKTOP[0])
        if path in chapters:
            check_chapter(driver, args.root, chapters[path], facts)
            if path == min(chapters):
                check_theme(driver, path)
            if path == max(chapters):
                check_navtree(driver, path)
        for name, anchor in shots.get(path, []):
            scroll_shot(driver, outdir, name + "-desktop", anchor)
        if path in listings:
            check_listings(driver, path, phone=False)
        if path == "index.html":
            check_main_page(driver)
            check_navtree(driver, path)
    pages = crawl(driver, base, site, visit)
    wanted = list(dict.fromkeys(listings + list(shots)))
    for path in wanted:
        if path not in pages:
            fail("%s: not reachable from the main page" % path)
    check_tabs(driver, base, pages)
    check_phone(driver, base, wanted, outdir, shots)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--site", required=True, help="the built site")
    ap.add_argument("--screenshots", required=True, help="where they go")
    ap.add_argument("--root", required=True, help="the repository")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    ap.add_argument("--chapters", default="", help="chapter folders, a,b,...")
    ap.add_argument("--part", choices=("pages", "search"),
                    help="only the crawl, tabs and phone checks (pages) or "
                    "only the search checks (search); both without it")
    args = ap.parse_args()
    site, outdir = os.path.abspath(args.site), args.screenshots
    if not os.path.isfile(os.path.join(site, "index.html")):
        print("FAIL: no site at %s (build the docs target first)" % site)
        return 1
    chapters = [c for c in args.chapters.split(",") if c]
    num = next((c[:2] for c in chapters if c.startswith("08")),
               chapters[0][:2] if chapters else "00")
    os.makedirs(outdir, exist_ok=True)
    shots = shot_list(num)
    listings = [p for p in ("index.html", "symptoms.html", "myths.html",
                            "python.html", "doctor.html",
                            "seeds.html") if os.path.isfile(
                                os.path.join(site, p))]
    listings += ["ch%s.html" % c[:2] for c in chapters]
    server, base = serve(site)
    driver = start_browser(args.chromium, args.chromedriver)
    try:
        set_viewport(driver, DESKTOP)
        if args.part != "search":
            check_pages(driver, base, site, args, chapters, shots, listings)
        if args.part != "pages":
            check_queries(driver, base, chapters, outdir)
            check_symptom_search(driver, base)
            check_fix_link(driver, base, num)
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
