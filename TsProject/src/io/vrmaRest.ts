/**
 * The rest skeleton of a VRM Animation (`.vrma`) written from a take: the take's humanoid bones in the
 * VRM T-pose, each node's rest rotation the identity.
 *
 * Spec: VRMC_vrm_animation-1.0 (https://github.com/vrm-c/vrm-specification/tree/master/specification/VRMC_vrm_animation-1.0,
 * "Humanoid": the humanoid nodes at rest follow the VRM T-pose; animation carries rotations of the
 * humanoid bones and the hips translation only), VRMC_vrm-1.0 `tpose.md` (standing along +Y facing +Z,
 * left at +X; arms, hands and the four fingers along the X axis; thumbs between X and +Z at 45
 * degrees; feet forward along +Z) and `humanoid.md` (bone names, parents; `upperChest` needs `chest`,
 * finger joints need their parent joint; the eyes carry no animation in a `.vrma`).
 *
 * With every rest rotation the identity, a node's animated local rotation is directly the bone's
 * rotation relative to the T-pose in its parent's T-pose frame (the "normalized local rotation" of
 * the spec's how_to_transform_human_pose.md), which is what VRM players apply.
 */
import { forwardKinematics } from '../core';
import {
  HumanBodyBones as H,
  HUMAN_BONE_COUNT,
  HUMAN_BONE_NAMES,
  nearestMappedAncestor,
  REQUIRED_HUMAN_BONES,
} from '../core/humanBodyBones';
import { createSkeleton, type Skeleton } from '../core/skeleton';

/**
 * VRM 1.0 humanoid bone name of a `HumanBodyBones` value (VRMC_vrm-1.0/humanoid.md): Unity's name in
 * lowerCamelCase, except the thumb, whose Unity Proximal/Intermediate/Distal are VRM 1.0's
 * Metacarpal/Proximal/Distal (the inverse of `vrmBoneToHumanBone(name, 1)` in gltfVrm.ts).
 */
export function vrm1BoneName(human: number): string {
  const name = HUMAN_BONE_NAMES[human];
  const m = /^(Left|Right)Thumb(Proximal|Intermediate|Distal)$/.exec(name);
  const unity = m
    ? `${m[1]}Thumb${{ Proximal: 'Metacarpal', Intermediate: 'Proximal', Distal: 'Distal' }[m[2]]}`
    : name;
  return unity[0].toLowerCase() + unity.slice(1);
}

/** Shortest segment the rest skeleton gets (metres), so coincident source joints still give a direction. */
const MIN_SEGMENT = 0.01;

/** Largest foot pitch the rest takes from `options.footDrop` (60 degrees), radians. */
const MAX_FOOT_DROP = Math.PI / 3;

const FINGERS = ['Thumb', 'Index', 'Middle', 'Ring', 'Little'] as const;

/**
 * Humanoid bones a `.vrma` rest skeleton built from `mapped` holds: the mapped ones minus the eyes
 * (VRMC_vrm_animation "Humanoid": no animation data for leftEye/rightEye), minus `upperChest` (see
 * below), minus finger joints whose VRM "needs parent bone" rule fails (the joint before is missing).
 */
function keptBones(mapped: (h: number) => boolean): boolean[] {
  const keep = new Array<boolean>(HUMAN_BONE_COUNT).fill(false);
  for (let h = 0; h < HUMAN_BONE_COUNT; h++) keep[h] = mapped(h) && h !== H.LeftEye && h !== H.RightEye;
  // No upperChest, ever: the take's spine goes onto spine + chest (ChainFit, src/retarget). A player
  // drops the tracks of bones its avatar lacks (three-vrm-animation does), and upperChest is optional
  // in VRM 1.0 (neither VRM avatar of the shared test data has one): its rotation would be lost and the
  // neck, shoulders and arms turned by it (17 degrees on jesse_dance). Without it, an avatar with an
  // upperChest keeps it at rest and every limb still points the same way.
  keep[H.UpperChest] = false;
  for (const side of ['Left', 'Right'] as const) {
    for (const f of FINGERS) {
      const p = H[`${side}${f}Proximal`];
      const i = H[`${side}${f}Intermediate`];
      const d = H[`${side}${f}Distal`];
      if (!keep[p]) keep[i] = false;
      if (!keep[i]) keep[d] = false;
    }
  }
  return keep;
}

