/**
 * AnimatedDrawings retarget configs (examples/config/retarget/*.yaml, e.g. six_arms.yaml, four_legs.yaml,
 * fair1_ppf.yaml, cmu1_pfp.yaml) read for the drawing puppet. Engine-free; YAML through the `yaml` package.
 *
 * Used fields (the rest, `bvh_projection_bodypart_groups`, `char_bvh_root_offset`, `char_starting_location`,
 * `char_runtime_checks`, place and project a 3-D BVH and have no meaning for 2-D pose landmarks; they are
 * not read):
 * - `char_joint_bvh_joints_mapping`: character joint -> `[prox, dist]`, two BVH joint names (written as a
 *   `!!python/tuple` in AnimatedDrawings' files, or a plain list). The bone that ends at the character joint
 *   takes the direction prox -> dist (AnimatedDrawings retargeter.py compute_orientations). Here prox and dist
 *   are translated onto our 21 pose joints by {@link bvhToPuppet}; the bone follows pose[dist'] - pose[prox'].
 * - `char_bodypart_groups`: `{ char_joints: [...], bvh_depth_drivers: [...] }` groups: which limbs are drawn
 *   over which by the depth of a BVH joint. Parsed and checked (every joint named exists, every BVH joint is
 *   known) and stored in the mapping; DRAWING.md says what the renderer does with them.
 * Character joints the mapping does not name follow their parent rigidly; the root keeps its rest angle
 * (AnimatedDrawings never turns the root; it only moves it).
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode } from 'yaml';
import { type BvhFamily, bvhFamily, bvhToPuppet } from './bvhNames';
import {
  type CharacterSkeleton,
  type DepthGroup,
  finishSkeleton,
  type JointDriver,
  type NamedJoint,
  orderParentsFirst,
} from './skeleton';
import { PUPPET_JOINTS, PuppetInputError } from './types';

/** One entry of `char_joint_bvh_joints_mapping`. */
export interface RetargetJoint {
  charJoint: string;
  prox: string;
  dist: string;
  line: number;
}

/**
 * A parsed AnimatedDrawings retarget config: which BVH joint drives each character joint, the body-part
 * groups and the BVH naming family.
 */
export interface RetargetCfg {
  source: string;
  mapping: RetargetJoint[];
  groups: { charJoints: string[]; bvhDepthDrivers: string[]; line: number }[];
  family: BvhFamily;
}

/**
 * Parse an AnimatedDrawings retarget config.
 * @param source the file name for messages.
 * @throws PuppetInputError naming `source:line` and the field or joint: YAML syntax, a missing or malformed
 *   `char_joint_bvh_joints_mapping` (an entry that is not two names), a BVH joint no table knows, a malformed
 *   `char_bodypart_groups` entry.
 */
