/**
 * The files of `kind qa`: the JSON report (`qa.json`) and the review queue across clips. Pure data
 * (no file access: the command line writes the files); the HTML page is in ./html.ts.
 *
 * A clip's report is the plain-JSON form of a `QaClipReport` from src/qa (`reportToJson`): the same
 * fields with arrays in place of typed arrays. {@link readClipJson} checks that shape, so a report that
 * crossed a worker boundary or was read back from a file is validated before it is used.
 */
import type { QaMeasure, QaResult, QaRun } from '../qa';

/**
 * A flagged run as JSON: src/qa `QaRun` (plain strings and numbers already), with the cause code and
 * severity optional, as reports read back from files may lack them.
 */
export type QaRunJson = Omit<QaRun, 'causeCode' | 'severity'> & {
  /** Machine-readable cause (src/qa `QaCauseCode`), when the report has it. */
  causeCode?: string;
  /** Peak of the bone's `w * max(0, E / T - 1)` over the run, when the report has it. */
  severity?: number;
};

/** One bone's per-frame figures as JSON (src/qa `QaSeries`), degrees. */
export interface QaSeriesJson {
  bone: string;
  rotDeg: number[];
  twistDeg: number[];
  swingDeg: number[];
  /** This bone's `w * max(0, E / T - 1)` per frame. */
  severity: number[];
  rotThresholdDeg: number;
  twistThresholdDeg: number | null;
  /** V_twist, unwrapped twist velocity, degrees per second, when the report has it. */
  twistVelocityDegPerSec?: number[];
}

/** A clip report as JSON (src/qa `reportToJson` of a `QaClipReport`). */
export interface QaClipJson {
  name: string;
  frames: number;
  fps: number;
  durationSeconds: number;
  result: QaResult;
  maxScore: number;
  meanScore: number;
  /** S per frame. */
  score: number[];
  runs: QaRunJson[];
  series: QaSeriesJson[];
  warnings: string[];
}

/** One golden/retargeted pair in qa.json: its report, or why it could not be evaluated. */
export interface QaClipEntry {
  /** The pair's name: the relative path without extension (batch) or the retargeted file's stem. */
  name: string;
  golden: string;
  retargeted: string;
  /** The clip result, or 'Failed' when a file could not be read or evaluated (see `error`). */
  result: QaResult | 'Failed';
  /** The QA severity of the clip (src/qa `severityOf`), 0 for a failed pair. */
  severity: number;
  report?: QaClipJson;
  /** One line naming the file and the problem. */
  error?: string;
}

/** A flagged run in the review queue: the run, its clip and its sort key. */
export interface QaQueueEntry extends QaRunJson {
  /** 1-based position in the queue. */
  rank: number;
  clip: string;
  /** Index of the clip in `QaFile.clips`. */
  clipIndex: number;
  /** Sort key: the largest weighted exceedance `w * max(0, E / T - 1)` of the bone over the run's frames. */
  severity: number;
}

/** The contents of qa.json. */
export interface QaFile {
  tool: 'kind qa';
  version: 1;
  mode: 'single' | 'batch';
  /** The golden file (single) or folder (batch), as given. */
  golden: string;
  retargeted: string;
  options: { lambda: number | null; sampling: 'seconds' | 'normalized'; profile: string | null };
  /**
   * The overall result: 'Error' when any clip is Error; else 'Failed' when a pair could not be evaluated
   * or there was no pair at all; else the worst clip result ('Warning' or 'Pass').
   */
  result: QaResult | 'Failed';
  counts: { clips: number; pass: number; warning: number; error: number; failed: number };
  clips: QaClipEntry[];
  /** Every flagged run of every clip, worst first (Error before Warning, then by severity). */
  reviewQueue: QaQueueEntry[];
  /** Batch: clip files with no partner on the other side (relative paths). */
  unpaired: { golden: string[]; retargeted: string[] };
  notes: string[];
}

const MEASURES: readonly string[] = ['rotation', 'twist', 'wrist', 'position', 'shoulder'];

class ReportShapeError extends Error {}

function fail(where: string, what: string): never {
  throw new ReportShapeError(`${where}: ${what}`);
}

function obj(v: unknown, where: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(where, 'expected an object');
  return v as Record<string, unknown>;
}

function num(o: Record<string, unknown>, k: string, where: string): number {
  const v = o[k];
  if (typeof v !== 'number' || Number.isNaN(v)) fail(`${where}.${k}`, `expected a number, got ${typeof v}`);
  return v;
}

function str(o: Record<string, unknown>, k: string, where: string): string {
  const v = o[k];
  if (typeof v !== 'string') fail(`${where}.${k}`, `expected a string, got ${typeof v}`);
  return v;
}

