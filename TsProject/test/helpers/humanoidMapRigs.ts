/**
 * Synthetic skeletons in the naming conventions the humanoid auto-mapper must recognise, each with its
 * expected map (HumanBodyBones name -> bone name; every bone not listed must stay unmapped).
 *
 * Geometry: metres, Y up, the character faces +Z and its left is +X, unless a rig says otherwise
 * (the Bandai and FAIR rigs copy the real files' odd rest frames, the cryptovoxels rig faces -Z).
 * Offsets are plausible adult proportions; the hierarchies copy the real files (SOURCES.md) or, for
 * conventions without a file here, the documented hierarchies (3ds Max Biped: thighs under `Spine` and
 * clavicles under `Neck` by default, "Triangle Pelvis"/"Triangle Neck" options).
 */
import {
  createSkeleton,
  HUMAN_BONE_COUNT,
  HUMAN_BONE_NAMES,
  type HumanBoneName,
  isAncestor,
  nearestMappedAncestor,
  type Skeleton,
} from '../../src/core';

export type Off = [number, number, number];
export type Side = 'L' | 'R';
export type Expected = Partial<Record<HumanBoneName, string>>;

/** Incremental skeleton builder (bones in insertion order, which is topological). */
export class Rig {
  names: string[] = [];
  parents: number[] = [];
  offs: Off[] = [];
  add(name: string, parent: number, off: Off): number {
    this.names.push(name);
    this.parents.push(parent);
    this.offs.push(off);
    return this.names.length - 1;
  }
  /** A chain of bones, each the child of the previous; returns their indices. */
  chain(parent: number, bones: [string, Off][]): number[] {
    const out: number[] = [];
    let p = parent;
    for (const [name, off] of bones) {
      p = this.add(name, p, off);
      out.push(p);
    }
    return out;
  }
  build(): Skeleton {
    return createSkeleton({
      names: this.names,
      parents: this.parents,
      restTranslations: this.offs.flat(),
      restRotations: this.names.flatMap(() => [0, 0, 0, 1]),
    });
  }
}

export const SIDE_SIGN: Record<Side, number> = { L: 1, R: -1 };
export const SIDE_WORD: Record<Side, 'Left' | 'Right'> = { L: 'Left', R: 'Right' };
const FINGERS = ['Thumb', 'Index', 'Middle', 'Ring', 'Little'] as const;
const PHALANX = ['Proximal', 'Intermediate', 'Distal'] as const;

/** Offsets of finger f's joints (hand frame, +X = away from the body on the left side). */
function fingerOffsets(f: number, sx: number, joints: number): Off[] {
  const base: Off = f === 0 ? [0.025 * sx, -0.01, 0.03] : [0.09 * sx, 0, 0.035 - 0.02 * f];
  const step: Off = f === 0 ? [0.02 * sx, -0.005, 0.02] : [0.03 * sx, 0, 0];
  return Array.from({ length: joints }, (_, j) => (j === 0 ? base : step));
}

/**
 * Add five fingers under `hand`. `name(f, j)` names joint j of finger f (f: 0 thumb .. 4 little).
 * `metacarpal(f)` optionally names an extra first bone (Rokoko `LeftInHandIndex`). `sx` is the
 * geometric side (+1: toward +X). Returns the expected entries for the first three non-metacarpal joints.
 */
export function addFingers(
  rig: Rig,
  hand: number,
  side: Side,
  joints: number,
  name: (f: number, j: number) => string,
  metacarpal?: (f: number) => string | null,
  sx = SIDE_SIGN[side],
): Expected {
  const exp: Expected = {};
  for (let f = 0; f < 5; f++) {
    let parent = hand;
    const meta = metacarpal?.(f);
    if (meta) parent = rig.add(meta, hand, [0.03 * sx, 0, 0.035 - 0.02 * f]);
    const offs = fingerOffsets(f, sx, joints);
    for (let j = 0; j < joints; j++) {
      const n = name(f, j);
      parent = rig.add(n, parent, offs[j]);
      if (j < 3) exp[`${SIDE_WORD[side]}${FINGERS[f]}${PHALANX[j]}` as HumanBoneName] = n;
    }
  }
  return exp;
}

export interface RigCase {
  label: string;
  skeleton: Skeleton;
  expected: Expected;
}

/** Mixamo (`mixamorig:` prefix or none): 3-bone spine, clavicle `LeftShoulder`, 4-joint fingers, end joints. */
export function mixamo(prefix = 'mixamorig:'): RigCase {
  const r = new Rig();
  const P = (n: string) => prefix + n;
  const hips = r.add(P('Hips'), -1, [0, 1.0, 0]);
  const [, , spine2, , head] = r.chain(hips, [
    [P('Spine'), [0, 0.1, 0]],
    [P('Spine1'), [0, 0.12, 0]],
    [P('Spine2'), [0, 0.12, 0]],
    [P('Neck'), [0, 0.16, 0]],
    [P('Head'), [0, 0.1, 0.01]],
  ]);
  r.add(P('HeadTop_End'), head, [0, 0.18, 0]);
  const exp: Expected = {
    Hips: P('Hips'),
    Spine: P('Spine'),
    Chest: P('Spine1'),
    UpperChest: P('Spine2'),
    Neck: P('Neck'),
    Head: P('Head'),
  };
  for (const s of ['L', 'R'] as const) {
    const W = SIDE_WORD[s];
    const sx = SIDE_SIGN[s];
    r.add(P(`${W}Eye`), head, [0.03 * sx, 0.06, 0.09]);
    exp[`${W}Eye`] = P(`${W}Eye`);
    const [, , , hand] = r.chain(spine2, [
      [P(`${W}Shoulder`), [0.05 * sx, 0.1, -0.02]],
      [P(`${W}Arm`), [0.1 * sx, 0, 0]],
      [P(`${W}ForeArm`), [0.28 * sx, 0, 0]],
      [P(`${W}Hand`), [0.27 * sx, 0, 0]],
    ]);
    const mixFinger = ['Thumb', 'Index', 'Middle', 'Ring', 'Pinky'];
    Object.assign(
      exp,
      addFingers(r, hand, s, 4, (f, j) => P(`${W}Hand${mixFinger[f]}${j + 1}`)),
    );
    const [, , , toe] = r.chain(hips, [
      [P(`${W}UpLeg`), [0.09 * sx, -0.07, 0]],
      [P(`${W}Leg`), [0, -0.44, 0.01]],
      [P(`${W}Foot`), [0, -0.43, -0.03]],
      [P(`${W}ToeBase`), [0, -0.08, 0.11]],
    ]);
    r.add(P(`${W}Toe_End`), toe, [0, 0, 0.08]);
    Object.assign(exp, {
      [`${W}Shoulder`]: P(`${W}Shoulder`),
      [`${W}UpperArm`]: P(`${W}Arm`),
      [`${W}LowerArm`]: P(`${W}ForeArm`),
      [`${W}Hand`]: P(`${W}Hand`),
      [`${W}UpperLeg`]: P(`${W}UpLeg`),
      [`${W}LowerLeg`]: P(`${W}Leg`),
      [`${W}Foot`]: P(`${W}Foot`),
      [`${W}Toes`]: P(`${W}ToeBase`),
    });
  }
  return { label: `Mixamo (prefix '${prefix}')`, skeleton: r.build(), expected: exp };
}

