/**
 * Which point of a foot is pinned, and where, at every frame (issue 20, items 1 and 2). Engine-free;
 * set-up time code (allocates its result).
 *
 * Input: the heel segments (contact of the heel, i.e. the ankle joint) and the toe segments (contact of
 * the toe point: the toe joint, or the virtual toe of ./toePoint.ts) of one foot, each from its own
 * probability channel (./segments.ts).
 * 1. Pinned point per frame: the heel wherever the heel is in contact (heel strike, flat foot: the
 *    ankle is pinned, as before issue 20); else the toe where the toe is in contact (heel-off, tiptoe, a
 *    kick's support: the toe is pinned and the ankle rotates about it, ./toePivot.ts). A gap of at most
 *    `maxGap` frames between a heel run and a toe run (never one holding a review frame) is pinned as
 *    the run before it.
 * 2. Stances: the maximal runs of pinned frames (the union of heel and toe contact, gaps filled). Each
 *    stance has one ground level and one lift (./anchors.ts `segmentAnchor` over the stance), so the
 *    target height never steps inside it; a stance made of heel contact only is exactly the segment
 *    and anchor of the per-foot cleanup before issue 20.
 * 3. Pin runs: the runs of one pinned point inside a stance. The first run's anchor is the median of
 *    its point over its own contact segment (./anchors.ts, stable frames only). Every later run is
 *    chained to the one before it, so that nothing steps when the pinned point changes: at the switch
 *    frame s, the new point's anchor is the previous anchor plus the source's horizontal vector from
 *    the previous point to the new one at frame s - 1 (heel -> toe: `T = A + (toe - ankle)(s - 1)`;
 *    toe -> heel: `A = T + (ankle - toe)(s - 1)`), which is where the new point already stands in the
 *    output at s - 1 (the foot keeps its source rotation), so it stays there.
 * 4. A stance of several runs is then centred as one: all its anchors move by the same horizontal
 *    vector, minus the median over the stance's frames of the correction the pins ask for (anchor -
 *    source point), as a one-segment stance's median anchor is centred: a long stance of a drifting take
 *    is not pinned where it began (a standing take with 5 cm/s of root drift ended 93 cm from its first
 *    anchor). The chain's relative vectors, and so the continuity at each switch, are kept.
 */
import { type SegmentAnchor, segmentAnchor } from './anchors';
import { floorBasis, floorHeight } from './floor';
import type { LegTrack } from './tracks';
import type { FloorEstimate, FrameRange } from './types';

/** Pinned point codes per frame. */
export const PIN_NONE = 0;
export const PIN_HEEL = 1;
export const PIN_TOE = 2;

export type PinPoint = 'heel' | 'toe';

/** One run of one pinned point inside a stance. */
export interface PinRun extends FrameRange {
  point: PinPoint;
  /** The pinned point's anchor, world metres (ankle for the heel, the toe point for the toe). */
  anchor: [number, number, number];
  /** Height of the anchor above the global floor, metres (the point's median height minus the lift). */
  height: number;
  /** The stance's ground level and lift (./anchors.ts). */
  ground: number;
  lift: number;
  /** Index of its stance. */
  stance: number;
  /** 'median': the point's median over its own segment; 'chained': from the run before it (step 3). */
  from: 'median' | 'chained';
}

/** A contact segment of one point (heel or toe channel) with the anchor it was pinned to. */
export interface PointSegment extends FrameRange {
  /** The anchor of the point's first pinned run in the segment (or its median when never pinned), metres. */
  anchor: [number, number, number];
  /** Frames of the segment where this point is the one pinned. */
  pinnedFrames: number;
}

export interface FootPinPlan {
  /** Union contact segments (step 2), sorted, with the ankle anchor of their first heel run (or the ankle's median). */
  stances: SegmentAnchor[];
  /** Pin runs (step 3), sorted. */
  runs: PinRun[];
  /** Per frame: PIN_NONE, PIN_HEEL or PIN_TOE (`Uint8Array(frameCount)`). */
  pin: Uint8Array;
  /** The heel and toe segments with their anchors. */
  heel: PointSegment[];
  toe: PointSegment[];
}

function place(floor: FloorEstimate, p: ArrayLike<number>, height: number): [number, number, number] {
  const n = floor.normal;
  const k = floorHeight(floor, p, 0) - height;
  return [p[0] - k * n[0], p[1] - k * n[1], p[2] - k * n[2]];
}

function medianOf(xs: number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : 0.5 * (s[m - 1] + s[m]);
}

