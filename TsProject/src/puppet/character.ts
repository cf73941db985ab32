/**
 * A drawn character: its texture, mask and rest skeleton (21 PUPPET_JOINTS in drawing pixels, or the
 * character's own joints: six arms, four legs; skeleton.ts). Built from an AnimatedDrawings character folder
 * (texture.png, mask.png, char_cfg.yaml, optionally a retarget config) or from a bare image with a default
 * skeleton fitted to the mask. Engine-free (no Node or DOM API); images come in decoded.
 *
 * Drawing space: pixels of the texture, origin at the top-left corner of the image, x right, y DOWN (as
 * char_cfg.yaml's `loc`); pixel (i, j) covers [i, i+1) x [j, j+1).
 */
import { isMap, isSeq, LineCounter, parseDocument, type Node as YamlNode } from 'yaml';
import { ANIMATED_DRAWINGS_JOINT_MAP } from './joints';
import { maskBounds, maskFromImage, maskFromMaskImage } from './mask';
import { parseRetargetCfg, skeletonFromRetargetCfg } from './retargetCfg';
import { type CharacterSkeleton, orderParentsFirst, skeletonFromNames } from './skeleton';
import {
  createJointSet,
  type JointSet,
  JointStateCode,
  PUPPET_JOINT_COUNT,
  PUPPET_JOINTS,
  PUPPET_PARENTS,
  PuppetInputError,
  type PuppetJointName,
  type RgbaImage,
} from './types';

/** A drawing ready to rig: the texture, its mask and the rest skeleton. */
export interface Character {
  name: string;
  texture: RgbaImage;
  /** width * height bytes, 0 (background) or 255 (character), row-major, top row first. */
  mask: Uint8Array;
  width: number;
  height: number;
  /**
   * The rest skeleton: 21 PUPPET_JOINTS in drawing pixels (y down). state Measured (0) and confidence 1
   * where the joint came from an annotation (char_cfg.yaml or the caller), Rest (5) and confidence 0.5
   * where it was synthesised or taken from the default skeleton. With a `skeleton`: its M joints in its
   * order (all Measured, confidence 1).
   */
  restJoints: JointSet;
  /**
   * The character's own skeleton (names, parents, drivers, the mapping used) when it is not the standard
   * two-armed, two-legged one; absent for a standard character (the 21 PUPPET_JOINTS, PUPPET_PARENTS).
   */
  skeleton?: CharacterSkeleton;
}

/** One joint of an AnimatedDrawings char_cfg.yaml, with the line it was read from. */
export interface CharCfgJoint {
  name: string;
  x: number;
  y: number;
  parent: string | null;
  line: number;
}

/**
 * A parsed AnimatedDrawings `char_cfg.yaml`: the drawing's size in pixels and its joints (name, parent,
 * position in pixels).
 */
export interface CharCfg {
  width: number;
  height: number;
  joints: CharCfgJoint[];
}

/** The 16 joints of an AnimatedDrawings skeleton. */
export const AD_JOINTS = [
  'root',
  'hip',
  'torso',
  'neck',
  'right_shoulder',
  'right_elbow',
  'right_hand',
  'left_shoulder',
  'left_elbow',
  'left_hand',
  'right_hip',
  'right_knee',
  'right_foot',
  'left_hip',
  'left_knee',
  'left_foot',
] as const;

/**
 * AnimatedDrawings joint -> puppet joint: {@link ANIMATED_DRAWINGS_JOINT_MAP} (joints.ts; `torso` is the
 * shoulder midpoint = our Neck, `neck` sits in the head = our Head), without `hip`, which sits at `root` in
 * every AnimatedDrawings skeleton (it must be present, it is not mapped). `left_*` is the character's left
 * (image right for a figure facing the viewer), as the puppet's `Left*`.
 */
export const AD_TO_PUPPET: Readonly<Record<string, PuppetJointName>> = Object.freeze(
  Object.fromEntries(Object.entries(ANIMATED_DRAWINGS_JOINT_MAP).filter(([k]) => k !== 'hip')),
);

const J = (name: PuppetJointName): number => PUPPET_JOINTS.indexOf(name);

