/**
 * The self-contained HTML report of `kind cleanup` (cleanup.html): one page, no network, beside the QA
 * report (src/qa-report, whose escaping helpers and inlined uPlot it shares). Sections: the facts and
 * metrics table (per foot, before / after, warnings), the review list (each range with its reason, in
 * the reason's colour), the frames where IK hit a limit, a timeline (./timeline.ts; per foot lanes for
 * the foot, its heel and its toe: contact probability, segments, the frames each point is pinned; a
 * review lane coloured by reason; IK limits; canvas 2D, with a legend and a frame readout under the
 * pointer), the ankle trajectories seen from above before and after (canvas 2D, contact frames marked: a
 * zoomable overview per foot and one panel per contact segment on its own centimetre scale, ./paths.ts),
 * and horizontal ankle speed and height over time before and after (uPlot). When the contacts stand on
 * more than one ground level, the header says so.
 *
 * Every text from files (clip and file names, warnings) is HTML-escaped ({@link escapeHtml}); the page
 * data is JSON with `<`, `>`, `&` escaped ({@link jsonForScript}); the script only sets text through
 * `textContent` and canvas `fillText`. When done it sets `window.__cleanup = { charts, canvases,
 * errors, paths }` (used by the browser test; `paths`: per segment panel `{foot, index, pxPerCm}`).
 */
import type { FootMetrics, FootName } from '../cleanup';
import { type ChartAssets, escapeHtml, jsonForScript } from '../qa-report/html';
import type { CleanupFile, CleanupSeries } from './index';
import { PATHS_CSS, PATHS_SCRIPT, pathsSectionHtml, segmentViews, viewsForPage } from './paths';
import {
  REVIEW_STYLE,
  TIMELINE_SCRIPT,
  type TimelineReason,
  timelineLanes,
  timelineLegendHtml,
} from './timeline';

function inlineSafe(text: string, tag: 'script' | 'style'): string {
  return text.replace(new RegExp(`</(${tag})`, 'gi'), '<\\/$1');
}

/** A number with d decimals; '–' for a figure the file does not carry (a version-1 file's supporting-point rows). */
const fmt = (v: number | undefined, d = 3) =>
  v === undefined ? '–' : Number.isFinite(v) ? v.toFixed(d) : String(v);
const FEET: readonly FootName[] = ['left', 'right'];

const METRIC_ROWS: { key: keyof FootMetrics; label: string; unit: string; digits: number; warn?: string }[] =
  [
    { key: 'contactFrames', label: 'contact frames', unit: '', digits: 0 },
    {
      key: 'pinnedSpeed',
      label: 'supporting point (heel or toe): mean horizontal speed in contact',
      unit: 'm/s',
      digits: 4,
      warn: 'speed',
    },
    { key: 'pinnedSlide', label: 'supporting point: cumulative slide in contact', unit: 'm', digits: 4 },
    { key: 'slideHeel', label: '… while the heel supports', unit: 'm', digits: 4 },
    { key: 'slideToe', label: '… while the toe supports', unit: 'm', digits: 4 },
    {
      key: 'pinnedSlideMaxSegment',
      label: 'supporting point: largest slide in one segment',
      unit: 'm',
      digits: 4,
      warn: 'slide',
    },
    { key: 'meanContactSpeed', label: 'ankle: mean horizontal speed in contact S', unit: 'm/s', digits: 4 },
    { key: 'slideTotal', label: 'ankle: cumulative slide in contact', unit: 'm', digits: 4 },
    { key: 'slideMaxSegment', label: 'ankle: largest slide in one segment', unit: 'm', digits: 4 },
    {
      key: 'penetrationMax',
      label: 'deepest penetration below the local ground',
      unit: 'm',
      digits: 4,
      warn: 'penetration',
    },
    { key: 'skatingRatio', label: 'foot-skating ratio (< 5 cm, > 0.5 m/s)', unit: '', digits: 4 },
    { key: 'kneePopMaxDeg', label: 'largest knee angle jump per frame', unit: '°', digits: 2 },
  ];

