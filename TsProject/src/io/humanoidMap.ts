/**
 * Automatic humanoid mapping: which skeleton bone is each Unity `HumanBodyBones` bone, from bone names
 * and the hierarchy, with a per-file JSON override.
 *
 * How a map is built ({@link autoMapHumanoid}):
 * 1. A `preset` (e.g. a VRM file's own humanoid map) is taken as is; an `override` wins over everything.
 * 2. The gaps are filled automatically. Names are classified ({@link classifyBoneName}) into kinds that
 *    are resolved against the chain a bone sits in, because names lie: CMU BVH `LeftShoulder` is the
 *    upper arm (it follows `LeftCollar`), Mixamo `LeftShoulder` the clavicle (it precedes `LeftArm`);
 *    CMU `LeftHip` is the thigh and `LHipJoint` a short hip bone; Mixamo `LeftLeg` is the lower leg,
 *    cryptovoxels `Left leg` the upper leg (it precedes `Left knee`).
 *    - Hips: a bone named hips/hip/pelvis without a side (the one with most named body parts below);
 *      when it does not hold both thighs (RobotExpressive: `Body` -> {`Hips` -> spine, thighs}), the
 *      lowest common ancestor of it and the thighs, and the named bone stays unmapped. Head: `head`
 *      below the hips. The trunk is the path hips -> head.
 *    - Limbs: per side, the shallowest foot (else lower leg, else upper leg) / hand (else lower arm ...)
 *      named bone below the hips and off the trunk; the chain runs from the trunk bone it branches from
 *      down to it and on along its main path. In a chain, hand/foot = the first hand/foot name, lower =
 *      the last lower name before it, upper = the last upper name before that, clavicle = the last
 *      clavicle/shoulder name before that; unnamed positions are filled by chain order; with no usable
 *      names at all, upper/lower are the two consecutive segments with the largest length-times-straightness.
 *      IK controls, pole targets, twist/roll helpers and end joints (`HeadTop_End`, `LeftToe_End`) are
 *      never mapped. A foot/hand that exists only outside the leg/arm chain (RobotExpressive's `Foot.L`
 *      IK bone, the only foot that rig has) is used as a last resort with a warning.
 *    - Spine rule: the spine bones are the trunk bones strictly above the hips up to the bone the arms
 *      branch from (s1..sn). Spine = s1; n = 2: Chest = s2; n >= 3: Chest = s(n-1), UpperChest = sn
 *      (bones named exactly `chest`/`upperchest` keep their name). Neck = the first trunk bone above
 *      the arm branch (or the first bone named neck, when the arms hang off the neck as in 3ds Max Biped),
 *      Head = the head.
 *    - With no usable names (CesiumMan.glb), or where names leave a part missing, the body is found by
 *      topology ({@link findBodyByTopology}) and the left/right of each limb pair from the rest pose:
 *      up = hips -> head, forward = the direction the feet point (ankle -> toe) plus the knee bend, and
 *      the character's left = up x forward (so with +Y up and facing +Z the left is +X, glTF/VRM 1.0).
 *      With no foot or knee to tell the facing, the convention "faces +Z, left is +X" is used and a
 *      warning says so. Name-based sides are checked against the same frame when the rest pose is a
 *      plausible standing pose, and a mirror is reported as a warning.
 * 3. Consistency: a skeleton bone maps to at most one humanoid bone, and each mapped bone's humanoid
 *    parent (nearest mapped humanoid ancestor, Unity's `HumanTrait.GetParentBone` tree) must be one of
 *    its skeleton ancestors. Violating optional automatic bones are unmapped with a warning; violations
 *    among required or preset/override bones are kept and warned about. An automatic bone already
 *    taken by an override/preset bone leaves its humanoid bone missing; `missingReasons` and a warning
 *    say which bone took it.
 *
 * Sources: Unity `HumanBodyBones` (https://docs.unity3d.com/ScriptReference/HumanBodyBones.html) and
 * `HumanTrait.GetParentBone`; naming facts from /work/shared/data/SOURCES.md and /work/shared/NATNET.md §7.
 */
import {
  HumanBodyBones as H,
  HUMAN_BONE_COUNT,
  HUMAN_BONE_NAMES,
  HUMAN_PARENT,
  type HumanBoneName,
  humanBoneIndex,
  isRequiredHumanBone,
  nearestMappedAncestor,
} from '../core/humanBodyBones';
import { locateJsonError } from '../core/json';
import type { Skeleton } from '../core/skeleton';
import type { BoneKind, Side } from './humanoidMapNames';
import {
  add,
  buildContext,
  cross,
  distance,
  dot,
  extendMainPath,
  findBodyByTopology,
  isAncestorOf,
  type MapContext,
  norm,
  normalize,
  pathDown,
  reject,
  scale,
  sub,
  type TopoBody,
  type V3,
  vecOf,
} from './humanoidMapTopology';

export { type BoneKind, type BoneNameInfo, classifyBoneName, type Side } from './humanoidMapNames';

/**
 * How a humanoid bone was found: the file's own map (`vrm`: the VRM humanoid; `extras`: the
 * `extras.kindHumanoid` map of a GLB this project wrote), the user's override, a bone name, or the
 * hierarchy/rest pose.
 */
export type MapSource = 'vrm' | 'extras' | 'override' | 'name' | 'topology';

/** HumanBodyBones name -> skeleton bone name (`null` = force unmapped). */
export type HumanoidOverride = Partial<Record<HumanBoneName, string | null>>;

export interface HumanoidMapResult {
  /** Length 55: skeleton bone index per HumanBodyBones value, -1 where missing. */
  humanoid: Int32Array;
  /** Length 55: how each bone was found, null where missing. */
  source: (MapSource | null)[];
  /** HumanBodyBones names of required bones (Unity `HumanTrait.RequiredBone`) not found. */
  missingRequired: string[];
  /** HumanBodyBones names of optional bones not found. */
  missingOptional: string[];
  /** Ambiguities and repairs worth telling the user about (no file name prefix). */
  warnings: string[];
  /**
   * Why a missing bone is missing, where known: the bone the automatic mapping would have used is
   * taken by an override or preset bone (`"'mixamorig:RightArm' is taken by the override LeftUpperArm"`),
   * or the override set it to null. Keyed by HumanBodyBones name; {@link requireHumanoid} prints these.
   */
  missingReasons: Partial<Record<HumanBoneName, string>>;
}

export interface AutoMapOptions {
  /** Per-file override, applied last (wins over preset and automatic results). */
  override?: HumanoidOverride;
  /** A map to take as is (length 55, bone index or -1), e.g. a VRM file's humanoid; only gaps are filled. */
  preset?: Int32Array;
  /** Source recorded for preset bones; default `'vrm'`. */
  presetSource?: MapSource;
  /**
   * Fill the bones the override and preset leave missing from names and topology (default true).
   * False takes a complete map as is (a map this project wrote: the bones it lacks stay missing).
   */
  fillGaps?: boolean;
  /** Used in error messages. */
  fileName?: string;
}

