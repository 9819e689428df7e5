#!/usr/bin/env python3
"""browser_test.py -- open the built docs site in headless Chromium and \
check it.

    browser_test.py --site build/docs/html --screenshots build/docs/screenshots
                    [--chromium /usr/bin/chromium]
                    [--chromedriver /usr/bin/chromedriver]
                    [--chapters 01-a,02-b,...]

Selenium drives Debian's Chromium through chromedriver (Debian 12:
apt-get install chromium chromium-driver python3-selenium). The site is served
from a local HTTP server, as a reader would get it. Every page reachable from
the main page is opened, and after its scripts have run the test checks:
  - every link to a page of the site, and every #anchor, exists;
  - no literal markup (**, <strong>, <tt>, @ref, {#...}, a stray backtick) in
    the rendered text outside code, in the navigation tree or in titles;
  - no script errors;
  - every chapter page loads, with its sections and navigation;
  - the navigation tree opens and follows the page; the top tabs lead to the
    site's ways in, never to Doxygen's empty lists;
  - the search box is used as a person uses it: click, type, read the results
    shown. No highlight sits inside a longer word and no snippet shows the
    pages' source (@ref, @subpage, a heading's "# "). Six everyday queries
    list their chapter among the first three; four whole sentences list
    theirs first ("2GB", "my cudaMemcpy returns zeros", an apostrophe typed
    either way); 2GB, 2 GB and 2 GiB find the same first result; a query of
    little words ("doesn't") lists nothing and says why;
    each code term of the symptom index finds the chapter its row links to;
    Enter opens a result;
  - the main page starts with the three ways in, before build detail;
  - every chapter page shows where the bug is and keeps the fix folded behind
    "try it first", with its Hint visible;
  - no listing is cut off at desktop or phone width, and at phone width
    (390 px) no page scrolls sideways: the main page, the symptom index,
    the outcomes, the myths, the PyCUDA mapping, the doctor, the seeds and
    every chapter;
  - at phone width the menu, opened by a click, reaches Chapters, the
    symptom index, the myths and the doctor, and its links open them; no
    link of the symptom index is off-screen.
It saves screenshots of what it checked (the main page, the searches, the
myths page, the phone menu and the doctor's page it opens, a chapter with its
fix folded) in --screenshots. Exit status 0 when all is well, 1 with a list of
the failures otherwise.

One browser does it all, and a page is opened once for each width it is
checked at: the crawl opens every page at desktop width and makes all of that
page's desktop checks and screenshots in that visit (the checks that read the
page as it arrives come before those that open its folds or click); a second
pass opens the pages checked at phone width. Waits are on concrete conditions
(the page loaded, jQuery's ready handlers run, the navigation tree filled and
synced, no animation running, two frames drawn), never fixed sleeps. Pass
--timings to print how long each part took.
"""

import argparse
import functools
import http.server
import os
import pkgutil
import re
import sys
import threading
import time
import urllib.parse

from selenium import webdriver
from selenium.common.exceptions import (
    NoSuchElementException,
    StaleElementReferenceException,
    TimeoutException,
    WebDriverException,
)
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

DESKTOP = (1280, 900)
PHONE = (390, 844)
NARROW = 420  # the width the symptom table must fit
LITERAL_MARKUP = re.compile(
    r"\*\*|</?(strong|tt|b|em|code)>|@ref\b|@subpage\b|\\anchor\b|"
    r"\\htmlonly|\{#[a-z]|`"
)
FAILURES = []
POLL = 0.02  # seconds between two looks at a condition waited for
TIMINGS = []  # (what, seconds), printed with --timings


def fail(msg):
    FAILURES.append(msg)
    print("FAIL: " + msg, flush=True)


def timed(fn):
    """Adds how long fn took to TIMINGS."""

    @functools.wraps(fn)
    def run(*args, **kwargs):
        t = time.monotonic()
        try:
            return fn(*args, **kwargs)
        finally:
            TIMINGS.append((fn.__name__, time.monotonic() - t))

    return run


def wait(driver, timeout):
    """WebDriverWait that looks often: conditions here turn true within
    milliseconds, and the default half second between looks adds up."""
    return WebDriverWait(driver, timeout, poll_frequency=POLL)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(site):
    handler = functools.partial(QuietHandler, directory=site)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, "http://127.0.0.1:%d/" % server.server_address[1]


def start_browser(chromium, chromedriver):
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        "--force-color-profile=srgb",
        "--window-size=%d,%d" % DESKTOP,
        "--lang=en-US",
        # Work a headless test does not need; the pages render the same.
        "--disable-extensions",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-default-apps",
        "--disable-sync",
        "--no-first-run",
        "--mute-audio",
    ):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(
        service=Service(executable_path=chromedriver), options=options
    )
    # wait_ready waits in the page, up to 15 s for each of its conditions.
    driver.set_script_timeout(90)
    return driver


def set_viewport(driver, size, mobile=False):
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {
            "width": size[0],
            "height": size[1],
            "deviceScaleFactor": 1,
            "mobile": mobile,
        },
    )


# How many animations run in the page: jQuery's (the navigation tree's scroll
# and slides, the phone menu's slide) and CSS's and the Web Animations' that
# end (a spinner's never does).
RUNNING_JS = r"""
function running() {
  var n = window.jQuery && window.jQuery.timers ?
          window.jQuery.timers.length : 0;
  if (document.getAnimations) document.getAnimations().forEach(function (a) {
    var end = a.effect ? a.effect.getComputedTiming().endTime : 0;
    if (a.playState === 'running' && isFinite(end)) n++;
  });
  return n;
}
"""

