/**
 * Assigning humanoid bones on the found body (the rules are in src/io/humanoidMap.ts): trunk (spine
 * rule, neck, head), limbs, head parts, fingers, and the automatic map that runs them all; the humanoid
 * bones in parents-first order.
 */
import { HumanBodyBones as H, HUMAN_BONE_COUNT, HUMAN_PARENT } from '../core/humanBodyBones';
import {
  Assignment,
  describeBone,
  type Found,
  findBody,
  type LR,
  SIDE_WORD,
  SIDES,
  shallowest,
} from './humanoidMapBody';
import type { BoneKind } from './humanoidMapNames';
import { distance, isAncestorOf, type MapContext, pathDown } from './humanoidMapTopology';

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
export function automaticMap(ctx: MapContext, warnings: string[]): Assignment {
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
export const HUMAN_ORDER: readonly number[] = (() => {
  const depth = (h: number): number => (HUMAN_PARENT[h] < 0 ? 0 : 1 + depth(HUMAN_PARENT[h]));
  return Array.from({ length: HUMAN_BONE_COUNT }, (_, h) => h).sort((x, y) => depth(x) - depth(y) || x - y);
})();