/** Bad override or preset, or missing required bones ({@link requireHumanoid}). Messages name the file. */
export class HumanoidMapError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HumanoidMapError';
  }
}

const SIDES = ['L', 'R'] as const;
type LR = (typeof SIDES)[number];
const SIDE_WORD: Record<LR, 'Left' | 'Right'> = { L: 'Left', R: 'Right' };

/** Name kinds that agree with each humanoid bone (source `'name'` when the chosen bone's kind is one of them). */
function kindsFor(h: number): readonly BoneKind[] {
  const name = HUMAN_BONE_NAMES[h].replace(/^(Left|Right)/, '');
  switch (name) {
    case 'Hips':
      return ['hips'];
    case 'Spine':
    case 'Chest':
    case 'UpperChest':
      return ['spine', 'chest', 'upperchest'];
    case 'Neck':
      return ['neck'];
    case 'Head':
      return ['head'];
    case 'Shoulder':
      return ['clavicle', 'shoulder'];
    case 'UpperArm':
      return ['upperarm', 'shoulder'];
    case 'LowerArm':
      return ['lowerarm'];
    case 'Hand':
      return ['hand'];
    case 'UpperLeg':
      return ['upperleg', 'leg'];
    case 'LowerLeg':
      return ['lowerleg', 'leg'];
    case 'Foot':
      return ['foot'];
    case 'Toes':
      return ['toes'];
    case 'Eye':
      return ['eye'];
    case 'Jaw':
      return ['jaw'];
    default:
      return ['finger'];
  }
}

function humanSide(h: number): Side {
  const n = HUMAN_BONE_NAMES[h];
  return n.startsWith('Left') ? 'L' : n.startsWith('Right') ? 'R' : null;
}

/** The automatic map under construction. */
class Assignment {
  readonly map = new Int32Array(HUMAN_BONE_COUNT).fill(-1);
  readonly src: (MapSource | null)[] = new Array(HUMAN_BONE_COUNT).fill(null);
  private readonly used = new Map<number, number>();
  constructor(
    private readonly ctx: MapContext,
    private readonly warnings: string[],
  ) {}

  set(h: number, bone: number, forced?: MapSource): void {
    if (bone < 0 || this.map[h] >= 0) return;
    const other = this.used.get(bone);
    if (other !== undefined) {
      this.warnings.push(
        `${HUMAN_BONE_NAMES[h]}: '${this.ctx.skeleton.names[bone]}' is already ${HUMAN_BONE_NAMES[other]}; left unmapped`,
      );
      return;
    }
    const inf = this.ctx.info[bone];
    const side = humanSide(h);
    const named = kindsFor(h).includes(inf.kind) && (side === null || inf.side === side);
    this.map[h] = bone;
    this.src[h] = forced ?? (named ? 'name' : 'topology');
    this.used.set(bone, h);
  }

  isUsed(bone: number): boolean {
    return this.used.has(bone);
  }
}

/** Non-ignored bones of a chain. */
function usableOf(ctx: MapContext, chain: readonly number[]): number[] {
  return chain.filter((b) => ctx.info[b].kind !== 'ignore');
}

function lastIndexBefore(kinds: BoneKind[], end: number, want: readonly BoneKind[], not = -1): number {
  for (let i = Math.min(end, kinds.length) - 1; i >= 0; i--)
    if (i !== not && want.includes(kinds[i])) return i;
  return -1;
}

/**
 * Index `i` of the chain maximising (|s_i| + |s_i+1|) * (0.5 + 0.5 * max(0, cos(s_i, s_i+1))), where
 * s_i is the segment from bone i to bone i+1: the upper and lower limb are the two long, nearly
 * collinear segments of a rest pose (T, A or I pose). -1 when the chain has fewer than 3 bones.
 */
function longStraightPair(ctx: MapContext, u: number[]): number {
  let best = -1;
  let bestScore = 0;
  for (let i = 0; i + 2 < u.length; i++) {
    const a = sub(vecOf(ctx.pos, u[i + 1]), vecOf(ctx.pos, u[i]));
    const b = sub(vecOf(ctx.pos, u[i + 2]), vecOf(ctx.pos, u[i + 1]));
    const la = norm(a);
    const lb = norm(b);
    if (la < 1e-9 || lb < 1e-9) continue;
    const score = (la + lb) * (0.5 + 0.5 * Math.max(0, dot(a, b) / (la * lb)));
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
  }
  return best;
}

interface LimbRoles {
  /** Clavicle (arms) or -1; legs: -1. */
  root: number;
  upper: number;
  lower: number;
  end: number;
  /** Toes (legs) or -1. */
  tip: number;
}

/** Assign upper/lower/end (and clavicle or toes) along a limb chain; see the module comment. */
function limbRoles(ctx: MapContext, chain: readonly number[], arm: boolean): LimbRoles {
  const u = usableOf(ctx, chain);
  const kinds = u.map((b) => ctx.info[b].kind);
  const endK: BoneKind[] = arm ? ['hand'] : ['foot'];
  const lowerK: BoneKind[] = arm ? ['lowerarm'] : ['lowerleg', 'leg'];
  const upperK: BoneKind[] = arm ? ['upperarm', 'shoulder'] : ['upperleg', 'leg'];
  let ei = kinds.findIndex((k) => endK.includes(k));
  let li = lastIndexBefore(kinds, ei >= 0 ? ei : kinds.length, lowerK);
  let ui =
    li >= 0
      ? lastIndexBefore(kinds, li, upperK, li)
      : lastIndexBefore(kinds, ei >= 0 ? ei : kinds.length, upperK);
  if (ei < 0 && li < 0 && ui < 0) {
    const g = longStraightPair(ctx, u);
    if (g >= 0) [ui, li, ei] = [g, g + 1, g + 2];
    else if (u.length === 2) [ui, li] = [0, 1];
  } else {
    if (li < 0) li = ei >= 0 ? ei - 1 : ui >= 0 ? ui + 1 : -1;
    if (ei < 0 && li >= 0) ei = li + 1;
    if (ui < 0 && li >= 0) ui = li - 1;
  }
  const ok = (i: number) => i >= 0 && i < u.length;
  if (!ok(ui) || !ok(li) || !(ui < li)) {
    const g = longStraightPair(ctx, u);
    if (g >= 0) [ui, li, ei] = [g, g + 1, g + 2];
  }
  if (!ok(ui) || !ok(li)) return { root: -1, upper: -1, lower: -1, end: -1, tip: -1 };
  if (!(ok(ei) && ei > li)) ei = -1;
  let root = -1;
  let tip = -1;
  if (arm) {
    root = lastIndexBefore(kinds, ui, ['clavicle', 'shoulder']);
    if (root < 0 && ui >= 1 && kinds[ui - 1] !== 'legroot') root = ui - 1;
  } else if (ei >= 0) {
    tip = kinds.findIndex((k, i) => i > ei && k === 'toes');
    if (tip < 0 && ei + 1 < u.length) tip = ei + 1;
  }
  const at = (i: number) => (i >= 0 ? u[i] : -1);
  return { root: at(root), upper: u[ui], lower: u[li], end: at(ei), tip: at(tip) };
}