# Waits in the page, looking every 10 ms, for: the page loaded; jQuery's
# ready handlers run (the theme's extensions and Doxygen's menu start there:
# a handler added now runs after every one queued before it); the navigation
# tree filled in (by scripts, after the page has loaded) and, within 3 s,
# synced to the page (its #selected item: the tree loads its index and parts
# as scripts of their own); with settle, no animation running (jQuery's, as
# the tree's scroll and the phone menu's slide, and CSS's); then two frames
# drawn, so that layout, ResizeObserver callbacks (clinic.js fits the tables
# to the text column) and painting have caught up. Answers which conditions
# held.
READY_JS = RUNNING_JS + r"""
var limit = arguments[0] * 1000, settle = arguments[1];
var done = arguments[arguments.length - 1];
var out = {loaded: false, tree: false, synced: false};
function until(test, ms, then) {
  var end = performance.now() + ms;
  (function look() {
    var ok = false;
    try { ok = test(); } catch (e) {}
    if (ok || performance.now() > end) then(ok);
    else setTimeout(look, 10);
  })();
}
function frames(n, then) {
  if (n <= 0) then(); else requestAnimationFrame(function () {
    frames(n - 1, then); });
}
function jqReady(then) {
  if (!window.jQuery) { then(); return; }
  var ran = false;
  window.jQuery(function () { ran = true; });
  until(function () { return ran; }, limit, function () { then(); });
}
var tree = function () { return document.getElementById('nav-tree'); };
until(function () { return document.readyState === 'complete'; }, limit,
  function (ok) {
    if (!ok) { done(out); return; }
    out.loaded = true;
    jqReady(function () {
      until(function () {
        return !tree() || tree().querySelectorAll('a[href]').length > 1;
      }, limit, function (ok) {
        out.tree = ok;
        until(function () {
          return !tree() || !!tree().querySelector('#selected');
        }, 3000, function (ok) {
          out.synced = ok;
          until(function () { return !settle || running() === 0; }, limit,
            function () { frames(2, function () { done(out); }); });
        });
      });
    });
  });
"""


def wait_ready(driver, timeout=15, settle=False):
    """Waits for the page's scripts to have run (READY_JS). settle: and for
    its animations to have ended, as before a screenshot or a click."""
    state = driver.execute_async_script(READY_JS, timeout, settle)
    if not state["loaded"]:
        raise TimeoutException("%s did not finish loading" % driver.current_url)
    if not state["tree"]:
        fail("%s: the navigation tree stayed empty" % driver.current_url)


# Two frames drawn after no animation runs: what a screenshot or a click
# waits for once the page has been scrolled or changed.
SETTLE_JS = RUNNING_JS + r"""
var done = arguments[arguments.length - 1], end = performance.now() + 10000;
(function look() {
  if (running() && performance.now() < end) { setTimeout(look, 10); return; }
  requestAnimationFrame(function () { requestAnimationFrame(function () {
    done(true); }); });
})();
"""


def settle(driver):
    driver.execute_async_script(SETTLE_JS)


def open_page(driver, url, settle=False):
    """Opens url as a new load, even where only its #anchor differs from the
    page shown (which would only scroll it), and waits for it."""
    here = urllib.parse.urldefrag(driver.current_url)[0]
    if "#" in url and urllib.parse.urldefrag(url)[0] == here:
        driver.get("about:blank")
    driver.get(url)
    wait_ready(driver, settle=settle)


def script_errors(driver):
    errors = []
    for entry in driver.get_log("browser"):
        if entry.get("level") == "SEVERE" and "favicon.ico" not in entry.get(
            "message", ""
        ):
            errors.append(entry["message"])
    return errors


PAGE_FACTS_JS = (
    r"""
var skip = 'pre, code, tt, kbd, .fragment, script, style, textarea, """
    r"""#clinic-search-results, #MSearchResultsWindow, #MSearchSelectWindow';
var texts = [];
var walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
var n;
while ((n = walker.nextNode())) {
  var el = n.parentElement;
  if (!el || el.closest(skip)) continue;
  var t = n.nodeValue;
  if (t.trim()) texts.push(t);
}
var ids = [];
document.querySelectorAll('[id]').forEach(function (e) { ids.push(e.id); });
document.querySelectorAll('a[name]').forEach(function (e) { """
    r"""ids.push(e.getAttribute('name')); });
var links = [];
document.querySelectorAll('a[href]').forEach(function (a) {
  links.push([a.getAttribute('href'), a.href, """
    r"""(a.textContent || '').trim().slice(0, 60)]);
});
var title = document.querySelector('.title');
return {text: texts, ids: ids, links: links, docTitle: document.title,
        pageTitle: title ? title.textContent.trim() : ''};
"""
)


@timed
def crawl(driver, base, site, visit=None):
    """Opens every page of the site reachable from the main page. visit(path),
    where given, makes that page's other checks in the same visit, after the
    crawl's own, which read the page as it arrived; the page's script errors
    are read after both."""
    pages = {}
    links = []  # (from page, target path, fragment, text)
    queue = ["index.html"]
    seen = set(queue)
    while queue:
        path = queue.pop(0)
        driver.get(base + path)
        try:
            wait_ready(driver)
        except TimeoutException:
            fail("%s: did not finish loading" % path)
            continue
        facts = driver.execute_script(PAGE_FACTS_JS)
        pages[path] = facts
        for title in (facts["docTitle"], facts["pageTitle"]):
            if re.search(r"[<>]|\*\*|&lt;|&gt;|`", title):
                fail("%s: literal markup in the title %r" % (path, title))
        for t in facts["text"]:
            m = LITERAL_MARKUP.search(t)
            if m:
                fail(
                    "%s: literal markup %r in the text: %r"
                    % (path, m.group(0), t.strip()[:120])
                )
        for raw, absolute, text in facts["links"]:
            if raw.startswith("javascript:") or raw == "#":
                continue
            url = urllib.parse.urlsplit(absolute)
            if not absolute.startswith(base):
                if url.scheme in (
                    "http",
                    "https",
                    "mailto",
                ) and url.hostname not in ("127.0.0.1", "localhost"):
                    continue  # the outside world is not checked here
                fail("%s: link %r (%s) leaves the site" % (path, raw, text))
                continue
            target = (
                urllib.parse.unquote(
                    url.path[len(urllib.parse.urlsplit(base).path) :]
                )
                or "index.html"
            )
            links.append(
                (path, target, urllib.parse.unquote(url.fragment), text)
            )
            if (
                target.endswith(".html")
                and target not in seen
                and "/" not in target
            ):
                if os.path.isfile(os.path.join(site, target)):
                    seen.add(target)
                    queue.append(target)
        if visit:
            try:
                visit(path)
            except TimeoutException:
                fail("%s: did not finish loading" % path)
        for err in script_errors(driver):
            fail("%s: script error: %s" % (path, err))
    return pages, links


def check_links(pages, links, site):
    for page, target, frag, text in links:
        if not os.path.isfile(os.path.join(site, target)):
            fail("%s: broken link to %s (%r)" % (page, target, text))
            continue
        if frag and target in pages and frag not in pages[target]["ids"]:
            fail(
                "%s: link to %s#%s (%r): no such anchor"
                % (page, target, frag, text)
            )


