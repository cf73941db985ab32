/**
 * The per-frame step of the foot-slide cleanup (./cleanup.ts): {@link FootPinner} cleans one frame by
 * the weighted DLS leg correction toward each leg's pinned point (the ankle, or the toe through the toe
 * pivot, ./toePivot.ts), on ramp and bridge frames toward the source plus the carried offset
 * (./transitions.ts), with the optional planned root offset. Engine-free; allocates nothing per frame.
 */
import {
  type Clip,
  forwardKinematics,
  HumanBodyBones as H,
  qcopy,
  qmul,
  qmulByConj,
  qmulConj,
  vrotate,
  vrotateConj,
} from '../core';
import type { LegDLS } from '../ik/dls';
import { yawToward } from './pins';
import type { ToePivot } from './toePivot';
import { toePointAt } from './toePoint';
import type { LegBones } from './tracks';
import type { FloorEstimate } from './types';

// scratch quaternion slots (offsets into q)
const DH = 0; // thigh delta, weighted
const DK = 4; // knee delta (shin delta * inverse thigh delta), weighted
const SD = 8; // shin delta, weighted
const T0 = 12;
const T1 = 16;
const WGT = 20; // weight
const DF = 24; // foot world delta (toe pivot), weighted
const QLEN = 28;

/** Per-row data in {@link PinLeg.segments}: anchor xyz, anchor height, ground, lift, point (0 heel, 1 toe). */
export const SEG_STRIDE = 7;

/** One leg's per-frame inputs and outputs for {@link FootPinner} (all arrays owned, set up once). */
export interface PinLeg {
  bones: LegBones;
  /** Correction weight per frame. */
  weight: Float32Array;
  /** Row of `segments` per frame: its pin run, or its segment without heel and toe (-1 where the weight is 0). */
  segment: Int32Array;
  /**
   * Per frame, 1 on ramp and bridge frames (transitions.ts): their target is the source's pinned point
   * (the ankle, or the toe on a toe row) plus `offset`, not the row's anchor. Absent: every frame with a
   * weight uses its row's anchor.
   */
  ramp?: Uint8Array;
  /** World offset of the pinned point's target on ramp frames, metres, 3 per frame. */
  offset?: Float64Array;
  /**
   * `Float64Array(7 * rows)`: per row (a pin run of pins.ts, or a contact segment) anchor x, y, z, anchor
   * height, ground, lift, and the pinned point (0 the ankle, 1 the toe).
   */
  segments: Float64Array;
  /**
   * `Float64Array(3 * rows)`: per row, its stance's held heading (pins.ts step 5: the foot turns about up
   * toward it, at most FLAT_YAW_CAP), a unit horizontal vector; 0, 0, 0 (or the field absent): the foot
   * keeps its source yaw.
   */
  heading?: Float64Array;

  /** The knee's bend axis in the thigh's frame (used when a source leg is straight). */
  hinge: Float64Array;
  solver: LegDLS;
  /** Per frame: 0, 1 = out of reach (the foot left the pin), 2 = knee on a limit. */
  limitKind: Uint8Array;
  /** Per frame: distance of the full-weight solved ankle (toe, on a toe pin) from its target, metres. */
  pinError: Float32Array;
  /** The virtual toe's offset in the foot bone's frame (toePoint.ts), or null: the rig's toe joint. */
  toeOffset: Float64Array | null;
  /** The toe-pivot solver (toePivot.ts), used on toe pins. */
  pivot: ToePivot;
}

/**
 * The per-frame step of {@link cleanupClip}: reads frame f of the source clip, applies the optional root
 * correction and both legs' weighted DLS correction, and writes the changed local values into the
 * output clip. Allocates nothing per call (all scratch is owned here and by the solvers).
 */
export class FootPinner {
  /** `[frames with a root offset, largest offset (metres)]`. */
  readonly rootStats = new Float64Array(2);
  private readonly rot: Float64Array;
  private readonly pos: Float64Array;
  private readonly wr: Float64Array;
  private readonly wp: Float64Array;
  private readonly q = new Float64Array(QLEN);
  private readonly target = new Float64Array(3);
  private readonly axis = new Float64Array(3);
  private readonly vec = new Float64Array(3);
  private readonly toe = new Float64Array(3);
  /** The held heading's turn of the foot this frame, radians (pins.ts step 5). */
  private readonly yawS = new Float64Array(1);
  private readonly nrm: Float64Array;
  private readonly hips: number;

