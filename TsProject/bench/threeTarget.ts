/**
 * The three.js side of the retarget benchmark: a target object for `SkeletonUtils.retargetClip` built
 * from OUR skeleton, the bone-name map from the two humanoid maps, and the `localOffsets` that make
 * three.js compute the same world rotations as our retargeter.
 *
 * Why build the target from our skeleton rather than load the GLB with `GLTFLoader.parse`: both sides
 * then have exactly the same bones, names, parents and rest transforms (no doubt about Armature scale
 * folding or node order), and nothing depends on browser APIs that GLTFLoader may touch for textures
 * and images in Node. `SkeletonUtils.retargetClip` only needs an `Object3D` with a `skeleton` whose
 * bones hang under it (it calls `skeleton.pose()`, `updateMatrixWorld()` and reads `children`);
 * a skinned mesh adds nothing to the work it does.
 */
import * as THREE from 'three';
import { HUMAN_BONE_COUNT, quat64, readQuat, type Skeleton } from '../src/core';

export type ThreeTarget = THREE.Object3D & { skeleton: THREE.Skeleton };

/**
 * A `THREE.Group` holding one `THREE.Bone` per bone of `s` (same names, parents, rest local translation
 * and rotation; roots directly under the group, which stays at the identity), with a `THREE.Skeleton`
 * whose bind pose is this rest pose.
 */
export function threeTargetFromSkeleton(s: Skeleton): ThreeTarget {
  const group = new THREE.Group() as unknown as ThreeTarget;
  const bones: THREE.Bone[] = [];
  for (let i = 0; i < s.boneCount; i++) {
    const b = new THREE.Bone();
    b.name = s.names[i];
    b.position.set(s.restTranslations[3 * i], s.restTranslations[3 * i + 1], s.restTranslations[3 * i + 2]);
    b.quaternion.set(
      s.restRotations[4 * i],
      s.restRotations[4 * i + 1],
      s.restRotations[4 * i + 2],
      s.restRotations[4 * i + 3],
    );
    const p = s.parents[i];
    (p < 0 ? group : bones[p]).add(b);
    bones.push(b);
  }
  group.updateMatrixWorld(true);
  group.skeleton = new THREE.Skeleton(bones); // bone inverses from the current (rest) world matrices
  return group;
}

/**
 * SkeletonUtils' `names` option (target bone name -> source bone name) from the humanoid maps: every
 * HumanBodyBones value mapped on both skeletons pairs the two bones. Also returns the source bone index
 * per target bone (-1 when unmapped).
 */
export function namesFromHumanoid(
  source: Skeleton,
  target: Skeleton,
): { names: Record<string, string>; sourceOf: Int32Array } {
  const names: Record<string, string> = {};
  const sourceOf = new Int32Array(target.boneCount).fill(-1);
  for (let h = 0; h < HUMAN_BONE_COUNT; h++) {
    const t = target.humanoid[h];
    const s = source.humanoid[h];
    if (t < 0 || s < 0) continue;
    names[target.names[t]] = source.names[s];
    sourceOf[t] = s;
  }
  return { names, sourceOf };
}

/**
 * SkeletonUtils' `localOffsets` option (target bone name -> rotation matrix), from our calibration:
 * `L_t = inverse(sourceReferenceWorld_s) * targetReferenceWorld_t` for the source bone s that three.js
 * pairs with t. three.js then sets `targetWorld_t = sourceWorld_s * L_t` (SkeletonUtils.retarget:
 * `globalMatrix.makeRotationFromQuaternion(sourceWorldRotation).multiply(localOffsets[name])`), which
 * is our run-time formula, so both compute the same world rotations for those bones when the source
 * needs no up-axis alignment (Y-up files).
 */
export function localOffsetsFrom(
  target: Skeleton,
  sourceOf: Int32Array,
  sourceRefWorld: ArrayLike<number>,
  targetRefWorld: ArrayLike<number>,
): Record<string, THREE.Matrix4> {
  const out: Record<string, THREE.Matrix4> = {};
  const qs = quat64();
  const qt = quat64();
  const a = new THREE.Quaternion();
  const b = new THREE.Quaternion();
  for (let t = 0; t < target.boneCount; t++) {
    const s = sourceOf[t];
    if (s < 0) continue;
    readQuat(qs, sourceRefWorld, s);
    readQuat(qt, targetRefWorld, t);
    a.set(qs[0], qs[1], qs[2], qs[3]).invert();
    b.set(qt[0], qt[1], qt[2], qt[3]);
    a.multiply(b).normalize();
    out[target.names[t]] = new THREE.Matrix4().makeRotationFromQuaternion(a);
  }
  return out;
}

/**
 * Local rotations (`Float64Array(4n)` per frame, frame-major) of a clip made by `SkeletonUtils.retargetClip`
 * on the target built by {@link threeTargetFromSkeleton}: the quaternion track of each bone where there
 * is one, the rest rotation elsewhere (what the bone keeps when the clip plays). Also the hips
 * position track. Returns null for a bone layout the clip does not fit.
 */
export function localsFromThreeClip(
  target: Skeleton,
  clip: THREE.AnimationClip,
  frameCount: number,
): { rotations: Float64Array; hipsPosition: Float64Array | null } {
  const n = target.boneCount;
  const rotations = new Float64Array(frameCount * n * 4);
  for (let f = 0; f < frameCount; f++) rotations.set(target.restRotations, f * n * 4);
  const index = new Map(target.names.map((nm, i) => [nm, i]));
  let hipsPosition: Float64Array | null = null;
  for (const track of clip.tracks) {
    const m = /^\.bones\[(.*)\]\.(quaternion|position)$/.exec(track.name);
    if (!m) continue;
    const i = index.get(m[1]);
    if (i === undefined) continue;
    const v = track.values;
    if (m[2] === 'quaternion') {
      const frames = Math.min(frameCount, v.length / 4);
      for (let f = 0; f < frames; f++)
        for (let k = 0; k < 4; k++) rotations[(f * n + i) * 4 + k] = v[4 * f + k];
    } else if (i === target.humanoid[0]) {
      hipsPosition = Float64Array.from(v);
    }
  }
  return { rotations, hipsPosition };
}