def check_chapters(pages, chapters):
    for folder in chapters:
        num = folder[:2]
        path = "ch%s.html" % num
        if path not in pages:
            fail(
                "chapter %s: %s is not reachable from the main page"
                % (folder, path)
            )
            continue
        facts = pages[path]
        if not facts["pageTitle"].startswith(num):
            fail(
                "%s: title %r does not start with the chapter number"
                % (path, facts["pageTitle"])
            )
        for anchor in (
            "ch%s-the-programs" % num,
            "ch%s-the-fix-as-a-diff" % num,
            "ch%s-recorded-output" % num,
        ):
            if anchor not in facts["ids"]:
                fail("%s: no section %s" % (path, anchor))


def _atoms():
    """Selenium's own scripts for WebElement.is_displayed() and
    get_attribute(), to run on many elements in one call (one call each is
    25 ms; a search shows 40 results). None where this Selenium lacks them:
    then one call per element, as the WebElement methods make it."""
    try:
        return {
            name: pkgutil.get_data(
                "selenium.webdriver.remote", name + ".js"
            ).decode("utf8")
            for name in ("isDisplayed", "getAttribute")
        }
    except (OSError, AttributeError):
        return None


ATOMS = _atoms()
# The atoms (90 kB) are sent once to each page, kept where the page's own
# scripts do not look (a property of window that is not enumerable), as
# chromedriver keeps its own element cache in the page. A script that needs
# them starts with NEED_ATOMS: it answers NO_ATOMS where they are not there
# yet, and with_atoms() sends them and runs it again.
NO_ATOMS = "browser_test: no atoms here"
NEED_ATOMS = (
    "var atoms = window.__browserTestAtoms;"
    "if (!atoms) { var d = arguments[arguments.length - 1];"
    "  if (typeof d === 'function') d('%s'); return '%s'; }"
    "var isDisplayed = atoms.isDisplayed, getAttribute = atoms.getAttribute;"
    % (NO_ATOMS, NO_ATOMS)
)


def with_atoms(driver, script, *args, run_async=False):
    """Runs script (which starts with NEED_ATOMS) in the page, sending the
    atoms first where the page does not have them yet."""
    run = driver.execute_async_script if run_async else driver.execute_script
    out = run(script, *args)
    if out == NO_ATOMS:
        driver.execute_script(
            "Object.defineProperty(window, '__browserTestAtoms', "
            "{value: {isDisplayed: (%s), getAttribute: (%s)}, "
            "configurable: true});"
            % (ATOMS["isDisplayed"], ATOMS["getAttribute"])
        )
        out = run(script, *args)
    return out


def displayed(driver, css):
    """[(element, its href)] of the elements that css selects and that
    WebElement.is_displayed() holds visible, in document order; the href as
    WebElement.get_attribute('href') reads it."""
    if not ATOMS:
        return [
            (e, e.get_attribute("href"))
            for e in driver.find_elements(By.CSS_SELECTOR, css)
            if e.is_displayed()
        ]
    return [
        tuple(pair)
        for pair in with_atoms(
            driver,
            NEED_ATOMS + "return Array.prototype.filter.call("
            "document.querySelectorAll(arguments[0]), function (e) { "
            "return isDisplayed(e); }).map(function (e) { "
            "return [e, getAttribute(e, 'href')]; });",
            css,
        )
    ]


def check_theme(driver, num):
    """The theme's extensions are at work on a chapter page (the first)."""
    if not os.path.isfile(os.path.join(SITE, "doxygen-awesome.css")):
        return
    for what, css in (
        ("copy buttons", "doxygen-awesome-fragment-copy-button"),
        ("dark mode toggle", "doxygen-awesome-dark-mode-toggle"),
        ("interactive table of contents", ".contents > .toc.interactive"),
        (
            "coloured diff",
            ".clinic-diff .line.add, .clinic-diff .line.del",
        ),
    ):
        if not driver.find_elements(By.CSS_SELECTOR, css):
            fail("ch%s.html: no %s (%s)" % (num, what, css))


def check_navtree_opens(driver):
    """On the main page, the Chapters entry of the navigation tree opens, by a
    click on its arrow, to show the parts."""
    try:
        item = driver.find_element(
            By.XPATH,
            "//div[@id='nav-tree']//a[contains(@href,'chapters.html')]",
        )
        # Doxygen's tree: <div class="item">
        #   <a><span class="arrow"/></a><span class="label"><a/></span>
        arrow = item.find_element(
            By.XPATH,
            "./ancestor::div[contains(@class,'item')][1]"
            "/a[span[contains(@class,'arrow')]]",
        )
        settle(driver)  # the tree's own opening slide has ended
        arrow.click()
        wait(driver, 10).until(
            lambda d: displayed(d, "div#nav-tree a[href*='part-']")
        )
    except (WebDriverException, TimeoutException) as e:
        fail(
            "navigation tree: the Chapters entry does not open to show "
            "the parts (%s)" % e.__class__.__name__
        )


def check_navtree_follows(driver, path, num):
    """On a chapter page, the navigation tree selects that chapter."""
    try:
        wait(driver, 10).until(
            lambda d: d.find_elements(By.CSS_SELECTOR, "#nav-tree #selected")
        )
        label = driver.find_element(
            By.CSS_SELECTOR, "#nav-tree #selected"
        ).text.strip()
        if not label.startswith(num):
            fail(
                "navigation tree on %s selects %r, not the chapter"
                % (path, label)
            )
    except TimeoutException:
        fail("navigation tree on %s: nothing selected" % path)


# What the search shows once a query has been typed: the box's text, and, once
# the results panel is shown, each result's snippet with where each highlight
# sits in it, and the results visible (element, href). Waits in the page, up
# to arguments[0] seconds, for the panel.
RESULTS_JS = NEED_ATOMS + r"""
var limit = arguments[0] * 1000, done = arguments[arguments.length - 1];
var end = performance.now() + limit;
function shown() {  // the list shown answers what the box holds
  var p = document.getElementById('clinic-search-results');
  var f = document.getElementById('MSearchField');
  return p && !p.hidden && p.children.length > 0 && f &&
         p.getAttribute('data-query') === f.value;
}
(function look() {
  var f = document.getElementById('MSearchField'), ok = shown();
  if (!ok && performance.now() < end) { setTimeout(look, 10); return; }
  var out = {value: f ? f.value : null, shown: ok, hits: [], links: []};
  if (!ok) { done(out); return; }
  document.querySelectorAll('#clinic-search-results .clinic-hit-text')
    .forEach(function (el) {
      var text = '', marks = [];
      el.childNodes.forEach(function (n) {
        if (n.nodeName === 'MARK') {
          marks.push([text.length, text.length + n.textContent.length]);
        }
        text += n.textContent;
      });
      out.hits.push({ text: text, marks: marks });
    });
  document.querySelectorAll('#clinic-search-results a.clinic-hit')
    .forEach(function (a) {
      if (isDisplayed(a)) out.links.push(getAttribute(a, 'href'));
    });
  done(out);
})();
"""


