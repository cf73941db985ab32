/**
 * Bone-name classification for the humanoid auto-mapper (./humanoidMap.ts).
 *
 * A name is reduced to a side (`'L'`, `'R'` or `null`) and a *kind* (what the name says the bone is).
 * Kinds are deliberately not HumanBodyBones: names lie, and the same word means different bones in
 * different conventions, so the mapper resolves kinds against the chain a bone sits in:
 * - `shoulder` is the clavicle in Mixamo/Unity/Motive/Bandai (`LeftShoulder` followed by `LeftArm`),
 *   but the upper arm in CMU BVH (`LeftCollar` -> `LeftShoulder` -> `LeftElbow`);
 * - `leg` is the lower leg in Mixamo (`LeftUpLeg` -> `LeftLeg`) but the upper leg in
 *   cryptovoxels.vrm (`Left leg` -> `Left knee`);
 * - `hip` with a side is the thigh (CMU `LeftHip`), without a side the hips (Motive `Hip`, DAZ `hip`).
 *
 * Conventions recognised (facts from the files in /work/shared/data/SOURCES.md and
 * /work/shared/NATNET.md section 7): Mixamo (`mixamorig:` or any `prefix:`), Unity HumanBodyBones names,
 * Unreal (`pelvis`, `spine_01`, `clavicle_l`, `upperarm_l`, `thumb_01_l`, `ball_l`), 3ds Max Biped
 * (`Bip01 L UpperArm`, `Bip01 L Finger01`), CMU BVH and cgspeed CMU, DAZ/Poser (`lShldr`, `lButtock`),
 * OptiTrack Motive (`LUArm`, `LFArm`, with an optional `<asset>_` prefix), Bandai (`UpperArm_L`), Blender
 * (`upper_arm.L`, `Palm1.L`), VRoid (`J_Bip_L_UpperArm`), Rokoko (`LeftInHandIndex` metacarpals).
 */

/** The side a bone name says: `'L'`, `'R'`, or `null` for a middle bone or no side found. */
export type Side = 'L' | 'R' | null;

/** What a bone name says the bone is, side aside (hips, spine, upper arm, finger, ...): {@link classifyBoneName}. */
export type BoneKind =
  | 'hips'
  | 'spine'
  | 'chest'
  | 'upperchest'
  | 'neck'
  | 'head'
  | 'eye'
  | 'jaw'
  | 'clavicle'
  | 'shoulder'
  | 'upperarm'
  | 'lowerarm'
  | 'hand'
  | 'palm'
  | 'legroot'
  | 'upperleg'
  | 'leg'
  | 'lowerleg'
  | 'foot'
  | 'toes'
  | 'finger'
  /** End joints, twist/roll helpers, IK controls, pole targets, props: never mapped. */
  | 'ignore'
  | 'unknown';

/** What a bone name says: side, kind, finger number, whether a metacarpal, and the name's core. */
export interface BoneNameInfo {
  side: Side;
  kind: BoneKind;
  /** For `finger`: 0 thumb, 1 index, 2 middle, 3 ring, 4 little; -1 a generic finger bone (`LFingers`). */
  finger: number;
  /** For `finger`/`palm`: a metacarpal (`LeftInHandIndex`, `index_metacarpal_l`, `Palm1.L`). */
  metacarpal: boolean;
  /** Lower-case name without side and separators, e.g. `upleg` for `mixamorig:LeftUpLeg`. */
  core: string;
}

/** Tokens that make a bone a helper, whatever else its name says (matched as whole tokens). */
const IGNORE_TOKENS = new Set([
  'end',
  'nub',
  'ik',
  'fk',
  'pole',
  'target',
  'ctrl',
  'control',
  'controller',
  'helper',
  'roll',
  'tip',
  'mch',
  'org',
  'wgt',
  'null',
  'socket',
  'attach',
  'effector',
  'goal',
  'dummy',
  'prop',
  'weapon',
  'footsteps',
  'footstep',
  'marker',
]);
/** Substrings that make a bone a helper (twist bones come as `ForeTwist`, `upperarm_twist_01_l`, ...). */
const IGNORE_SUBSTRINGS = ['twist', 'nub', 'footstep', 'polevector', 'ikhandle', 'iktarget'];

