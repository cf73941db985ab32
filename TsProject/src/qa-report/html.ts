/**
 * The self-contained HTML report of `kind qa` (qa.html): one page, no network. At the top the review
 * queue (every flagged run of every clip, worst first, each linking to its clip's section); then per
 * clip a section with the timeline (flagged runs as red (Error) / yellow (Warning) bars over seconds,
 * under the score S), the bone x time heatmap of the severity, per-bone curves of E_rot and E_twist
 * with the thresholds drawn (uPlot, https://github.com/leeoniya/uPlot, inlined), and the list of
 * causes and actions.
 *
 * Every text that comes from files (clip, file and bone names, messages) is HTML-escaped in the markup
 * ({@link escapeHtml}); the page data is embedded as JSON with `<`, `>`, `&`, U+2028 and U+2029 written
 * as `\uXXXX` escapes ({@link jsonForScript}), so no text can close the script element; the page
 * script only sets text through `textContent` and canvas `fillText`.
 */
import type { QaClipEntry, QaFile, QaQueueEntry, QaRunJson } from './index';
import { PAGE_CSS, PAGE_SCRIPT } from './page';

/** The chart library's files, read by the caller (the command line) and inlined into the page. */
export interface ChartAssets {
  /** uPlot's minified browser build (`uplot/dist/uPlot.iife.min.js`, defines the global `uPlot`). */
  js: string;
  /** uPlot's style sheet (`uplot/dist/uPlot.min.css`). */
  css: string;
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escape text for HTML element content and quoted attribute values: `& < > " '`. */
export function escapeHtml(text: string): string {
  return String(text).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

/**
 * JSON for a `<script type="application/json">` element: `<`, `>`, `&`, U+2028 and U+2029 as
 * `\uXXXX` escapes (still the same JSON value), so `</script>` or `<!--` in a name cannot end the
 * element (HTML Living Standard, "Restrictions for contents of script elements").
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Text for inlining into a `<script>` or `<style>` element: any `</script` or `</style` is broken up. */
function inlineSafe(text: string, tag: 'script' | 'style'): string {
  return text.replace(new RegExp(`</(${tag})`, 'gi'), '<\\/$1');
}

const round = (v: number, digits: number): number => {
  const p = 10 ** digits;
  return Math.round(v * p) / p;
};

function roundAll(a: readonly number[], digits: number): number[] {
  const out = new Array<number>(a.length);
  for (let i = 0; i < a.length; i++) out[i] = Number.isFinite(a[i]) ? round(a[i], digits) : 0;
  return out;
}

/** The page data of one clip: rounded series (0.01 degree, 0.001 severity) to keep the page small. */
function clipData(c: QaClipEntry, i: number): object {
  const id = `clip-${i + 1}`;
  if (!c.report) return { id, name: c.name, error: c.error ?? 'not evaluated' };
  const r = c.report;
  return {
    id,
    name: c.name,
    result: r.result,
    frames: r.frames,
    fps: r.fps,
    duration: r.durationSeconds,
    maxScore: r.maxScore,
    score: roundAll(r.score, 3),
    runs: r.runs.map((x) => ({
      bone: x.bone,
      measure: x.measure,
      level: x.level,
      startSeconds: x.startSeconds,
      endSeconds: x.endSeconds,
    })),
    series: r.series.map((s) => ({
      bone: s.bone,
      rot: roundAll(s.rotDeg, 2),
      twist: roundAll(s.twistDeg, 2),
      sev: roundAll(s.severity, 3),
      rotT: s.rotThresholdDeg,
      twistT: s.twistThresholdDeg,
      rotMax: s.rotDeg.reduce((m, v) => Math.max(m, v), 0),
    })),
  };
}

function fmt(v: number, digits = 2): string {
  return Number.isFinite(v) ? v.toFixed(digits) : String(v);
}

/** Peak and threshold with their unit: degrees, or percent of the character height for `position`. */
export function formatPeak(r: Pick<QaRunJson, 'measure' | 'peak' | 'threshold'>): string {
  return r.measure === 'position'
    ? `${fmt(r.peak * 100, 1)}% / ${fmt(r.threshold * 100, 1)}% of height`
    : `${fmt(r.peak, 1)}° / ${fmt(r.threshold, 1)}°`;
}

function badge(result: string): string {
  return `<span class="badge ${escapeHtml(result)}">${escapeHtml(result)}</span>`;
}

function queueTable(q: readonly QaQueueEntry[], limit: number): string {
  if (q.length === 0) return '<p class="muted">No flagged runs: nothing to review.</p>';
  const rows = q
    .slice(0, limit)
    .map(
      (e) =>
        `<tr class="${e.level}"><td class="num">${e.rank}</td><td>${badge(e.level)}</td>` +
        `<td><a href="#clip-${e.clipIndex + 1}">${escapeHtml(e.clip)}</a></td>` +
        `<td>${escapeHtml(e.bone)}</td><td>${escapeHtml(e.measure)}</td>` +
        `<td class="num">${e.startFrame}–${e.endFrame}</td>` +
        `<td class="num">${fmt(e.startSeconds)}–${fmt(e.endSeconds)} s</td>` +
        `<td class="num">${escapeHtml(formatPeak(e))}</td><td class="num">${fmt(e.severity)}</td>` +
        `<td>${escapeHtml(e.cause)}</td><td>${escapeHtml(e.action)}</td></tr>`,
    );
  const more =
    q.length > limit ? `<p class="muted">${q.length - limit} more runs in qa.json (reviewQueue).</p>` : '';
  return (
    '<table class="queue"><thead><tr><th>#</th><th>level</th><th>clip</th><th>bone</th><th>measure</th>' +
    '<th>frames</th><th>time</th><th>peak / threshold</th><th>severity</th><th>likely cause</th><th>action</th>' +
    `</tr></thead><tbody>${rows.join('\n')}</tbody></table>${more}`
  );
}

function clipSection(c: QaClipEntry, i: number): string {
  const id = `clip-${i + 1}`;
  const head = `<h2>${escapeHtml(c.name)} ${badge(c.result)}</h2>`;
  const files = `<p class="facts">golden <code>${escapeHtml(c.golden)}</code> · retargeted <code>${escapeHtml(c.retargeted)}</code></p>`;
  if (!c.report) {
    return `<section class="clip" id="${id}">${head}${files}<p class="error-entry">${escapeHtml(c.error ?? 'not evaluated')}</p></section>`;
  }
  const r = c.report;
  const facts = `<p class="facts">${r.frames} frames at ${fmt(r.fps, 3)} fps (${fmt(r.durationSeconds)} s) · score S max ${fmt(r.maxScore, 3)}, mean ${fmt(r.meanScore, 3)} · ${r.runs.length} flagged run${r.runs.length === 1 ? '' : 's'}</p>`;
  const causes =
    r.runs.length === 0
      ? '<p class="muted">No flagged runs.</p>'
      : `<ol class="causes">${r.runs
          .map(
            (x) =>
              `<li class="${x.level}">${badge(x.level)} ${escapeHtml(x.message)}<br><span class="muted">cause:</span> ${escapeHtml(x.cause)} · <span class="muted">action:</span> ${escapeHtml(x.action)} · <span class="muted">peak</span> ${escapeHtml(formatPeak(x))} at frame ${x.peakFrame}</li>`,
          )
          .join('\n')}</ol>`;
  const warnings =
    r.warnings.length === 0
      ? ''
      : `<h3>Notes</h3><ul>${r.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join('')}</ul>`;
  return (
    `<section class="clip" id="${id}">${head}${files}${facts}` +
    `<h3>Timeline (flagged runs; red Error, yellow Warning)</h3><canvas class="timeline" data-clip="${i}"></canvas>` +
    `<h3>Severity heatmap (bone × time)</h3><canvas class="heatmap" data-clip="${i}"></canvas>` +
    `<h3>Per-bone curves: E_rot and E_twist with thresholds</h3><div class="curve-host" data-clip="${i}"></div>` +
    `<h3>Causes and actions</h3>${causes}${warnings}</section>`
  );
}

/**
 * The HTML page for a qa.json. `assets` are uPlot's minified script and style sheet, inlined.
 * `queueLimit` caps the review queue table (the JSON holds all of it).
 */
export function renderQaHtml(
  file: QaFile,
  assets: ChartAssets,
  options: { queueLimit?: number } = {},
): string {
  const title =
    file.mode === 'single' && file.clips.length === 1
      ? `Retarget QA: ${file.clips[0].name}`
      : `Retarget QA: ${file.clips.length} clips`;
  const c = file.counts;
  const summary =
    `<p class="facts">golden <code>${escapeHtml(file.golden)}</code> · retargeted <code>${escapeHtml(file.retargeted)}</code></p>` +
    `<p class="facts">result ${badge(file.result)} · ${c.clips} clip${c.clips === 1 ? '' : 's'}: ${c.pass} Pass, ${c.warning} Warning, ${c.error} Error${c.failed > 0 ? `, ${c.failed} failed to load` : ''}` +
    ` · sampling ${escapeHtml(file.options.sampling)}${file.options.lambda !== null ? ` · lambda ${file.options.lambda}` : ''}${file.options.profile ? ` · profile <code>${escapeHtml(file.options.profile)}</code>` : ''}</p>`;
  const unpaired =
    file.unpaired.golden.length + file.unpaired.retargeted.length === 0
      ? ''
      : `<h3>Unpaired clips</h3><ul>${file.unpaired.golden.map((g) => `<li>golden only: <code>${escapeHtml(g)}</code></li>`).join('')}${file.unpaired.retargeted.map((g) => `<li>retargeted only: <code>${escapeHtml(g)}</code></li>`).join('')}</ul>`;
  const notes =
    file.notes.length === 0 ? '' : `<ul>${file.notes.map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul>`;
  const data = { clips: file.clips.map(clipData) };
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${inlineSafe(assets.css, 'style')}</style>
<style>${inlineSafe(PAGE_CSS, 'style')}</style>
</head>
<body>
<header><h1>${escapeHtml(title)}</h1>${summary}${notes}</header>
<section id="queue"><h2>Review queue (${file.reviewQueue.length} flagged run${file.reviewQueue.length === 1 ? '' : 's'})</h2>
${queueTable(file.reviewQueue, options.queueLimit ?? 500)}
${unpaired}</section>
${file.clips.map(clipSection).join('\n')}
<script type="application/json" id="qa-data">${jsonForScript(data)}</script>
<script>${inlineSafe(assets.js, 'script')}</script>
<script>${inlineSafe(PAGE_SCRIPT, 'script')}</script>
</body>
</html>
`;
}
