/**
 * Which joints are the legs, the file's unit and its up axis, for the judge (issue 20); independent of
 * src/io/humanoidMap.
 *
 * Leg joints by name (the judge's own table). A name is lower-cased, a `cc_base_` or `mixamorig:`
 * prefix dropped, and split into a side and a stem: `left...`/`right...`, `..._l`/`....l`, `l_...`,
 * or a bare `l`/`r` prefix (DAZ `lThigh`, MocapNET `lknee`). Stems per role, first in the chain wins:
 * - hip joint (the thigh bone's joint): `upleg` (Mixamo LeftUpLeg), `upperleg` (Bandai UpperLeg_L),
 *   `thigh` (DAZ lThigh, iClone CC_Base_L_Thigh), `hip` (CMU/Motive LeftHip and MocapNET lhip: these
 *   name the thigh; CMU's LHipJoint is the pelvis bone and matches nothing);
 * - knee: `leg` (Mixamo LeftLeg), `lowerleg`, `shin`, `calf`, `knee` (CMU LeftKnee);
 * - ankle: `foot`, `ankle` (CMU LeftAnkle);
 * - toe: `toebase`, `toe`, `toes`, `ball`.
 * The knee must lie under the hip joint, the ankle under the knee and the toe under the ankle.
 *
 * Toe point where the take has no toe joint: the mean of the world positions of the ankle joint's
 * children and End Sites, i.e. the foot bone's own direction and length as the file draws it (DAZ
 * `lFoot`'s End Site, 12.7 cm ahead and 3.7 cm below the ankle; MocapNET's five `toeN-1` joints, the
 * ball of the foot). A foot with neither gets the ankle itself (heel and toe then coincide).
 *
 * Unit rule: leg length L = rest |knee - hip joint| + |ankle - knee| in file units (OFFSETs summed, all
 * rotations zero), mean of the two legs. Centimetres when 45 <= L <= 130 (a 0.45-1.3 m leg: a human leg
 * from hip joint to ankle is about 0.8 m, a child's 0.5 m); otherwise the unit among metres, millimetres,
 * inches (0.0254 m) and CMU ASF units (0.0254 / 0.45 m) that puts L nearest to 0.8 m in ratio
 * (smallest |ln(L * scale / 0.8)|). On the shared takes: cm everywhere except CMU jumping_jacks and the
 * cgspeed takes (L 14.8-15.0: CMU units, 0.84 m), FAIR jumping (21.7: inches, 0.55 m, a small figure)
 * and CMU 10_01 (36.4: inches, 0.92 m; as centimetres it would be a 0.36 m leg).
 *
 * Up axis: the file axis (with sign) nearest the mean over frames of (head - hips) in world space, where
 * hips is the nearest common ancestor of the two hip joints and head the first joint named `head` (or
 * ending in `_head`); without a head, the mean of (hips - ankles). The rest skeleton is not used because
 * some files (Bandai Namco) draw their rest bones along +X and rotate them upright in every frame.
 */
import type { BvhText } from './bvhText';
import { restPositions, type WorldPositions, worldPositions } from './fk';

export type Side = 'left' | 'right';
export const SIDES: readonly Side[] = ['left', 'right'];

/** The judged points of one leg. */
export type LegPointName = 'hip' | 'knee' | 'ankle' | 'toe';
export const LEG_POINTS: readonly LegPointName[] = ['hip', 'knee', 'ankle', 'toe'];

/** Joint indices of one leg. */
export interface LegJoints {
  hip: number;
  knee: number;
  ankle: number;
  /** The toe joint, or -1 (then the toe point is the mean of `toeFrom`). */
  toe: number;
  /** How the toe point was found, for reports. */
  toeRule: string;
}

type Role = 'hip' | 'knee' | 'ankle' | 'toe';
const STEMS: Record<Role, string[]> = {
  hip: ['upleg', 'upperleg', 'thigh', 'hip'],
  knee: ['leg', 'lowerleg', 'shin', 'calf', 'knee'],
  ankle: ['foot', 'ankle'],
  toe: ['toebase', 'toe', 'toes', 'ball'],
};

/** Side and stem of a joint name, or null. */
export function sideAndStem(name: string): { side: Side; stem: string } | null {
  let n = name
    .toLowerCase()
    .replace(/^cc_base_/, '')
    .replace(/^mixamorig\d*[:_]/, '');
  let m = /^(left|right)[_. ]?(.+)$/.exec(n);
  if (m) return { side: m[1] === 'left' ? 'left' : 'right', stem: m[2] };
  m = /^(.+?)[_. ]([lr])$/.exec(n);
  if (m) return { side: m[2] === 'l' ? 'left' : 'right', stem: m[1] };
  m = /^([lr])[_. ](.+)$/.exec(n);
  if (m) return { side: m[1] === 'l' ? 'left' : 'right', stem: m[2] };
  n = n.replace(/[_. ]/g, '');
  m = /^([lr])(.+)$/.exec(n);
  if (m) return { side: m[1] === 'l' ? 'left' : 'right', stem: m[2] };
  return null;
}

