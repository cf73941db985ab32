/**
 * BVH joint names -> our 21 pose joints (PUPPET_JOINTS), for AnimatedDrawings retarget configs
 * (retargetCfg.ts) and for character joints named like BVH joints (skeleton.ts skeletonFromNames).
 * Engine-free.
 */
import { PUPPET_JOINTS, type PuppetJointName } from './types';

/**
 * BVH joint names of AnimatedDrawings' motion skeletons (and Mixamo's) -> our 21 pose joints, two tables
 * because one name means two places: `LeftShoulder` is the CLAVICLE in the fair1 / Mixamo / Rokoko
 * skeletons (its child LeftArm is the shoulder joint) and the SHOULDER JOINT in the CMU skeleton (cmu1:
 * LeftCollar is its clavicle, LeftElbow, LeftWrist follow). A config naming LeftArm / LeftForeArm / LeftUpLeg
 * reads as fair1; one naming LeftElbow / LeftWrist / LeftKnee / LeftAnkle / LeftCollar as CMU; fair1 otherwise.
 * Names compare case-insensitively after dropping a namespace prefix (`mixamorig:`). Our own names
 * (PUPPET_JOINTS) are accepted too.
 *
 * Where the places differ: a BVH clavicle starts at the spine's top, our clavicle bone at Neck (the
 * shoulder midpoint), so `LeftShoulder` (fair1) / `LeftCollar` (CMU) -> Neck; the spine joints lie on the
 * line Hips -> Neck in our skeleton (Spine, Chest at 1/3, 2/3), so any spine joint gives the spine's
 * direction from Hips; hand and toe ends (`LeftHandEnd`, `LeftToeBase`, finger and thumb joints) -> HandTip /
 * Toes. A pair that lands on one joint (Spine2 -> Spine3) is degenerate: the bone keeps its parent's angle.
 */
const COMMON: Record<string, PuppetJointName> = {
  hips: 'Hips',
  pelvis: 'Hips',
  spine: 'Spine',
  spine1: 'Spine',
  spine2: 'Chest',
  spine3: 'Chest',
  chest: 'Chest',
  chest2: 'Chest',
  upperchest: 'Chest',
  lowerback: 'Spine',
  lowerneck: 'Neck',
  neck: 'Neck',
  neck1: 'Neck',
  upperneck: 'Neck',
  head: 'Head',
  headend: 'Head',
  head_end: 'Head',
  headtop_end: 'Head',
};
const FAIR1_SIDE: Record<string, string> = {
  shoulder: 'Neck',
  arm: 'UpperArm',
  forearm: 'LowerArm',
  hand: 'Hand',
  handend: 'HandTip',
  hand_end: 'HandTip',
  handthumb1: 'HandTip',
  handindex1: 'HandTip',
  handmiddle1: 'HandTip',
  upleg: 'UpperLeg',
  leg: 'LowerLeg',
  foot: 'Foot',
  toebase: 'Toes',
  toe: 'Toes',
  toe_end: 'Toes',
  toeend: 'Toes',
};
const CMU_SIDE: Record<string, string> = {
  collar: 'Neck',
  shoulder: 'UpperArm',
  elbow: 'LowerArm',
  wrist: 'Hand',
  hand: 'HandTip',
  fingers: 'HandTip',
  thumb: 'HandTip',
  hipjoint: 'Hips',
  hip: 'UpperLeg',
  knee: 'LowerLeg',
  ankle: 'Foot',
  toe: 'Toes',
};
/** CMU's abbreviations: lhand, LFingers, LThumb, LHipJoint. */
const CMU_SHORT: Record<string, string> = {
  hand: 'hand',
  fingers: 'fingers',
  thumb: 'thumb',
  hipjoint: 'hipjoint',
};

/** The BVH naming family a retarget config's joints use: AnimatedDrawings' FAIR skeleton or CMU's. */
export type BvhFamily = 'fair1' | 'cmu';

/** Which table a set of BVH names reads with (see the tables' doc). */
export function bvhFamily(names: readonly string[]): BvhFamily {
  const n = names.map(strip);
  const has = (...xs: string[]) => xs.some((x) => n.includes(`left${x}`) || n.includes(`right${x}`));
  if (has('arm', 'forearm', 'upleg')) return 'fair1';
  if (has('elbow', 'wrist', 'knee', 'ankle', 'collar')) return 'cmu';
  return 'fair1';
}

const strip = (name: string) => name.replace(/^.*:/, '').toLowerCase();
/** table[key] when the table itself has the key (never a prototype's member such as `constructor`). */
const own = <T>(table: Record<string, T>, key: string): T | undefined =>
  Object.keys(table).includes(key) ? table[key] : undefined;

/** A BVH joint name -> our pose joint, or null when the tables do not know it. */
export function bvhToPuppet(name: string, family: BvhFamily): PuppetJointName | null {
  const n = strip(name);
  const ours = PUPPET_JOINTS.find((p) => p.toLowerCase() === n);
  if (ours) return ours;
  const common = own(COMMON, n);
  if (common) return common;
  const side = /^(left|right|l|r)(.+)$/.exec(n);
  if (!side) return null;
  const S = side[1].startsWith('l') ? 'Left' : 'Right';
  const rest = side[2];
  const short = side[1].length === 1;
  const table = family === 'cmu' ? CMU_SIDE : FAIR1_SIDE;
  if (short && !(family === 'cmu' && own(CMU_SHORT, rest))) return null;
  const part = own(table, rest);
  if (!part) return null;
  return (part === 'Neck' || part === 'Hips' ? part : `${S}${part}`) as PuppetJointName;
}