/** Unreal mannequin: pelvis, spine_01..03, clavicle_l, twist helpers, IK bones off the root. */
export function unreal(): RigCase {
  const r = new Rig();
  const root = r.add('root', -1, [0, 0, 0]);
  const pelvis = r.add('pelvis', root, [0, 1.0, 0]);
  const [, , spine3] = r.chain(pelvis, [
    ['spine_01', [0, 0.1, 0]],
    ['spine_02', [0, 0.12, 0]],
    ['spine_03', [0, 0.12, 0]],
    ['neck_01', [0, 0.16, 0]],
    ['head', [0, 0.1, 0.01]],
  ]);
  const exp: Expected = {
    Hips: 'pelvis',
    Spine: 'spine_01',
    Chest: 'spine_02',
    UpperChest: 'spine_03',
    Neck: 'neck_01',
    Head: 'head',
  };
  const ikFoot = r.add('ik_foot_root', root, [0, 0, 0]);
  const ikHand = r.add('ik_hand_root', root, [0, 0, 0]);
  const gun = r.add('ik_hand_gun', ikHand, [-0.5, 1.2, 0.2]);
  for (const s of ['L', 'R'] as const) {
    const W = SIDE_WORD[s];
    const l = s.toLowerCase();
    const sx = SIDE_SIGN[s];
    const [, upper, lower, hand] = r.chain(spine3, [
      [`clavicle_${l}`, [0.03 * sx, 0.1, 0]],
      [`upperarm_${l}`, [0.12 * sx, 0, 0]],
      [`lowerarm_${l}`, [0.28 * sx, 0, 0]],
      [`hand_${l}`, [0.27 * sx, 0, 0]],
    ]);
    r.add(`upperarm_twist_01_${l}`, upper, [0.1 * sx, 0, 0]);
    r.add(`lowerarm_twist_01_${l}`, lower, [0.15 * sx, 0, 0]);
    const ue = ['thumb', 'index', 'middle', 'ring', 'pinky'];
    Object.assign(
      exp,
      addFingers(r, hand, s, 3, (f, j) => `${ue[f]}_0${j + 1}_${l}`),
    );
    const [thigh] = r.chain(pelvis, [
      [`thigh_${l}`, [0.09 * sx, -0.05, 0]],
      [`calf_${l}`, [0, -0.45, 0.01]],
      [`foot_${l}`, [0, -0.42, -0.03]],
      [`ball_${l}`, [0, -0.06, 0.12]],
    ]);
    r.add(`thigh_twist_01_${l}`, thigh, [0, -0.2, 0]);
    r.add(`ik_foot_${l}`, ikFoot, [0.09 * sx, 0.08, 0]);
    r.add(`ik_hand_${l}`, gun, [0.1 * sx, 0, 0]);
    Object.assign(exp, {
      [`${W}Shoulder`]: `clavicle_${l}`,
      [`${W}UpperArm`]: `upperarm_${l}`,
      [`${W}LowerArm`]: `lowerarm_${l}`,
      [`${W}Hand`]: `hand_${l}`,
      [`${W}UpperLeg`]: `thigh_${l}`,
      [`${W}LowerLeg`]: `calf_${l}`,
      [`${W}Foot`]: `foot_${l}`,
      [`${W}Toes`]: `ball_${l}`,
    });
  }
  return { label: 'Unreal', skeleton: r.build(), expected: exp };
}

/** Unity HumanBodyBones names used as bone names: every bone maps to its own name (incl. Jaw, UpperChest). */
export function unityNames(): RigCase {
  const r = new Rig();
  const hips = r.add('Hips', -1, [0, 1.0, 0]);
  const [, , upperChest, , head] = r.chain(hips, [
    ['Spine', [0, 0.1, 0]],
    ['Chest', [0, 0.12, 0]],
    ['UpperChest', [0, 0.12, 0]],
    ['Neck', [0, 0.16, 0]],
    ['Head', [0, 0.1, 0.01]],
  ]);
  r.add('Jaw', head, [0, -0.03, 0.05]);
  const exp: Expected = {
    Hips: 'Hips',
    Spine: 'Spine',
    Chest: 'Chest',
    UpperChest: 'UpperChest',
    Neck: 'Neck',
    Head: 'Head',
    Jaw: 'Jaw',
  };
  for (const s of ['L', 'R'] as const) {
    const W = SIDE_WORD[s];
    const sx = SIDE_SIGN[s];
    r.add(`${W}Eye`, head, [0.03 * sx, 0.06, 0.09]);
    const [, , , hand] = r.chain(upperChest, [
      [`${W}Shoulder`, [0.05 * sx, 0.1, -0.02]],
      [`${W}UpperArm`, [0.1 * sx, 0, 0]],
      [`${W}LowerArm`, [0.28 * sx, 0, 0]],
      [`${W}Hand`, [0.27 * sx, 0, 0]],
    ]);
    addFingers(r, hand, s, 3, (f, j) => `${W}${FINGERS[f]}${PHALANX[j]}`);
    r.chain(hips, [
      [`${W}UpperLeg`, [0.09 * sx, -0.07, 0]],
      [`${W}LowerLeg`, [0, -0.44, 0.01]],
      [`${W}Foot`, [0, -0.43, -0.03]],
      [`${W}Toes`, [0, -0.08, 0.11]],
    ]);
  }
  for (const n of r.names) exp[n as HumanBoneName] = n;
  return { label: 'Unity HumanBodyBones names', skeleton: r.build(), expected: exp };
}

/**
 * 3ds Max Biped (`Bip01` or `Bip001`). Default hierarchy: thighs under `Spine`, clavicles under `Neck`;
 * `triangle` = "Triangle Pelvis" on and "Triangle Neck" off (thighs under `Pelvis`, clavicles under the last spine bone).
 */
