/**
 * The timeline of cleanup.html (issue 20, points 1, 6 and 7): per foot, lanes over the take's frames,
 * - `foot`: the foot's contact probability (the union: max of heel and toe), its stances (green) and the
 *   frames where IK hit a limit (red);
 * - `heel` and `toe` (cleanup.json version 2): that point's probability, its contact segments (green)
 *   and the frames on which it is the point pinned (dark green, from `feet.<side>.pin`);
 * - `review`: every review range (and every contact too short to pin) coloured by its reason, the
 *   reason written in the bar where it fits; the review table below names the same ranges with their
 *   sentence.
 * A version-1 cleanup.json (no heel, toe or pin; review ranges without a reason, all the review band's)
 * draws the foot and review lanes only.
 * Engine-free: {@link timelineLanes} computes the lanes' data here (so Node tests check it), the script
 * ({@link TIMELINE_SCRIPT}) only draws it.
 */
import type { FootName, ReviewReason } from '../cleanup';
import { runsOf } from '../core/runs';
import type { CleanupFile, CleanupFootJson } from './index';

/** A review lane's reasons: the cleanup's {@link ReviewReason}s and 'short' (a contact too short to pin). */
export type TimelineReason = ReviewReason | 'short';

/** Colour and one-line meaning of each reason (legend, review lane and review table). */
export const REVIEW_STYLE: Record<TimelineReason, { color: string; meaning: string }> = {
  reviewBand: { color: '#f09600', meaning: 'probability stayed in the review band: not fixed' },
  travel: {
    color: '#00838f',
    meaning: 'the source point travels inside the contact: fastest frames not pinned',
  },
  shortened: { color: '#8d6e63', meaning: 'contact shortened: its anchor was too far to reach in time' },
  dropped: { color: '#4e342e', meaning: 'contact dropped: too short once shortened' },
  jointStep: { color: '#7b1fa2', meaning: 'a leg joint would step more per frame than the bound: pin eased' },
  jointShift: {
    color: '#d81b60',
    meaning: 'the cleanup moves a leg joint farther from the source than the review distance',
  },
  short: { color: '#9e9e9e', meaning: 'contact too short to pin: not fixed' },
};

/** One contact point's lane: probability per frame, its segments and the frames it is pinned, `[start, end)`. */
export interface PointLane {
  probability: number[];
  segments: [number, number][];
  pinned: [number, number][];
  pinnedFrames: number;
}

/** One foot's lanes (see the module doc). Ranges are `[start, end)`. */
export interface FootLanes {
  probability: number[];
  segments: [number, number][];
  limits: [number, number][];
  /** Null in a version-1 file. */
  heel: PointLane | null;
  toe: PointLane | null;
  /**
   * Review ranges and short contacts, by start: `[start, end, reason, row]`; overlapping ranges (a
   * `travel` cut and the `jointStep` easing on the same frames) go to different rows of the lane, so
   * none hides another.
   */
  review: [number, number, TimelineReason, number][];
  /** Rows of the review lane (at least 1). */
  reviewRows: number;
}

function pointLane(foot: Partial<CleanupFootJson>, which: 'heel' | 'toe'): PointLane | null {
  const c = foot[which];
  if (!c || !Array.isArray(foot.pin)) return null;
  const pinned = runsOf(foot.pin, which === 'heel' ? 1 : 2);
  return {
    probability: c.probability,
    segments: c.segments.map((s) => [s.start, s.end]),
    pinned,
    pinnedFrames: pinned.reduce((a, [s, e]) => a + e - s, 0),
  };
}

/** The timeline lanes of both feet, from a cleanup.json of version 1 or 2. */
export function timelineLanes(file: CleanupFile): Record<FootName, FootLanes> {
  const out = {} as Record<FootName, FootLanes>;
  for (const f of ['left', 'right'] as const) {
    const foot = file.feet[f] as Partial<CleanupFootJson> & Pick<CleanupFootJson, 'probability' | 'segments'>;
    const ranges: [number, number, TimelineReason][] = [
      // version 1 files carry no reason: their review ranges were all the review band's
      ...(foot.review ?? []).map((r): [number, number, TimelineReason] => [
        r.start,
        r.end,
        r.reason ?? 'reviewBand',
      ]),
      ...(foot.short ?? []).map((r): [number, number, TimelineReason] => [r.start, r.end, 'short']),
    ].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const rowEnd: number[] = [];
    const review = ranges.map(([start, end, reason]): [number, number, TimelineReason, number] => {
      let row = rowEnd.findIndex((e) => e <= start);
      if (row < 0) row = rowEnd.push(end) - 1;
      else rowEnd[row] = end;
      return [start, end, reason, row];
    });
    out[f] = {
      probability: foot.probability,
      segments: foot.segments.map((s) => [s.start, s.end]),
      limits: file.limits.filter((l) => l.foot === f).map((l) => [l.start, l.end]),
      heel: pointLane(foot, 'heel'),
      toe: pointLane(foot, 'toe'),
      review,
      reviewRows: Math.max(1, rowEnd.length),
    };
  }
  return out;
}