SEARCH_BOX = {}  # driver: the search box last found (stale on a new page)


def click_search_box(driver):
    """Clicks the search box, found again only where the page has changed."""
    field = SEARCH_BOX.get(driver)
    if field is not None:
        try:
            field.click()
            return field
        except (StaleElementReferenceException, NoSuchElementException):
            pass
    field = SEARCH_BOX[driver] = driver.find_element(By.ID, "MSearchField")
    field.click()
    return field


def search(driver, query, fresh=False, paste=False):
    """Clicks the search box and types the query, as a person does; returns the
    hrefs of the results shown. fresh: the box has not been used on this page.
    paste: the query arrives in one piece, as an error message pasted into the
    box does (Chromium inserts the text as one input, as a paste does).
    """
    field = click_search_box(driver)
    if not fresh:  # clear what the last query left, as a person would: select
        # all (Ctrl+A, then the Ctrl key let go: Keys.NULL), Delete
        field.send_keys(Keys.CONTROL, "a", Keys.NULL, Keys.DELETE)
    if paste:
        driver.execute_cdp_cmd("Input.insertText", {"text": query})
    else:
        field.send_keys(query)
    if not ATOMS:
        return search_by_element(driver, field, query)
    out = with_atoms(driver, RESULTS_JS, 10, run_async=True)
    if out["value"] != query:
        fail("search: typed %r, but the box holds %r" % (query, out["value"]))
    if not out["shown"]:
        fail("search %r: no results panel" % query)
        return []
    check_shown_results(query, out["hits"])
    return out["links"]


def search_by_element(driver, field, query):
    """The rest of search() where Selenium's atoms are not to be had."""
    typed = field.get_attribute("value")
    if typed != query:
        fail("search: typed %r, but the box holds %r" % (query, typed))
    try:
        wait(driver, 10).until(
            lambda d: d.execute_script(
                "var p = document.getElementById('clinic-search-results');"
                "var f = document.getElementById('MSearchField');"
                "return p && !p.hidden && p.children.length > 0 && f &&"
                " p.getAttribute('data-query') === f.value;"
            )
        )
    except TimeoutException:
        fail("search %r: no results panel" % query)
        return []
    check_shown_results(query, driver.execute_script(SHOWN_RESULTS))
    hits = displayed(driver, "#clinic-search-results a.clinic-hit")
    return [href for _, href in hits]


# What a result shows: its snippet's text, and where each highlight sits in it.
SHOWN_RESULTS = """
return Array.prototype.map.call(
  document.querySelectorAll('#clinic-search-results .clinic-hit-text'),
  function (el) {
    var text = '', marks = [];
    el.childNodes.forEach(function (n) {
      if (n.nodeName === 'MARK') {
        marks.push([text.length, text.length + n.textContent.length]);
      }
      text += n.textContent;
    });
    return { text: text, marks: marks };
  });
"""
WORD_CHAR = re.compile(r"\w")
# A snippet that starts its section with "# " shows a heading's source; one
# cut out of the text ("…## Cause") may show code that holds "## ".
SOURCE_MARKUP = re.compile(r"[@\\](ref|subpage|anchor)\b|\A#+ ")


def check_shown_results(query, shown):
    """Reads the results shown (SHOWN_RESULTS) as a person does: a highlight
    marks whole words, never a piece of a longer word ("in" inside "using"),
    and no snippet shows the pages' source (@ref, @subpage, a heading's
    "# ")."""
    for hit in shown:
        text = hit["text"]
        for a, b in hit["marks"]:
            inside = (a > 0 and WORD_CHAR.match(text[a - 1])) or (
                b < len(text) and WORD_CHAR.match(text[b])
            )
            if inside or b - a < 2:
                fail(
                    "search %r: the highlight %r sits inside a longer word: "
                    "%r" % (query, text[a:b], text[max(0, a - 20) : b + 20])
                )
        m = SOURCE_MARKUP.search(text)
        if m:
            fail(
                "search %r: a result shows the source %r: %r"
                % (query, m.group(0), text[:120])
            )


# Queries people type, and the chapter (by its folder's slug) each must list
# among the first three results.
EVERYDAY_QUERIES = [
    ("segfault", "device-pointer-on-host"),
    ("out of memory", "unchecked-allocation"),
    ("illegal memory access", "host-pointer-in-kernel"),
    ("struct padding", "struct-layout-mismatch"),
    ("2048 threads per block", "block-too-large"),
    ("in-kernel malloc NULL", "device-heap-exhausted"),
]


def shot_name(text):
    return re.sub(r"[^a-z0-9]+", "-", text.lower())


@timed
def check_everyday_queries(driver, base, chapters, outdir):
    """Each query typed into the box of the main page, one after another, as
    a person tries one query after another (the first into a fresh box, so
    that the search index loads once); its chapter must be among the first
    three results shown. Screenshots of each, and of the results for "stale
    data" (search-desktop.png)."""
    os.makedirs(outdir, exist_ok=True)
    set_viewport(driver, DESKTOP)
    driver.get(base + "index.html")
    wait_ready(driver)
    fresh = True
    for query, slug in EVERYDAY_QUERIES:
        folder = next((c for c in chapters if c[3:] == slug), None)
        if not folder:
            fail("search %r: no chapter %s on this site" % (query, slug))
            continue
        hits = search(driver, query, fresh=fresh)
        fresh = False
        top = [
            m.group(1)
            for h in hits[:3]
            for m in [re.search(r"(ch\d\d)\.html", h or "")]
            if m
        ]
        print(
            "search %r: first three %s"
            % (query, [h.split("/")[-1] for h in hits[:3]])
        )
        if "ch" + folder[:2] not in top:
            fail(
                "search %r: chapter %s is not among the first three results %s"
                % (query, folder[:2], [h.split("/")[-1] for h in hits[:3]])
            )
        settle(driver)
        driver.save_screenshot(
            os.path.join(outdir, "search-%s.png" % shot_name(query))
        )
    search(driver, "stale data", fresh=fresh)
    settle(driver)
    driver.save_screenshot(os.path.join(outdir, "search-desktop.png"))


