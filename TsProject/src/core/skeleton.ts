/**
 * Skeletons as flat arrays, and forward kinematics.
 *
 * Frame: right-handed, Y up, metres, character faces +Z, its left is +X (glTF / VRM 1.0; DESIGN.md).
 * Bones are stored in topological order (`parents[i] < i`), so one forward loop is a full FK pass.
 */
import type { quat } from 'gl-matrix';
import { qcopy, qmulConj } from './flat';
import { HUMAN_BONE_COUNT, HUMAN_BONE_NAMES } from './humanBodyBones';
import { type NumArray, readQuat } from './quat';

/**
 * A skeleton as flat arrays (DESIGN.md, data model): names, parent indices (parents before children), rest
 * local translations (metres) and rotations (`[x, y, z, w]`), and the humanoid map (bone index per
 * HumanBodyBones value, -1 where missing).
 */
export interface Skeleton {
  /** Number of bones `n`. */
  readonly boneCount: number;
  /** Bone names, length `n`, kept exactly as in the source file (spaces, colons, dots included). */
  readonly names: readonly string[];
  /** Parent index per bone, -1 for a root; always `parents[i] < i`. `Int32Array` of length `n`. */
  readonly parents: Int32Array;
  /** Rest (bind) local translation per bone, metres, in the parent's frame. `Float64Array(3n)`. */
  readonly restTranslations: Float64Array;
  /** Rest (bind) local rotation per bone, unit quaternion `[x, y, z, w]`. `Float64Array(4n)`. */
  readonly restRotations: Float64Array;
  /** Bone index per `HumanBodyBones` value, -1 where the rig has no such bone. `Int32Array(55)`. */
  readonly humanoid: Int32Array;
}

/**
 * The input of {@link createSkeleton}: names, parents and rest pose as any array-likes (copied into typed
 * arrays).
 */
export interface SkeletonInit {
  names: readonly string[];
  parents: ArrayLike<number>;
  restTranslations: ArrayLike<number>;
  restRotations: ArrayLike<number>;
  /** Optional humanoid map, length 55 (missing bones -1). Defaults to all -1. */
  humanoid?: ArrayLike<number>;
}

/** Thrown for structurally invalid skeleton data; the message names the bone and the field. */
export class SkeletonError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SkeletonError';
  }
}

/**
 * Build and validate a {@link Skeleton}. Copies the inputs; normalises rest rotations.
 * @throws SkeletonError on a length mismatch, a parent that is not an earlier bone, a non-finite
 * value or a zero-length rotation (the message names the bone and field).
 */
export function createSkeleton(init: SkeletonInit): Skeleton {
  const n = init.names.length;
  const check = (field: string, len: number, want: number) => {
    if (len !== want)
      throw new SkeletonError(`skeleton ${field}: length ${len}, expected ${want} for ${n} bones`);
  };
  check('parents', init.parents.length, n);
  check('restTranslations', init.restTranslations.length, 3 * n);
  check('restRotations', init.restRotations.length, 4 * n);
  const parents = Int32Array.from(init.parents);
  const restTranslations = Float64Array.from(init.restTranslations);
  const restRotations = Float64Array.from(init.restRotations);
  for (let i = 0; i < n; i++) {
    const p = parents[i];
    if (p >= i || p < -1) {
      throw new SkeletonError(
        `bone ${i} '${init.names[i]}': parent ${p} is not an earlier bone (bones must be in topological order)`,
      );
    }
    for (let k = 0; k < 3; k++) {
      if (!Number.isFinite(restTranslations[3 * i + k])) {
        throw new SkeletonError(`bone '${init.names[i]}': rest translation[${k}] is not finite`);
      }
    }
    const o = 4 * i;
    const len = Math.hypot(
      restRotations[o],
      restRotations[o + 1],
      restRotations[o + 2],
      restRotations[o + 3],
    );
    if (!Number.isFinite(len) || len < 1e-12) {
      throw new SkeletonError(`bone '${init.names[i]}': rest rotation is not a valid quaternion`);
    }
    for (let k = 0; k < 4; k++) restRotations[o + k] /= len;
  }
  const humanoid = new Int32Array(HUMAN_BONE_COUNT).fill(-1);
  if (init.humanoid) {
    check('humanoid', init.humanoid.length, HUMAN_BONE_COUNT);
    for (let h = 0; h < HUMAN_BONE_COUNT; h++) {
      const b = init.humanoid[h];
      if (b < -1 || b >= n || !Number.isInteger(b)) {
        throw new SkeletonError(`humanoid map: ${HUMAN_BONE_NAMES[h]} -> ${b} is not a bone index`);
      }
      humanoid[h] = b;
    }
  }
  return { boneCount: n, names: [...init.names], parents, restTranslations, restRotations, humanoid };
}

/** A copy of `skeleton` with another humanoid map (length 55, -1 for missing). */
export function withHumanoid(skeleton: Skeleton, humanoid: ArrayLike<number>): Skeleton {
  return createSkeleton({ ...skeleton, humanoid });
}