interface Limb {
  chain: number[];
  roles: LimbRoles;
  /** Side from names, or null when found by topology. */
  side: Side;
}

/** Mean rest position of a limb's main bones. */
function limbCentre(ctx: MapContext, limb: Limb): V3 {
  const bones = [limb.roles.upper, limb.roles.lower, limb.roles.end].filter((b) => b >= 0);
  let c: V3 = [0, 0, 0];
  for (const b of bones) c = add(c, vecOf(ctx.pos, b));
  return scale(c, 1 / Math.max(1, bones.length));
}

interface BodyFrame {
  up: V3;
  /** The character's left (unit), or null when the rest pose says nothing. */
  left: V3 | null;
  /** Rest pose looks like a standing humanoid (legs go down from the hips). */
  plausible: boolean;
}

/** Up from hips -> head; forward from toe directions and knee bends; left = up x forward. */
function bodyFrame(ctx: MapContext, hips: number, head: number, legs: Limb[]): BodyFrame {
  const up = normalize(sub(vecOf(ctx.pos, head), vecOf(ctx.pos, hips)));
  if (norm(up) === 0) return { up: [0, 1, 0], left: null, plausible: false };
  let plausible = legs.length > 0;
  let fwd: V3 = [0, 0, 0];
  let legLen = 0;
  for (const leg of legs) {
    const { upper, lower, end } = leg.roles;
    if (upper < 0 || lower < 0 || end < 0) {
      plausible = false;
      continue;
    }
    const len = distance(ctx.pos, upper, lower) + distance(ctx.pos, lower, end);
    legLen += len;
    if (dot(sub(vecOf(ctx.pos, end), vecOf(ctx.pos, hips)), up) > -0.5 * len) plausible = false;
    // toes: the foot's main path beyond the ankle
    const after = leg.chain.slice(leg.chain.indexOf(end) + 1);
    if (after.length > 0) {
      const tipPos = vecOf(ctx.pos, after[after.length - 1]);
      fwd = add(fwd, reject(sub(tipPos, vecOf(ctx.pos, end)), up));
    }
    const mid = scale(add(vecOf(ctx.pos, upper), vecOf(ctx.pos, end)), 0.5);
    fwd = add(fwd, reject(sub(vecOf(ctx.pos, lower), mid), up));
  }
  if (!plausible || norm(fwd) < 0.01 * legLen) return { up, left: null, plausible };
  return { up, left: normalize(cross(up, normalize(fwd))), plausible };
}

interface Found {
  hips: number;
  head: number;
  legs: Partial<Record<LR, Limb>>;
  arms: Partial<Record<LR, Limb>>;
}

function hipsByName(ctx: MapContext): number {
  let best = -1;
  let bestScore = -1;
  for (let b = 0; b < ctx.n; b++) {
    const inf = ctx.info[b];
    if (inf.kind !== 'hips' || inf.side !== null) continue;
    let score = 0;
    const stack = [...ctx.children[b]];
    while (stack.length > 0) {
      const x = stack.pop()!;
      const k = ctx.info[x].kind;
      if (k === 'head') score += 100;
      else if (k !== 'ignore' && k !== 'unknown') score += 1;
      stack.push(...ctx.children[x]);
    }
    if (score > bestScore || (score === bestScore && ctx.depth[b] > ctx.depth[best])) {
      best = b;
      bestScore = score;
    }
  }
  return bestScore > 0 ? best : -1;
}

/** Shallowest bone of one of `kinds` (in order of preference) with `side`, accepted by `ok`. */
function shallowest(
  ctx: MapContext,
  kinds: readonly BoneKind[],
  side: Side,
  ok: (b: number) => boolean,
): number {
  for (const k of kinds) {
    let best = -1;
    for (let b = 0; b < ctx.n; b++) {
      const inf = ctx.info[b];
      if (inf.kind !== k || inf.side !== side || !ok(b)) continue;
      if (best < 0 || ctx.depth[b] < ctx.depth[best]) best = b;
    }
    if (best >= 0) return best;
  }
  return -1;
}

/** Deepest trunk bone that is an ancestor of `b` (the limb's branch point), or -1. */
function branchPoint(ctx: MapContext, trunk: ReadonlySet<number>, b: number): number {
  for (let x = ctx.skeleton.parents[b]; x >= 0; x = ctx.skeleton.parents[x]) if (trunk.has(x)) return x;
  return -1;
}

/** Limb chain from the trunk down to the named bone `b` and on along its main path (arms stop at the hand). */
function limbChainTo(ctx: MapContext, trunk: ReadonlySet<number>, b: number, arm: boolean): number[] {
  const bp = branchPoint(ctx, trunk, b);
  const chain = pathDown(ctx, bp, b);
  if (arm && ctx.info[b].kind === 'hand') return chain;
  return [...chain, ...extendMainPath(ctx, b, trunk)];
}

/** Deepest bone that is an ancestor of (or equal to) every bone in `bones`, or -1. */
function lowestCommonAncestor(ctx: MapContext, bones: readonly number[]): number {
  let cand = bones[0];
  while (cand >= 0 && !bones.every((b) => isAncestorOf(ctx, cand, b))) cand = ctx.skeleton.parents[cand];
  return cand;
}

function describeBone(ctx: MapContext, b: number): string {
  return `'${ctx.skeleton.names[b]}'`;
}