export function biped(root = 'Bip01', triangle = false): RigCase {
  const r = new Rig();
  const B = (n: string) => `${root} ${n}`;
  const com = r.add(root, -1, [0, 1.0, 0]);
  r.add(B('Footsteps'), com, [0, -1.0, 0]);
  const pelvis = r.add(B('Pelvis'), com, [0, 0, 0]);
  const [spine, , spine2, neck, head] = r.chain(pelvis, [
    [B('Spine'), [0, 0.1, 0]],
    [B('Spine1'), [0, 0.14, 0]],
    [B('Spine2'), [0, 0.14, 0]],
    [B('Neck'), [0, 0.14, 0]],
    [B('Head'), [0, 0.08, 0.01]],
  ]);
  r.add(B('HeadNub'), head, [0, 0.2, 0]);
  const exp: Expected = {
    Hips: B('Pelvis'),
    Spine: B('Spine'),
    Chest: B('Spine1'),
    UpperChest: B('Spine2'),
    Neck: B('Neck'),
    Head: B('Head'),
  };
  for (const s of ['L', 'R'] as const) {
    const W = SIDE_WORD[s];
    const sx = SIDE_SIGN[s];
    const [, , , hand] = r.chain(triangle ? spine2 : neck, [
      [B(`${s} Clavicle`), [0.02 * sx, triangle ? 0.12 : -0.02, 0]],
      [B(`${s} UpperArm`), [0.14 * sx, 0, 0]],
      [B(`${s} Forearm`), [0.28 * sx, 0, 0]],
      [B(`${s} Hand`), [0.26 * sx, 0, 0]],
    ]);
    Object.assign(
      exp,
      addFingers(r, hand, s, 3, (f, j) => B(`${s} Finger${f}${j === 0 ? '' : j}`)),
    );
    // Biped finger nubs (end joints)
    const [, , , toe] = r.chain(triangle ? pelvis : spine, [
      [B(`${s} Thigh`), [0.09 * sx, triangle ? -0.05 : -0.15, 0]],
      [B(`${s} Calf`), [0, -0.45, 0.01]],
      [B(`${s} Foot`), [0, -0.42, -0.03]],
      [B(`${s} Toe0`), [0, -0.06, 0.12]],
    ]);
    r.add(B(`${s} Toe0Nub`), toe, [0, 0, 0.05]);
    Object.assign(exp, {
      [`${W}Shoulder`]: B(`${s} Clavicle`),
      [`${W}UpperArm`]: B(`${s} UpperArm`),
      [`${W}LowerArm`]: B(`${s} Forearm`),
      [`${W}Hand`]: B(`${s} Hand`),
      [`${W}UpperLeg`]: B(`${s} Thigh`),
      [`${W}LowerLeg`]: B(`${s} Calf`),
      [`${W}Foot`]: B(`${s} Foot`),
      [`${W}Toes`]: B(`${s} Toe0`),
    });
  }
  return {
    label: `3ds Max Biped ('${root}', ${triangle ? 'triangle pelvis' : 'default: thighs under Spine, clavicles under Neck'})`,
    skeleton: r.build(),
    expected: exp,
  };
}

/**
 * CMU BVH as in animated-drawings/cmu1/jumping_jacks.bvh (offsets copied, CMU units * 0.056 m):
 * `LeftShoulder` is the UPPER ARM (after `LeftCollar`), `LeftHip` the thigh (after `LHipJoint`).
 */
export function cmuBvh(): RigCase {
  const u = 0.056;
  const r = new Rig();
  const o = (x: number, y: number, z: number): Off => [x * u, y * u, z * u];
  const hips = r.add('Hips', -1, o(0, 17, 0));
  for (const s of ['L', 'R'] as const) {
    const W = SIDE_WORD[s];
    const sx = SIDE_SIGN[s];
    r.chain(hips, [
      [`${s}HipJoint`, o(0, 0, 0)],
      [`${W}Hip`, o(1.6 * sx, -1.8, 0.67)],
      [`${W}Knee`, o(2.57 * sx, -7.06, 0)],
      [`${W}Ankle`, o(2.52 * sx, -6.92, 0)],
      [`${W}Toe`, o(0.23 * sx, -0.64, 2.1)],
    ]);
  }
  const [, , chest2] = r.chain(hips, [
    ['lowerback', o(0, 0, 0)],
    ['Chest', o(-0.02, 2.08, -0.17)],
    ['Chest2', o(0.05, 2.08, -0.03)],
    ['lowerneck', o(0, 0, 0)],
    ['Neck', o(-0.1, 1.6, 0.31)],
    ['Head', o(0.08, 1.66, -0.31)],
  ]);
  const exp: Expected = {
    Hips: 'Hips',
    Spine: 'lowerback',
    Chest: 'Chest',
    UpperChest: 'Chest2',
    Neck: 'lowerneck',
    Head: 'Head',
  };
  for (const s of ['L', 'R'] as const) {
    const W = SIDE_WORD[s];
    const sx = SIDE_SIGN[s];
    const [, , , , lhand] = r.chain(chest2, [
      [`${W}Collar`, o(0, 0, 0)],
      [`${W}Shoulder`, o(3.5 * sx, 0.73, -0.55)],
      [`${W}Elbow`, o(0, -5.32, 0)],
      [`${W}Wrist`, o(0, -3.48, 0)],
      [`${s.toLowerCase()}hand`, o(0, 0, 0)],
    ]);
    r.add(`${s}Fingers`, lhand, o(0, -0.57, 0));
    r.add(`${s}Thumb`, lhand, o(0, 0, 0.2));
    Object.assign(exp, {
      [`${W}Shoulder`]: `${W}Collar`,
      [`${W}UpperArm`]: `${W}Shoulder`,
      [`${W}LowerArm`]: `${W}Elbow`,
      [`${W}Hand`]: `${W}Wrist`,
      [`${W}ThumbProximal`]: `${s}Thumb`,
      [`${W}UpperLeg`]: `${W}Hip`,
      [`${W}LowerLeg`]: `${W}Knee`,
      [`${W}Foot`]: `${W}Ankle`,
      [`${W}Toes`]: `${W}Toe`,
    });
  }
  return { label: 'CMU BVH (LeftCollar/LeftShoulder/LeftHip trap)', skeleton: r.build(), expected: exp };
}

