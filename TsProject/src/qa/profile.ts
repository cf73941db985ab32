/**
 * Rig profiles for retarget QA: per character (the observed, retargeted rig) a bone map, twist axes,
 * thresholds, weights and flags. JSON-able; read from text with {@link parseRigProfile} (errors name
 * file:line:column and the field), or built from a skeleton with {@link defaultRigProfile}.
 *
 * File format (schema version 1; every field optional, missing ones take the defaults below):
 *
 * ```json
 * {
 *   "schemaVersion": 1,
 *   "name": "Xbot",
 *   "boneMap": { "RightShoulder": "mixamorig:RightShoulder" },
 *   "twistAxes": { "RightLowerArm": [0, 1, 0] },
 *   "thresholds": { "RightLowerArm": { "rotationDeg": 15, "twistDeg": 22, "positionFraction": 0.03 } },
 *   "weights": { "RightLowerArm": 1.5 },
 *   "wrist": { "lambda": 0.6, "thresholdDeg": 30 },
 *   "shoulderPitchDeg": 10,
 *   "minRun": { "frames": 4, "atFps": 30 },
 *   "flags": { "mirrored": false, "noShoulderBones": null }
 * }
 * ```
 *
 * - `boneMap`: HumanBodyBones name -> bone name in the observed rig; overrides the rig's humanoid map.
 * - `twistAxes`: HumanBodyBones name -> axis `[x, y, z]` in that bone's local frame (normalised on read).
 *   Default: the rest direction from the bone to its humanoid child (UpperArm -> LowerArm, LowerArm -> Hand,
 *   Hand -> MiddleProximal, else its first child), in its own local frame.
 * - `thresholds`: per HumanBodyBones name, `rotationDeg` (E_rot), `twistDeg` (|E_twist|, `null` = not
 *   checked), `positionFraction` (E_pos in units of character height, `null` = not checked).
 * - `weights`: per HumanBodyBones name, the weight `w` in `S = sum w * max(0, E/T - 1)`.
 * - `wrist`: `E_wrist = |E_twist(LowerArm)| + lambda * |E_twist(Hand)|`, checked on the LowerArm.
 * - `shoulderPitchDeg`: threshold on the difference of clavicle pitch (Shoulder -> UpperArm elevation
 *   above the horizontal plane) between observed and golden.
 * - `minRun`: a bone is flagged only for at least `frames` consecutive frames at `atFps`, scaled to the
 *   clip's fps (`round(frames * fps / atFps)`, at least 1).
 * - `flags.mirrored`: the observed clip is a left/right mirror of the golden on purpose; the golden is
 *   mirrored before comparing (mirroring reflects the motion across the body's X = 0 plane, which
 *   flips the sign of every twist). `flags.noShoulderBones`: `null` = detect (the observed rig maps no
 *   Shoulder bone); when true, UpperArm rotation and twist thresholds are multiplied by 1.5.
 *
 * Default thresholds (production practice named in issue 6, the rest chosen to match them):
 * | bones | rotationDeg | twistDeg | positionFraction | weight |
 * |---|---|---|---|---|
 * | Shoulder | 20 | - | - | 1.5 |
 * | UpperArm | 12 | 25 | - | 1 |
 * | LowerArm | 15 | 22 | 0.03 (elbow) | 1.5 |
 * | Hand | 20 | 30 | 0.02 | 1 |
 * | UpperLeg | 12 | 25 | - | 1 |
 * | LowerLeg | 15 | 22 | - | 1 |
 * | Foot | 20 | 30 | 0.03 | 1 |
 * | Hips, Spine, Chest, UpperChest | 15 | - | - | 1 |
 * | Neck, Head | 20 | - | - | 1 |
 * | Toes, Eyes, Jaw | 30 | - | - | 1 |
 * | fingers | 30 | - | - | 0.3 |
 * The UpperArm rotation threshold (12) sits below a 15-degree T/A-pose offset so that offset is caught.
 */
import {
  childrenOf,
  HumanBodyBones as H,
  HUMAN_BONE_COUNT,
  HUMAN_BONE_NAMES,
  humanBoneIndex,
  type JNode,
  JsonFieldError,
  JsonReader,
  lineColumn,
  restWorld,
  type Skeleton,
} from '../core';

/** The rig profile schema version this code reads and writes. */
export const RIG_PROFILE_SCHEMA_VERSION = 1;

