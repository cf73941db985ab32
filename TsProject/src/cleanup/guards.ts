/**
 * Guards of the foot-slide cleanup (issue 20, item 6). Engine-free; set-up and report time code
 * (allocates its results).
 *
 * - {@link splitTravellingSegments}: a detected contact inside which the source ankle travels more
 *   than `maxTravel` (its horizontal extent, perpendicular to the floor normal) is not one foot at rest:
 *   its fastest-moving frames are cut out until every piece left stays within `maxTravel` (the contact
 *   is shortened, or split where the foot moved), each piece gets its own anchor, pieces shorter than
 *   `minFrames` are dropped, and every frame cut goes to the review list with reason `travel` and the
 *   distance. So no contact segment survives whose source ankle travels more than `maxTravel` inside
 *   it (e.g. the learned contacts on CMU 02_03 at 25 fps spanned a 1.1 m swing).
 * - {@link jointShiftRanges}: the frame ranges where the cleaned leg joints (hip, knee, ankle, toe) lie
 *   more than a stated distance from the source's: reason `jointShift`, with the joint and distance.
 */
import type { SegmentAnchor } from './anchors';
import { floorBasis } from './floor';
import type { LegTrack } from './tracks';
import type { FloorEstimate, FootName, FrameRange, ReviewRange } from './types';

/** Maximal runs of frames where `mask[f]` is non-zero, `[start, end)`, sorted. */
export function rangesOf(mask: ArrayLike<number>): FrameRange[] {
  const out: FrameRange[] = [];
  let start = -1;
  for (let f = 0; f <= mask.length; f++) {
    const on = f < mask.length && mask[f] !== 0;
    if (on && start < 0) start = f;
    else if (!on && start >= 0) {
      out.push({ start, end: f });
      start = -1;
    }
  }
  return out;
}

const cm = (m: number) => (m * 100).toFixed(1);

/** Directions in the floor plane over which the extent is measured (every 11.25 degrees). */
const DIRECTIONS = 16;

/**
 * Cut each contact segment until the source ankle's horizontal extent inside every piece is at most
 * `maxTravel` metres (see the module doc): while a piece's extent is larger, its frame with the fastest
 * horizontal ankle motion (central difference; of frames as fast within 0.1%, the one nearest an end of
 * the piece) is cut and the two sides are checked on their own.
 * The extent is the largest spread of the ankle's positions projected on 16 directions of the floor
 * plane, every 11.25 degrees, divided by cos(5.625 degrees) (so never below the largest distance
 * between two of them, and at most 0.5% above it). Pieces shorter
 * than `minFrames` are dropped. Set-up time; O(16 n) per cut.
 * @param anchorOf the anchor of a kept frame range (anchors.ts `segmentAnchor` with the cleanup's floor).
 * @returns the surviving segments with their anchors (sorted) and one `travel` review range per run of
 *   frames cut, naming the extent of the contact it was cut from.
 */
