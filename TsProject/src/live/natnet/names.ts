/**
 * Motive skeleton bone (segment) names and their Unity `HumanBodyBones` equivalents.
 *
 * Source: NATNET.md §7, from the OptiTrack Unity plugin's Motive convention (Interactml/iml-unity @
 * 6e2558f41d3b : Assets/OptiTrack/Scripts/OptitrackSkeletonAnimator.cs `CacheBoneNameMap`), with the toes
 * mapped to `LeftToes`/`RightToes` (the plugin's 'LeftToeBase' key is not a HumanTrait name), and the finger
 * list of a real Motive capture (facebookresearch/projectaria_tools @ e59d2b1f17d6 :
 * projects/AriaDigitalTwinDatasetTools/data_provider/AriaDigitalTwinSkeletonProvider.cpp).
 * Motive has no UpperChest: the spine is Hip -> Ab -> Chest -> Neck -> Head.
 */
import { HumanBodyBones as H, type HumanBoneName } from '../../core/humanBodyBones';

/** The 21 Motive body bones, parents before children. */
export const MOTIVE_BODY_BONES = [
  'Hip',
  'Ab',
  'Chest',
  'Neck',
  'Head',
  'LShoulder',
  'LUArm',
  'LFArm',
  'LHand',
  'RShoulder',
  'RUArm',
  'RFArm',
  'RHand',
  'LThigh',
  'LShin',
  'LFoot',
  'LToe',
  'RThigh',
  'RShin',
  'RFoot',
  'RToe',
] as const;

const FINGERS = [
  ['Thumb', 'Thumb'],
  ['Index', 'Index'],
  ['Middle', 'Middle'],
  ['Ring', 'Ring'],
  ['Pinky', 'Little'],
] as const;
const PHALANX = ['Proximal', 'Intermediate', 'Distal'] as const;

/** Motive name -> [HumanBodyBones, Motive parent name or ''], in parent-first order (body, then fingers). */
const TABLE: [string, number, string][] = (() => {
  const t: [string, number, string][] = [
    ['Hip', H.Hips, ''],
    ['Ab', H.Spine, 'Hip'],
    ['Chest', H.Chest, 'Ab'],
    ['Neck', H.Neck, 'Chest'],
    ['Head', H.Head, 'Neck'],
  ];
  for (const [s, side] of [
    ['L', 'Left'],
    ['R', 'Right'],
  ] as const) {
    const hb = (n: string) => H[`${side}${n}` as HumanBoneName];
    t.push([`${s}Shoulder`, hb('Shoulder'), 'Chest']);
    t.push([`${s}UArm`, hb('UpperArm'), `${s}Shoulder`]);
    t.push([`${s}FArm`, hb('LowerArm'), `${s}UArm`]);
    t.push([`${s}Hand`, hb('Hand'), `${s}FArm`]);
  }
  for (const [s, side] of [
    ['L', 'Left'],
    ['R', 'Right'],
  ] as const) {
    const hb = (n: string) => H[`${side}${n}` as HumanBoneName];
    t.push([`${s}Thigh`, hb('UpperLeg'), 'Hip']);
    t.push([`${s}Shin`, hb('LowerLeg'), `${s}Thigh`]);
    t.push([`${s}Foot`, hb('Foot'), `${s}Shin`]);
    t.push([`${s}Toe`, hb('Toes'), `${s}Foot`]);
  }
  for (const [s, side] of [
    ['L', 'Left'],
    ['R', 'Right'],
  ] as const) {
    for (const [motive, unity] of FINGERS) {
      for (let k = 0; k < 3; k++) {
        t.push([
          `${s}${motive}${k + 1}`,
          H[`${side}${unity}${PHALANX[k]}` as HumanBoneName],
          k === 0 ? `${s}Hand` : `${s}${motive}${k}`,
        ]);
      }
    }
  }
  return t;
})();

/** All Motive bone names we map (21 body + 30 finger), parents before children. */
export const MOTIVE_BONES: readonly string[] = TABLE.map((e) => e[0]);

const BY_NAME = new Map<string, number>(TABLE.map((e) => [e[0].toLowerCase(), e[1]]));
const PARENT = new Map<string, string>(TABLE.map((e) => [e[0], e[2]]));
const BY_HUMAN: string[] = (() => {
  const a: string[] = [];
  for (const [name, h] of TABLE) a[h] = name;
  return a;
})();

/**
 * The Motive name without an asset prefix: `Skeleton1_LUArm` / `Skeleton1:LUArm` -> `LUArm`. With
 * `assetName`, exactly `<assetName>_` or `<assetName>:` is stripped; without, the part after the last ':' or
 * '_' when that part is a known Motive name.
 */
export function stripMotivePrefix(name: string, assetName?: string): string {
  if (assetName) {
    for (const sep of ['_', ':'])
      if (name.startsWith(assetName + sep)) return name.slice(assetName.length + 1);
  }
  const cut = Math.max(name.lastIndexOf(':'), name.lastIndexOf('_'));
  if (cut >= 0 && BY_NAME.has(name.slice(cut + 1).toLowerCase())) return name.slice(cut + 1);
  return name;
}

/**
 * `HumanBodyBones` index of a Motive bone name (case-insensitive, asset prefix stripped), or -1.
 * A bone named exactly like the asset (`assetName`) is its root and maps to Hips (as in real Motive
 * captures, NATNET.md §7.1).
 */
export function motiveBoneToHuman(name: string, assetName?: string): number {
  if (assetName && name === assetName) return H.Hips;
  return BY_NAME.get(stripMotivePrefix(name, assetName).toLowerCase()) ?? -1;
}

/** Motive bone name of a `HumanBodyBones` index (UpperChest, eyes and jaw have none), or undefined. */
export function humanToMotiveBone(humanBone: number): string | undefined {
  return BY_HUMAN[humanBone];
}

/** Parent of a Motive bone in Motive's hierarchy ('' for Hip), or undefined for an unknown name. */
export function motiveParent(name: string): string | undefined {
  return PARENT.get(name);
}
