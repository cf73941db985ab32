/**
 * The toe point of a foot (issue 20, item 1): the toe joint (HumanBodyBones LeftToes / RightToes) when
 * the rig has one, else a virtual point fixed in the foot bone's frame. Engine-free; set-up time code.
 *
 * Virtual toe (a rig without toe joints, e.g. CMU 10_01 or the DAZ-style takes): the point
 * `ankle + R_foot * offset`, with `offset` in the foot bone's frame, from the rig and the take, no avatar:
 * - forward: the body's forward in the REST pose (left hip joint - right hip joint, crossed with up; the
 *   character's left is +X, forward +Z when up is +Y) in the foot bone's rest frame: a rest pose stands
 *   with the feet pointing forward, a take does not (a dancer's feet turn out: the stance average of the
 *   body's forward in the foot's frame lay 58 deg from the pirouette take's own foot End Site, the rest
 *   pose's 6 deg);
 * - up: world up in the foot bone's frame, averaged over the take's flat-stance frames of that foot
 *   (the ankle within `0.03 L` of its 5th-percentile height and slower than `0.3 L/s` horizontally; the
 *   rest pose's when fewer than 5 qualify): rest poses are not always flat-footed (iClone's points the
 *   foot 87 degrees down); forward is made perpendicular to it;
 * - length and drop: the ankle-to-toe-joint distance `VIRTUAL_TOE_LENGTH = 0.15 L` and the drop of
 *   the toe joint below the ankle on a flat foot `VIRTUAL_TOE_DROP = 0.04 L`, L the rest hip-to-ankle
 *   leg length: `offset = L (sqrt(0.15^2 - 0.04^2) forward - 0.04 up)`. Measured on the shared data's
 *   29 rigs with toe joints: ankle-to-toe 0.136-0.201 L (median 0.147 L); the flat-stance ankle sits
 *   0.022-0.054 m above the toe joint (5th percentiles). Anthropometry agrees: foot length 0.152 H and
 *   hip-to-ankle 0.491 H (Drillis and Contini 1966, in D. A. Winter, "Biomechanics and Motor Control of
 *   Human Movement", fig. 4.1), the ball of the foot ~0.7 of the foot length ahead of the heel and the
 *   ankle ~0.2, so ankle-to-ball ~0.5 * 0.152 H = 0.155 L.
 */
import { type Clip, forwardKinematics, vrotate, vrotateConj } from '../core';
import type { LegBones } from './tracks';
import type { FootName } from './types';

/** Ankle-to-toe-joint distance of a virtual toe, leg lengths. */
export const VIRTUAL_TOE_LENGTH = 0.15;
/** Drop of a virtual toe joint below the ankle on a flat foot, leg lengths. */
export const VIRTUAL_TOE_DROP = 0.04;

const FEET: readonly FootName[] = ['left', 'right'];

/**
 * Virtual toe offsets (see the module doc) of both feet: `Float64Array(3)` in the foot bone's frame,
 * metres, or null for a foot whose rig has a toe joint.
 * @param up unit world up (the floor normal).
 * @param legLength rest hip-to-ankle leg length, metres.
 */
export function virtualToeOffsets(
  clip: Clip,
  bones: Record<FootName, LegBones>,
  legLength: number,
  up: ArrayLike<number>,
): Record<FootName, Float64Array | null> {
  const out: Record<FootName, Float64Array | null> = { left: null, right: null };
  if (bones.left.toe >= 0 && bones.right.toe >= 0) return out;
  const s = clip.skeleton;
  const n = s.boneCount;
  const F = clip.frameCount;
  const wr = new Float64Array(4 * n);
  const wp = new Float64Array(3 * n);
  // per foot and frame: ankle height, ankle position, up in the foot's frame
  const h = { left: new Float64Array(F), right: new Float64Array(F) };
  const pos = { left: new Float64Array(3 * F), right: new Float64Array(3 * F) };
  const upl = { left: new Float64Array(3 * F), right: new Float64Array(3 * F) };
  const w = new Float64Array(3);
  const U = Float64Array.from(up);
  // rest pose: forward = (left hip - right hip) x up, and it and up in each foot's rest frame
  forwardKinematics(s, s.restRotations, s.restTranslations, wr, wp);
  const hipL = 3 * bones.left.upper;
  const hipR = 3 * bones.right.upper;
  const lx = wp[hipL] - wp[hipR];
  const ly = wp[hipL + 1] - wp[hipR + 1];
  const lz = wp[hipL + 2] - wp[hipR + 2];
  const v = Float64Array.of(ly * U[2] - lz * U[1], lz * U[0] - lx * U[2], lx * U[1] - ly * U[0]);
  const restFwd = { left: new Float64Array(3), right: new Float64Array(3) };
  const restUp = { left: new Float64Array(3), right: new Float64Array(3) };
  for (const foot of FEET) {
    vrotateConj(restFwd[foot], 0, wr, 4 * bones[foot].end, v, 0);
    vrotateConj(restUp[foot], 0, wr, 4 * bones[foot].end, U, 0);
  }
  for (let f = 0; f < F; f++) {
    forwardKinematics(
      s,
      clip.rotations.subarray(4 * n * f, 4 * n * (f + 1)),
      clip.translations.subarray(3 * n * f, 3 * n * (f + 1)),
      wr,
      wp,
    );
    for (const foot of FEET) {
      if (bones[foot].toe >= 0) continue;
      const e = bones[foot].end;
      h[foot][f] = U[0] * wp[3 * e] + U[1] * wp[3 * e + 1] + U[2] * wp[3 * e + 2];
      for (let k = 0; k < 3; k++) pos[foot][3 * f + k] = wp[3 * e + k];
      vrotateConj(w, 0, wr, 4 * e, U, 0);
      upl[foot].set(w, 3 * f);
    }
  }
  for (const foot of FEET) {
    if (bones[foot].toe >= 0) continue;
    const level = Float64Array.from(h[foot]).sort()[Math.floor(0.05 * (F - 1))];
    const p = pos[foot];
    const stance: number[] = [];
    for (let f = 0; f < F; f++) {
      const f0 = Math.max(0, f - 1);
      const f1 = Math.min(F - 1, f + 1);
      let dx = p[3 * f1] - p[3 * f0];
      let dy = p[3 * f1 + 1] - p[3 * f0 + 1];
      let dz = p[3 * f1 + 2] - p[3 * f0 + 2];
      const dn = dx * U[0] + dy * U[1] + dz * U[2];
      dx -= dn * U[0];
      dy -= dn * U[1];
      dz -= dn * U[2];
      const speed = Math.hypot(dx, dy, dz) / ((f1 - f0) * clip.frameTime);
      if (h[foot][f] - level <= 0.03 * legLength && speed <= 0.3 * legLength) stance.push(f);
    }
    const a = Array.from(restFwd[foot]);
    const b = stance.length >= 5 ? [0, 0, 0] : Array.from(restUp[foot]);
    if (stance.length >= 5) for (const f of stance) for (let k = 0; k < 3; k++) b[k] += upl[foot][3 * f + k];
    const bl = Math.hypot(b[0], b[1], b[2]) || 1;
    for (let k = 0; k < 3; k++) b[k] /= bl;
    const ab = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    for (let k = 0; k < 3; k++) a[k] -= ab * b[k];
    const al = Math.hypot(a[0], a[1], a[2]) || 1;
    const reach = Math.sqrt(VIRTUAL_TOE_LENGTH ** 2 - VIRTUAL_TOE_DROP ** 2) * legLength;
    const drop = VIRTUAL_TOE_DROP * legLength;
    const o = new Float64Array(3);
    for (let k = 0; k < 3; k++) o[k] = (a[k] / al) * reach - b[k] * drop;
    out[foot] = o;
  }
  return out;
}

