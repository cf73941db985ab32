/**
 * World-rotation offset retargeting from a source skeleton onto a target skeleton.
 *
 * Calibration (both skeletons in the same reference pose, see referencePose.ts):
 *   `offset_t = inverse(sourceWorld_s) * targetWorld_t` for each target bone t driven by source bone s.
 * Run time: `targetWorld_t = sourceWorld_s * offset_t`, then converted to local rotations
 * (`local_t = inverse(targetWorld_parent) * targetWorld_t`). Target bones without a driver keep their
 * reference-pose local rotation (so an optional bone missing on the source stays neutral, and a bone
 * missing on the target is folded into its nearest driven descendant, whose world rotation is exact).
 *
 * Drivers: humanoid bones drive the same humanoid bone; the spine chain (bones strictly between Hips
 * and Neck, or Head without a neck) and the neck chain (Neck up to Head) are distributed when their
 * lengths differ: target chain bone j of k is driven by source chain bone `ceil((j + 1) * m / k) - 1`
 * of m, i.e. the source chain is split into k groups and each target bone follows its group's last
 * bone, so the chain end (where the arms and head attach) always matches. Each such target bone is
 * then swung (keeping its twist) so its segment ends at the source chain's point of the same
 * arc-length fraction (carried to the target chain start and scaled by the chain length ratio): the
 * target spine follows the source spine's curve and the hips-to-neck direction is kept (`ChainFit`). Unmapped target bones whose
 * name and parent's name equal an unmapped source bone's follow that bone (helper bones, self copies).
 *
 * Hips position: `scaled` (offline default) multiplies the source hips path by the hips-height ratio
 * `k = avatarScale * H_target / H_source` (H = hips height above the ankles in the reference pose,
 * legs straight), so strides fit the legs; `room` (live default) keeps the source
 * hips position and adds the leg-length difference `avatarScale * H_target - H_source` to its height,
 * so the avatar stands where the performer stands. Both assume the floor of each skeleton at y = 0.
 *
 * IK-style rigs whose humanoid bones do not hang below their humanoid parents (an IK foot under the
 * armature root) are retargeted on a virtual hierarchy and converted back (virtualHierarchy.ts).
 *
 * Frames: all world quantities are in the canonical frame of DESIGN.md (Y up, metres). A source whose
 * up axis is not +Y (a Z-up BVH) is turned by a fixed rotation `A` at its roots before anything else.
 */
import {
  type Clip,
  createClip,
  fromTo,
  HumanBodyBones as H,
  type NumArray,
  qmul,
  qmulByConj,
  qmulConj,
  qnormalize,
  readFrame,
  type Skeleton,
  vrotate,
  writeFrame,
} from '../core';
import { RetargeterCalibration } from './retargeterCalibration';
import { RetargetError, type RetargetOptions } from './retargetOptions';
import { estimateContactHeight, upAxisRotation } from './retargetSetup';

export {
  type CalibrationInfo,
  type HipsMode,
  RetargetError,
  type RetargetOptions,
  type UpAxis,
} from './retargetOptions';
export {
  alignRoots,
  computeDrivers,
  estimateContactHeight,
  lowestFootJointHeight,
  nearestAxis,
  upAxisRotation,
} from './retargetSetup';

/**
 * Retargets poses of `source` onto `target`. Create, call {@link Retargeter.calibrate} once, then
 * {@link Retargeter.retargetPose} per frame (allocation-free).
 */
export class Retargeter extends RetargeterCalibration {
  /**
   * Retarget one pose. Inputs: source local rotations `4 * sourceBones` and translations
   * `3 * sourceBones` (metres, source file frame). Outputs: target local rotations `4 * targetBones`
   * and translations `3 * targetBones` (metres; rest translations except the hips and re-parented IK
   * bones). Allocates nothing.
   * @throws RetargetError when called before calibrate().
   */
  retargetPose(
    srcLocalRot: ArrayLike<number>,
    srcLocalPos: ArrayLike<number>,
    outLocalRot: NumArray,
    outLocalPos: NumArray,
  ): void {
    this.computeVirtualPose(srcLocalRot, srcLocalPos);
    this.writeRealPose(outLocalRot, outLocalPos);
  }

