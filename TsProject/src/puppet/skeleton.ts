/**
 * A character's own skeleton (issue 22 part 1, "any AnimatedDrawings skeleton"): its joints whatever their
 * names and number (six arms, four legs, a tail), each with a DRIVER saying how the bone that ends at it turns
 * from our 21 pose joints (PUPPET_JOINTS). The rig (rig.ts) poses any skeleton from its drivers. Engine-free.
 *
 * Drivers (drawing pixels and pose space both y down; angles atan2 in y-down coordinates):
 * - `bone` (from, to): the bone parent -> j takes the 2-D direction of pose[to] - pose[from], keeping its
 *   drawing length: theta_j = angle(pose[to] - pose[from]) - angle(rest[j] - rest[parent]). This is how
 *   AnimatedDrawings retargets a character joint from a pair of BVH joints (`char_joint_bvh_joints_mapping`:
 *   the orientation of the projected bone prox -> dist, given to the bone that ends at the character joint;
 *   animated_drawings/model/retargeter.py compute_orientations; Smith et al. 2023, ACM TOG 42(3)).
 * - `line` (left, right; restLeft, restRight): a girdle. The bone turns by the angle between the pose line
 *   right -> left and the drawing's line restRight -> restLeft (the shoulders, the pelvis: the standard rig's
 *   rule, rig.ts).
 *   With `fan` (character joints, this one among them: the copies of one limb), the rest angle is the
 *   circular mean of the fan's drawn bone angles instead of the bone's own: the copies' mean direction takes
 *   the person's direction and each copy keeps its drawn angle to that mean (all turn by the same angle).
 *   With `neutral` (radians, y down), the rest angle is that angle instead: the bone keeps its DRAWN direction
 *   while the person's bone points at `neutral`, and turns by as much as the person's turns from it (a
 *   four-legged animal's neck, drawn leaning forward, stays so while the person's neck is upright).
 * - `rigid`: the bone keeps its rest angle to its parent bone (theta_j = theta_parent); a root keeps its rest
 *   angle (theta = 0). A joint nothing drives follows its parent rigidly (as AnimatedDrawings, where a joint
 *   without a mapping keeps its local rotation).
 * A driver whose pose pair is degenerate (the two joints closer than 1e-9) keeps the parent's angle.
 *
 * Three ways a skeleton is made (SkeletonMapping.rule), each printed by `kind puppet render` and stored in
 * puppet.json (`character.mapping`):
 * - `standard`: the 21 puppet joints of a two-armed, two-legged character (the 16 AnimatedDrawings joints
 *   mapped one to one, the rest synthesised: character.ts). Bit for bit the rig of before issue 22.
 * - `names`: {@link skeletonFromNames}, the rule documented there (numbered copies of a limb follow that limb;
 *   front and back legs both follow the legs).
 * - `retarget-cfg`: an AnimatedDrawings retarget config (retargetCfg.ts): each mapped character joint follows
 *   its pair of BVH joints, translated onto our 21 joints by bvhToPuppet (bvhNames.ts).
 */
import { bvhFamily, bvhToPuppet } from './bvhNames';
import { PUPPET_JOINTS, PuppetInputError, type PuppetJointName } from './types';

/** How the bone ending at one joint turns each frame (module doc). Pose joints are PUPPET_JOINTS indices. */
export type JointDriver =
  | {
      kind: 'bone';
      from: number;
      to: number;
      fan?: readonly number[];
      neutral?: number;
      /** An arm fan's side (`fan` of upper arms): 1 the character's right (image left), -1 its left. */
      sector?: 1 | -1;
    }
  | { kind: 'line'; left: number; right: number; restLeft: number; restRight: number }
  | { kind: 'rigid' };

/** One joint of the mapping as printed and stored in puppet.json. */
export interface MappedJoint {
  name: string;
  parent: string | null;
  /** e.g. `RightUpperArm -> RightLowerArm`, `line RightUpperArm -> LeftUpperArm (drawn right_shoulder2 -> left_shoulder2)`, `rigid (follows hip)`. */
  driver: string;
}

/** A character joint group drawn at the depth of a BVH joint (AnimatedDrawings `char_bodypart_groups`). */
export interface DepthGroup {
  /** The BVH joint names as the config gives them. */
  bvhDepthDrivers: string[];
  /** Our pose joints they stand for (bvhToPuppet). */
  poseDepthDrivers: PuppetJointName[];
  charJoints: string[];
}

/**
 * How a character's joints follow the person: the rule used (standard, by name or a retarget config) and each
 * joint's driving bone (puppet.json `skeleton`).
 */