# Whole sentences as people type them, and the chapter (by its folder's slug)
# each must list first: the little words (my, the, doesn't) must not decide
# the result, an apostrophe may be typed either way, and a plural finds its
# singular.
SENTENCE_QUERIES = [
    ("2GB", "index-overflow"),
    ("my cudaMemcpy returns zeros", "nonblocking-stream"),
    ("why doesn\u2019t cudaMemcpy wait for my kernel", "nonblocking-stream"),
    ("cudaMemset doesn't set my ints to 1", "memset-sets-bytes"),
]
# Spellings of one thing, each of which must give the same first result.
SAME_QUERIES = [("2GB", "2 GB", "2 GiB", "2gib")]
# Queries of little words only: nothing is listed, and the box says why.
NOISE_QUERIES = ["doesn't", "doesn\u2019t", "does not"]


def first_chapter(hits):
    m = re.search(r"(ch\d\d)\.html", hits[0] if hits else "")
    return m.group(1) if m else (hits[0].split("/")[-1] if hits else None)


@timed
def check_sentence_queries(driver, base, chapters, outdir):
    """Queries typed as a person types them, into the box of the main page:
    sentences find their chapter first, spellings of one size find the same
    first result, and a query of little words lists nothing but says why."""
    set_viewport(driver, DESKTOP)
    driver.get(base + "index.html")
    wait_ready(driver)
    fresh = True
    for query, slug in SENTENCE_QUERIES:
        folder = next((c for c in chapters if c[3:] == slug), None)
        if not folder:
            fail("search %r: no chapter %s on this site" % (query, slug))
            continue
        hits = search(driver, query, fresh=fresh)
        fresh = False
        print(
            "search %r: first %s"
            % (query, hits[0].split("/")[-1] if hits else None)
        )
        if first_chapter(hits) != "ch" + folder[:2]:
            fail(
                "search %r: chapter %s is not the first result; the first "
                "three are %s"
                % (query, folder[:2], [h.split("/")[-1] for h in hits[:3]])
            )
        if query == SENTENCE_QUERIES[0][0]:
            settle(driver)
            driver.save_screenshot(os.path.join(outdir, "search-2gb.png"))
    for spellings in SAME_QUERIES:
        firsts = {}
        for query in spellings:
            hits = search(driver, query, fresh=fresh)
            fresh = False
            firsts[query] = hits[0].split("/")[-1] if hits else None
        if len(set(firsts.values())) != 1 or None in firsts.values():
            fail("search: one size spelled several ways finds different "
                 "first results: %s" % firsts)
    for query in NOISE_QUERIES:
        hits = search(driver, query, fresh=fresh)
        fresh = False
        said = driver.execute_script(
            "var n = document.querySelector("
            "'#clinic-search-results .clinic-nohit');"
            "return n ? n.textContent : '';"
        )
        if hits:
            fail(
                "search %r: a query of little words lists %d results, "
                "first %s" % (query, len(hits), hits[0].split("/")[-1])
            )
        if "too little" not in said:
            fail(
                "search %r: the box does not say that the query says too "
                "little (it says %r)" % (query, said)
            )
        if query == NOISE_QUERIES[0]:
            driver.save_screenshot(
                os.path.join(outdir, "search-little-words.png")
            )


@timed
def check_search(driver, base):
    driver.get(base + "symptoms.html")
    wait_ready(driver)
    # Each row of the symptom index: its code terms must find a chapter it
    # links to.
    rows = driver.execute_script(
        r"""
      var out = [];
      document.querySelectorAll('table.markdownTable tr').forEach("""
        r"""function (tr) {
        var cells = tr.querySelectorAll('td');
        if (!cells.length) return;
        var terms = Array.prototype.map.call(cells[0].querySelectorAll('code'),
                                             function (c) { """
        r"""return c.textContent.trim(); });
        var chapters = [];
        tr.querySelectorAll('a[href]').forEach(function (a) {
          var m = a.getAttribute('href').match(/(ch[0-9][0-9])\.html/);
          if (m) chapters.push(m[1]);
        });
        out.push({terms: terms, chapters: chapters, """
        r"""text: cells[0].textContent.trim()});
      });
      return out;"""
    )
    checked = 0
    for row in rows:
        # The row's most specific code term: the longest (e.g. an error name
        # or message).
        terms = sorted(
            (t for t in row["terms"] if len(t) >= 6), key=len, reverse=True
        )[:1]
        if not row["chapters"]:
            continue
        for term in terms:
            # Symptom terms are error names and messages: a person pastes them.
            hits = search(driver, term, paste=True)
            found = {
                m.group(1)
                for h in hits
                for m in [re.search(r"(ch\d\d)\.html", h or "")]
                if m
            }
            checked += 1
            if not found & set(row["chapters"]):
                fail(
                    "search %r (symptom %r) finds none of %s; it finds %s"
                    % (
                        term,
                        row["text"][:60],
                        row["chapters"],
                        sorted(found) or "nothing",
                    )
                )
    print("search: %d symptom terms checked" % checked)
    # A plain query, and Enter opens the first result.
    hits = search(driver, "illegal memory access")
    if not any(re.search(r"ch\d\d\.html", h or "") for h in hits):
        fail("search 'illegal memory access' finds no chapter")
    before = driver.current_url
    driver.find_element(By.ID, "MSearchField").send_keys(Keys.ENTER)
    try:
        wait(driver, 10).until(lambda d: d.current_url != before)
        wait_ready(driver)
    except TimeoutException:
        fail("search: Enter did not open the first result")
    if "#" in driver.current_url:
        frag = driver.current_url.split("#", 1)[1]
        if not driver.find_elements(By.ID, frag):
            fail(
                "search: the result %s has no such anchor" % driver.current_url
            )


def read_tabs(driver):
    """The top tabs of the page shown: [(text, href)]."""
    return driver.execute_script(
        "return Array.prototype.map.call("
        "document.querySelectorAll('#main-menu > li > a'),"
        " function (a) { "
        "return [a.textContent.trim(), a.getAttribute('href')]; });"
    )


def count_words(driver):
    """The words of the page's text (div.contents), as it shows them."""
    return len(
        driver.execute_script(
            "var c = document.querySelector('div.contents');"
            "return c ? c.innerText : '';"
        ).split()
    )


@timed
def check_tabs(driver, base, tabs, words):
    """The top tabs (read on the main page as it arrived) lead to the site's
    ways in: pages with text, never Doxygen's lists of pages or files. A tab's
    page, as it arrives at desktop width, has its words counted: in words
    (path: count) where the crawl counted them, else here."""
    if not tabs:
        fail("index.html: no top tabs")
    for text, href in tabs:
        if re.search(
            r"(^|/)(pages|files|globals|examples)\.html$", href or ""
        ):
            fail("top tab %r opens Doxygen's list %s" % (text, href))
            continue
        url = urllib.parse.urljoin(base + "index.html", href or "")
        path = url[len(base) :] if url.startswith(base) else None
        if path in words:
            count = words[path]
        else:
            set_viewport(driver, DESKTOP)
            driver.get(base + href)
            wait_ready(driver)
            count = count_words(driver)
        if count < 30:
            fail(
                "top tab %r (%s) opens a page with %d words"
                % (text, href, count)
            )
    for need in ("chapters.html", "symptoms.html", "myths.html"):
        if not any((h or "").endswith(need) for _, h in tabs):
            fail("no top tab leads to %s" % need)