function metricsTable(file: CleanupFile): string {
  const head = `<tr><th>metric</th>${FEET.map((f) => `<th>${f} before</th><th>${f} after</th>`).join('')}</tr>`;
  const rows = METRIC_ROWS.map((m) => {
    const cells = FEET.map((f) =>
      (['before', 'after'] as const)
        .map((w) => {
          const mm = file.metrics[w][f];
          const bad = m.warn && mm.warnings.includes(m.warn);
          return `<td class="num${bad ? ' warn' : ''}">${fmt(mm[m.key] as number, m.digits)}${m.unit ? ` ${m.unit}` : ''}</td>`;
        })
        .join(''),
    ).join('');
    return `<tr><td>${escapeHtml(m.label)}</td>${cells}</tr>`;
  });
  const ikRows = (['hip', 'knee', 'ankle'] as const).map(
    (j) =>
      `<tr><td>IK rotation of the ${j} (max / mean)</td>${FEET.map((f) => `<td class="num" colspan="2">${fmt(file.ik[f][j].maxDeg, 2)}° / ${fmt(file.ik[f][j].meanDeg, 2)}°</td>`).join('')}</tr>`,
  );
  const more = [
    `<tr><td>knee position change (max / mean)</td>${FEET.map((f) => `<td class="num" colspan="2">${fmt(file.ik[f].kneeShiftMax * 100, 2)} / ${fmt(file.ik[f].kneeShiftMean * 100, 2)} cm</td>`).join('')}</tr>`,
    `<tr><td>knee pops (jumps beyond the source's)</td>${FEET.map((f) => `<td class="num" colspan="2">${file.ik[f].kneePops}</td>`).join('')}</tr>`,
    `<tr><td>frames changed by the leg IK</td>${FEET.map((f) => `<td class="num" colspan="2">${file.ik[f].framesChanged}</td>`).join('')}</tr>`,
  ];
  return `<table class="metrics"><thead>${head}</thead><tbody>${[...rows, ...ikRows, ...more].join('\n')}</tbody></table>`;
}

function rangeTable(
  rows: { foot: string; start: number; end: number; what?: string; color?: string }[],
  frameTime: number,
  empty: string,
): string {
  if (rows.length === 0) return `<p class="muted">${escapeHtml(empty)}</p>`;
  return (
    '<table class="ranges"><thead><tr><th>foot</th><th>frames</th><th>time</th><th>what</th></tr></thead><tbody>' +
    rows
      .map(
        (x) =>
          `<tr><td>${escapeHtml(x.foot)}</td><td class="num">${x.start}–${x.end - 1}</td>` +
          `<td class="num">${fmt(x.start * frameTime, 2)}–${fmt(x.end * frameTime, 2)} s</td><td>${x.color ? `<span class="sw" style="background:${x.color}"></span>` : ''}${escapeHtml(x.what ?? '')}</td></tr>`,
      )
      .join('\n') +
    '</tbody></table>'
  );
}

/** The transitions line: blend, speed limit, joint-step bound and what was found (cleanup.json version 2). */
function transitionFacts(file: CleanupFile): string {
  const t = file.transitions;
  if (!t) return '';
  const worst = Math.max(t.maxStepExcess.left, t.maxStepExcess.right);
  return (
    `<p class="facts">blends of at least ${fmt(t.blendSeconds, 2)} s (${t.rampFrames} frames here) · correction at most ${fmt(t.maxCorrectionSpeed, 2)} m/s, ${fmt(t.stepLimit * 100, 2)} cm per frame · ` +
    `no leg joint more than ${fmt(t.maxJointStep * 100, 1)} cm per frame beyond the source's motion (largest here ${fmt(worst * 100, 2)} cm; pin eased on ${t.eased.left} left and ${t.eased.right} right frames) · ` +
    `a contact inside which the source ankle travels over ${fmt(t.maxContactTravel * 100, 1)} cm loses its fastest frames · joints moved over ${fmt(t.reviewJointShift * 100, 1)} cm are listed for review</p>`
  );
}