/**
 * World positions of a foot's toe point per frame (`Float64Array(3 * frameCount)`, metres): the toe
 * joint when `bones.toe >= 0`, else `ankle + R_foot * offset` (`offset` from {@link virtualToeOffsets}).
 */
export function toePointTrack(clip: Clip, bones: LegBones, offset: Float64Array | null): Float64Array {
  const s = clip.skeleton;
  const n = s.boneCount;
  const F = clip.frameCount;
  const wr = new Float64Array(4 * n);
  const wp = new Float64Array(3 * n);
  const out = new Float64Array(3 * F);
  const t = new Float64Array(3);
  if (bones.toe < 0 && !offset) throw new Error('toePointTrack: a rig without a toe joint needs an offset');
  for (let f = 0; f < F; f++) {
    forwardKinematics(
      s,
      clip.rotations.subarray(4 * n * f, 4 * n * (f + 1)),
      clip.translations.subarray(3 * n * f, 3 * n * (f + 1)),
      wr,
      wp,
    );
    toePointAt(wr, wp, bones, offset, t, 0);
    out.set(t, 3 * f);
  }
  return out;
}

/**
 * The toe point of one posed frame (world rotations `wr`, positions `wp` of every bone) into
 * `out[o..o+2]`. Allocates nothing.
 */
export function toePointAt(
  wr: Float64Array,
  wp: Float64Array,
  bones: LegBones,
  offset: Float64Array | null,
  out: Float64Array,
  o: number,
): void {
  if (bones.toe >= 0 || !offset) {
    const t = 3 * (bones.toe >= 0 ? bones.toe : bones.end);
    out[o] = wp[t];
    out[o + 1] = wp[t + 1];
    out[o + 2] = wp[t + 2];
    return;
  }
  const e = bones.end;
  vrotate(out, o, wr, 4 * e, offset, 0);
  out[o] += wp[3 * e];
  out[o + 1] += wp[3 * e + 1];
  out[o + 2] += wp[3 * e + 2];
}

/**
 * World toe points of both legs per frame for a clip whose rig lacks a toe joint on a side
 (the virtual toe), `Float64Array(3 * frameCount)`; null for a side with a
 * toe joint. Set-up time (forward kinematics of every frame).
 */
export function virtualToeTracks(
  clip: Clip,
  bones: Record<FootName, LegBones>,
  legLength: number,
  up: ArrayLike<number>,
): Record<FootName, Float64Array | null> {
  const offsets = virtualToeOffsets(clip, bones, legLength, up);
  const out: Record<FootName, Float64Array | null> = { left: null, right: null };
  if (!offsets.left && !offsets.right) return out;
  const s = clip.skeleton;
  const n = s.boneCount;
  const F = clip.frameCount;
  const wr = new Float64Array(4 * n);
  const wp = new Float64Array(3 * n);
  for (const side of ['left', 'right'] as const) if (offsets[side]) out[side] = new Float64Array(3 * F);
  for (let f = 0; f < F; f++) {
    forwardKinematics(
      s,
      clip.rotations.subarray(4 * n * f, 4 * n * (f + 1)),
      clip.translations.subarray(3 * n * f, 3 * n * (f + 1)),
      wr,
      wp,
    );
    for (const side of ['left', 'right'] as const) {
      const t = out[side];
      if (t) toePointAt(wr, wp, bones[side], offsets[side], t, 3 * f);
    }
  }
  return out;
}
