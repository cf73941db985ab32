/**
 * Guards of the foot-slide cleanup (issue 20, item 6). Engine-free; set-up and report time code
 * (allocates its results).
 *
 * - {@link splitTravellingSegments}: a detected contact whose source ankle moves more than
 *   `maxTravel` (horizontally, perpendicular to the floor normal) from the contact's anchor is not a
 *   foot at rest there: those frames are cut out of the segment (the contact is shortened, or split in
 *   two), each remaining piece gets its own anchor (and is checked again), pieces shorter than
 *   `minFrames` are dropped, and every frame cut goes to the review list with reason `travel` and the
 *   distance. So no contact segment survives whose source ankle strays more than `maxTravel` from
 *   where it is pinned, and no pin pulls the foot farther than that (e.g. the learned contacts on CMU
 *   02_03 at 25 fps spanned a 1.1 m swing).
 * - {@link jointShiftRanges}: the frame ranges where the cleaned leg joints (hip, knee, ankle, toe) lie
 *   more than a stated distance from the source's: reason `jointShift`, with the joint and distance.
 */
import type { SegmentAnchor } from './anchors';
import { horizontalDistance } from './floor';
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

/**
 * Cut the frames of each contact segment whose source ankle is farther than `maxTravel` metres
 * (horizontally) from the segment's anchor (see the module doc). A piece left over is anchored again
 * by `anchorOf` and checked again (at most three rounds; in the last, far frames are cut without a new
 * anchor). Pieces shorter than `minFrames` are dropped.
 * @param anchorOf the anchor of a frame range (anchors.ts `segmentAnchor` with the cleanup's floor).
 * @returns the surviving segments (sorted, each with its anchor) and one `travel` review range per run
 *   of frames cut, with the largest distance of the source ankle from the anchor it had.
 */
export function splitTravellingSegments(
  track: LegTrack,
  segments: readonly FrameRange[],
  floor: FloorEstimate,
  maxTravel: number,
  minFrames: number,
  anchorOf: (range: FrameRange) => SegmentAnchor,
): { segments: SegmentAnchor[]; review: ReviewRange[] } {
  const kept: SegmentAnchor[] = [];
  const F = track.ankle.length / 3;
  const cut = new Uint8Array(F);
  const dist = new Float64Array(F);
  const visit = (a: SegmentAnchor, round: number) => {
    let far = 0;
    for (let t = a.start; t < a.end; t++) {
      dist[t] = horizontalDistance(floor, track.ankle, 3 * t, a.anchor, 0);
      if (dist[t] > maxTravel) far++;
    }
    if (far === 0) {
      kept.push(a);
      return;
    }
    let s = -1;
    for (let t = a.start; t <= a.end; t++) {
      const near = t < a.end && dist[t] <= maxTravel;
      if (near && s < 0) s = t;
      if (!near && t < a.end) cut[t] = 1;
      if (!near && s >= 0) {
        if (t - s < minFrames) cut.fill(1, s, t);
        else if (round < 2) visit(anchorOf({ start: s, end: t }), round + 1);
        else kept.push({ ...a, start: s, end: t });
        s = -1;
      }
    }
  };
  for (const s of segments) visit(anchorOf(s), 0);
  kept.sort((x, y) => x.start - y.start);
  const review: ReviewRange[] = rangesOf(cut).map((r) => {
    let m = 0;
    for (let t = r.start; t < r.end; t++) m = Math.max(m, dist[t]);
    return {
      ...r,
      reason: 'travel',
      detail: `the source ankle moves up to ${cm(m)} cm from the contact's anchor here (more than ${cm(maxTravel)} cm): not a foot at rest, not pinned`,
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