/**
 * The pin plan of one foot (see the module doc).
 * @param track the foot's source leg track (ankle, toe joint or null).
 * @param toePoint the toe point per frame (`Float64Array(3 * frameCount)`), or null: no toe pins.
 * @param heel heel contact segments, sorted, disjoint, end exclusive.
 * @param toe toe contact segments, likewise (ignored without `toePoint`).
 * @param stepTolerance metres (./anchors.ts).
 * @param maxGap frames: gaps up to this between a heel run and a toe run are filled.
 * @param noFill per frame, 1 where a gap may not be filled (review frames).
 */
export function planFootPins(
  track: LegTrack,
  toePoint: Float64Array | null,
  heel: readonly FrameRange[],
  toe: readonly FrameRange[],
  frameCount: number,
  floor: FloorEstimate,
  stepTolerance: number,
  maxGap: number,
  noFill: Uint8Array,
): FootPinPlan {
  const F = frameCount;
  const pin = new Uint8Array(F);
  const heelOf = new Int32Array(F).fill(-1);
  const toeOf = new Int32Array(F).fill(-1);
  heel.forEach((s, i) => {
    heelOf.fill(i, s.start, s.end);
    pin.fill(PIN_HEEL, s.start, s.end);
  });
  if (toePoint)
    toe.forEach((s, i) => {
      toeOf.fill(i, s.start, s.end);
      for (let f = s.start; f < s.end; f++) if (pin[f] === PIN_NONE) pin[f] = PIN_TOE;
    });
  // 1. fill short gaps between a heel run and a toe run with the run before (never a review frame)
  let f = 0;
  while (f < F) {
    if (pin[f] !== PIN_NONE) {
      f++;
      continue;
    }
    let g = f;
    let review = false;
    for (; g < F && pin[g] === PIN_NONE; g++) if (noFill[g] === 1) review = true;
    if (f > 0 && g < F && g - f <= maxGap && pin[f - 1] !== pin[g] && !review) pin.fill(pin[f - 1], f, g);
    f = g;
  }
  const toeTrack: LegTrack | null = toePoint
    ? { hip: track.hip, knee: track.knee, ankle: toePoint, toe: null }
    : null;
  const ctx: PinContext = { track, toePoint, toeTrack, heel, toe, heelOf, toeOf, pin, floor, stepTolerance };
  const stances: SegmentAnchor[] = [];
  const runs: PinRun[] = [];
  f = 0;
  while (f < F) {
    if (pin[f] === PIN_NONE) {
      f++;
      continue;
    }
    const start = f;
    while (f < F && pin[f] !== PIN_NONE) f++;
    const stance = segmentAnchor(track, { start, end: f }, floor, stepTolerance);
    const si = stances.length;
    stances.push(stance);
    stanceRuns(ctx, stance, si, start, f, runs);
    // 4. a stance of several runs is centred as one: its chain is shifted so that the median over the
    // stance of the horizontal correction (anchor - source point) is 0 (a long stance on a drifting take
    // is not pinned where it began)
    const first0 = runs.findIndex((r) => r.stance === si);
    if (runs.length - first0 > 1) centreChain(runs, first0, track, toePoint, floor);
    // the union segment's ankle anchor: its first heel run's, else the ankle's median (a toe-only stance)
    const h = runs.find((r) => r.stance === si && r.point === 'heel');
    if (h && h.anchor !== stance.anchor) {
      stance.anchor = h.anchor;
      stance.ankleHeight = h.height;
    }
  }
  const pointSegments = (segs: readonly FrameRange[], point: PinPoint): PointSegment[] =>
    segs.map((s) => {
      let pinned = 0;
      const code = point === 'heel' ? PIN_HEEL : PIN_TOE;
      for (let k = s.start; k < s.end; k++) if (pin[k] === code) pinned++;
      const r = runs.find((x) => x.point === point && x.end > s.start && x.start < s.end);
      let anchor: [number, number, number];
      if (r) anchor = [r.anchor[0], r.anchor[1], r.anchor[2]];
      else {
        const tr = point === 'heel' ? track : (toeTrack as LegTrack);
        anchor = segmentAnchor(tr, s, floor, stepTolerance).anchor;
      }
      return { start: s.start, end: s.end, anchor, pinnedFrames: pinned };
    });
  return {
    stances,
    runs,
    pin,
    heel: pointSegments(heel, 'heel'),
    toe: toePoint ? pointSegments(toe, 'toe') : [],
  };
}

/** What {@link stanceRuns} reads (set up by {@link planFootPins}). */
interface PinContext {
  track: LegTrack;
  toePoint: Float64Array | null;
  toeTrack: LegTrack | null;
  heel: readonly FrameRange[];
  toe: readonly FrameRange[];
  heelOf: Int32Array;
  toeOf: Int32Array;
  pin: Uint8Array;
  floor: FloorEstimate;
  stepTolerance: number;
}