  /**
   * Drop shoulder `k`'s twist in place on world rotation `W[4t]` (parent `p`): with the local rotation
   * relative to the reference `D = inverse(R) * inverse(W_p) * W = swing * twist` (twist about the bone
   * axis a, swing-twist decomposition as in core/quat.ts), `W <- W * inverse(twist)`. The bone's
   * direction is unchanged (a twist about a leaves a fixed). Allocates nothing.
   */
  private dropShoulderTwist(W: Float64Array, t: number, p: number, k: number): void {
    const S = this.shoulderData;
    const o = 8 * k;
    const D = this.twistScratch;
    qmulConj(D, 0, W, 4 * p, W, 4 * t); // local L = conj(W_p) * W
    qmulConj(D, 0, S, o, D, 0); // D = conj(R) * L
    // twist = normalize((v.a) a, w)
    const pr = D[0] * S[o + 4] + D[1] * S[o + 5] + D[2] * S[o + 6];
    const n = Math.sqrt(pr * pr + D[3] * D[3]);
    if (!(n > 1e-12)) return; // a half-turn swing: no defined twist
    D[4] = (pr * S[o + 4]) / n;
    D[5] = (pr * S[o + 5]) / n;
    D[6] = (pr * S[o + 6]) / n;
    D[7] = D[3] / n;
    qmulByConj(W, 4 * t, W, 4 * t, D, 4); // W <- W * conj(twist)
  }

  /**
   * Write the local rotations of the bones outside {@link Retargeter.worldNeeded} (undriven and unread
   * by IK: their reference local rotations, constant between calibrations) into `outLocal`
   * (`Float64Array(4n)`, virtual order); other bones are left alone. For callers of
   * `computeVirtualPose(..., outLocal, true)`. Allocates nothing.
   * @throws RetargetError when called before calibrate().
   */
  writeUnneededLocal(outLocal: Float64Array): void {
    if (!this.calibrated) throw new RetargetError('writeUnneededLocal called before calibrate()');
    const un = this.unneededBones;
    const undriven = this.undrivenLocal;
    for (let i = 0; i < un.length; i++) {
      const o4 = 4 * un[i];
      outLocal[o4] = undriven[o4];
      outLocal[o4 + 1] = undriven[o4 + 1];
      outLocal[o4 + 2] = undriven[o4 + 2];
      outLocal[o4 + 3] = undriven[o4 + 3];
    }
  }

  /**
   * Source forward kinematics for computeVirtualPose: normalised local rotations into sRot, world
   * rotations and positions into sWorldRot/sWorldPos. A separate method: without a JIT the split
   * measured a few percent faster than one long function. Allocates nothing.
   */
  private sourceForward(srcLocalRot: ArrayLike<number>, srcLocalPos: ArrayLike<number>): void {
    const src = this.source;
    const sRot = this.sRot;
    // Source forward kinematics in one inline pass: each local quaternion is normalised once (float32
    // clips are unit only to 1e-7; every world rotation below is a product of these and unit offsets,
    // so it stays unit) and kept in sRot; roots are turned by the up-axis alignment A.
    const SW = this.sWorldRot;
    const SP = this.sWorldPos;
    const sParents = src.parents;
    const A = this.alignSource;
    const Ax = A[0];
    const Ay = A[1];
    const Az = A[2];
    const Aw = A[3];
    for (let i = 0; i < src.boneCount; i++) {
      const o4 = 4 * i;
      const o3 = 3 * i;
      let bx = srcLocalRot[o4];
      let by = srcLocalRot[o4 + 1];
      let bz = srcLocalRot[o4 + 2];
      let bw = srcLocalRot[o4 + 3];
      const l = Math.sqrt(bx * bx + by * by + bz * bz + bw * bw);
      bx /= l;
      by /= l;
      bz /= l;
      bw /= l;
      sRot[o4] = bx;
      sRot[o4 + 1] = by;
      sRot[o4 + 2] = bz;
      sRot[o4 + 3] = bw;
      const x = srcLocalPos[o3];
      const y = srcLocalPos[o3 + 1];
      const z = srcLocalPos[o3 + 2];
      const p = sParents[i];
      let qx: number;
      let qy: number;
      let qz: number;
      let qw: number;
      let ox: number;
      let oy: number;
      let oz: number;
      if (p < 0) {
        qx = Ax;
        qy = Ay;
        qz = Az;
        qw = Aw;
        ox = 0;
        oy = 0;
        oz = 0;
      } else {
        const p4 = 4 * p;
        const p3 = 3 * p;
        qx = SW[p4];
        qy = SW[p4 + 1];
        qz = SW[p4 + 2];
        qw = SW[p4 + 3];
        ox = SP[p3];
        oy = SP[p3 + 1];
        oz = SP[p3 + 2];
      }
      // position: origin + rotate(local translation) as v + 2w(u x v) + 2u x (u x v)
      const uvx = qy * z - qz * y;
      const uvy = qz * x - qx * z;
      const uvz = qx * y - qy * x;
      SP[o3] = ox + x + 2 * (qw * uvx + qy * uvz - qz * uvy);
      SP[o3 + 1] = oy + y + 2 * (qw * uvy + qz * uvx - qx * uvz);
      SP[o3 + 2] = oz + z + 2 * (qw * uvz + qx * uvy - qy * uvx);
      // rotation: parent (or A) * local
      SW[o4] = qx * bw + qw * bx + qy * bz - qz * by;
      SW[o4 + 1] = qy * bw + qw * by + qz * bx - qx * bz;
      SW[o4 + 2] = qz * bw + qw * bz + qx * by - qy * bx;
      SW[o4 + 3] = qw * bw - qx * bx - qy * by - qz * bz;
    }
  }

