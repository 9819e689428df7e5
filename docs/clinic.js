/* clinic.js -- the site's own behaviour on every page: the full-text search, the top tabs, tables as
 * labelled cards on a phone (code wraps in a table too wide for the text), the table of contents and a
 * chapter's subtitle where the theme wants them, and a link into a folded "try it first" that opens it. */
'use strict';
{ // a block: with strict mode, its functions and variables stay out of the global scope
  // The search box lists the sections (the index make_pages.py writes) that match the words typed, best first,
  // once typing pauses for 80 ms. Little words (my, the) do not decide a match; apostrophes, plurals and sizes
  // (2GB, 2 GiB) are read as a person means them; the words people use find the pages' own (segfault:
  // segmentation fault). Enter opens the selected result, arrows move, Escape closes.
  let base = (document.currentScript ? document.currentScript.src : '').replace(/[^\/]*$/, ''), index = null, waiting = null;
  function withIndex(done) {
    if (index) return done();
    if (waiting) return waiting.push(done);
    waiting = [done];
    var s = Object.assign(document.createElement('script'), { src: base + 'clinic-search-index.js', charset: 'utf-8' });
    s.onload = s.onerror = function () {
      index = (window.CLINIC_SEARCH_INDEX || []).map(prepare);
      waiting.forEach(function (f) { f(); });
    };
    document.head.appendChild(s);
  }

  // Units of size, as one word each: people write GB for GiB.
  let UNITS = { kb: 'kib', kib: 'kib', mb: 'mib', mib: 'mib', gb: 'gib', gib: 'gib',
                tb: 'tib', tib: 'tib', bit: 'bit', bits: 'bit' };
  // Words as the search compares them, in the pages and the query alike: "doesn't" is does, not; "PyCUDA's" is
  // pycuda; "2GB" and "2 GiB" are 2, gib.
  function words(text) {
    var t = text.toLowerCase().replace(/[\u2018\u2019\u02bc\u00b4]/g, "'")
      .replace(/\bcan'?t\b|\bcannot\b/g, 'can not').replace(/\bwon't\b/g, 'will not')
      .replace(/n't\b/g, ' not').replace(/'s\b/g, '')
      .replace(/\b(does|do|did|is|are|was|were|has|have|had|could|would|should)nt\b/g, '$1 not');
    var out = [];
    t.split(/[^\p{L}\p{N}_]+/u).forEach(function (w) {
      var m = /^(\p{N}+)(\p{L}+)$/u.exec(w);
      if (m && UNITS.hasOwnProperty(m[2])) out.push(m[1], UNITS[m[2]]);
      else if (w) out.push(UNITS.hasOwnProperty(w) ? UNITS[w] : w);
    });
    return out;
  }
  // Each field as " word word ... ", so that " w " finds a whole word or phrase.
  function prepare(e, i) {
    return { e: e, i: i, page: e.u.split('#')[0],
             low: [e.t, e.s, e.x].map(function (f) { return f.toLowerCase(); }),
             ws: [e.t, e.s, e.x].map(function (f) { return ' ' + words(f).join(' ') + ' '; }) };
  }

  // The words people use, and the words the pages use for the same thing. A query that holds one phrase of a
  // group also finds the others.
  let SYNONYMS = [
    ['segfault', 'segmentation fault', 'sigsegv', 'signal 11', 'core dumped'],
    ['oom', 'out of memory', 'cudaerrormemoryallocation'],
    ['illegal memory access', 'illegal address', 'cudaerrorillegaladdress'],
    ['in kernel malloc', 'device side malloc', 'malloc in a kernel', 'device heap', 'malloc in device code'],
    ['malloc null', 'malloc returns null', 'malloc fails', 'returns null'],
    ['struct padding', 'struct layout', 'padding', 'alignment', 'alignas', 'pragma pack'],
    ['threads per block', 'block size', 'maxthreadsperblock', 'block too large'],
    ['wrong data', 'wrong results', 'wrong values', 'garbage'], ['zeros', 'zeroes', 'all zero'],
    ['hang', 'hangs', 'deadlock'], ['memcpy dtoh', 'memcpy_dtoh'], ['async', 'asynchronous'],
    ['sync', 'synchronize', 'synchronization']
  ].map(function (g) { return g.map(function (p) { return words(p).join(' '); }); });
  // Little words only help a whole phrase rank ("does not wait"); a query of nothing else finds nothing, and
  // the box says so.
  let STOP = ' a am an and any anyone are as at be been but by can could did do does for from get gets got had' +
             ' has have help how i if in into is it its me my not of on or our per please so than that the their' +
             ' them then there these they this those to was we were what when where which while who why will with' +
             ' would you your ';
  function content(qw) { return qw.filter(function (w) { return STOP.indexOf(' ' + w + ' ') < 0; }); }

  // A word's plural or singular counts as the word ("zero" finds "zeros").
  function forms(w) {
    if (w.length < 4 || /[^a-z_]/.test(w)) return [];
    if (/[^aeiou]ies$/.test(w)) return [w.slice(0, -3) + 'y'];
    if (/(s|x|z|ch|sh)es$/.test(w)) return [w.slice(0, -2), w.slice(0, -1)];
    if (/[^su]s$/.test(w)) return [w.slice(0, -1)];
    if (/[^s]$/.test(w)) return [/(x|z|ch|sh)$/.test(w) ? w + 'es' : /[^aeiou]y$/.test(w) ? w.slice(0, -1) + 'ies' : w + 's'];
    return [];
  }

  // The synonyms found in the query: where they start, how many words, the group's other phrases.
  function synonymsOf(qw) {
    var found = [], q = ' ' + qw.join(' ') + ' ';
    SYNONYMS.forEach(function (group) {
      group.forEach(function (p) {
        for (var at = q.indexOf(' ' + p + ' '); at >= 0; at = q.indexOf(' ' + p + ' ', at + 1))
          found.push({ at: q.slice(1, at + 1).split(' ').length - 1, n: p.split(' ').length,
                       alt: group.filter(function (o) { return o !== p; }) });
      });
    });
    return found;
  }

  function count(hay, needle) {  // up to 5
    for (var n = 0, at = hay.indexOf(needle); at >= 0 && n < 5; n++) at = hay.indexOf(needle, at + needle.length);
    return n;
  }

  // A record's score: each word (or its other forms, or a synonym of the phrase it is in) in the page title
  // counts most, then the section's title, then the text; a piece of a longer word counts less; the more of the
  // words, the better; the words side by side count most of all.
  let PLACE = [12, 8, 3];
  function score(r, qw, alts, phrases) {
    var total = 0, covered = 0;
    qw.forEach(function (w, k) {
      if (!alts[k]) return;  // a little word
      var sc = 0, whole = false;
      for (var p = 0; p < 3; p++) {
        var n = count(r.ws[p], ' ' + w + ' ');
        for (var a = 0; a < alts[k].length && !n; a++) n = count(r.ws[p], ' ' + alts[k][a] + ' ');
        if (n) { sc += PLACE[p] + (p === 2 ? Math.min(n, 4) - 1 : 0); whole = true; }
        else if (w.length >= 3 && r.low[p].indexOf(w) >= 0) sc += PLACE[p] * 0.35;
      }
      total += sc;
      covered += whole ? 1 : sc ? 0.5 : 0;
    });
    if (!total) return 0;
    var best = 0;
    phrases.forEach(function (p) {
      var n = count(r.ws[2], p);
      best = Math.max(best, r.ws[0].indexOf(p) >= 0 ? 40 : 0, r.ws[1].indexOf(p) >= 0 ? 30 : 0,
                      n ? 18 + 4 * Math.min(n, 3) : 0);
    });
    return total + 30 * covered + best +
      (/^ch\d\d\.html$/.test(r.page) ? 2 : 0) -  // a chapter explains; other pages route
      (r.e.u.indexOf('#') < 0 && !r.e.s ? 1 : 0);  // a section before a page's introduction
  }

  // The best 40 results, at most two sections of one page so more pages show.
  function search(qw) {
    var words = content(qw), syn = synonymsOf(qw);
    var alts = qw.map(function (w, k) {
      if (words.indexOf(w) < 0) return null;
      var a = forms(w);
      syn.forEach(function (s) { if (k >= s.at && k < s.at + s.n) a = a.concat(s.alt); });
      return a;
    });
    // The whole query as a phrase, its words other than the little ones as another, or a synonym of all of it
    // (OOM: out of memory).
    var phrases = qw.length > 1 ? [qw.join(' ')] : [];
    if (words.length > 1 && words.length < qw.length) phrases.push(words.join(' '));
    syn.forEach(function (s) { if (s.at === 0 && s.n === qw.length) phrases = phrases.concat(s.alt); });
    phrases = phrases.map(function (p) { return ' ' + p + ' '; });
    var hits = index.map(function (r) { return { r: r, score: score(r, qw, alts, phrases) }; })
      .filter(function (h) { return h.score > 0; })
      .sort(function (a, b) { return b.score - a.score || a.r.i - b.r.i; });
    var perPage = {};
    return hits.filter(function (h) { return (perPage[h.r.page] = (perPage[h.r.page] || 0) + 1) <= 2; })
      .slice(0, 40);
  }

  function escapeHtml(s) {
    return s.replace(/[&<>"]/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]; });
  }

  // What a result marks, as a pattern of whole words, longest first: the whole query, its pairs of words, its
  // words (not the little ones, unless there is nothing else) and their other forms, and its synonyms. The
  // words of a phrase may be joined by any punctuation.
  function marker(qw) {
    var terms = [qw.join(' ')], words = content(qw);
    for (var k = 0; k + 1 < qw.length; k++) terms.push(qw[k] + ' ' + qw[k + 1]);
    (words.length ? words : qw).forEach(function (w) { if (w.length > 1) terms = terms.concat([w], forms(w)); });
    synonymsOf(qw).forEach(function (s) { terms = terms.concat(s.alt); });
    terms = terms.filter(function (t, k) { return t && terms.indexOf(t) === k; })
      .sort(function (a, b) { return b.length - a.length; });
    var body = terms.map(function (t) {
      return t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').split(' ').join('[^\\p{L}\\p{N}_]+');
    });
    return { terms: terms, re: new RegExp('(?<![\\p{L}\\p{N}_])(' + body.join('|') + ')(?![\\p{L}\\p{N}_])', 'giu') };
  }

  // About 180 characters of the text around the first of the longest whole-word matches (else the first piece
  // of a word that matched), cut between words, with the terms marked.
  function snippet(text, m) {
    var first = null, hit;
    m.re.lastIndex = 0;
    while ((hit = m.re.exec(text)) !== null) if (!first || hit[0].length > first[0].length) first = hit;
    var at = first ? first.index : 0;
    for (var k = 0; !first && k < m.terms.length && !at; k++) at = Math.max(0, text.toLowerCase().indexOf(m.terms[k]));
    var from = Math.max(0, at - 60), to = Math.min(text.length, from + 180);
    if (from > 0) {
      var space = text.indexOf(' ', from);
      if (space >= 0 && space < at) from = space + 1;
      // Not from a dash or a dot left over from the sentence before.
      var lone = /^[^\p{L}\p{N}_\s("“'\[<]+\s+/u.exec(text.slice(from, at));
      if (lone) from += lone[0].length;
    }
    var back = to < text.length ? text.lastIndexOf(' ', to) : -1;
    if (back > at) to = back;
    var html = '', pos = from;
    m.re.lastIndex = from;
    while ((hit = m.re.exec(text)) !== null && hit.index + hit[0].length <= to) {
      html += escapeHtml(text.slice(pos, hit.index)) + '<mark>' + escapeHtml(hit[0]) + '</mark>';
      pos = hit.index + hit[0].length;
    }
    return (from > 0 ? '…' : '') + html + escapeHtml(text.slice(pos, to)) + (to < text.length ? '…' : '');
  }

  // The results list.
  let panel = Object.assign(document.createElement('div'), { id: 'clinic-search-results', hidden: true });
  panel.setAttribute('role', 'listbox');
  let selected = -1;
  function field() { return document.getElementById('MSearchField'); }
  function links() { return panel.querySelectorAll('a.clinic-hit'); }
  function hide() { panel.hidden = true; selected = -1; }

  function place() {
    var box = document.getElementById('MSearchBox') || field();
    if (!box || panel.hidden) return;
    var r = box.getBoundingClientRect(), width = Math.min(520, window.innerWidth - 16);
    Object.assign(panel.style, { top: (r.bottom + 6) + 'px', width: width + 'px',
                                 left: Math.max(8, Math.min(r.right - width, window.innerWidth - width - 8)) + 'px' });
  }

  function select(k) {
    var a = links();
    if (!a.length) return;
    selected = (k + a.length) % a.length;
    a.forEach(function (el, j) { el.classList.toggle('clinic-selected', j === selected); });
    a[selected].scrollIntoView({ block: 'nearest' });
  }

  function show(q) {
    var qw = words(q), cw = content(qw);
    if (!qw.length) return hide();
    withIndex(function () {
      if (field() && field().value !== q) return; // typed on meanwhile
      var hits = cw.length ? search(qw) : [], m = marker(qw), html = '';
      if (!cw.length) {
        html = '<div class="clinic-nohit">“' + escapeHtml(q.trim()) + '” says too little to search for: ' +
               'add what you see, such as an error message, a value or a call.</div>';
      } else if (!hits.length) {
        html = '<div class="clinic-nohit">No section contains ' +
               cw.map(function (w) { return '“' + escapeHtml(w) + '”'; }).join(' or ') + '.</div>';
      }
      hits.forEach(function (h) {
        var e = h.r.e;
        html += '<a class="clinic-hit" role="option" href="' + escapeHtml(base + e.u) + '">' +
                '<span class="clinic-hit-title">' + escapeHtml(e.t) + '</span>' +
                (e.s ? '<span class="clinic-hit-section">' + escapeHtml(e.s) + '</span>' : '') +
                '<span class="clinic-hit-text">' + snippet(e.x, m) + '</span></a>';
      });
      panel.innerHTML = html;
      panel.setAttribute('data-query', q); // which query the list answers
      if (!panel.parentNode) document.body.appendChild(panel);
      selected = -1; panel.hidden = false; place();
    });
  }

  // Doxygen's box calls its own handlers from inline attributes; listeners in the capture phase run first and
  // stop the event before they do. Its focus handler, which clears its "Search" text, so never runs.
  function clearDoxygenText(f) { if (f && f.value === f.defaultValue && /^search$/i.test(f.value)) f.value = ''; }
  function boxClass(c) { var box = document.getElementById('MSearchBox'); if (box) box.className = c; }
  // Searching on each keystroke makes fast typing lag: the search waits until typing pauses 80 ms; Enter, the
  // arrows and Escape run a waiting one first.
  let pending = null, ON_FIELD = {
    focus: function (f) {
      clearDoxygenText(f); boxClass('MSearchBoxActive'); withIndex(function () {}); if (f.value) show(f.value);
    },
    blur: function (f) { if (!f.value) boxClass('MSearchBoxInactive'); },
    keyup: function () {},
    input: function (f) { clearTimeout(pending); pending = setTimeout(function () { pending = null; show(f.value); }, 80); },
    keydown: function (f, ev) {
      if (pending !== null) { clearTimeout(pending); pending = null; show(f.value); }
      var a = links();
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
    }
  };
  Object.keys(ON_FIELD).forEach(function (type) {
    window.addEventListener(type, function (ev) {
      if (!ev.target || ev.target.id !== 'MSearchField') return;
      ev.stopPropagation();
      ON_FIELD[type](ev.target, ev);
    }, true);
  });
  // The box's magnifier focuses it; its cross empties it.
  ['mouseover', 'mouseout', 'click'].forEach(function (type) {
    window.addEventListener(type, function (ev) {
      var t = ev.target && ev.target.closest ? ev.target : null;
      var sel = t && t.closest('#MSearchSelect'), close = t && t.closest('#MSearchClose');
      if (sel || close) ev.stopPropagation();
      if (type !== 'click' || !field()) return;
      if (sel) field().focus();
      if (close) { ev.preventDefault(); field().value = ''; hide(); }
    }, true);
  });
  document.addEventListener('mousedown', function (ev) {
    if (!panel.contains(ev.target) && !(ev.target.closest && ev.target.closest('#MSearchBox'))) hide();
  });
  window.addEventListener('resize', place);

  // Tables on narrow screens.
  function labelTables() {
    document.querySelectorAll('table.markdownTable').forEach(function (table) {
      var head = table.querySelector('tr.markdownTableHead');
      var names = head ? Array.prototype.map.call(head.children, function (th) { return th.textContent.trim(); }) : [];
      if (names.length < 3) return;
      table.classList.add('clinic-cards');
      table.querySelectorAll('tr').forEach(function (tr) {
        if (tr === head) return;
        if (tr.children.length && !tr.children[0].textContent.trim()) tr.classList.add('clinic-more');
        Array.prototype.forEach.call(tr.children, function (td, k) { if (names[k]) td.setAttribute('data-label', names[k]); });
      });
    });
  }

  // A table too wide for the text column is marked so that clinic.css lets its code wrap; measured again
  // whenever the column changes width.
  let fitWidth = -1;
  function fitTables() {
    var column = document.querySelector('div.contents');
    if (!column || column.clientWidth === fitWidth) return;
    fitWidth = column.clientWidth;
    document.querySelectorAll('table.markdownTable').forEach(function (table) {
      var body = table.querySelector('tbody') || table;
      table.classList.toggle('clinic-fit', body.scrollWidth > body.clientWidth + 1);
    });
  }

  // A link or search result that points into a folded "try it first" section opens it, so that the reader sees
  // what was asked for.
  function openTarget() {
    var id = decodeURIComponent(window.location.hash.slice(1)), el = id && document.getElementById(id);
    if (!el) return;
    for (var d = el.closest('details'); d; d = d.parentElement && d.parentElement.closest('details')) d.open = true;
    var h = el.closest('h1, h2, h3, h4') || el;
    for (var n = h.nextElementSibling; n && !/^H[1-4]$/.test(n.tagName); n = n.nextElementSibling) {
      var fold = n.matches('details.clinic-try') ? n : n.querySelector('details.clinic-try');
      if (fold) { fold.open = true; break; }
    }
    el.scrollIntoView();
  }
  window.addEventListener('hashchange', openTarget);

  // The top tabs, instead of Doxygen's "Related Pages" (empty: every page is under the main page). jQuery
  // builds the menu after the DOMContentLoaded listeners run.
  let TABS = [['Chapters', 'chapters.html'], ['By symptom', 'symptoms.html'], ['Myths', 'myths.html'],
              ['Python', 'python.html'], ['Doctor', 'doctor.html']];
  document.addEventListener('DOMContentLoaded', function () {
    var menu = window.menudata;
    if (!menu || !menu.children) return;
    menu.children = menu.children.filter(function (e) { return !/^(pages|files|globals|examples)\.html$/.test(e.url); })
      .concat(TABS.map(function (t) { return { text: t[0], url: t[1] }; }));
  });

  let done = false;
  function ready() {
    var q = function (s) { return document.querySelector(s); };
    if (!done) {
      done = true;
      // A chapter's subtitle belongs under its title, above the contents.
      var sub = q('.contents .textblock > .clinic-subtitle'), title = q('.header .headertitle');
      if (sub && title) title.appendChild(sub);
      if (q('div.contents') && window.ResizeObserver) new ResizeObserver(fitTables).observe(q('div.contents'));
      else window.addEventListener('resize', fitTables);
      if (window.location.hash) openTarget();
    }
    // The theme's interactive TOC wants make_pages.py's first in .contents.
    var toc = q('.contents .textblock .toc.clinic-toc');
    if (toc) q('div.contents').insertBefore(toc, q('div.contents').firstChild);
    labelTables();
    fitTables();
    var f = field();
    if (!f) return;
    clearDoxygenText(f);
    [['placeholder', 'Search the text'], ['aria-label', 'Search the text of the site'], ['autocomplete', 'off']]
      .forEach(function (a) { f.setAttribute(a[0], a[1]); });
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', ready);
  else ready();
  // The search box is made by Doxygen's menu script once the page is ready.
  window.addEventListener('load', ready);
}