export interface SkeletonMapping {
  rule: 'standard' | 'names' | 'retarget-cfg';
  /** The retarget config's file (rule `retarget-cfg`). */
  source?: string;
  joints: MappedJoint[];
  /** `char_bodypart_groups` of a retarget config (parsed and checked; see DRAWING.md for their use). */
  depthGroups?: DepthGroup[];
  /** Root translation: which bones set the drawing-pixels-per-pose-unit scale. */
  scale: string;
}

/**
 * A character's skeleton: M joints, parents before children. Rest positions are the character's
 * `restJoints` (length M, drawing pixels), in the same order.
 */
export interface CharacterSkeleton {
  names: readonly string[];
  /** Parent index per joint, -1 for a root; every parent comes before its children. */
  parents: readonly number[];
  drivers: readonly JointDriver[];
  /** The pose joint whose confidence and state each joint reports (-1: its parent's; a root: Hips). */
  reports: readonly number[];
  /**
   * Root translation scale s = mean drawing length of `drawing` bones (character joint pairs) / mean pose
   * length of the `pose` pairs in the reference pose (rig.ts). Empty: no translation scale (0).
   */
  scaleFrom: {
    drawing: readonly (readonly [number, number])[];
    pose: readonly (readonly [number, number])[];
  };
  mapping: SkeletonMapping;
}

const P = (n: PuppetJointName): number => PUPPET_JOINTS.indexOf(n);

/** Text of a driver for the printed mapping. */
export function describeDriver(d: JointDriver, names: readonly string[], parent: number): string {
  if (d.kind === 'bone')
    return `${PUPPET_JOINTS[d.from]} -> ${PUPPET_JOINTS[d.to]}${d.fan ? ` (fan of ${d.fan.map((k) => names[k]).join(', ')})` : ''}${d.neutral !== undefined ? ` (drawn direction while it points ${Math.round((-d.neutral * 180) / Math.PI)} deg)` : ''}`;
  if (d.kind === 'line')
    return `line ${PUPPET_JOINTS[d.right]} -> ${PUPPET_JOINTS[d.left]} (drawn ${names[d.restRight]} -> ${names[d.restLeft]})`;
  return parent < 0 ? 'rigid (keeps its rest angle)' : `rigid (follows ${names[parent]})`;
}

/**
 * The 21-joint skeleton of a standard character (PUPPET_JOINTS, PUPPET_PARENTS): every bone follows the pose
 * bone ending at the same joint, except the root (pelvis line), the upper arms (shoulder line) and the upper
 * legs (rigid with the pelvis). rig.ts explains why; the rig of before issue 22 exactly.
 */
export function standardSkeleton(parents: readonly number[]): CharacterSkeleton {
  const L_ARM = P('LeftUpperArm');
  const R_ARM = P('RightUpperArm');
  const L_LEG = P('LeftUpperLeg');
  const R_LEG = P('RightUpperLeg');
  const drivers: JointDriver[] = PUPPET_JOINTS.map((_, j): JointDriver => {
    if (j === 0) return { kind: 'line', left: L_LEG, right: R_LEG, restLeft: L_LEG, restRight: R_LEG };
    if (j === L_ARM || j === R_ARM)
      return { kind: 'line', left: L_ARM, right: R_ARM, restLeft: L_ARM, restRight: R_ARM };
    if (j === L_LEG || j === R_LEG) return { kind: 'rigid' };
    return { kind: 'bone', from: parents[j], to: j };
  });
  const names = [...PUPPET_JOINTS];
  return {
    names,
    parents,
    drivers,
    reports: PUPPET_JOINTS.map((_, j) => j),
    scaleFrom: { drawing: [[0, P('Neck')]], pose: [[0, P('Neck')]] },
    mapping: {
      rule: 'standard',
      joints: names.map((name, j) => ({
        name,
        parent: parents[j] < 0 ? null : names[parents[j]],
        driver: describeDriver(drivers[j], names, parents[j]),
      })),
      scale: 'torso: drawn Hips -> Neck over the reference pose Hips -> Neck',
    },
  };
}

/** A character joint as the skeleton builders take it (char_cfg.yaml order; parents by name). */
export interface NamedJoint {
  name: string;
  x: number;
  y: number;
  parent: string | null;
  /** For messages: where the joint was read. */
  line?: number;
}

/**
 * The joints in an order where every parent comes before its children (a stable topological order: roots in
 * file order, then their children depth first in file order). Names must be unique and parents must exist
 * (parseCharCfg checks both).
 */