/**
 * QA thresholds of one bone (degrees; position in units of character height); absent fields keep the
 * defaults.
 */
export interface BoneThresholds {
  /** E_rot threshold, degrees. */
  rotationDeg?: number;
  /** |E_twist| threshold, degrees; null = twist not checked. */
  twistDeg?: number | null;
  /** E_pos threshold as a fraction of character height; null = position not checked. */
  positionFraction?: number | null;
}

/**
 * A rig profile for QA (the `--profile` JSON): bone map, twist axes, thresholds, weights, wrist and shoulder
 * settings, minimum run and flags.
 */
export interface RigProfile {
  schemaVersion: number;
  name?: string;
  /** HumanBodyBones name -> bone name in the observed rig. */
  boneMap: Record<string, string>;
  /** HumanBodyBones name -> unit axis in the bone's local frame. */
  twistAxes: Record<string, [number, number, number]>;
  /** HumanBodyBones name -> thresholds. */
  thresholds: Record<string, BoneThresholds>;
  /** HumanBodyBones name -> weight. */
  weights: Record<string, number>;
  wrist: { lambda: number; thresholdDeg: number };
  shoulderPitchDeg: number;
  minRun: { frames: number; atFps: number };
  flags: { mirrored: boolean; noShoulderBones: boolean | null };
  /**
   * Where each `boneMap` entry was read (`file:line:column`), set by {@link parseRigProfile}, so a bone
   * name the observed rig lacks can be reported at its place when the clip is evaluated. Not written out.
   */
  boneMapAt?: Record<string, string>;
}

/** Thrown for a bad rig profile; `message` names the file, line:column and the field's path. */
export class RigProfileError extends JsonFieldError {
  constructor(fileName: string, path: string, detail: string, line = 0, column = 0) {
    super(fileName, path, detail, line, column);
    this.name = 'RigProfileError';
  }
}

const FINGER = /(Thumb|Index|Middle|Ring|Little)(Proximal|Intermediate|Distal)$/;

/** Default thresholds and weight of a humanoid bone (see the table in the module docs). */
export function defaultBoneRule(bone: number): Required<BoneThresholds> & { weight: number } {
  const name = HUMAN_BONE_NAMES[bone];
  const part = name.replace(/^(Left|Right)/, '');
  if (FINGER.test(name)) return { rotationDeg: 30, twistDeg: null, positionFraction: null, weight: 0.3 };
  switch (part) {
    case 'Shoulder':
      return { rotationDeg: 20, twistDeg: null, positionFraction: null, weight: 1.5 };
    case 'UpperArm':
      return { rotationDeg: 12, twistDeg: 25, positionFraction: null, weight: 1 };
    case 'LowerArm':
      return { rotationDeg: 15, twistDeg: 22, positionFraction: 0.03, weight: 1.5 };
    case 'Hand':
      return { rotationDeg: 20, twistDeg: 30, positionFraction: 0.02, weight: 1 };
    case 'UpperLeg':
      return { rotationDeg: 12, twistDeg: 25, positionFraction: null, weight: 1 };
    case 'LowerLeg':
      return { rotationDeg: 15, twistDeg: 22, positionFraction: null, weight: 1 };
    case 'Foot':
      return { rotationDeg: 20, twistDeg: 30, positionFraction: 0.03, weight: 1 };
    case 'Hips':
    case 'Spine':
    case 'Chest':
    case 'UpperChest':
      return { rotationDeg: 15, twistDeg: null, positionFraction: null, weight: 1 };
    case 'Neck':
    case 'Head':
      return { rotationDeg: 20, twistDeg: null, positionFraction: null, weight: 1 };
    default:
      return { rotationDeg: 30, twistDeg: null, positionFraction: null, weight: 1 };
  }
}

/** The bone a humanoid bone's twist axis points to, preferring the humanoid child. */
const TWIST_CHILD: Partial<Record<number, number>> = {
  [H.LeftUpperArm]: H.LeftLowerArm,
  [H.RightUpperArm]: H.RightLowerArm,
  [H.LeftLowerArm]: H.LeftHand,
  [H.RightLowerArm]: H.RightHand,
  [H.LeftHand]: H.LeftMiddleProximal,
  [H.RightHand]: H.RightMiddleProximal,
  [H.LeftUpperLeg]: H.LeftLowerLeg,
  [H.RightUpperLeg]: H.RightLowerLeg,
  [H.LeftLowerLeg]: H.LeftFoot,
  [H.RightLowerLeg]: H.RightFoot,
  [H.LeftFoot]: H.LeftToes,
  [H.RightFoot]: H.RightToes,
  [H.LeftShoulder]: H.LeftUpperArm,
  [H.RightShoulder]: H.RightUpperArm,
  [H.Hips]: H.Spine,
  [H.Spine]: H.Chest,
  [H.Neck]: H.Head,
};