/** Step 3: the runs of one point of stance `si` (frames `[start, f)`), appended to `runs`. */
function stanceRuns(
  ctx: PinContext,
  stance: SegmentAnchor,
  si: number,
  start: number,
  f: number,
  runs: PinRun[],
): void {
  const { track, toePoint, toeTrack, heel, toe, heelOf, toeOf, pin, floor, stepTolerance } = ctx;
  const pointOf = (p: PinPoint) => (p === 'heel' ? track.ankle : (toePoint as Float64Array));
  let t = start;
  let first = true;
  while (t < f) {
    const code = pin[t];
    const rs = t;
    while (t < f && pin[t] === code) t++;
    const point: PinPoint = code === PIN_HEEL ? 'heel' : 'toe';
    const p = pointOf(point);
    const hs: number[] = [];
    for (let k = rs; k < t; k++) hs.push(floorHeight(floor, p, 3 * k) - stance.lift);
    const height = medianOf(hs);
    let anchor: [number, number, number];
    let from: PinRun['from'] = 'median';
    if (first) {
      // the median of the point over its own contact segment (the segment holding the run's first detected frame)
      let seg: FrameRange = { start: rs, end: t };
      for (let k = rs; k < t; k++) {
        const i = point === 'heel' ? heelOf[k] : toeOf[k];
        if (i >= 0) {
          seg = point === 'heel' ? heel[i] : toe[i];
          break;
        }
      }
      if (point === 'heel' && seg.start === start && seg.end === f) anchor = stance.anchor;
      else {
        const a = segmentAnchor(point === 'heel' ? track : (toeTrack as LegTrack), seg, floor, stepTolerance);
        anchor = place(floor, a.anchor, height);
      }
    } else {
      const prev = runs[runs.length - 1];
      const q = pointOf(prev.point);
      const o = 3 * (rs - 1);
      const v = [p[o] - q[o], p[o + 1] - q[o + 1], p[o + 2] - q[o + 2]];
      anchor = place(floor, [prev.anchor[0] + v[0], prev.anchor[1] + v[1], prev.anchor[2] + v[2]], height);
      from = 'chained';
    }
    runs.push({
      start: rs,
      end: t,
      point,
      anchor,
      height: first && point === 'heel' && anchor === stance.anchor ? stance.ankleHeight : height,
      ground: stance.ground,
      lift: stance.lift,
      stance: si,
      from,
    });
    first = false;
  }
}

/**
 * Shift the anchors of runs `from..` (one stance) horizontally by minus the median over their frames of
 * the correction each asks for (anchor - source point, per floor-plane axis). Set-up time.
 */
function centreChain(
  runs: PinRun[],
  from: number,
  track: LegTrack,
  toePoint: Float64Array | null,
  floor: FloorEstimate,
): void {
  const { e1, e2 } = floorBasis(floor);
  const u: number[] = [];
  const w: number[] = [];
  for (let i = from; i < runs.length; i++) {
    const r = runs[i];
    const p = r.point === 'heel' ? track.ankle : (toePoint as Float64Array);
    for (let f = r.start; f < r.end; f++) {
      const x = r.anchor[0] - p[3 * f];
      const y = r.anchor[1] - p[3 * f + 1];
      const z = r.anchor[2] - p[3 * f + 2];
      u.push(e1[0] * x + e1[1] * y + e1[2] * z);
      w.push(e2[0] * x + e2[1] * y + e2[2] * z);
    }
  }
  const mu = medianOf(u);
  const mw = medianOf(w);
  for (let i = from; i < runs.length; i++) {
    const a = runs[i].anchor;
    runs[i].anchor = [
      a[0] - mu * e1[0] - mw * e2[0],
      a[1] - mu * e1[1] - mw * e2[1],
      a[2] - mu * e1[2] - mw * e2[2],
    ];
  }
}

/**
 * Per frame, the pin run that drives the foot (`Int32Array(frameCount)`, -1 for none): inside a stance
 * its run; in a blend ramp before (after) a stance, the stance's first (last) run.
 * @param stanceOf per frame, the stance index of the blend weights (./segments.ts `segmentWeights`), -1 for none.
 */
export function runOfFrames(plan: FootPinPlan, stanceOf: Int32Array): Int32Array {
  const F = stanceOf.length;
  const out = new Int32Array(F).fill(-1);
  const first = new Int32Array(plan.stances.length).fill(-1);
  const last = new Int32Array(plan.stances.length).fill(-1);
  plan.runs.forEach((r, i) => {
    if (first[r.stance] < 0) first[r.stance] = i;
    last[r.stance] = i;
    out.fill(i, r.start, r.end);
  });
  for (let f = 0; f < F; f++) {
    const s = stanceOf[f];
    if (s < 0) {
      out[f] = -1;
      continue;
    }
    const st = plan.stances[s];
    if (f < st.start) out[f] = first[s];
    else if (f >= st.end) out[f] = last[s];
  }
  return out;
}
