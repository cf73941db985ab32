/**
 * Transitions of the foot pin in time, and a bound on how fast the correction moves a leg (issue 20,
 * item 3). Engine-free; set-up code (allocates its plan once per leg), plus the check-and-ease loop
 * {@link limitJointSteps} run once after the frames are cleaned.
 *
 * The correction of the ankle at frame t is `c(t) = target(t) - source(t)` (world metres). A leg joint
 * moves, from frame t-1 to t, by `|d_source + d_c| <= |d_source| + |d_c|`: if the correction changes by
 * at most `L` per frame, no joint moves more than `L` beyond what the source moved at that frame. The
 * plan keeps the ankle's correction within `L = stepLimit` per frame (a speed: `maxCorrectionSpeed`
 * times the frame time, and at most 0.8 `maxJointStep`), and {@link limitJointSteps} checks the knee,
 * ankle and toe afterwards (forward kinematics of the output) against the hard bound `maxJointStep`
 * and eases the pin where one would exceed it (the knee's motion is not linear in the ankle's).
 *
 * Per segment (its anchor fixed, anchors.ts), per frame:
 * - inside: the pinned target (the anchor horizontally, the source's height on the segment's ground,
 *   the same target as FootPinner.apply); weight 1. Its correction changes by the source's horizontal
 *   step (the foot stays put: it moves less than the source) and the vertical raise kept on the ground.
 * - ramp out, after the last frame `e - 1` (and mirrored, ramp in before the first frame): the edge's
 *   correction `c_e = c(e - 1)` is carried, not re-aimed at the anchor: target `source(t) + c_e` (its
 *   horizontal part; its height from the contact's own rule at t, so a ramp never pushes the foot below
 *   the ground the pin keeps it on), blended by the weight `w_k = smoothstep(1 - k / (b + 1))` at frame
 *   `e - 1 + k`, k = 1..b. The correction changes by at most `1.5 |c_e| / (b + 1)` per frame
 *   (smoothstep's largest slope, 1.5): with `b >= ceil(1.5 |c_e| / L) - 1` it stays within `L` whatever
 *   the source does (a foot pulled toward its anchor while the source swings away lags behind and
 *   catches up in one frame at the ramp's end: 11.8 cm on a Bandai take at 30 fps). Over the `a <= b`
 *   frames next to the contact the carried offset leans toward the full pin's (`edgeOffset`: the foot
 *   lands on its anchor, and leaves it, rather than sliding with the source), `a` the longest span that
 *   keeps the ankle within `L` of the source's step by the linear model. Ramps span at least
 *   `blendSeconds` (`b >= ceil(blendSeconds / dt) - 1` frames, so the blend takes the same time at any
 *   rate) and end at a jump of the source (a step faster than `maxFootSpeed`: a T-pose frame 0, a cut),
 *   which they never cross.
 * - bridge: when the gap between two contacts is too short for both full-length ramps but long enough
 *   to carry the correction from one contact's last frame to the next one's first within `L`, the gap's
 *   frames get weight 1 and the offset `c_out + smoothstep(k / (g + 1)) (c_in - c_out)`; otherwise
 *   shorter ramps, when each still keeps within `L`.
 * - otherwise the contact is shortened, one frame at a time on the side that needs more frames (its
 *   edge moves inward, where the source is nearer the anchor and the needed ramp shorter), until its
 *   transitions fit; shortened frames go to the review list (`shortened`), and a contact left shorter
 *   than `minFrames` is dropped (`dropped`). Nothing snaps.
 *
 * Default blend duration ({@link DEFAULT_BLEND_SECONDS}, 0.15 s), chosen from data with the outside
 * check (bench/cleanupSteps.ts: every BVH take of the shared data at its own rate and resampled to
 * 25 fps, rule and learned contacts; 0.10, 0.15, 0.20, 0.30 s): the ankle slide over that check's own
 * reference contacts does not depend on it (rule, own rates: 99.6, 99.6, 99.6, 99.4 cm), the slide over
 * the detector's contacts is least at 0.15 s at the takes' own rates (rule 608.5, 602.4, 612.9, 637.5
 * cm; learned 938.3, 931.4, 935.5, 938.8 cm) and within 0.5% of its least at 25 fps (rule 520.8, 501.5,
 * 498.8, 521.0 cm), and the share of leg-frames the cleanup touches grows 4 points per 0.05 s (69.4,
 * 73.1, 77.1, 83.1%). 0.15 s is 3 ramp frames at 25 fps, 4 at 30, 8 at 60, 17 at 120, room for both
 * ramps in a walk's swing (0.35-0.45 s); larger carried offsets get longer ramps from the speed limit.
 *
 * Default correction speed ({@link DEFAULT_MAX_CORRECTION_SPEED}, 1.0 m/s at a 0.9 m leg, scaled with
 * the leg), and never more than 0.8 `maxJointStep` (2.4 cm) in one frame, which binds below 42 fps
 * (0.6 m/s at 25 fps): the rest of the bound is left for the knee. The same check at 0.5, 0.75, 1.0 and
 * 1.5 m/s: slide over the reference contacts 106.2, 101.4, 99.6, 96.6 cm (rule, own rates; main before
 * this change 89.2); faster releases fit more of a held correction into the swing instead of
 * shortening the contact, and move a foot in contact faster while they do: 1.0 m/s is where the gain
 * levels off.
 */