/** Find hips, head and limbs: names first, topology for what names leave out. */
function findBody(ctx: MapContext, warnings: string[]): Found | null {
  let hips = hipsByName(ctx);
  if (hips >= 0) {
    // The named hips must hold the legs; RobotExpressive's `Hips` holds only the spine, its legs hang off
    // `Body` above it: the hips is then the lowest common ancestor of the named hips and both thighs.
    const anchors = SIDES.map((s) => shallowest(ctx, ['upperleg', 'leg', 'lowerleg'], s, () => true));
    if (anchors.every((x) => x >= 0) && anchors.some((x) => !isAncestorOf(ctx, hips, x))) {
      const lca = lowestCommonAncestor(ctx, [hips, ...anchors]);
      if (lca >= 0) {
        warnings.push(
          `Hips: ${describeBone(ctx, hips)} does not hold the legs; using their common ancestor ${describeBone(ctx, lca)}`,
        );
        hips = lca;
      }
    }
  }
  let head =
    hips >= 0 ? shallowest(ctx, ['head'], null, (b) => b !== hips && isAncestorOf(ctx, hips, b)) : -1;
  let topo: TopoBody | null | undefined;
  const topology = () => {
    if (topo === undefined) topo = findBodyByTopology(ctx, hips, head);
    return topo;
  };
  if (hips < 0 || head < 0) {
    const t = topology();
    if (t) {
      hips = t.hips;
      head = t.head;
    } else if (hips < 0) {
      return null;
    }
  }
  const trunkList = head >= 0 ? [hips, ...pathDown(ctx, hips, head)] : [hips];
  const trunk = new Set(trunkList);
  const taken = new Set<number>(trunk);
  const underHead = (b: number) => head >= 0 && isAncestorOf(ctx, head, b);
  const found: Found = { hips, head, legs: {}, arms: {} };
  const byName = (arm: boolean, side: LR): Limb | undefined => {
    const kinds: BoneKind[] = arm
      ? ['hand', 'lowerarm', 'upperarm', 'shoulder', 'clavicle']
      : ['foot', 'lowerleg', 'leg', 'upperleg'];
    const b = shallowest(
      ctx,
      kinds,
      side,
      (x) =>
        !taken.has(x) &&
        !underHead(x) &&
        x !== hips &&
        isAncestorOf(ctx, hips, x) &&
        branchPoint(ctx, trunk, x) >= 0,
    );
    if (b < 0) return undefined;
    const chain = limbChainTo(ctx, trunk, b, arm).filter((x) => !taken.has(x));
    if (chain.length === 0) return undefined;
    for (const x of chain) taken.add(x);
    return { chain, roles: limbRoles(ctx, chain, arm), side };
  };
  for (const side of SIDES) found.legs[side] = byName(false, side);
  for (const side of SIDES) found.arms[side] = byName(true, side);

  const missingLimbs = SIDES.some((s) => !found.legs[s] || !found.arms[s]);
  let frame: BodyFrame | null = null;
  if (missingLimbs && topology()) {
    const t = topology()!;
    const fill = (arm: boolean) => {
      const group = arm ? found.arms : found.legs;
      const cands = (arm ? t.arms : t.legs)
        .map((c) => c.filter((x) => !taken.has(x)))
        .filter((c, i) => c.length > 0 && c[0] === (arm ? t.arms : t.legs)[i][0]);
      const missing = SIDES.filter((s) => !group[s]);
      if (missing.length === 0 || cands.length === 0) return;
      const limbs = cands.map((chain) => ({ chain, roles: limbRoles(ctx, chain, arm), side: null as Side }));
      if (missing.length === 1 && limbs.length >= 1) {
        const other = group[missing[0] === 'L' ? 'R' : 'L'];
        // the candidate not overlapping the named limb; if two remain, the one farther from it
        let pick = limbs[0];
        if (limbs.length > 1 && other) {
          const oc = limbCentre(ctx, other);
          pick = limbs.reduce((a, b) =>
            norm(sub(limbCentre(ctx, b), oc)) > norm(sub(limbCentre(ctx, a), oc)) ? b : a,
          );
        }
        group[missing[0]] = pick;
        for (const x of pick.chain) taken.add(x);
        warnings.push(
          `${SIDE_WORD[missing[0]]} ${arm ? 'arm' : 'leg'}: no ${arm ? 'hand/arm' : 'foot/leg'} names on this side; found by topology from ${describeBone(ctx, pick.chain[0])}`,
        );
        return;
      }
      if (limbs.length < 2) return;
      frame ??= bodyFrame(ctx, hips, head, topoLegs(ctx, t, found));
      const [a, b] = limbs;
      const leftIsA = sideOfPair(
        frame,
        limbCentre(ctx, a),
        limbCentre(ctx, b),
        arm ? 'arms' : 'legs',
        warnings,
      );
      group.L = leftIsA ? a : b;
      group.R = leftIsA ? b : a;
      for (const x of [...a.chain, ...b.chain]) taken.add(x);
    };
    fill(false);
    fill(true);
  }
  checkNamedSides(ctx, found, warnings);
  return found;
}

/** Leg limbs for the body frame: the found ones, else the topology chains. */
function topoLegs(ctx: MapContext, t: TopoBody, found: Found): Limb[] {
  const named = SIDES.map((s) => found.legs[s]).filter((l): l is Limb => !!l);
  if (named.length === 2) return named;
  return t.legs.map((chain) => ({ chain, roles: limbRoles(ctx, chain, false), side: null }));
}

/**
 * True when the limb centred at `a` is the character's left one (the other centred at `b`). Uses the
 * body frame; without a facing, the glTF convention (faces +Z, left is +X; a limb pair spread along Z
 * is taken as facing +X, left at -Z) with a warning.
 */
function sideOfPair(frame: BodyFrame, a: V3, b: V3, what: string, warnings: string[]): boolean {
  const lateral = reject(sub(a, b), frame.up);
  const ln = norm(lateral);
  if (frame.left && ln > 0) {
    const c = dot(lateral, frame.left) / ln;
    if (Math.abs(c) < 0.5) {
      warnings.push(
        `${what}: left/right is uncertain (the limbs are not spread across the facing direction)`,
      );
    }
    return c > 0;
  }
  let left = reject([1, 0, 0], frame.up);
  let convention = 'faces +Z with its left at +X (glTF)';
  if (ln > 0 && Math.abs(dot(lateral, normalize(left))) < 0.3 * ln * norm(left)) {
    left = reject([0, 0, -1], frame.up);
    convention = 'faces +X with its left at -Z';
  }
  warnings.push(
    `${what}: no names and no feet/knees to tell the facing; assumed the character ${convention}, so left and right may be mirrored`,
  );
  return dot(lateral, left) > 0;
}

/** Warn when name-based sides contradict a confident rest-pose frame (a mirrored or mislabelled rig). */
function checkNamedSides(ctx: MapContext, found: Found, warnings: string[]): void {
  const legs = SIDES.map((s) => found.legs[s]).filter((l): l is Limb => !!l && l.side !== null);
  if (legs.length !== 2 || found.head < 0) return;
  const frame = bodyFrame(ctx, found.hips, found.head, legs);
  if (!frame.left || !frame.plausible) return;
  for (const [what, group] of [
    ['legs', found.legs],
    ['arms', found.arms],
  ] as const) {
    const l = group.L;
    const r = group.R;
    if (!l || !r || l.side === null || r.side === null) continue;
    const lateral = reject(sub(limbCentre(ctx, l), limbCentre(ctx, r)), frame.up);
    const ln = norm(lateral);
    if (ln > 0 && dot(lateral, frame.left) / ln < -0.5) {
      warnings.push(
        `${what}: the bones named left lie on the character's right in the rest pose (feet point the other way): mirrored rig or swapped names?`,
      );
    }
  }
}