/**
 * The legend above the timeline canvas: the lanes' marks, and the review reasons this take has (all
 * of them named when it has none, so the reader knows what the lane would show).
 */
export function timelineLegendHtml(lanes: Record<FootName, FootLanes>): string {
  const sw = (style: string, text: string) =>
    `<span class="lg"><span class="sw" style="${style}"></span>${text}</span>`;
  const present = new Set([...lanes.left.review, ...lanes.right.review].map((r) => r[2]));
  const reasons = (Object.keys(REVIEW_STYLE) as TimelineReason[])
    .filter((k) => present.has(k))
    .map((k) =>
      sw(`background:${REVIEW_STYLE[k].color}`, `<span><b>${k}</b>: ${REVIEW_STYLE[k].meaning}</span>`),
    )
    .join('');
  return (
    '<div class="legend">' +
    sw(
      'background:none;border-top:2px solid #1f5fbf;height:0;margin-top:7px',
      'contact probability (lane bottom 0, top 1)',
    ) +
    sw(
      'background:rgba(40,160,70,0.3)',
      'contact segment (foot lane: the stance, heel or toe pinned; heel / toe lane: that point in contact)',
    ) +
    sw('background:#1b7a3a', 'the point pinned on these frames') +
    sw('background:rgba(220,40,40,0.85)', 'IK at a limit or the foot off its pin') +
    '</div><div class="legend">review lane: ' +
    (present.size > 0
      ? reasons
      : `empty (nothing for review); it would show ${(Object.keys(REVIEW_STYLE) as TimelineReason[]).join(', ')}`) +
    '</div>'
  );
}