export function orderParentsFirst<T extends NamedJoint>(
  joints: readonly T[],
): { joints: T[]; parents: number[] } {
  const children = new Map<string | null, T[]>();
  for (const j of joints) {
    const list = children.get(j.parent) ?? [];
    list.push(j);
    children.set(j.parent, list);
  }
  const out: T[] = [];
  const visit = (j: T) => {
    out.push(j);
    for (const c of children.get(j.name) ?? []) visit(c);
  };
  for (const r of children.get(null) ?? []) visit(r);
  const index = new Map(out.map((j, i) => [j.name, i]));
  return { joints: out, parents: out.map((j) => (j.parent === null ? -1 : (index.get(j.parent) ?? -1))) };
}

/** A limb joint name: `left_elbow`, `right_shoulder2`, `left_knee_f`, `right_foot_back`. */
const LIMB = /^(left|right)_(shoulder|elbow|hand|hip|knee|foot)(\d+|_f|_b|_front|_back)?$/i;

/** The pose bone each limb joint of the name rule follows (from -> to), by side. */
const LIMB_BONE: Readonly<Record<string, readonly [string, string] | null>> = {
  shoulder: null, // a girdle: the shoulder line (or rigid)
  elbow: ['UpperArm', 'LowerArm'],
  hand: ['LowerArm', 'Hand'],
  hip: null, // the pelvis: rigid with its parent, as the standard rig's upper legs
  knee: ['UpperLeg', 'LowerLeg'],
  foot: ['LowerLeg', 'Foot'],
};
const LIMB_REPORT: Readonly<Record<string, string>> = {
  shoulder: 'UpperArm',
  elbow: 'LowerArm',
  hand: 'Hand',
  hip: 'UpperLeg',
  knee: 'LowerLeg',
  foot: 'Foot',
};

/**
 * The skeleton of a char_cfg.yaml by its joint names (no retarget config). Rule (case-insensitive names):
 * - `left_|right_` + `shoulder|elbow|hand|hip|knee|foot` + an optional copy suffix (`1`, `2`, ... or `_f`,
 *   `_b`, `_front`, `_back`) is a limb joint and follows that limb of the person, whatever the copy:
 *   `right_elbow3` and `right_elbow` both follow RightUpperArm -> RightLowerArm, `left_knee_f` and
 *   `left_knee_b` both LeftUpperLeg -> LeftLowerLeg. `*_elbow` / `*_hand` follow the upper arm / forearm,
 *   `*_knee` / `*_foot` the thigh / shin.
 * - A shoulder turns with the person's shoulder line when the other side has a shoulder with the same suffix
 *   (`right_shoulder2` with `left_shoulder2`; the drawn line between the two is its rest line), else rigidly
 *   with its parent. A hip (`*_hip*`) turns rigidly with its parent (the pelvis), as the standard rig.
 * - Copies of one limb joint turn as a FAN (JointDriver `fan`): the mean of their drawn directions takes the
 *   person's direction and each keeps its drawn angle to the others, so three right arms drawn raised, level
 *   and down stay spread as the person's right arm moves (each copy pointing exactly where the person's arm
 *   points would fold all three onto one: AnimatedDrawings' six_arms.yaml does that).
 * - Front and back legs (`_f`, `_b`) BOTH follow the person's legs, not the front legs the arms: AnimatedDrawings'
 *   own four_legs.yaml maps all four to the legs; a person standing then keeps all four feet down, and a squat
 *   or a step bends them. Mapping the front legs to the arms would lift them whenever the arms rise and leave
 *   them hanging along the body when the arms rest (a retarget config can still do it: `--retarget-cfg`).
 * - `root`: turns with the pelvis line (`right_hip` -> `left_hip`) when the character has exactly one hip on
 *   each side, else keeps its rest angle (a four-legged body, drawn side on, has no left-right pelvis line
 *   to follow). `hip` (AnimatedDrawings puts it at `root`): rigid.
 * - `torso` (the shoulder midpoint): follows Hips -> Neck (the person's spine), except in a character with
 *   more than one hip per side (four legs: its body lies along the ground as drawn, and stays so).
 * - `neck` (AnimatedDrawings puts it in the head): follows Neck -> Head; in a four-legged character it keeps
 *   its drawn direction while the person's neck is upright (`neutral` 90 degrees up) and tilts as theirs
 *   tilts: an animal's neck drawn leaning forward would otherwise be stood straight up.
 * - A joint named like a BVH joint or one of ours (`LeftForeArm`, `Spine2`, `LeftLowerArm`; bvhToPuppet in
 *   bvhNames.ts) follows the pose bone from its parent's place to its own (`root`, `hip` -> Hips, `torso` ->
 *   Neck, `neck` -> Head), when the two places differ.
 * - `root`, `hip`, `torso`, `neck` are AnimatedDrawings' names exactly as it writes them (lower case): a
 *   joint called `Neck` is the BVH neck, not AnimatedDrawings' (which sits in the head).
 * - Any other name (a tail, ears, a hat) is rigid with its parent.
 * Root translation: scaled by the legs (the bones following a thigh or a shin: drawn length over the person's)
 * as AnimatedDrawings' `char_bvh_root_offset` scales by leg lengths; without legs by every driven bone.
 * @throws PuppetInputError when the list is empty.
 */
