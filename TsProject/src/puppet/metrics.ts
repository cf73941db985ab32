/**
 * Measures of the pose side (issue 12, item 8): jitter (mean joint acceleration), lag (delay of the filtered
 * joints behind a reference), position error, and a whole-recording run of the pipeline that keeps the
 * series. Engine-free; these allocate (they are for logs and tuning, not the per-frame path).
 */

import type { PoseOptions } from './options';
import { type PoseFrameReport, PosePipeline } from './pipeline';
import {
  copyJointSet,
  createJointSet,
  type JointSet,
  type JointState,
  type LandmarkRecording,
  PUPPET_JOINT_COUNT,
} from './types';

const J = PUPPET_JOINT_COUNT;

/**
 * A recording run through the pose pipeline ({@link runPipeline}), every frame kept: times, raw and filtered
 * joints, states, body scale.
 */
export interface PipelineRun {
  /** Frame times, ms. */
  timesMs: Float64Array;
  /** Joints before smoothing (PoseFrameReport.rawJoints), one copy per frame. */
  raw: JointSet[];
  /** Pipeline output per frame. */
  filtered: JointSet[];
  /** Per frame: person found, visibility unknown, joints per state. */
  frames: { personFound: boolean; visibilityUnknown: boolean; counts: Record<JointState, number> }[];
  /** Median of the running body scale over the frames that had one (pose-space units per torso length). */
  bodyScale: number;
  space: 'image' | 'world';
  /** Outliers dropped by the filter over the run. */
  outliers: number;
}

function copyJoints(src: JointSet): JointSet {
  const c = createJointSet();
  copyJointSet(c, src);
  return c;
}

function median(xs: number[]): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Run a PosePipeline over a whole recording, keeping every frame's raw and filtered joints. */
export function runPipeline(rec: LandmarkRecording, options: Partial<PoseOptions> = {}): PipelineRun {
  const p = new PosePipeline(options, rec.image);
  const out = createJointSet();
  const run: PipelineRun = {
    timesMs: new Float64Array(rec.frames.length),
    raw: [],
    filtered: [],
    frames: [],
    bodyScale: 0,
    space: 'image',
    outliers: 0,
  };
  const scales: number[] = [];
  rec.frames.forEach((f, i) => {
    const r: PoseFrameReport = p.step(f, out);
    run.timesMs[i] = f.timestampMs;
    run.raw.push(copyJoints(r.rawJoints));
    run.filtered.push(copyJoints(out));
    run.frames.push({
      personFound: r.personFound,
      visibilityUnknown: r.visibilityUnknown,
      counts: { ...r.counts },
    });
    if (r.bodyScale > 0) scales.push(r.bodyScale);
    run.space = r.space;
  });
  run.bodyScale = median(scales);
  run.outliers = p.filter.outliers;
  return run;
}

/** Which joints and frames {@link jitter} and {@link lagMs} measure, and in what unit. */
export interface SeriesOptions {
  /** Divide distances by this (e.g. PipelineRun.bodyScale) to get body-scale units; default 1 (pose-space units). */
  bodyScale?: number;
  /** Joints to include (indices into PUPPET_JOINTS); default all 21. */
  joints?: readonly number[];
  /** Include a joint at a sample only when its confidence is at least this in every frame used; default 0. */
  minConfidence?: number;
  /**
   * Take the confidences that `minConfidence` tests from this series (same frames) instead of the measured
   * one: jitter before and after smoothing over the same joint-frames (pass the raw joints for both; a
   * held joint keeps a confidence above the threshold after smoothing while its raw value is below it).
   */
  confidenceFrom?: readonly JointSet[];
}

const ALL = Array.from({ length: J }, (_, i) => i);

/**
 * Jitter: the mean magnitude of the joints' acceleration, the second difference over non-uniform times
 * a = 2 ((p2 - p1) / dt2 - (p1 - p0) / dt1) / (dt1 + dt2), averaged over joints and frame triplets.
 * Units: pose-space units / s^2 (pixels or metres), or body scales / s^2 when `bodyScale` is given.
 * Real motion accelerates too: compare before and after smoothing on the same motion.
 * @returns the mean, or 0 when no triplet qualifies.
 */
export function jitter(
  series: readonly JointSet[],
  timesMs: ArrayLike<number>,
  o: SeriesOptions = {},
): number {
  const joints = o.joints ?? ALL;
  const minC = o.minConfidence ?? 0;
  const s = o.bodyScale ?? 1;
  let sum = 0;
  let n = 0;
  for (let f = 1; f + 1 < series.length; f++) {
    const dt1 = (timesMs[f] - timesMs[f - 1]) / 1000;
    const dt2 = (timesMs[f + 1] - timesMs[f]) / 1000;
    if (!(dt1 > 0 && dt2 > 0)) continue;
    const a = series[f - 1];
    const b = series[f];
    const c = series[f + 1];
    const ref = o.confidenceFrom;
    const ca = ref ? ref[f - 1].confidence : a.confidence;
    const cb = ref ? ref[f].confidence : b.confidence;
    const cc = ref ? ref[f + 1].confidence : c.confidence;
    for (const j of joints) {
      if (ca[j] < minC || cb[j] < minC || cc[j] < minC) continue;
      const ax = (2 * ((c.x[j] - b.x[j]) / dt2 - (b.x[j] - a.x[j]) / dt1)) / (dt1 + dt2);
      const ay = (2 * ((c.y[j] - b.y[j]) / dt2 - (b.y[j] - a.y[j]) / dt1)) / (dt1 + dt2);
      sum += Math.hypot(ax, ay) / s;
      n++;
    }
  }
  return n > 0 ? sum / n : 0;
}

