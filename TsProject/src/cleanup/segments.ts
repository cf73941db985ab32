/**
 * Contact segments from per-frame contact probabilities (issue 11, point 4). Engine-free; set-up time
 * code (allocates its result).
 *
 * Steps, in order:
 * 1. Hysteresis: a segment starts at the first frame with `P >= enter` (0.7) and ends (exclusive) at
 *    the first later frame with `P <= exit` (0.3).
 * 2. Gaps of at most `maxGap` frames between two segments are merged (3 frames at 60 fps, scaled with
 *    the frame rate: `round(3 * fps / 60)`, at least 1).
 * 3. Review: runs of at least `reviewMinFrames` frames (`round(3 * fps / 60)`, at least 2) whose
 *    probability stays inside the review band (0.45-0.65) are listed for a person and cut out of the
 *    segments: they are not fixed automatically.
 * 4. Segments shorter than `minFrames` (5 frames at 60 fps, `round(5 * fps / 60)`, at least 1) are
 *    dropped: not fixed, and listed as `short` so that no detected contact vanishes unreported (a blip,
 *    or what a review cut left of a contact).
 */
import { CleanupError, type FrameRange } from './types';

/**
 * How probabilities become contact segments: hysteresis thresholds, review band, shortest contact and gap.
 */
export interface SegmentOptions {
  /** Start threshold. Default 0.7. */
  enter?: number;
  /** End threshold. Default 0.3. */
  exit?: number;
  /** Review band `[low, high]`. Default `[0.45, 0.65]`. */
  reviewBand?: [number, number];
  /** Minimum segment length in frames at 60 fps (scaled with the rate). Default 5. */
  minFrames60?: number;
  /** Largest merged gap in frames at 60 fps (scaled with the rate). Default 3. */
  maxGap60?: number;
  /** Shortest review run in frames at 60 fps (scaled with the rate). Default 3. */
  reviewFrames60?: number;
}

/**
 * Contact segments of one probability series, with the ranges left for review and the pieces too short to
 * pin.
 */
export interface SegmentResult {
  /** Contact segments, sorted, disjoint, end exclusive. */
  segments: FrameRange[];
  /** Frame ranges left for review (probability stayed in the review band). */
  review: FrameRange[];
  /** Contact pieces shorter than `minFrames` (step 4): detected, not fixed. Sorted, end exclusive. */
  short: FrameRange[];
  /** The frame counts actually used at this rate. */
  minFrames: number;
  maxGap: number;
  reviewFrames: number;
}

/** Frames at this rate for a count given at 60 fps: `round(n60 * fps / 60)`, at least `least`. */
export function framesAtRate(n60: number, frameTime: number, least = 1): number {
  return Math.max(least, Math.round((n60 / 60 / frameTime) * (1 + 1e-9)));
}

/**
 * Segments and review ranges of one foot (see the module doc).
 * @param probability contact probability per frame, in [0, 1].
 * @param frameTime seconds per frame.
 * @throws CleanupError on a non-finite or out-of-range probability (names the frame) or bad thresholds.
 */