  constructor(
    private readonly src: Clip,
    private readonly out: Clip,
    private readonly legs: readonly [PinLeg, PinLeg],
    private readonly floor: FloorEstimate,
    /** Per frame, the root correction's weight (0 outside double support), or null: no root correction. */
    private readonly rootWeight: Float32Array | null,
    private readonly rootCap: number,
  ) {
    const n = src.skeleton.boneCount;
    this.rot = new Float64Array(4 * n);
    this.pos = new Float64Array(3 * n);
    this.wr = new Float64Array(4 * n);
    this.wp = new Float64Array(3 * n);
    this.nrm = Float64Array.from(floor.normal);
    this.hips = Math.max(src.skeleton.humanoid[H.Hips], 0);
  }

  /**
   * Plan the root correction of every frame (before the frames are cleaned): per frame with a root weight,
   * the mean horizontal error of both source pinned points (ankle or toe) toward their anchors, capped at `rootCap` and scaled by
   * the weight (the fade in and out of each double support); then the offset's change from frame to frame
   * is limited to `maxStep` per axis of the world, by one pass forward and one backward (each frame is
   * clamped to within `maxStep` of its neighbour already placed, and the runs start and end at 0), so the
   * hips follow the source's error without jitter and never snap. Set-up code: allocates `3 * frames` doubles.
   */
  planRootOffsets(maxStep: number): void {
    const w = this.rootWeight;
    if (!w) return;
    const F = this.src.frameCount;
    const n = this.src.skeleton.boneCount;
    const { rot, pos, wr, wp, vec, nrm } = this;
    const off = new Float64Array(3 * F);
    for (let f = 0; f < F; f++) {
      if (!(w[f] > 0)) continue;
      const ro = 4 * f * n;
      const to = 3 * f * n;
      for (let k = 0; k < 4 * n; k++) rot[k] = this.src.rotations[ro + k];
      for (let k = 0; k < 3 * n; k++) pos[k] = this.src.translations[to + k];
      forwardKinematics(this.src.skeleton, rot, pos, wr, wp);
      vec[0] = vec[1] = vec[2] = 0;
      for (let side = 0; side < 2; side++) {
        const leg = this.legs[side];
        const a = SEG_STRIDE * leg.segment[f];
        // the pinned point's error: the ankle's, or the toe's on a toe pin
        if (leg.segments[a + 6] === 1) toePointAt(wr, wp, leg.bones, leg.toeOffset, this.toe, 0);
        const p = leg.segments[a + 6] === 1 ? this.toe : wp;
        const e = leg.segments[a + 6] === 1 ? 0 : 3 * leg.bones.end;
        for (let k = 0; k < 3; k++) vec[k] += 0.5 * (leg.segments[a + k] - p[e + k]);
      }
      const v = vec[0] * nrm[0] + vec[1] * nrm[1] + vec[2] * nrm[2];
      for (let k = 0; k < 3; k++) vec[k] -= v * nrm[k];
      const raw = Math.sqrt(vec[0] * vec[0] + vec[1] * vec[1] + vec[2] * vec[2]);
      const s = (raw > this.rootCap ? this.rootCap / raw : 1) * w[f];
      for (let k = 0; k < 3; k++) off[3 * f + k] = vec[k] * s;
    }
    const clamp = (x: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, x));
    for (let k = 0; k < 3; k++) {
      for (let f = 0; f < F; f++) {
        const prev = f > 0 ? off[3 * (f - 1) + k] : 0;
        off[3 * f + k] = w[f] > 0 ? clamp(off[3 * f + k], prev - maxStep, prev + maxStep) : 0;
      }
      for (let f = F - 1; f >= 0; f--) {
        const next = f + 1 < F ? off[3 * (f + 1) + k] : 0;
        off[3 * f + k] = w[f] > 0 ? clamp(off[3 * f + k], next - maxStep, next + maxStep) : 0;
      }
    }
    this.rootOffset = off;
  }

  /** Per frame, the planned hips offset (world metres, 3 per frame), or null without root correction. */
  private rootOffset: Float64Array | null = null;

  /** Clean frame f (nothing happens where both weights are 0). */
  apply(f: number): void {
    const { src, out, rot, pos, wr, wp, q, target, axis, vec, nrm } = this;
    const skel = src.skeleton;
    const n = skel.boneCount;
    const wL = this.legs[0].weight[f];
    const wR = this.legs[1].weight[f];
    if (wL === 0 && wR === 0) return;
    const ro = 4 * f * n;
    const to = 3 * f * n;
    for (let k = 0; k < 4 * n; k++) rot[k] = src.rotations[ro + k];
    for (let k = 0; k < 3 * n; k++) pos[k] = src.translations[to + k];
    forwardKinematics(skel, rot, pos, wr, wp);
    const fd = this.floor.d;

    const ro3 = this.rootOffset;
    if (ro3 && (ro3[3 * f] !== 0 || ro3[3 * f + 1] !== 0 || ro3[3 * f + 2] !== 0)) {
      // the hips' offset planned by planRootOffsets (world, horizontal, capped, rate-limited)
      for (let k = 0; k < 3; k++) vec[k] = ro3[3 * f + k];
      const len = Math.sqrt(vec[0] * vec[0] + vec[1] * vec[1] + vec[2] * vec[2]);
      const hips = this.hips;
      const hp = skel.parents[hips];
      if (hp >= 0) vrotateConj(vec, 0, wr, 4 * hp, vec, 0);
      for (let k = 0; k < 3; k++) pos[3 * hips + k] += vec[k];
      for (let k = 0; k < 3; k++) out.translations[to + 3 * hips + k] = pos[3 * hips + k];
      forwardKinematics(skel, rot, pos, wr, wp);
      this.rootStats[0]++;
      if (len > this.rootStats[1]) this.rootStats[1] = len;
    }

    for (let side = 0; side < 2; side++) {
      const leg = this.legs[side];
      const w = side === 0 ? wL : wR;
      if (w === 0) continue;
      const b = leg.bones;
      const sd = leg.segments;
      const so = SEG_STRIDE * leg.segment[f];
      const e3 = 3 * b.end;
      const onToe = sd[so + 6] === 1;
      // the stance's held heading (pins.ts step 5), if any
      const hd = leg.heading;
      const ho = 3 * leg.segment[f];
      const held = hd !== undefined && (hd[ho] !== 0 || hd[ho + 1] !== 0 || hd[ho + 2] !== 0);
      // on a toe pin or a held heading, the toe point (joint or virtual) of the frame as it stands
      if (onToe || held) toePointAt(wr, wp, b, leg.toeOffset, this.toe, 0);
      this.yawS[0] = 0;
      if (held) {
        for (let k = 0; k < 3; k++) vec[k] = this.toe[k] - wp[e3 + k];
        yawToward(this.yawS, 0, vec, 0, hd as Float64Array, ho, nrm);
      }
      const yaw = this.yawS[0];
      if (leg.ramp !== undefined && leg.offset !== undefined && leg.ramp[f] === 1) {
        // ramp or bridge (transitions.ts): the contact edge's correction carried on the source, applied to
        // the point pinned on this frame (the ankle, or the toe on a toe run); the toe does not rise back
        const p = onToe ? this.toe : wp;
        const po = onToe ? 0 : e3;
        for (let k = 0; k < 3; k++) target[k] = p[po + k] + leg.offset[3 * f + k];
        if (onToe) leg.pivot.slack[0] = 0;
      } else {
        // target: anchor horizontally; source height minus the run's lift, kept on its ground level
        const lift = sd[so + 5];
        const ground = sd[so + 4];
        let h = nrm[0] * wp[e3] + nrm[1] * wp[e3 + 1] + nrm[2] * wp[e3 + 2] + fd - lift;
        let low = h;
        if (b.toe >= 0) {
          const t3 = 3 * b.toe;
          const ht = nrm[0] * wp[t3] + nrm[1] * wp[t3 + 1] + nrm[2] * wp[t3 + 2] + fd - lift;
          if (ht < low) low = ht;
        }
        if (onToe) {
          // a toe pin: the toe point's height is the target's; the ground test stays the ankle's and the
          // toe joint's (the floor of a rig without toes is its ankles' level), so the foot's height is the
          // same whichever point is pinned
          const tp = this.toe;
          h = nrm[0] * tp[0] + nrm[1] * tp[1] + nrm[2] * tp[2] + fd - lift;
          // how far the toe may rise back toward its source height when the leg cannot reach (toePivot.ts)
          leg.pivot.slack[0] = lift - (low < ground ? ground - low : 0);
        }
        if (low < ground) h += ground - low;
        const dh = h - sd[so + 3];
        for (let k = 0; k < 3; k++) target[k] = sd[so + k] + nrm[k] * dh;
      }
      vrotate(axis, 0, wr, 4 * b.upper, leg.hinge, 0);
      const dls = leg.solver;
      if (onToe) {
        const pv = leg.pivot;
        pv.yaw[0] = yaw;
        pv.solve(dls, wp, 3 * b.upper, wp, 3 * b.lower, wp, e3, this.toe, 0, target, 0, nrm, 0, axis, 0);
        if (pv.report.outOfReach) leg.limitKind[f] = 1;
        else if (pv.report.kneeAtLimit) leg.limitKind[f] = 2;
        leg.pinError[f] = pv.report.toeError;
        q[WGT] = w;
        qcopy(q, DF, pv.footDelta, 0);
        powUnit(q, DF, WGT);
      } else {
        dls.solve(wp, 3 * b.upper, wp, 3 * b.lower, wp, e3, target, 0, axis, 0);
        const r = dls.report;
        if (r.outOfReach) leg.limitKind[f] = 1;
        else if (r.kneeAtLimit) leg.limitKind[f] = 2;
        leg.pinError[f] = r.pinError;
        if (yaw !== 0) {
          // a heel pin with a held heading: the foot turns about up through the ankle
          const hs = Math.sin(0.5 * yaw);
          q[DF] = nrm[0] * hs;
          q[DF + 1] = nrm[1] * hs;
          q[DF + 2] = nrm[2] * hs;
          q[DF + 3] = Math.cos(0.5 * yaw);
          q[WGT] = w;
          powUnit(q, DF, WGT);
        }
      }
      // weighted deltas: DH = slerp(I, thigh, w), DK = slerp(I, shin * thigh^-1, w), SD = DK * DH
      q[WGT] = w;
      qcopy(q, DH, dls.thighDelta, 0);
      powUnit(q, DH, WGT);
      qmulByConj(q, DK, dls.shinDelta, 0, dls.thighDelta, 0);
      powUnit(q, DK, WGT);
      qmul(q, SD, q, DK, q, DH);
      // thigh local = parentWorld^-1 * DH * thighWorld
      const u4 = 4 * b.upper;
      qmul(q, T0, q, DH, wr, u4);
      const pu = skel.parents[b.upper];
      if (pu >= 0) qmulConj(rot, u4, wr, 4 * pu, q, T0);
      else qcopy(rot, u4, q, T0);
      // shin local = (DH * parentWorld)^-1 * SD * shinWorld
      const l4 = 4 * b.lower;
      qmul(q, T0, q, DH, wr, 4 * skel.parents[b.lower]);
      qmul(q, T1, q, SD, wr, l4);
      qmulConj(rot, l4, q, T0, q, T1);
      // foot local = (SD * parentWorld)^-1 * footWorld (the source world rotation is kept), or on a toe
      // pin (SD * parentWorld)^-1 * DF * footWorld (the foot turned about the toe)
      const f4 = 4 * b.end;
      qmul(q, T0, q, SD, wr, 4 * skel.parents[b.end]);
      if (onToe || yaw !== 0) {
        qmul(q, T1, q, DF, wr, f4);
        qmulConj(rot, f4, q, T0, q, T1);
      } else qmulConj(rot, f4, q, T0, wr, f4);
      for (let k = 0; k < 4; k++) {
        out.rotations[ro + u4 + k] = rot[u4 + k];
        out.rotations[ro + l4 + k] = rot[l4 + k];
        out.rotations[ro + f4 + k] = rot[f4 + k];
      }
    }
  }
}

/**
 * q[o] := slerp(identity, q[o], q[wo]) for a unit quaternion (shortest path; the weight is read from
 * the array so no double is passed to the call).
 */
function powUnit(q: Float64Array, o: number, wo: number): void {
  let x = q[o];
  let y = q[o + 1];
  let z = q[o + 2];
  let w = q[o + 3];
  if (w < 0) {
    x = -x;
    y = -y;
    z = -z;
    w = -w;
  }
  const t = q[wo];
  const s = Math.sqrt(x * x + y * y + z * z);
  if (s < 1e-12 || t === 1) {
    q[o] = x;
    q[o + 1] = y;
    q[o + 2] = z;
    q[o + 3] = w;
    return;
  }
  const half = Math.atan2(s, w) * t;
  const k = Math.sin(half) / s;
  q[o] = x * k;
  q[o + 1] = y * k;
  q[o + 2] = z * k;
  q[o + 3] = Math.cos(half);
}