/** Spine, chest, upper chest, neck and head along the trunk; see the module comment for the rule. */
function assignTrunk(ctx: MapContext, found: Found, a: Assignment): void {
  const { hips, head } = found;
  a.set(H.Hips, hips);
  if (head < 0) return;
  const trunk = [hips, ...pathDown(ctx, hips, head)];
  // helpers and a second bone named hips (RobotExpressive: Body -> Hips -> Abdomen) stay unmapped
  const trunkUsable = trunk.filter(
    (b, i) =>
      i === 0 || i === trunk.length - 1 || (ctx.info[b].kind !== 'ignore' && ctx.info[b].kind !== 'hips'),
  );
  const last = trunkUsable.length - 1; // head
  let armTop = -1;
  for (const s of SIDES) {
    const arm = found.arms[s];
    if (!arm) continue;
    const bp = ctx.skeleton.parents[arm.chain[0]];
    armTop = Math.max(armTop, trunkUsable.indexOf(bp));
  }
  const firstNeck = trunkUsable.findIndex((b, i) => i > 0 && i < last && ctx.info[b].kind === 'neck');
  let spineEnd: number; // last spine index (inclusive)
  if (armTop >= 1) spineEnd = Math.min(armTop, last - 1);
  else spineEnd = firstNeck > 0 ? firstNeck - 1 : last - 1;
  if (firstNeck > 0 && firstNeck <= spineEnd) spineEnd = firstNeck - 1; // arms hang off the neck (3ds Max Biped)
  const spine = trunkUsable.slice(1, spineEnd + 1);
  const neckChain = trunkUsable.slice(spineEnd + 1, last);
  if (spine.length >= 1) a.set(H.Spine, spine[0]);
  const named = (kind: BoneKind) => spine.findIndex((b, i) => i > 0 && ctx.info[b].kind === kind);
  const nc = named('chest');
  const nu = named('upperchest');
  if (nc > 0 || nu > 0) {
    if (nc > 0) a.set(H.Chest, spine[nc]);
    if (nu > 0 && nu > nc) a.set(H.UpperChest, spine[nu]);
    else if (nc > 0 && spine.length >= 3 && nc < spine.length - 1)
      a.set(H.UpperChest, spine[spine.length - 1]);
    if (nc < 0 && nu > 1) a.set(H.Chest, spine[nu - 1]);
  } else if (spine.length === 2) {
    a.set(H.Chest, spine[1]);
  } else if (spine.length >= 3) {
    a.set(H.Chest, spine[spine.length - 2]);
    a.set(H.UpperChest, spine[spine.length - 1]);
  }
  if (neckChain.length > 0) a.set(H.Neck, neckChain[0]);
  a.set(H.Head, head);
}

function assignLimbs(ctx: MapContext, found: Found, a: Assignment, warnings: string[]): void {
  for (const s of SIDES) {
    const w = SIDE_WORD[s];
    const leg = found.legs[s];
    if (leg) {
      a.set(H[`${w}UpperLeg`], leg.roles.upper);
      a.set(H[`${w}LowerLeg`], leg.roles.lower);
      let foot = leg.roles.end;
      if (foot < 0 && leg.roles.lower >= 0) foot = detachedEnd(ctx, a, 'foot', s, leg.roles.lower, warnings);
      a.set(H[`${w}Foot`], foot);
      a.set(H[`${w}Toes`], leg.roles.tip);
    }
    const arm = found.arms[s];
    if (arm) {
      a.set(H[`${w}Shoulder`], arm.roles.root);
      a.set(H[`${w}UpperArm`], arm.roles.upper);
      a.set(H[`${w}LowerArm`], arm.roles.lower);
      let hand = arm.roles.end;
      if (hand < 0 && arm.roles.lower >= 0) hand = detachedEnd(ctx, a, 'hand', s, arm.roles.lower, warnings);
      a.set(H[`${w}Hand`], hand);
      if (hand >= 0 && ctx.info[hand].kind === 'palm') {
        warnings.push(`${w}Hand: the rig has no hand bone; using the metacarpal ${describeBone(ctx, hand)}`);
      }
    }
  }
}

/**
 * A foot/hand named bone of `side` outside the limb chain (e.g. an IK control that carries the foot
 * mesh), nearest to the limb's lower bone; used only because the chain has none (warned).
 */
function detachedEnd(
  ctx: MapContext,
  a: Assignment,
  kind: 'foot' | 'hand',
  side: LR,
  lower: number,
  warnings: string[],
): number {
  let best = -1;
  for (let b = 0; b < ctx.n; b++) {
    const inf = ctx.info[b];
    if (inf.kind !== kind || inf.side !== side || a.isUsed(b) || isAncestorOf(ctx, b, lower)) continue;
    if (best < 0 || distance(ctx.pos, b, lower) < distance(ctx.pos, best, lower)) best = b;
  }
  if (best >= 0) {
    warnings.push(
      `${SIDE_WORD[side]}${kind === 'foot' ? 'Foot' : 'Hand'}: no ${kind} bone below ${describeBone(ctx, lower)}; using ${describeBone(ctx, best)}, which is not its descendant (an IK control bone?)`,
    );
  }
  return best;
}

/** Eyes and jaw: named bones below the head. */
function assignHeadParts(ctx: MapContext, found: Found, a: Assignment): void {
  const head = found.head;
  if (head < 0) return;
  const below = (b: number) => b !== head && isAncestorOf(ctx, head, b);
  a.set(H.LeftEye, shallowest(ctx, ['eye'], 'L', below));
  a.set(H.RightEye, shallowest(ctx, ['eye'], 'R', below));
  a.set(H.Jaw, shallowest(ctx, ['jaw'], null, below));
}

const FINGER_NAMES = ['Thumb', 'Index', 'Middle', 'Ring', 'Little'] as const;
const PHALANX_NAMES = ['Proximal', 'Intermediate', 'Distal'] as const;

/**
 * Fingers: named bones below the hand. Per finger, proximal = the first bone of that finger that is not
 * a metacarpal (Rokoko `LeftInHandIndex`, Unreal `index_metacarpal_l` are skipped; for the thumb the
 * first bone counts, as Unity's thumb proximal is the VRM 1.0 thumb metacarpal), intermediate and
 * distal = the next ones down the same chain.
 */
function assignFingers(ctx: MapContext, a: Assignment): void {
  for (const s of SIDES) {
    const w = SIDE_WORD[s];
    const hand = a.map[H[`${w}Hand`]];
    if (hand < 0) continue;
    for (let f = 0; f < 5; f++) {
      const bones: number[] = [];
      for (let b = hand + 1; b < ctx.n; b++) {
        const inf = ctx.info[b];
        if (inf.kind !== 'finger' || inf.finger !== f || (inf.side !== null && inf.side !== s)) continue;
        if (f !== 0 && inf.metacarpal) continue;
        if (isAncestorOf(ctx, hand, b)) bones.push(b);
      }
      let prev = -1;
      let k = 0;
      for (const b of bones) {
        if (k >= 3) break;
        if (prev >= 0 && !isAncestorOf(ctx, prev, b)) continue;
        a.set(H[`${w}${FINGER_NAMES[f]}${PHALANX_NAMES[k]}`], b);
        prev = b;
        k++;
      }
    }
  }
}

