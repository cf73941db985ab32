/**
 * Virtual hierarchy for IK-style rigs: a humanoid bone that does not hang below its humanoid parent
 * (e.g. RobotExpressive's `Foot.L`, an IK control bone that is a child of the armature root, not of
 * `LowerLeg.L`) is re-parented, for retargeting, under the bone of its humanoid parent with the same
 * rest world transform. The retargeter poses the virtual skeleton and converts back to the real
 * hierarchy, so such a foot follows its shin (rotation and position) like on any other rig.
 */
import { quat, vec3 } from 'gl-matrix';
import {
  createSkeleton,
  HUMAN_BONE_COUNT,
  isAncestor,
  nearestMappedAncestor,
  quat64,
  readQuat,
  readVec3,
  restWorld,
  type Skeleton,
  vec64,
} from '../core';

/**
 * A skeleton in which every humanoid bone hangs below its humanoid parent (for IK-style rigs such as
 * RobotExpressive's feet), with the index maps to and from the real skeleton.
 */
export interface VirtualHierarchy {
  /** The virtual skeleton (bones reordered so parents come first), humanoid map in virtual indices. */
  skeleton: Skeleton;
  /** Real bone index of each virtual bone. */
  realOf: Int32Array;
  /** Virtual bone index of each real bone. */
  virtualOf: Int32Array;
  /** Real indices of the re-parented bones. */
  detached: number[];
  /** True when nothing was re-parented (virtual = real, same order). */
  identity: boolean;
}

/** Build the virtual hierarchy of `skeleton` (see module docs). Set-up time. */
export function virtualizeHumanoid(skeleton: Skeleton): VirtualHierarchy {
  const n = skeleton.boneCount;
  const m = skeleton.humanoid;
  const newParent = Int32Array.from(skeleton.parents);
  const detached: number[] = [];
  for (let h = 0; h < HUMAN_BONE_COUNT; h++) {
    const t = m[h];
    if (t < 0) continue;
    const hp = nearestMappedAncestor(h, (x) => m[x] >= 0);
    if (hp < 0) continue;
    const pt = m[hp];
    if (pt === t || isAncestor(skeleton, pt, t) || isAncestor(skeleton, t, pt)) continue;
    newParent[t] = pt;
    detached.push(t);
  }
  if (detached.length === 0) {
    const id = Int32Array.from({ length: n }, (_, i) => i);
    return { skeleton, realOf: id, virtualOf: Int32Array.from(id), detached, identity: true };
  }
  // depth-first order over the new parent relation, keeping the original order among siblings
  const children: number[][] = Array.from({ length: n }, () => []);
  const roots: number[] = [];
  for (let i = 0; i < n; i++) (newParent[i] < 0 ? roots : children[newParent[i]]).push(i);
  const order: number[] = [];
  const visit = (b: number) => {
    order.push(b);
    for (const c of children[b]) visit(c);
  };
  for (const r of roots) visit(r);
  const realOf = Int32Array.from(order);
  const virtualOf = new Int32Array(n);
  order.forEach((real, v) => {
    virtualOf[real] = v;
  });
  const rest = restWorld(skeleton);
  const rot = new Float64Array(4 * n);
  const tr = new Float64Array(3 * n);
  const q = quat64();
  const pq = quat64();
  const v = vec64();
  const pv = vec64();
  for (let vi = 0; vi < n; vi++) {
    const r = realOf[vi];
    const p = newParent[r];
    if (p === skeleton.parents[r]) {
      rot.set(skeleton.restRotations.subarray(4 * r, 4 * r + 4), 4 * vi);
      tr.set(skeleton.restTranslations.subarray(3 * r, 3 * r + 3), 3 * vi);
      continue;
    }
    // local to the new parent: inverse(parentWorld) * world
    readQuat(pq, rest.rotations, p);
    quat.invert(pq, pq);
    readQuat(q, rest.rotations, r);
    quat.multiply(q, pq, q);
    rot.set(q, 4 * vi);
    readVec3(v, rest.positions, r);
    readVec3(pv, rest.positions, p);
    vec3.sub(v, v, pv);
    vec3.transformQuat(v, v, pq);
    tr.set(v, 3 * vi);
  }
  const humanoid = Int32Array.from(m, (b) => (b >= 0 ? virtualOf[b] : -1));
  const skel = createSkeleton({
    names: order.map((r) => skeleton.names[r]),
    parents: order.map((r) => (newParent[r] >= 0 ? virtualOf[newParent[r]] : -1)),
    restTranslations: tr,
    restRotations: rot,
    humanoid,
  });
  return { skeleton: skel, realOf, virtualOf, detached, identity: false };
}