/**
 * Parse an AnimatedDrawings `char_cfg.yaml`: `width`, `height` and `skeleton`, a list of
 * `{ name, loc: [x, y], parent }` (loc in texture pixels, y down). Uses the `yaml` package.
 * @param source file name for messages.
 * @throws PuppetInputError naming `source:line` and the joint or field: a YAML syntax error, a missing or
 *   non-positive width/height, a skeleton that is not a list, an entry without a name, a loc that is not
 *   two finite numbers, a duplicate name or a parent that names no joint.
 */
export function parseCharCfg(yamlText: string, source: string): CharCfg {
  const lc = new LineCounter();
  const doc = parseDocument(yamlText, { lineCounter: lc, prettyErrors: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    const line = e.linePos?.[0].line ?? 1;
    throw new PuppetInputError(`YAML syntax error: ${e.message.split('\n')[0]}`, `${source}:${line}`);
  }
  const lineOf = (node: unknown): number => {
    const r = (node as YamlNode | undefined)?.range;
    return r ? lc.linePos(r[0]).line : 1;
  };
  const root = doc.contents;
  if (!isMap(root))
    throw new PuppetInputError('expected a mapping with width, height and skeleton', `${source}:1`);
  const num = (key: string): number => {
    const node = root.get(key, true) as YamlNode | undefined;
    const v = (node as { value?: unknown } | undefined)?.value;
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0 || !Number.isInteger(v))
      throw new PuppetInputError(
        node === undefined
          ? `missing field '${key}'`
          : `field '${key}' must be a positive integer, got ${String(v)}`,
        `${source}:${lineOf(node)}`,
      );
    return v;
  };
  const width = num('width');
  const height = num('height');
  const sk = root.get('skeleton', true);
  if (!isSeq(sk))
    throw new PuppetInputError(
      sk === undefined ? "missing field 'skeleton'" : "field 'skeleton' must be a list of joints",
      `${source}:${lineOf(sk)}`,
    );
  const joints: CharCfgJoint[] = [];
  const seen = new Set<string>();
  sk.items.forEach((item, k) => {
    const line = lineOf(item);
    if (!isMap(item))
      throw new PuppetInputError(
        `skeleton entry ${k} is not a mapping {name, loc, parent}`,
        `${source}:${line}`,
      );
    const name = item.get('name');
    if (typeof name !== 'string' || name === '')
      throw new PuppetInputError(`skeleton entry ${k} has no name`, `${source}:${line}`);
    if (seen.has(name)) throw new PuppetInputError(`joint '${name}' appears twice`, `${source}:${line}`);
    seen.add(name);
    const locNode = item.get('loc', true);
    const loc = isSeq(locNode) ? locNode.items.map((n) => (n as { value?: unknown }).value) : null;
    if (
      loc?.length !== 2 ||
      typeof loc[0] !== 'number' ||
      typeof loc[1] !== 'number' ||
      !Number.isFinite(loc[0]) ||
      !Number.isFinite(loc[1])
    )
      throw new PuppetInputError(
        `joint '${name}': loc must be [x, y], two finite numbers`,
        `${source}:${lineOf(locNode ?? item)}`,
      );
    const parent = item.get('parent');
    if (parent !== null && parent !== undefined && typeof parent !== 'string')
      throw new PuppetInputError(`joint '${name}': parent must be a joint name or null`, `${source}:${line}`);
    joints.push({
      name,
      x: loc[0] as number,
      y: loc[1] as number,
      parent: (parent as string | null) ?? null,
      line,
    });
  });
  for (const j of joints)
    if (j.parent !== null && !seen.has(j.parent))
      throw new PuppetInputError(
        `joint '${j.name}': parent '${j.parent}' is not a joint`,
        `${source}:${j.line}`,
      );
  // a joint is a point of the drawing: outside the image it is a typo (4490 for 449), not a pose
  for (const j of joints)
    if (j.x < 0 || j.x > width || j.y < 0 || j.y > height)
      throw new PuppetInputError(
        `joint '${j.name}': loc [${j.x}, ${j.y}] lies outside the ${width}x${height} image`,
        `${source}:${j.line}`,
      );
  // every joint's parent chain ends at a root: a cycle (torso's parent neck, neck's parent torso) is refused
  const byName = new Map(joints.map((j) => [j.name, j]));
  for (const j of joints) {
    let k: CharCfgJoint | undefined = j;
    for (let steps = 0; k && k.parent !== null; steps++) {
      if (steps > joints.length)
        throw new PuppetInputError(`joint '${j.name}': its parents form a cycle`, `${source}:${j.line}`);
      k = byName.get(k.parent);
    }
  }
  return { width, height, joints };
}