import { type Clip, forwardKinematics, readFrame } from '../core';
import type { SegmentAnchor } from './anchors';
import { floorHeight } from './floor';
import { type GroundModel, settleOnGround } from './ground';
import { rangesOf } from './guards';
import { smoothstep } from './segments';
import type { LegBones, LegTrack } from './tracks';
import type { FloorEstimate, FootName, FrameRange, ReviewRange } from './types';

const FEET: readonly FootName[] = ['left', 'right'];

/** Shortest blend ramp, seconds (see the module doc). */
export const DEFAULT_BLEND_SECONDS = 0.15;
/** Speed at which the correction may change, m/s at a 0.9 m leg (scaled). */
export const DEFAULT_MAX_CORRECTION_SPEED = 1.0;
/** Hard bound: no leg joint moves more than this per frame beyond the source's own motion, metres. */
export const DEFAULT_MAX_JOINT_STEP = 0.03;

/** Ramp frames for a blend of `seconds` at `frameTime`: the ramp spans `(b + 1)` frame steps >= seconds. */
export function rampFramesFor(seconds: number, frameTime: number): number {
  return Math.max(1, Math.ceil(seconds / frameTime - 1 - 1e-9));
}

/**
 * The ankle's correction at frame f for segment `seg`: `out[o..o+2] = target - source ankle`, where the
 * target is FootPinner.apply's: the anchor horizontally; vertically the source ankle's height minus the
 * segment's `lift`, raised when the foot's lowest joint (ankle or toe) would go below its ground level.
 */
export function pinCorrection(
  track: LegTrack,
  seg: SegmentAnchor,
  floor: FloorEstimate,
  f: number,
  out: Float64Array,
  o = 0,
): void {
  const n = floor.normal;
  const a = track.ankle;
  let h = floorHeight(floor, a, 3 * f) - seg.lift;
  let low = h;
  if (track.toe) low = Math.min(low, floorHeight(floor, track.toe, 3 * f) - seg.lift);
  if (low < seg.ground) h += seg.ground - low;
  const dh = h - seg.ankleHeight;
  for (let k = 0; k < 3; k++) out[o + k] = seg.anchor[k] + n[k] * dh - a[3 * f + k];
}

/**
 * One leg's input to the transition planner: its track, contact segments with anchors, the floor, the
 * source's jumps and the blend, step and length limits.
 */
export interface TransitionInput {
  track: LegTrack;
  /** Contact segments with their anchors, sorted, disjoint. */
  segments: readonly SegmentAnchor[];
  floor: FloorEstimate;
  /** Per frame t: 1 when the source ankle's step from t-1 to t is a jump (not motion). */
  jump: Uint8Array;
  /** Shortest ramp, frames ({@link rampFramesFor}). */
  rampFrames: number;
  /** Largest change of the correction per frame, metres. */
  stepLimit: number;
  /** Shortest contact kept, frames. */
  minFrames: number;
  /** The speed limit in words for the review details (e.g. "0.50 m/s"). */
  speedText: string;
}

/**
 * The planned correction of one leg per frame: weight, segment, ramp frames, carried offsets and corrections,
 * and the review ranges the limits caused.
 */
export interface TransitionPlan {
  /** Per frame: the correction's weight (slerp of the solved rotation deltas, FootPinner). */
  weight: Float32Array;
  /** Per frame: the segment whose data the frame uses, -1 where the weight is 0. */
  segment: Int32Array;
  /** Per frame: 1 on ramp and bridge frames (target = source ankle + `offset`), 0 inside a contact. */
  ramp: Uint8Array;
  /** Per frame: the carried correction, world metres (3 per frame; ramp and bridge frames). */
  offset: Float64Array;
  /** Per frame: the ankle's full-weight correction length, metres (for easing the weights). */
  corr: Float32Array;
  /** The segments kept (shortened where needed), sorted. */
  segments: SegmentAnchor[];
  /** `shortened` and `dropped` review ranges, sorted. */
  review: ReviewRange[];
}