  /**
   * The first half of {@link Retargeter.retargetPose}: pose the internal (virtual) skeleton's world
   * rotations and positions from a source pose, without writing outputs; with `outLocal`
   * (`Float64Array(4n)`, virtual order) also its local rotations. With `skipUnneeded` (only with
   * `outLocal`), bones outside {@link Retargeter.worldNeeded} are not touched at all: their world pose
   * is left as it was and their local rotation, a constant per calibration, is the caller's to write
   * with {@link Retargeter.writeUnneededLocal} (after each calibration, and whenever the caller itself
   * overwrote them); for callers that output the local rotations (the hub), not for
   * {@link Retargeter.writeOutput}. Allocates nothing.
   * @throws RetargetError when called before calibrate().
   */
  computeVirtualPose(
    srcLocalRot: ArrayLike<number>,
    srcLocalPos: ArrayLike<number>,
    outLocal?: Float64Array,
    skipUnneeded = false,
  ): void {
    if (!this.calibrated) throw new RetargetError('retargetPose called before calibrate()');
    this.sourceForward(srcLocalRot, srcLocalPos);
    const src = this.source;
    const vtk = this.vt.skeleton;
    const SW = this.sWorldRot;
    const SP = this.sWorldPos;
    const W = this.vWorldRot;
    const P = this.vWorldPos;
    const parents = vtk.parents;
    const drivers = this.vDrivers;
    const offsets = this.offsets;
    const undriven = this.undrivenLocal;
    const tscale = this.translationScale;
    const hips = vtk.humanoid[H.Hips];
    const head = vtk.humanoid[H.Head];
    const headOffset = this.headOffset;
    const shoulderL = this.shoulderBones[0];
    const shoulderR = this.shoulderBones[1];
    const rest = vtk.restTranslations;
    const d = this.v1;
    const c = this.v3;
    const q2 = this.q2;
    const fitOf = this.fitOf;
    const scaled = this.options.hipsMode === 'scaled';
    const sh = 3 * src.humanoid[H.Hips];
    // Quaternion products and rotations are written out inline (formulas as in core/flat.ts): without
    // a JIT (PuerTS on phones, node --jitless) each call costs more than the arithmetic it does.
    // skip mode: bones outside worldNeeded (undriven, unread) keep what outLocal holds; their local
    // rotation is the constant reference one, written by writeUnneededLocal when it changes
    const order = skipUnneeded && outLocal !== undefined ? this.neededBones : this.allBones;
    for (let i = 0; i < order.length; i++) {
      const t = order[i];
      const p = parents[t];
      const s = drivers[t];
      const o4 = 4 * t;
      const o3 = 3 * t;
      // world rotation: source world * offset, or parent world * reference local
      let ax: number;
      let ay: number;
      let az: number;
      let aw: number;
      let bo: number;
      let B: Float64Array;
      if (s >= 0) {
        const s4 = 4 * s;
        ax = SW[s4];
        ay = SW[s4 + 1];
        az = SW[s4 + 2];
        aw = SW[s4 + 3];
        B = offsets;
        bo = o4;
      } else if (p >= 0) {
        const p4 = 4 * p;
        ax = W[p4];
        ay = W[p4 + 1];
        az = W[p4 + 2];
        aw = W[p4 + 3];
        B = undriven;
        bo = o4;
      } else {
        ax = 0;
        ay = 0;
        az = 0;
        aw = 1;
        B = undriven;
        bo = o4;
      }
      const bx = B[bo];
      const by = B[bo + 1];
      const bz = B[bo + 2];
      const bw = B[bo + 3];
      W[o4] = ax * bw + aw * bx + ay * bz - az * by;
      W[o4 + 1] = ay * bw + aw * by + az * bx - ax * bz;
      W[o4 + 2] = az * bw + aw * bz + ax * by - ay * bx;
      W[o4 + 3] = aw * bw - ax * bx - ay * by - az * bz;
      // (no per-bone normalisation: products of unit quaternions stay unit to rounding)
      if (t === head) {
        qmul(W, o4, W, o4, headOffset, 0);
        qnormalize(W, o4);
      } else if (p >= 0 && (t === shoulderL || t === shoulderR)) {
        this.dropShoulderTwist(W, t, p, t === shoulderL ? 0 : 1);
      }
      // world position
      if (t === hips) {
        if (scaled) {
          const k = this.hipsScale;
          P[o3] = SP[sh] * k;
          P[o3 + 1] = (SP[sh + 1] - this.sourceContact) * k + this.targetContact;
          P[o3 + 2] = SP[sh + 2] * k;
        } else {
          P[o3] = SP[sh];
          P[o3 + 1] = SP[sh + 1] + this.roomLift;
          P[o3 + 2] = SP[sh + 2];
        }
      } else if (p >= 0) {
        const p4 = 4 * p;
        const p3 = 3 * p;
        const qx = W[p4];
        const qy = W[p4 + 1];
        const qz = W[p4 + 2];
        const qw = W[p4 + 3];
        const f = tscale[t];
        const x = rest[o3] * f;
        const y = rest[o3 + 1] * f;
        const z = rest[o3 + 2] * f;
        const uvx = qy * z - qz * y;
        const uvy = qz * x - qx * z;
        const uvz = qx * y - qy * x;
        P[o3] = P[p3] + x + 2 * (qw * uvx + qy * uvz - qz * uvy);
        P[o3 + 1] = P[p3 + 1] + y + 2 * (qw * uvy + qz * uvx - qx * uvz);
        P[o3 + 2] = P[p3 + 2] + z + 2 * (qw * uvz + qx * uvy - qy * uvx);
      } else {
        P[o3] = rest[o3];
        P[o3 + 1] = rest[o3 + 1];
        P[o3 + 2] = rest[o3 + 2];
      }
      // chain fitting: swing this chain bone so the chain follows the source chain's shape
      const k = fitOf[t];
      if (k >= 0) {
        const fit = this.fits[k];
        const j = this.fitSegment[t];
        this.chainPoint(fit, j + 1, d);
        const s0 = 3 * fit.sourcePoints[0];
        const t0 = 3 * fit.targetStart;
        // (the chain length ratio is of unscaled lengths; world positions here carry the avatar and head
        // scale of this bone, so the source chain is scaled by both)
        const fs = fit.scale * tscale[fit.targetNext[j]];
        d[0] = P[t0] + (d[0] - SP[s0]) * fs - P[o3];
        d[1] = P[t0 + 1] + (d[1] - SP[s0 + 1]) * fs - P[o3 + 1];
        d[2] = P[t0 + 2] + (d[2] - SP[s0 + 2]) * fs - P[o3 + 2];
        vrotate(c, 0, W, o4, rest, 3 * fit.targetNext[j]); // current direction
        const l1 = Math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        const l3 = Math.sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
        if (l1 > 1e-12 && l3 > 1e-12) {
          d[0] /= l1;
          d[1] /= l1;
          d[2] /= l1;
          c[0] /= l3;
          c[1] /= l3;
          c[2] /= l3;
          fromTo(q2, c, d);
          qmul(W, o4, q2, 0, W, o4);
          qnormalize(W, o4);
        }
      }
      if (outLocal) {
        // virtual local rotation: conjugate(parent world) * world (inline)
        if (p < 0) {
          outLocal[o4] = W[o4];
          outLocal[o4 + 1] = W[o4 + 1];
          outLocal[o4 + 2] = W[o4 + 2];
          outLocal[o4 + 3] = W[o4 + 3];
        } else if (s < 0 && t !== head && k < 0) {
          outLocal[o4] = undriven[o4];
          outLocal[o4 + 1] = undriven[o4 + 1];
          outLocal[o4 + 2] = undriven[o4 + 2];
          outLocal[o4 + 3] = undriven[o4 + 3];
        } else {
          const p4 = 4 * p;
          const ax = -W[p4];
          const ay = -W[p4 + 1];
          const az = -W[p4 + 2];
          const aw = W[p4 + 3];
          const bx = W[o4];
          const by = W[o4 + 1];
          const bz = W[o4 + 2];
          const bw = W[o4 + 3];
          outLocal[o4] = ax * bw + aw * bx + ay * bz - az * by;
          outLocal[o4 + 1] = ay * bw + aw * by + az * bx - ax * bz;
          outLocal[o4 + 2] = az * bw + aw * bz + ax * by - ay * bx;
          outLocal[o4 + 3] = aw * bw - ax * bx - ay * by - az * bz;
        }
      }
    }
  }