/**
 * Twist axis of skeleton bone `b` (humanoid bone `h`) in its own local frame: the rest direction to its
 * humanoid child (TWIST_CHILD) when mapped and below it, else to its first child; null for a leaf or a
 * zero-length offset.
 */
export function defaultTwistAxis(
  skeleton: Skeleton,
  h: number,
  rest = restWorld(skeleton),
  children = childrenOf(skeleton),
): [number, number, number] | null {
  const b = skeleton.humanoid[h];
  if (b < 0) return null;
  let c = -1;
  const hc = TWIST_CHILD[h];
  if (hc !== undefined && skeleton.humanoid[hc] > b) {
    let k = skeleton.humanoid[hc];
    while (k > b) k = skeleton.parents[k];
    if (k === b) c = skeleton.humanoid[hc];
  }
  if (c < 0 && children[b].length > 0) c = children[b][0];
  if (c < 0) return null;
  const P = rest.positions;
  const dx = P[3 * c] - P[3 * b];
  const dy = P[3 * c + 1] - P[3 * b + 1];
  const dz = P[3 * c + 2] - P[3 * b + 2];
  const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
  if (!(len > 1e-9)) return null;
  // rotate into the bone's rest frame: conj(R) * d
  const R = rest.rotations;
  const qx = -R[4 * b];
  const qy = -R[4 * b + 1];
  const qz = -R[4 * b + 2];
  const qw = R[4 * b + 3];
  const x = dx / len;
  const y = dy / len;
  const z = dz / len;
  const uvx = qy * z - qz * y;
  const uvy = qz * x - qx * z;
  const uvz = qx * y - qy * x;
  const ox = x + 2 * (qw * uvx + qy * uvz - qz * uvy);
  const oy = y + 2 * (qw * uvy + qz * uvx - qx * uvz);
  const oz = z + 2 * (qw * uvz + qx * uvy - qy * uvx);
  const l = Math.sqrt(ox * ox + oy * oy + oz * oz);
  return [ox / l, oy / l, oz / l];
}

/** An empty profile: every field at its default, no per-bone entries (the skeleton supplies those). */
export function emptyRigProfile(): RigProfile {
  return {
    schemaVersion: RIG_PROFILE_SCHEMA_VERSION,
    boneMap: {},
    twistAxes: {},
    thresholds: {},
    weights: {},
    wrist: { lambda: 0.6, thresholdDeg: 30 },
    shoulderPitchDeg: 10,
    minRun: { frames: 4, atFps: 30 },
    flags: { mirrored: false, noShoulderBones: null },
  };
}

/**
 * The full default profile of a rig: every mapped humanoid bone with its thresholds, weight and twist
 * axis (from the child bone direction), the bone map from the skeleton's humanoid map, and
 * `noShoulderBones` detected (true when neither Shoulder is mapped; UpperArm thresholds are then x1.5
 * at evaluation, not here).
 */
export function defaultRigProfile(skeleton: Skeleton, name?: string): RigProfile {
  const p = emptyRigProfile();
  if (name !== undefined) p.name = name;
  const rest = restWorld(skeleton);
  const children = childrenOf(skeleton);
  for (let h = 0; h < HUMAN_BONE_COUNT; h++) {
    const b = skeleton.humanoid[h];
    if (b < 0) continue;
    const n = HUMAN_BONE_NAMES[h];
    p.boneMap[n] = skeleton.names[b];
    const r = defaultBoneRule(h);
    p.thresholds[n] = {
      rotationDeg: r.rotationDeg,
      twistDeg: r.twistDeg,
      positionFraction: r.positionFraction,
    };
    p.weights[n] = r.weight;
    const a = defaultTwistAxis(skeleton, h, rest, children);
    if (a) p.twistAxes[n] = a;
  }
  p.flags.noShoulderBones = skeleton.humanoid[H.LeftShoulder] < 0 && skeleton.humanoid[H.RightShoulder] < 0;
  return p;
}

// ---------------------------------------------------------------------------------------------
// Parsing.