const len = (v: Float64Array) => Math.hypot(v[0], v[1], v[2]);

/** Ramp lengths at one gap: out of the contact before it, into the one after it, or a bridge over it. */
interface Gap {
  bOut: number;
  bIn: number;
  bridge: boolean;
}

/** What {@link decideGap} found: the gap's ramps, or which side must give up a frame and why. */
type GapDecision = { gap: Gap } | { short: 'P' | 'N'; why: string; need: number; offset: number };

/** The jump index of a leg: `next[f]` the first t >= f whose step (t-1, t) is a jump (else F), `prev[f]` the last t <= f (else -1). */
function jumpIndex(jump: Uint8Array): { next: Int32Array; prev: Int32Array } {
  const F = jump.length;
  const next = new Int32Array(F + 1).fill(F);
  for (let f = F - 1; f >= 0; f--) next[f] = jump[f] ? f : next[f + 1];
  const prev = new Int32Array(F + 1).fill(-1);
  for (let f = 0; f <= F; f++) prev[f] = f < F && jump[f] ? f : f > 0 ? prev[f - 1] : -1;
  return { next, prev };
}

/**
 * The ramps at the gap between contacts P and N (either may be null: a clip end), see the module doc:
 * full-length ramps if both fit, else a bridge, else shorter ramps within the speed limit; a jump of
 * the source bounds each ramp and forbids a bridge; past a clip end a ramp is cut freely.
 */
function decideGap(
  input: TransitionInput,
  jumps: { next: Int32Array; prev: Int32Array },
  P: SegmentAnchor | null,
  N: SegmentAnchor | null,
): GapDecision {
  const { track, floor, rampFrames, stepLimit } = input;
  const F = input.jump.length;
  const need = (c: number) => Math.max(0, Math.ceil((1.5 * c) / stepLimit - 1e-9) - 1);
  const cIn = new Float64Array(3);
  const cOut = new Float64Array(3);
  const e = P ? P.end : 0;
  const s = N ? N.start : F;
  if (P) pinCorrection(track, P, floor, P.end - 1, cOut);
  if (N) pinCorrection(track, N, floor, N.start, cIn);
  const nOut = P ? need(len(cOut)) : 0;
  const nIn = N ? need(len(cIn)) : 0;
  const shortP = (why: string): GapDecision => ({ short: 'P', why, need: nOut, offset: len(cOut) });
  const shortN = (why: string): GapDecision => ({ short: 'N', why, need: nIn, offset: len(cIn) });
  const jo = jumps.next[e];
  const ji = jumps.prev[s];
  const jumpOut = P !== null && jo < (N ? s + 1 : F);
  const jumpIn = N !== null && ji >= (P ? e : 0);
  if (!P && !N) return { gap: { bOut: 0, bIn: 0, bridge: false } };
  if (!P || !N || jumpOut) {
    const aOut = jumpOut ? jo - e : Number.POSITIVE_INFINITY;
    const aIn = jumpIn ? s - ji : Number.POSITIVE_INFINITY;
    if (P && nOut > aOut) return shortP(`a jump of the source ${aOut} frame(s) after it`);
    if (N && nIn > aIn) return shortN(`a jump of the source ${aIn} frame(s) before it`);
    return {
      gap: {
        bOut: P ? Math.min(aOut, Math.max(rampFrames, nOut)) : 0,
        bIn: N ? Math.min(aIn, Math.max(rampFrames, nIn)) : 0,
        bridge: false,
      },
    };
  }
  const g = s - e;
  const wOut = Math.max(rampFrames, nOut);
  const wIn = Math.max(rampFrames, nIn);
  const d = new Float64Array(3);
  for (let k = 0; k < 3; k++) d[k] = cIn[k] - cOut[k];
  if (wOut + wIn <= g) return { gap: { bOut: wOut, bIn: wIn, bridge: false } };
  if (need(len(d)) <= g) return { gap: { bOut: 0, bIn: 0, bridge: true } };
  if (nOut + nIn <= g) {
    // ramps shorter than the blend duration, still within the speed limit
    const bOut = Math.min(wOut, Math.max(nOut, g - wIn, nOut + ((g - nOut - nIn) >> 1)));
    return { gap: { bOut, bIn: Math.min(wIn, g - bOut), bridge: false } };
  }
  return nOut >= nIn
    ? shortP(`the ${g}-frame gap to the next contact`)
    : shortN(`the ${g}-frame gap to the previous contact`);
}

