/* browser_test.js -- what browser_test.py runs in the page: each script follows its "//: NAME"
 * line and runs after HELPERS; those run asynchronously end by calling done. */

//: HELPERS how many animations run (jQuery's, and CSS's that end); a promise of a condition
// (tried every 10 ms) and of two frames; whether an element shows; the elements a selector finds;
// the elements after el (or its heading) up to the next heading; the texts of [condition, text].
const ends = a => isFinite(a.effect ? a.effect.getComputedTiming().endTime : 0);
const running = () => (window.jQuery && jQuery.timers ? jQuery.timers.length : 0) +
  document.getAnimations().filter(a => a.playState === 'running' && ends(a)).length;
const until = (test, ms) => new Promise(done => {
  const end = performance.now() + ms;
  (function look() {
    let ok = false;
    try { ok = test(); } catch (e) {}
    if (ok || performance.now() > end) done(ok); else setTimeout(look, 10);
  })();
});
const frames = () => new Promise(then => requestAnimationFrame(() => requestAnimationFrame(then)));
const shows = e => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
const all = s => [...document.querySelectorAll(s)], done = arguments[arguments.length - 1];
const $ = s => document.querySelector(s);
const section = el => {
  const out = [];
  for (let n = (el.closest('h1, h2, h3') || el).nextElementSibling;
       n && !/^H[1-3]$/.test(n.tagName); n = n.nextElementSibling) out.push(n);
  return out;
};
const bad = list => list.filter(b => b[0]).map(b => b[1]);

//: READY the page loaded, jQuery's ready handlers run, the navigation tree filled and (within
// 3 s) synced, no animation running with arguments[1] (settle), two frames.
const limit = arguments[0] * 1000, settle = arguments[1], tree = () => $('#nav-tree');
(async () => {
  const out = {loaded: await until(() => document.readyState === 'complete', limit)};
  if (!out.loaded) return done(out);
  await new Promise(then => (window.jQuery ? jQuery(then) : then()));
  out.tree = await until(() => !tree() || tree().querySelectorAll('a[href]').length > 1, limit);
  await until(() => !tree() || tree().querySelector('#selected'), 3000);
  await until(() => !settle || !running(), limit);
  await frames();
  done(out);
})();

//: SETTLE no animation running, then two frames.
until(() => !running(), 10000).then(frames).then(done);

//: FACTS what a reader sees of a page: literal markup in its titles and text outside code, its
// ids, its links, its title, how many words it has.
const skip = 'pre, code, tt, kbd, .fragment, script, style, textarea, ' +
  '#clinic-search-results, #MSearchResultsWindow, #MSearchSelectWindow';