/** Thrown when a take cannot give a `.vrma` rest skeleton (a required VRM bone is missing). */
export class VrmaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VrmaError';
  }
}

/**
 * The `.vrma` rest skeleton for a take's skeleton `source` (humanoid map filled): one bone per kept
 * humanoid bone (see `keptBones`: mapped, no eyes, VRM parent rules), named by its VRM 1.0 name
 * ({@link vrm1BoneName}), parented along the humanoid hierarchy (`HUMAN_PARENT`, skipping bones not
 * kept), every rest rotation the identity, laid out in the VRM T-pose (right-handed, Y up, metres,
 * facing +Z, left at +X):
 * - segment lengths are the take's own: the distance between a bone and its humanoid parent in the
 *   take's rest pose (metres; at least 0.01 m), so the hips path needs no rescaling;
 * - hips -> spine -> chest -> neck -> head straight up (no upperChest: the take's spine is fitted onto
 *   spine + chest, so players whose avatar lacks an upperChest lose nothing); jaw forward (+Z);
 * - upper legs `(±w, -d, 0)` from the hips (`w` half the take's distance between them), lower legs,
 *   feet straight down, toes forward (+Z), pitched down by `options.footDrop` (radians, the take's
 *   foot -> toes angle below the horizontal with the foot on the floor, clamped to 0..60 degrees;
 *   default 0, level): the T-pose's feet are flat on the floor "in appearance" (tpose.md 1.2-1.3), so
 *   the take's flat foot is the rest, which a VRM player puts on its avatar's own flat foot;
 * - shoulders `(±w, +d, 0)` from their parent, upper arms (from the shoulder, or like a shoulder
 *   without one), lower arms, hands and the four fingers along ±X; thumbs along `(±1, 0, 1)/√2`;
 * - the hips at the height of its legs plus `options.ankleHeight` (metres, the take's ankle height
 *   with a foot on the floor, e.g. src/retarget `estimateContactHeight`; clamped to 0.02..0.2 m,
 *   default 0.08 m), so the feet stand on y = 0 as the T-pose asks.
 * The humanoid map of the result is filled (bone index per HumanBodyBones, -1 where not kept).
 * @throws VrmaError naming the VRM bones the take lacks when a VRM required bone is not mapped
 * (hips, spine, head, upper/lower arms and legs, hands, feet; VRMC_vrm-1.0/humanoid.md).
 */