/** Leading tokens that are rig prefixes, dropped while more tokens follow. */
const PREFIX_TOKENS = new Set([
  'mixamorig',
  'bip',
  'valvebiped',
  'j',
  'jnt',
  'def',
  'cc',
  'bn',
  'b',
  'rig',
  'armature',
  'skeleton',
  'character',
  'char',
]);

const FINGER_WORDS: readonly [RegExp, number][] = [
  [/thumb/, 0],
  [/index|pointer/, 1],
  [/middle|mid/, 2],
  [/ring/, 3],
  [/pinky|pinkie|little/, 4],
];

/** Split one separator-free word into lower-case tokens at camelCase boundaries. */
function camelTokens(word: string): string[] {
  return word
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(' ')
    .filter((t) => t.length > 0);
}

/**
 * Words (separator-delimited parts) of a raw bone name, each split into lower-case tokens, with
 * Motive/DAZ-style glued side letters split off (`LUArm` -> l u arm, `lShldr` -> l shldr). The namespace
 * before the last `:` or `|` (`mixamorig:`) and the glTF reader's `#<node>` de-duplication suffix are dropped.
 */
export function nameWords(name: string): string[][] {
  let s = name.replace(/#\d+$/, '');
  const cut = Math.max(s.lastIndexOf(':'), s.lastIndexOf('|'));
  if (cut >= 0 && cut < s.length - 1) s = s.slice(cut + 1);
  const out: string[][] = [];
  for (const word of s.split(/[\s_.\-:|]+/)) {
    if (word === '') continue;
    // Motive `LUArm`, `LThigh`, `RShoulder`: a capital side letter glued to a capitalised word.
    const m = /^([LR])([A-Z][A-Za-z0-9]*)$/.exec(word);
    if (m && /[a-z]/.test(m[2])) out.push([m[1].toLowerCase(), ...camelTokens(m[2])]);
    else out.push(camelTokens(word));
  }
  return out.filter((w) => w.length > 0);
}

const SPINE_RE =
  /^(spine|abdomen|abs?|lowerback|upperback|back|torso|waist|chest|upperchest|lowerchest)(\d*|lower|upper|bend|mid|base)$/;
const NECK_RE = /^(neck|lowerneck|upperneck)(\d*|lower|upper)$/;

/** Kind of a core word (lower case, no side, no separators), or null when it says nothing known. */
function kindOfCore(core: string, side: Side): Omit<BoneNameInfo, 'core' | 'side'> | null {
  const plain = (kind: BoneKind) => ({ kind, finger: -1, metacarpal: false });
  if (core === '') return null;
  if (/^(hips?|pelvis)$/.test(core)) return plain(side ? 'upperleg' : 'hips');
  if (core === 'chest') return plain('chest');
  if (core === 'upperchest') return plain('upperchest');
  if (SPINE_RE.test(core)) return plain('spine');
  if (NECK_RE.test(core)) return plain('neck');
  if (core === 'head') return plain('head');
  if (core === 'headtop') return plain('ignore');
  if (/^eye(ball)?$/.test(core)) return plain('eye');
  if (/^(lower)?jaw(bone)?$/.test(core)) return plain('jaw');
  if (/^(clavicle|collar|collarbone|clav)$/.test(core)) return plain('clavicle');
  if (core === 'shoulder') return plain('shoulder');
  if (/^(upperarm|uparm|arm|uarm|humerus|shldr|shldrbend|armupper)$/.test(core)) return plain('upperarm');
  if (/^(forearm|forearmbend|lowerarm|loarm|lowarm|elbow|farm|radius|armlower)$/.test(core))
    return plain('lowerarm');
  if (/^(hand|wrist)$/.test(core)) return plain('hand');
  if (/^(palm|metacarpal|carpal|metacarpals)\d*$/.test(core))
    return { kind: 'palm', finger: -1, metacarpal: true };
  if (/^(hipjoint|buttock|legroot)$/.test(core)) return plain('legroot');
  if (/^(upleg|upperleg|thigh|thighbend|femur|legupper)$/.test(core)) return plain('upperleg');
  if (core === 'leg') return plain('leg');
  if (/^(lowerleg|loleg|lowleg|calf|shin|knee|tibia|leglower)$/.test(core)) return plain('lowerleg');
  if (/^(foot|ankle)$/.test(core)) return plain('foot');
  if (/^(toes?|toebase|toesbase|ball|bigtoe)\d*$/.test(core)) return plain('toes');
  const metacarpal = /inhand|metacarpal|carpal|palm|meta/.test(core);
  for (const [re, f] of FINGER_WORDS) {
    if (re.test(core)) return { kind: 'finger', finger: f, metacarpal };
  }
  const biped = /^(?:hand)?finger(\d)\d*$/.exec(core); // Biped `Finger0`, `Finger01`: first digit is the finger
  if (biped) return { kind: 'finger', finger: Math.min(4, Number(biped[1])), metacarpal };
  if (/^(hand)?fingers?(base|\d*)$/.test(core)) return { kind: 'finger', finger: -1, metacarpal };
  return null;
}

/** Cores too generic to trust once a leading word has been dropped (`Hair_Back` is not a spine bone). */
const WEAK_CORES = new Set([
  'back',
  'ab',
  'abs',
  'arm',
  'leg',
  'ball',
  'palm',
  'mid',
  'ring',
  'little',
  'small',
]);

/**
 * Classify a bone name: side and kind (see the module comment). Never throws; unknown names give kind
 * `'unknown'` (e.g. `node12`, `Bone`, `joint_Root`).
 */
export function classifyBoneName(name: string): BoneNameInfo {
  const words = nameWords(name);
  const all = words.flat();
  const joined = all.join('');
  if (all.some((t) => IGNORE_TOKENS.has(t)) || IGNORE_SUBSTRINGS.some((s) => joined.includes(s))) {
    return { side: sideOf(all).side, kind: 'ignore', finger: -1, metacarpal: false, core: joined };
  }
  const { side } = sideOf(all);
  // Try the whole name, then without its first word (an unknown prefix such as a Motive asset name
  // `Skeleton1_` or `Genesis8_`), and so on.
  for (let k = 0; k < Math.max(1, words.length); k++) {
    let tokens = sideOf(words.slice(k).flat()).rest;
    while (tokens.length > 1 && (PREFIX_TOKENS.has(tokens[0]) || /^bip\d+$/.test(tokens[0])))
      tokens = tokens.slice(1);
    if (tokens.length === 1 && (PREFIX_TOKENS.has(tokens[0]) || /^bip\d+$/.test(tokens[0]))) tokens = [];
    const core = tokens.join('');
    if (k > 0 && WEAK_CORES.has(core)) continue;
    const kind = kindOfCore(core, side);
    if (kind) return { side, core, ...kind };
  }
  const rest = sideOf(all).rest;
  return { side, kind: 'unknown', finger: -1, metacarpal: false, core: rest.join('') };
}

/** Side tokens (`l`, `left`, `r`, `right`; `c`/`center` dropped) and a CMU-style `lhand` glued prefix. */
function sideOf(tokens: string[]): { side: Side; rest: string[] } {
  let side: Side = null;
  const rest: string[] = [];
  for (const t of tokens) {
    if (t === 'l' || t === 'left') side = side ?? 'L';
    else if (t === 'r' || t === 'right') side = side ?? 'R';
    else if (t !== 'c' && t !== 'center' && t !== 'centre') rest.push(t);
  }
  if (side === null && rest.length > 0) {
    const first = rest[0];
    // `lhand`, `rthumb`, `leftarm`: a glued side prefix, accepted only when the whole word says nothing
    // known and the remainder does (so `lowerback`, `ring` stay as they are).
    const glued = /^(left|right|l|r)(.+)$/.exec(first);
    if (glued && !kindOfCore(first, null) && kindOfCore(glued[2], 'L')) {
      side = glued[1][0] === 'l' ? 'L' : 'R';
      rest[0] = glued[2];
    }
  }
  return { side, rest };
}