export function skeletonFromNames(joints: readonly NamedJoint[], source: string): CharacterSkeleton {
  if (joints.length === 0) throw new PuppetInputError('the skeleton has no joints', source);
  const { joints: ordered, parents } = orderParentsFirst(joints);
  const names = ordered.map((j) => j.name);
  const lower = names.map((n) => n.toLowerCase());
  const limb = lower.map((n) => LIMB.exec(n));
  const hipsPerSide = (side: string) => limb.filter((m) => m && m[1] === side && m[2] === 'hip').length;
  const oneHipEach = hipsPerSide('left') === 1 && hipsPerSide('right') === 1;
  const quadruped = hipsPerSide('left') > 1 || hipsPerSide('right') > 1;
  const side = (s: string) => (s === 'left' ? 'Left' : 'Right');
  const family = bvhFamily(names);
  const drivers: JointDriver[] = [];
  const reports: number[] = [];
  ordered.forEach((_, j) => {
    const m = limb[j];
    const own = names[j];
    if (m) {
      const [, s, part, suffix = ''] = m;
      const S = side(s);
      reports.push(P(`${S}${LIMB_REPORT[part]}` as PuppetJointName));
      const bone = LIMB_BONE[part];
      if (bone) {
        drivers.push({
          kind: 'bone',
          from: P(`${S}${bone[0]}` as PuppetJointName),
          to: P(`${S}${bone[1]}` as PuppetJointName),
        });
      } else if (part === 'shoulder') {
        const other = lower.indexOf(`${s === 'left' ? 'right' : 'left'}_shoulder${suffix.toLowerCase()}`);
        if (other < 0) drivers.push({ kind: 'rigid' });
        else {
          const l = s === 'left' ? j : other;
          const r = s === 'left' ? other : j;
          drivers.push({
            kind: 'line',
            left: P('LeftUpperArm'),
            right: P('RightUpperArm'),
            restLeft: l,
            restRight: r,
          });
        }
      } else drivers.push({ kind: 'rigid' });
      return;
    }
    if (parents[j] < 0) {
      reports.push(0);
      const l = limb.findIndex((m) => m?.[1] === 'left' && m?.[2] === 'hip');
      const r = limb.findIndex((m) => m?.[1] === 'right' && m?.[2] === 'hip');
      if (own === 'root' && oneHipEach)
        drivers.push({
          kind: 'line',
          left: P('LeftUpperLeg'),
          right: P('RightUpperLeg'),
          restLeft: l,
          restRight: r,
        });
      else drivers.push({ kind: 'rigid' });
      return;
    }
    if (own === 'torso' && !quadruped) {
      drivers.push({ kind: 'bone', from: P('Hips'), to: P('Neck') });
      reports.push(P('Neck'));
    } else if (own === 'neck') {
      drivers.push({
        kind: 'bone',
        from: P('Neck'),
        to: P('Head'),
        ...(quadruped ? { neutral: -Math.PI / 2 } : {}),
      });
      reports.push(P('Head'));
    } else {
      // named like a BVH joint or one of ours (LeftForeArm, Spine2, LeftLowerArm): the pose bone from the
      // parent's joint to its own; AnimatedDrawings' root / hip / torso / neck stand for Hips, Hips, Neck, Head
      const to = bvhToPuppet(own, family);
      const pn = names[parents[j]];
      const from = AD_PLACE[pn] ?? bvhToPuppet(pn, family);
      if (to && from && to !== from) {
        drivers.push({ kind: 'bone', from: P(from), to: P(to) });
        reports.push(P(to));
      } else {
        drivers.push({ kind: 'rigid' });
        reports.push(-1);
      }
    }
  });
  // copies of one limb joint (same side and part, two or more suffixes) turn as a fan
  const groups = new Map<string, number[]>();
  limb.forEach((m, j) => {
    if (!m || drivers[j].kind !== 'bone') return;
    const key = `${m[1]}_${m[2]}`;
    groups.set(key, [...(groups.get(key) ?? []), j]);
  });
  for (const [key, g] of groups)
    if (g.length > 1) {
      // upper arms (the elbows' bones) keep to their side of the body (rig.ts FAN_SECTOR); the hands follow them
      const sector = key.endsWith('_elbow') ? (key.startsWith('right') ? 1 : -1) : undefined;
      for (const j of g)
        drivers[j] = {
          ...(drivers[j] as { kind: 'bone'; from: number; to: number }),
          fan: g,
          ...(sector ? { sector } : {}),
        };
    }
  return finishSkeleton(names, parents, drivers, reports, { rule: 'names' });
}