/**
 * Shorten (one frame at a time, on the side {@link decideGap} names) and drop contacts until every gap's
 * transitions fit. Returns the kept segments (copies), each gap's ramps (`segments.length + 1`, the one
 * before each segment and after the last) and the `shortened` and `dropped` review ranges.
 */
function fitTransitions(input: TransitionInput): {
  segs: SegmentAnchor[];
  gaps: Gap[];
  review: ReviewRange[];
} {
  const { minFrames } = input;
  const jumps = jumpIndex(input.jump);
  const segs = input.segments.map((s) => ({ ...s }));
  const orig = new Map(segs.map((s) => [s, { start: s.start, end: s.end, why: ['', ''] }]));
  const review: ReviewRange[] = [];
  const cm = (m: number) => (m * 100).toFixed(1);
  let gaps: Gap[] = [];
  const passes = segs.length; // each pass drops at most one segment
  for (let pass = 0; pass <= passes; pass++) {
    gaps = [];
    let dropped = -1;
    for (let i = 0; i <= segs.length && dropped < 0; i++) {
      const P = i > 0 ? segs[i - 1] : null;
      const N = i < segs.length ? segs[i] : null;
      for (;;) {
        const d = decideGap(input, jumps, P, N);
        if ('gap' in d) {
          gaps.push(d.gap);
          break;
        }
        const seg = (d.short === 'P' ? P : N) as SegmentAnchor;
        const o = orig.get(seg);
        const side = d.short === 'P' ? 1 : 0;
        if (o && !o.why[side])
          o.why[side] =
            `the ankle is ${cm(d.offset)} cm from its pinned place at the contact's ${side ? 'last' : 'first'} frame; blending that at ${input.speedText} needs ${d.need} frame(s), and ${d.why} leaves fewer`;
        if (d.short === 'P') seg.end--;
        else seg.start++;
        if (seg.end - seg.start < minFrames) {
          dropped = i - side;
          break;
        }
      }
    }
    if (dropped < 0) break;
    const gone = segs.splice(dropped, 1)[0];
    const o = orig.get(gone) as { start: number; end: number; why: string[] };
    review.push({
      start: o.start,
      end: o.end,
      reason: 'dropped',
      detail: `contact not pinned: ${o.why.filter((w) => w).join('; ')}; what is left is shorter than ${minFrames} frame(s)`,
    });
  }
  for (const seg of segs) {
    const o = orig.get(seg);
    if (!o) continue;
    if (seg.start > o.start)
      review.push({
        start: o.start,
        end: seg.start,
        reason: 'shortened',
        detail: `contact shortened by ${seg.start - o.start} frame(s) at its start: ${o.why[0]}`,
      });
    if (seg.end < o.end)
      review.push({
        start: seg.end,
        end: o.end,
        reason: 'shortened',
        detail: `contact shortened by ${o.end - seg.end} frame(s) at its end: ${o.why[1]}`,
      });
  }
  review.sort((a, b) => a.start - b.start);
  return { segs, gaps, review };
}

/** Plan the weights, ramps, bridges and shortened contacts of one leg (see the module doc). */
export function planTransitions(input: TransitionInput): TransitionPlan {
  const { track, floor, stepLimit } = input;
  const F = input.jump.length;
  const { segs, gaps, review } = fitTransitions(input);
  const cIn = new Float64Array(3);
  const cOut = new Float64Array(3);
  const d = new Float64Array(3);
  const e1 = new Float64Array(3);
  const e2 = new Float64Array(3);
  const weight = new Float32Array(F);
  const segment = new Int32Array(F).fill(-1);
  const ramp = new Uint8Array(F);
  const offset = new Float64Array(3 * F);
  const corr = new Float32Array(F);
  const setRamp = (t: number, w: number, i: number, v: Float64Array) => {
    weight[t] = w;
    segment[t] = i;
    ramp[t] = 1;
    offset.set(v, 3 * t);
    corr[t] = len(v);
  };
  segs.forEach((seg, i) => {
    for (let t = seg.start; t < seg.end; t++) {
      weight[t] = 1;
      segment[t] = i;
      pinCorrection(track, seg, floor, t, d);
      corr[t] = len(d);
    }
    const before = gaps[i];
    const after = gaps[i + 1];
    if (!before.bridge) {
      pinCorrection(track, seg, floor, seg.start, cIn);
      // a ramp cut by the clip's first frame keeps its planned slope (no frame pair beyond it to bound)
      const b = before.bIn;
      const a = edgeSpan(track, seg, floor, 'in', b, stepLimit);
      for (let k = 1; k <= b && seg.start - k >= 0; k++) {
        edgeOffset(track, seg, floor, 'in', k, a, cIn, d);
        setRamp(seg.start - k, smoothstep(1 - k / (b + 1)), i, d);
      }
    }
    pinCorrection(track, seg, floor, seg.end - 1, cOut);
    if (!after.bridge) {
      const b = after.bOut;
      const a = edgeSpan(track, seg, floor, 'out', b, stepLimit);
      for (let k = 1; k <= b && seg.end - 1 + k < F; k++) {
        edgeOffset(track, seg, floor, 'out', k, a, cOut, d);
        setRamp(seg.end - 1 + k, smoothstep(1 - k / (b + 1)), i, d);
      }
      return;
    }
    const next = segs[i + 1];
    pinCorrection(track, next, floor, next.start, cIn);
    const g = next.start - seg.end;
    for (let k = 1; k <= g; k++) {
      const t = seg.end - 1 + k;
      const u = smoothstep(k / (g + 1));
      for (let j = 0; j < 3; j++) d[j] = cOut[j] + u * (cIn[j] - cOut[j]);
      // the height logic of each contact, blended like the rest
      withHeightAt(track, seg, floor, t, d, 0, e1);
      withHeightAt(track, next, floor, t, d, 0, e2);
      for (let j = 0; j < 3; j++) d[j] = e1[j] + u * (e2[j] - e1[j]);
      setRamp(t, 1, 2 * k <= g ? i : i + 1, d);
    }
  });
  return { weight, segment, ramp, offset, corr, segments: segs, review };
}