/** Index of the bone named exactly `name`, or -1. */
export function boneIndex(skeleton: Skeleton, name: string): number {
  return skeleton.names.indexOf(name);
}

/**
 * Forward kinematics: world rotations and positions from local ones.
 * `localRot` `4n`, `localPos` `3n` (metres, parent frame); `outRot` `4n`, `outPos` `3n` (world).
 * The root's local transform is its world transform. Allocates nothing (flat-array kernels, flat.ts).
 * `outRot`/`outPos` must not alias the inputs.
 */
export function forwardKinematics(
  skeleton: Skeleton,
  localRot: NumArray,
  localPos: NumArray,
  outRot: NumArray,
  outPos: NumArray,
): void {
  // The quaternion product and rotation are written out inline (same formulas as flat.ts): without a
  // JIT (PuerTS on phones, `node --jitless`) every call costs more than the arithmetic it does.
  const parents = skeleton.parents;
  const n = skeleton.boneCount;
  for (let i = 0; i < n; i++) {
    const p = parents[i];
    const i4 = 4 * i;
    const i3 = 3 * i;
    if (p < 0) {
      outRot[i4] = localRot[i4];
      outRot[i4 + 1] = localRot[i4 + 1];
      outRot[i4 + 2] = localRot[i4 + 2];
      outRot[i4 + 3] = localRot[i4 + 3];
      outPos[i3] = localPos[i3];
      outPos[i3 + 1] = localPos[i3 + 1];
      outPos[i3 + 2] = localPos[i3 + 2];
      continue;
    }
    const p4 = 4 * p;
    const p3 = 3 * p;
    const qx = outRot[p4];
    const qy = outRot[p4 + 1];
    const qz = outRot[p4 + 2];
    const qw = outRot[p4 + 3];
    // position: parent + rotate(local translation) as v + 2w(u x v) + 2u x (u x v)
    const x = localPos[i3];
    const y = localPos[i3 + 1];
    const z = localPos[i3 + 2];
    const uvx = qy * z - qz * y;
    const uvy = qz * x - qx * z;
    const uvz = qx * y - qy * x;
    outPos[i3] = outPos[p3] + x + 2 * (qw * uvx + qy * uvz - qz * uvy);
    outPos[i3 + 1] = outPos[p3 + 1] + y + 2 * (qw * uvy + qz * uvx - qx * uvz);
    outPos[i3 + 2] = outPos[p3 + 2] + z + 2 * (qw * uvz + qx * uvy - qy * uvx);
    // rotation: parent * local
    const bx = localRot[i4];
    const by = localRot[i4 + 1];
    const bz = localRot[i4 + 2];
    const bw = localRot[i4 + 3];
    outRot[i4] = qx * bw + qw * bx + qy * bz - qz * by;
    outRot[i4 + 1] = qy * bw + qw * by + qz * bx - qx * bz;
    outRot[i4 + 2] = qz * bw + qw * bz + qx * by - qy * bx;
    outRot[i4 + 3] = qw * bw - qx * bx - qy * by - qz * bz;
  }
}

/**
 * Inverse kinematics of the hierarchy (world -> local): local rotation `inverse(parentWorld) * world`.
 * `worldRot` `4n` in, `outLocalRot` `4n` out (must not alias). Roots copy their world rotation.
 * Allocates nothing.
 */
export function worldToLocalRotations(skeleton: Skeleton, worldRot: NumArray, outLocalRot: NumArray): void {
  const parents = skeleton.parents;
  for (let i = 0; i < skeleton.boneCount; i++) {
    const p = parents[i];
    if (p < 0) qcopy(outLocalRot, 4 * i, worldRot, 4 * i);
    else qmulConj(outLocalRot, 4 * i, worldRot, 4 * p, worldRot, 4 * i);
  }
}

/** Rest-pose world rotations (`Float64Array(4n)`) and positions (`Float64Array(3n)`). Allocates; set-up time only. */
export function restWorld(skeleton: Skeleton): { rotations: Float64Array; positions: Float64Array } {
  const rotations = new Float64Array(4 * skeleton.boneCount);
  const positions = new Float64Array(3 * skeleton.boneCount);
  forwardKinematics(skeleton, skeleton.restRotations, skeleton.restTranslations, rotations, positions);
  return { rotations, positions };
}

/** Children of every bone, computed once (set-up time). */
export function childrenOf(skeleton: Skeleton): number[][] {
  const c: number[][] = Array.from({ length: skeleton.boneCount }, () => []);
  for (let i = 0; i < skeleton.boneCount; i++) if (skeleton.parents[i] >= 0) c[skeleton.parents[i]].push(i);
  return c;
}

/** True when `ancestor` is `bone` or one of its ancestors. */
export function isAncestor(skeleton: Skeleton, ancestor: number, bone: number): boolean {
  for (let b = bone; b >= 0; b = skeleton.parents[b]) if (b === ancestor) return true;
  return false;
}

/** Copy the rest quaternion of bone `i` into `out`. */
export function restRotation(out: quat, skeleton: Skeleton, i: number): quat {
  return readQuat(out, skeleton.restRotations, i);
}
