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
 * 5. Flat-foot heading (issue 20, toe slide): a stance with frames where the heel AND the toe are in
 *    contact (a flat foot) holds the foot's heading: `heading` = the mean over those frames of the
 *    source's horizontal unit vector from the ankle to the toe point. On every frame of the stance the
 *    foot turns about up by {@link yawToward} (the source heading to `heading`, at most
 *    {@link FLAT_YAW_CAP}), about the ankle on a heel run and about the toe on a toe run (./pinner.ts,
 *    ./toePivot.ts), so the point that is not pinned no longer swings with the source foot's yaw jitter.
 *    Measured on the shared takes (`npm run bench -- cleanup-judge`): with the ankle pinned and the foot's
 *    source rotation kept, a flat foot's toe moved as much as in the source (CMU 001_08: 0.1-0.4 m/s of
 *    per-frame jitter, toe slide 41.6 cm before, 52.2 cm after on frames where the reference calls the toe
 *    the supporting point). The chain of step 3 uses the turned vectors (heel -> toe: `T = A +
 *    R(s - 1)(toe - ankle)(s - 1)`, toe -> heel likewise), so nothing steps at a switch.
 */
import { type SegmentAnchor, segmentAnchor } from './anchors';
import { floorBasis, floorHeight } from './floor';
import type { LegTrack } from './tracks';
import type { FloorEstimate, FrameRange } from './types';

/** Pinned point codes per frame. */
export const PIN_NONE = 0;
/** Pinned point code: the heel (the ankle). */
export const PIN_HEEL = 1;
/** Pinned point code: the toe. */
export const PIN_TOE = 2;

/** The point of a foot that is pinned. */
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
  /**
   * The stance's held heading (step 5): a unit vector normal to the floor's normal, world, from the ankle
   * toward the toe; null when the stance has no flat-foot frame (the foot keeps its source yaw).
   */
  heading: [number, number, number] | null;
}

/**
 * Largest turn of a flat foot about up toward its stance's heading (pins.ts step 5), radians: 20 deg, so
 * a 15 cm foot's toe ends at most 5.2 cm from where the source's rotation would put it about the ankle.
 * Chosen on the judge (`npm run bench -- cleanup-judge --models teacher --kinds clean`, the toe's slide
 * on its reference frames, 411 cm in the sources): 161 cm after cleanup with no held heading, 135 cm
 * with a 10 deg cap, 94 cm with 20 deg, 91 cm with 30 deg; the larger the cap the farther a long
 * stance's slow turn may be held off the source, so the knee of that curve. A deliberate pivot on a flat
 * foot (a dance turn) is followed beyond the cap.
 */
export const FLAT_YAW_CAP = (20 * Math.PI) / 180;

/**
 * Signed angle about the unit normal `n` (right-handed) that turns the horizontal part of `v` (at `vo`)
 * onto the unit horizontal `h` (at `ho`), clamped to +-{@link FLAT_YAW_CAP}; 0 when `v` has no horizontal
 * part. Radians, written to `out[oo]`. No double crosses the call (none returned, the cap read here, not
 * passed), so it allocates nothing even when not inlined.
 */
export function yawToward(
  out: { [i: number]: number },
  oo: number,
  v: ArrayLike<number>,
  vo: number,
  h: ArrayLike<number>,
  ho: number,
  n: ArrayLike<number>,
): void {
  const cap = FLAT_YAW_CAP;
  const vn = v[vo] * n[0] + v[vo + 1] * n[1] + v[vo + 2] * n[2];
  const x = v[vo] - vn * n[0];
  const y = v[vo + 1] - vn * n[1];
  const z = v[vo + 2] - vn * n[2];
  if (!(x * x + y * y + z * z > 1e-12)) {
    out[oo] = 0;
    return;
  }
  const c = x * h[ho] + y * h[ho + 1] + z * h[ho + 2];
  // n . (v x h)
  const s =
    n[0] * (y * h[ho + 2] - z * h[ho + 1]) +
    n[1] * (z * h[ho] - x * h[ho + 2]) +
    n[2] * (x * h[ho + 1] - y * h[ho]);
  const a = Math.atan2(s, c);
  out[oo] = Math.max(-cap, Math.min(cap, a));
}

/** `out[oo..]` = `v[vo..]` turned by `angle` radians about the unit `n` (Rodrigues). Allocates nothing; `out` may be `v`. */
export function turnAbout(
  out: { [i: number]: number },
  oo: number,
  v: ArrayLike<number>,
  vo: number,
  n: ArrayLike<number>,
  angle: number,
): void {
  const c = Math.cos(angle);
  const sn = Math.sin(angle);
  const x = v[vo];
  const y = v[vo + 1];
  const z = v[vo + 2];
  const d = (x * n[0] + y * n[1] + z * n[2]) * (1 - c);
  out[oo] = x * c + (n[1] * z - n[2] * y) * sn + n[0] * d;
  out[oo + 1] = y * c + (n[2] * x - n[0] * z) * sn + n[1] * d;
  out[oo + 2] = z * c + (n[0] * y - n[1] * x) * sn + n[2] * d;
}

/** A contact segment of one point (heel or toe channel) with the anchor it was pinned to. */
export interface PointSegment extends FrameRange {
  /** The anchor of the point's first pinned run in the segment (or its median when never pinned), metres. */
  anchor: [number, number, number];
  /** Frames of the segment where this point is the one pinned. */
  pinnedFrames: number;
}

/**
 * Which point of a foot is pinned where: the stances (union contacts with anchors), the pin runs of heel and
 * toe, and the point per frame.
 */
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
  const heading = stanceHeading(ctx, start, f);
  const n = floor.normal;
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
      if (heading) {
        // the foot at s - 1 stood turned toward the heading (step 5): so does the vector between its points
        const a = toePoint as Float64Array;
        const tv = [a[o] - track.ankle[o], a[o + 1] - track.ankle[o + 1], a[o + 2] - track.ankle[o + 2]];
        const yaw = [0];
        yawToward(yaw, 0, tv, 0, heading, 0, n);
        turnAbout(v, 0, v, 0, n, yaw[0]);
      }
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
      heading,
    });
    first = false;
  }
}

/**
 * Step 5: the stance's held heading, the mean over its flat-foot frames (heel and toe both in contact) of
 * the source's horizontal unit vector from the ankle to the toe point, made unit; null without a toe
 * point, without a flat-foot frame, or when the mean vanishes.
 */
function stanceHeading(ctx: PinContext, start: number, end: number): [number, number, number] | null {
  const { track, toePoint, heelOf, toeOf, floor } = ctx;
  if (!toePoint) return null;
  const n = floor.normal;
  const h = [0, 0, 0];
  for (let k = start; k < end; k++) {
    if (heelOf[k] < 0 || toeOf[k] < 0) continue;
    const o = 3 * k;
    const v = [0, 1, 2].map((c) => toePoint[o + c] - track.ankle[o + c]);
    const vn = v[0] * n[0] + v[1] * n[1] + v[2] * n[2];
    for (let c = 0; c < 3; c++) v[c] -= vn * n[c];
    const l = Math.hypot(v[0], v[1], v[2]);
    if (l > 1e-9) for (let c = 0; c < 3; c++) h[c] += v[c] / l;
  }
  const l = Math.hypot(h[0], h[1], h[2]);
  return l > 1e-9 ? [h[0] / l, h[1] / l, h[2] / l] : null;
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
