/**
 * Checks of a loaded character that the readers let through because a render is still possible, but whose
 * result a user would not expect (issue 22, fresh-user review). Engine-free.
 *
 * Refused (PuppetInputError naming the file and field; nothing sensible can be drawn):
 * - no joint follows the person (a one-joint char_cfg.yaml, a skeleton of names the puppet does not know, an
 *   empty `char_joint_bvh_joints_mapping`): every frame would be the drawing at rest;
 * - every bone has length 0 (each joint on its parent; `hip` on `root` is AnimatedDrawings' own layout
 *   and not counted): no bone has a direction to turn.
 * Warned (one line each, the render goes on):
 * - a mask that marks (nearly) every pixel as the character (an all-white mask.png): the page's background
 *   is drawn as part of the figure and moves with it;
 * - joints named like a limb (arm, elbow, hand, leg, knee, foot ...) that no name rule maps, so they follow
 *   their parent rigidly (CamelCase or abbreviated names only half recognised);
 * - more than one root (`parent: null`): a second root moves with the body but does not turn with it; and, for
 *   the 16 standard joints, any parent other than AnimatedDrawings' own (the standard rig uses its own parents);
 * - a bone of length 0 (a joint on its parent): it cannot show a turn;
 * - a retarget config's `char_bodypart_groups` entry with no `bvh_depth_drivers` (no depth of its own: it is
 *   ordered at the landmarks' z origin, the hips' centre) or no `char_joints` (it draws nothing).
 */
import { AD_JOINTS, type Character, type CharCfg } from './character';
import { PuppetInputError } from './types';

/** A mask covering at least this fraction of the image counts as "every pixel" (an all-white mask). */
export const FULL_MASK_FRACTION = 0.99;

/** Bones shorter than this (drawing pixels) count as length 0. */
export const ZERO_BONE_PX = 0.5;

/** AnimatedDrawings' parents of its 16 joints (the standard rig's). */
const AD_PARENTS: Readonly<Record<(typeof AD_JOINTS)[number], string | null>> = {
  root: null,
  hip: 'root',
  torso: 'hip',
  neck: 'torso',
  right_shoulder: 'torso',
  right_elbow: 'right_shoulder',
  right_hand: 'right_elbow',
  left_shoulder: 'torso',
  left_elbow: 'left_shoulder',
  left_hand: 'left_elbow',
  right_hip: 'root',
  right_knee: 'right_hip',
  right_foot: 'right_knee',
  left_hip: 'root',
  left_knee: 'left_hip',
  left_foot: 'left_knee',
};

/** A name that reads like a limb joint. */
const LIMB_WORD = /arm|elbow|hand|wrist|leg|knee|foot|feet|ankle|thigh|shin|shoulder|hip|toe|finger/i;
/** Limb joints rigid by the name rule's design: girdles (`*_hip*`, a `*_shoulder*` without its pair). */
const RIGID_BY_RULE = /^(left|right)_(shoulder|hip)(\d+|_f|_b|_front|_back)?$/i;

const list = (names: readonly string[], max = 6) =>
  names.length <= max ? names.join(', ') : `${names.slice(0, max).join(', ')} and ${names.length - max} more`;

/**
 * Check a character built from an AnimatedDrawings folder (module doc).
 * @param cfg the folder's char_cfg.yaml as parseCharCfg read it, `cfgSource` its name; `maskSource` names
 *   mask.png. @returns warnings, one line each, naming the file and joint or field.
 * @throws PuppetInputError when nothing of the drawing would move.
 */