/** Options shared by the character builders. */
export interface CharacterOptions {
  /** Display name; default: the source. */
  name?: string;
  /**
   * An AnimatedDrawings retarget config (`char_joint_bvh_joints_mapping`, `char_bodypart_groups`;
   * retargetCfg.ts): its text and its file name for messages. The character then takes its own skeleton
   * driven as the config says, even when its joints are the standard 16.
   */
  retargetCfg?: { text: string; source: string };
}

/**
 * A character from an AnimatedDrawings folder's files: `texture.png` and `mask.png` decoded, `char_cfg.yaml`
 * as text. A cfg with exactly the 16 standard joints ({@link AD_JOINTS}) maps them one to one
 * ({@link AD_TO_PUPPET}) and synthesises the five the format lacks ({@link synthesiseMissingJoints}). Any
 * other skeleton (six arms, four legs, a tail, joints missing) keeps its own joints: `character.skeleton`,
 * mapped onto the pose by name ({@link skeletonFromNames}) or by `options.retargetCfg`
 * ({@link skeletonFromRetargetCfg}). No valid char_cfg is refused for its joint names.
 * @param source names the folder or cfg file in messages.
 * @throws PuppetInputError (naming `source`, the file and line or joint) when the cfg is malformed or has no
 *   joints, its width/height differ from the texture, the texture and mask sizes differ, the mask is empty,
 *   or the retarget config is malformed or names joints the cfg does not have.
 */
export function characterFromAnimatedDrawings(
  texture: RgbaImage,
  mask: RgbaImage,
  cfgText: string,
  source: string,
  options: CharacterOptions = {},
): Character {
  const cfgName = `${source.replace(/\/$/, '')}${source.endsWith('.yaml') ? '' : '/char_cfg.yaml'}`;
  const cfg = parseCharCfg(cfgText, cfgName);
  if (texture.width !== mask.width || texture.height !== mask.height)
    throw new PuppetInputError(
      `texture is ${texture.width}x${texture.height} but mask is ${mask.width}x${mask.height}; they must be the same size`,
      `${source}: mask.png`,
    );
  if (cfg.width !== texture.width || cfg.height !== texture.height)
    throw new PuppetInputError(
      `width x height ${cfg.width}x${cfg.height} differs from the texture's ${texture.width}x${texture.height}`,
      `${cfgName}:1`,
    );
  const standard =
    options.retargetCfg === undefined &&
    cfg.joints.length === AD_JOINTS.length &&
    AD_JOINTS.every((n) => cfg.joints.some((j) => j.name === n));
  if (!standard) {
    const skeleton = options.retargetCfg
      ? skeletonFromRetargetCfg(
          cfg.joints,
          parseRetargetCfg(options.retargetCfg.text, options.retargetCfg.source),
          cfgName,
        )
      : skeletonFromNames(cfg.joints, cfgName);
    const m = maskFromMaskImage(mask, `${source}: mask.png`);
    const ordered = orderParentsFirst(cfg.joints).joints;
    const rest = createJointSet(ordered.length);
    ordered.forEach((j, i) => {
      rest.x[i] = j.x;
      rest.y[i] = j.y;
    });
    rest.state.fill(JointStateCode.Measured);
    rest.confidence.fill(1);
    return {
      name: options.name ?? source,
      texture,
      mask: m,
      width: texture.width,
      height: texture.height,
      restJoints: rest,
      skeleton,
    };
  }
  const m = maskFromMaskImage(mask, `${source}: mask.png`);
  const rest = createJointSet();
  rest.state.fill(JointStateCode.Rest);
  const given = new Uint8Array(PUPPET_JOINT_COUNT);
  for (const j of cfg.joints) {
    const p = AD_TO_PUPPET[j.name];
    if (!p) continue;
    const i = J(p);
    rest.x[i] = j.x;
    rest.y[i] = j.y;
    given[i] = 1;
  }
  synthesiseMissingJoints(rest, given, m, texture.width, texture.height);
  return {
    name: options.name ?? source,
    texture,
    mask: m,
    width: texture.width,
    height: texture.height,
    restJoints: rest,
  };
}

