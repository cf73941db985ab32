/**
 * Finding the body for the automatic humanoid map (the rules are in src/io/humanoidMap.ts): the bone
 * kinds each humanoid bone takes, the map under construction ({@link Assignment}), limb roles along a
 * chain, the body frame (up, forward, left) from the rest pose, hips/head/limbs by name with topology
 * for what names leave out, and the check of named sides against the body frame.
 */
import { HUMAN_BONE_COUNT, HUMAN_BONE_NAMES } from '../core/humanBodyBones';
import type { BoneKind, Side } from './humanoidMapNames';
import {
  add,
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
import type { MapSource } from './humanoidMapTypes';

export const SIDES = ['L', 'R'] as const;
export type LR = (typeof SIDES)[number];
export const SIDE_WORD: Record<LR, 'Left' | 'Right'> = { L: 'Left', R: 'Right' };

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
export class Assignment {
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

export interface Found {
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
export function shallowest(
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

export function describeBone(ctx: MapContext, b: number): string {
  return `'${ctx.skeleton.names[b]}'`;
}

/** Find hips, head and limbs: names first, topology for what names leave out. */
export function findBody(ctx: MapContext, warnings: string[]): Found | null {
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