export function checkCharacter(
  c: Character,
  cfg: CharCfg | null,
  names: { cfg: string; mask: string },
): string[] {
  const warnings: string[] = [];
  // the mask
  let inside = 0;
  for (let i = 0; i < c.mask.length; i++) if (c.mask[i]) inside++;
  if (c.mask.length > 0 && inside >= FULL_MASK_FRACTION * c.mask.length)
    warnings.push(
      `${names.mask}: ${((100 * inside) / c.mask.length).toFixed(1)}% of the pixels are marked as the character (an all-white mask?): the background is drawn as part of the figure and moves with it; the mask should be white on the character only`,
    );
  if (!cfg) return warnings;
  const cfgName = names.cfg;
  const sk = c.skeleton;
  // nothing moves: every driver rigid (the standard rig always drives its limbs)
  if (sk?.drivers.every((d) => d.kind === 'rigid')) {
    const where =
      sk.mapping.rule === 'retarget-cfg'
        ? `${sk.mapping.source}: char_joint_bvh_joints_mapping`
        : `${cfgName}: skeleton`;
    throw new PuppetInputError(
      `none of the ${sk.names.length} joint(s) (${list([...sk.names])}) follows the person, so the drawing would stay at rest in every frame; ${sk.mapping.rule === 'retarget-cfg' ? 'map character joints to BVH joint pairs there' : 'a bone needs two joints, named as AnimatedDrawings names them (root, hip, torso, neck, left_elbow ...; DRAWING.md "Any AnimatedDrawings skeleton") or mapped by --retarget-cfg'}`,
      where,
    );
  }
  // zero-length bones (hip on root is AnimatedDrawings' own layout)
  const byName = new Map(cfg.joints.map((j) => [j.name, j]));
  const bones = cfg.joints.filter((j) => j.parent !== null && !(j.name === 'hip' && j.parent === 'root'));
  const zero = bones.filter((j) => {
    const p = byName.get(j.parent as string);
    return p !== undefined && Math.hypot(j.x - p.x, j.y - p.y) < ZERO_BONE_PX;
  });
  if (bones.length > 0 && zero.length === bones.length)
    throw new PuppetInputError(
      `every joint lies on its parent (${list(zero.map((j) => j.name))}): no bone has a length, so none can turn; give each joint its place in the drawing`,
      `${cfgName}: skeleton`,
    );
  for (const j of zero)
    warnings.push(
      `${cfgName}:${j.line}: joint '${j.name}' lies on its parent '${j.parent}' (both at [${j.x}, ${j.y}]): a bone of length 0 cannot show a turn; place it where the limb bends`,
    );
  // roots and parents
  const roots = cfg.joints.filter((j) => j.parent === null);
  const standard = !sk;
  if (standard) {
    const moved = cfg.joints.filter(
      (j) =>
        (AD_JOINTS as readonly string[]).includes(j.name) &&
        AD_PARENTS[j.name as (typeof AD_JOINTS)[number]] !== j.parent,
    );
    for (const j of moved)
      warnings.push(
        `${cfgName}:${j.line}: joint '${j.name}' has parent ${j.parent === null ? 'null' : `'${j.parent}'`}, but the 16 AnimatedDrawings joints are rigged with their own parents (${j.name}'s is ${AD_PARENTS[j.name as (typeof AD_JOINTS)[number]] ?? 'null'}): the file's parent is not used`,
      );
  } else if (roots.length > 1)
    warnings.push(
      `${cfgName}: ${roots.length} roots (${list(roots.map((j) => `'${j.name}' line ${j.line}`))} have parent null): ${list(roots.slice(1).map((j) => `'${j.name}'`))} and its joints move with the body but do not turn with '${roots[0].name}'; give ${roots.length > 2 ? 'them parents' : 'it a parent'}`,
    );
  // limb-like names no rule maps
  if (sk && sk.mapping.rule === 'names') {
    const unmapped = sk.names.filter(
      (n, j) =>
        sk.parents[j] >= 0 &&
        sk.drivers[j].kind === 'rigid' &&
        n !== 'hip' &&
        !RIGID_BY_RULE.test(n) &&
        LIMB_WORD.test(n),
    );
    if (unmapped.length > 0)
      warnings.push(
        `${cfgName}: ${unmapped.length} of ${sk.names.length} joints are named like a limb but match no name the puppet knows, so they follow their parent rigidly: ${list(unmapped)} (names: DRAWING.md "Any AnimatedDrawings skeleton"; or map them with --retarget-cfg)`,
      );
  }
  // a retarget config's depth groups
  (sk?.mapping.depthGroups ?? []).forEach((g, k) => {
    const field = `${sk?.mapping.source}: char_bodypart_groups[${k}]`;
    if (g.bvhDepthDrivers.length === 0)
      warnings.push(
        `${field}.bvh_depth_drivers is empty: the group (${list(g.charJoints) || 'no joints'}) has no depth of its own and is layered at the landmarks' z origin (the hips' centre); name the BVH joint whose depth it takes`,
      );
    if (g.charJoints.length === 0)
      warnings.push(`${field}.char_joints is empty: the group holds no joint and draws nothing`);
  });
  return warnings;
}