/** Names and parents of a character's joints: its own skeleton's, or the 21 PUPPET_JOINTS'. */
export function characterJoints(c: Character): { names: readonly string[]; parents: readonly number[] } {
  return c.skeleton
    ? { names: c.skeleton.names, parents: c.skeleton.parents }
    : { names: PUPPET_JOINTS, parents: PUPPET_PARENTS };
}

/**
 * Fill the joints with `given[i] = 0` from their neighbours (in place), set state/confidence: given joints
 * Measured / 1, synthesised ones Rest / 0.5. Rules (pixels, y down):
 * - Spine = Hips + (Neck - Hips) / 3 and Chest = Hips + 2 (Neck - Hips) / 3 (when not given), the same
 *   thirds as the pose side's synthesised Spine and Chest (joints.ts).
 * - Head (when not given): from Neck along the direction Chest -> Neck, walk inside the mask to its edge
 *   (the top of the head) and take half of that walk (the head's middle, as MediaPipe's ear midpoint),
 *   at most 0.75 |Neck - Chest|; when the walk is shorter than 0.25 |Neck - Chest|, Head = Neck + 0.5 (Neck - Chest).
 * - *HandTip: from the hand along LowerArm -> Hand, walk to the mask's edge, at most 0.6 of the forearm and
 *   at least 0.2 of it.
 * - *Toes: from the foot along LowerLeg -> Foot, the same walk, between 0.2 and 0.6 of the shin.
 * Synthesised joints are clamped to the image ([0, width] x [0, height]).
 * Used for AnimatedDrawings skeletons (which have no spine, head top, hand or toe ends) and for partial
 * annotations. Hips, Neck, the shoulders, elbows, hands, hips, knees and feet must be given.
 */
export function synthesiseMissingJoints(
  rest: JointSet,
  given: Uint8Array,
  mask: Uint8Array,
  width: number,
  height: number,
): void {
  const { x, y } = rest;
  const inMask = (px: number, py: number): boolean => {
    const i = Math.floor(px);
    const j = Math.floor(py);
    return i >= 0 && j >= 0 && i < width && j < height && mask[j * width + i] !== 0;
  };
  /** Joint `to` = `from` + walk along (from - base) to the mask's edge, clamped to [minF, maxF] x |from - base|. */
  const extend = (to: number, from: number, base: number, minF: number, maxF: number, fallbackF: number) => {
    if (given[to]) return;
    let dx = x[from] - x[base];
    let dy = y[from] - y[base];
    const len = Math.hypot(dx, dy);
    if (len < 1e-9) {
      dx = 0;
      dy = base === J('Chest') ? -1 : 1;
    } else {
      dx /= len;
      dy /= len;
    }
    const L = Math.max(len, 1);
    let t = 0;
    while (t + 0.5 <= maxF * L && inMask(x[from] + dx * (t + 0.5), y[from] + dy * (t + 0.5))) t += 0.5;
    if (t < minF * L) t = fallbackF * L;
    x[to] = Math.min(Math.max(x[from] + dx * t, 0), width);
    y[to] = Math.min(Math.max(y[from] + dy * t, 0), height);
  };
  const hips = J('Hips');
  const neck = J('Neck');
  for (const [joint, f] of [
    [J('Spine'), 1 / 3],
    [J('Chest'), 2 / 3],
  ] as const) {
    if (given[joint]) continue;
    x[joint] = x[hips] + f * (x[neck] - x[hips]);
    y[joint] = y[hips] + f * (y[neck] - y[hips]);
  }
  if (!given[J('Head')]) {
    extend(J('Head'), neck, J('Chest'), 0.5, 1.5, 1);
    x[J('Head')] = (x[J('Head')] + x[neck]) / 2;
    y[J('Head')] = (y[J('Head')] + y[neck]) / 2;
  }
  extend(J('LeftHandTip'), J('LeftHand'), J('LeftLowerArm'), 0.2, 0.6, 0.2);
  extend(J('RightHandTip'), J('RightHand'), J('RightLowerArm'), 0.2, 0.6, 0.2);
  extend(J('LeftToes'), J('LeftFoot'), J('LeftLowerLeg'), 0.2, 0.6, 0.2);
  extend(J('RightToes'), J('RightFoot'), J('RightLowerLeg'), 0.2, 0.6, 0.2);
  for (let i = 0; i < PUPPET_JOINT_COUNT; i++) {
    rest.state[i] = given[i] ? JointStateCode.Measured : JointStateCode.Rest;
    rest.confidence[i] = given[i] ? 1 : 0.5;
  }
}