/** The automatic map of a skeleton (names + topology), before preset/override are applied. */
function automaticMap(ctx: MapContext, warnings: string[]): Assignment {
  const a = new Assignment(ctx, warnings);
  const found = findBody(ctx, warnings);
  if (!found) {
    warnings.push(
      'no hips found: no bone is named hips/pelvis and no bone has two leg chains and a trunk below it',
    );
    return a;
  }
  assignTrunk(ctx, found, a);
  assignLimbs(ctx, found, a, warnings);
  assignHeadParts(ctx, found, a);
  assignFingers(ctx, a);
  return a;
}

/** Humanoid bones ordered parents first (depth in the HumanTrait tree). */
const HUMAN_ORDER: readonly number[] = (() => {
  const depth = (h: number): number => (HUMAN_PARENT[h] < 0 ? 0 : 1 + depth(HUMAN_PARENT[h]));
  return Array.from({ length: HUMAN_BONE_COUNT }, (_, h) => h).sort((x, y) => depth(x) - depth(y) || x - y);
})();

/**
 * Normalised edit distance below which a name counts as similar: Levenshtein distance divided by the
 * longer length, compared case-insensitively and without a namespace prefix (`mixamorig:`, `rig|`).
 * 1/3 accepts a typo or two in a bone name (`LeftHandd`, `LeftUperArm`) but not a different bone
 * (`LeftHand`/`RightHand` is 0.44, `LeftArm`/`LeftForeArm` 0.36).
 */
export const SIMILAR_NAME_THRESHOLD = 1 / 3;

/** A name compared for similarity: lower case, without a namespace prefix such as `mixamorig:`. */
function similarityKey(name: string): string {
  return name.replace(/^.*[:|]/, '').toLowerCase();
}

/**
 * The candidates most similar to `word`: those at the smallest edit distance of their
 * {@link similarityKey}s (ties in candidate order, at most `max`), provided that distance divided by the
 * longer key length is at most {@link SIMILAR_NAME_THRESHOLD}. Empty when none is close: better no
 * suggestion than a misleading one.
 */
export function similarNames(word: string, candidates: readonly string[], max = 3): string[] {
  const w = similarityKey(word);
  let best = Number.POSITIVE_INFINITY;
  let out: string[] = [];
  for (const c of candidates) {
    const k = similarityKey(c);
    const len = Math.max(w.length, k.length);
    if (len === 0) continue;
    const d = editDistance(w, k);
    if (d / len > SIMILAR_NAME_THRESHOLD + 1e-12 || d > best) continue;
    if (d < best) {
      best = d;
      out = [];
    }
    if (out.length < max && !out.includes(c)) out.push(c);
  }
  return out;
}

/** `" (did you mean 'a' or 'b'?)"`, or `""`. */
function didYouMean(names: readonly string[]): string {
  if (names.length === 0) return '';
  const q = names.map((n) => `'${n}'`);
  return ` (did you mean ${q.length === 1 ? q[0] : `${q.slice(0, -1).join(', ')} or ${q[q.length - 1]}`}?)`;
}

const HUMAN_BODY_BONES_URL = 'https://docs.unity3d.com/ScriptReference/HumanBodyBones.html';

/**
 * Suggestion for an override key that is not a HumanBodyBones name: similar names, or Unity's name
 * for a VRM 1.0 thumb name (VRM `leftThumbMetacarpal` = Unity `LeftThumbProximal`), or the list's URL.
 */
