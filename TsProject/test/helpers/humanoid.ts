/**
 * Synthetic humanoid skeletons for tests: Y up, metres, facing +Z, left at +X; Mixamo-like names;
 * humanoid map filled. Options vary the rest pose (T or A), proportions, spine length and optional bones.
 */
import { quat, vec3 } from 'gl-matrix';
import { createSkeleton, HumanBodyBones, quat64, type Skeleton } from '../../src/core';

export interface HumanoidSpec {
  pose?: 'T' | 'A';
  /** Uniform scale of all offsets. */
  scale?: number;
  /** Number of spine bones between hips and neck (1..5); mapped to Spine, Chest, UpperChest. */
  spineBones?: number;
  shoulders?: boolean;
  neck?: boolean;
  toes?: boolean;
  fingers?: boolean;
  /** Leg length multiplier (proportions). */
  legs?: number;
  /** Arm length multiplier. */
  arms?: number;
  /** Extra rest rotation applied to every bone's rest (exercise non-identity rest frames), radians about (1,1,1). */
  twistRest?: number;
  prefix?: string;
}

export function makeHumanoid(spec: HumanoidSpec = {}): Skeleton {
  const s = spec.scale ?? 1;
  const legs = spec.legs ?? 1;
  const arms = spec.arms ?? 1;
  const spineN = spec.spineBones ?? 3;
  const pre = spec.prefix ?? '';
  const names: string[] = [];
  const parents: number[] = [];
  const offs: number[][] = [];
  const rots: number[][] = [];
  const map = new Array<number>(55).fill(-1);
  const add = (
    name: string,
    parent: number,
    off: number[],
    human?: keyof typeof HumanBodyBones,
    rot?: number[],
  ) => {
    names.push(pre + name);
    parents.push(parent);
    offs.push(off.map((v) => v * s));
    rots.push(rot ?? [0, 0, 0, 1]);
    const i = names.length - 1;
    if (human) map[HumanBodyBones[human]] = i;
    return i;
  };
  const hips = add('Hips', -1, [0, 1.0 * legs, 0], 'Hips');
  let top = hips;
  for (let k = 0; k < spineN; k++) {
    // map first, last-1 and last like a typical auto-mapper: Spine first, UpperChest last, Chest the one before
    let h: keyof typeof HumanBodyBones | undefined;
    if (k === 0) h = 'Spine';
    else if (spineN >= 3 && k === spineN - 1) h = 'UpperChest';
    else if ((spineN >= 3 && k === spineN - 2) || (spineN === 2 && k === 1)) h = 'Chest';
    top = add(k === 0 ? 'Spine' : `Spine${k}`, top, [0, k === 0 ? 0.1 : 0.45 / spineN, 0], h);
  }
  let headParent = top;
  if (spec.neck ?? true) headParent = add('Neck', top, [0, 0.12, 0], 'Neck');
  add('Head', headParent, [0, 0.1, 0], 'Head');
  for (const side of ['Left', 'Right'] as const) {
    const sx = side === 'Left' ? 1 : -1;
    let armParent = top;
    if (spec.shoulders ?? true)
      armParent = add(`${side}Shoulder`, top, [0.05 * sx, 0.1, 0], `${side}Shoulder`);
    const rest = quat64();
    if (spec.pose === 'A') quat.setAxisAngle(rest, [0, 0, 1], (-sx * Math.PI) / 4);
    const ua = add(`${side}Arm`, armParent, [0.1 * sx, 0, 0], `${side}UpperArm`, Array.from(rest));
    const la = add(`${side}ForeArm`, ua, [0.28 * sx * arms, 0, 0], `${side}LowerArm`);
    const hand = add(`${side}Hand`, la, [0.25 * sx * arms, 0, 0], `${side}Hand`);
    if (spec.fingers ?? true) {
      const m1 = add(`${side}HandMiddle1`, hand, [0.08 * sx, 0, 0], `${side}MiddleProximal`);
      add(`${side}HandMiddle2`, m1, [0.04 * sx, 0, 0], `${side}MiddleIntermediate`);
    }
    const ul = add(`${side}UpLeg`, hips, [0.1 * sx, -0.05, 0], `${side}UpperLeg`);
    const ll = add(`${side}Leg`, ul, [0, -0.45 * legs, 0], `${side}LowerLeg`);
    const foot = add(`${side}Foot`, ll, [0, -0.42 * legs, 0], `${side}Foot`);
    if (spec.toes ?? true) add(`${side}ToeBase`, foot, [0, -0.06, 0.12], `${side}Toes`);
  }
  // Optional non-identity rest frames: every bone's world rest rotation W becomes W * R, with the same
  // geometry: local L' = inv(R) * L * R (roots: L * R) and offsets off' = inv(R) * off.
  const tw = spec.twistRest ?? 0;
  if (tw !== 0) {
    const R = quat.setAxisAngle(quat64(), [Math.SQRT1_2, Math.SQRT1_2, 0], tw);
    const Ri = quat.invert(quat64(), R);
    for (let i = 0; i < names.length; i++) {
      const L = rots[i] as unknown as quat;
      const out =
        parents[i] < 0
          ? quat.multiply(quat64(), L, R)
          : quat.multiply(quat64(), quat.multiply(quat64(), Ri, L), R);
      rots[i] = Array.from(out);
      if (parents[i] >= 0) {
        const v = vec3.transformQuat(new Float64Array(3), offs[i] as unknown as vec3, Ri);
        offs[i] = Array.from(v);
      }
    }
  }
  return createSkeleton({
    names,
    parents,
    restTranslations: offs.flat(),
    restRotations: rots.flat(),
    humanoid: map,
  });
}