def check_main_page(driver):
    """The main page opens with the three ways in, before build and CI
    detail."""
    first = driver.execute_script(
        r"""
      var out = [], tb = document.querySelector('div.contents .textblock');
      if (!tb) return out;
      for (var n = tb.firstElementChild; n && !/^H[1-3]$/.test(n.tagName); """
        r"""n = n.nextElementSibling)
        n.querySelectorAll('a[href]').forEach(function (a) { """
        r"""out.push(a.getAttribute('href')); });
      return out;"""
    )
    for need, what in (
        ("symptoms.html", "by symptom"),
        ("chapters", "by chapter"),
        ("myths.html", "the myths"),
    ):
        if not any(need in h for h in first):
            fail(
                "index.html: the opening (before the first heading) "
                "has no way in %s (%s)" % (what, need)
            )


def check_chapter_folds(driver, num):
    """A chapter, as it arrives, shows where the bug is; its fix waits behind
    "try it first"; its Hint is in plain view."""
    f = driver.execute_script(
        r"""
      var num = arguments[0], """
        r"""folds = document.querySelectorAll('details.clinic-try');
      var open = Array.prototype.filter.call(folds, """
        r"""function (d) { return d.open; }).length;
      var hint = document.getElementById('ch' + num + '-hint');
      var where = document.getElementById('ch' + num + '-where-the-bug-is');
      var programs = document.getElementById('ch' + num + '-the-programs');
      var fix = document.getElementById('ch' + num + '-fix');
      var fixFolded = false;
      if (fix) {
        var h = fix.closest('h1, h2, h3') || fix;
        for (var n = h.nextElementSibling; """
        r"""n && !/^H[1-3]$/.test(n.tagName); n = n.nextElementSibling)
          if (n.matches('details.clinic-try') || """
        r"""n.querySelector('details.clinic-try')) """
        r"""{ fixFolded = true; break; }
      }
      var hintShown = false;
      if (hint) {
        var hh = hint.closest('h1, h2, h3') || hint, """
        r"""p = hh.nextElementSibling;
        hintShown = !!p && !hint.closest('details') && """
        r"""p.getBoundingClientRect().height > 0;
      }
      return {folds: folds.length, open: open, hint: !!hint, """
        r"""hintShown: hintShown,
              fix: !!fix, fixFolded: fixFolded, where: !!where,
              whereFirst: !!(where && programs && """
        r"""(where.compareDocumentPosition(programs) & 4))};""",
        num,
    )
    page = "ch%s.html" % num
    if f["open"]:
        fail(
            "%s: %d 'try it first' section(s) open on arrival"
            % (page, f["open"])
        )
    if f["fix"] and not f["fixFolded"]:
        fail(
            "%s: the Fix section is not folded behind 'try it first'"
            % page
        )
    if not f["where"] or not f["whereFirst"]:
        fail("%s: no 'Where the bug is' above the full listings" % page)
    if f["hint"] and not f["hintShown"]:
        fail("%s: the Hint is not in plain view" % page)


@timed
def check_fix_link(driver, base, chapters):
    """A link to the Fix section opens it."""
    if chapters:
        num = chapters[0][:2]
        set_viewport(driver, DESKTOP)
        open_page(driver, base + "ch%s.html#ch%s-fix" % (num, num))
        if not driver.execute_script(
            "var d = document.querySelector('details.clinic-try'); "
            "return d && d.open;"
        ):
            fail(
                "ch%s.html#ch%s-fix: the link does not open the folded fix"
                % (num, num)
            )


# How far the page itself scrolls sideways: the widest of the root, the body
# and Doxygen's #doc-content (the scroller of a page with the navigation
# tree), against the window's width; and the first piece of text that sticks
# out, outside the boxes that scroll on their own (a listing, a table).
SIDEWAYS_JS = r"""
var w = window.innerWidth, doc = document.getElementById('doc-content');
var widths = [document.documentElement.scrollWidth, document.body.scrollWidth];
if (doc) widths.push(doc.scrollWidth);
var widest = Math.max.apply(null, widths), culprit = '';
if (widest > w) {
  var walker = document.createTreeWalker(doc || document.body,
                                         NodeFilter.SHOW_TEXT), n;
  while (!culprit && (n = walker.nextNode())) {
    if (!n.nodeValue.trim()) continue;
    var own = false;
    for (var e = n.parentElement; e && e !== doc && e !== document.body;
         e = e.parentElement)
      if (/auto|scroll|hidden/.test(getComputedStyle(e).overflowX)) own = true;
    if (own) continue;
    var range = document.createRange();
    range.selectNodeContents(n);
    var r = range.getBoundingClientRect();
    if (r.width > 0 && r.right > w + 1)
      culprit = n.parentElement.tagName.toLowerCase() + ': ' +
                n.nodeValue.trim().slice(0, 60);
  }
}
return [widest, w, culprit];
"""


# Opens every fold of the page, lets two frames be drawn (layout, and what
# clinic.js does when the text column changes), then lists the listings whose
# text is wider than their box, and, with arguments[0], measures how far the
# page scrolls sideways (SIDEWAYS_JS).
LISTINGS_JS = r"""
var measureSideways = arguments[0], done = arguments[arguments.length - 1];
document.querySelectorAll('details').forEach(function (d) { d.open = true; });
requestAnimationFrame(function () { requestAnimationFrame(function () {
  var bad = [];
  document.querySelectorAll('div.fragment, pre').forEach(function (f) {
    if (f.scrollWidth > f.clientWidth + 1)
      bad.push((f.innerText || '').split('\n')[0].slice(0, 50));
  });
  done([bad, measureSideways ? (function () { %s })() : null]);
}); });
""" % SIDEWAYS_JS.replace("%", "%%")