/** Where AnimatedDrawings' trunk joints sit in our skeleton (joints.ts ANIMATED_DRAWINGS_JOINT_MAP). */
const AD_PLACE: Readonly<Record<string, PuppetJointName | undefined>> = Object.assign(Object.create(null), {
  root: 'Hips',
  hip: 'Hips',
  torso: 'Neck',
  neck: 'Head',
});

const LEG_JOINTS = new Set([
  'LeftLowerLeg',
  'LeftFoot',
  'LeftToes',
  'RightLowerLeg',
  'RightFoot',
  'RightToes',
]);

/** Shared end of the builders: the translation scale and the printed mapping. */
export function finishSkeleton(
  names: readonly string[],
  parents: readonly number[],
  drivers: readonly JointDriver[],
  reports: readonly number[],
  mapping: Omit<SkeletonMapping, 'joints' | 'scale'>,
): CharacterSkeleton {
  const bones: number[] = [];
  drivers.forEach((d, j) => {
    if (d.kind === 'bone' && parents[j] >= 0) bones.push(j);
  });
  const legs = bones.filter((j) => {
    const d = drivers[j] as { to: number };
    return LEG_JOINTS.has(PUPPET_JOINTS[d.to]);
  });
  const use = legs.length > 0 ? legs : bones;
  const scaleFrom = {
    drawing: use.map((j) => [parents[j], j] as const),
    pose: use.map((j) => {
      const d = drivers[j] as { from: number; to: number };
      return [d.from, d.to] as const;
    }),
  };
  return {
    names,
    parents,
    drivers,
    reports,
    scaleFrom,
    mapping: {
      ...mapping,
      joints: names.map((name, j) => ({
        name,
        parent: parents[j] < 0 ? null : names[parents[j]],
        driver: describeDriver(drivers[j], names, parents[j]),
      })),
      scale:
        use.length === 0
          ? 'none: no driven bone, the root does not move'
          : // the pose bones named too, as the standard rule's 'drawn Hips -> Neck over the reference pose Hips -> Neck'
            `${legs.length > 0 ? 'legs' : 'driven bones'}: mean drawn length of ${use.map((j) => names[j]).join(', ')} over the mean length in the reference pose of ${[...new Set(scaleFrom.pose.map(([a, b]) => `${PUPPET_JOINTS[a]} -> ${PUPPET_JOINTS[b]}`))].join(', ')}`,
    },
  };
}

/**
 * The mapping as text lines for a terminal: a header naming the rule, then one line per joint
 * (`  name  <- driver`).
 */
export function formatMapping(m: SkeletonMapping): string[] {
  const head =
    m.rule === 'standard'
      ? 'skeleton: standard (21 puppet joints from the 16 AnimatedDrawings joints)'
      : m.rule === 'names'
        ? `skeleton: ${m.joints.length} joints mapped by name (DRAWING.md "Any AnimatedDrawings skeleton")`
        : `skeleton: ${m.joints.length} joints mapped by the retarget config ${m.source ?? ''}`.trimEnd();
  if (m.rule === 'standard') return [head];
  const w = Math.max(...m.joints.map((j) => j.name.length));
  const lines = [head, ...m.joints.map((j) => `  ${j.name.padEnd(w)}  <- ${j.driver}`)];
  lines.push(`  root translation scale: ${m.scale}`);
  for (const g of m.depthGroups ?? [])
    lines.push(
      `  depth group at ${g.bvhDepthDrivers.join(', ')} (${g.poseDepthDrivers.join(', ')}): ${g.charJoints.join(', ')}`,
    );
  return lines;
}