  /**
   * The second half of {@link Retargeter.retargetPose}: real local rotations `4n` and translations `3n`
   * from the internal world pose (as left by computeVirtualPose and any edits). Allocates nothing.
   */
  writeOutput(outLocalRot: NumArray, outLocalPos: NumArray): void {
    this.writeRealPose(outLocalRot, outLocalPos);
  }

  /** Convert the virtual world pose to real local rotations/translations (and real-order world arrays). */
  private writeRealPose(outLocalRot: NumArray, outLocalPos: NumArray): void {
    const tgt = this.target;
    const virtualOf = this.vt.virtualOf;
    const W = this.vWorldRot;
    const P = this.vWorldPos;
    const RW = this.tWorldRot;
    const RP = this.tWorldPos;
    const hipsReal = tgt.humanoid[H.Hips];
    const moved = this.movedReal;
    const restT = tgt.restTranslations;
    const parents = tgt.parents;
    const n = tgt.boneCount;
    if (RW !== W) {
      for (let r = 0; r < n; r++) {
        const v4 = 4 * virtualOf[r];
        const v3 = 3 * virtualOf[r];
        RW[4 * r] = W[v4];
        RW[4 * r + 1] = W[v4 + 1];
        RW[4 * r + 2] = W[v4 + 2];
        RW[4 * r + 3] = W[v4 + 3];
        RP[3 * r] = P[v3];
        RP[3 * r + 1] = P[v3 + 1];
        RP[3 * r + 2] = P[v3 + 2];
      }
    }
    // inline conjugate products and rotations (see computeVirtualPose on why)
    for (let r = 0; r < n; r++) {
      const p = parents[r];
      const r4 = 4 * r;
      const o3 = 3 * r;
      const bx = RW[r4];
      const by = RW[r4 + 1];
      const bz = RW[r4 + 2];
      const bw = RW[r4 + 3];
      if (p < 0) {
        outLocalRot[r4] = bx;
        outLocalRot[r4 + 1] = by;
        outLocalRot[r4 + 2] = bz;
        outLocalRot[r4 + 3] = bw;
      } else {
        // local = conjugate(parent world) * world
        const p4 = 4 * p;
        const ax = -RW[p4];
        const ay = -RW[p4 + 1];
        const az = -RW[p4 + 2];
        const aw = RW[p4 + 3];
        outLocalRot[r4] = ax * bw + aw * bx + ay * bz - az * by;
        outLocalRot[r4 + 1] = ay * bw + aw * by + az * bx - ax * bz;
        outLocalRot[r4 + 2] = az * bw + aw * bz + ax * by - ay * bx;
        outLocalRot[r4 + 3] = aw * bw - ax * bx - ay * by - az * bz;
      }
      if (r === hipsReal || moved[r] === 1) {
        if (p >= 0) {
          // local translation = rotate(world offset) by conjugate(parent world)
          const p4 = 4 * p;
          const p3 = 3 * p;
          const qx = -RW[p4];
          const qy = -RW[p4 + 1];
          const qz = -RW[p4 + 2];
          const qw = RW[p4 + 3];
          const x = RP[o3] - RP[p3];
          const y = RP[o3 + 1] - RP[p3 + 1];
          const z = RP[o3 + 2] - RP[p3 + 2];
          const uvx = qy * z - qz * y;
          const uvy = qz * x - qx * z;
          const uvz = qx * y - qy * x;
          outLocalPos[o3] = x + 2 * (qw * uvx + qy * uvz - qz * uvy);
          outLocalPos[o3 + 1] = y + 2 * (qw * uvy + qz * uvx - qx * uvz);
          outLocalPos[o3 + 2] = z + 2 * (qw * uvz + qx * uvy - qy * uvx);
        } else {
          outLocalPos[o3] = RP[o3];
          outLocalPos[o3 + 1] = RP[o3 + 1];
          outLocalPos[o3 + 2] = RP[o3 + 2];
        }
      } else {
        outLocalPos[o3] = restT[o3];
        outLocalPos[o3 + 1] = restT[o3 + 1];
        outLocalPos[o3 + 2] = restT[o3 + 2];
      }
    }
  }