export function vrmaRestSkeleton(
  source: Skeleton,
  options: { ankleHeight?: number; footDrop?: number } = {},
): Skeleton {
  const keep = keptBones((h) => source.humanoid[h] >= 0);
  const missing = REQUIRED_HUMAN_BONES.filter((h) => !keep[h]);
  if (missing.length > 0) {
    throw new VrmaError(
      `a VRM Animation needs the VRM required bones; the take has no ${missing.map(vrm1BoneName).join(', ')}`,
    );
  }
  const n = source.boneCount;
  const wr = new Float64Array(4 * n);
  const wp = new Float64Array(3 * n);
  forwardKinematics(source, source.restRotations, source.restTranslations, wr, wp);
  const pos = (h: number) => {
    const b = 3 * source.humanoid[h];
    return [wp[b], wp[b + 1], wp[b + 2]];
  };
  const dist = (a: number, b: number) => {
    const p = pos(a);
    const q = pos(b);
    return Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
  };
  const parentOf = (h: number) => nearestMappedAncestor(h, (p) => keep[p]);
  const len = (h: number) => Math.max(MIN_SEGMENT, dist(h, parentOf(h)));
  /** `(±w, sign*d, 0)` from the parent: half the left-right distance across, the rest of the length up/down. */
  const lateral = (h: number, mirror: number, sign: number): [number, number, number] => {
    if (!keep[h]) return [0, 0, 0]; // not in the rest skeleton (and maybe not in the take)
    const l = len(h);
    // without its mirror (a one-sided shoulder), the whole length goes out to the side
    const w = source.humanoid[mirror] >= 0 ? Math.min(l, 0.5 * dist(h, mirror)) : l;
    const d = Math.sqrt(Math.max(0, l * l - w * w));
    const left = HUMAN_BONE_NAMES[h].startsWith('Left') ? 1 : -1;
    return [left * Math.max(w, MIN_SEGMENT), sign * d, 0];
  };
  const offset = new Array<[number, number, number]>(HUMAN_BONE_COUNT);
  const fd = options.footDrop;
  const drop = fd !== undefined && Number.isFinite(fd) ? Math.min(MAX_FOOT_DROP, Math.max(0, fd)) : 0;
  for (const h of [H.Spine, H.Chest, H.UpperChest, H.Neck, H.Head]) offset[h] = [0, len(h), 0];
  offset[H.Jaw] = [0, 0, len(H.Jaw)];
  for (const side of ['Left', 'Right'] as const) {
    const s = side === 'Left' ? 1 : -1;
    const other = side === 'Left' ? 'Right' : 'Left';
    offset[H[`${side}UpperLeg`]] = lateral(H[`${side}UpperLeg`], H[`${other}UpperLeg`], -1);
    offset[H[`${side}LowerLeg`]] = [0, -len(H[`${side}LowerLeg`]), 0];
    offset[H[`${side}Foot`]] = [0, -len(H[`${side}Foot`]), 0];
    const toes = len(H[`${side}Toes`]);
    offset[H[`${side}Toes`]] = [0, -toes * Math.sin(drop), toes * Math.cos(drop)];
    offset[H[`${side}Shoulder`]] = lateral(H[`${side}Shoulder`], H[`${other}Shoulder`], 1);
    const upper = H[`${side}UpperArm`];
    offset[upper] = keep[H[`${side}Shoulder`]]
      ? [s * len(upper), 0, 0]
      : lateral(upper, H[`${other}UpperArm`], 1);
    for (const b of ['LowerArm', 'Hand'] as const)
      offset[H[`${side}${b}`]] = [s * len(H[`${side}${b}`]), 0, 0];
    for (const f of FINGERS) {
      for (const j of ['Proximal', 'Intermediate', 'Distal'] as const) {
        const h = H[`${side}${f}${j}`];
        const l = len(h);
        offset[h] = f === 'Thumb' ? [(s * l) / Math.SQRT2, 0, l / Math.SQRT2] : [s * l, 0, 0];
      }
    }
  }
  // Hips height: legs straight down plus the ankle height (feet on y = 0).
  let legs = 0;
  for (const side of ['Left', 'Right'] as const) {
    const leg = -offset[H[`${side}UpperLeg`]][1] + len(H[`${side}LowerLeg`]) + len(H[`${side}Foot`]);
    legs = Math.max(legs, leg);
  }
  const ankle = options.ankleHeight;
  offset[H.Hips] = [
    0,
    legs + (ankle !== undefined && Number.isFinite(ankle) ? Math.min(0.2, Math.max(0.02, ankle)) : 0.08),
    0,
  ];

  const order: number[] = [];
  const visit = (h: number) => {
    order.push(h);
    for (let c = 0; c < HUMAN_BONE_COUNT; c++) if (keep[c] && parentOf(c) === h) visit(c);
  };
  visit(H.Hips);
  const index = new Int32Array(HUMAN_BONE_COUNT).fill(-1);
  order.forEach((h, i) => {
    index[h] = i;
  });
  return createSkeleton({
    names: order.map(vrm1BoneName),
    parents: order.map((h) => (h === H.Hips ? -1 : index[parentOf(h)])),
    restTranslations: order.flatMap((h) => offset[h]),
    restRotations: order.flatMap(() => [0, 0, 0, 1]),
    humanoid: index,
  });
}
