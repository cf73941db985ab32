/**
 * IK figures of a hub run, per limb (left arm, right arm, left leg, right leg), as `kind retarget --ik`
 * reports them:
 * - end-effector error: distance between the IK target and where the hand/foot ended, per frame,
 *   in millimetres; mean and max over frames where the limb's IK weight was above 0;
 * - bend-plane flips: frames where the avatar limb's bend plane (the plane of upper -> lower -> end)
 *   differs from the source limb's by more than {@link BEND_PLANE_LIMIT_DEG} degrees. The plane is
 *   only defined when the limb is bent, so frames where either limb is straighter than
 *   {@link BENT_MIN_DEG} degrees (the angle between its two segments) are not compared; the number of
 *   frames compared is reported too. Normals are compared as oriented (a knee bending the other way
 *   reads 180 degrees).
 * Engine-free; `add` allocates nothing.
 */
import { HumanBodyBones as H, type Skeleton } from '../core';
import type { RetargetHub } from './hub';

/** A limb's bend plane more than this many degrees off the source's counts as a flip. */
export const BEND_PLANE_LIMIT_DEG = 10;
/** A limb straighter than this (degrees between its two segments) has no bend plane and is not compared. */
export const BENT_MIN_DEG = 10;

/**
 * The IK figures of one limb over a run (summary.json `ik.leftArm` ...): end-effector error in millimetres
 * and bend-plane flips.
 */
export interface LimbIkFigures {
  /** Mean end-effector error over IK frames, millimetres (null: no IK frame). */
  meanErrorMm: number | null;
  maxErrorMm: number;
  maxErrorFrame: number;
  /** Frames where the bend plane differs from the source's by more than the limit. */
  bendPlaneFlips: number;
  /** Frames where both limbs were bent enough to compare. */
  bendPlaneCompared: number;
  /** Frames with IK weight above 0. */
  ikFrames: number;
}

/** {@link LimbIkFigures} of the four limbs. */
export type IkFigures = Record<'leftArm' | 'rightArm' | 'leftLeg' | 'rightLeg', LimbIkFigures>;

const NAMES = ['leftArm', 'rightArm', 'leftLeg', 'rightLeg'] as const;
const HUMAN: [number, number, number][] = [
  [H.LeftUpperArm, H.LeftLowerArm, H.LeftHand],
  [H.RightUpperArm, H.RightLowerArm, H.RightHand],
  [H.LeftUpperLeg, H.LeftLowerLeg, H.LeftFoot],
  [H.RightUpperLeg, H.RightLowerLeg, H.RightFoot],
];

const RAD = 180 / Math.PI;
const n1 = new Float64Array(3);
const n2 = new Float64Array(3);

/** Normal of the plane root -> mid -> end into `out`; returns the bend angle in degrees (0 = straight). */
function bendNormal(P: Float64Array, a: number, b: number, c: number, out: Float64Array): number {
  const ux = P[3 * b] - P[3 * a];
  const uy = P[3 * b + 1] - P[3 * a + 1];
  const uz = P[3 * b + 2] - P[3 * a + 2];
  const vx = P[3 * c] - P[3 * b];
  const vy = P[3 * c + 1] - P[3 * b + 1];
  const vz = P[3 * c + 2] - P[3 * b + 2];
  out[0] = uy * vz - uz * vy;
  out[1] = uz * vx - ux * vz;
  out[2] = ux * vy - uy * vx;
  const cross = Math.sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2]);
  return Math.atan2(cross, ux * vx + uy * vy + uz * vz) * RAD;
}

/** Accumulates {@link IkFigures} frame by frame from a hub. */
export class IkQuality {
  private readonly sum = new Float64Array(4);
  private readonly max = new Float64Array(4);
  private readonly maxFrame = new Int32Array(4);
  private readonly flips = new Int32Array(4);
  private readonly compared = new Int32Array(4);
  private readonly ikFrames = new Int32Array(4);
  private readonly src: Int32Array;
  private readonly tgt: Int32Array;
  private frame = 0;

  constructor(
    source: Skeleton,
    private readonly hub: RetargetHub,
  ) {
    const vt = hub.retargeter.virtual.skeleton;
    this.src = Int32Array.from(HUMAN.flat().map((h) => source.humanoid[h]));
    this.tgt = Int32Array.from(HUMAN.flat().map((h) => vt.humanoid[h]));
  }

  /** Take the hub's state after an `update`. Allocates nothing. */
  add(): void {
    const hub = this.hub;
    const SP = hub.retargeter.lastSourceWorldPositions;
    const TP = hub.retargeter.virtualWorldPositions;
    const targets = hub.ikTargets;
    const reached = hub.ikReached;
    for (let l = 0; l < 4; l++) {
      if (hub.ikWeight(l) > 0) {
        const d =
          Math.sqrt(
            (targets[3 * l] - reached[3 * l]) ** 2 +
              (targets[3 * l + 1] - reached[3 * l + 1]) ** 2 +
              (targets[3 * l + 2] - reached[3 * l + 2]) ** 2,
          ) * 1000;
        this.sum[l] += d;
        this.ikFrames[l]++;
        if (d > this.max[l]) {
          this.max[l] = d;
          this.maxFrame[l] = this.frame;
        }
      }
      const s = 3 * l;
      const bs = bendNormal(SP, this.src[s], this.src[s + 1], this.src[s + 2], n1);
      const bt = bendNormal(TP, this.tgt[s], this.tgt[s + 1], this.tgt[s + 2], n2);
      if (bs > BENT_MIN_DEG && bt > BENT_MIN_DEG) {
        this.compared[l]++;
        const cx = n1[1] * n2[2] - n1[2] * n2[1];
        const cy = n1[2] * n2[0] - n1[0] * n2[2];
        const cz = n1[0] * n2[1] - n1[1] * n2[0];
        const ang =
          Math.atan2(Math.sqrt(cx * cx + cy * cy + cz * cz), n1[0] * n2[0] + n1[1] * n2[1] + n1[2] * n2[2]) *
          RAD;
        if (ang > BEND_PLANE_LIMIT_DEG) this.flips[l]++;
      }
    }
    this.frame++;
  }

  /** The figures so far. */
  result(): IkFigures {
    const out = {} as IkFigures;
    NAMES.forEach((name, l) => {
      out[name] = {
        meanErrorMm: this.ikFrames[l] > 0 ? this.sum[l] / this.ikFrames[l] : null,
        maxErrorMm: this.max[l],
        maxErrorFrame: this.maxFrame[l],
        bendPlaneFlips: this.flips[l],
        bendPlaneCompared: this.compared[l],
        ikFrames: this.ikFrames[l],
      };
    });
    return out;
  }
}