function roleOf(stem: string): Role | null {
  const s = stem.replace(/[_. ]/g, '');
  for (const r of ['hip', 'knee', 'ankle', 'toe'] as const) if (STEMS[r].includes(s)) return r;
  return null;
}

function isUnder(bvh: BvhText, anc: number, j: number): boolean {
  for (let p = bvh.joints[j].parent; p >= 0; p = bvh.joints[p].parent) if (p === anc) return true;
  return false;
}

/**
 * The two legs of a take.
 * @throws Error naming the file and the missing role when a leg's hip joint, knee or ankle is not found.
 */
export function findLegs(bvh: BvhText): Record<Side, LegJoints> {
  const cand: Record<Side, Record<Role, number[]>> = {
    left: { hip: [], knee: [], ankle: [], toe: [] },
    right: { hip: [], knee: [], ankle: [], toe: [] },
  };
  bvh.joints.forEach((j, i) => {
    const s = sideAndStem(j.name);
    const r = s && roleOf(s.stem);
    if (s && r) cand[s.side][r].push(i);
  });
  const out = {} as Record<Side, LegJoints>;
  for (const side of SIDES) {
    const c = cand[side];
    let found: LegJoints | null = null;
    for (const hip of c.hip) {
      const knee = c.knee.find((k) => isUnder(bvh, hip, k));
      if (knee === undefined) continue;
      const ankle = c.ankle.find((a) => isUnder(bvh, knee, a));
      if (ankle === undefined) continue;
      const toe = c.toe.find((t) => isUnder(bvh, ankle, t)) ?? -1;
      const kids = bvh.joints.filter((j) => j.parent === ankle).length + bvh.joints[ankle].endSites.length;
      found = {
        hip,
        knee,
        ankle,
        toe,
        toeRule:
          toe >= 0
            ? `joint ${bvh.joints[toe].name}`
            : kids > 0
              ? `mean of ${bvh.joints[ankle].name}'s ${kids} child joint(s)/End Site(s)`
              : `none: the ankle ${bvh.joints[ankle].name} itself`,
      };
      break;
    }
    if (!found) {
      const missing = c.hip.length === 0 ? 'hip joint (thigh)' : c.knee.length === 0 ? 'knee' : 'ankle';
      throw new Error(
        `${bvh.fileName}: no ${side} leg: no ${missing} joint found under the names the judge knows (legs.ts)`,
      );
    }
    out[side] = found;
  }
  return out;
}

/** Metres per file unit from the rest leg length (rule in the module doc). */
export function unitFromLegs(
  bvh: BvhText,
  legs: Record<Side, LegJoints>,
): { scale: number; legLength: number; rule: string } {
  const rest = restPositions(bvh);
  const d = (a: number, b: number) =>
    Math.hypot(
      rest[3 * a] - rest[3 * b],
      rest[3 * a + 1] - rest[3 * b + 1],
      rest[3 * a + 2] - rest[3 * b + 2],
    );
  const L =
    (d(legs.left.hip, legs.left.knee) +
      d(legs.left.knee, legs.left.ankle) +
      d(legs.right.hip, legs.right.knee) +
      d(legs.right.knee, legs.right.ankle)) /
    2;
  if (L >= 45 && L <= 130) return { scale: 0.01, legLength: L, rule: `centimetres (leg ${L.toFixed(1)})` };
  const units = [
    { scale: 1, name: 'metres' },
    { scale: 0.001, name: 'millimetres' },
    { scale: 0.0254, name: 'inches' },
    { scale: 0.0254 / 0.45, name: 'CMU ASF units' },
  ];
  let best = units[0];
  for (const u of units)
    if (Math.abs(Math.log((L * u.scale) / 0.8)) < Math.abs(Math.log((L * best.scale) / 0.8))) best = u;
  return { scale: best.scale, legLength: L, rule: `${best.name} (leg ${L.toFixed(2)})` };
}

/** A signed file axis. */
export interface UpAxis {
  axis: 0 | 1 | 2;
  sign: 1 | -1;
}

function commonAncestor(bvh: BvhText, a: number, b: number): number {
  const up = new Set<number>();
  for (let p = a; p >= 0; p = bvh.joints[p].parent) up.add(p);
  for (let p = b; p >= 0; p = bvh.joints[p].parent) if (up.has(p)) return p;
  return -1;
}

