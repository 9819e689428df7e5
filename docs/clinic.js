/* clinic.js -- the site's own behaviour on every page: the full-text search, the top tabs, tables
 * as labelled cards on a phone (code wraps in a table too wide for the text), the table of contents
 * and a chapter's subtitle where the theme wants them; a link into a "try it first" opens it. */
'use strict';
{ // a block: with strict mode, its functions and variables stay out of the global scope
  // The search box lists the sections (the index make_pages.py writes) that match the words typed,
  // best first, once typing pauses for 80 ms. Little words (my, the) do not decide a match;
  // apostrophes, plurals and sizes (2GB, 2 GiB) are read as a person means them; the words people
  // use find the pages' own (segfault: segmentation fault). Enter opens the selected result, arrows
  // move, Escape closes.
  const base = (document.currentScript ? document.currentScript.src : '').replace(/[^/]*$/, '');
  let index = null, loading = null;
  function withIndex(done) { // at once when the index is there
    if (index) return done();
    loading = loading || new Promise(loaded => {
      const s = Object.assign(document.createElement('script'),
                              {src: base + 'clinic-search-index.js', charset: 'utf-8'});
      s.onload = s.onerror = loaded;
      document.head.appendChild(s);
    }).then(() => { index = (window.CLINIC_SEARCH_INDEX || []).map(prepare); });
    loading.then(done);
  }

  // Units of size, as one word each: people write GB for GiB.
  const UNITS = {kb: 'kib', kib: 'kib', mb: 'mib', mib: 'mib', gb: 'gib', gib: 'gib',
                 tb: 'tib', tib: 'tib', bit: 'bit', bits: 'bit'};
  const unit = w => (UNITS.hasOwnProperty(w) ? UNITS[w] : null);
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

  // The words people use, and the words the pages use for the same thing. A query that holds one
  // phrase of a group also finds the others.
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
  ].map(g => g.map(p => words(p).join(' ')));
  // Little words only help a whole phrase rank ("does not wait"); a query of nothing else finds
  // nothing, and the box says so.
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

  // The synonyms found in the query: where they start, how many words, the group's other phrases.
  function synonymsOf(qw) {
    const found = [], q = ' ' + qw.join(' ') + ' ';
    for (const group of SYNONYMS) {
      for (const p of group) {
        for (let at = q.indexOf(' ' + p + ' '); at >= 0; at = q.indexOf(' ' + p + ' ', at + 1))
          found.push({at: q.slice(1, at + 1).split(' ').length - 1, n: p.split(' ').length,
                      alt: group.filter(o => o !== p)});
      }
    }
    return found;
  }

  function count(hay, needle) { // up to 5
    let n = 0;
    for (let at = hay.indexOf(needle); at >= 0 && n < 5; n++) {
      at = hay.indexOf(needle, at + needle.length);
    }
    return n;
  }

  // A record's score: each word (or its other forms, or a synonym of the phrase it is in) in the
  // page title counts most, then the section's title, then the text; a piece of a longer word
  // counts less; the more of the words, the better; the words side by side count most of all.
  const PLACE = [12, 8, 3];
  function score(r, qw, alts, phrases) {
    let total = 0, covered = 0;
    qw.forEach((w, k) => {
      if (!alts[k]) return; // a little word
      let sc = 0, whole = false;
      for (let p = 0; p < 3; p++) {
        let n = count(r.ws[p], ' ' + w + ' ');
        for (let a = 0; a < alts[k].length && !n; a++) n = count(r.ws[p], ' ' + alts[k][a] + ' ');
        if (n) { sc += PLACE[p] + (p === 2 ? Math.min(n, 4) - 1 : 0); whole = true; }
        else if (w.length >= 3 && r.low[p].indexOf(w) >= 0) sc += PLACE[p] * 0.35;
      }
      total += sc;
      covered += whole ? 1 : sc ? 0.5 : 0;
    });
    if (!total) return 0;
    const best = Math.max(0, ...phrases.map(p => {
      const n = count(r.ws[2], p);
      return Math.max(r.ws[0].includes(p) ? 40 : 0, r.ws[1].includes(p) ? 30 : 0,
                      n ? 18 + 4 * Math.min(n, 3) : 0);
    }));
    return total + 30 * covered + best +
      (/^ch\d\d\.html$/.test(r.page) ? 2 : 0) - // a chapter explains; other pages route
      (r.e.u.indexOf('#') < 0 && !r.e.s ? 1 : 0); // a section before a page's introduction
  }

  // The best 40 results, at most two sections of one page so more pages show.
  function search(qw) {
    const cw = content(qw), syn = synonymsOf(qw);
    const alts = qw.map((w, k) => (cw.includes(w) ? forms(w).concat(
      ...syn.filter(s => k >= s.at && k < s.at + s.n).map(s => s.alt)) : null));
    // The whole query as a phrase, its words other than the little ones as another, or a synonym
    // of all of it (OOM: out of memory).
    const phrases = (qw.length > 1 ? [qw.join(' ')] : [])
      .concat(cw.length > 1 && cw.length < qw.length ? [cw.join(' ')] : [],
              ...syn.filter(s => s.at === 0 && s.n === qw.length).map(s => s.alt))
      .map(p => ' ' + p + ' ');
    const perPage = {};
    return index.map(r => ({r: r, score: score(r, qw, alts, phrases)}))
      .filter(h => h.score > 0)
      .sort((a, b) => b.score - a.score || a.r.i - b.r.i)
      .filter(h => (perPage[h.r.page] = (perPage[h.r.page] || 0) + 1) <= 2)
      .slice(0, 40);
  }

  const escapeHtml = s => s.replace(/[&<>"]/g, c => '&#' + c.charCodeAt(0) + ';');

  // What a result marks, as a pattern of whole words, longest first: the whole query, its pairs of
  // words, its words (not the little ones, unless there is nothing else) and their other forms, and
  // its synonyms. The words of a phrase may be joined by any punctuation.
  function marker(qw) {
    const cw = content(qw);
    let terms = [qw.join(' ')].concat(qw.slice(1).map((w, k) => qw[k] + ' ' + w),
      ...(cw.length ? cw : qw).filter(w => w.length > 1).map(w => [w].concat(forms(w))),
      ...synonymsOf(qw).map(s => s.alt));
    terms = [...new Set(terms)].filter(t => t).sort((a, b) => b.length - a.length);
    const w = '\\p{L}\\p{N}_', body = terms.map(t => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      .split(' ').join('[^' + w + ']+'));
    const re = new RegExp('(?<![' + w + '])(' + body.join('|') + ')(?![' + w + '])', 'giu');
    return {terms: terms, re: re};
  }

  // About 180 characters of the text around the first of the longest whole-word matches (else the
  // first piece of a word that matched), cut between words, with the terms marked.
  function snippet(text, m) {
    let first = null, hit;
    m.re.lastIndex = 0;
    while ((hit = m.re.exec(text)) !== null) {
      if (!first || hit[0].length > first[0].length) first = hit;
    }
    let at = first ? first.index : 0;
    for (let k = 0; !first && k < m.terms.length && !at; k++)
      at = Math.max(0, text.toLowerCase().indexOf(m.terms[k]));
    let from = Math.max(0, at - 60), to = Math.min(text.length, from + 180);
    if (from > 0) {
      const space = text.indexOf(' ', from);
      if (space >= 0 && space < at) from = space + 1;
      // Not from a dash or a dot left over from the sentence before.
      const lone = /^[^\p{L}\p{N}_\s("“'\[<]+\s+/u.exec(text.slice(from, at));
      if (lone) from += lone[0].length;
    }
    const back = to < text.length ? text.lastIndexOf(' ', to) : -1;
    if (back > at) to = back;
    let html = '', pos = from;
    m.re.lastIndex = from;
    while ((hit = m.re.exec(text)) !== null && hit.index + hit[0].length <= to) {
      html += escapeHtml(text.slice(pos, hit.index)) + '<mark>' + escapeHtml(hit[0]) + '</mark>';
      pos = hit.index + hit[0].length;
    }
    return (from > 0 ? '…' : '') + html + escapeHtml(text.slice(pos, to)) +
      (to < text.length ? '…' : '');
  }

  // The results list.
  const panel = Object.assign(document.createElement('div'),
                              {id: 'clinic-search-results', hidden: true});
  panel.setAttribute('role', 'listbox');
  let selected = -1;
  const field = () => document.getElementById('MSearchField');
  const links = () => panel.querySelectorAll('a.clinic-hit');
  function hide() { panel.hidden = true; selected = -1; }

  function place() {
    const box = document.getElementById('MSearchBox') || field();
    if (!box || panel.hidden) return;
    const r = box.getBoundingClientRect(), width = Math.min(520, window.innerWidth - 16);
    Object.assign(panel.style, {top: (r.bottom + 6) + 'px', width: width + 'px',
      left: Math.max(8, Math.min(r.right - width, window.innerWidth - width - 8)) + 'px'});
  }

  function select(k) {
    const a = links();
    if (!a.length) return;
    selected = (k + a.length) % a.length;
    a.forEach((el, j) => el.classList.toggle('clinic-selected', j === selected));
    a[selected].scrollIntoView({block: 'nearest'});
  }

  function show(q) {
    const qw = words(q), cw = content(qw);
    if (!qw.length) return hide();
    withIndex(() => {
      if (field() && field().value !== q) return; // typed on meanwhile
      const hits = cw.length ? search(qw) : [], m = marker(qw);
      let html = '';
      if (!cw.length) {
        html = '<div class="clinic-nohit">“' + escapeHtml(q.trim()) + '” says too little to ' +
               'search for: add what you see, such as an error message, a value or a call.</div>';
      } else if (!hits.length) {
        html = '<div class="clinic-nohit">No section contains ' +
               cw.map(w => '“' + escapeHtml(w) + '”').join(' or ') + '.</div>';
      }
      for (const {r: {e}} of hits) {
        html += '<a class="clinic-hit" role="option" href="' + escapeHtml(base + e.u) + '">' +
                '<span class="clinic-hit-title">' + escapeHtml(e.t) + '</span>' +
                (e.s ? '<span class="clinic-hit-section">' + escapeHtml(e.s) + '</span>' : '') +
                '<span class="clinic-hit-text">' + snippet(e.x, m) + '</span></a>';
      }
      panel.innerHTML = html;
      panel.setAttribute('data-query', q); // which query the list answers
      if (!panel.parentNode) document.body.appendChild(panel);
      selected = -1;
      panel.hidden = false;
      place();
    });
  }

  // Doxygen's box calls the methods of its global searchBox from inline attributes (focus, blur,
  // keyup, the magnifier's hover, the cross): they run this search instead of Doxygen's.
  function clearDoxygenText(f) {
    if (f && f.value === f.defaultValue && /^search$/i.test(f.value)) f.value = '';
  }
  const OWN_SEARCH_BOX = {
    OnSearchFieldFocus: active => {
      const f = field();
      clearDoxygenText(f);
      const box = document.getElementById('MSearchBox');
      if (active || !f.value) box.className = active ? 'MSearchBoxActive' : 'MSearchBoxInactive';
      if (active) withIndex(() => {});
      if (active && f.value) show(f.value);
    },
    OnSearchFieldChange: () => {}, OnSearchSelectShow: () => false, OnSearchSelectHide: () => {},
    CloseResultsWindow: () => { field().value = ''; hide(); }
  };
  // Searching on each keystroke makes fast typing lag: the search waits until typing pauses 80 ms;
  // Enter, the arrows and Escape run a waiting one first.
  let pending = null;
  document.addEventListener('input', ev => {
    if (ev.target.id !== 'MSearchField') return;
    clearTimeout(pending);
    pending = setTimeout(() => { pending = null; show(ev.target.value); }, 80);
  });
  document.addEventListener('keydown', ev => {
    const f = ev.target;
    if (f.id !== 'MSearchField') return;
    if (pending !== null) { clearTimeout(pending); pending = null; show(f.value); }
    const a = links();
    if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
      select(selected + (ev.key === 'ArrowDown' ? 1 : -1));
      ev.preventDefault();
    } else if (ev.key === 'Escape') hide();
    else if (ev.key === 'Enter') {
      ev.preventDefault();
      if (!a.length) return show(f.value);
      hide();
      window.location.href = a[Math.max(selected, 0)].getAttribute('href');
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

  // Tables on narrow screens.
  function labelTables() {
    document.querySelectorAll('table.markdownTable').forEach(table => {
      const head = table.querySelector('tr.markdownTableHead');
      const names = head ? [...head.children].map(th => th.textContent.trim()) : [];
      if (names.length < 3) return;
      table.classList.add('clinic-cards');
      table.querySelectorAll('tr').forEach(tr => {
        if (tr === head) return;
        const cells = [...tr.children];
        if (cells.length && !cells[0].textContent.trim()) tr.classList.add('clinic-more');
        cells.forEach((td, k) => (names[k] ? td.setAttribute('data-label', names[k]) : null));
      });
    });
  }

  // A table too wide for the text column is marked so that clinic.css lets its code wrap; measured
  // again whenever the column changes width.
  let fitWidth = -1;
  function fitTables() {
    const column = document.querySelector('div.contents');
    if (!column || column.clientWidth === fitWidth) return;
    fitWidth = column.clientWidth;
    document.querySelectorAll('table.markdownTable').forEach(table => {
      const body = table.querySelector('tbody') || table;
      table.classList.toggle('clinic-fit', body.scrollWidth > body.clientWidth + 1);
    });
  }

  // A link or search result that points into a folded "try it first" section opens it, so that the
  // reader sees what was asked for.
  function openTarget() {
    const id = decodeURIComponent(window.location.hash.slice(1));
    const el = id && document.getElementById(id);
    if (!el) return;
    for (let d = el.closest('details'); d; d = d.parentElement.closest('details')) d.open = true;
    for (let n = (el.closest('h1, h2, h3, h4') || el).nextElementSibling;
         n && !/^H[1-4]$/.test(n.tagName); n = n.nextElementSibling) {
      const fold = n.matches('details.clinic-try') ? n : n.querySelector('details.clinic-try');
      if (fold) { fold.open = true; break; }
    }
    el.scrollIntoView();
  }
  window.addEventListener('hashchange', openTarget);

  // The top tabs, instead of Doxygen's "Related Pages" (empty: every page is under the main page).
  // jQuery builds the menu after the DOMContentLoaded listeners run.
  const TABS = [['Chapters', 'chapters.html'], ['By symptom', 'symptoms.html'],
                ['Myths', 'myths.html'], ['Python', 'python.html'], ['Doctor', 'doctor.html']];
  document.addEventListener('DOMContentLoaded', () => {
    const menu = window.menudata;
    if (menu && menu.children) {
      menu.children = menu.children.filter(e => !/^(pages|files|globals|examples)\.html$/
        .test(e.url)).concat(TABS.map(t => ({text: t[0], url: t[1]})));
    }
    Object.assign(window.searchBox || {}, OWN_SEARCH_BOX);
    // A chapter's subtitle belongs under its title, above the contents.
    const q = s => document.querySelector(s), sub = q('.contents .textblock > .clinic-subtitle');
    if (sub && q('.header .headertitle')) q('.header .headertitle').appendChild(sub);
    if (q('div.contents')) new ResizeObserver(fitTables).observe(q('div.contents'));
    if (window.location.hash) openTarget();
  });
  // Once the page is ready, and again once the theme's and Doxygen's scripts made the menu's search
  // box: the theme's interactive TOC wants make_pages.py's first in .contents.
  function ready() {
    const toc = document.querySelector('.contents .textblock .toc.clinic-toc');
    if (toc) document.querySelector('div.contents').prepend(toc);
    labelTables();
    fitTables();
    const f = field();
    if (!f) return;
    clearDoxygenText(f);
    Object.entries({placeholder: 'Search the text', 'aria-label': 'Search the text of the site',
                    autocomplete: 'off'}).forEach(([k, v]) => f.setAttribute(k, v));
  }
  document.addEventListener('DOMContentLoaded', ready);
  window.addEventListener('load', ready);
}
