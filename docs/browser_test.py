#!/usr/bin/env python3
"""browser_test.py -- use the built docs site in headless Chromium as a reader
does: click, type or paste, and read what the screen shows (see --help).

Opens every page reachable from the main page: links, anchors, no literal
markup or script error; each chapter against its folder; the navigation tree,
the top tabs and the phone menu; the search, typed and pasted; listings and
phone widths. --part runs half of it, so that the halves run side by side.
Waits on conditions, never fixed sleeps. Exit status 0 when all is well, 1
with the failures listed. (Debian 12: apt-get install chromium
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
    for arg in ("headless=new no-sandbox disable-gpu disable-dev-shm-usage "
                "hide-scrollbars force-color-profile=srgb lang=en-US "
                "window-size=%d,%d disable-extensions disable-sync "
                "disable-background-networking disable-component-update "
                "no-first-run" % DESKTOP).split():
        options.add_argument("--" + arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(chromedriver), options=options)
    driver.set_script_timeout(90)
    return driver


def set_viewport(driver, size, mobile=False):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": size[0], "height": size[1], "deviceScaleFactor": 1,
        "mobile": mobile})


# Helpers run in the page: how many animations run (jQuery's, and CSS's that
# end), a promise of a condition (tried every 10 ms), of two frames, whether
# an element shows, the elements a selector finds.
HELPERS_JS = r"""
const running = () => (window.jQuery && jQuery.timers ? jQuery.timers.length
  : 0) + document.getAnimations().filter(a => a.playState === 'running' &&
  isFinite(a.effect ? a.effect.getComputedTiming().endTime : 0)).length;
const until = (test, ms) => new Promise(done => {
  const end = performance.now() + ms;
  (function look() {
    let ok = false;
    try { ok = test(); } catch (e) {}
    if (ok || performance.now() > end) done(ok); else setTimeout(look, 10);
  })();
});
const frames = () => new Promise(
  then => requestAnimationFrame(() => requestAnimationFrame(then)));
const shows = e => {
  const r = e.getBoundingClientRect(), s = getComputedStyle(e);
  return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' &&
         !e.closest('[hidden], details:not([open]) > :not(summary)');
};
const done = arguments[arguments.length - 1];
const all = s => [...document.querySelectorAll(s)];
"""
# The page loaded, jQuery's ready handlers run, the navigation tree filled
# and (within 3 s) synced, no animation running with settle, two frames.
READY_JS = HELPERS_JS + r"""
const limit = arguments[0] * 1000, settle = arguments[1];
const tree = () => document.getElementById('nav-tree');
(async () => {
  const out = {loaded: await until(
    () => document.readyState === 'complete', limit)};
  if (!out.loaded) return done(out);
  let ran = !window.jQuery;
  if (window.jQuery) jQuery(() => { ran = true; });
  await until(() => ran, limit);
  out.tree = await until(
    () => !tree() || tree().querySelectorAll('a[href]').length > 1, limit);
  await until(() => !tree() || tree().querySelector('#selected'), 3000);
  await until(() => !settle || !running(), limit);
  await frames();
  done(out);
})();
"""


def wait_ready(driver, settle=False):
    state = driver.execute_async_script(READY_JS, 15, settle)
    if not state["loaded"]:
        raise TimeoutException("%s did not load" % driver.current_url)
    if not state["tree"]:
        fail("%s: the navigation tree stayed empty" % driver.current_url)


def settle(driver):
    driver.execute_async_script(HELPERS_JS + "until(() => !running(), 10000)"
                                ".then(frames).then(done);")


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
FACTS_JS = HELPERS_JS + r"""
const skip = 'pre, code, tt, kbd, .fragment, script, style, textarea, ' +
  '#clinic-search-results, #MSearchResultsWindow, #MSearchSelectWindow';
const texts = [], title = document.querySelector('.title');
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
for (let n; (n = walker.nextNode());)
  if (n.parentElement && !n.parentElement.closest(skip) && n.nodeValue.trim())
    texts.push(n.nodeValue);
const contents = document.querySelector('div.contents');
return {text: texts, ids: all('[id]').map(e => e.id).concat(
          all('a[name]').map(e => e.getAttribute('name'))),
        links: all('a[href]').map(
          a => [a.getAttribute('href'), a.href, a.textContent.trim()]),
        titles: [document.title, title ? title.textContent.trim() : ''],
        words: contents ? contents.innerText.split(/\s+/).length : 0};