/** cgspeed CMU (MotionBuilder names): LowerBack, Spine, Spine1, Neck, Neck1, LeftFingerBase, LThumb. */
export function cgspeedCmu(): RigCase {
  const r = new Rig();
  const hips = r.add('Hips', -1, [0, 0.95, 0]);
  const exp: Expected = {
    Hips: 'Hips',
    Spine: 'LowerBack',
    Chest: 'Spine',
    UpperChest: 'Spine1',
    Neck: 'Neck',
    Head: 'Head',
  };
  for (const s of ['L', 'R'] as const) {
    const W = SIDE_WORD[s];
    const sx = SIDE_SIGN[s];
    r.chain(hips, [
      [`${s}HipJoint`, [0, 0, 0]],
      [`${W}UpLeg`, [0.09 * sx, -0.09, 0.04]],
      [`${W}Leg`, [0, -0.42, 0]],
      [`${W}Foot`, [0, -0.4, 0]],
      [`${W}ToeBase`, [0, -0.03, 0.12]],
    ]);
  }
  const [, , spine1] = r.chain(hips, [
    ['LowerBack', [0, 0, 0]],
    ['Spine', [0, 0.12, 0]],
    ['Spine1', [0, 0.12, 0]],
  ]);
  r.chain(spine1, [
    ['Neck', [0, 0.12, 0]],
    ['Neck1', [0, 0.08, 0]],
    ['Head', [0, 0.08, 0]],
  ]);
  for (const s of ['L', 'R'] as const) {
    const W = SIDE_WORD[s];
    const sx = SIDE_SIGN[s];
    const [, , , hand] = r.chain(spine1, [
      [`${W}Shoulder`, [0, 0, 0]],
      [`${W}Arm`, [0.17 * sx, 0.05, 0]],
      [`${W}ForeArm`, [0.28 * sx, 0, 0]],
      [`${W}Hand`, [0.26 * sx, 0, 0]],
    ]);
    const base = r.add(`${W}FingerBase`, hand, [0.03 * sx, 0, 0]);
    r.add(`${W}HandIndex1`, base, [0.05 * sx, 0, 0]);
    r.add(`${s}Thumb`, hand, [0.02 * sx, 0, 0.03]);
    Object.assign(exp, {
      [`${W}Shoulder`]: `${W}Shoulder`,
      [`${W}UpperArm`]: `${W}Arm`,
      [`${W}LowerArm`]: `${W}ForeArm`,
      [`${W}Hand`]: `${W}Hand`,
      [`${W}IndexProximal`]: `${W}HandIndex1`,
      [`${W}ThumbProximal`]: `${s}Thumb`,
      [`${W}UpperLeg`]: `${W}UpLeg`,
      [`${W}LowerLeg`]: `${W}Leg`,
      [`${W}Foot`]: `${W}Foot`,
      [`${W}Toes`]: `${W}ToeBase`,
    });
  }
  return { label: 'cgspeed CMU', skeleton: r.build(), expected: exp };
}

/** DAZ/Poser: hip, abdomen, chest, lCollar, lShldr (upper arm), lButtock (hip helper), lThigh, lShin. */
export function daz(): RigCase {
  const r = new Rig();
  const hip = r.add('hip', -1, [0, 1.0, 0]);
  const [, chest, , head] = r.chain(hip, [
    ['abdomen', [0, 0.2, -0.01]],
    ['chest', [0, 0.12, 0]],
    ['neck', [0, 0.22, -0.02]],
    ['head', [0, 0.07, 0.01]],
  ]);
  const exp: Expected = { Hips: 'hip', Spine: 'abdomen', Chest: 'chest', Neck: 'neck', Head: 'head' };
  for (const s of ['L', 'R'] as const) {
    const W = SIDE_WORD[s];
    const l = s.toLowerCase();
    const sx = SIDE_SIGN[s];
    r.add(`${W.toLowerCase()}Eye`, head, [0.035 * sx, 0.08, 0.08]);
    const [, , , hand] = r.chain(chest, [
      [`${l}Collar`, [0.027 * sx, 0.19, -0.05]],
      [`${l}Shldr`, [0.088 * sx, -0.02, 0.015]],
      [`${l}ForeArm`, [0.28 * sx, -0.017, 0.005]],
      [`${l}Hand`, [0.226 * sx, 0.008, 0.07]],
    ]);
    const daz = ['Thumb', 'Index', 'Mid', 'Ring', 'Pinky'];
    Object.assign(
      exp,
      addFingers(r, hand, s, 3, (f, j) => `${l}${daz[f]}${j + 1}`),
    );
    r.chain(hip, [
      [`${l}Buttock`, [0.088 * sx, 0.044, 0.012]],
      [`${l}Thigh`, [0, -0.017, -0.022]],
      [`${l}Shin`, [0, -0.368, 0.007]],
      [`${l}Foot`, [-0.007 * sx, -0.451, -0.051]],
      [`${l}Toe`, [0, -0.04, 0.12]],
    ]);
    Object.assign(exp, {
      [`${W}Eye`]: `${W.toLowerCase()}Eye`,
      [`${W}Shoulder`]: `${l}Collar`,
      [`${W}UpperArm`]: `${l}Shldr`,
      [`${W}LowerArm`]: `${l}ForeArm`,
      [`${W}Hand`]: `${l}Hand`,
      [`${W}UpperLeg`]: `${l}Thigh`,
      [`${W}LowerLeg`]: `${l}Shin`,
      [`${W}Foot`]: `${l}Foot`,
      [`${W}Toes`]: `${l}Toe`,
    });
  }
  return { label: 'DAZ/Poser', skeleton: r.build(), expected: exp };
}

/** OptiTrack Motive (NATNET.md §7): Hip, Ab, Chest, LShoulder (clavicle), LUArm, LFArm, LThumb1..; optional `<asset>_` prefix. */
export function motive(prefix = ''): RigCase {
  const r = new Rig();
  const P = (n: string) => prefix + n;
  const hip = r.add(P('Hip'), -1, [0, 0.95, 0]);
  const [, chest] = r.chain(hip, [
    [P('Ab'), [0, 0.1, 0]],
    [P('Chest'), [0, 0.25, 0]],
    [P('Neck'), [0, 0.2, 0]],
    [P('Head'), [0, 0.1, 0]],
  ]);
  const exp: Expected = {
    Hips: P('Hip'),
    Spine: P('Ab'),
    Chest: P('Chest'),
    Neck: P('Neck'),
    Head: P('Head'),
  };
  const motiveFinger = ['Thumb', 'Index', 'Middle', 'Ring', 'Pinky'];
  for (const s of ['L', 'R'] as const) {
    const W = SIDE_WORD[s];
    const sx = SIDE_SIGN[s];
    const [, , , hand] = r.chain(chest, [
      [P(`${s}Shoulder`), [0.04 * sx, 0.15, 0]],
      [P(`${s}UArm`), [0.14 * sx, 0, 0]],
      [P(`${s}FArm`), [0.28 * sx, 0, 0]],
      [P(`${s}Hand`), [0.26 * sx, 0, 0]],
    ]);
    Object.assign(
      exp,
      addFingers(r, hand, s, 3, (f, j) => P(`${s}${motiveFinger[f]}${j + 1}`)),
    );
    r.chain(hip, [
      [P(`${s}Thigh`), [0.09 * sx, -0.05, 0]],
      [P(`${s}Shin`), [0, -0.44, 0]],
      [P(`${s}Foot`), [0, -0.42, -0.02]],
      [P(`${s}Toe`), [0, -0.06, 0.13]],
    ]);
    Object.assign(exp, {
      [`${W}Shoulder`]: P(`${s}Shoulder`),
      [`${W}UpperArm`]: P(`${s}UArm`),
      [`${W}LowerArm`]: P(`${s}FArm`),
      [`${W}Hand`]: P(`${s}Hand`),
      [`${W}UpperLeg`]: P(`${s}Thigh`),
      [`${W}LowerLeg`]: P(`${s}Shin`),
      [`${W}Foot`]: P(`${s}Foot`),
      [`${W}Toes`]: P(`${s}Toe`),
    });
  }
  return { label: `OptiTrack Motive (prefix '${prefix}')`, skeleton: r.build(), expected: exp };
}

