/* clinic.js -- the site's own behaviour on every page: the full-text search, the top tabs, tables
 * as labelled cards on a phone (code wraps in a table too wide for the text), the table of contents
 * and a chapter's subtitle where the theme wants them; a link into a "try it first" opens it. */
'use strict';
{ // a block: with strict mode, its functions and variables stay out of the global scope
  // The search box lists the sections (of the index make_pages.py writes) that match, best first.
  const base = (document.currentScript ? document.currentScript.src : '').replace(/[^/]*$/, '');
  let index = null, loading = null;
  function withIndex(done) { // at once when the index is there (Enter reads the list at once)
    if (index) return done();
    loading = loading || new Promise(loaded => document.head.appendChild(Object.assign(
      document.createElement('script'),
      {src: base + 'clinic-search-index.js', onload: loaded, onerror: loaded})))
      .then(() => { index = (window.CLINIC_SEARCH_INDEX || []).map(prepare); });
    loading.then(done);
  }

  // Units of size, as one word each: people write GB for GiB.
  const unit = w => (/^[kmgt]i?b$/.test(w) ? w[0] + 'ib' : /^bits?$/.test(w) ? 'bit' : null);
  // Words as the search compares them, in the pages and the query alike: "doesn't" is does, not;
  // "PyCUDA's" is pycuda; "2GB" and "2 GiB" are 2, gib.
  function words(text) {
    const t = text.toLowerCase().replace(/[\u2018\u2019\u02bc\u00b4]/g, "'")
      .replace(/\bcan'?t\b|\bcannot\b/g, 'can not').replace(/\bwon't\b/g, 'will not')
      .replace(/n't\b/g, ' not').replace(/'s\b/g, '')
      .replace(/\b(does|do|did|is|are|was|were|has|have|had|could|would|should)nt\b/g, '$1 not');
    return t.split(/[^\p{L}\p{N}_]+/u).flatMap(w => {
      const m = /^(\p{N}+)(\p{L}+)$/u.exec(w);
      return m && unit(m[2]) ? [m[1], unit(m[2])] : w ? [unit(w) || w] : [];
    });
  }
  // Each field as " word word ... ", so that " w " finds a whole word or phrase.
  function prepare(e, i) {
    const fields = [e.t, e.s, e.x];
    return {e: e, i: i, page: e.u.split('#')[0], low: fields.map(f => f.toLowerCase()),
            ws: fields.map(f => ' ' + words(f).join(' ') + ' ')};
  }

  // The words people use and the pages' words for the same thing: each phrase finds the others.
  const SYNONYMS = [
    ['segfault', 'segmentation fault', 'sigsegv', 'signal 11', 'core dumped'],
    ['oom', 'out of memory', 'cudaerrormemoryallocation'],
    ['illegal memory access', 'illegal address', 'cudaerrorillegaladdress'],
    ['in kernel malloc', 'device side malloc', 'malloc in a kernel', 'device heap',
     'malloc in device code'],
    ['malloc null', 'malloc returns null', 'malloc fails', 'returns null'],
    ['struct padding', 'struct layout', 'padding', 'alignment', 'alignas', 'pragma pack'],
    ['threads per block', 'block size', 'maxthreadsperblock', 'block too large'],
    ['wrong data', 'wrong results', 'wrong values', 'garbage'], ['zeros', 'zeroes', 'all zero'],
    ['hang', 'hangs', 'deadlock'], ['memcpy dtoh', 'memcpy_dtoh'], ['async', 'asynchronous'],
    ['sync', 'synchronize', 'synchronization']
  ].flatMap(g => g.map(p => words(p).join(' ')).map((p, k, all) =>
    ({p: p, n: p.split(' ').length, alt: all.filter(o => o !== p)})));
  // Little words only help a phrase rank ("does not wait"); a query of only those says too little.
  const STOP = new Set(('a am an and any anyone are as at be been but by can could did do does' +
    ' for from get gets got had has have help how i if in into is it its me my not of on or our' +
    ' per please so than that the their them then there these they this those to was we were' +
    ' what when where which while who why will with would you your').split(' '));
  const content = qw => qw.filter(w => !STOP.has(w));

  // A word's plural or singular counts as the word ("zero" finds "zeros").
  function forms(w) {
    if (w.length < 4 || /[^a-z_]/.test(w)) return [];
    if (/[^aeiou]ies$/.test(w)) return [w.slice(0, -3) + 'y'];
    if (/(s|x|z|ch|sh)es$/.test(w)) return [w.slice(0, -2), w.slice(0, -1)];
    if (/[^su]s$/.test(w)) return [w.slice(0, -1)];
    if (/(x|z|ch|sh)$/.test(w)) return [w + 'es'];
    if (/[^aeiou]y$/.test(w)) return [w.slice(0, -1) + 'ies'];
    return /[^s]$/.test(w) ? [w + 's'] : [];
  }

  // A record's score: each word (or its other forms, or a synonym of the phrase it is in) in the
  // page title counts most, then the section's title, then the text; a piece of a longer word
  // counts less; the more of the words, the better; the words side by side count most of all.
  const PLACE = [12, 8, 3], count = (hay, needle) => hay.split(needle).length - 1;
  function score(r, {qw, alts, phrases}) {
    let total = 0, covered = 0;
    qw.forEach((w, k) => {
      if (!alts[k]) return; // a little word
      let sc = 0, whole = false;
      for (let p = 0; p < 3; p++) {
        const n = [w, ...alts[k]].reduce((c, a) => c || count(r.ws[p], ' ' + a + ' '), 0);
        if (n) { sc += PLACE[p] + (p === 2 ? Math.min(n, 4) - 1 : 0); whole = true; }
        else if (w.length >= 3 && r.low[p].indexOf(w) >= 0) sc += PLACE[p] * 0.35;
      }
      total += sc;
      covered += whole ? 1 : sc ? 0.5 : 0;
    });
    if (!total) return 0;
    const best = Math.max(0, ...phrases.map(p => Math.max(r.ws[0].includes(p) ? 40 : 0,
      r.ws[1].includes(p) ? 30 : 0, [0, 22, 26, 30][Math.min(count(r.ws[2], p), 3)])));
    return total + 30 * covered + best +
      (/^ch\d\d\.html$/.test(r.page) ? 2 : 0) - // a chapter explains; other pages route
      (r.e.u.indexOf('#') < 0 && !r.e.s ? 1 : 0); // a section before a page's introduction
  }

  // A query's words' other forms and synonyms (null: a little word); its phrases: all of it, its
  // words but the little ones, a synonym of all of it (OOM); what a result marks, longest first, as
  // whole words (a phrase's joined by any punctuation): those, the query's pairs of words.
  function parse(qw) {
    const cw = content(qw), syn = SYNONYMS.flatMap(s => qw.map((w, at) => ({...s, at: at})))
      .filter(s => qw.slice(s.at, s.at + s.n).join(' ') === s.p);
    const alts = qw.map((w, k) => (cw.includes(w) ? forms(w).concat(
      ...syn.filter(s => k >= s.at && k < s.at + s.n).map(s => s.alt)) : null));
    const phrases = (qw.length > 1 ? [qw.join(' ')] : [])
      .concat(cw.length > 1 && cw.length < qw.length ? [cw.join(' ')] : [],
              ...syn.filter(s => s.at === 0 && s.n === qw.length).map(s => s.alt));
    const terms = [...new Set([qw.join(' '), ...qw.slice(1).map((w, k) => qw[k] + ' ' + w),
      ...cw.filter(w => w.length > 1), ...alts.filter(a => a).flat()])]
      .sort((a, b) => b.length - a.length);
    const wc = '\\p{L}\\p{N}_', body = terms.map(t => t.replace(/ /g, '[^' + wc + ']+'));
    return {qw: qw, alts: alts, phrases: phrases.map(p => ' ' + p + ' '), terms: terms,
            re: new RegExp('(?<![' + wc + '])(' + body.join('|') + ')(?![' + wc + '])', 'giu')};
  }

  // The best 40 results, at most two sections of one page so more pages show.
  function search(query) {
    const perPage = {};
    return index.map(r => ({r: r, score: score(r, query)}))
      .filter(h => h.score > 0)
      .sort((a, b) => b.score - a.score || a.r.i - b.r.i)
      .filter(h => (perPage[h.r.page] = (perPage[h.r.page] || 0) + 1) <= 2)
      .slice(0, 40);
  }

  const escapeHtml = s => s.replace(/[&<>"]/g, c => '&#' + c.charCodeAt(0) + ';');

  // About 180 characters of the text around the first of the longest whole-word matches (else the
  // first piece of a word that matched), with the terms marked; it starts at a word, not at a dash
  // or a dot left over from the sentence before, and ends between words.
  function snippet(text, m) {
    const hits = from => text.matchAll(Object.assign(m.re, {lastIndex: from}));
    const first = [...hits(0)].reduce((a, h) => (a && a[0].length >= h[0].length ? a : h), null);
    let at = first ? first.index : 0;
    for (let k = 0; !first && k < m.terms.length && !at; k++)
      at = Math.max(0, text.toLowerCase().indexOf(m.terms[k]));
    let from = Math.max(0, at - 60), to = Math.min(text.length, from + 180);
    const lead = /^([^ ]* )?([^\p{L}\p{N}_\s("“'\[<]+\s+)?/u.exec(text.slice(from, at))[0];
    if (from > 0) from += lead.length;
    const back = to < text.length ? text.lastIndexOf(' ', to) : -1;
    if (back > at) to = back;
    let html = '', pos = from;
    for (const h of hits(from)) {
      if (h.index + h[0].length > to) break;
      html += escapeHtml(text.slice(pos, h.index)) + '<mark>' + escapeHtml(h[0]) + '</mark>';
      pos = h.index + h[0].length;
    }
    return (from > 0 ? '…' : '') + html + escapeHtml(text.slice(pos, to)) +
      (to < text.length ? '…' : '');
  }

  const panel = document.body.appendChild(document.createElement('div'));
  Object.assign(panel, {id: 'clinic-search-results', hidden: true}).setAttribute('role', 'listbox');
  const field = () => document.getElementById('MSearchField');
  const hide = () => { panel.hidden = true; };

  function place() {
    const box = document.getElementById('MSearchBox') || field();
    if (!box || panel.hidden) return;
    const r = box.getBoundingClientRect(), width = Math.min(520, window.innerWidth - 16);
    Object.assign(panel.style, {top: (r.bottom + 6) + 'px', width: width + 'px',
      left: Math.max(8, Math.min(r.right - width, window.innerWidth - width - 8)) + 'px'});
  }

  function show(q) {
    const qw = words(q), cw = content(qw);
    if (!qw.length) return hide();
    withIndex(() => {
      if (field() && field().value !== q) return; // typed on meanwhile
      const m = cw.length ? parse(qw) : null, hits = m ? search(m) : [];
      const said = !m ? '“' + escapeHtml(q.trim()) + '” says too little to search for: add ' +
        'what you see, such as an error message, a value or a call.' : hits.length ? '' :
        'No section contains ' + cw.map(w => '“' + escapeHtml(w) + '”').join(' or ') + '.';
      panel.innerHTML = (said ? '<div class="clinic-nohit">' + said + '</div>' : '') +
        hits.map(({r: {e}}) => '<a class="clinic-hit" role="option" href="' +
          escapeHtml(base + e.u) + '"><span class="clinic-hit-title">' + escapeHtml(e.t) +
          (e.s ? '</span><span class="clinic-hit-section">' + escapeHtml(e.s) : '') +
          '</span><span class="clinic-hit-text">' + snippet(e.x, m) + '</span></a>').join('');
      panel.hidden = false;
      panel.setAttribute('data-query', q); // which query the list answers
      place();
    });
  }

  // Doxygen's box holds "Search" until focused (ours, a placeholder) and calls its global
  // searchBox's methods from inline attributes: they run this search instead of Doxygen's.
  function ownField() {
    const f = field();
    if (f) Object.assign(f, {defaultValue: '', placeholder: 'Search the text', autocomplete: 'off'})
      .setAttribute('aria-label', 'Search the text of the site');
    return f;
  }
  Object.assign(window.searchBox || {}, {
    OnSearchFieldFocus: active => {
      const f = ownField(), box = document.getElementById('MSearchBox');
      if (active || !f.value) box.className = active ? 'MSearchBoxActive' : 'MSearchBoxInactive';
      if (active) withIndex(() => show(f.value)); // the index loads meanwhile
    },
    OnSearchFieldChange: () => {}, OnSearchSelectShow: () => false, OnSearchSelectHide: () => {},
    CloseResultsWindow: () => { field().value = ''; hide(); }
  });
  // Deferred, this script's ready handler runs after menu.js's, which adds the one making the box.
  if (window.jQuery) jQuery(() => jQuery(ownField));
  // Searching on each keystroke makes fast typing lag: the search waits until typing pauses 80 ms;
  // Enter, the arrows and Escape run a waiting one first.
  let pending = null;
  document.addEventListener('input', ev => {
    if (ev.target.id !== 'MSearchField') return;
    clearTimeout(pending);
    pending = setTimeout(() => { pending = null; show(ev.target.value); }, 80);
  });
  document.addEventListener('keydown', ev => {
    const f = ev.target, step = {ArrowDown: 1, ArrowUp: -1}[ev.key];
    if (f.id !== 'MSearchField' || !(step || ev.key === 'Escape' || ev.key === 'Enter')) return;
    if (pending !== null) { clearTimeout(pending); pending = null; show(f.value); }
    const a = [...panel.querySelectorAll('a.clinic-hit')];
    let at = a.findIndex(el => el.classList.contains('clinic-selected'));
    if (step && a.length) {
      at = (at + step + a.length) % a.length;
      a.forEach((el, j) => el.classList.toggle('clinic-selected', j === at));
      a[at].scrollIntoView({block: 'nearest'});
    }
    if (step) ev.preventDefault();
    else if (ev.key === 'Escape') hide();
    else {
      ev.preventDefault();
      if (!a.length) return show(f.value);
      hide();
      window.location.href = a[Math.max(at, 0)].getAttribute('href');
    }
  });
  // The magnifier focuses the box; a click elsewhere closes the list.
  document.addEventListener('mousedown', ev => {
    const t = ev.target.closest ? ev.target : document.body;
    if (t.closest('#MSearchSelect')) {
      ev.preventDefault();
      field().focus();
    } else if (!panel.contains(t) && !t.closest('#MSearchBox')) hide();
  });
  window.addEventListener('resize', place);

  // Tables of two or more columns, as cards on a phone (clinic.css): cells labelled by column.
  document.querySelectorAll('table.markdownTable').forEach(t => {
    const names = [...t.querySelectorAll('th')].map(h => h.textContent.trim());
    t.classList.toggle('clinic-cards', names.length > 1);
    t.querySelectorAll('td').forEach(td => td.setAttribute('data-label', names[td.cellIndex]));
  });

  // A table too wide for the text column is marked so that clinic.css lets its code wrap; measured
  // when the column changes width (not height: the mark changes that).
  let fitWidth = -1;
  const fit = new ResizeObserver(([{target: column}]) => {
    if (column.clientWidth === fitWidth) return;
    fitWidth = column.clientWidth;
    column.querySelectorAll('table.markdownTable > tbody').forEach(b =>
      b.parentNode.classList.toggle('clinic-fit', b.scrollWidth > b.clientWidth + 1));
  });

  // A link into a folded "try it first" section (or to the heading above it) opens it; the folds
  // are the text's own blocks, beside its headings.
  function openTarget() {
    const el = document.getElementById(decodeURIComponent(window.location.hash.slice(1)));
    if (!el) return;
    let n = el.closest('details') || (el.closest('h1, h2, h3, h4') || el).nextElementSibling;
    while (n && !/^(DETAILS|H[1-4])$/.test(n.tagName)) n = n.nextElementSibling;
    if (n && n.tagName === 'DETAILS') n.open = true;
    el.scrollIntoView();
  }

  // The top tabs, instead of Doxygen's "Related Pages" (empty: every page is under the main page).
  // This script is deferred: it runs before jQuery builds the menu.
  const TABS = [['Chapters', 'chapters.html'], ['By symptom', 'symptoms.html'],
                ['Myths', 'myths.html'], ['Python', 'python.html'], ['Doctor', 'doctor.html']];
  const menu = window.menudata || {}, drop = /^(pages|files|globals|examples)\.html$/;
  if (menu.children) menu.children = menu.children.filter(e => !drop.test(e.url))
    .concat(TABS.map(t => ({text: t[0], url: t[1]})));
  // A chapter's subtitle belongs under its title, above the contents; the theme's interactive TOC
  // (once loaded) wants make_pages.py's first in .contents.
  const all = s => document.querySelectorAll(s);
  all('.header .headertitle').forEach(t => t.append(...all('.textblock > .clinic-subtitle')));
  all('div.contents').forEach(c => c.prepend(...all('.textblock .toc.clinic-toc')));
  all('div.contents').forEach(c => fit.observe(c));
  window.addEventListener('hashchange', openTarget);
  openTarget();
}