class Reader {
  constructor(
    private readonly text: string,
    private readonly fileName: string,
  ) {}

  fail(node: JNode | null, path: string, detail: string): never {
    if (node !== null && node.at >= 0) {
      const { line, column } = lineColumn(this.text, node.at);
      throw new RigProfileError(this.fileName, path, detail, line, column);
    }
    throw new RigProfileError(this.fileName, path, detail);
  }

  describe(n: JNode): string {
    switch (n.kind) {
      case 'null':
        return 'null';
      case 'boolean':
      case 'number':
        return String(n.value);
      case 'string':
        return `the string ${JSON.stringify(n.value)}`;
      case 'array':
        return `an array of ${n.items.length}`;
      case 'object':
        return 'an object';
    }
  }

  fields(n: JNode, path: string, known: readonly string[]): Map<string, JNode> {
    if (n.kind !== 'object') this.fail(n, path, `need an object, got ${this.describe(n)}`);
    const out = new Map<string, JNode>();
    for (let i = 0; i < n.keys.length; i++) {
      const k = n.keys[i];
      if (!known.includes(k))
        this.fail(n.values[i], join(path, k), `unknown field (known: ${known.join(', ')})`);
      out.set(k, n.values[i]);
    }
    return out;
  }

  /** An object keyed by HumanBodyBones names. */
  boneKeyed(n: JNode, path: string): { bone: string; node: JNode; path: string }[] {
    if (n.kind !== 'object')
      this.fail(n, path, `need an object keyed by HumanBodyBones names, got ${this.describe(n)}`);
    return n.keys.map((k, i) => {
      const p = join(path, k);
      if (humanBoneIndex(k) < 0) {
        const close = HUMAN_BONE_NAMES.find((x) => x.toLowerCase() === k.toLowerCase());
        this.fail(
          n.values[i],
          p,
          `'${k}' is not a HumanBodyBones name${close ? `; did you mean '${close}'?` : ' (e.g. RightLowerArm)'}`,
        );
      }
      return { bone: k, node: n.values[i], path: p };
    });
  }

  number(n: JNode, path: string, lo: number, hi: number, unit: string, loOpen = false): number {
    if (n.kind !== 'number') this.fail(n, path, `need a number (${unit}), got ${this.describe(n)}`);
    const v = n.value;
    if (v > hi || (loOpen ? v <= lo : v < lo))
      this.fail(
        n,
        path,
        `${v} is out of range ${loOpen ? `above ${lo} up to ${hi}` : `${lo}..${hi}`} (${unit})`,
      );
    return v;
  }

  string(n: JNode, path: string): string {
    if (n.kind !== 'string' || n.value.length === 0)
      this.fail(n, path, `need a non-empty string, got ${this.describe(n)}`);
    return n.value;
  }