/** Which edge of a contact a ramp belongs to: before its first frame ('in') or after its last ('out'). */
type Edge = 'in' | 'out';

/** The frame of ramp frame k (1 = next to the contact) on `edge` of `seg`. */
const rampFrame = (seg: FrameRange, edge: Edge, k: number) =>
  edge === 'in' ? seg.start - k : seg.end - 1 + k;

/**
 * The offset of ramp frame k on `edge` with an edge span `a`: `c_e + alpha_k (c_pin(t) - c_e)`,
 * `alpha_k = smoothstep(1 - k / (a + 1))` for k <= a, else 0, where `c_e` is the correction at the
 * contact's edge frame and `c_pin(t)` the full pin's correction at t, its height from the contact's own
 * rule at t: over the `a` frames next to the contact the foot is drawn toward where the pin holds it
 * (it lands on its anchor rather than sliding in with the source, and leaves it rather than being
 * carried off with it).
 */
function edgeOffset(
  track: LegTrack,
  seg: SegmentAnchor,
  floor: FloorEstimate,
  edge: Edge,
  k: number,
  a: number,
  cEdge: Float64Array,
  out: Float64Array,
): void {
  const t = rampFrame(seg, edge, k);
  const alpha = k <= a ? smoothstep(1 - k / (a + 1)) : 0;
  pinCorrection(track, seg, floor, t, out);
  for (let j = 0; j < 3; j++) out[j] = cEdge[j] + alpha * (out[j] - cEdge[j]);
  withHeightAt(track, seg, floor, t, out, 0, out);
}

/**
 * `out = horizontal part of v[o..] + n * (the pin's vertical correction at frame t)`: a carried offset
 * keeps its horizontal part, and its height follows the contact's own rule at that frame (the source
 * height minus the segment's `lift`, raised to keep the lowest joint on the ground), so a ramp never
 * pushes the foot below the ground the pin keeps it on. In place allowed (`out` may be `v`).
 */
function withHeightAt(
  track: LegTrack,
  seg: SegmentAnchor,
  floor: FloorEstimate,
  t: number,
  v: Float64Array,
  o: number,
  out: Float64Array,
): void {
  const n = floor.normal;
  const a = track.ankle;
  let h = floorHeight(floor, a, 3 * t) - seg.lift;
  let low = h;
  if (track.toe) low = Math.min(low, floorHeight(floor, track.toe, 3 * t) - seg.lift);
  if (low < seg.ground) h += seg.ground - low;
  const vert = h - floorHeight(floor, a, 3 * t);
  const along = n[0] * v[o] + n[1] * v[o + 1] + n[2] * v[o + 2];
  for (let j = 0; j < 3; j++) out[j] = v[o + j] - along * n[j] + vert * n[j];
}

/**
 * The longest edge span `a <= b` (frames, {@link edgeOffset}) whose ramp of `b` frames on `edge` keeps
 * the ankle within `stepLimit` of the source's own step at every frame pair from the contact's edge
 * frame to the first free frame, by the linear model `ankle(t) ~ source(t) + w(t) offset(t)`; 0 (the
 * edge's offset carried unchanged, which the plan already keeps within the limit) when none is.
 */