/** Options of {@link lagMs}: the series options plus the delays tried. */
export interface LagOptions extends SeriesOptions {
  /** Largest delay tried, ms (default 1000). */
  maxLagMs?: number;
  /** Resolution, ms (default 1). */
  stepMs?: number;
}

function interp(
  series: readonly JointSet[],
  t: ArrayLike<number>,
  tq: number,
  j: number,
  k: { f: number },
): [number, number] {
  while (k.f + 1 < t.length - 1 && t[k.f + 1] <= tq) k.f++;
  const f = k.f;
  const t0 = t[f];
  const t1 = t[f + 1];
  const u = t1 > t0 ? Math.min(1, Math.max(0, (tq - t0) / (t1 - t0))) : 0;
  const a = series[f];
  const b = series[f + 1];
  return [a.x[j] + u * (b.x[j] - a.x[j]), a.y[j] + u * (b.y[j] - a.y[j])];
}

/**
 * Lag of `filtered` behind `reference` (raw or clean joints at the same times): the delay d in [0, maxLagMs]
 * that best aligns them in the least-squares sense, minimising sum_t |filtered(t) - reference(t - d)|^2 with
 * the reference linearly interpolated in time (for signals of equal energy the same d maximises their
 * cross-correlation). Per joint, and pooled over the joints.
 * @returns lagMs (pooled) and perJoint (NaN for joints not included).
 */
export function lagMs(
  filtered: readonly JointSet[],
  reference: readonly JointSet[],
  timesMs: ArrayLike<number>,
  o: LagOptions = {},
): { lagMs: number; perJoint: Float64Array } {
  const joints = o.joints ?? ALL;
  const minC = o.minConfidence ?? 0;
  const maxLag = o.maxLagMs ?? 1000;
  const step = o.stepMs ?? 1;
  const n = Math.min(filtered.length, reference.length);
  const perJoint = new Float64Array(J).fill(Number.NaN);
  // fewer than two frames: no delay can be measured
  if (n < 2) return { lagMs: Number.NaN, perJoint };
  const nd = Math.floor(maxLag / step) + 1;
  const pooled = new Float64Array(nd);
  const pooledN = new Float64Array(nd);
  const errs = new Float64Array(nd);
  for (const j of joints) {
    errs.fill(0);
    for (let di = 0; di < nd; di++) {
      const d = di * step;
      const k = { f: 0 };
      let e = 0;
      let cnt = 0;
      for (let f = 0; f < n; f++) {
        const tq = timesMs[f] - d;
        if (tq < timesMs[0]) continue;
        if (filtered[f].confidence[j] < minC || reference[f].confidence[j] < minC) continue;
        const [rx, ry] = interp(reference, timesMs, tq, j, k);
        const dx = filtered[f].x[j] - rx;
        const dy = filtered[f].y[j] - ry;
        e += dx * dx + dy * dy;
        cnt++;
      }
      errs[di] = cnt > 0 ? e / cnt : Number.POSITIVE_INFINITY;
      if (cnt > 0) {
        pooled[di] += e;
        pooledN[di] += cnt;
      }
    }
    let best = 0;
    for (let di = 1; di < nd; di++) if (errs[di] < errs[best]) best = di;
    perJoint[j] = best * step;
  }
  let best = -1;
  let bestE = Number.POSITIVE_INFINITY;
  for (let di = 0; di < nd; di++) {
    if (pooledN[di] === 0) continue;
    const e = pooled[di] / pooledN[di];
    if (e < bestE) {
      bestE = e;
      best = di;
    }
  }
  return { lagMs: best < 0 ? Number.NaN : best * step, perJoint };
}

/**
 * Root-mean-square distance between two series at the same frames, over the included joints; in
 * pose-space units, or body scales when `bodyScale` is given.
 */
export function rmsError(a: readonly JointSet[], b: readonly JointSet[], o: SeriesOptions = {}): number {
  const joints = o.joints ?? ALL;
  const s = o.bodyScale ?? 1;
  let e = 0;
  let n = 0;
  for (let f = 0; f < Math.min(a.length, b.length); f++) {
    for (const j of joints) {
      const dx = (a[f].x[j] - b[f].x[j]) / s;
      const dy = (a[f].y[j] - b[f].y[j]) / s;
      e += dx * dx + dy * dy;
      n++;
    }
  }
  return n > 0 ? Math.sqrt(e / n) : 0;
}