const raw = /\*\*|<\/?(strong|tt|b|em|code)>|@(ref|subpage)\b|\\(anchor\b|htmlonly)|\{#\w|`|&lt;/;
const texts = [document.title];
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
for (let n, e; (n = walker.nextNode());)
  if ((e = n.parentElement) && !e.closest(skip) && n.nodeValue.trim()) texts.push(n.nodeValue);
const quote = t => JSON.stringify(t.slice(0, 120));
return {markup: texts.filter(t => raw.test(t)).map(t => `${t.match(raw)[0]} in ${quote(t)}`),
        ids: all('[id]').map(e => e.id).concat(all('a[name]').map(e => e.name)),
        links: all('a[href]').map(a => [a.getAttribute('href'), a.href, a.textContent.trim()]),
        title: $('.title') ? $('.title').textContent.trim() : '',
        words: $('div.contents') ? $('div.contents').innerText.split(/\s+/).length : 0};

//: OPENING the main page's links before its first heading.
const first = $('div.contents .textblock').firstElementChild;
return (/^H[1-3]$/.test(first.tagName) ? [] : [first, ...section(first)])
  .flatMap(n => [...n.querySelectorAll('a[href]')].map(a => a.getAttribute('href')));

//: CHAPTER a chapter as it arrives (arguments[0]: its number): what is wrong with its folds,
// Hint and diff; its recorded outputs shown, without white space.
const get = s => document.getElementById('ch' + arguments[0] + s);
const fix = get('-fix'), hint = get('-hint'), where = get('-where-the-bug-is');
const programs = get('-the-programs'), folded = n => n.matches('details.clinic-try') ||
  n.querySelector('details.clinic-try');
const diff = all('.clinic-diff').find(d => d.textContent.indexOf('+++ fixed.cu') >= 0);
const open = all('details.clinic-try').filter(d => d.open).length;
const outputs = all('.clinic-out .fragment').map(f => f.textContent.replace(/\s+/g, ''));
return {outputs: outputs, bad: bad([
  [open, open + " 'try it first' fold(s) open on arrival"],
  [!fix || !section(fix).some(folded), "the Fix is not folded behind 'try it first'"],
  [!(where && programs && where.compareDocumentPosition(programs) & 4),
   "no 'Where the bug is' above the full listings"],
  [hint && !section(hint).some(n => n.getBoundingClientRect().height > 0 && !n.closest('details')),
   'the Hint is not in plain view'],
  [!diff || !diff.querySelectorAll('.add, .del').length,
   'the diff of the fix takes out and puts in no line']
])};

//: RESULTS once arguments[0] is typed: waits for the list that answers what the box holds, then
// reads it as shown: the results' links, what it says when it lists nothing, what is wrong.
const p = () => $('#clinic-search-results'), f = $('#MSearchField'), query = arguments[0];
const word = (n, at) => !!n && /[\p{L}\p{N}_]/u.test(n.textContent.charAt(at(n.textContent)));
const inside = m => m.textContent.length < 2 || word(m.previousSibling, t => t.length - 1) ||
  word(m.nextSibling, () => 0);
until(() => p() && !p().hidden && p().children.length > 0 &&
      p().getAttribute('data-query') === f.value, 10000).then(ok => done({
  links: all('#clinic-search-results a.clinic-hit').filter(shows).map(a => a.href),
  said: ($('#clinic-search-results .clinic-nohit') || {textContent: ''}).textContent,
  bad: bad([[f.value !== query, 'the box holds ' + f.value], [!ok, 'no results list']]).concat(
    all('.clinic-hit-text mark').filter(inside).map(m => 'the highlight "' + m.textContent +
      '" sits inside a word: ' + m.parentElement.textContent.slice(0, 80)),
    all('.clinic-hit-text').filter(e => /[@\\](ref|subpage|anchor)\b|^#+ /.test(e.textContent))
      .map(e => 'a result shows the source: ' + e.textContent.slice(0, 120)))
}));

//: ROWS the symptom index's rows that link to chapters: the first cell's text and its longest
// code term of 6 characters or more, the row's links.
return all('table.markdownTable tr').map(tr => ({
  text: tr.cells[0].textContent.slice(0, 60), links: [...tr.querySelectorAll('a')].map(a => a.href),
  term: [...tr.cells[0].querySelectorAll('code')].map(e => e.textContent.trim())
    .filter(t => t.length >= 6).sort((a, b) => a.length - b.length).pop()
})).filter(r => r.term && r.links.some(h => /ch\d\d\.html/.test(h)));

//: LISTINGS opens every fold, then says what sticks out of the window: listings wider than their
// box, tables' links outside the window or their table, the first text that scrolls sideways.
all('details').forEach(d => { d.open = true; });
frames().then(() => {
  const w = window.innerWidth, doc = $('#doc-content') || document.body;
  const cut = all('div.fragment, pre').filter(f => f.scrollWidth > f.clientWidth + 1)
    .map(f => f.innerText.split('\n')[0].slice(0, 50));
  const off = all('table.markdownTable a').filter(a => {
    const r = a.getBoundingClientRect(), t = a.closest('table');
    const box = (t.querySelector('tbody') || t).getBoundingClientRect();
    return r.width > 0 && (r.right > Math.min(box.right, w) + 1 || r.left < -1);
  }).map(a => a.textContent.trim());
  const wide = Math.max(document.documentElement.scrollWidth, document.body.scrollWidth,
                        doc.scrollWidth);
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
  done(bad([[cut.length, cut.length + ' listing(s) cut off, e.g. ' + cut[0]],
            [off.length, off.length + ' table link(s) off-screen, e.g. ' + off.slice(0, 5)],
            [wide > w, 'the page scrolls sideways, ' + wide + ' px wide (' + out + ')']])
    .map(b => 'at ' + w + ' px: ' + b));
});