def check_listings(driver, page, name, mobile):
    """No listing or output of the page is cut off, and at phone width
    (mobile) the page does not scroll sideways (a long URL in a Sources list
    once made the myths page twice as wide as a phone). Opens every fold: the
    last check of a visit."""
    cut, side = driver.execute_async_script(LISTINGS_JS, mobile)
    if cut:
        fail(
            "%s at %s width: %d listing(s) cut off, e.g. %r"
            % (page, name, len(cut), cut[0])
        )
    if not mobile:
        return
    wide, window, culprit = side
    if wide > window:
        fail(
            "%s at %d px: the page scrolls sideways, %d px wide "
            "(%s)" % (page, window, wide, culprit or "?")
        )


def listing_pages(chapters):
    """The pages whose listings are checked at both widths."""
    pages = [
        p
        for p in (
            "index.html",
            "symptoms.html",
            "outcomes.html",
            "myths.html",
            "pycuda.html",
            "doctor.html",
            "seeds.html",
        )
        if os.path.isfile(os.path.join(SITE, p))
    ] + ["ch%s.html" % c[:2] for c in chapters]
    for need in ("myths.html",):
        if need not in pages:
            fail("%s: not on this site, so not checked at phone width" % need)
    return pages


def open_phone_menu(driver):
    """Clicks the menu button, as a person does; returns the links the menu
    shows, once it has slid open: [(element, href)]."""
    driver.find_element(By.CSS_SELECTOR, "label.main-menu-btn").click()
    wait(driver, 5).until(
        lambda d: d.find_element(By.ID, "main-menu").is_displayed()
    )
    settle(driver)
    return displayed(driver, "#main-menu a")


def follow_menu_link(driver, target):
    """Clicks the open menu's link to target, and waits for the page."""
    link = next(
        a
        for a, href in displayed(driver, "#main-menu a")
        if (href or "").endswith(target)
    )
    link.click()
    wait(driver, 10).until(lambda d: d.current_url.endswith(target))
    wait_ready(driver)


@timed
def check_phone_menu(driver, base, outdir):
    """At phone width the menu button opens a menu that reaches Chapters, the
    symptom index, the myths and the doctor; its Chapters entry opens the
    chapters, and its Doctor entry, opened from there, the doctor's page."""
    set_viewport(driver, PHONE, mobile=True)
    driver.get(base + "index.html")
    wait_ready(driver, settle=True)
    try:
        shown = [href for _, href in open_phone_menu(driver)]
        for need in (
            "chapters.html",
            "symptoms.html",
            "myths.html",
            "doctor.html",
        ):
            if not any((h or "").endswith(need) for h in shown):
                fail(
                    "phone menu: no visible link to %s (it shows %s)"
                    % (need, shown)
                )
        driver.save_screenshot(os.path.join(outdir, "phone-menu.png"))
        follow_menu_link(driver, "chapters.html")
    except (WebDriverException, TimeoutException, StopIteration) as e:
        fail(
            "phone menu: could not open it and reach Chapters (%s)"
            % e.__class__.__name__
        )
    try:
        settle(driver)
        open_phone_menu(driver)
        follow_menu_link(driver, "doctor.html")
        title = driver.execute_script(
            "var t = document.querySelector('.title');"
            "return t ? t.textContent.trim() : '';"
        )
        if "doctor" not in title.lower():
            fail("phone menu: Doctor opened a page titled %r" % title)
        settle(driver)
        driver.save_screenshot(os.path.join(outdir, "phone-doctor.png"))
    except (WebDriverException, TimeoutException, StopIteration) as e:
        fail(
            "phone menu: could not open it on the chapters page and reach "
            "the doctor (%s)" % e.__class__.__name__
        )
    set_viewport(driver, DESKTOP)


@timed
def check_narrow(driver, base):
    """No link of the symptom index is off-screen at a phone's width, where
    its tables are cards. (The desktop half, check_symptom_table, is made in
    the crawl's visit of the page.)"""
    set_viewport(driver, (NARROW, PHONE[1]), mobile=True)
    driver.get(base + "symptoms.html")
    wait_ready(driver)
    off = driver.execute_script(
        """
      var w = window.innerWidth, bad = [];
      document.querySelectorAll('table.markdownTable a').forEach(function (a) {
        var r = a.getBoundingClientRect();
        if (r.width > 0 && (r.right > w + 1 || r.left < -1)) """
        """bad.push(a.textContent.trim());
      });
      return bad;"""
    )
    if off:
        fail(
            "symptoms.html at %d px: links off-screen: %s"
            % (NARROW, ", ".join(off[:10]))
        )
    set_viewport(driver, DESKTOP)


def check_symptom_table(driver):
    """On the desktop, no link of the symptom index is off-screen: a table too
    wide for the text column would scroll sideways inside itself and hide its
    last column (the links to the chapters) until scrolled."""
    hidden = driver.execute_script(
        """
      var bad = [];
      document.querySelectorAll('table.markdownTable').forEach(function (t) {
        var box = (t.querySelector('tbody') || t).getBoundingClientRect();
        t.querySelectorAll('a').forEach(function (a) {
          var r = a.getBoundingClientRect();
          if (r.width > 0 && r.right > box.right + 1) """
        """bad.push(a.textContent.trim());
        });
      });
      return bad;"""
    )
    if hidden:
        fail(
            "symptoms.html at %d px: %d links start off their table's "
            "visible part, e.g. %s"
            % (DESKTOP[0], len(hidden), ", ".join(hidden[:5]))
        )


def shot_list(chapter):
    """The screenshots of pages, at both widths: [(name, page, #anchor)]."""
    shots = [
        ("main", "index.html", None),
        ("symptoms", "symptoms.html", None),
        ("outcomes", "outcomes.html", None),
        ("myths", "myths.html", None),
        ("myths-sources", "myths.html", "myths-sources"),
    ]
    if chapter:
        num = chapter[:2]
        shots += [
            ("chapter", "ch%s.html" % num, None),
            ("chapter-fix", "ch%s.html" % num, "ch%s-fix" % num),
            (
                "chapter-where",
                "ch%s.html" % num,
                "ch%s-where-the-bug-is" % num,
            ),
            (
                "chapter-diff",
                "ch%s.html" % num,
                "ch%s-the-fix-as-a-diff" % num,
            ),
            (
                "chapter-output",
                "ch%s.html" % num,
                "ch%s-recorded-output" % num,
            ),
        ]
    return shots


def take_shots(driver, shots, page, width_name, outdir):
    """The screenshots of the page shown, loaded without an #anchor (that
    would open the folded fix): the top first, then scrolled to each anchor
    in turn."""
    for name, path, anchor in shots:
        if path != page:
            continue
        if anchor:
            driver.execute_script(
                "var e = document.getElementById(arguments[0]);"
                "if (e) e.scrollIntoView();",
                anchor,
            )
        settle(driver)
        driver.save_screenshot(
            os.path.join(outdir, "%s-%s.png" % (name, width_name))
        )


