/* clinic.js -- the CUDA Memcpy Clinic site's own behaviour, loaded by every page.
 *
 * 1. Full-text search. Doxygen's search box knows only titles and symbols. This
 *    script takes the box over: it loads clinic-search-index.js (the text of
 *    every section of every page, written by make_pages.cmake) on first use and
 *    lists the sections that contain all the words typed, best first. Enter
 *    opens the selected result; arrow keys move; Escape closes.
 * 2. Tables on narrow screens: each row of a table of three or more columns is
 *    shown as a card, each cell labelled with its column's heading, so that no
 *    column (such as the symptom index's chapter links) ends up off-screen.
 */
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
      index = (window.CLINIC_SEARCH_INDEX || []).map(function (e, i) {
        return { e: e, i: i, t: e.t.toLowerCase(), s: e.s.toLowerCase(), x: e.x.toLowerCase() };
      });
      var w = waiting; waiting = [];
      w.forEach(function (f) { f(); });
    };
    s.onerror = function () { index = []; };
    document.head.appendChild(s);
  }

  // Words, without punctuation: "function(...)" finds "function("triple(int)")".
  function queryWords(q) {
    return q.toLowerCase().split(/[^\p{L}\p{N}_]+/u).filter(function (w) { return w.length > 0; });
  }

  function search(q) {
    var words = queryWords(q);
    if (!words.length) return [];
    var phrase = words.join(' ');
    var hits = [];
    index.forEach(function (r) {
      var score = 0;
      for (var k = 0; k < words.length; k++) {
        var w = words[k];
        var inT = r.t.indexOf(w) >= 0, inS = r.s.indexOf(w) >= 0, inX = r.x.indexOf(w) >= 0;
        if (!inT && !inS && !inX) return;
        score += (inT ? 6 : 0) + (inS ? 4 : 0) + (inX ? 1 : 0);
      }
      if (words.length > 1 && (r.x.indexOf(phrase) >= 0 || r.s.indexOf(phrase) >= 0)) score += 5;
      if (r.e.u.indexOf('#') < 0 && !r.s) score -= 1; // prefer a section to a page's introduction
      hits.push({ r: r, score: score });
    });
    hits.sort(function (a, b) { return b.score - a.score || a.r.i - b.r.i; });
    // At most two sections of one page, so that more pages show.
    var perPage = {};
    return hits.filter(function (h) {
      var page = h.r.e.u.split('#')[0];
      perPage[page] = (perPage[page] || 0) + 1;
      return perPage[page] <= 2;
    }).slice(0, MAX_RESULTS);
  }

  function escapeHtml(s) {
    return s.replace(/[&<>"]/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c];
    });
  }

  function snippet(text, words) {
    var low = text.toLowerCase();
    var at = -1;
    for (var k = 0; k < words.length && at < 0; k++) at = low.indexOf(words[k]);
    if (at < 0) at = 0;
    var from = Math.max(0, at - 60);
    var part = (from > 0 ? '…' : '') + text.substr(from, 180) + (from + 180 < text.length ? '…' : '');
    var html = escapeHtml(part);
    words.forEach(function (w) {
      var re = new RegExp('(' + escapeHtml(w).replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + ')', 'ig');
      html = html.replace(re, '<mark>$1</mark>');
    });
    return html;
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
      var html = '';
      if (!hits.length) {
        html = '<div class="clinic-nohit">No section contains ' +
               words.map(function (w) { return '“' + escapeHtml(w) + '”'; }).join(' and ') + '.</div>';
      }
      hits.forEach(function (h) {
        var e = h.r.e;
        html += '<a class="clinic-hit" role="option" href="' + escapeHtml(base + e.u) + '">' +
                '<span class="clinic-hit-title">' + escapeHtml(e.t) + '</span>' +
                (e.s ? '<span class="clinic-hit-section">' + escapeHtml(e.s) + '</span>' : '') +
                '<span class="clinic-hit-text">' + snippet(e.x, words) + '</span></a>';
      });
      panel.innerHTML = html;
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

  window.addEventListener('focus', function (ev) {
    if (!isField(ev)) return;
    ev.stopPropagation();
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

  window.addEventListener('input', function (ev) {
    if (!isField(ev)) return;
    ev.stopPropagation();
    show(ev.target.value);
  }, true);

  window.addEventListener('keydown', function (ev) {
    if (!isField(ev)) return;
    ev.stopPropagation();
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

  // make_pages.cmake writes the table of contents into the text; the theme's
  // interactive TOC wants it as the first child of .contents, as Doxygen's own.
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

  var done = false;
  function ready() {
    if (!done) { done = true; placeSubtitle(); }
    placeToc();
    labelTables();
    var f = field();
    if (f) {
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