/**
 * Bandai Namco dataset (offsets copied from dataset-1_walk_normal_001.bvh, cm -> m): every offset runs
 * along the parent's +X, so the rest pose is not a standing pose; names must carry the map.
 */
export function bandai(): RigCase {
  const r = new Rig();
  const c = (x: number, y: number, z: number): Off => [x / 100, y / 100, z / 100];
  const root = r.add('joint_Root', -1, c(0, 0, 0));
  const hips = r.add('Hips', root, c(0, 93.92, -3));
  const [, chest] = r.chain(hips, [
    ['Spine', c(15.74, 0, 0)],
    ['Chest', c(8.98, -0.41, 0)],
    ['Neck', c(16.38, 0, 0)],
    ['Head', c(6.46, 0, 0)],
  ]);
  const exp: Expected = { Hips: 'Hips', Spine: 'Spine', Chest: 'Chest', Neck: 'Neck', Head: 'Head' };
  for (const s of ['L', 'R'] as const) {
    const W = SIDE_WORD[s];
    const sx = SIDE_SIGN[s];
    r.chain(chest, [
      [`Shoulder_${s}`, c(12.99, -0.24, 4.98 * sx)],
      [`UpperArm_${s}`, c(5.35 * sx, 0, 0)],
      [`LowerArm_${s}`, c(24.33 * sx, 0, 0)],
      [`Hand_${s}`, c(22.29 * sx, 0, 0)],
    ]);
    r.chain(hips, [
      [`UpperLeg_${s}`, c(-2.19, -6.47 * sx, 0)],
      [`LowerLeg_${s}`, c(39.08 * sx, 0, 0)],
      [`Foot_${s}`, c(40.99 * sx, 0, 0)],
      [`Toes_${s}`, c(11.75 * sx, 0, 0)],
    ]);
    Object.assign(exp, {
      [`${W}Shoulder`]: `Shoulder_${s}`,
      [`${W}UpperArm`]: `UpperArm_${s}`,
      [`${W}LowerArm`]: `LowerArm_${s}`,
      [`${W}Hand`]: `Hand_${s}`,
      [`${W}UpperLeg`]: `UpperLeg_${s}`,
      [`${W}LowerLeg`]: `LowerLeg_${s}`,
      [`${W}Foot`]: `Foot_${s}`,
      [`${W}Toes`]: `Toes_${s}`,
    });
  }
  return { label: 'Bandai Namco (rest offsets along +X)', skeleton: r.build(), expected: exp };
}

/** Blender / VRM 1.0 sample names: hips, spine, chest, shoulder.L, upper_arm.L, thumb.proximal.L, eye.L, toes.L. */
export function blenderVrm(): RigCase {
  const r = new Rig();
  const root = r.add('root', -1, [0, 0, 0]);
  const hips = r.add('hips', root, [0, 0.85, 0]);
  const [, chest, , head] = r.chain(hips, [
    ['spine', [0, 0.16, 0]],
    ['chest', [0, 0.12, 0]],
    ['neck', [0, 0.29, 0]],
    ['head', [0, 0.14, 0]],
  ]);
  const exp: Expected = { Hips: 'hips', Spine: 'spine', Chest: 'chest', Neck: 'neck', Head: 'head' };
  for (const s of ['L', 'R'] as const) {
    const W = SIDE_WORD[s];
    const sx = SIDE_SIGN[s];
    r.add(`eye.${s}`, head, [0.028 * sx, 0.035, 0.08]);
    const [, , , hand] = r.chain(chest, [
      [`shoulder.${s}`, [0.025 * sx, 0.29, 0]],
      [`upper_arm.${s}`, [0.08 * sx, 0, 0]],
      [`lower_arm.${s}`, [0.32 * sx, 0, 0]],
      [`hand.${s}`, [0.255 * sx, 0, 0]],
    ]);
    const vrm = ['thumb', 'index', 'middle', 'ring', 'little'];
    Object.assign(
      exp,
      addFingers(r, hand, s, 3, (f, j) => `${vrm[f]}.${['proximal', 'intermediate', 'distal'][j]}.${s}`),
    );
    r.chain(hips, [
      [`upper_leg.${s}`, [0.053 * sx, -0.08, 0]],
      [`lower_leg.${s}`, [0, -0.42, 0]],
      [`foot.${s}`, [0, -0.42, 0]],
      [`toes.${s}`, [0, -0.05, 0.12]],
    ]);
    Object.assign(exp, {
      [`${W}Eye`]: `eye.${s}`,
      [`${W}Shoulder`]: `shoulder.${s}`,
      [`${W}UpperArm`]: `upper_arm.${s}`,
      [`${W}LowerArm`]: `lower_arm.${s}`,
      [`${W}Hand`]: `hand.${s}`,
      [`${W}UpperLeg`]: `upper_leg.${s}`,
      [`${W}LowerLeg`]: `lower_leg.${s}`,
      [`${W}Foot`]: `foot.${s}`,
      [`${W}Toes`]: `toes.${s}`,
    });
  }
  return { label: 'Blender / VRM sample names', skeleton: r.build(), expected: exp };
}

/**
 * RobotExpressive-like Blender rig (`UpperArm.L`, `Palm1.L`, `Abdomen`, `Torso`) with IK controls off the
 * root: an IK `Foot.L` and `PoleTarget.L` under `Bone`. `withLegFeet`: the legs also have a real
 * `Foot.L` below `LowerLeg.L` (which must win over the IK one); without it, as in the real file, the IK
 * foot is the only foot (used with a warning). Legs hang off `Body`, the named `Hips` holds only the spine.
 */