/**
 * The default skeleton in normalised coordinates of the mask's bounding box ([0, 1] x [0, 1], y down),
 * PUPPET_JOINTS order: a figure facing the viewer, arms out and slightly down, legs apart (the character's
 * left on image right). Overwritten by annotations (char_cfg.yaml, the pose model run on the drawing, drags).
 */
export const DEFAULT_SKELETON: readonly (readonly [number, number])[] = [
  [0.5, 0.55], // Hips
  [0.5, 0.45], // Spine
  [0.5, 0.35], // Chest
  [0.5, 0.25], // Neck
  [0.5, 0.13], // Head
  [0.62, 0.29], // LeftUpperArm
  [0.77, 0.36], // LeftLowerArm
  [0.91, 0.43], // LeftHand
  [0.97, 0.46], // LeftHandTip
  [0.38, 0.29], // RightUpperArm
  [0.23, 0.36], // RightLowerArm
  [0.09, 0.43], // RightHand
  [0.03, 0.46], // RightHandTip
  [0.58, 0.57], // LeftUpperLeg
  [0.62, 0.76], // LeftLowerLeg
  [0.66, 0.93], // LeftFoot
  [0.68, 0.99], // LeftToes
  [0.42, 0.57], // RightUpperLeg
  [0.38, 0.76], // RightLowerLeg
  [0.34, 0.93], // RightFoot
  [0.32, 0.99], // RightToes
];

/**
 * Place a normalised skeleton (21 [u, v] in [0, 1], y down) in a box of drawing pixels
 * [x0, y0, x1, y1] (inclusive pixel bounds, so the box spans x0 .. x1 + 1). state Rest, confidence 0.5.
 */
export function skeletonInBox(
  normalised: readonly (readonly [number, number])[],
  box: readonly [number, number, number, number],
  out: JointSet = createJointSet(),
): JointSet {
  const [x0, y0, x1, y1] = box;
  for (let i = 0; i < PUPPET_JOINT_COUNT; i++) {
    out.x[i] = x0 + normalised[i][0] * (x1 + 1 - x0);
    out.y[i] = y0 + normalised[i][1] * (y1 + 1 - y0);
    out.state[i] = JointStateCode.Rest;
    out.confidence[i] = 0.5;
  }
  return out;
}

/**
 * A character from a bare image (a PNG with alpha, or a photo of a drawing on paper): the mask from
 * {@link maskFromImage} (or the given one), and the rest skeleton either given (`joints`, drawing pixels;
 * copied) or the {@link DEFAULT_SKELETON} fitted to the mask's bounding box.
 * @throws PuppetInputError when the mask is empty or sizes disagree.
 */
export function characterFromImage(
  img: RgbaImage,
  joints?: JointSet,
  options: CharacterOptions & { mask?: Uint8Array; source?: string } = {},
): Character {
  const source = options.source ?? options.name ?? 'image';
  const mask = options.mask ?? maskFromImage(img, { source });
  if (mask.length !== img.width * img.height)
    throw new PuppetInputError(
      `mask has ${mask.length} pixels, the image ${img.width}x${img.height} = ${img.width * img.height}`,
      source,
    );
  const box = maskBounds(mask, img.width, img.height);
  if (!box) throw new PuppetInputError('the mask is empty: no pixel belongs to the character', source);
  const rest = createJointSet();
  if (joints) {
    rest.x.set(joints.x);
    rest.y.set(joints.y);
    rest.confidence.set(joints.confidence);
    rest.state.set(joints.state);
  } else skeletonInBox(DEFAULT_SKELETON, box, rest);
  for (let i = 0; i < PUPPET_JOINT_COUNT; i++)
    if (!Number.isFinite(rest.x[i]) || !Number.isFinite(rest.y[i]))
      throw new PuppetInputError(`joint ${PUPPET_JOINTS[i]} is not finite`, source);
  return {
    name: options.name ?? source,
    texture: img,
    mask,
    width: img.width,
    height: img.height,
    restJoints: rest,
  };
}