"""


def read_page(driver, path, base):
    """The facts of the page shown; its literal markup fails. Returns
    (facts, [(target path, fragment, text)] of its links in the site)."""
    facts, links = driver.execute_script(FACTS_JS), []
    for title in facts["titles"]:
        if re.search(r"[<>`]|\*\*|&lt;", title):
            fail("%s: literal markup in the title %r" % (path, title))
    for t in facts["text"]:
        m = MARKUP.search(t)
        if m:
            fail("%s: literal markup %r in %r" % (path, m.group(0), t[:120]))
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
    page's other checks in the same visit. Returns {path: facts}."""
    pages, links, queue = {}, [], ["index.html"]
    while queue:
        path = queue.pop(0)
        driver.get(base + path)
        try:
            wait_ready(driver)
            pages[path], found = read_page(driver, path, base)
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
CHAPTER_JS = HELPERS_JS + r"""
const get = s => document.getElementById('ch' + arguments[0] + s);
const fix = get('-fix'), hint = get('-hint'), where = get('-where-the-bug-is');
const programs = get('-the-programs'), diff = all('.clinic-diff').find(
  d => d.textContent.indexOf('+++ fixed.cu') >= 0);
const next = el => {  // what follows el's heading, up to the next heading
  const out = [];
  for (let n = (el.closest('h1, h2, h3') || el).nextElementSibling;
       n && !/^H[1-3]$/.test(n.tagName); n = n.nextElementSibling) out.push(n);
  return out;
};
const open = all('details.clinic-try').filter(d => d.open).length;
return {outputs: all('.clinic-out .fragment').map(f => f.textContent),
  bad: [[open, open + " 'try it first' fold(s) open on arrival"],
    [!fix || !next(fix).some(n => n.matches('details.clinic-try') ||
      n.querySelector('details.clinic-try')),
     "the Fix is not folded behind 'try it first'"],
    [!(where && programs && where.compareDocumentPosition(programs) & 4),
     "no 'Where the bug is' above the full listings"],
    [hint && !next(hint).some(n => n.getBoundingClientRect().height > 0 &&
                                   !n.closest('details')),
     'the Hint is not in plain view'],
    [!diff || !diff.querySelectorAll('.add, .del').length,
     'the diff of the fix takes out and puts in no line']
  ].filter(b => b[0]).map(b => b[1])};
"""