export function robotLike(
  withLegFeet: boolean,
): RigCase & { ikFeet: Record<Side, number>; legFeet: Record<Side, number> } {
  const r = new Rig();
  const bone = r.add('Bone', -1, [0, 0, 0]);
  const ikFeet = { L: -1, R: -1 };
  const legFeet = { L: -1, R: -1 };
  for (const s of ['L', 'R'] as const)
    ikFeet[s] = r.add(`Foot.${s}`, bone, [0.6 * SIDE_SIGN[s], 0.03, -0.14]);
  const body = r.add('Body', bone, [0, 1.37, 0.1]);
  const hips = r.add('Hips', body, [0, -0.1, -0.1]);
  const [, torso] = r.chain(hips, [
    ['Abdomen', [0, 0.32, -0.08]],
    ['Torso', [0, 0.48, 0]],
    ['Neck', [0, 0.58, 0.06]],
    ['Head', [0, 0.31, 0.01]],
  ]);
  const exp: Expected = { Hips: 'Body', Spine: 'Abdomen', Chest: 'Torso', Neck: 'Neck', Head: 'Head' };
  for (const s of ['L', 'R'] as const) {
    const W = SIDE_WORD[s];
    const sx = SIDE_SIGN[s];
    r.add(`PoleTarget.${s}`, bone, [0.9 * sx, 1.05, 1.5]);
    const [, , lower] = r.chain(torso, [
      [`Shoulder.${s}`, [0.58 * sx, 0.29, 0.06]],
      [`UpperArm.${s}`, [0.04 * sx, -0.08, 0]],
      [`LowerArm.${s}`, [0.28 * sx, -0.58, -0.11]],
    ]);
    const palm2 = r.add(`Palm2.${s}`, lower, [0.46 * sx, -0.81, 1.0]);
    r.chain(palm2, [
      [`Middle1.${s}`, [-0.12 * sx, -0.23, 0.26]],
      [`Middle2.${s}`, [-0.19 * sx, -0.02, 0]],
    ]);
    r.chain(lower, [
      [`Thumb.${s}`, [0.33 * sx, -0.62, 1.06]],
      [`Thumb2.${s}`, [-0.12 * sx, 0.03, 0.05]],
    ]);
    const palm1 = r.add(`Palm1.${s}`, lower, [0.46 * sx, -0.81, 1.0]);
    r.chain(palm1, [
      [`Index.${s}`, [-0.12 * sx, -0.1, 0.39]],
      [`Index2.${s}`, [-0.19 * sx, -0.02, 0]],
    ]);
    const legs = r.chain(body, [
      [`UpperLeg.${s}`, [0.63 * sx, 0.1, -0.17]],
      [`LowerLeg.${s}`, [0.05 * sx, -0.57, 0.23]],
    ]);
    if (withLegFeet) legFeet[s] = r.add(`Foot.${s}`, legs[1], [-0.04 * sx, -0.88, -0.3]);
    Object.assign(exp, {
      [`${W}Shoulder`]: `Shoulder.${s}`,
      [`${W}UpperArm`]: `UpperArm.${s}`,
      [`${W}LowerArm`]: `LowerArm.${s}`,
      [`${W}Hand`]: `Palm2.${s}`,
      [`${W}MiddleProximal`]: `Middle1.${s}`,
      [`${W}MiddleIntermediate`]: `Middle2.${s}`,
      [`${W}UpperLeg`]: `UpperLeg.${s}`,
      [`${W}LowerLeg`]: `LowerLeg.${s}`,
      [`${W}Foot`]: `Foot.${s}`,
    });
  }
  return {
    label: `RobotExpressive-like (${withLegFeet ? 'real feet in the legs' : 'IK feet only'})`,
    skeleton: r.build(),
    expected: exp,
    ikFeet,
    legFeet,
  };
}

/**
 * cryptovoxels.vrm names (`Left leg` = upper leg, `Left elbow` = lower arm, `Left wrist` = hand,
 * `IndexFinger1_L`, `Thumb0_L`, `_end` joints). Faces -Z like the VRM 0.x file: its left is at -X.
 */
export function cryptovoxels(): RigCase {
  const r = new Rig();
  const hips = r.add('Hips', -1, [0, 0.79, 0]);
  const exp: Expected = { Hips: 'Hips', Spine: 'Spine', Chest: 'Chest', Neck: 'Neck', Head: 'Head' };
  for (const s of ['L', 'R'] as const) {
    const W = SIDE_WORD[s];
    const sx = -SIDE_SIGN[s]; // faces -Z: the left is at -X
    const [, , , toe] = r.chain(hips, [
      [`${W} leg`, [0.064 * sx, -0.069, 0.002]],
      [`${W} knee`, [-0.013 * sx, -0.332, 0.001]],
      [`${W} ankle`, [0.004 * sx, -0.321, -0.008]],
      [`${W} toe`, [-0.009 * sx, -0.033, -0.07]],
    ]);
    r.add(`${W} toe_end`, toe, [0, 0.003, -0.07]);
    Object.assign(exp, {
      [`${W}UpperLeg`]: `${W} leg`,
      [`${W}LowerLeg`]: `${W} knee`,
      [`${W}Foot`]: `${W} ankle`,
      [`${W}Toes`]: `${W} toe`,
    });
  }
  const [, chest] = r.chain(hips, [
    ['Spine', [0, 0.144, -0.008]],
    ['Chest', [0, 0.081, -0.012]],
  ]);
  const [, head] = r.chain(chest, [
    ['Neck', [0, 0.196, -0.001]],
    ['Head', [0, 0.058, 0]],
  ]);
  r.chain(head, [
    ['Head_End', [0, 0.12, 0]],
    ['Head_End_end', [0, 0.093, 0]],
  ]);
  for (const s of ['L', 'R'] as const) {
    const W = SIDE_WORD[s];
    const sx = -SIDE_SIGN[s];
    const [, , , wrist] = r.chain(chest, [
      [`${W} shoulder`, [0.04 * sx, 0.16, 0]],
      [`${W} arm`, [0.097 * sx, -0.008, 0.021]],
      [`${W} elbow`, [0.252 * sx, 0.015, 0.006]],
      [`${W} wrist`, [0.219 * sx, -0.003, 0.005]],
    ]);
    const cv = ['Thumb', 'IndexFinger', 'MiddleFinger', 'RingFinger', 'LittleFinger'];
    Object.assign(
      exp,
      addFingers(r, wrist, s, 3, (f, j) => `${cv[f]}${f === 0 ? j : j + 1}_${s}`, undefined, sx),
    );
    Object.assign(exp, {
      [`${W}Shoulder`]: `${W} shoulder`,
      [`${W}UpperArm`]: `${W} arm`,
      [`${W}LowerArm`]: `${W} elbow`,
      [`${W}Hand`]: `${W} wrist`,
    });
  }
  return { label: 'cryptovoxels.vrm names (faces -Z)', skeleton: r.build(), expected: exp };
}