function edgeSpan(
  track: LegTrack,
  seg: SegmentAnchor,
  floor: FloorEstimate,
  edge: Edge,
  b: number,
  stepLimit: number,
): number {
  const F = track.ankle.length / 3;
  const cEdge = new Float64Array(3);
  pinCorrection(track, seg, floor, edge === 'in' ? seg.start : seg.end - 1, cEdge);
  const at = new Float64Array(3);
  const next = new Float64Array(3);
  const p = track.ankle;
  // the effective correction of ramp frame k (0: the contact's edge frame, b + 1: the free frame)
  const effective = (k: number, a: number, out: Float64Array) => {
    if (k === 0) out.set(cEdge);
    else if (k > b) out.fill(0);
    else {
      edgeOffset(track, seg, floor, edge, k, a, cEdge, out);
      const w = smoothstep(1 - k / (b + 1));
      for (let j = 0; j < 3; j++) out[j] *= w;
    }
  };
  for (let a = b; a > 0; a--) {
    let ok = true;
    for (let k = 0; k <= b && ok; k++) {
      const t0 = rampFrame(seg, edge, k);
      const t1 = rampFrame(seg, edge, k + 1);
      if (t1 < 0 || t1 >= F) break;
      effective(k, a, at);
      effective(k + 1, a, next);
      const dx = p[3 * t1] - p[3 * t0];
      const dy = p[3 * t1 + 1] - p[3 * t0 + 1];
      const dz = p[3 * t1 + 2] - p[3 * t0 + 2];
      const moved = Math.hypot(dx + next[0] - at[0], dy + next[1] - at[1], dz + next[2] - at[2]);
      ok = moved - Math.hypot(dx, dy, dz) <= stepLimit;
    }
    if (ok) return a;
  }
  return 0;
}

/**
 * Lower weights so that `|w(t) - w(t-1)| <= step / max(corr(t-1), corr(t))` (one pass forward, one
 * backward; weights only go down): the correction `~ w c` then changes by at most `step` per frame from
 * the weight. In place; returns whether any weight changed (by more than 1e-6: the weights are float32).
 */
export function easeWeights(weight: Float32Array, corr: Float32Array, step: number): boolean {
  let changed = false;
  const F = weight.length;
  const lim = (t: number) => step / Math.max(corr[t - 1], corr[t], 1e-9);
  for (let t = 1; t < F; t++) {
    const cap = weight[t - 1] + lim(t);
    if (weight[t] > cap + 1e-6) {
      weight[t] = cap;
      changed = true;
    }
  }
  for (let t = F - 2; t >= 0; t--) {
    const cap = weight[t + 1] + lim(t + 1);
    if (weight[t] > cap + 1e-6) {
      weight[t] = cap;
      changed = true;
    }
  }
  return changed;
}

const JOINTS = ['hip', 'knee', 'ankle', 'toe'] as const;

/**
 * Largest `|after(t) - after(t-1)| - |source(t) - source(t-1)|` over the leg's joints (hip, knee,
 * ankle, toe; from index `first`) at frame t >= 1, metres, and the joint (index into hip, knee,
 * ankle, toe).
 */
export function legStepExcess(
  before: LegTrack,
  after: LegTrack,
  t: number,
  first = 0,
): { excess: number; joint: number } {
  const r = STEP_RESULT;
  r.excess = Number.NEGATIVE_INFINITY;
  r.joint = 0;
  if (first <= 0) stepOf(before.hip, after.hip, t, 0);
  if (first <= 1) stepOf(before.knee, after.knee, t, 1);
  if (first <= 2) stepOf(before.ankle, after.ankle, t, 2);
  if (before.toe && after.toe) stepOf(before.toe, after.toe, t, 3);
  return { excess: r.excess, joint: r.joint };
}

/** Scratch of {@link legStepExcess} (no array per call: it runs on every frame of every check round). */
const STEP_RESULT = { excess: 0, joint: 0 };

function stepOf(p: Float64Array, q: Float64Array, t: number, joint: number): void {
  const a = 3 * t;
  const b = a - 3;
  const e =
    Math.hypot(q[a] - q[b], q[a + 1] - q[b + 1], q[a + 2] - q[b + 2]) -
    Math.hypot(p[a] - p[b], p[a + 1] - p[b + 1], p[a + 2] - p[b + 2]);
  if (e > STEP_RESULT.excess) {
    STEP_RESULT.excess = e;
    STEP_RESULT.joint = joint;
  }
}

/**
 * One leg as {@link limitJointSteps} checks it: foot, bones, planned weights and corrections, source and
 * cleaned tracks.
 */