/** The hips joint (nearest common ancestor of the hip joints) and the head joint (or -1). */
export function hipsAndHead(bvh: BvhText, legs: Record<Side, LegJoints>): { hips: number; head: number } {
  const hips = commonAncestor(bvh, legs.left.hip, legs.right.hip);
  const head = bvh.joints.findIndex((j) => {
    const n = j.name.toLowerCase();
    return n === 'head' || n.endsWith('_head') || n.endsWith(':head');
  });
  return { hips, head };
}

/** Up axis from world positions (rule in the module doc). */
export function upAxis(bvh: BvhText, legs: Record<Side, LegJoints>, world: WorldPositions): UpAxis {
  const { hips, head } = hipsAndHead(bvh, legs);
  const P = world.pointCount;
  const sum = [0, 0, 0];
  for (let f = 0; f < world.frameCount; f++) {
    const o = f * P * 3;
    for (let a = 0; a < 3; a++) {
      const h = hips >= 0 ? world.positions[o + 3 * hips + a] : 0;
      if (head >= 0) sum[a] += world.positions[o + 3 * head + a] - h;
      else
        sum[a] +=
          h -
          (world.positions[o + 3 * legs.left.ankle + a] + world.positions[o + 3 * legs.right.ankle + a]) / 2;
    }
  }
  let axis: 0 | 1 | 2 = 0;
  for (const a of [1, 2] as const) if (Math.abs(sum[a]) > Math.abs(sum[axis])) axis = a;
  return { axis, sign: sum[axis] >= 0 ? 1 : -1 };
}

/** Toe point indices (into world points) of a leg: the toe joint, or the ankle's children and End Sites. */
export function toePointSources(bvh: BvhText, leg: LegJoints, world: WorldPositions): number[] {
  if (leg.toe >= 0) return [leg.toe];
  const kids: number[] = [];
  bvh.joints.forEach((j, i) => {
    if (j.parent === leg.ankle) kids.push(i);
  });
  kids.push(...world.endSitePoints[leg.ankle]);
  return kids.length > 0 ? kids : [leg.ankle];
}

/** Everything the judge needs of one take's legs: points per side, metres, file axes. */
export interface LegTrack {
  frameCount: number;
  /** Seconds between frames. */
  frameTime: number;
  scale: number;
  up: UpAxis;
  /** Per side and point: `Float64Array(frameCount * 3)` world positions, metres, the file's axes. */
  points: Record<Side, Record<LegPointName, Float64Array>>;
  /** The hips joint (nearest common ancestor of the hip joints), `Float64Array(frameCount * 3)`. */
  hips: Float64Array;
}

/** How a take was read: shared by a source and its cleaned copy (same skeleton). */
export interface TakeFrame {
  legs: Record<Side, LegJoints>;
  scale: number;
  unitRule: string;
  up: UpAxis;
}

/**
 * Legs, unit and up axis of a take (see the module doc); give `frame` to read a take as another was read
 * (a cleaned copy as its source).
 */
export function legTrack(
  bvh: BvhText,
  frame?: TakeFrame,
  values: Float64Array = bvh.values,
): { track: LegTrack; frame: TakeFrame } {
  const legs = frame?.legs ?? findLegs(bvh);
  const unit = frame ? { scale: frame.scale, rule: frame.unitRule } : unitFromLegs(bvh, legs);
  const world = worldPositions(bvh, unit.scale, values);
  const up = frame?.up ?? upAxis(bvh, legs, world);
  const F = world.frameCount;
  const P = world.pointCount;
  const pick = (sources: number[]): Float64Array => {
    const out = new Float64Array(F * 3);
    for (let f = 0; f < F; f++)
      for (const s of sources)
        for (let a = 0; a < 3; a++) out[3 * f + a] += world.positions[(f * P + s) * 3 + a] / sources.length;
    return out;
  };
  const points = {} as LegTrack['points'];
  for (const side of SIDES) {
    const leg = legs[side];
    points[side] = {
      hip: pick([leg.hip]),
      knee: pick([leg.knee]),
      ankle: pick([leg.ankle]),
      toe: pick(toePointSources(bvh, leg, world)),
    };
  }
  const { hips } = hipsAndHead(bvh, legs);
  return {
    track: {
      frameCount: F,
      frameTime: bvh.frameTime,
      scale: unit.scale,
      up,
      points,
      hips: pick([Math.max(0, hips)]),
    },
    frame: { legs, scale: unit.scale, unitRule: unit.rule, up },
  };
}

/** Joints of both legs' subtrees (the hip joints and everything under them). */
export function legSubtreeJoints(bvh: BvhText, legs: Record<Side, LegJoints>): Set<number> {
  const out = new Set<number>();
  bvh.joints.forEach((_, i) => {
    for (const side of SIDES) if (i === legs[side].hip || isUnder(bvh, legs[side].hip, i)) out.add(i);
  });
  return out;
}