  /** World rotations `4 * sourceBones` of the last source pose (after up-axis alignment). */
  get lastSourceWorldRotations(): Float64Array {
    return this.sWorldRot;
  }
  /** World positions `3 * sourceBones` of the last source pose (after up-axis alignment), metres. */
  get lastSourceWorldPositions(): Float64Array {
    return this.sWorldPos;
  }
  /** World rotations `4 * targetBones` of the last output pose (real bone order). */
  get lastTargetWorldRotations(): Float64Array {
    return this.tWorldRot;
  }
  /** World positions `3 * targetBones` of the last output pose, metres (real bone order). */
  get lastTargetWorldPositions(): Float64Array {
    return this.tWorldPos;
  }
}

/**
 * Options of {@link retargetClip}: the retargeter's options plus which source frame to calibrate on and how
 * to estimate the contact heights.
 */
export interface RetargetClipOptions extends RetargetOptions {
  /** Frame of the source clip to calibrate on (used by 'first-frame', 'auto' fallback and as-is). Default 0. */
  calibrationFrame?: number;
  /**
   * Estimate `sourceContactHeight` from the clip (the 5th percentile over frames of the lower foot
   * joint's height; see {@link estimateContactHeight}) unless it is given. Default false.
   */
  groundContact?: boolean;
  /** Called every `progressEvery` frames with (framesDone, frameCount). */
  onProgress?: (done: number, total: number) => void;
  progressEvery?: number;
}