export interface StepLimitLeg {
  foot: FootName;
  bones: LegBones;
  /** The planned weights; lowered in place where a joint would step too far. */
  weight: Float32Array;
  /** The ankle's full-weight correction length per frame (TransitionPlan.corr). */
  corr: Float32Array;
  before: LegTrack;
  /** World tracks of the cleaned clip; kept up to date in place. */
  after: LegTrack;
}

/**
 * What {@link limitJointSteps} changed: per leg the `jointStep` review ranges, eased frames and largest
 * excess; the frames left unresolved.
 */
export interface StepLimitResult {
  /** Per leg: `jointStep` review ranges (frames whose weight was lowered), with the excess that caused it. */
  review: ReviewRange[][];
  /** Per leg: frames whose weight was lowered. */
  eased: number[];
  /**
   * Per leg: the largest excess left over hip, knee, ankle and toe (metres; <= bound unless
   * `unresolved`, or the root correction's own step is larger).
   */
  maxExcess: number[];
  /** Joint-frames over the bound left after the last round (0 unless the root correction moves the legs). */
  unresolved: number;
}

/**
 * Check the knee, ankle and toe of the cleaned clip against `bound` (metres per frame beyond the
 * source's own motion, {@link legStepExcess}; the hip joint moves only with the root correction, whose
 * step `rootMaxStep` bounds) and ease the pin where it is exceeded: the weights at both frames of
 * each offending pair are halved and the ramp around them smoothed ({@link easeWeights}), those frames
 * are cleaned again (`out`'s frame reset to the source's, then `apply`), and the check repeats; from the
 * seventh round the whole run of non-zero weights around an offending pair is set to 0 (that leg's
 * frames are then the source's), and after ten rounds every weight of a leg still offending. Set-up
 * code (allocates per round).
 * @param args.apply cleans frame f of `out` again with the current weights (FootPinner.apply).
 * @param args.resetFrame clears per-frame bookkeeping of frame f before it is cleaned again.
 */
export function limitJointSteps(args: {
  src: Clip;
  out: Clip;
  legs: StepLimitLeg[];
  bound: number;
  stepLimit: number;
  apply: (f: number) => void;
  resetFrame: (f: number) => void;
}): StepLimitResult {
  const { src, out, legs, bound, stepLimit } = args;
  const F = src.frameCount;
  const n = src.skeleton.boneCount;
  const planned = legs.map((l) => l.weight.slice());
  const cause = legs.map(() => new Float32Array(F));
  const causeJoint = legs.map(() => new Uint8Array(F));
  const rot = new Float64Array(4 * n);
  const pos = new Float64Array(3 * n);
  const wr = new Float64Array(4 * n);
  const wp = new Float64Array(3 * n);
  const ROUNDS = 10;
  let unresolved = 0;
  for (let round = 0; round <= ROUNDS; round++) {
    const redo = new Uint8Array(F);
    unresolved = 0;
    legs.forEach((leg, li) => {
      const w = leg.weight;
      const old = w.slice();
      let bad = false;
      for (let t = 1; t < F; t++) {
        // the hip joint moves only with the root correction (its own step limit, rootMaxStep): easing
        // the leg cannot change it
        const { excess, joint } = legStepExcess(leg.before, leg.after, t, 1);
        if (!(excess > bound)) continue;
        bad = true;
        unresolved++;
        if (round === ROUNDS) continue;
        for (const u of [t - 1, t]) {
          if (excess > cause[li][u]) {
            cause[li][u] = excess;
            causeJoint[li][u] = joint;
          }
        }
        if (round < 6) {
          w[t - 1] *= 0.5;
          w[t] *= 0.5;
        } else {
          let a = w[t - 1] > 0 ? t - 1 : t;
          let b = t;
          while (a > 0 && w[a - 1] > 0) a--;
          while (b + 1 < F && w[b + 1] > 0) b++;
          w.fill(0, a, b + 1);
        }
      }
      if (round === ROUNDS - 1 && bad) w.fill(0);
      if (!bad) return;
      easeWeights(w, leg.corr, stepLimit);
      for (let t = 0; t < F; t++) if (w[t] !== old[t]) redo[t] = 1;
    });
    if (unresolved === 0 || round === ROUNDS) break;
    for (let f = 0; f < F; f++) {
      if (!redo[f]) continue;
      out.rotations.set(src.rotations.subarray(4 * n * f, 4 * n * (f + 1)), 4 * n * f);
      out.translations.set(src.translations.subarray(3 * n * f, 3 * n * (f + 1)), 3 * n * f);
      args.resetFrame(f);
      args.apply(f);
      readFrame(out, f, rot, pos);
      forwardKinematics(out.skeleton, rot, pos, wr, wp);
      for (const leg of legs) {
        const b = leg.bones;
        const tr = leg.after;
        for (let k = 0; k < 3; k++) {
          tr.hip[3 * f + k] = wp[3 * b.upper + k];
          tr.knee[3 * f + k] = wp[3 * b.lower + k];
          tr.ankle[3 * f + k] = wp[3 * b.end + k];
          if (tr.toe) tr.toe[3 * f + k] = wp[3 * b.toe + k];
        }
      }
    }
  }
  return { ...easedReport(legs, planned, cause, causeJoint, bound), unresolved };
}