/** Plain ES2017 for the page; expects `data`, `state`, `fit` and `FEET` in scope and `data.timeline` = lanes. */
export const TIMELINE_SCRIPT = `
  function timeline() {
    var REASON = ${JSON.stringify(Object.fromEntries(Object.entries(REVIEW_STYLE).map(([k, v]) => [k, v.color])))};
    var LABEL = 104, RIGHT = 10, GAP = 3, FOOT_GAP = 16, AXIS = 22;
    var H = { foot: 56, heel: 34, toe: 34 }, ROW = 14;
    var c = document.getElementById('timeline');
    var lanes = [];
    FEET.forEach(function (foot, i) {
      var d = data.timeline[foot];
      var names = ['foot'];
      if (d.heel) names.push('heel');
      if (d.toe) names.push('toe');
      names.push('review');
      names.forEach(function (n, j) {
        var h = n === 'review' ? Math.max(18, 4 + ROW * d.reviewRows) : H[n];
        lanes.push({ foot: foot, kind: n, h: h, gapBefore: j === 0 ? (i === 0 ? 4 : FOOT_GAP) : GAP });
      });
    });
    var y = 0;
    lanes.forEach(function (l) { y += l.gapBefore; l.y = y; y += l.h; });
    var height = y + AXIS;
    c.style.height = height + 'px';
    var s = fit(c, height);
    var g = s.g, W = s.w - LABEL - RIGHT, N = Math.max(1, data.frames);
    var x = function (f) { return LABEL + (f / N) * W; };
    function bars(list, color, y0, h) {
      g.fillStyle = color;
      list.forEach(function (r) { g.fillRect(x(r[0]), y0, Math.max(1.5, x(r[1]) - x(r[0])), h); });
    }
    function curve(p, y0, h, color) {
      g.strokeStyle = color; g.lineWidth = 1.3; g.beginPath();
      p.forEach(function (v, f) { var yy = y0 + h * (1 - v); var xx = x(f + 0.5); if (f === 0) g.moveTo(xx, yy); else g.lineTo(xx, yy); });
      g.stroke();
    }
    g.textBaseline = 'middle';
    lanes.forEach(function (l) {
      var d = data.timeline[l.foot], h = l.h, y0 = l.y;
      g.fillStyle = '#fafafa'; g.fillRect(LABEL, y0, W, h);
      g.strokeStyle = '#e2e2e2'; g.lineWidth = 1; g.strokeRect(LABEL + 0.5, y0 + 0.5, W - 1, h - 1);
      g.textAlign = 'right';
      if (l.kind === 'foot') {
        g.fillStyle = '#222'; g.font = 'bold 13px sans-serif'; g.fillText(l.foot + ' foot', LABEL - 8, y0 + h / 2 - 7);
        g.fillStyle = '#666'; g.font = '11px sans-serif'; g.fillText(d.heel ? 'heel or toe' : 'stance', LABEL - 8, y0 + h / 2 + 8);
        bars(d.segments, 'rgba(40,160,70,0.3)', y0, h);
        bars(d.limits, 'rgba(220,40,40,0.85)', y0, 7);
        curve(d.probability, y0, h, '#1f5fbf');
      } else if (l.kind === 'review') {
        g.fillStyle = '#444'; g.font = '11px sans-serif'; g.fillText('review (' + d.review.length + ')', LABEL - 8, y0 + h / 2);
        g.textAlign = 'left'; g.font = '10px sans-serif';
        var rh = (h - 4) / d.reviewRows;
        d.review.forEach(function (r) {
          var x0 = x(r[0]), w = Math.max(2, x(r[1]) - x0), yr = y0 + 2 + r[3] * rh;
          g.fillStyle = REASON[r[2]] || '#f09600'; g.fillRect(x0, yr + 0.5, w, rh - 1);
          if (g.measureText(r[2]).width + 6 <= w) { g.fillStyle = '#fff'; g.fillText(r[2], x0 + 3, yr + rh / 2); }
        });
      } else {
        var p = d[l.kind];
        g.fillStyle = '#333'; g.font = '12px sans-serif'; g.fillText(l.kind, LABEL - 8, y0 + h / 2 - 7);
        g.fillStyle = '#666'; g.font = '11px sans-serif'; g.fillText('pinned ' + p.pinnedFrames + ' fr', LABEL - 8, y0 + h / 2 + 8);
        bars(p.segments, 'rgba(40,160,70,0.3)', y0, h);
        bars(p.pinned, '#1b7a3a', y0 + h - 7, 7);
        curve(p.probability, y0, h - 7, '#1f5fbf');
      }
    });
    // time axis: ticks at a round number of seconds, about every 90 px
    var secs = data.frames * data.frameTime, step = 0.1;
    [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600].forEach(function (t) { if ((W * step) / secs < 90) step = t; });
    var ya = y + 4;
    g.strokeStyle = '#999'; g.fillStyle = '#555'; g.font = '11px sans-serif'; g.textAlign = 'center'; g.textBaseline = 'top';
    g.beginPath(); g.moveTo(LABEL, ya); g.lineTo(LABEL + W, ya);
    for (var t = 0; t <= secs + 1e-9; t += step) {
      var xx = x(t / data.frameTime);
      g.moveTo(xx, ya); g.lineTo(xx, ya + 4);
      g.fillText((step < 1 ? t.toFixed(1) : t.toFixed(0)) + ' s', xx, ya + 6);
    }
    g.stroke();
    g.textAlign = 'right'; g.fillText('time', LABEL - 24, ya + 6);
    state.timeline = { lanes: lanes.map(function (l) { return l.foot + ' ' + l.kind; }), height: height };
    var out = document.getElementById('timeline-readout');
    c.addEventListener('mousemove', function (e) {
      var r = c.getBoundingClientRect();
      var f = Math.floor(((e.clientX - r.left - LABEL) / W) * N);
      if (f < 0 || f >= data.frames) { out.textContent = ''; return; }
      out.textContent = 'frame ' + f + ' (' + (f * data.frameTime).toFixed(2) + ' s): ' + FEET.map(function (foot) {
        var d = data.timeline[foot];
        var inR = function (r) { return f >= r[0] && f < r[1]; };
        var txt = foot + ' p ' + d.probability[f].toFixed(2);
        if (d.heel) txt += ', heel ' + d.heel.probability[f].toFixed(2) + ', toe ' + d.toe.probability[f].toFixed(2);
        var pin = d.heel && d.heel.pinned.some(inR) ? 'heel pinned' : d.toe && d.toe.pinned.some(inR) ? 'toe pinned' : d.segments.some(inR) ? 'in contact' : '';
        if (pin) txt += ' [' + pin + ']';
        var rv = d.review.filter(inR).map(function (r) { return r[2]; });
        if (rv.length) txt += ' review: ' + rv.join(', ');
        if (d.limits.some(inR)) txt += ' IK limit';
        return txt;
      }).join(' · ');
    });
    state.canvases++;
  }
`;