  boolean(n: JNode, path: string): boolean {
    if (n.kind !== 'boolean') this.fail(n, path, `need true or false, got ${this.describe(n)}`);
    return n.value;
  }
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
function join(base: string, key: string): string {
  if (IDENT.test(key)) return base ? `${base}.${key}` : key;
  return `${base}[${JSON.stringify(key)}]`;
}

const TOP = [
  'schemaVersion',
  'name',
  'boneMap',
  'twistAxes',
  'thresholds',
  'weights',
  'wrist',
  'shoulderPitchDeg',
  'minRun',
  'flags',
] as const;

/**
 * Read a rig profile from JSON text. Missing fields keep the defaults of {@link emptyRigProfile}; per-bone
 * defaults come from the skeleton at evaluation. `fileName` is used in error messages only.
 * @throws RigProfileError naming `file:line:column` and the field path, e.g.
 * `xbot.qa.json:5:33: thresholds.RightLowerArm.twistDeg: -3 is out of range above 0 up to 180 (degrees)`,
 * for malformed JSON, unknown fields, non-HumanBodyBones keys, wrong types and out-of-range values.
 */
export function parseRigProfile(text: string, fileName: string): RigProfile {
  const r: Reader = new Reader(text, fileName);
  const root = new JsonReader(text, (at, detail) => {
    const { line, column } = lineColumn(text, at);
    throw new RigProfileError(fileName, '', detail, line, column);
  }).document();
  const f = r.fields(root, '', TOP);
  const p = emptyRigProfile();
  const sv = f.get('schemaVersion');
  if (sv) {
    const v = r.number(sv, 'schemaVersion', 1, 1e9, 'integer');
    if (v !== RIG_PROFILE_SCHEMA_VERSION)
      r.fail(sv, 'schemaVersion', `unknown version ${v} (this build reads ${RIG_PROFILE_SCHEMA_VERSION})`);
  }
  const nm = f.get('name');
  if (nm) p.name = r.string(nm, 'name');
  const bm = f.get('boneMap');
  if (bm)
    for (const e of r.boneKeyed(bm, 'boneMap')) {
      p.boneMap[e.bone] = r.string(e.node, e.path);
      const { line, column } = lineColumn(text, e.node.at);
      if (!p.boneMapAt) p.boneMapAt = {};
      p.boneMapAt[e.bone] = `${fileName}:${line}:${column}`;
    }
  const ta = f.get('twistAxes');
  if (ta) {
    for (const e of r.boneKeyed(ta, 'twistAxes')) {
      const node = e.node;
      if (node.kind !== 'array' || node.items.length !== 3)
        r.fail(node, e.path, `need an axis [x, y, z] in the bone's local frame, got ${r.describe(node)}`);
      const v = node.items.map((it, k) => r.number(it, `${e.path}[${k}]`, -1e6, 1e6, 'axis component'));
      const l = Math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
      if (!(l > 1e-9)) r.fail(e.node, e.path, 'the axis has zero length');
      p.twistAxes[e.bone] = [v[0] / l, v[1] / l, v[2] / l];
    }
  }
  const th = f.get('thresholds');
  if (th) {
    for (const e of r.boneKeyed(th, 'thresholds')) {
      const g = r.fields(e.node, e.path, ['rotationDeg', 'twistDeg', 'positionFraction']);
      const t: BoneThresholds = {};
      const rot = g.get('rotationDeg');
      if (rot) t.rotationDeg = r.number(rot, join(e.path, 'rotationDeg'), 0, 180, 'degrees', true);
      const tw = g.get('twistDeg');
      if (tw)
        t.twistDeg =
          tw.kind === 'null' ? null : r.number(tw, join(e.path, 'twistDeg'), 0, 180, 'degrees', true);
      const pos = g.get('positionFraction');
      if (pos)
        t.positionFraction =
          pos.kind === 'null'
            ? null
            : r.number(pos, join(e.path, 'positionFraction'), 0, 1, 'fraction of character height', true);
      p.thresholds[e.bone] = t;
    }
  }
  const wt = f.get('weights');
  if (wt)
    for (const e of r.boneKeyed(wt, 'weights'))
      p.weights[e.bone] = r.number(e.node, e.path, 0, 100, 'weight');
  const wr = f.get('wrist');
  if (wr) {
    const g = r.fields(wr, 'wrist', ['lambda', 'thresholdDeg']);
    const l = g.get('lambda');
    if (l) p.wrist.lambda = r.number(l, 'wrist.lambda', 0, 10, 'weight of the hand twist');
    const t = g.get('thresholdDeg');
    if (t) p.wrist.thresholdDeg = r.number(t, 'wrist.thresholdDeg', 0, 360, 'degrees', true);
  }
  const sp = f.get('shoulderPitchDeg');
  if (sp) p.shoulderPitchDeg = r.number(sp, 'shoulderPitchDeg', 0, 180, 'degrees', true);
  const mr = f.get('minRun');
  if (mr) {
    const g = r.fields(mr, 'minRun', ['frames', 'atFps']);
    const fr = g.get('frames');
    if (fr) {
      p.minRun.frames = r.number(fr, 'minRun.frames', 1, 1e6, 'frames');
      if (!Number.isInteger(p.minRun.frames))
        r.fail(fr, 'minRun.frames', `need an integer, got ${p.minRun.frames}`);
    }
    const af = g.get('atFps');
    if (af) p.minRun.atFps = r.number(af, 'minRun.atFps', 0, 1e4, 'frames per second', true);
  }
  const fl = f.get('flags');
  if (fl) {
    const g = r.fields(fl, 'flags', ['mirrored', 'noShoulderBones']);
    const m = g.get('mirrored');
    if (m) p.flags.mirrored = r.boolean(m, 'flags.mirrored');
    const ns = g.get('noShoulderBones');
    if (ns) p.flags.noShoulderBones = ns.kind === 'null' ? null : r.boolean(ns, 'flags.noShoulderBones');
  }
  return p;
}
