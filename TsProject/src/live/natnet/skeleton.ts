/**
 * From a NatNet skeleton description to a core {@link Skeleton}, and from streamed bone poses to a local pose.
 *
 * Frame and units: Motive streams metres, Y up, right-handed (NATNET.md §3), the same axes as our internal
 * frame, so positions and quaternions are used as they come (no axis flip; the Unity bridge mirrors X at its
 * own boundary). Skeleton bones are taken as **parent-relative (local)** poses: Motive's "local" skeleton
 * coordinates, which the OptiTrack Unity plugin expects (it writes each streamed bone into `localPosition` /
 * `localRotation` of a transform parented per the description; Interactml/iml-unity @ 6e2558f41d3b :
 * Assets/OptiTrack/Scripts/OptitrackSkeletonAnimator.cs). The root bone's pose is its world pose.
 * Frame bone ids are composite `(skeletonId << 16) | boneId`; descriptions use the plain bone id
 * (NATNET.md §5.2, whoenig/NatNetSDKCrossplatform @ 4218ed0668d8 : include/NatNetTypes.h `sRigidBodyData`).
 */
import { HUMAN_BONE_COUNT } from '../../core/humanBodyBones';
import type { NumArray } from '../../core/quat';
import { createSkeleton, type Skeleton } from '../../core/skeleton';
import { type NatNetFrame, POSE_STRIDE } from './frame';
import { motiveBoneToHuman } from './names';
import type { SkeletonDescription } from './types';

/** Thrown for a skeleton description that cannot form a skeleton (duplicate ids, cycles, ids over 65535). */
export class NatNetSkeletonError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NatNetSkeletonError';
  }
}

/** How frame bones land in the skeleton built by {@link skeletonFromDescription}. */
export interface NatNetSkeletonMapping {
  /** The description's skeleton id (the high 16 bits of streamed bone ids). */
  skeletonId: number;
  /** Skeleton bone index per description bone id (low 16 bits of a frame bone id), -1 where none. */
  boneIdToIndex: Int32Array;
  /** Description bone id per skeleton bone. */
  boneIds: Int32Array;
}

/**
 * Build a core skeleton from a NatNet skeleton description: bones in topological order (parents first,
 * otherwise in description order), rest translations = bone offsets (metres, parent frame), rest rotations =
 * the NatNet 4.2 rotation offsets (identity before 4.2), names as streamed, and the humanoid map from the
 * Motive names ({@link motiveBoneToHuman}, asset prefix stripped; the first bone claiming a humanoid bone
 * wins). A bone whose `parentId` is not another bone's id is a root.
 * @throws NatNetSkeletonError on duplicate or out-of-range bone ids or a parent cycle; SkeletonError (core)
 * on non-finite offsets.
 */
export function skeletonFromDescription(desc: SkeletonDescription): {
  skeleton: Skeleton;
  mapping: NatNetSkeletonMapping;
} {
  const bones = desc.bones;
  const byId = new Map<number, number>();
  bones.forEach((b, i) => {
    if (!Number.isInteger(b.id) || b.id < 0 || b.id > 0xffff) {
      throw new NatNetSkeletonError(
        `skeleton '${desc.name}': bone '${b.name}' has id ${b.id} outside 0..65535`,
      );
    }
    if (byId.has(b.id)) throw new NatNetSkeletonError(`skeleton '${desc.name}': duplicate bone id ${b.id}`);
    byId.set(b.id, i);
  });
  const parentOf = bones.map((b) => {
    const p = byId.get(b.parentId);
    return p === undefined || b.parentId === b.id ? -1 : p;
  });
  const children: number[][] = bones.map(() => []);
  parentOf.forEach((p, i) => {
    if (p >= 0) children[p].push(i);
  });
  const order: number[] = [];
  const visit = (i: number) => {
    order.push(i);
    for (const c of children[i]) visit(c);
  };
  for (let i = 0; i < bones.length; i++) if (parentOf[i] < 0) visit(i);
  if (order.length !== bones.length) {
    throw new NatNetSkeletonError(`skeleton '${desc.name}': bone parents form a cycle`);
  }
  const indexOf = new Int32Array(bones.length);
  order.forEach((d, k) => {
    indexOf[d] = k;
  });
  const n = bones.length;
  const names: string[] = [];
  const parents = new Int32Array(n);
  const restT = new Float64Array(3 * n);
  const restR = new Float64Array(4 * n);
  const humanoid = new Int32Array(HUMAN_BONE_COUNT).fill(-1);
  let maxId = -1;
  for (const b of bones) maxId = Math.max(maxId, b.id);
  const boneIdToIndex = new Int32Array(maxId + 1).fill(-1);
  const boneIds = new Int32Array(n);
  order.forEach((d, k) => {
    const b = bones[d];
    names.push(b.name);
    parents[k] = parentOf[d] < 0 ? -1 : indexOf[parentOf[d]];
    for (let c = 0; c < 3; c++) restT[3 * k + c] = b.offset[c];
    for (let c = 0; c < 4; c++) restR[4 * k + c] = b.rotationOffset[c];
    boneIdToIndex[b.id] = k;
    boneIds[k] = b.id;
    const h = motiveBoneToHuman(b.name, desc.name);
    if (h >= 0 && humanoid[h] < 0) humanoid[h] = k;
  });
  const skeleton = createSkeleton({
    names,
    parents,
    restTranslations: restT,
    restRotations: restR,
    humanoid,
  });
  return { skeleton, mapping: { skeletonId: desc.id, boneIdToIndex, boneIds } };
}

/**
 * Write the bones of frame skeleton `skeletonIndex` (an index into the frame's skeletons, see
 * {@link NatNetFrame.findSkeleton}) into a local pose of the skeleton built by {@link skeletonFromDescription}:
 * `outRot` (4n, quaternions `[x, y, z, w]`) and `outPos` (3n, metres, parent frame). Bones the frame does
 * not carry keep what `outRot`/`outPos` held (initialise them with the rest pose). Frame bones whose id
 * (low 16 bits) is not in the description are ignored. Returns the number of bones written. Allocates nothing.
 */
export function frameSkeletonToPose(
  frame: NatNetFrame,
  skeletonIndex: number,
  mapping: NatNetSkeletonMapping,
  outRot: NumArray,
  outPos: NumArray,
): number {
  if (skeletonIndex < 0 || skeletonIndex >= frame.skeletonCount) return 0;
  const start = frame.skeletonBoneStart[skeletonIndex];
  const end = start + frame.skeletonBoneCount[skeletonIndex];
  const map = mapping.boneIdToIndex;
  const ids = frame.boneIds;
  const pose = frame.bonePose;
  let written = 0;
  for (let b = start; b < end; b++) {
    const id = ids[b] & 0xffff;
    const k = id < map.length ? map[id] : -1;
    if (k < 0) continue;
    const o = POSE_STRIDE * b;
    outPos[3 * k] = pose[o];
    outPos[3 * k + 1] = pose[o + 1];
    outPos[3 * k + 2] = pose[o + 2];
    outRot[4 * k] = pose[o + 3];
    outRot[4 * k + 1] = pose[o + 4];
    outRot[4 * k + 2] = pose[o + 5];
    outRot[4 * k + 3] = pose[o + 6];
    written++;
  }
  return written;
}