/** The HTML page for a cleanup.json and its series. `assets`: uPlot's script and style sheet, inlined. */
export function renderCleanupHtml(file: CleanupFile, series: CleanupSeries, assets: ChartAssets): string {
  const title = `Foot-slide cleanup: ${file.clip}`;
  const seg = (f: FootName) => file.feet[f].segments.length;
  const lanes = timelineLanes(file);
  const points = (w: 'heel' | 'toe') => FEET.map((f) => file.feet[f][w]?.segments.length ?? 0).join('/');
  const pinned = (w: 'heel' | 'toe') => FEET.reduce((a, f) => a + (lanes[f][w]?.pinnedFrames ?? 0), 0);
  const heelToe =
    lanes.left.heel && lanes.right.heel
      ? ` (heel ${points('heel')}, toe ${points('toe')}; toe pinned on ${pinned('toe')} frames, heel on ${pinned('heel')})`
      : ' (version-1 file: no heel and toe channels)';
  const facts =
    `<p class="facts">input <code>${escapeHtml(file.input)}</code> · output <code>${escapeHtml(file.output)}</code></p>` +
    `<p class="facts">${file.frames} frames at ${fmt(file.fps, 3)} fps · contacts: ${escapeHtml(file.model)} model · ` +
    `segments left ${seg('left')}, right ${seg('right')}${heelToe} · floor ${escapeHtml(file.floor.method)} n = [${file.floor.normal.map((v) => fmt(v, 3)).join(', ')}], height ${fmt(file.floor.height, 4)} m · ` +
    `leg ${fmt(file.legLength, 3)} m · ${file.framesChanged} frames changed · review band ${file.options.reviewBand.join('–')} · root correction ${file.options.rootCorrection ? `on (${file.root.frames} frames, max ${fmt(file.root.maxOffset * 100, 2)} cm)` : 'off'}</p>` +
    transitionFacts(file);
  const ground = file.ground;
  const groundFacts =
    ground?.note != null
      ? `<p class="facts ground">ground: ${escapeHtml(ground.note)} (levels ${ground.levels
          .map(
            (l) =>
              `${fmt(l.height * 100, 1)} cm${l.tiltDeg >= 2 ? ` sloped ${fmt(l.tiltDeg, 1)}°` : ''} ×${l.segments}`,
          )
          .join(', ')}); penetration is measured against each contact's own ground</p>`
      : '';
  const warnings =
    file.warnings.length === 0
      ? ''
      : `<ul class="notes">${file.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join('')}</ul>`;
  const review = rangeTable(
    [
      // version 1 files carry no reason: their review ranges were all the review band's
      ...file.review.map((x) => ({
        ...x,
        what: `${x.reason ?? 'reviewBand'}: ${x.detail ?? 'probability stayed in the review band: not fixed'}`,
        color: REVIEW_STYLE[(x.reason ?? 'reviewBand') as TimelineReason]?.color,
      })),
      ...(file.short ?? []).map((x) => ({
        ...x,
        what: 'contact too short to pin: not fixed',
        color: REVIEW_STYLE.short.color,
      })),
    ].sort((a, b) => a.start - b.start),
    file.frameTime,
    'Nothing left for review.',
  );
  const limits = rangeTable(
    file.limits.map((x) => ({
      ...x,
      what:
        x.kind === 'outOfReach'
          ? `anchor out of reach: the foot left its pin by up to ${fmt(x.maxPinError * 100, 1)} cm`
          : `knee on its limit (pin error up to ${fmt(x.maxPinError * 100, 1)} cm)`,
    })),
    file.frameTime,
    'IK hit no limit.',
  );
  const views = segmentViews(file, series);
  const data = {
    frames: file.frames,
    frameTime: file.frameTime,
    timeline: lanes,
    feet: Object.fromEntries(
      FEET.map((f) => [
        f,
        {
          contact: file.feet[f].contact,
          before: series.before[f],
          after: series.after[f],
          views: viewsForPage(views[f]),
        },
      ]),
    ),
  };
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${inlineSafe(assets.css, 'style')}</style>
<style>${inlineSafe(PAGE_CSS + PATHS_CSS, 'style')}</style>
</head>
<body>
<header><h1>${escapeHtml(title)}</h1>${facts}${groundFacts}${warnings}</header>
<section id="metrics"><h2>Metrics per foot, before and after</h2>${metricsTable(file)}
<p class="muted">Highlighted: over the warning threshold (speed 0.03 m/s, slide 0.05 m, penetration 0.02 m at a 0.9 m leg, scaled to this character: ×${fmt(file.scale, 3)}).</p></section>
<section id="review"><h2>Review list (${file.review.length + (file.short?.length ?? 0)})</h2>${review}</section>
<section id="limits"><h2>Frames where IK hit a limit (${file.limits.length})</h2>${limits}</section>
<section id="timeline-section"><h2>Timeline: per foot the contact probability and segments of the foot, its heel and its toe, the point pinned, review ranges by reason, IK limits</h2>${timelineLegendHtml(lanes)}<canvas id="timeline"></canvas><p class="muted readout" id="timeline-readout">Point at the timeline for a frame's figures.</p></section>
${pathsSectionHtml()}
<section id="curves"><h2>Horizontal ankle speed and height over time, before and after</h2><div class="curves" id="curve-host"></div></section>
<script type="application/json" id="cleanup-data">${jsonForScript(data)}</script>
<script>${inlineSafe(assets.js, 'script')}</script>
<script>${inlineSafe(PAGE_SCRIPT, 'script')}</script>
</body>
</html>
`;
}

const PAGE_CSS = `
* { box-sizing: border-box; }
body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; padding: 16px 24px; max-width: 1280px; color: #222; background: #fff; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 28px 0 6px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
.facts { color: #555; margin: 2px 0; }
.muted { color: #777; }
table { border-collapse: collapse; font-size: 13px; }
th, td { border-bottom: 1px solid #eee; padding: 3px 8px; text-align: left; }
th { background: #f6f6f6; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.warn { background: #fbd5d5; color: #9b1c1c; }
canvas#timeline { display: block; width: 100%; height: 300px; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 16px; font-size: 12px; color: #444; margin: 4px 0; }
.lg { display: inline-flex; align-items: flex-start; gap: 5px; }
.sw { display: inline-block; width: 14px; height: 12px; margin-top: 2px; border-radius: 2px; flex: none; vertical-align: -1px; margin-right: 5px; }
.lg .sw { margin-right: 0; }
.readout { min-height: 1.4em; font-size: 12px; font-variant-numeric: tabular-nums; margin: 2px 0; }
.paths { display: flex; gap: 8px; }
canvas.path { flex: 1 1 0; width: 50%; height: 320px; border: 1px solid #eee; }
.curves { display: flex; flex-wrap: wrap; gap: 8px; }
.curve { flex: 1 1 560px; min-width: 420px; }
`;

/** Plain ES2017 (no bundling); checked by the browser test. The paths section's script is ./paths.ts. */
const PAGE_SCRIPT = `
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('cleanup-data').textContent);
  var state = { charts: 0, canvases: 0, errors: [] };
  window.__cleanup = state;
  var FEET = ['left', 'right'];
  function fit(c, h) {
    var r = window.devicePixelRatio || 1;
    var w = c.clientWidth || 800;
    c.width = Math.round(w * r);
    c.height = Math.round(h * r);
    var g = c.getContext('2d');
    g.setTransform(r, 0, 0, r, 0, 0);
    return { g: g, w: w, h: h };
  }
${TIMELINE_SCRIPT}${PATHS_SCRIPT}  function curves() {
    var host = document.getElementById('curve-host');
    var t = []; for (var f = 0; f < data.frames; f++) t.push(f * data.frameTime);
    FEET.forEach(function (foot) {
      var d = data.feet[foot];
      [['speed', 'horizontal speed (m/s)'], ['h', 'height above the floor (m)']].forEach(function (m) {
        var div = document.createElement('div'); div.className = 'curve'; host.appendChild(div);
        var opts = {
          title: foot + ' ankle: ' + m[1], width: Math.max(420, Math.min(600, host.clientWidth / 2 - 8)), height: 220,
          scales: { x: { time: false } },
          series: [{ label: 's' }, { label: 'before', stroke: '#999' }, { label: 'after', stroke: '#1f5fbf' }, { label: 'contact', stroke: 'rgba(40,160,70,0.6)' }],
        };
        var vals = d.before[m[0]].concat(d.after[m[0]]);
        var peak = Math.max.apply(null, vals);
        var top = peak;
        if (m[0] === 'speed') {
          // a single jump (a T-pose frame 0 metres away, a cut) would flatten every step: the axis stops at
          // 1.5x the 99th percentile and the title gives the peak
          var sorted = vals.slice().sort(function (a, b) { return a - b; });
          var p99 = sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))];
          if (peak > 3 * p99 && p99 > 0) {
            top = 1.5 * p99;
            opts.scales.y = { range: [0, top] };
            opts.title += ' (axis clipped at ' + top.toFixed(2) + '; peak ' + peak.toFixed(2) + ' at frame ' + vals.indexOf(peak) % data.frames + ')';
          }
        }
        var contact = d.contact.map(function (c) { return c ? top : null; });
        new uPlot(opts, [t, d.before[m[0]], d.after[m[0]], contact], div);
        state.charts++;
      });
    });
  }
  [timeline, paths, curves].forEach(function (step) {
    try { step(); } catch (e) { state.errors.push(String(e && e.message || e)); }
  });
  state.done = true;
})();
`;