export function parseRetargetCfg(yamlText: string, source: string): RetargetCfg {
  const lc = new LineCounter();
  // AnimatedDrawings writes the pairs as `!!python/tuple`: read them as plain lists
  const doc = parseDocument(yamlText, {
    lineCounter: lc,
    prettyErrors: true,
    customTags: [{ tag: 'tag:yaml.org,2002:python/tuple', collection: 'seq', resolve: (v: unknown) => v }],
  } as Parameters<typeof parseDocument>[1]);
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    throw new PuppetInputError(
      `YAML syntax error: ${e.message.split('\n')[0]}`,
      `${source}:${e.linePos?.[0].line ?? 1}`,
    );
  }
  const lineOf = (node: unknown): number => {
    const r = (node as YamlNode | undefined)?.range;
    return r ? lc.linePos(r[0]).line : 1;
  };
  const root = doc.contents;
  if (!isMap(root))
    throw new PuppetInputError('expected a mapping (an AnimatedDrawings retarget config)', `${source}:1`);
  const m = root.get('char_joint_bvh_joints_mapping', true);
  if (!isMap(m))
    throw new PuppetInputError(
      m === undefined
        ? "missing field 'char_joint_bvh_joints_mapping'"
        : "field 'char_joint_bvh_joints_mapping' must map character joints to [prox, dist] BVH joint pairs",
      `${source}:${lineOf(m)}`,
    );
  const names = (node: unknown, what: string, line: number, count?: number): string[] => {
    const items = isSeq(node) ? node.items.map((n) => (isScalar(n) ? n.value : undefined)) : null;
    if (
      !items ||
      items.some((v) => typeof v !== 'string' || v === '') ||
      (count !== undefined && items.length !== count)
    )
      throw new PuppetInputError(
        `${what} must be a list of ${count ?? 'one or more'} joint names`,
        `${source}:${lineOf(node) || line}`,
      );
    return items as string[];
  };
  const mapping: RetargetJoint[] = m.items.map((pair) => {
    const key = isScalar(pair.key) ? pair.key.value : pair.key;
    const line = lineOf(pair.key);
    if (typeof key !== 'string' || key === '')
      throw new PuppetInputError(
        'char_joint_bvh_joints_mapping: a key is not a joint name',
        `${source}:${line}`,
      );
    const [prox, dist] = names(pair.value, `char_joint_bvh_joints_mapping.${key}`, line, 2);
    return { charJoint: key, prox, dist, line };
  });
  const groups: RetargetCfg['groups'] = [];
  const g = root.get('char_bodypart_groups', true);
  if (g !== undefined && g !== null) {
    if (!isSeq(g))
      throw new PuppetInputError(
        "field 'char_bodypart_groups' must be a list of groups",
        `${source}:${lineOf(g)}`,
      );
    g.items.forEach((item, k) => {
      const line = lineOf(item);
      if (!isMap(item))
        throw new PuppetInputError(
          `char_bodypart_groups entry ${k} must be a mapping {char_joints, bvh_depth_drivers}`,
          `${source}:${line}`,
        );
      groups.push({
        charJoints: names(item.get('char_joints', true), `char_bodypart_groups[${k}].char_joints`, line),
        bvhDepthDrivers: names(
          item.get('bvh_depth_drivers', true),
          `char_bodypart_groups[${k}].bvh_depth_drivers`,
          line,
        ),
        line,
      });
    });
  }
  const family = bvhFamily([
    ...mapping.flatMap((e) => [e.prox, e.dist]),
    ...groups.flatMap((x) => x.bvhDepthDrivers),
  ]);
  const check = (name: string, line: number, field: string) => {
    if (!bvhToPuppet(name, family))
      throw new PuppetInputError(
        `${field}: BVH joint '${name}' is not one the puppet knows (AnimatedDrawings' fair1, CMU and Mixamo names, or ours: ${PUPPET_JOINTS.join(', ')}; DRAWING.md lists them)`,
        `${source}:${line}`,
      );
  };
  for (const e of mapping) {
    check(e.prox, e.line, `char_joint_bvh_joints_mapping.${e.charJoint}`);
    check(e.dist, e.line, `char_joint_bvh_joints_mapping.${e.charJoint}`);
  }
  groups.forEach((x, k) => {
    for (const b of x.bvhDepthDrivers) check(b, x.line, `char_bodypart_groups[${k}].bvh_depth_drivers`);
  });
  return { source, mapping, groups, family };
}

/**
 * The skeleton of a char_cfg.yaml driven by a retarget config (module doc).
 * @param cfgSource names the char_cfg for messages.
 * @throws PuppetInputError naming the retarget config's line when it names a character joint the char_cfg
 *   does not have, or maps the root (which has no bone to turn).
 */
export function skeletonFromRetargetCfg(
  joints: readonly NamedJoint[],
  retarget: RetargetCfg,
  cfgSource: string,
): CharacterSkeleton {
  if (joints.length === 0) throw new PuppetInputError('the skeleton has no joints', cfgSource);
  const { joints: ordered, parents } = orderParentsFirst(joints);
  const names = ordered.map((j) => j.name);
  const index = new Map(names.map((n, i) => [n, i]));
  const drivers: JointDriver[] = names.map(() => ({ kind: 'rigid' }));
  const reports: number[] = parents.map((p) => (p < 0 ? 0 : -1));
  const known = (name: string, line: number, field: string): number => {
    const i = index.get(name);
    if (i === undefined)
      throw new PuppetInputError(
        `${field}: character joint '${name}' is not in ${cfgSource} (its joints: ${names.join(', ')})`,
        `${retarget.source}:${line}`,
      );
    return i;
  };
  for (const e of retarget.mapping) {
    const j = known(e.charJoint, e.line, 'char_joint_bvh_joints_mapping');
    if (parents[j] < 0)
      throw new PuppetInputError(
        `char_joint_bvh_joints_mapping: '${e.charJoint}' is the root of ${cfgSource}: it ends no bone to turn`,
        `${retarget.source}:${e.line}`,
      );
    const from = PUPPET_JOINTS.indexOf(bvhToPuppet(e.prox, retarget.family)!);
    const to = PUPPET_JOINTS.indexOf(bvhToPuppet(e.dist, retarget.family)!);
    drivers[j] = { kind: 'bone', from, to };
    reports[j] = to;
  }
  const depthGroups: DepthGroup[] = retarget.groups.map((g, k) => {
    for (const c of g.charJoints) known(c, g.line, `char_bodypart_groups[${k}].char_joints`);
    return {
      bvhDepthDrivers: g.bvhDepthDrivers,
      poseDepthDrivers: g.bvhDepthDrivers.map((b) => bvhToPuppet(b, retarget.family)!),
      charJoints: g.charJoints,
    };
  });
  return finishSkeleton(names, parents, drivers, reports, {
    rule: 'retarget-cfg',
    source: retarget.source,
    depthGroups,
  });
}