def check_chapter(driver, root, folder, facts):
    """A chapter page, as it arrives, against the chapter's folder."""
    num, page = folder[:2], "ch%s.html" % folder[:2]
    if not facts["titles"][1].startswith(num):
        fail("%s: title %r lacks the number" % (page, facts["titles"][1]))
    want = ["the-programs", "the-fix-as-a-diff", "recorded-output"]
    with open(os.path.join(root, "chapters", folder, "README.md"),
              encoding="utf-8") as f:
        want += [re.sub(r"[^a-z0-9 _-]", "", h.lower()).replace(" ", "-")
                 for h in re.findall(r"^## +(.*?) *$", f.read(), re.M)]
    for a in want:
        if "ch%s-%s" % (num, a) not in facts["ids"]:
            fail("%s: no section ch%s-%s" % (page, num, a))
    f = driver.execute_script(CHAPTER_JS, num)
    for what in f["bad"]:
        fail("%s: %s" % (page, what))
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
            HELPERS_JS + "return all('#nav-tree a[href*=\"part-\"]')"
            ".some(shows);"))
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
    tabs = driver.execute_script(HELPERS_JS + "return all('#main-menu > li >"
                                 " a').map(a => [a.textContent.trim(), "
                                 "a.href]);")
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
const p = () => document.getElementById('clinic-search-results');
const f = document.getElementById('MSearchField');
until(() => p() && !p().hidden && p().children.length > 0 &&
            p().getAttribute('data-query') === f.value, 10000).then(ok => {
  const out = {value: f.value, shown: ok, hits: [], links: [], said: ''};
  if (!ok) return done(out);
  out.hits = [...p().querySelectorAll('.clinic-hit-text')].map(el => {
    let text = '';
    const marks = [];
    el.childNodes.forEach(n => {
      if (n.nodeName === 'MARK')
        marks.push([text.length, text.length + n.textContent.length]);
      text += n.textContent;
    });
    return {text: text, marks: marks};
  });
  out.links = [...p().querySelectorAll('a.clinic-hit')].filter(shows)
    .map(a => a.href);
  const no = p().querySelector('.clinic-nohit');
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
    return re.findall(r"(ch\d\d)\.html", " ".join(links))


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
        print("search %r: %s" % (query, [h.split("/")[-1]
                                         for h in links[:rank]]))
        if not folder or "ch" + folder[0][:2] not in chapters_of(
                links[:rank]):
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


# The symptom index's rows: the text of the first cell, its code terms, and
# the row's links.
ROWS_JS = HELPERS_JS + r"""
return all('table.markdownTable tr').map(tr => {
  const c = tr.querySelector('td');
  return {text: c ? c.textContent : '', links: [...tr.querySelectorAll(
            'a[href]')].map(a => a.href), terms: c ? [...c.querySelectorAll(
            'code')].map(e => e.textContent.trim()) : []};
});
"""


def check_symptom_search(driver, base):
    """Each row of the symptom index: its longest code term, pasted into the
    box, finds a chapter the row links to; Enter opens the first result."""
    open_page(driver, base + "symptoms.html")
    checked = 0
    for row in driver.execute_script(ROWS_JS):
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
all('details').forEach(d => { d.open = true; });
frames().then(() => {
  const w = window.innerWidth;
  const doc = document.getElementById('doc-content') || document.body;
  const cut = all('div.fragment, pre').filter(
    f => f.scrollWidth > f.clientWidth + 1).map(
    f => f.innerText.split('\n')[0].slice(0, 50));
  const wide = Math.max(document.documentElement.scrollWidth,
                        document.body.scrollWidth, doc.scrollWidth);
  const walker = document.createTreeWalker(doc, NodeFilter.SHOW_TEXT);
  let out = '', n;
  while (wide > w && !out && (n = walker.nextNode())) {
    let own = false;
    for (let e = n.parentElement; e && e !== doc; e = e.parentElement)
      own = own || /auto|scroll|hidden/.test(getComputedStyle(e).overflowX);
    const r = document.createRange();
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
OFFSCREEN_JS = HELPERS_JS + r"""
return all('table.markdownTable').flatMap(t => {
  const box = (t.querySelector('tbody') || t).getBoundingClientRect();
  return [...t.querySelectorAll('a')].filter(a => {
    const r = a.getBoundingClientRect();
    return r.width > 0 && (r.right > Math.min(box.right, window.innerWidth) + 1
                           || r.left < -1);
  }).map(a => a.textContent.trim());
});
"""


def check_symptom_links(driver, width):
    off = driver.execute_script(OFFSCREEN_JS)
    if off:
        fail("symptoms.html at %d px: %d links off-screen, e.g. %s" % (
            width, len(off), ", ".join(off[:5])))


def phone_menu(driver, outdir, target):
    """Opens the phone menu, checks its ways in, and clicks target."""
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
        phone_menu(driver, outdir, target)
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
    return {"index.html": [("main", None)],
            "symptoms.html": [("symptoms", None)],
            "myths.html": [("myths", None), ("myths-sources",
                                             "myths-sources")],
            "ch%s.html" % num: [("chapter", None)] + [
                ("chapter-" + n, "ch%s-%s" % (num, a)) for n, a in (
                    ("fix", "fix"), ("where", "where-the-bug-is"),
                    ("diff", "the-fix-as-a-diff"),
                    ("output", "recorded-output"))]}


def check_pages(driver, base, site, args, chapters, shots, listings):
    """The crawl, with the checks made at desktop width in each page's
    visit; the top tabs; the phone widths."""
    chapters = {"ch%s.html" % c[:2]: c for c in chapters}

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
            scroll_shot(driver, args.screenshots, name + "-desktop", anchor)
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
    check_phone(driver, base, wanted, args.screenshots, shots)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for name, default, what in (
            ("site", None, "the built site"),
            ("screenshots", None, "where they go"),
            ("root", None, "the repository"),
            ("chromium", "/usr/bin/chromium", None),
            ("chromedriver", "/usr/bin/chromedriver", None),
            ("chapters", "", "chapter folders, a,b,...")):
        ap.add_argument("--" + name, required=name in ("site", "screenshots",
                                                       "root"),
                        default=default, help=what)
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
    try:
        set_viewport(driver, DESKTOP)
        if args.part != "search":
            check_pages(driver, base, site, args, chapters, shot_list(num),
                        listings)
        if args.part != "pages":
            check_queries(driver, base, chapters, args.screenshots)
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