/** Rokoko (Mixamo preset): metacarpal `LeftInHandIndex` before `LeftHandIndex1..3`; thumbs straight off the hand. */
export function rokoko(): RigCase {
  const r = new Rig();
  const hips = r.add('Hips', -1, [0, 0.94, 0]);
  const [, , spine2] = r.chain(hips, [
    ['Spine', [0, 0.13, 0]],
    ['Spine1', [0, 0.127, 0]],
    ['Spine2', [0, 0.128, 0]],
  ]);
  r.chain(spine2, [
    ['Neck', [0, 0.18, 0]],
    ['Head', [0, 0.11, 0]],
  ]);
  const exp: Expected = {
    Hips: 'Hips',
    Spine: 'Spine',
    Chest: 'Spine1',
    UpperChest: 'Spine2',
    Neck: 'Neck',
    Head: 'Head',
  };
  const rk = ['Thumb', 'Index', 'Middle', 'Ring', 'Pinky'];
  for (const s of ['L', 'R'] as const) {
    const W = SIDE_WORD[s];
    const sx = SIDE_SIGN[s];
    const [, , , hand] = r.chain(spine2, [
      [`${W}Shoulder`, [0.07 * sx, 0.1, 0.02]],
      [`${W}Arm`, [0.135 * sx, 0, 0]],
      [`${W}ForeArm`, [0.261 * sx, 0, 0]],
      [`${W}Hand`, [0.289 * sx, 0, 0]],
    ]);
    Object.assign(
      exp,
      addFingers(
        r,
        hand,
        s,
        3,
        (f, j) => `${W}Hand${rk[f]}${j + 1}`,
        (f) => (f === 0 ? null : `${W}InHand${rk[f]}`),
      ),
    );
    r.chain(hips, [
      [`${W}UpLeg`, [0.081 * sx, 0, 0]],
      [`${W}Leg`, [0, -0.432, 0]],
      [`${W}Foot`, [0, -0.433, 0]],
      [`${W}ToeBase`, [0, -0.05, 0.14]],
    ]);
    Object.assign(exp, {
      [`${W}Shoulder`]: `${W}Shoulder`,
      [`${W}UpperArm`]: `${W}Arm`,
      [`${W}LowerArm`]: `${W}ForeArm`,
      [`${W}Hand`]: `${W}Hand`,
      [`${W}UpperLeg`]: `${W}UpLeg`,
      [`${W}LowerLeg`]: `${W}Leg`,
      [`${W}Foot`]: `${W}Foot`,
      [`${W}Toes`]: `${W}ToeBase`,
    });
  }
  return { label: 'Rokoko (InHand metacarpals)', skeleton: r.build(), expected: exp };
}

/** FAIR (animated-drawings/fair1): Z-up rest skeleton, 4-bone spine Spine..Spine3, `LeftHandEnd` helper. */
export function fairZUp(): RigCase {
  const r = new Rig();
  const u = 0.08;
  const o = (x: number, y: number, z: number): Off => [x * u, y * u, z * u];
  const hips = r.add('Hips', -1, o(0, 0, 11));
  const [, , , spine3] = r.chain(hips, [
    ['Spine', o(0, 1.15, 1.73)],
    ['Spine1', o(0, 0.4, 2.27)],
    ['Spine2', o(0, 0.2, 2.3)],
    ['Spine3', o(0, 0, 2.31)],
  ]);
  r.chain(spine3, [
    ['Neck', o(0, -0.86, 6.05)],
    ['Head', o(0, -0.55, 3.12)],
  ]);
  const exp: Expected = {
    Hips: 'Hips',
    Spine: 'Spine',
    Chest: 'Spine2',
    UpperChest: 'Spine3',
    Neck: 'Neck',
    Head: 'Head',
  };
  for (const s of ['L', 'R'] as const) {
    const W = SIDE_WORD[s];
    const sx = SIDE_SIGN[s];
    const [, , , hand] = r.chain(spine3, [
      [`${W}Shoulder`, o(0.79 * sx, -1.31, 4.26)],
      [`${W}Arm`, o(3.92 * sx, 0, 0)],
      [`${W}ForeArm`, o(6.91 * sx, 0, 0)],
      [`${W}Hand`, o(6.1 * sx, 0, 0)],
    ]);
    r.add(`${W}HandEnd`, hand, o(1.75 * sx, 0, 0));
    r.add(`${W}HandThumb1`, hand, o(0.7 * sx, -1.17, -0.47));
    r.chain(hips, [
      [`${W}UpLeg`, o(2.34 * sx, 0, -0.68)],
      [`${W}Leg`, o(0, 0, -10.74)],
      [`${W}Foot`, o(0, 0, -10.93)],
      [`${W}ToeBase`, o(0, -4.09, -1.49)],
    ]);
    Object.assign(exp, {
      [`${W}Shoulder`]: `${W}Shoulder`,
      [`${W}UpperArm`]: `${W}Arm`,
      [`${W}LowerArm`]: `${W}ForeArm`,
      [`${W}Hand`]: `${W}Hand`,
      [`${W}ThumbProximal`]: `${W}HandThumb1`,
      [`${W}UpperLeg`]: `${W}UpLeg`,
      [`${W}LowerLeg`]: `${W}Leg`,
      [`${W}Foot`]: `${W}Foot`,
      [`${W}Toes`]: `${W}ToeBase`,
    });
  }
  return { label: 'FAIR (Z-up, 4-bone spine)', skeleton: r.build(), expected: exp };
}

/**
 * Motive's "BVH" bone-naming convention (NATNET.md §7.3): Hips, Chest (-> Spine), Chest2 (-> Chest),
 * LeftCollar (-> Shoulder), LeftShoulder (-> UpperArm), LeftHip (-> UpperLeg), LeftToe (-> Toes).
 */
