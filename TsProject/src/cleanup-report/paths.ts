/**
 * The "ankle paths from above" section of cleanup.html (issue 20, point 7), readable at centimetre scale:
 * - per foot, an overview of the whole path (equal aspect, both axes in metres on the floor plane), which
 *   zooms with the mouse wheel about the pointer, pans by dragging and resets on a double click; the
 *   contact segments are numbered at their anchors;
 * - per contact segment, a panel of its own at equal aspect, centred on the segment and scaled to it
 *   ({@link segmentViews}: the larger extent of the ankle's path before and after over the segment's
 *   frames, at least {@link MIN_VIEW_SPAN}), with a centimetre grid, a scale bar and the segment's slide
 *   before -> after, so a 1 cm slide is tens of pixels, not a fraction of one.
 * Engine-free (the script is text for the page; the views are computed here, so Node tests check them).
 */
import { type FloorEstimate, type FootName, floorBasis } from '../cleanup';
import type { CleanupFile, CleanupSeries } from './index';

/** Smallest span of a segment panel, metres (a still foot is drawn at 2 cm across, not magnified noise). */
export const MIN_VIEW_SPAN = 0.02;
/** Scale bar lengths a panel chooses from, centimetres. */
const BARS_CM = [0.5, 1, 2, 5, 10, 20, 50, 100, 200];

/** One segment panel: what it shows and at which scale. */
export interface SegmentView {
  /** Index into the foot's segments. */
  index: number;
  start: number;
  /** Exclusive. */
  end: number;
  /** Centre of the panel on the floor plane (the series' u, v axes), metres. */
  cu: number;
  cv: number;
  /** Width (= height) the panel shows, metres. */
  span: number;
  /** Scale bar (and grid step) length, centimetres: the largest of 0.5, 1, 2, 5, ... up to a third of the span. */
  barCm: number;
  /** The anchor on the floor plane, metres. */
  au: number;
  av: number;
  /** Horizontal ankle path length over the segment's frames before and after cleanup, metres. */
  slideBefore: number;
  slideAfter: number;
}

function pathLength(u: number[], v: number[], start: number, end: number): number {
  let s = 0;
  for (let f = start + 1; f < end; f++) s += Math.hypot(u[f] - u[f - 1], v[f] - v[f - 1]);
  return s;
}

/** The per-segment panels of both feet (see the module doc). */
export function segmentViews(file: CleanupFile, series: CleanupSeries): Record<FootName, SegmentView[]> {
  const floor: FloorEstimate = { normal: file.floor.normal, d: file.floor.d, method: file.floor.method };
  const { e1, e2 } = floorBasis(floor);
  const out = {} as Record<FootName, SegmentView[]>;
  for (const foot of ['left', 'right'] as const) {
    const b = series.before[foot];
    const a = series.after[foot];
    out[foot] = file.feet[foot].segments.map((s, index) => {
      let u0 = Infinity;
      let u1 = -Infinity;
      let v0 = Infinity;
      let v1 = -Infinity;
      for (let f = s.start; f < s.end; f++)
        for (const p of [b, a]) {
          u0 = Math.min(u0, p.u[f]);
          u1 = Math.max(u1, p.u[f]);
          v0 = Math.min(v0, p.v[f]);
          v1 = Math.max(v1, p.v[f]);
        }
      const span = Math.max(MIN_VIEW_SPAN, 1.15 * Math.max(u1 - u0, v1 - v0));
      const third = (100 * span) / 3;
      const barCm = BARS_CM.filter((c) => c <= third).pop() ?? BARS_CM[0];
      const q = s.anchor;
      return {
        index,
        start: s.start,
        end: s.end,
        cu: (u0 + u1) / 2,
        cv: (v0 + v1) / 2,
        span,
        barCm,
        au: e1[0] * q[0] + e1[1] * q[1] + e1[2] * q[2],
        av: e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2],
        slideBefore: pathLength(b.u, b.v, s.start, s.end),
        slideAfter: pathLength(a.u, a.v, s.start, s.end),
      };
    });
  }
  return out;
}

/** The section's HTML: per foot, the overview canvas and a grid of segment panels (filled by the script). */
export function pathsSectionHtml(): string {
  return `<section id="paths"><h2>Ankle paths from above: before (grey) and after (blue); contact frames dotted</h2>
<p class="muted">Overview per foot at equal aspect: wheel to zoom about the pointer, drag to pan, double-click to reset. Below it, every contact segment on its own scale (grid and bar in centimetres; red ✕ the anchor; the ankle's own slide over the segment before → after: on a toe-pinned stretch the heel turns about the pinned toe, so the ankle still moves while the supporting point does not).</p>
<div class="paths"><canvas class="path" data-foot="left"></canvas><canvas class="path" data-foot="right"></canvas></div>
<div class="seg-feet"><div class="seg-grid" data-foot="left"></div><div class="seg-grid" data-foot="right"></div></div></section>`;
}