@timed
def search_shot_phone(driver, base, outdir):
    """The search results for "stale data" at phone width, typed into a fresh
    box of the main page."""
    set_viewport(driver, PHONE, True)
    driver.get(base + "index.html")
    wait_ready(driver)
    search(driver, "stale data", fresh=True)
    settle(driver)
    driver.save_screenshot(os.path.join(outdir, "search-phone.png"))
    set_viewport(driver, DESKTOP)


@timed
def dark_shot(driver, base, outdir, chapter):
    """A chapter's diff in dark mode, on the desktop."""
    set_viewport(driver, DESKTOP)
    driver.execute_script(
        "localStorage.setItem('prefers-dark-mode-in-light-mode', true)"
    )
    open_page(
        driver,
        base
        + "ch%s.html" % chapter[:2]
        + "#ch%s-the-fix-as-a-diff" % chapter[:2],
        settle=True,
    )
    driver.save_screenshot(os.path.join(outdir, "chapter-dark-desktop.png"))
    driver.execute_script(
        "localStorage.removeItem('prefers-dark-mode-in-light-mode')"
    )


class PageChecks:
    """The checks made on one visit of a page, at desktop width (the crawl's
    visit, or one of their own for a page the crawl did not reach) or at
    phone width. Those that read the page as it arrived come first, then the
    screenshots, then those that open its folds or click."""

    def __init__(self, driver, base, chapters, outdir):
        self.driver = driver
        self.base = base
        self.chapters = chapters
        self.outdir = outdir
        self.listings = listing_pages(chapters)
        shot = next(
            (c for c in chapters if c.startswith("08")),
            chapters[0] if chapters else None,
        )
        self.shot_chapter = shot
        self.shots = shot_list(shot)
        self.tabs = None  # read on the main page
        self.tab_paths = set()
        self.words = {}  # tab's page: its words, as it arrived
        self.visited = set()

    def chapter_number(self, path):
        m = re.fullmatch(r"ch(\d\d)\.html", path)
        nums = [c[:2] for c in self.chapters]
        return m.group(1) if m and m.group(1) in nums else None

    def desktop(self, path):
        driver = self.driver
        self.visited.add(path)
        if path == "index.html":
            self.tabs = read_tabs(driver)
            for _, href in self.tabs:
                url = urllib.parse.urljoin(self.base + path, href or "")
                if url.startswith(self.base):
                    self.tab_paths.add(url[len(self.base) :])
        if path in self.tab_paths:
            self.words[path] = count_words(driver)
        if path == "index.html":
            check_main_page(driver)
        if path == "symptoms.html":
            check_symptom_table(driver)
        num = self.chapter_number(path)
        if num:
            check_chapter_folds(driver, num)
            if num == self.chapters[0][:2]:
                check_theme(driver, num)
            if num == self.chapters[-1][:2]:
                check_navtree_follows(driver, path, num)
        take_shots(driver, self.shots, path, "desktop", self.outdir)
        if path in self.listings:
            check_listings(driver, path, "desktop", mobile=False)
        if path == "index.html":
            check_navtree_opens(driver)

    def desktop_rest(self):
        """The pages to check at desktop width that the crawl did not reach
        (a chapter missing from the site's links, say), each on a visit of
        its own."""
        need = ["index.html", "symptoms.html"] + self.listings
        need += ["ch%s.html" % c[:2] for c in self.chapters]
        need += [path for _, path, _ in self.shots]
        set_viewport(self.driver, DESKTOP)
        for path in dict.fromkeys(need):
            if path in self.visited:
                continue
            try:
                self.driver.get(self.base + path)
                wait_ready(self.driver)
                self.desktop(path)
            except TimeoutException:
                fail("%s: did not finish loading" % path)

    @timed
    def phone(self):
        """Every page checked at phone width, and the screenshots there."""
        driver = self.driver
        set_viewport(driver, PHONE, mobile=True)
        need = self.listings + [path for _, path, _ in self.shots]
        for path in dict.fromkeys(need):
            driver.get(self.base + path)
            try:
                wait_ready(driver)
            except TimeoutException:
                fail("%s: did not finish loading" % path)
                continue
            take_shots(driver, self.shots, path, "phone", self.outdir)
            if path in self.listings:
                check_listings(driver, path, "phone", mobile=True)
        set_viewport(driver, DESKTOP)


SITE = ""


def main():
    global SITE
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--site", required=True, help="the built site (build/docs/html)"
    )
    ap.add_argument(
        "--screenshots", required=True, help="where the screenshots go"
    )
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    ap.add_argument(
        "--chapters", default="", help="chapter folders, comma separated"
    )
    ap.add_argument(
        "--timings",
        action="store_true",
        help="print how long each part of the test took",
    )
    args = ap.parse_args()
    SITE = os.path.abspath(args.site)
    if not os.path.isfile(os.path.join(SITE, "index.html")):
        print("FAIL: no site at %s (build the docs target first)" % SITE)
        return 1
    chapters = [c for c in args.chapters.split(",") if c]
    outdir = args.screenshots
    os.makedirs(outdir, exist_ok=True)
    started = time.monotonic()
    server, base = serve(SITE)
    driver = start_browser(args.chromium, args.chromedriver)
    try:
        set_viewport(driver, DESKTOP)
        checks = PageChecks(driver, base, chapters, outdir)
        pages, links = crawl(driver, base, SITE, visit=checks.desktop)
        print(
            "crawl: %d pages, %d links to pages of the site"
            % (len(pages), len(links))
        )
        checks.desktop_rest()
        check_links(pages, links, SITE)
        check_chapters(pages, chapters)
        check_tabs(driver, base, checks.tabs or [], checks.words)
        checks.phone()
        check_phone_menu(driver, base, outdir)
        search_shot_phone(driver, base, outdir)
        check_narrow(driver, base)
        check_everyday_queries(driver, base, chapters, outdir)
        check_sentence_queries(driver, base, chapters, outdir)
        check_search(driver, base)
        check_fix_link(driver, base, chapters)
        if checks.shot_chapter:
            dark_shot(driver, base, outdir, checks.shot_chapter)
        print("screenshots: %s" % outdir)
    finally:
        driver.quit()
        server.shutdown()
    if args.timings:
        for what, seconds in TIMINGS:
            print("timing: %-24s %6.1f s" % (what, seconds))
        print("timing: %-24s %6.1f s" % ("all", time.monotonic() - started))
    if FAILURES:
        print("\n%d failure(s)" % len(FAILURES))
        return 1
    print("docs.browser: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