export function splitTravellingSegments(
  track: LegTrack,
  segments: readonly FrameRange[],
  floor: FloorEstimate,
  maxTravel: number,
  minFrames: number,
  anchorOf: (range: FrameRange) => SegmentAnchor,
): { segments: SegmentAnchor[]; review: ReviewRange[] } {
  const F = track.ankle.length / 3;
  const { e1, e2 } = floorBasis(floor);
  const a = track.ankle;
  const u = new Float64Array(F);
  const v = new Float64Array(F);
  for (let f = 0; f < F; f++) {
    u[f] = e1[0] * a[3 * f] + e1[1] * a[3 * f + 1] + e1[2] * a[3 * f + 2];
    v[f] = e2[0] * a[3 * f] + e2[1] * a[3 * f + 1] + e2[2] * a[3 * f + 2];
  }
  const speed = (f: number) => {
    const f0 = Math.max(0, f - 1);
    const f1 = Math.min(F - 1, f + 1);
    return Math.hypot(u[f1] - u[f0], v[f1] - v[f0]) / Math.max(1, f1 - f0);
  };
  const extent = (s: number, e: number) => {
    let best = 0;
    for (let k = 0; k < DIRECTIONS; k++) {
      const c = Math.cos((k * Math.PI) / DIRECTIONS);
      const sn = Math.sin((k * Math.PI) / DIRECTIONS);
      let lo = Number.POSITIVE_INFINITY;
      let hi = Number.NEGATIVE_INFINITY;
      for (let f = s; f < e; f++) {
        const p = c * u[f] + sn * v[f];
        if (p < lo) lo = p;
        if (p > hi) hi = p;
      }
      if (hi - lo > best) best = hi - lo;
    }
    return best;
  };
  const kept: SegmentAnchor[] = [];
  const cut = new Uint8Array(F);
  const spread = new Float64Array(F);
  for (const seg of segments) {
    const whole = extent(seg.start, seg.end);
    const stack: FrameRange[] = [{ start: seg.start, end: seg.end }];
    while (stack.length > 0) {
      const r = stack.pop() as FrameRange;
      if (r.end - r.start < minFrames) {
        cut.fill(1, r.start, r.end);
        spread.fill(whole, r.start, r.end);
        continue;
      }
      // the true extent is at most the sampled one / cos(pi / 32) (the nearest sampled direction is within
      // half the 11.25 degree spacing of the farthest pair's)
      if (extent(r.start, r.end) <= maxTravel * Math.cos(Math.PI / (2 * DIRECTIONS))) {
        kept.push(anchorOf(r));
        continue;
      }
      // the fastest frame; among frames as fast within 0.1% (a steady slide), the one nearest an end of
      // the piece (the earlier on a tie), so float noise does not pick the frame and the middle is kept
      let top = 0;
      for (let f = r.start; f < r.end; f++) top = Math.max(top, speed(f));
      let t = -1;
      for (let f = r.start; f < r.end; f++) {
        if (speed(f) < top * (1 - 1e-3)) continue;
        const edge = Math.min(f - r.start, r.end - 1 - f);
        if (t < 0 || edge < Math.min(t - r.start, r.end - 1 - t)) t = f;
      }
      cut[t] = 1;
      spread[t] = whole;
      stack.push({ start: r.start, end: t }, { start: t + 1, end: r.end });
    }
  }
  kept.sort((x, y) => x.start - y.start);
  const review: ReviewRange[] = rangesOf(cut).map((r) => {
    let m = 0;
    for (let t = r.start; t < r.end; t++) m = Math.max(m, spread[t]);
    return {
      ...r,
      reason: 'travel',
      detail: `the source ankle travels ${cm(m)} cm inside this contact (more than ${cm(maxTravel)} cm): its fastest frames are not pinned`,
    };
  });
  return { segments: kept, review };
}

const JOINT_NAMES = ['hip', 'knee', 'ankle', 'toe'] as const;

/** Largest distance of the leg joints (hip, knee, ankle, toe) between two tracks at frame f, and which joint. */
export function legJointShift(a: LegTrack, b: LegTrack, f: number): { shift: number; joint: number } {
  const o = 3 * f;
  let best = 0;
  let joint = 0;
  const arrays = [a.hip, a.knee, a.ankle, a.toe];
  const brrays = [b.hip, b.knee, b.ankle, b.toe];
  for (let j = 0; j < 4; j++) {
    const p = arrays[j];
    const q = brrays[j];
    if (!p || !q) continue;
    const d = Math.hypot(p[o] - q[o], p[o + 1] - q[o + 1], p[o + 2] - q[o + 2]);
    if (d > best) {
      best = d;
      joint = j;
    }
  }
  return { shift: best, joint };
}

/**
 * Frame ranges where the cleanup moves a leg joint (hip, knee, ankle or toe) more than `threshold`
 * metres from the source: reason `jointShift`, the detail names the joint that moved most and how far.
 */
export function jointShiftRanges(
  before: LegTrack,
  after: LegTrack,
  threshold: number,
  foot: FootName,
): ReviewRange[] {
  const F = before.ankle.length / 3;
  const over = new Uint8Array(F);
  for (let f = 0; f < F; f++) if (legJointShift(before, after, f).shift > threshold) over[f] = 1;
  return rangesOf(over).map((r) => {
    let m = 0;
    let joint = 0;
    for (let f = r.start; f < r.end; f++) {
      const s = legJointShift(before, after, f);
      if (s.shift > m) {
        m = s.shift;
        joint = s.joint;
      }
    }
    return {
      ...r,
      reason: 'jointShift',
      detail: `the cleanup moves the ${foot} ${JOINT_NAMES[joint]} up to ${cm(m)} cm from the source (review above ${cm(threshold)} cm)`,
    };
  });
}