export function contactSegments(
  probability: ArrayLike<number>,
  frameTime: number,
  options: SegmentOptions = {},
): SegmentResult {
  const enter = options.enter ?? 0.7;
  const exit = options.exit ?? 0.3;
  const [rlo, rhi] = options.reviewBand ?? [0.45, 0.65];
  if (!(exit < enter))
    throw new CleanupError(`segments: exit threshold ${exit} must be below enter ${enter}`);
  if (!(rlo <= rhi) || !(rlo >= 0) || !(rhi <= 1))
    throw new CleanupError(`segments: review band [${rlo}, ${rhi}] must be an ordered pair inside [0, 1]`);
  if (!(frameTime > 0)) throw new CleanupError(`segments: frameTime ${frameTime} must be positive`);
  const minFrames = framesAtRate(options.minFrames60 ?? 5, frameTime, 1);
  const maxGap = framesAtRate(options.maxGap60 ?? 3, frameTime, 1);
  const reviewFrames = framesAtRate(options.reviewFrames60 ?? 3, frameTime, 2);
  const n = probability.length;
  for (let t = 0; t < n; t++) {
    const p = probability[t];
    if (!(p >= 0 && p <= 1)) throw new CleanupError(`probability[${t}] = ${p}: need a number in [0, 1]`);
  }
  // 1. hysteresis
  let segs: FrameRange[] = [];
  let start = -1;
  for (let t = 0; t < n; t++) {
    const p = probability[t];
    if (start < 0) {
      if (p >= enter) start = t;
    } else if (p <= exit) {
      segs.push({ start, end: t });
      start = -1;
    }
  }
  if (start >= 0) segs.push({ start, end: n });
  // 2. merge short gaps
  const merged: FrameRange[] = [];
  for (const s of segs) {
    const last = merged[merged.length - 1];
    if (last && s.start - last.end <= maxGap) last.end = s.end;
    else merged.push({ ...s });
  }
  segs = merged;
  // 3. review runs, cut out of the segments
  const review: FrameRange[] = [];
  let r0 = -1;
  for (let t = 0; t <= n; t++) {
    const inBand = t < n && probability[t] >= rlo && probability[t] <= rhi;
    if (inBand && r0 < 0) r0 = t;
    else if (!inBand && r0 >= 0) {
      if (t - r0 >= reviewFrames) review.push({ start: r0, end: t });
      r0 = -1;
    }
  }
  for (const r of review) {
    const next: FrameRange[] = [];
    for (const s of segs) {
      if (s.end <= r.start || s.start >= r.end) next.push(s);
      else {
        if (s.start < r.start) next.push({ start: s.start, end: r.start });
        if (s.end > r.end) next.push({ start: r.end, end: s.end });
      }
    }
    segs = next;
  }
  // 4. drop short segments (reported)
  const short = segs.filter((s) => s.end - s.start < minFrames);
  segs = segs.filter((s) => s.end - s.start >= minFrames);
  return { segments: segs, review, short, minFrames, maxGap, reviewFrames };
}

/**
 * Per-frame correction weight of one foot and the segment each frame belongs to: 1 inside a segment,
 * smoothstep `w(u) = 3u^2 - 2u^3` ramps over up to `blend` frames before each start and after each end
 * (shortened to half the gap when two segments are close, so a ramp always falls to 0 before the next
 * one begins: the anchor never switches under a weight > 0.5), 0 elsewhere. Frame `start - k`
 * (k = 1..b) has `w = smoothstep(1 - k / (b + 1))`; frame `end - 1 + k` likewise.
 * @returns `weight` (`Float32Array(frameCount)`) and `segment` (`Int32Array(frameCount)`, index into
 *   `segments`, -1 where the weight is 0).
 */
export function segmentWeights(
  segments: readonly FrameRange[],
  frameCount: number,
  blend: number,
): { weight: Float32Array; segment: Int32Array } {
  const weight = new Float32Array(frameCount);
  const segment = new Int32Array(frameCount).fill(-1);
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i];
    const gapBefore = i > 0 ? s.start - segments[i - 1].end : Number.POSITIVE_INFINITY;
    const gapAfter = i + 1 < segments.length ? segments[i + 1].start - s.end : Number.POSITIVE_INFINITY;
    const bIn = Math.min(blend, Math.floor(gapBefore / 2));
    const bOut = Math.min(blend, Math.floor(gapAfter / 2));
    for (let t = s.start; t < s.end; t++) {
      weight[t] = 1;
      segment[t] = i;
    }
    for (let k = 1; k <= bIn && s.start - k >= 0; k++) {
      weight[s.start - k] = smoothstep(1 - k / (bIn + 1));
      segment[s.start - k] = i;
    }
    for (let k = 1; k <= bOut && s.end - 1 + k < frameCount; k++) {
      weight[s.end - 1 + k] = smoothstep(1 - k / (bOut + 1));
      segment[s.end - 1 + k] = i;
    }
  }
  return { weight, segment };
}

/** Smoothstep `w(u) = 3u^2 - 2u^3` on [0, 1] (clamped outside). */
export function smoothstep(u: number): number {
  const x = u < 0 ? 0 : Math.min(u, 1);
  return x * x * (3 - 2 * x);
}