/** The `jointStep` review ranges, eased frame counts and largest excess left of {@link limitJointSteps}. */
function easedReport(
  legs: StepLimitLeg[],
  planned: Float32Array[],
  cause: Float32Array[],
  causeJoint: Uint8Array[],
  bound: number,
): Omit<StepLimitResult, 'unresolved'> {
  const F = planned.length > 0 ? planned[0].length : 0;
  const review: ReviewRange[][] = [];
  const eased: number[] = [];
  const maxExcess: number[] = [];
  legs.forEach((leg, li) => {
    const lowered = new Uint8Array(F);
    let count = 0;
    for (let t = 0; t < F; t++)
      if (leg.weight[t] < planned[li][t]) {
        lowered[t] = 1;
        count++;
      }
    eased.push(count);
    let m = 0;
    for (let t = 1; t < F; t++) m = Math.max(m, legStepExcess(leg.before, leg.after, t).excess);
    maxExcess.push(m);
    review.push(
      rangesOf(lowered).map((r: FrameRange) => {
        let e = 0;
        let j = 0;
        for (let t = r.start; t < r.end; t++)
          if (cause[li][t] > e) {
            e = cause[li][t];
            j = causeJoint[li][t];
          }
        return {
          ...r,
          reason: 'jointStep' as const,
          detail:
            e > 0
              ? `the ${leg.foot} ${JOINTS[j]} would move ${(e * 100).toFixed(1)} cm more than the source in one frame (bound ${(bound * 100).toFixed(1)} cm): the pin is eased here`
              : `the pin is eased here so that a neighbouring frame stays within ${(bound * 100).toFixed(1)} cm per frame`,
        };
      }),
    );
  });
  return { review, eased, maxExcess };
}

/** Per frame t: 1 when the ankle's step from t-1 to t is longer than `maxStep` metres (a jump of the take). */
export function jumpFrames(ankle: Float64Array, maxStep: number): Uint8Array {
  const a = ankle;
  const jump = new Uint8Array(a.length / 3);
  for (let f = 1; f < jump.length; f++)
    jump[f] =
      Math.hypot(a[3 * f] - a[3 * f - 3], a[3 * f + 1] - a[3 * f - 2], a[3 * f + 2] - a[3 * f - 1]) > maxStep
        ? 1
        : 0;
  return jump;
}

/**
 * Ground levels (ground.ts) and transitions (transitions.ts) of both feet: the plan uses each segment's
 * ground, and may shorten or drop segments, whose grounds are then settled again, and the plan made
 * again if a kept segment's ground moved (at most three rounds; each round's `shortened` and `dropped`
 * ranges are kept). Set-up code.
 */
export function planOnGround(
  tracks: Record<FootName, LegTrack>,
  floor: FloorEstimate,
  stepTolerance: number,
  segments: Record<FootName, SegmentAnchor[]>,
  plan: (foot: FootName, segments: SegmentAnchor[]) => TransitionPlan,
): { plans: Record<FootName, TransitionPlan>; ground: GroundModel; review: Record<FootName, ReviewRange[]> } {
  let segs = segments;
  let ground = settleOnGround(segs, tracks, floor, stepTolerance);
  const review: Record<FootName, ReviewRange[]> = { left: [], right: [] };
  let plans = {} as Record<FootName, TransitionPlan>;
  for (let round = 0; round < 3; round++) {
    plans = { left: plan('left', segs.left), right: plan('right', segs.right) };
    for (const foot of FEET) review[foot].push(...plans[foot].review);
    const same = FEET.every(
      (f) =>
        plans[f].segments.length === segs[f].length &&
        plans[f].segments.every((s, i) => s.start === segs[f][i].start && s.end === segs[f][i].end),
    );
    if (same) break;
    segs = { left: plans.left.segments, right: plans.right.segments };
    const used = FEET.map((f) => segs[f].map((x) => x.ground));
    ground = settleOnGround(segs, tracks, floor, stepTolerance);
    // the plan stands when no kept segment's ground moved (the usual case: on the floor, or its own level)
    if (FEET.every((f, i) => segs[f].every((x, k) => x.ground === used[i][k]))) break;
  }
  return { plans, ground, review };
}