export function motiveBvh(): RigCase {
  const r = new Rig();
  const hips = r.add('Hips', -1, [0, 0.95, 0]);
  const [, chest2] = r.chain(hips, [
    ['Chest', [0, 0.12, 0]],
    ['Chest2', [0, 0.25, 0]],
    ['Neck', [0, 0.2, 0]],
    ['Head', [0, 0.1, 0]],
  ]);
  const exp: Expected = { Hips: 'Hips', Spine: 'Chest', Chest: 'Chest2', Neck: 'Neck', Head: 'Head' };
  for (const s of ['L', 'R'] as const) {
    const W = SIDE_WORD[s];
    const sx = SIDE_SIGN[s];
    r.chain(chest2, [
      [`${W}Collar`, [0.04 * sx, 0.15, 0]],
      [`${W}Shoulder`, [0.14 * sx, 0, 0]],
      [`${W}Elbow`, [0.28 * sx, 0, 0]],
      [`${W}Wrist`, [0.26 * sx, 0, 0]],
    ]);
    r.chain(hips, [
      [`${W}Hip`, [0.09 * sx, -0.05, 0]],
      [`${W}Knee`, [0, -0.44, 0]],
      [`${W}Ankle`, [0, -0.42, -0.02]],
      [`${W}Toe`, [0, -0.06, 0.13]],
    ]);
    Object.assign(exp, {
      [`${W}Shoulder`]: `${W}Collar`,
      [`${W}UpperArm`]: `${W}Shoulder`,
      [`${W}LowerArm`]: `${W}Elbow`,
      [`${W}Hand`]: `${W}Wrist`,
      [`${W}UpperLeg`]: `${W}Hip`,
      [`${W}LowerLeg`]: `${W}Knee`,
      [`${W}Foot`]: `${W}Ankle`,
      [`${W}Toes`]: `${W}Toe`,
    });
  }
  return { label: "OptiTrack Motive 'BVH' naming convention", skeleton: r.build(), expected: exp };
}

/**
 * DAZ Genesis 8 style: `hip` above `pelvis` (which holds the thighs), split bend/twist bones
 * (`lShldrBend`, `lShldrTwist`), a 4-bone spine abdomenLower..chestUpper, `neckLower`/`neckUpper`,
 * carpal bones before the fingers and `lMetatarsals` before `lToe`.
 */
export function genesis(): RigCase {
  const r = new Rig();
  const hip = r.add('hip', -1, [0, 1.0, 0]);
  const pelvis = r.add('pelvis', hip, [0, -0.02, 0]);
  const [, , , chestUpper, , , head] = r.chain(hip, [
    ['abdomenLower', [0, 0.05, 0]],
    ['abdomenUpper', [0, 0.1, 0]],
    ['chestLower', [0, 0.12, 0]],
    ['chestUpper', [0, 0.12, 0]],
    ['neckLower', [0, 0.12, 0]],
    ['neckUpper', [0, 0.05, 0]],
    ['head', [0, 0.05, 0]],
  ]);
  r.add('upperJaw', head, [0, 0.02, 0.08]);
  r.add('lowerJaw', head, [0, -0.02, 0.06]);
  const exp: Expected = {
    Hips: 'hip',
    Spine: 'abdomenLower',
    Chest: 'chestLower',
    UpperChest: 'chestUpper',
    Neck: 'neckLower',
    Head: 'head',
    Jaw: 'lowerJaw',
  };
  const gf = ['Thumb', 'Index', 'Mid', 'Ring', 'Pinky'];
  for (const s of ['L', 'R'] as const) {
    const W = SIDE_WORD[s];
    const l = s.toLowerCase();
    const sx = SIDE_SIGN[s];
    const [, , , , , hand] = r.chain(chestUpper, [
      [`${l}Collar`, [0.03 * sx, 0.1, 0]],
      [`${l}ShldrBend`, [0.12 * sx, 0, 0]],
      [`${l}ShldrTwist`, [0.13 * sx, 0, 0]],
      [`${l}ForearmBend`, [0.15 * sx, 0, 0]],
      [`${l}ForearmTwist`, [0.13 * sx, 0, 0]],
      [`${l}Hand`, [0.13 * sx, 0, 0]],
    ]);
    Object.assign(
      exp,
      addFingers(
        r,
        hand,
        s,
        3,
        (f, j) => `${l}${gf[f]}${j + 1}`,
        (f) => (f === 0 ? null : `${l}Carpal${f}`),
      ),
    );
    r.chain(pelvis, [
      [`${l}ThighBend`, [0.09 * sx, -0.05, 0]],
      [`${l}ThighTwist`, [0, -0.2, 0]],
      [`${l}Shin`, [0, -0.25, 0.01]],
      [`${l}Foot`, [0, -0.42, -0.03]],
      [`${l}Metatarsals`, [0, -0.04, 0.05]],
      [`${l}Toe`, [0, -0.02, 0.08]],
    ]);
    Object.assign(exp, {
      [`${W}Shoulder`]: `${l}Collar`,
      [`${W}UpperArm`]: `${l}ShldrBend`,
      [`${W}LowerArm`]: `${l}ForearmBend`,
      [`${W}Hand`]: `${l}Hand`,
      [`${W}UpperLeg`]: `${l}ThighBend`,
      [`${W}LowerLeg`]: `${l}Shin`,
      [`${W}Foot`]: `${l}Foot`,
      [`${W}Toes`]: `${l}Toe`,
    });
  }
  return { label: 'DAZ Genesis 8 (bend/twist bones, hip above pelvis)', skeleton: r.build(), expected: exp };
}

/** Every named convention above. */
export function namedRigs(): RigCase[] {
  return [
    mixamo('mixamorig:'),
    mixamo(''),
    mixamo('Character1:'),
    unreal(),
    unityNames(),
    biped('Bip01', false),
    biped('Bip001', true),
    cmuBvh(),
    cgspeedCmu(),
    daz(),
    motive(''),
    motive('Skeleton1_'),
    motiveBvh(),
    genesis(),
    bandai(),
    blenderVrm(),
    robotLike(true),
    cryptovoxels(),
    rokoko(),
    fairZUp(),
  ];
}

/** The map as HumanBodyBones name -> bone name (mapped bones only). */
export function mapByName(skeleton: Skeleton, humanoid: ArrayLike<number>): Expected {
  const out: Expected = {};
  for (let h = 0; h < HUMAN_BONE_COUNT; h++) {
    if (humanoid[h] >= 0) out[HUMAN_BONE_NAMES[h]] = skeleton.names[humanoid[h]];
  }
  return out;
}

/** Humanoid bones whose nearest mapped humanoid ancestor is not one of their skeleton ancestors. */
export function inconsistentBones(skeleton: Skeleton, humanoid: ArrayLike<number>): string[] {
  const out: string[] = [];
  for (let h = 0; h < HUMAN_BONE_COUNT; h++) {
    const b = humanoid[h];
    if (b < 0) continue;
    const p = nearestMappedAncestor(h, (x) => humanoid[x] >= 0);
    if (p >= 0 && (humanoid[p] === b || !isAncestor(skeleton, humanoid[p], b))) out.push(HUMAN_BONE_NAMES[h]);
  }
  return out;
}
