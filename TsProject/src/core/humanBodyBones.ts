/**
 * Unity's `HumanBodyBones` enumeration: the 55 humanoid bones with Unity's own indices
 * (0 Hips ... 54 UpperChest; `LastBone` = 55 is the count, not a bone).
 *
 * Source: Unity Scripting API, `UnityEngine.HumanBodyBones`
 * (https://docs.unity3d.com/ScriptReference/HumanBodyBones.html) for names and values;
 * the humanoid parent relation follows Unity's `HumanTrait.GetParentBone`
 * (https://docs.unity3d.com/ScriptReference/HumanTrait.GetParentBone.html) and the required set is
 * `HumanTrait.RequiredBone` (15 bones: hips, spine, head, upper/lower arms and legs, hands, feet).
 */

/** Bone names indexed by their `HumanBodyBones` value. Length 55. */
export const HUMAN_BONE_NAMES = [
  'Hips',
  'LeftUpperLeg',
  'RightUpperLeg',
  'LeftLowerLeg',
  'RightLowerLeg',
  'LeftFoot',
  'RightFoot',
  'Spine',
  'Chest',
  'Neck',
  'Head',
  'LeftShoulder',
  'RightShoulder',
  'LeftUpperArm',
  'RightUpperArm',
  'LeftLowerArm',
  'RightLowerArm',
  'LeftHand',
  'RightHand',
  'LeftToes',
  'RightToes',
  'LeftEye',
  'RightEye',
  'Jaw',
  'LeftThumbProximal',
  'LeftThumbIntermediate',
  'LeftThumbDistal',
  'LeftIndexProximal',
  'LeftIndexIntermediate',
  'LeftIndexDistal',
  'LeftMiddleProximal',
  'LeftMiddleIntermediate',
  'LeftMiddleDistal',
  'LeftRingProximal',
  'LeftRingIntermediate',
  'LeftRingDistal',
  'LeftLittleProximal',
  'LeftLittleIntermediate',
  'LeftLittleDistal',
  'RightThumbProximal',
  'RightThumbIntermediate',
  'RightThumbDistal',
  'RightIndexProximal',
  'RightIndexIntermediate',
  'RightIndexDistal',
  'RightMiddleProximal',
  'RightMiddleIntermediate',
  'RightMiddleDistal',
  'RightRingProximal',
  'RightRingIntermediate',
  'RightRingDistal',
  'RightLittleProximal',
  'RightLittleIntermediate',
  'RightLittleDistal',
  'UpperChest',
] as const;

/** A Unity `HumanBodyBones` name, e.g. `'LeftUpperArm'` (one of {@link HUMAN_BONE_NAMES}). */
export type HumanBoneName = (typeof HUMAN_BONE_NAMES)[number];

/** Number of humanoid bones (Unity's `HumanBodyBones.LastBone`). */
export const HUMAN_BONE_COUNT = 55;

/** `HumanBodyBones` values by name, e.g. `HumanBodyBones.LeftUpperArm === 13`. */
export const HumanBodyBones: { readonly [K in HumanBoneName]: number } = Object.freeze(
  Object.fromEntries(HUMAN_BONE_NAMES.map((n, i) => [n, i])) as { [K in HumanBoneName]: number },
);

const H = HumanBodyBones;

/**
 * Parent of each humanoid bone in the humanoid hierarchy (Unity's `HumanTrait.GetParentBone`),
 * -1 for Hips. Where an optional parent is missing on a rig, walk further up with
 * {@link nearestMappedAncestor}.
 */
export const HUMAN_PARENT: readonly number[] = (() => {
  const p = new Array<number>(HUMAN_BONE_COUNT).fill(-1);
  p[H.LeftUpperLeg] = H.Hips;
  p[H.RightUpperLeg] = H.Hips;
  p[H.LeftLowerLeg] = H.LeftUpperLeg;
  p[H.RightLowerLeg] = H.RightUpperLeg;
  p[H.LeftFoot] = H.LeftLowerLeg;
  p[H.RightFoot] = H.RightLowerLeg;
  p[H.LeftToes] = H.LeftFoot;
  p[H.RightToes] = H.RightFoot;
  p[H.Spine] = H.Hips;
  p[H.Chest] = H.Spine;
  p[H.UpperChest] = H.Chest;
  p[H.Neck] = H.UpperChest;
  p[H.Head] = H.Neck;
  p[H.LeftShoulder] = H.UpperChest;
  p[H.RightShoulder] = H.UpperChest;
  p[H.LeftUpperArm] = H.LeftShoulder;
  p[H.RightUpperArm] = H.RightShoulder;
  p[H.LeftLowerArm] = H.LeftUpperArm;
  p[H.RightLowerArm] = H.RightUpperArm;
  p[H.LeftHand] = H.LeftLowerArm;
  p[H.RightHand] = H.RightLowerArm;
  p[H.LeftEye] = H.Head;
  p[H.RightEye] = H.Head;
  p[H.Jaw] = H.Head;
  for (const side of ['Left', 'Right'] as const) {
    for (const finger of ['Thumb', 'Index', 'Middle', 'Ring', 'Little'] as const) {
      const prox = H[`${side}${finger}Proximal`];
      const inter = H[`${side}${finger}Intermediate`];
      const dist = H[`${side}${finger}Distal`];
      p[prox] = H[`${side}Hand`];
      p[inter] = prox;
      p[dist] = inter;
    }
  }
  return p;
})();

/** Unity's required humanoid bones (`HumanTrait.RequiredBone`): 15 bones. */
export const REQUIRED_HUMAN_BONES: readonly number[] = [
  H.Hips,
  H.Spine,
  H.Head,
  H.LeftUpperArm,
  H.RightUpperArm,
  H.LeftLowerArm,
  H.RightLowerArm,
  H.LeftHand,
  H.RightHand,
  H.LeftUpperLeg,
  H.RightUpperLeg,
  H.LeftLowerLeg,
  H.RightLowerLeg,
  H.LeftFoot,
  H.RightFoot,
];

const REQUIRED_SET = new Set(REQUIRED_HUMAN_BONES);

/** True for the 15 bones Unity requires; false for optional ones (shoulders, chest, neck, toes, eyes, jaw, fingers). */
export function isRequiredHumanBone(bone: number): boolean {
  return REQUIRED_SET.has(bone);
}

/** Index of a humanoid bone name (case-sensitive, Unity spelling), or -1. */
export function humanBoneIndex(name: string): number {
  return (HUMAN_BONE_NAMES as readonly string[]).indexOf(name);
}

/**
 * Nearest ancestor of `bone` in the humanoid hierarchy for which `isMapped(ancestor)` holds,
 * or -1 when none (only possible for Hips or an unmapped Hips).
 */
export function nearestMappedAncestor(bone: number, isMapped: (humanBone: number) => boolean): number {
  let p = HUMAN_PARENT[bone];
  while (p >= 0 && !isMapped(p)) p = HUMAN_PARENT[p];
  return p;
}

/** Mirror of a bone across the body's left/right plane (LeftHand <-> RightHand); centre bones map to themselves. */
export function mirrorHumanBone(bone: number): number {
  const name = HUMAN_BONE_NAMES[bone];
  if (name.startsWith('Left')) return humanBoneIndex(`Right${name.slice(4)}`);
  if (name.startsWith('Right')) return humanBoneIndex(`Left${name.slice(5)}`);
  return bone;
}
