/* clinic.js -- the CUDA Memcpy Clinic site's own behaviour, on every page.
 * 1. Full-text search: the search box lists the sections (the index
 *    make_pages.py writes) that match the words typed, best first, once
 *    typing pauses for 80 ms. Little words (my, the) do not decide a match;
 *    apostrophes, "doesn't", plurals and sizes (2GB, 2 GiB) are read as a
 *    person means them; the words people use find the pages' own (segfault:
 *    segmentation fault). Enter opens the selected result, arrows move,
 *    Escape closes. The list tells which query it answers (data-query).
 * 2. The top tabs (the phone's menu) lead to the ways in.
 * 3. Tables of three or more columns become labelled cards on a phone; on a
 *    wide screen a table too wide for the text lets its code wrap.
 * 4. The table of contents and a chapter's subtitle are put where the theme
 *    wants them; a link into a folded "try it first" section opens it. */
(function () {
  'use strict';

  var scriptUrl = document.currentScript ? document.currentScript.src : '';
  var base = scriptUrl.replace(/[^\/]*$/, '');
  var MAX_RESULTS = 40;

  // ---- the index -----------------------------------------------------------
  var index = null;
  var waiting = [];
  function withIndex(done) {
    if (index) { done(); return; }
    waiting.push(done);
    if (waiting.length > 1) return;
    var s = document.createElement('script');
    s.src = base + 'clinic-search-index.js';
    s.charset = 'utf-8';
    s.onload = function () {
      index = (window.CLINIC_SEARCH_INDEX || []).map(prepare);
      var w = waiting; waiting = [];
      w.forEach(function (f) { f(); });
    };
    s.onerror = function () { index = []; };
    document.head.appendChild(s);
  }

  // Units of size, as one word each: people write GB for GiB.
  var UNITS = { kb: 'kib', kib: 'kib', mb: 'mib', mib: 'mib', gb: 'gib', gib: 'gib',
                tb: 'tib', tib: 'tib', bit: 'bit', bits: 'bit' };
  // Words as the search compares them, in the pages and the query alike:
  // "doesn't" is does, not; "PyCUDA's" is pycuda; "2GB" and "2 GiB" are 2, gib.
  function words(text) {
    var t = text.toLowerCase().replace(/[\u2018\u2019\u02bc\u00b4]/g, "'")
      .replace(/\bcan't\b|\bcannot\b/g, 'can not').replace(/\bwon't\b/g, 'will not')
      .replace(/n't\b/g, ' not').replace(/'s\b/g, '')
      .replace(/\b(does|do|did|is|are|was|were|has|have|had|could|would|should)nt\b/g, '$1 not')
      .replace(/\bcant\b/g, 'can not');
    var out = [];
    t.split(/[^\p{L}\p{N}_]+/u).forEach(function (w) {
      if (!w) return;
      var m = /^(\p{N}+)(\p{L}+)$/u.exec(w);
      if (m && UNITS.hasOwnProperty(m[2])) out.push(m[1], UNITS[m[2]]);
      else out.push(UNITS.hasOwnProperty(w) ? UNITS[w] : w);
    });
    return out;
  }
  // A field as " word word ... ", so that " w " finds a whole word or phrase.
  function wordField(text) { return ' ' + words(text).join(' ') + ' '; }
  var queryWords = words;
  function prepare(e, i) {
    return { e: e, i: i, page: e.u.split('#')[0],
             low: [e.t.toLowerCase(), e.s.toLowerCase(), e.x.toLowerCase()],
             ws: [wordField(e.t), wordField(e.s), wordField(e.x)] };
  }

  // The words people use, and the words the pages use for the same thing.
  // A query that holds one phrase of a group also finds the others.
  var SYNONYMS = [
    ['segfault', 'segmentation fault', 'sigsegv', 'signal 11', 'core dumped'],
    ['oom', 'out of memory', 'cudaerrormemoryallocation'],
    ['illegal memory access', 'illegal address', 'cudaerrorillegaladdress'],
    ['in kernel malloc', 'device side malloc', 'malloc in a kernel', 'device heap', 'malloc in device code'],
    ['malloc null', 'malloc returns null', 'malloc fails', 'returns null'],
    ['struct padding', 'struct layout', 'padding', 'alignment', 'alignas', 'pragma pack'],
    ['threads per block', 'block size', 'maxthreadsperblock', 'block too large'],
    ['wrong data', 'wrong results', 'wrong values', 'garbage'],
    ['zeros', 'zeroes', 'all zero'],
    ['hang', 'hangs', 'deadlock'],
    ['memcpy dtoh', 'memcpy_dtoh'],
    ['async', 'asynchronous'],
    ['sync', 'synchronize', 'synchronization']
  ].map(function (g) { return g.map(function (p) { return words(p); }); });
  // Little words only help a whole phrase rank ("does not wait"); a query of
  // nothing else finds nothing, and the box says so.
  var STOP = ' a am an and any anyone are as at be been but by can could did do does for from' +
             ' get gets got had has have help how i if in into is it its me my not of on or our' +
             ' per please so than that the their them then there these they this those to was' +
             ' we were what when where which while who why will with would you your ';
  function isStop(w) { return STOP.indexOf(' ' + w + ' ') >= 0; }

  // A word's plural or singular counts as the word ("zero" finds "zeros").
  function forms(w) {
    if (w.length < 4 || /[^a-z_]/.test(w)) return [];
    if (/[^aeiou]ies$/.test(w)) return [w.slice(0, -3) + 'y'];
    if (/(s|x|z|ch|sh)es$/.test(w)) return [w.slice(0, -2), w.slice(0, -1)];
    if (/[^su]s$/.test(w)) return [w.slice(0, -1)];
    if (/[^s]$/.test(w)) return [/(x|z|ch|sh)$/.test(w) ? w + 'es' : /[^aeiou]y$/.test(w) ? w.slice(0, -1) + 'ies' : w + 's'];
    return [];
  }

  // Where in the query each synonym applies: [first word, word count, phrases].
  function synonymsOf(q) {
    var found = [];
    SYNONYMS.forEach(function (group) {
      group.forEach(function (p) {
        for (var k = 0; k + p.length <= q.length; k++) {
          if (q.slice(k, k + p.length).join(' ') === p.join(' ')) {
            found.push({ at: k, n: p.length, alt: group.filter(function (o) { return o !== p; })
                                                      .map(function (o) { return ' ' + o.join(' ') + ' '; }) });
          }
        }
      });
    });
    return found;
  }

  function count(hay, needle) {
    var n = 0, at = hay.indexOf(needle);
    while (at >= 0 && n < 5) { n++; at = hay.indexOf(needle, at + needle.length); }
    return n;
  }

  // One word (or its synonyms) in a record: the page title counts most, then
  // the section's, then its text; a piece of a longer word counts less.
  var PLACE = [12, 8, 3];
  function wordScore(r, w, alts) {
    var best = { score: 0, whole: false };
    for (var p = 0; p < 3; p++) {
      var n = count(r.ws[p], ' ' + w + ' ');
      for (var a = 0; a < alts.length && !n; a++) n = count(r.ws[p], alts[a]);
      var sc = 0, whole = false;
      if (n) { sc = PLACE[p] + (p === 2 ? Math.min(n, 4) - 1 : 0); whole = true; }
      else if (w.length >= 3 && r.low[p].indexOf(w) >= 0) sc = PLACE[p] * 0.35;
      best.score += sc;
      best.whole = best.whole || whole;
    }
    return best;
  }

  // The words side by side, in the query's order, count most of all.
  function phraseScore(r, phrases) {
    var best = 0;
    phrases.forEach(function (p) {
      var n = count(r.ws[2], p);
      best = Math.max(best, r.ws[0].indexOf(p) >= 0 ? 40 : 0, r.ws[1].indexOf(p) >= 0 ? 30 : 0,
                      n ? 18 + 4 * Math.min(n, 3) : 0);
    });
    return best;
  }

  function search(q) {
    var qw = words(q);
    var content = qw.filter(function (w) { return !isStop(w); });
    if (!content.length) return [];
    var syn = synonymsOf(qw);
    var alts = qw.map(function (w, k) {
      var a = forms(w).map(function (f) { return ' ' + f + ' '; });
      syn.forEach(function (s) { if (k >= s.at && k < s.at + s.n) a = a.concat(s.alt); });
      return a;
    });
    // The whole query as a phrase, its words other than the little ones as
    // another, or a synonym of all of it (OOM: out of memory).
    var phrases = qw.length > 1 ? [' ' + qw.join(' ') + ' '] : [];
    if (content.length > 1 && content.length < qw.length) phrases.push(' ' + content.join(' ') + ' ');
    syn.forEach(function (s) { if (s.at === 0 && s.n === qw.length) phrases = phrases.concat(s.alt); });
    var hits = [];
    index.forEach(function (r) {
      var score = 0, covered = 0;
      qw.forEach(function (w, k) {
        if (isStop(w)) return;
        var m = wordScore(r, w, alts[k]);
        if (!m.score) return;
        covered += m.whole ? 1 : 0.5;
        score += m.score;
      });
      if (!score) return;
      score += 30 * covered;  // how many of the words: first
      score += phraseScore(r, phrases);
      if (/^ch\d\d\.html$/.test(r.page)) score += 2;  // a chapter explains; other pages route
      if (r.e.u.indexOf('#') < 0 && !r.e.s) score -= 1; // prefer a section to a page's introduction
      hits.push({ r: r, score: score });
    });
    hits.sort(function (a, b) { return b.score - a.score || a.r.i - b.r.i; });
    // At most two sections of one page, so that more pages show.
    var perPage = {};
    return hits.filter(function (h) {
      perPage[h.r.page] = (perPage[h.r.page] || 0) + 1;
      return perPage[h.r.page] <= 2;
    }).slice(0, MAX_RESULTS);
  }

  function escapeHtml(s) {
    return s.replace(/[&<>"]/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c];
    });
  }

  // What a result marks, longest first: the query's words (not the little
  // ones, unless there is nothing else) and their other forms, its pairs of
  // words, the whole query, and its synonyms; whole words only.
  function markTerms(qw) {
    var content = qw.filter(function (w) { return !isStop(w); });
    var terms = [qw.join(' ')];
    for (var k = 0; k + 1 < qw.length; k++) terms.push(qw[k] + ' ' + qw[k + 1]);
    (content.length ? content : qw).forEach(function (w) {
      if (w.length > 1) terms = terms.concat([w], forms(w));
    });
    synonymsOf(qw).forEach(function (s) {
      s.alt.forEach(function (a) { terms.push(a.trim()); });
    });
    var seen = {};
    return terms.filter(function (t) {
      if (!t || seen[t]) return false;
      seen[t] = true;
      return true;
    }).sort(function (a, b) { return b.length - a.length; });
  }

  // Where the terms sit in text as whole words: [start, end] pairs, sorted,
  // overlaps merged. The words of a phrase may be joined by any punctuation.
  function markRanges(text, terms) {
    var found = [];
    terms.forEach(function (t) {
      var body = t.split(' ').map(function (w) {
        return w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      }).join('[^\\p{L}\\p{N}_]+');
      var re = new RegExp('(?<![\\p{L}\\p{N}_])' + body + '(?![\\p{L}\\p{N}_])', 'giu');
      var m;
      while ((m = re.exec(text)) !== null) found.push([m.index, m.index + m[0].length, t]);
    });
    found.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });
    var merged = [];
    found.forEach(function (r) {
      var last = merged[merged.length - 1];
      if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
      else merged.push([r[0], r[1], r[2]]);
    });
    return merged;
  }

  // About 180 characters of the text around the first place the longest
  // term found sits, cut between words, with the terms marked.
  function snippet(text, terms) {
    var all = markRanges(text, terms);
    var at = 0;
    for (var k = 0; k < terms.length; k++) {
      var r = all.filter(function (x) { return x[2] === terms[k]; })[0];
      if (r) { at = r[0]; break; }
    }
    if (!all.length) {  // only a fragment matched: show where it is, unmarked
      var low = text.toLowerCase();
      for (k = 0; k < terms.length && !at; k++) at = Math.max(0, low.indexOf(terms[k]));
    }
    var from = Math.max(0, at - 60), to = Math.min(text.length, from + 180);
    if (from > 0) {
      var space = text.indexOf(' ', from);
      if (space >= 0 && space < at) from = space + 1;
      // Not from a dash or a dot left over from the sentence before.
      var lone = /^[^\p{L}\p{N}_\s("“'\[<]+\s+/u.exec(text.slice(from, at));
      if (lone) from += lone[0].length;
    }
    if (to < text.length) {
      var back = text.lastIndexOf(' ', to);
      if (back > at) to = back;
    }
    var html = from > 0 ? '…' : '', pos = from;
    all.forEach(function (r) {
      if (r[0] < pos || r[1] > to) return;
      html += escapeHtml(text.slice(pos, r[0])) + '<mark>' + escapeHtml(text.slice(r[0], r[1])) + '</mark>';
      pos = r[1];
    });
    return html + escapeHtml(text.slice(pos, to)) + (to < text.length ? '…' : '');
  }

  // ---- the results list ----------------------------------------------------
  var panel = null;
  var selected = -1;
  function field() { return document.getElementById('MSearchField'); }

  function ensurePanel() {
    if (panel) return panel;
    panel = document.createElement('div');
    panel.id = 'clinic-search-results';
    panel.setAttribute('role', 'listbox');
    panel.hidden = true;
    document.body.appendChild(panel);
    return panel;
  }

  function place() {
    var f = field();
    if (!f || !panel) return;
    var box = document.getElementById('MSearchBox') || f;
    var r = box.getBoundingClientRect();
    var width = Math.min(520, window.innerWidth - 16);
    var left = Math.max(8, Math.min(r.right - width, window.innerWidth - width - 8));
    panel.style.top = (r.bottom + 6) + 'px';
    panel.style.left = left + 'px';
    panel.style.width = width + 'px';
  }

  function hide() {
    if (panel) panel.hidden = true;
    selected = -1;
  }

  function links() { return panel ? panel.querySelectorAll('a.clinic-hit') : []; }

  function select(k) {
    var a = links();
    if (!a.length) return;
    selected = (k + a.length) % a.length;
    a.forEach(function (el, j) { el.classList.toggle('clinic-selected', j === selected); });
    a[selected].scrollIntoView({ block: 'nearest' });
  }

  function show(q) {
    ensurePanel();
    var words = queryWords(q);
    if (!words.length) { hide(); return; }
    withIndex(function () {
      if (field() && field().value !== q) return; // typed on meanwhile
      var hits = search(q);
      var terms = markTerms(words);
      var html = '';
      if (!words.some(function (w) { return !isStop(w); })) {
        html = '<div class="clinic-nohit">“' + escapeHtml(q.trim()) + '” says too little to search for: ' +
               'add what you see, such as an error message, a value or a call.</div>';
      } else if (!hits.length) {
        html = '<div class="clinic-nohit">No section contains ' +
               words.filter(function (w) { return !isStop(w); })
                    .map(function (w) { return '“' + escapeHtml(w) + '”'; }).join(' or ') + '.</div>';
      }
      hits.forEach(function (h) {
        var e = h.r.e;
        html += '<a class="clinic-hit" role="option" href="' + escapeHtml(base + e.u) + '">' +
                '<span class="clinic-hit-title">' + escapeHtml(e.t) + '</span>' +
                (e.s ? '<span class="clinic-hit-section">' + escapeHtml(e.s) + '</span>' : '') +
                '<span class="clinic-hit-text">' + snippet(e.x, terms) + '</span></a>';
      });
      panel.innerHTML = html;
      panel.setAttribute('data-query', q); // which query the list answers
      selected = -1;
      place();
      panel.hidden = false;
    });
  }

  function go(a) {
    hide();
    var href = a.getAttribute('href');
    if (href) window.location.href = href;
  }

  // Doxygen's box calls its own handlers from inline attributes; listeners in
  // the capture phase run first and stop the event before they do.
  function isField(ev) { return ev.target && ev.target.id === 'MSearchField'; }

  // Doxygen's own focus handler, which clears its "Search" text, never runs.
  function clearDoxygenText(f) {
    if (f && f.value === f.defaultValue && /^search$/i.test(f.value)) f.value = '';
  }

  window.addEventListener('focus', function (ev) {
    if (!isField(ev)) return;
    ev.stopPropagation();
    clearDoxygenText(ev.target);
    var box = document.getElementById('MSearchBox');
    if (box) box.className = 'MSearchBoxActive';
    withIndex(function () {});
    if (ev.target.value) show(ev.target.value);
  }, true);

  window.addEventListener('blur', function (ev) {
    if (!isField(ev)) return;
    ev.stopPropagation();
    var box = document.getElementById('MSearchBox');
    if (box && !ev.target.value) box.className = 'MSearchBoxInactive';
  }, true);

  window.addEventListener('keyup', function (ev) {
    if (isField(ev)) ev.stopPropagation();
  }, true);

  // Searching on each keystroke makes fast typing lag: the search waits until
  // typing pauses 80 ms; Enter, the arrows and Escape run a waiting one first.
  var pending = null;
  function showSoon(q) {
    clearTimeout(pending);
    pending = setTimeout(function () { pending = null; show(q); }, 80);
  }
  function flush() {
    if (pending === null) return;
    clearTimeout(pending);
    pending = null;
    if (field()) show(field().value);
  }

  window.addEventListener('input', function (ev) {
    if (!isField(ev)) return;
    ev.stopPropagation();
    showSoon(ev.target.value);
  }, true);

  window.addEventListener('keydown', function (ev) {
    if (!isField(ev)) return;
    ev.stopPropagation();
    flush();
    if (ev.key === 'ArrowDown') { select(selected + 1); ev.preventDefault(); }
    else if (ev.key === 'ArrowUp') { select(selected - 1); ev.preventDefault(); }
    else if (ev.key === 'Escape') { hide(); }
    else if (ev.key === 'Enter') {
      ev.preventDefault();
      var a = links();
      if (a.length) go(a[selected >= 0 ? selected : 0]);
      else show(ev.target.value);
    }
  }, true);

  ['mouseover', 'mouseout', 'click'].forEach(function (type) {
    window.addEventListener(type, function (ev) {
      var t = ev.target;
      if (!t || !t.closest) return;
      if (t.closest('#MSearchSelect')) {
        ev.stopPropagation();
        if (type === 'click' && field()) field().focus();
      } else if (t.closest('#MSearchClose')) {
        ev.stopPropagation();
        if (type === 'click') {
          ev.preventDefault();
          if (field()) field().value = '';
          hide();
        }
      }
    }, true);
  });

  document.addEventListener('mousedown', function (ev) {
    if (!panel || panel.hidden) return;
    if (panel.contains(ev.target) || (ev.target.closest && ev.target.closest('#MSearchBox'))) return;
    hide();
  });
  window.addEventListener('resize', place);

  // ---- tables on narrow screens -----------------------------------------------
  function labelTables() {
    document.querySelectorAll('table.markdownTable').forEach(function (table) {
      var head = table.querySelector('tr.markdownTableHead');
      if (!head) return;
      var names = Array.prototype.map.call(head.children, function (th) { return th.textContent.trim(); });
      if (names.length < 3) return;
      table.classList.add('clinic-cards');
      table.querySelectorAll('tr').forEach(function (tr) {
        if (tr === head) return;
        if (tr.children.length && !tr.children[0].textContent.trim()) tr.classList.add('clinic-more');
        Array.prototype.forEach.call(tr.children, function (td, k) {
          if (names[k]) td.setAttribute('data-label', names[k]);
        });
      });
    });
  }

  // A table too wide for the text column is marked so that clinic.css lets its
  // code wrap; measured again whenever the column changes width.
  var fitWidth = -1;
  function fitTables() {
    var column = document.querySelector('div.contents');
    if (!column || column.clientWidth === fitWidth) return;
    fitWidth = column.clientWidth;
    document.querySelectorAll('table.markdownTable').forEach(function (table) {
      table.classList.remove('clinic-fit');
      var body = table.querySelector('tbody') || table;
      if (body.scrollWidth > body.clientWidth + 1) table.classList.add('clinic-fit');
    });
  }
  function watchTables() {
    var column = document.querySelector('div.contents');
    if (column && window.ResizeObserver) new ResizeObserver(fitTables).observe(column);
    else window.addEventListener('resize', fitTables);
  }

  // The theme's interactive TOC wants make_pages.py's first in .contents.
  function placeToc() {
    var toc = document.querySelector('.contents .textblock .toc.clinic-toc');
    var contents = document.querySelector('div.contents');
    if (toc && contents) contents.insertBefore(toc, contents.firstChild);
  }

  // A chapter's subtitle belongs under its title, above the table of contents.
  function placeSubtitle() {
    var sub = document.querySelector('.contents .textblock > .clinic-subtitle');
    var title = document.querySelector('.header .headertitle');
    if (sub && title) title.appendChild(sub);
  }

  // A link or search result that points into a folded "try it first" section
  // opens it, so that the reader sees what was asked for.
  function openTarget() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    var el = id && document.getElementById(id);
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

  // ---- the top tabs ---------------------------------------------------------
  // Instead of Doxygen's "Related Pages" (empty: every page is under the main
  // page). jQuery builds the menu after the DOMContentLoaded listeners run.
  var TABS = [['Chapters', 'chapters.html'], ['By symptom', 'symptoms.html'], ['Myths', 'myths.html'],
              ['Outcomes', 'outcomes.html'], ['PyCUDA', 'pycuda.html'], ['Doctor', 'doctor.html']];
  document.addEventListener('DOMContentLoaded', function () {
    var menu = window.menudata;
    if (!menu || !menu.children) return;
    menu.children = menu.children.filter(function (e) {
      return !/^(pages|files|globals|examples)\.html$/.test(e.url);
    }).concat(TABS.map(function (t) { return { text: t[0], url: t[1] }; }));
  });

  var done = false;
  function ready() {
    if (!done) { done = true; placeSubtitle(); watchTables(); if (window.location.hash) openTarget(); }
    placeToc();
    labelTables();
    fitTables();
    var f = field();
    if (f) {
      clearDoxygenText(f);
      f.setAttribute('placeholder', 'Search the text');
      f.setAttribute('aria-label', 'Search the text of the site');
      f.setAttribute('autocomplete', 'off');
    }
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', ready);
  else ready();
  // The search box is made by Doxygen's menu script once the page is ready.
  window.addEventListener('load', ready);
})();