function numbers(o: Record<string, unknown>, k: string, where: string): number[] {
  const v = o[k];
  if (Array.isArray(v) || ArrayBuffer.isView(v)) {
    const a = Array.from(v as ArrayLike<unknown>);
    for (let i = 0; i < a.length; i++) {
      // JSON writes NaN and Infinity as null: keep them out of the report as 0
      if (a[i] === null) a[i] = 0;
      else if (typeof a[i] !== 'number') fail(`${where}.${k}[${i}]`, 'expected a number');
    }
    return a as number[];
  }
  return fail(`${where}.${k}`, 'expected an array of numbers');
}

/**
 * Check and normalise a clip report in JSON form (the output of src/qa `reportToJson`, possibly after
 * a worker message or a JSON round trip): typed arrays become arrays, missing optional lists become
 * empty.
 * @throws Error naming the field, e.g. `report.runs[2].startFrame: expected a number, got string`.
 */
export function readClipJson(value: unknown, where = 'report'): QaClipJson {
  const o = obj(value, where);
  const result = str(o, 'result', where);
  if (result !== 'Pass' && result !== 'Warning' && result !== 'Error')
    fail(`${where}.result`, `'${result}' is not Pass, Warning or Error`);
  const runsIn = o.runs === undefined ? [] : o.runs;
  if (!Array.isArray(runsIn)) fail(`${where}.runs`, 'expected an array');
  const runs = runsIn.map((r, i): QaRunJson => {
    const w = `${where}.runs[${i}]`;
    const ro = obj(r, w);
    const measure = str(ro, 'measure', w);
    if (!MEASURES.includes(measure))
      fail(`${w}.measure`, `'${measure}' is not one of ${MEASURES.join(', ')}`);
    const level = str(ro, 'level', w);
    if (level !== 'Warning' && level !== 'Error') fail(`${w}.level`, `'${level}' is not Warning or Error`);
    const extra: Pick<QaRunJson, 'causeCode' | 'severity'> = {};
    if (typeof ro.causeCode === 'string') extra.causeCode = ro.causeCode;
    if (typeof ro.severity === 'number' && Number.isFinite(ro.severity)) extra.severity = ro.severity;
    return {
      bone: str(ro, 'bone', w),
      measure: measure as QaMeasure,
      startFrame: num(ro, 'startFrame', w),
      endFrame: num(ro, 'endFrame', w),
      startSeconds: num(ro, 'startSeconds', w),
      endSeconds: num(ro, 'endSeconds', w),
      peak: num(ro, 'peak', w),
      peakFrame: num(ro, 'peakFrame', w),
      threshold: num(ro, 'threshold', w),
      level,
      cause: str(ro, 'cause', w),
      action: str(ro, 'action', w),
      message: str(ro, 'message', w),
      ...extra,
    };
  });
  const seriesIn = o.series === undefined ? [] : o.series;
  if (!Array.isArray(seriesIn)) fail(`${where}.series`, 'expected an array');
  const series = seriesIn.map((s, i): QaSeriesJson => {
    const w = `${where}.series[${i}]`;
    const so = obj(s, w);
    const tt = so.twistThresholdDeg;
    return {
      bone: str(so, 'bone', w),
      rotDeg: numbers(so, 'rotDeg', w),
      twistDeg: numbers(so, 'twistDeg', w),
      swingDeg: so.swingDeg === undefined ? [] : numbers(so, 'swingDeg', w),
      severity: numbers(so, 'severity', w),
      rotThresholdDeg: num(so, 'rotThresholdDeg', w),
      twistThresholdDeg: typeof tt === 'number' ? tt : null,
      ...(so.twistVelocityDegPerSec !== undefined
        ? { twistVelocityDegPerSec: numbers(so, 'twistVelocityDegPerSec', w) }
        : {}),
    };
  });
  const warnings = Array.isArray(o.warnings) ? o.warnings.map(String) : [];
  return {
    name: str(o, 'name', where),
    frames: num(o, 'frames', where),
    fps: num(o, 'fps', where),
    durationSeconds: num(o, 'durationSeconds', where),
    result,
    maxScore: num(o, 'maxScore', where),
    meanScore: num(o, 'meanScore', where),
    score: numbers(o, 'score', where),
    runs,
    series,
    warnings,
  };
}

/**
 * The sort key of a run: its `severity` as src/qa gives it (the peak of the bone's
 * `w * max(0, E / T - 1)` over the run); else the largest value of the bone's severity series over the
 * run's frames; else `peak / threshold - 1`.
 */
export function runSeverity(report: QaClipJson, run: QaRunJson): number {
  if (typeof run.severity === 'number' && Number.isFinite(run.severity)) return run.severity;
  const s = report.series.find((x) => x.bone === run.bone);
  let m = 0;
  if (s && s.severity.length > 0) {
    const end = Math.min(run.endFrame, s.severity.length - 1);
    for (let f = Math.max(0, run.startFrame); f <= end; f++) m = Math.max(m, s.severity[f]);
    if (m > 0) return m;
  }
  return run.threshold > 0 ? Math.max(0, run.peak / run.threshold - 1) : 0;
}