/**
 * Retarget a whole clip onto `target`. Returns the clip on the target skeleton (same frame count and
 * frame time) and the calibrated retargeter.
 * @throws RetargetError on a bad calibration frame or calibration failure.
 */
export function retargetClip(
  clip: Clip,
  target: Skeleton,
  options: RetargetClipOptions = {},
): { clip: Clip; retargeter: Retargeter } {
  const cf = options.calibrationFrame ?? 0;
  let opts = options;
  if (options.groundContact && options.sourceContactHeight === undefined) {
    const probe = new Retargeter(clip.skeleton, target, options);
    const pr = new Float64Array(4 * clip.skeleton.boneCount);
    const pp = new Float64Array(3 * clip.skeleton.boneCount);
    readFrame(clip, Math.min(Math.max(0, Math.floor(cf)), clip.frameCount - 1), pr, pp);
    probe.calibrate({ rotations: pr, translations: pp });
    opts = {
      ...options,
      sourceContactHeight: estimateContactHeight(clip, upAxisRotation(probe.info!.sourceUp)),
    };
  }
  const r = new Retargeter(clip.skeleton, target, opts);
  if (!Number.isInteger(cf) || cf < 0 || cf >= clip.frameCount) {
    throw new RetargetError(`calibration frame ${cf}: the clip has frames 0..${clip.frameCount - 1}`);
  }
  const ns = clip.skeleton.boneCount;
  const sr = new Float64Array(4 * ns);
  const sp = new Float64Array(3 * ns);
  readFrame(clip, cf, sr, sp);
  r.calibrate({ rotations: sr, translations: sp });
  const out = createClip(target, clip.frameCount, clip.frameTime, clip.name);
  const tr = new Float64Array(4 * target.boneCount);
  const tp = new Float64Array(3 * target.boneCount);
  const every = options.progressEvery ?? 100;
  for (let f = 0; f < clip.frameCount; f++) {
    readFrame(clip, f, sr, sp);
    r.retargetPose(sr, sp, tr, tp);
    writeFrame(out, f, tr, tp);
    if (options.onProgress && (f % every === every - 1 || f === clip.frameCount - 1))
      options.onProgress(f + 1, clip.frameCount);
  }
  return { clip: out, retargeter: r };
}