export const PATHS_CSS = `
.seg-feet { display: flex; gap: 8px; align-items: flex-start; }
.seg-grid { flex: 1 1 0; display: flex; flex-wrap: wrap; gap: 6px; }
.seg { border: 1px solid #eee; font-size: 11px; color: #444; }
.seg canvas { display: block; width: 150px; height: 150px; }
.seg div { padding: 1px 4px; white-space: nowrap; }
canvas.path { cursor: grab; }
`;

/**
 * Plain ES2017 for the page: `paths(data, state)` draws the section. `data.feet[foot]` carries `before`,
 * `after` ({u, v} per frame), `contact` and `views` (the {@link segmentViews} of the foot, as arrays).
 * It adds to `state.canvases`, sets `state.paths` to one entry per panel `{foot, index, pxPerCm}` and
 * keeps `state.overview[foot]` at the overview's current pixels per centimetre (it changes as it zooms).
 */
export const PATHS_SCRIPT = `
  function paths() {
    state.paths = [];
    state.overview = {};
    function draw(c, d, view, w, h, opts) {
      var r = window.devicePixelRatio || 1;
      c.width = Math.round(w * r); c.height = Math.round(h * r);
      var g = c.getContext('2d'); g.setTransform(r, 0, 0, r, 0, 0);
      g.clearRect(0, 0, w, h);
      var k = Math.min(w, h) / view.span;
      var px = function (u) { return w / 2 + (u - view.cu) * k; }, py = function (v) { return h / 2 + (v - view.cv) * k; };
      if (opts.gridCm) {
        var step = opts.gridCm / 100;
        g.strokeStyle = '#f0f0f0'; g.lineWidth = 1; g.beginPath();
        for (var x = Math.ceil((view.cu - view.span) / step) * step; x <= view.cu + view.span; x += step) { g.moveTo(px(x), 0); g.lineTo(px(x), h); }
        for (var y = Math.ceil((view.cv - view.span) / step) * step; y <= view.cv + view.span; y += step) { g.moveTo(0, py(y)); g.lineTo(w, py(y)); }
        g.stroke();
      }
      var f0 = opts.from || 0, f1 = opts.to || d.before.u.length;
      function line(ser, color) {
        g.strokeStyle = color; g.lineWidth = 1.2; g.beginPath();
        for (var f = f0; f < f1; f++) { if (f === f0) g.moveTo(px(ser.u[f]), py(ser.v[f])); else g.lineTo(px(ser.u[f]), py(ser.v[f])); }
        g.stroke();
        g.fillStyle = color;
        for (var f = f0; f < f1; f++) if (d.contact[f]) g.fillRect(px(ser.u[f]) - 1.5, py(ser.v[f]) - 1.5, 3, 3);
      }
      if (opts.anchor) {
        // under the paths, so a foot pinned on it stays visible
        var ax = px(opts.anchor[0]), ay = py(opts.anchor[1]);
        g.strokeStyle = '#d33'; g.lineWidth = 1.5; g.beginPath();
        g.moveTo(ax - 5, ay - 5); g.lineTo(ax + 5, ay + 5); g.moveTo(ax - 5, ay + 5); g.lineTo(ax + 5, ay - 5); g.stroke();
      }
      line(d.before, '#999');
      line(d.after, '#1f5fbf');
      g.fillStyle = '#333'; g.strokeStyle = '#333'; g.font = '11px sans-serif';
      if (opts.anchors) d.views.forEach(function (s) { g.fillText(String(s[0] + 1), px(s[7]) + 3, py(s[8]) - 3); });
      var bar = opts.barCm || niceBar(view.span * 100 / 3);
      var bl = bar / 100 * k;
      g.lineWidth = 2; g.beginPath(); g.moveTo(6, h - 8); g.lineTo(6 + bl, h - 8); g.stroke();
      g.fillText(bar + ' cm', 10 + bl, h - 4);
      return k / 100;
    }
    function niceBar(maxCm) {
      var bars = [0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000], b = bars[0];
      bars.forEach(function (x) { if (x <= maxCm) b = x; });
      return b;
    }
    Array.prototype.forEach.call(document.querySelectorAll('canvas.path'), function (c) {
      var foot = c.getAttribute('data-foot'), d = data.feet[foot];
      var all = d.before.u.concat(d.after.u), allv = d.before.v.concat(d.after.v);
      var minU = Math.min.apply(null, all), maxU = Math.max.apply(null, all);
      var minV = Math.min.apply(null, allv), maxV = Math.max.apply(null, allv);
      var home = { cu: (minU + maxU) / 2, cv: (minV + maxV) / 2, span: 1.1 * Math.max(maxU - minU, maxV - minV, 0.02) };
      var view = { cu: home.cu, cv: home.cv, span: home.span };
      var W = c.clientWidth || 600, H = 320;
      function redraw() {
        var pxPerCm = draw(c, d, view, W, H, { anchors: true, gridCm: niceBar(view.span * 100 / 3) });
        state.overview[foot] = pxPerCm;
        var g = c.getContext('2d');
        g.fillStyle = '#333'; g.font = '12px sans-serif';
        g.fillText(foot + ' ankle (floor plane, ' + (view.span * 100).toFixed(view.span < 0.2 ? 1 : 0) + ' cm across, ' + pxPerCm.toFixed(1) + ' px/cm)', 8, 14);
      }
      redraw();
      c.addEventListener('wheel', function (e) {
        e.preventDefault();
        var rect = c.getBoundingClientRect(), k = Math.min(W, H) / view.span;
        var u = view.cu + (e.clientX - rect.left - W / 2) / k, v = view.cv + (e.clientY - rect.top - H / 2) / k;
        var z = Math.exp(Math.max(-1, Math.min(1, e.deltaY / 300)));
        var span = Math.max(0.005, Math.min(home.span * 4, view.span * z));
        view.cu = u - (u - view.cu) * span / view.span; view.cv = v - (v - view.cv) * span / view.span; view.span = span;
        redraw();
      }, { passive: false });
      var drag = null;
      c.addEventListener('mousedown', function (e) { drag = { x: e.clientX, y: e.clientY, cu: view.cu, cv: view.cv }; });
      window.addEventListener('mouseup', function () { drag = null; });
      c.addEventListener('mousemove', function (e) {
        if (!drag) return;
        var k = Math.min(W, H) / view.span;
        view.cu = drag.cu - (e.clientX - drag.x) / k; view.cv = drag.cv - (e.clientY - drag.y) / k;
        redraw();
      });
      c.addEventListener('dblclick', function () { view.cu = home.cu; view.cv = home.cv; view.span = home.span; redraw(); });
      state.canvases++;
    });
    Array.prototype.forEach.call(document.querySelectorAll('.seg-grid'), function (host) {
      var foot = host.getAttribute('data-foot'), d = data.feet[foot];
      var limit = 400;
      d.views.slice(0, limit).forEach(function (s) {
        // [index, start, end, cu, cv, span, barCm, au, av, slideBefore, slideAfter]
        var box = document.createElement('div'); box.className = 'seg';
        var cap = document.createElement('div');
        cap.textContent = foot.charAt(0).toUpperCase() + (s[0] + 1) + ' · ' + s[1] + '–' + (s[2] - 1) + ' · ankle ' + (s[9] * 100).toFixed(1) + ' → ' + (s[10] * 100).toFixed(1) + ' cm';
        var c = document.createElement('canvas');
        box.appendChild(cap); box.appendChild(c); host.appendChild(box);
        var pxPerCm = draw(c, d, { cu: s[3], cv: s[4], span: s[5] }, 150, 150, { from: s[1], to: s[2], gridCm: s[6], barCm: s[6], anchor: [s[7], s[8]] });
        state.paths.push({ foot: foot, index: s[0], pxPerCm: pxPerCm });
        state.canvases++;
      });
      if (d.views.length > limit) {
        var more = document.createElement('p'); more.className = 'muted';
        more.textContent = (d.views.length - limit) + ' more segments not drawn (cleanup.json lists them)';
        host.appendChild(more);
      }
    });
  }
`;

/** The views of one foot as the compact arrays the script reads (numbers rounded to 0.01 mm). */
export function viewsForPage(views: readonly SegmentView[]): number[][] {
  const r = (x: number) => Math.round(x * 1e5) / 1e5;
  return views.map((s) => [
    s.index,
    s.start,
    s.end,
    r(s.cu),
    r(s.cv),
    r(s.span),
    s.barCm,
    r(s.au),
    r(s.av),
    r(s.slideBefore),
    r(s.slideAfter),
  ]);
}