const LEVEL_RANK = { Error: 0, Warning: 1 } as const;

/**
 * Every flagged run of every evaluated clip, worst first: Error runs before Warning runs, then by
 * {@link runSeverity} (descending), then longer runs first, then clip order and frame.
 */
export function buildReviewQueue(clips: readonly QaClipEntry[]): QaQueueEntry[] {
  const q: QaQueueEntry[] = [];
  clips.forEach((c, clipIndex) => {
    if (!c.report) return;
    for (const r of c.report.runs)
      q.push({ rank: 0, clip: c.name, clipIndex, ...r, severity: runSeverity(c.report, r) });
  });
  q.sort(
    (a, b) =>
      LEVEL_RANK[a.level] - LEVEL_RANK[b.level] ||
      b.severity - a.severity ||
      b.endFrame - b.startFrame - (a.endFrame - a.startFrame) ||
      a.clipIndex - b.clipIndex ||
      a.startFrame - b.startFrame,
  );
  q.forEach((e, i) => {
    e.rank = i + 1;
  });
  return q;
}

/** Assemble qa.json from the evaluated pairs: overall result, counts and the review queue. */
export function buildQaFile(init: {
  mode: 'single' | 'batch';
  golden: string;
  retargeted: string;
  options: QaFile['options'];
  clips: QaClipEntry[];
  unpaired?: QaFile['unpaired'];
  notes?: string[];
}): QaFile {
  const counts = { clips: init.clips.length, pass: 0, warning: 0, error: 0, failed: 0 };
  for (const c of init.clips) {
    if (c.result === 'Pass') counts.pass++;
    else if (c.result === 'Warning') counts.warning++;
    else if (c.result === 'Error') counts.error++;
    else counts.failed++;
  }
  const result: QaResult | 'Failed' =
    counts.error > 0
      ? 'Error'
      : counts.failed > 0 || counts.clips === 0
        ? 'Failed'
        : counts.warning > 0
          ? 'Warning'
          : 'Pass';
  return {
    tool: 'kind qa',
    version: 1,
    mode: init.mode,
    golden: init.golden,
    retargeted: init.retargeted,
    options: init.options,
    result,
    counts,
    clips: init.clips,
    reviewQueue: buildReviewQueue(init.clips),
    unpaired: init.unpaired ?? { golden: [], retargeted: [] },
    notes: init.notes ?? [],
  };
}

/** Numbers of an array rounded to `digits` decimals (none: as they are), as JSON. */
function numberArrayJson(a: ArrayLike<number>, digits: number | undefined): string {
  if (digits === undefined) return JSON.stringify(Array.from(a));
  const p = 10 ** digits;
  const parts = new Array<string>(a.length);
  for (let i = 0; i < a.length; i++) {
    const v = a[i];
    parts[i] = Number.isFinite(v) ? String(Math.round(v * p) / p) : 'null';
  }
  return `[${parts.join(',')}]`;
}

/**
 * JSON text with 2-space indentation, except that an array of numbers stays on one line (the per-frame
 * series are long), its numbers rounded to `arrayDigits` decimals when given (single numbers are kept
 * as they are). Undefined object members are left out, as JSON.stringify does.
 */
export function prettyJson(value: unknown, indent = '', arrayDigits?: number): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    if (value.every((x) => typeof x === 'number')) return numberArrayJson(value, arrayDigits);
    const inner = `${indent}  `;
    return `[\n${value.map((x) => inner + prettyJson(x === undefined ? null : x, inner, arrayDigits)).join(',\n')}\n${indent}]`;
  }
  if (ArrayBuffer.isView(value)) return numberArrayJson(value as unknown as ArrayLike<number>, arrayDigits);
  if (typeof value === 'object' && value !== null) {
    const inner = `${indent}  `;
    const parts = Object.entries(value)
      .filter(([, v]) => v !== undefined && typeof v !== 'function')
      .map(([k, v]) => `${inner}${JSON.stringify(k)}: ${prettyJson(v, inner, arrayDigits)}`);
    return parts.length === 0 ? '{}' : `{\n${parts.join(',\n')}\n${indent}}`;
  }
  const t = JSON.stringify(value);
  return t === undefined ? 'null' : t;
}

/**
 * qa.json text (see {@link prettyJson}), ending with a newline. The per-frame arrays (score S, series
 * in degrees, severities) are rounded to 4 decimals, which keeps a long batch's file about half the
 * size; the figures of the runs (peak, threshold, seconds) are exact.
 */
export function qaFileToJson(file: QaFile): string {
  return `${prettyJson(file, '', 4)}\n`;
}