function keySuggestion(key: string): string {
  const vrmThumb = /^(left|right)thumbmetacarpal$/i.exec(key);
  if (vrmThumb) {
    const side = vrmThumb[1].toLowerCase() === 'left' ? 'Left' : 'Right';
    return ` (did you mean '${side}ThumbProximal'? Unity's thumb proximal is the VRM 1.0 thumb metacarpal)`;
  }
  const near = didYouMean(similarNames(key, HUMAN_BONE_NAMES));
  return near || ` (no similar name; the names are listed at ${HUMAN_BODY_BONES_URL})`;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

function fileLabel(fileName: string | undefined): string {
  return fileName && fileName.length > 0 ? fileName : '<skeleton>';
}

/** Resolve an override bone name: exact, else a unique case-insensitive match; throws naming key, bone and file. */
function resolveOverrideBone(skeleton: Skeleton, key: string, value: string, file: string): number {
  const exact = skeleton.names.indexOf(value);
  if (exact >= 0) return exact;
  const lower = value.toLowerCase();
  const ci = skeleton.names.flatMap((n, i) => (n.toLowerCase() === lower ? [i] : []));
  if (ci.length === 1) return ci[0];
  const near = similarNames(value, skeleton.names);
  const inspect = `kind inspect ${file === '<skeleton>' ? '<file>' : file}`;
  throw new HumanoidMapError(
    `${file}: humanoid override ${key}: no bone named '${value}' in the skeleton` +
      (near.length > 0 ? didYouMean(near) : `; no similar bone name ('${inspect}' lists the bones)`),
  );
}

/**
 * Map a skeleton's bones to Unity `HumanBodyBones` (see the module comment for the rules).
 * `options.preset` (length 55, bone index or -1) is taken as is with source `presetSource` (default
 * `'vrm'`), only its gaps are filled automatically (none with `fillGaps: false`); `options.override` wins over everything (`null`
 * forces a bone unmapped). Does not throw for missing bones: see `missingRequired`, `missingReasons`
 * and {@link requireHumanoid}. When a bone stays missing because the bone the automatic mapping chose
 * for it is taken by an override (any bone) or preset (required bones) bone, a warning
 * `RightUpperArm: 'mixamorig:RightArm' is taken by the override LeftUpperArm` says so.
 * @throws HumanoidMapError when the override names a bone that does not exist (message: file, key,
 * bone name, and similar bone names ({@link similarNames}) or a pointer to `kind inspect <file>`),
 * maps two humanoid bones to one skeleton bone, or has a key that is not a HumanBodyBones name; when
 * the preset has the wrong length or an index out of range.
 */
export function autoMapHumanoid(skeleton: Skeleton, options: AutoMapOptions = {}): HumanoidMapResult {
  const file = fileLabel(options.fileName);
  const n = skeleton.boneCount;
  const warnings: string[] = [];
  const humanoid = new Int32Array(HUMAN_BONE_COUNT).fill(-1);
  const source: (MapSource | null)[] = new Array(HUMAN_BONE_COUNT).fill(null);
  const owner = new Map<number, number>(); // skeleton bone -> humanoid bone
  const place = (h: number, b: number, src: MapSource) => {
    humanoid[h] = b;
    source[h] = src;
    owner.set(b, h);
  };

  // 1. override (wins), 2. preset
  const forcedNull = new Set<number>();
  const override = options.override ?? {};
  for (const [key, value] of Object.entries(override)) {
    const h = humanBoneIndex(key);
    if (h < 0) {
      throw new HumanoidMapError(
        `${file}: humanoid override: '${key}' is not a HumanBodyBones name${keySuggestion(key)}`,
      );
    }
    if (value === null) {
      forcedNull.add(h);
      continue;
    }
    if (value === undefined) continue;
    if (typeof value !== 'string' || value === '') {
      throw new HumanoidMapError(
        `${file}: humanoid override ${key}: value must be a bone name (non-empty string) or null, got ${JSON.stringify(value)}`,
      );
    }
    const b = resolveOverrideBone(skeleton, key, value, file);
    const other = owner.get(b);
    if (other !== undefined) {
      throw new HumanoidMapError(
        `${file}: humanoid override maps both ${HUMAN_BONE_NAMES[other]} and ${key} to bone '${skeleton.names[b]}'`,
      );
    }
    place(h, b, 'override');
  }
  if (options.preset) {
    const preset = options.preset;
    if (preset.length !== HUMAN_BONE_COUNT) {
      throw new HumanoidMapError(
        `${file}: humanoid preset has length ${preset.length}, expected ${HUMAN_BONE_COUNT}`,
      );
    }
    const presetSource = options.presetSource ?? 'vrm';
    for (let h = 0; h < HUMAN_BONE_COUNT; h++) {
      const b = preset[h];
      if (b === -1) continue;
      if (!Number.isInteger(b) || b < -1 || b >= n) {
        throw new HumanoidMapError(
          `${file}: humanoid preset ${HUMAN_BONE_NAMES[h]} -> ${b} is not a bone index (0..${n - 1})`,
        );
      }
      if (humanoid[h] >= 0 || forcedNull.has(h)) continue;
      const other = owner.get(b);
      if (other !== undefined) {
        warnings.push(
          `${HUMAN_BONE_NAMES[h]}: ${presetSource} map gives '${skeleton.names[b]}', already ${HUMAN_BONE_NAMES[other]}; dropped`,
        );
        continue;
      }
      place(h, b, presetSource);
    }
  }

  // 3. automatic gap filling
  const takenBy = new Map<number, { reason: string; other: number }>();
  const needAuto =
    options.fillGaps !== false && HUMAN_ORDER.some((h) => humanoid[h] < 0 && !forcedNull.has(h));
  if (needAuto && n > 0) {
    const ctx = buildContext(skeleton);
    const autoWarnings: string[] = [];
    const auto = automaticMap(ctx, autoWarnings);
    const filled = new Set<number>();
    for (const h of HUMAN_ORDER) {
      const b = auto.map[h];
      if (b < 0 || humanoid[h] >= 0 || forcedNull.has(h)) continue;
      const other = owner.get(b);
      if (other !== undefined) {
        const by = source[other] === 'override' ? 'the override' : `the ${source[other]} preset`;
        takenBy.set(h, {
          reason: `'${skeleton.names[b]}' is taken by ${by} ${HUMAN_BONE_NAMES[other]}`,
          other,
        });
        continue;
      }
      place(h, b, auto.src[h]!);
      filled.add(h);
    }
    // keep only the automatic warnings about bones that were actually filled automatically, or general ones
    for (const w of autoWarnings) {
      const m = /^(\w+):/.exec(w);
      const h = m ? humanBoneIndex(m[1]) : -1;
      if (h < 0 || filled.has(h)) warnings.push(w);
    }
    enforceConsistency(skeleton, humanoid, source, warnings);
  } else {
    enforceConsistency(skeleton, humanoid, source, warnings);
  }

  const missingRequired: string[] = [];
  const missingOptional: string[] = [];
  const missingReasons: Partial<Record<HumanBoneName, string>> = {};
  for (let h = 0; h < HUMAN_BONE_COUNT; h++) {
    if (humanoid[h] >= 0) continue;
    const required = isRequiredHumanBone(h);
    (required ? missingRequired : missingOptional).push(HUMAN_BONE_NAMES[h]);
    const taken = takenBy.get(h);
    if (taken) {
      missingReasons[HUMAN_BONE_NAMES[h]] = taken.reason;
      // an optional bone displaced by a file's own (preset) map is routine, e.g. a VRM without UpperChest
      if (required || source[taken.other] === 'override')
        warnings.push(`${HUMAN_BONE_NAMES[h]}: ${taken.reason}`);
    } else if (forcedNull.has(h) && required) {
      missingReasons[HUMAN_BONE_NAMES[h]] = 'set to null by the override';
    }
  }
  return { humanoid, source, missingRequired, missingOptional, warnings, missingReasons };
}

/**
 * Each mapped bone's humanoid parent must be a skeleton ancestor of it. Automatic optional bones that
 * break this are unmapped (and the check repeats); other breaks are kept and warned about.
 */
function enforceConsistency(
  skeleton: Skeleton,
  humanoid: Int32Array,
  source: (MapSource | null)[],
  warnings: string[],
): void {
  const auto = (h: number) => source[h] === 'name' || source[h] === 'topology';
  const warned = new Set<string>();
  for (let pass = 0; pass < HUMAN_BONE_COUNT; pass++) {
    let changed = false;
    for (const h of HUMAN_ORDER) {
      const b = humanoid[h];
      if (b < 0) continue;
      const p = nearestMappedAncestor(h, (x) => humanoid[x] >= 0);
      if (p < 0) continue;
      const pb = humanoid[p];
      let ok = false;
      for (let x = skeleton.parents[b]; x >= 0; x = skeleton.parents[x]) {
        if (x === pb) {
          ok = true;
          break;
        }
      }
      if (ok) continue;
      const what = `${HUMAN_BONE_NAMES[h]} '${skeleton.names[b]}' is not below its humanoid parent ${HUMAN_BONE_NAMES[p]} '${skeleton.names[pb]}'`;
      if (auto(h) && !isRequiredHumanBone(h)) {
        warnings.push(`${what}; ${HUMAN_BONE_NAMES[h]} left unmapped`);
        humanoid[h] = -1;
        source[h] = null;
        changed = true;
      } else if (auto(p) && !isRequiredHumanBone(p)) {
        warnings.push(`${what}; ${HUMAN_BONE_NAMES[p]} left unmapped`);
        humanoid[p] = -1;
        source[p] = null;
        changed = true;
      } else if (!warned.has(what)) {
        warned.add(what);
        warnings.push(what);
      }
    }
    if (!changed) return;
  }
}

/** 1-based line and column (UTF-16 code units) of offset `pos` in `text`; lines end at `\n` (`\r\n` too). */
export function lineColumnAt(text: string, pos: number): { line: number; column: number } {
  const end = Math.max(0, Math.min(pos, text.length));
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

/**
 * Where a `JSON.parse` error is, from its message (V8 formats, Node 18-22):
 * - `... in JSON at position N` -> the line/column of offset N;
 * - `... (line L column C)` (newer V8, after the position) -> L and C as given;
 * - `Unexpected end of JSON input` -> just after the last non-blank character;
 * - anything else (e.g. Node 20's `Unexpected token 'x', "..." is not valid JSON`) -> null.
 * `detail` is the message without the position part.
 */
export function jsonErrorLocation(
  text: string,
  message: string,
): { line: number; column: number; detail: string } | null {
  const lc = /\s*\(line (\d+) column (\d+)\)/.exec(message);
  const pos = /\s+at position (\d+)/.exec(message);
  const detail = message
    .replace(lc?.[0] ?? '', '')
    .replace(pos?.[0] ?? '', '')
    .trim();
  if (lc) return { line: Number(lc[1]), column: Number(lc[2]), detail };
  if (pos) return { ...lineColumnAt(text, Number(pos[1])), detail };
  if (/unexpected end of json input/i.test(message))
    return { ...lineColumnAt(text, text.trimEnd().length), detail };
  return null;
}

/**
 * Parse a humanoid override JSON object `{ "<HumanBodyBones name>": "<bone name>" | null, ... }`.
 * A leading byte order mark is skipped.
 * @throws HumanoidMapError naming the file: invalid JSON (`file:line:column: humanoid override is not
 * valid JSON: <JSON.parse message>` when the position is known, see {@link jsonErrorLocation}); not
 * an object; a key that is not a HumanBodyBones name (naming the key and suggesting similar names,
 * {@link similarNames}); a value that is neither a non-empty string nor null.
 */
export function parseHumanoidOverride(json: string, fileName: string): HumanoidOverride {
  const file = fileLabel(fileName);
  const text = json.charCodeAt(0) === 0xfeff ? json.slice(1) : json; // a byte order mark is not an error
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const at = jsonErrorLocation(text, message) ?? locateJsonError(text);
    const where = at ? `${file}:${at.line}:${at.column}` : file;
    throw new HumanoidMapError(`${where}: humanoid override is not valid JSON: ${at ? at.detail : message}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new HumanoidMapError(
      `${file}: humanoid override must be a JSON object {"LeftUpperArm": "boneName", ...}, got ${Array.isArray(data) ? 'an array' : data === null ? 'null' : typeof data}`,
    );
  }
  const out: HumanoidOverride = {};
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    if (humanBoneIndex(key) < 0) {
      throw new HumanoidMapError(
        `${file}: humanoid override key '${key}' is not a HumanBodyBones name${keySuggestion(key)}`,
      );
    }
    if (value !== null && (typeof value !== 'string' || value.length === 0)) {
      throw new HumanoidMapError(
        `${file}: humanoid override '${key}': value must be a bone name (non-empty string) or null, got ${JSON.stringify(value)}`,
      );
    }
    out[key as HumanBoneName] = value as string | null;
  }
  return out;
}

/**
 * Throw when any of Unity's 15 required humanoid bones is missing.
 * @throws HumanoidMapError `<file>: humanoid map is missing 1 required bone(s): RightUpperArm.
 * RightUpperArm: 'mixamorig:RightArm' is taken by the override LeftUpperArm. Name them ...`: lists all
 * missing required bones, then the known reasons (`missingReasons`).
 */
export function requireHumanoid(result: HumanoidMapResult, fileName: string): void {
  if (result.missingRequired.length === 0) return;
  const reasons = result.missingRequired.flatMap((name) => {
    const why = result.missingReasons?.[name as HumanBoneName];
    return why ? [`${name}: ${why}`] : [];
  });
  throw new HumanoidMapError(
    `${fileLabel(fileName)}: humanoid map is missing ${result.missingRequired.length} required bone(s): ${result.missingRequired.join(', ')}. ` +
      (reasons.length > 0 ? `${reasons.join('; ')}. ` : '') +
      'Name them in a humanoid override JSON ({"HumanBodyBonesName": "boneName"}).',
  );
}

/**
 * Human-readable table of a map for `kind inspect`: one line per mapped humanoid bone (HumanBodyBones
 * name, `*` when required, skeleton bone name and index, source), then the missing bones and warnings.
 */
export function formatHumanoidMap(skeleton: Skeleton, result: HumanoidMapResult): string {
  const mapped = HUMAN_BONE_NAMES.map((_, h) => h).filter((h) => result.humanoid[h] >= 0);
  const req = mapped.filter((h) => isRequiredHumanBone(h)).length;
  const lines = [`humanoid map: ${mapped.length} of ${HUMAN_BONE_COUNT} bones, required ${req} of 15`];
  const w = Math.max(...HUMAN_BONE_NAMES.map((s) => s.length)) + 2;
  const nameW = Math.min(
    40,
    Math.max(8, ...mapped.map((h) => (skeleton.names[result.humanoid[h]] ?? '').length)),
  );
  for (const h of HUMAN_ORDER_DISPLAY) {
    const b = result.humanoid[h];
    if (b < 0) continue;
    const mark = isRequiredHumanBone(h) ? '*' : ' ';
    const bone = skeleton.names[b] ?? `#${b}`;
    lines.push(
      `  ${mark} ${HUMAN_BONE_NAMES[h].padEnd(w)}${bone.padEnd(nameW)} [${b}]  ${result.source[h] ?? ''}`,
    );
  }
  if (result.missingRequired.length > 0)
    lines.push(`  missing REQUIRED: ${result.missingRequired.join(', ')}`);
  if (result.missingOptional.length > 0)
    lines.push(`  missing optional: ${result.missingOptional.join(', ')}`);
  for (const warning of result.warnings) lines.push(`  warning: ${warning}`);
  return lines.join('\n');
}

/** Display order: body top-down, then fingers. */
const HUMAN_ORDER_DISPLAY: readonly number[] = [
  H.Hips,
  H.Spine,
  H.Chest,
  H.UpperChest,
  H.Neck,
  H.Head,
  H.LeftEye,
  H.RightEye,
  H.Jaw,
  H.LeftShoulder,
  H.LeftUpperArm,
  H.LeftLowerArm,
  H.LeftHand,
  H.RightShoulder,
  H.RightUpperArm,
  H.RightLowerArm,
  H.RightHand,
  H.LeftUpperLeg,
  H.LeftLowerLeg,
  H.LeftFoot,
  H.LeftToes,
  H.RightUpperLeg,
  H.RightLowerLeg,
  H.RightFoot,
  H.RightToes,
  ...Array.from({ length: 30 }, (_, i) => H.LeftThumbProximal + i),
];
