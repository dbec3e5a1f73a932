// The inline stylesheet and script of the HTML report (report/report.h).
//
// The script reads the JSON block #report-data ({"events": N, "ops": [[process, call event,
// return event or -1, call text, result text, outcome, line, return line], ...], "verdict":
// {result, prefix_events, culprit, partial: [op indices], ...} or null}) and draws the timeline
// into svg#timeline: one lane per process, one bar per operation from its call to its return
// event (pending ones to the end). Only the bars and lanes in view are in the DOM, so the page
// stays fast at 10^4 operations and beyond; the culprit's bar (id="culprit") is always drawn.
// When it has drawn, it sets data-rendered="yes" on <body>; errors go to #script-errors.
//
// Thread-safety: constants.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_REPORT_TIMELINE_SCRIPT_H_
#define LINFAULT_REPORT_TIMELINE_SCRIPT_H_

namespace linfault::report {

inline constexpr const char* kReportCss = R"css(
:root { --culprit: #d62f35; --lin: #7cc68d; --op: #a9bfe0; --fail: #e59a2f; --ink: #1d2430; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink);
       margin: 0; background: #f6f7f9; }
header { background: #1d2430; color: #fff; padding: 14px 24px 10px; }
header h1 { font-size: 20px; margin: 0 0 4px; }
header .file { font-weight: normal; opacity: .8; font-family: ui-monospace, monospace;
               font-size: 16px; margin-left: 8px; }
header .meta { margin: 0; opacity: .85; }
.verdict { margin: 8px 0 4px; font-weight: 600; padding: 6px 10px; border-radius: 4px;
           display: inline-block; }
.verdict-violation { background: var(--culprit); }
.verdict-linearizable { background: #2f7d43; }
.verdict-unknown { background: #8a6d00; }
.note { color: #5b6472; font-size: 13px; }
header .note { color: #c9d1dc; margin: 4px 0; }
.errors { background: #fee; color: #900; padding: 8px; white-space: pre-wrap; }
main { padding: 8px 24px 24px; }
section { background: #fff; border: 1px solid #dde2ea; border-radius: 6px; padding: 10px 16px;
          margin: 12px 0; }
h2 { font-size: 16px; margin: 4px 0 8px; }
h3 { font-size: 14px; margin: 4px 0; }
h4 { font-size: 13px; margin: 2px 0; color: #5b6472; }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; font-size: 13px; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 18px; font-size: 13px; margin: 10px 0 0; }
.legend span { display: inline-flex; align-items: center; gap: 6px; }
.sw { display: inline-block; width: 22px; height: 12px; border-radius: 3px;
      border: 1px solid #4a6a9a; background: var(--op); }
.sw-lin { background: var(--lin); border-color: #2f7d43; }
.sw-culprit { background: var(--culprit); border-color: #7a0d12; }
.sw-fail { background: #f7dcb4; border: 2px solid var(--fail); }
.sw-pending { background: rgba(169,191,224,.45); border-style: dashed; }
.sw-beyond { background: #e3e5e8; border-color: #b9bec6; }
.sw-cut { display: inline-block; width: 0; height: 16px; border-left: 2px dashed var(--culprit); }
.toolbar { display: flex; align-items: center; gap: 6px; margin-bottom: 4px; }
.toolbar button { font: inherit; padding: 2px 10px; border: 1px solid #b9c2cf;
                  background: #fff; border-radius: 4px; cursor: pointer; }
.toolbar button:hover { background: #eef2f7; }
#pan { flex: 1; }
#view-info { font-size: 12px; color: #5b6472; min-width: 230px; text-align: right; }
.hint { font-size: 12px; color: #5b6472; margin: 0 0 4px; }
#lanes { max-height: 62vh; overflow-y: auto; overflow-x: hidden; border: 1px solid #dde2ea;
         border-radius: 4px; cursor: grab; user-select: none; }
#lanes.dragging { cursor: grabbing; }
svg { display: block; }
svg text { font: 11px ui-monospace, Menlo, monospace; }
.axis text { fill: #5b6472; font-size: 10px; }
.axis line { stroke: #b9c2cf; }
.lane-bg { fill: #fff; }
.lane-bg.odd { fill: #f3f5f8; }
.lane-name { fill: #5b6472; font-weight: 600; }
.grid { stroke: #e6e9ee; }
.op rect { fill: var(--op); stroke: #4a6a9a; stroke-width: 1; }
.op text { fill: #10213a; pointer-events: none; }
.op.lin rect { fill: var(--lin); stroke: #2f7d43; }
.op.fail rect { fill: #f7dcb4; stroke: var(--fail); stroke-width: 2; }
.op.pending rect { fill-opacity: .45; stroke-dasharray: 4 3; }
.op.beyond rect { fill: #e3e5e8; stroke: #b9bec6; }
.op.beyond text { fill: #8a9099; }
.op.culprit rect { fill: var(--culprit); stroke: #7a0d12; stroke-width: 2; }
.op.culprit text { fill: #fff; font-weight: 700; }
.op.selected rect { stroke: #000; stroke-width: 2.5; }
.op { cursor: pointer; }
.badge circle { fill: #2f7d43; stroke: #fff; stroke-width: 1; }
.badge text { fill: #fff; font-size: 9px; font-weight: 700; }
.cut { stroke: var(--culprit); stroke-width: 2; stroke-dasharray: 6 3; }
.cut-label { fill: var(--culprit); font-weight: 700; font-size: 10px; }
.details { font-size: 13px; padding: 6px 2px 0; min-height: 2.2em; }
.chip { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 12px;
        background: #e6ebf2; }
.chip-culprit { background: var(--culprit); color: #fff; }
.culprit-info { border-left: 4px solid var(--culprit); }
ol.partial { columns: 3 320px; font-size: 13px; margin: 0; }
ol.partial a { color: inherit; text-decoration: none; }
ol.partial a:hover { text-decoration: underline; }
.programs { display: flex; gap: 16px; flex-wrap: wrap; }
.program { flex: 1 1 200px; }
.program.pc { flex: 2 1 360px; }
.threads { display: flex; gap: 12px; }
.thread { flex: 1; background: #f6f7f9; border-radius: 4px; padding: 4px 8px; }
ol.steps { margin: 4px 0; padding-left: 22px; }
.culprit-step code { color: var(--culprit); font-weight: 700; }
table.trace { border-collapse: collapse; width: 100%; font-size: 12px; }
table.trace th, table.trace td { border-bottom: 1px solid #e6e9ee; padding: 2px 6px;
                                 text-align: left; vertical-align: top; }
table.trace td.num { color: #5b6472; text-align: right; width: 3em; }
table.trace tr.part-Ps, table.trace tr.part-Pr { color: #5b6472; }
table.trace .kind { color: #4a6a9a; }
table.trace .loc { color: #7a4a00; font-family: ui-monospace, monospace; }
footer { color: #8a9099; font-size: 12px; padding: 0 24px 24px; }
)css";

inline constexpr const char* kTimelineScript = R"js(
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('report-data').textContent);
  var ops = D.ops, nEvents = Math.max(D.events, 1);
  var V = D.verdict || {};
  var NS = 'http://www.w3.org/2000/svg';
  var LANE = 28, BAR = 20, TOP = 4, GUTTER = 56, MIN_SPAN = 4;
  var culprit = V.result === 'violation' ? V.culprit : -1;
  var cut = V.result === 'violation' ? V.prefix_events : -1;
  var order = {};
  (V.partial || []).forEach(function (o, i) { order[o] = i + 1; });

  var procs = [], seen = {};
  ops.forEach(function (op) { if (!seen[op[0]]) { seen[op[0]] = 1; procs.push(op[0]); } });
  procs.sort(function (a, b) { return a - b; });
  var laneOf = {};
  procs.forEach(function (p, i) { laneOf[p] = i; });

  var lanesDiv = document.getElementById('lanes');
  var svg = document.getElementById('timeline');
  var axis = document.getElementById('axis');
  var details = document.getElementById('details');
  var pan = document.getElementById('pan');
  var view = { x0: 0, x1: nEvents };
  var selected = -1;

  function endOf(op) { return op[2] >= 0 ? op[2] + 1 : nEvents; }
  function width() { return Math.max(lanesDiv.clientWidth - GUTTER - 2, 100); }
  function px(x) { return GUTTER + (x - view.x0) / (view.x1 - view.x0) * width(); }
  function clampPx(x) { return Math.min(Math.max(x, GUTTER - 4), GUTTER + width() + 4); }
  function el(name, attrs, parent, text) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
  function describe(i) {
    var op = ops[i];
    return '#' + i + ' p' + op[0] + ' ' + op[3] + ' \u2192 ' + op[4] +
      (op[6] ? ' (line ' + op[6] + ')' : '');
  }
  function classOf(i, op) {
    var c = 'op';
    if (op[5] === 'fail') c += ' fail';
    if (op[5] === 'pending') c += ' pending';
    if (order[i]) c += ' lin';
    if (cut >= 0 && op[1] >= cut) c += ' beyond';
    if (i === culprit) c += ' culprit';
    if (i === selected) c += ' selected';
    return c;
  }

  function drawOp(i, labels) {
    var op = ops[i];
    var xa = clampPx(px(op[1])), xb = clampPx(px(endOf(op)));
    var w = Math.max(xb - xa - 1, 2);
    var y = laneOf[op[0]] * LANE + TOP;
    var g = el('g', { 'class': classOf(i, op), 'data-op': i }, svg);
    if (i === culprit) g.setAttribute('id', 'culprit');
    el('rect', { x: xa, y: y, width: w, height: BAR, rx: 3 }, g);
    el('title', {}, g, describe(i));
    if (labels && w > 26) {
      var text = op[3] + ' \u2192 ' + op[4];
      var room = Math.floor((w - 8) / 6.7);
      if (text.length > room) text = room > 3 ? text.slice(0, room - 1) + '\u2026' : '';
      if (text) el('text', { x: xa + 4, y: y + 14 }, g, text);
    }
    if (order[i] && w > 14) {
      var b = el('g', { 'class': 'badge' }, g);
      el('circle', { cx: xa + 1, cy: y + 1, r: 7 }, b);
      el('text', { x: xa + 1, y: y + 4, 'text-anchor': 'middle' }, b, String(order[i]));
    }
  }

  function niceStep(raw) {
    var p = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1e-9))));
    var m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
  }

  function drawAxis(w) {
    clear(axis);
    axis.setAttribute('width', w + GUTTER);
    var step = Math.max(1, niceStep((view.x1 - view.x0) / Math.max(w / 90, 1)));
    el('text', { x: 2, y: 14 }, axis, 'event');
    for (var t = Math.ceil(view.x0 / step) * step; t <= view.x1; t += step) {
      var x = px(t);
      el('line', { x1: x, x2: x, y1: 16, y2: 22 }, axis);
      el('text', { x: x + 2, y: 14 }, axis, String(t));
    }
    return step;
  }

  function draw() {
    var w = width();
    var height = procs.length * LANE + TOP * 2;
    svg.setAttribute('width', w + GUTTER);
    svg.setAttribute('height', height);
    clear(svg);
    var step = drawAxis(w);
    var top = lanesDiv.scrollTop, bottom = top + lanesDiv.clientHeight;
    var l0 = Math.max(0, Math.floor(top / LANE) - 1);
    var l1 = Math.min(procs.length - 1, Math.ceil(bottom / LANE) + 1);
    for (var l = l0; l <= l1; l++) {
      el('rect', { 'class': 'lane-bg' + (l % 2 ? ' odd' : ''), x: 0, y: l * LANE + TOP / 2,
                   width: w + GUTTER, height: LANE }, svg);
    }
    for (var t = Math.ceil(view.x0 / step) * step; t <= view.x1; t += step) {
      el('line', { 'class': 'grid', x1: px(t), x2: px(t), y1: 0, y2: height }, svg);
    }
    var visible = [];
    for (var i = 0; i < ops.length; i++) {
      var op = ops[i];
      if (op[1] >= view.x1 || endOf(op) <= view.x0) continue;
      var lane = laneOf[op[0]];
      if (lane < l0 || lane > l1) continue;
      visible.push(i);
    }
    var labels = visible.length <= 1500;
    var culpritDrawn = false;
    visible.forEach(function (i) { drawOp(i, labels); if (i === culprit) culpritDrawn = true; });
    if (culprit >= 0 && culprit < ops.length && !culpritDrawn) drawOp(culprit, labels);
    if (cut >= 0 && cut >= view.x0 && cut <= view.x1) {
      var xc = px(cut);
      el('line', { 'class': 'cut', x1: xc, x2: xc, y1: 0, y2: height }, svg);
      el('text', { 'class': 'cut-label', x: xc + 3, y: Math.max(top, 0) + 10 }, svg,
         'prefix ends');
    }
    for (l = l0; l <= l1; l++) {
      el('rect', { 'class': 'lane-bg' + (l % 2 ? ' odd' : ''), x: 0, y: l * LANE + TOP / 2,
                   width: GUTTER - 4, height: LANE }, svg);
      el('text', { 'class': 'lane-name', x: 6, y: l * LANE + TOP + 14 }, svg, 'p' + procs[l]);
    }
    document.getElementById('view-info').textContent =
      'events ' + Math.floor(view.x0) + '\u2013' + Math.ceil(view.x1) + ' of ' + nEvents +
      ' \u00b7 ' + visible.length + ' operations drawn';
    var span = view.x1 - view.x0;
    pan.value = nEvents > span ? Math.round(view.x0 / (nEvents - span) * 1000) : 0;
  }

  var pending = false;
  function redraw() {
    if (pending) return;
    pending = true;
    window.requestAnimationFrame(function () { pending = false; draw(); });
  }
  function setView(x0, x1) {
    var span = Math.min(Math.max(x1 - x0, MIN_SPAN), nEvents);
    x0 = Math.min(Math.max(x0, 0), nEvents - span);
    view.x0 = x0;
    view.x1 = x0 + span;
    redraw();
  }
  function zoom(factor, at) {
    var span = view.x1 - view.x0;
    if (at === undefined) at = view.x0 + span / 2;
    var f = (at - view.x0) / span;
    var ns = span * factor;
    setView(at - f * ns, at - f * ns + ns);
  }
  function showOp(i) {
    var op = ops[i];
    var pad = Math.max(6, (endOf(op) - op[1]) * 1.5);
    var right = i === culprit && cut >= 0 ? Math.max(endOf(op), cut) : endOf(op);
    setView(op[1] - pad, right + pad);
    var laneTop = laneOf[op[0]] * LANE;
    if (laneTop < lanesDiv.scrollTop || laneTop + LANE > lanesDiv.scrollTop + lanesDiv.clientHeight) {
      lanesDiv.scrollTop = Math.max(0, laneTop - lanesDiv.clientHeight / 2);
    }
    select(i);
  }
  function select(i) {
    selected = i;
    var op = ops[i];
    var parts = [describe(i), 'outcome ' + op[5],
                 'events ' + op[1] + '\u2013' + (op[2] >= 0 ? op[2] : 'never returned')];
    if (order[i]) parts.push('linearized as number ' + order[i]);
    if (i === culprit) parts.push('CULPRIT: its response cannot be explained');
    if (op[7]) parts.push('response on line ' + op[7]);
    details.textContent = parts.join(' \u00b7 ');
    redraw();
  }

  document.getElementById('zoom-in').onclick = function () { zoom(0.5); };
  document.getElementById('zoom-out').onclick = function () { zoom(2); };
  document.getElementById('zoom-fit').onclick = function () { setView(0, nEvents); };
  var toCulprit = document.getElementById('zoom-culprit');
  if (culprit >= 0) toCulprit.onclick = function () { showOp(culprit); };
  else toCulprit.disabled = true;
  pan.oninput = function () {
    var span = view.x1 - view.x0;
    setView(pan.value / 1000 * (nEvents - span), pan.value / 1000 * (nEvents - span) + span);
  };
  lanesDiv.addEventListener('scroll', redraw);
  window.addEventListener('resize', redraw);
  lanesDiv.addEventListener('wheel', function (e) {
    var rect = svg.getBoundingClientRect();
    var at = view.x0 + (e.clientX - rect.left - GUTTER) / width() * (view.x1 - view.x0);
    if (e.ctrlKey || e.metaKey) {
      e.preventDefault();
      zoom(Math.exp(e.deltaY * 0.002), at);
    } else if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
      e.preventDefault();
      var span = view.x1 - view.x0;
      setView(view.x0 + e.deltaX / width() * span, view.x1 + e.deltaX / width() * span);
    }
  }, { passive: false });
  var drag = null;
  lanesDiv.addEventListener('mousedown', function (e) {
    drag = { x: e.clientX, x0: view.x0, x1: view.x1, moved: false };
  });
  window.addEventListener('mousemove', function (e) {
    if (!drag) return;
    var dx = e.clientX - drag.x;
    if (Math.abs(dx) > 3) { drag.moved = true; lanesDiv.classList.add('dragging'); }
    var shift = -dx / width() * (drag.x1 - drag.x0);
    if (drag.moved) setView(drag.x0 + shift, drag.x1 + shift);
  });
  window.addEventListener('mouseup', function (e) {
    if (drag && !drag.moved) {
      var g = e.target.closest ? e.target.closest('g.op') : null;
      if (g) select(Number(g.getAttribute('data-op')));
    }
    drag = null;
    lanesDiv.classList.remove('dragging');
  });
  document.addEventListener('keydown', function (e) {
    if (e.target.tagName === 'INPUT') return;
    var span = view.x1 - view.x0;
    if (e.key === '+' || e.key === '=') zoom(0.5);
    else if (e.key === '-') zoom(2);
    else if (e.key === '0') setView(0, nEvents);
    else if (e.key === 'c' && culprit >= 0) showOp(culprit);
    else if (e.key === 'ArrowRight') setView(view.x0 + span / 5, view.x1 + span / 5);
    else if (e.key === 'ArrowLeft') setView(view.x0 - span / 5, view.x1 - span / 5);
  });
  Array.prototype.forEach.call(document.querySelectorAll('a[data-op]'), function (a) {
    a.addEventListener('click', function (e) {
      e.preventDefault();
      showOp(Number(a.getAttribute('data-op')));
      document.getElementById('timeline-section').scrollIntoView();
    });
  });

  lanesDiv.style.height = Math.min(procs.length * LANE + TOP * 2 + 2,
                                   Math.max(window.innerHeight * 0.62, 200)) + 'px';
  if (culprit >= 0 && nEvents > 600) {
    var c = ops[culprit];
    setView(Math.max(0, cut - 360), cut + 40);
    var laneTop = laneOf[c[0]] * LANE;
    lanesDiv.scrollTop = Math.max(0, laneTop - lanesDiv.clientHeight / 2);
  }
  draw();
  if (culprit >= 0) select(culprit);
  draw();
  document.body.setAttribute('data-rendered', 'yes');
})();
)js";

}  // namespace linfault::report

#endif  // LINFAULT_REPORT_TIMELINE_SCRIPT_H_
