/**
 * BVH (Biovision Hierarchy) motion files: reader and writer.
 *
 * Format: a `HIERARCHY` section of nested `ROOT`/`JOINT` blocks, each with an `OFFSET x y z` (file
 * units, parent frame), a `CHANNELS n name...` line and child joints or an `End Site { OFFSET }`,
 * followed by `MOTION`, `Frames: N`, `Frame Time: t` (seconds) and N lines of channel values in the
 * order the channels appear in the hierarchy. Rotation channels are degrees. References: the
 * Biovision BVH description as documented by M. Meredith and S. Maddock, "Motion capture file
 * formats explained" (University of Sheffield, 2001), and the CMU/Motion Builder conventions noted
 * in /work/shared/data/SOURCES.md.
 *
 * Conventions of this module (shared by reader and writer):
 * - A joint's local transform per frame is `T(translation) * R(rotation)`, where `R` composes the
 *   joint's rotation channels in the order listed: `CHANNELS 3 Zrotation Xrotation Yrotation` with
 *   values `a b c` is `Rz(a) * Rx(b) * Ry(c)` (first listed is outermost; {@link quatFromEuler}).
 * - Position channels REPLACE the OFFSET: they are the joint's local translation. A component with
 *   no position channel keeps the OFFSET value. Checked on the shared data: in the Bandai Namco
 *   dataset every joint has 6 channels and the non-root position values equal the OFFSETs (Spine
 *   OFFSET `15.7357 0 0`, frame 0 position `15.7357 5.1e-06 -5.5e-07`); the Rokoko take's Hips has
 *   OFFSET `0 94 0` and Yposition about 88, a hip height only "replace" makes plausible. (three.js
 *   BVHLoader adds the two instead.)
 * - Several `ROOT`s may follow one another; each starts a hierarchy (parent -1).
 * - Clip translations are metres: file value * `unitScale` (metres per file unit).
 * - The clip's skeleton has one bone per `ROOT`/`JOINT` (End Sites are not bones; they live in the
 *   {@link BvhLayout}), names kept whole, rest rotation identity, rest translation `OFFSET * unitScale`.
 * - BVH has no rest rotations: its rest pose is every rotation channel at zero. The writer therefore
 *   bakes a skeleton's rest rotations out of the joint frames (each joint is written in a frame parallel
 *   to the world in the rest pose, as {@link writeBvh} says), so the file's rest pose is the skeleton's
 *   rest pose and every frame has the same world pose; read back, the rest rotations are identity.
 * - The axes are taken as they are in the file (no axis conversion): a Z-up file stays Z-up.
 */
import type { Clip } from '../core/clip';
import { qmul, qmulByConj, vrotate } from '../core/flat';
import { DEG2RAD, type EulerOrder, eulerFromQuat, quat64, RAD2DEG } from '../core/quat';
import { createSkeleton, restWorld, type Skeleton } from '../core/skeleton';
import { parseDecimal } from './bvhNumber';
import { AsciiFrameWriter, decodeBytes, frameConverter, scanMotion } from './bvhScan';

export type BvhChannel = 'Xposition' | 'Yposition' | 'Zposition' | 'Xrotation' | 'Yrotation' | 'Zrotation';

/** The six BVH channel names. */
export const BVH_CHANNELS: readonly BvhChannel[] = [
  'Xposition',
  'Yposition',
  'Zposition',
  'Xrotation',
  'Yrotation',
  'Zrotation',
];

/** One `ROOT`/`JOINT` of a BVH hierarchy, index-aligned with the clip skeleton's bones. */
export interface BvhJointLayout {
  name: string;
  /** Index of the parent joint in {@link BvhLayout.joints}, -1 for a root. */
  parent: number;
  /** OFFSET, file units, parent frame. */
  offset: [number, number, number];
  /** The joint's channels in file order, e.g. `['Xposition', ..., 'Zrotation', 'Xrotation', 'Yrotation']`. */
  channels: BvhChannel[];
  /** End Site OFFSET (file units, this joint's frame), or null when the joint has no End Site. */
  endSite: [number, number, number] | null;
  /** 1-based line of the `ROOT`/`JOINT` keyword in the source file; 0 for layouts not read from a file. */
  line: number;
}

/** The hierarchy part of a BVH file: joints in file (depth-first) order. */
export interface BvhLayout {
  joints: BvhJointLayout[];
}

export interface BvhParseResult {
  clip: Clip;
  layout: BvhLayout;
  /** Metres per file unit used for the clip's translations. */
  unitScale: number;
  /** How `unitScale` was chosen, e.g. `'centimetres (auto)'`, `'0.05 m per unit (given)'`. */
  unitGuess: string;
  /**
   * Raw channel values as read (file units, degrees), `Float64Array(frameCount * channelCount)`,
   * frame-major, channels in file order. Only when `keepChannelValues` was asked for.
   */
  channelValues?: Float64Array;
}

export interface BvhParseOptions {
  /** Used in error messages (`walk.bvh:17: ...`) and as the default clip name. */
  fileName?: string;
  /** Metres per file unit, or `'auto'` (default) to guess from the rest skeleton's size ({@link guessBvhUnitScale}). */
  unitScale?: number | 'auto';
  /** Clip name; default the file name without `.bvh`, else `'bvh'`. */
  name?: string;
  /** Also return the raw channel values (`channelValues`); costs `8 * channelCount` bytes per frame. */
  keepChannelValues?: boolean;
}

/** A malformed BVH file. `message` is `fileName:line: detail`; `line` is 1-based (0 when no line applies). */
export class BvhParseError extends Error {
  readonly fileName: string;
  readonly line: number;
  readonly detail: string;
  constructor(fileName: string, line: number, detail: string) {
    super(`${fileName}:${line}: ${detail}`);
    this.name = 'BvhParseError';
    this.fileName = fileName;
    this.line = line;
    this.detail = detail;
  }
}

/** Invalid arguments to {@link writeBvh} or {@link defaultBvhLayout}; the message names the joint/frame/field. */
export class BvhWriteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BvhWriteError';
  }
}

const CHANNEL_BY_LOWER: Record<string, BvhChannel> = {};
for (const c of BVH_CHANNELS) CHANNEL_BY_LOWER[c.toLowerCase()] = c;

/** Axis (0 X, 1 Y, 2 Z) of a channel. */
function channelAxis(c: BvhChannel): number {
  return c.charCodeAt(0) - 88;
}
function isRotation(c: BvhChannel): boolean {
  return c.endsWith('rotation');
}

// ---------------------------------------------------------------------------------------------
// Units

/** A unit known to the auto guess: metres per file unit and its name. */
interface UnitCandidate {
  scale: number;
  name: string;
  /** Added to the log-ratio error: a prior against rarer units. */
  penalty: number;
}

/**
 * Candidate units for `unitScale: 'auto'`. CMU ASF length units: the CMU Graphics Lab Motion Capture
 * Database converts its asf/amc lengths to metres with `(1.0/0.45)*2.54/100.0 = 0.056444` (0.45 is the ASF
 * header scale, the data is in inches; http://mocap.cs.cmu.edu/faqs.php, "How do I convert the lengths
 * used in the asf/amc files into meters?"); CMU-derived BVH files keep those units.
 */
export const BVH_UNIT_CANDIDATES: readonly UnitCandidate[] = [
  { scale: 1, name: 'metres', penalty: 0 },
  { scale: 0.0254 / 0.45, name: 'CMU ASF units (1/0.45 inch)', penalty: 0.1 },
  { scale: 0.0254, name: 'inches', penalty: 0 },
  { scale: 0.01, name: 'centimetres', penalty: 0 },
  { scale: 0.001, name: 'millimetres', penalty: 0 },
];

/** Typical human height in metres that the auto guess aims for. */
export const BVH_TYPICAL_HEIGHT = 1.7;

/**
 * Joint extents in metres (`[min, max]`) that count as a plausible humanoid when the file is read as
 * centimetres; within this range the auto guess picks centimetres ({@link guessBvhUnitScale}).
 */
export const BVH_CENTIMETRE_PLAUSIBLE: readonly [number, number] = [0.5, 2.6];

/**
 * Guess metres per file unit from the size of a rest skeleton.
 *
 * Rule: `extent` is the largest side of the axis-aligned bounding box of the rest-pose positions of
 * all joints and End Sites (offsets accumulated with identity rotations, i.e. the BVH rest pose). The
 * largest side is used, not the Y extent, because files may be Z-up or have rotated rest frames; for a
 * human it is about the standing height (or the arm span of a T-pose, which is similar).
 * 1. Centimetres prior: centimetres win whenever `extent * 0.01` is a plausible humanoid size,
 *    {@link BVH_CENTIMETRE_PLAUSIBLE} (0.5 m to 2.6 m). Centimetres are the common BVH unit and the
 *    unit this project writes ({@link writeBvh}); without the prior a retarget onto a small avatar
 *    (CesiumMan.glb, ~1.19 m tall, joint extent below 1 m) reads back as inches.
 * 2. Otherwise the unit of {@link BVH_UNIT_CANDIDATES} whose `extent * scale` is nearest to
 *    {@link BVH_TYPICAL_HEIGHT} in ratio wins: smallest `|ln(extent * scale / 1.7)| + penalty`, where
 *    CMU units carry a 0.1 penalty as the rarer unit.
 * Bands that follow (extent in file units): < 7.5 metres, 7.5-42.7 CMU units, 42.7-50 inches,
 * 50-537.6 centimetres, > 537.6 millimetres. A skeleton with zero extent gets centimetres.
 * Trade-off: an adult skeleton written in inches (50-102 in of extent) reads as a 0.5-1 m skeleton in
 * centimetres; give the unit explicitly (`unitScale: 0.0254`) for such files.
 * On the shared test takes (extent in file units): Bandai walk/dance 183.7 and run 193.7 (cm),
 * pirouette 152.7 (cm), CMU jumping_jacks 25.8 (CMU units, 1.46 m), FAIR jumping 45.4 (inches, 1.15 m;
 * in CMU units it would be an implausible 2.56 m, in cm 0.45 m), Rokoko 130.0 (cm; its rest frames are
 * rotated, so the box is not the standing height).
 * @returns the scale, a description such as `'centimetres (auto)'`, and the extent (file units).
 */
export function guessBvhUnitScale(layout: BvhLayout): {
  unitScale: number;
  unitGuess: string;
  extent: number;
} {
  const extent = restExtent(layout);
  if (!(extent > 0))
    return { unitScale: 0.01, unitGuess: 'centimetres (auto: skeleton has no extent)', extent };
  const asCm = extent * 0.01;
  if (asCm >= BVH_CENTIMETRE_PLAUSIBLE[0] && asCm <= BVH_CENTIMETRE_PLAUSIBLE[1])
    return { unitScale: 0.01, unitGuess: 'centimetres (auto)', extent };
  let best = BVH_UNIT_CANDIDATES[0];
  let bestErr = Number.POSITIVE_INFINITY;
  for (const c of BVH_UNIT_CANDIDATES) {
    const err = Math.abs(Math.log((extent * c.scale) / BVH_TYPICAL_HEIGHT)) + c.penalty;
    if (err < bestErr) {
      bestErr = err;
      best = c;
    }
  }
  return { unitScale: best.scale, unitGuess: `${best.name} (auto)`, extent };
}

/** Largest side of the bounding box of rest joint and End Site positions, file units. */
export function restExtent(layout: BvhLayout): number {
  const joints = layout.joints;
  const pos = new Float64Array(3 * joints.length);
  const lo = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
  const hi = [Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY];
  const add = (x: number, k: number) => {
    if (x < lo[k]) lo[k] = x;
    if (x > hi[k]) hi[k] = x;
  };
  for (let j = 0; j < joints.length; j++) {
    const p = joints[j].parent;
    for (let k = 0; k < 3; k++) {
      const v = (p >= 0 ? pos[3 * p + k] : 0) + joints[j].offset[k];
      pos[3 * j + k] = v;
      add(v, k);
      const e = joints[j].endSite;
      if (e) add(v + e[k], k);
    }
  }
  if (joints.length === 0) return 0;
  return Math.max(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
}

function describeScale(s: number): string {
  for (const c of BVH_UNIT_CANDIDATES) if (c.scale === s) return `${c.name} (given)`;
  return `${s} m per unit (given)`;
}

// ---------------------------------------------------------------------------------------------
// Reader

/** Line reader over the header (small); `line` is the 1-based number of the line last returned. */
class LineReader {
  pos = 0;
  line = 0;
  constructor(readonly text: string) {}
  next(): string | null {
    const t = this.text;
    const n = t.length;
    if (this.pos >= n) return null;
    let i = this.pos;
    while (i < n) {
      const c = t.charCodeAt(i);
      if (c === 10 || c === 13) break;
      i++;
    }
    const s = t.slice(this.pos, i);
    if (i < n) i += t.charCodeAt(i) === 13 && i + 1 < n && t.charCodeAt(i + 1) === 10 ? 2 : 1;
    this.pos = i;
    this.line++;
    return s;
  }
}

interface JointBuild {
  name: string;
  parent: number;
  offset: [number, number, number] | null;
  channels: BvhChannel[] | null;
  endSite: [number, number, number] | null;
  line: number;
}

const WS = /\s+/;

function quote(s: string): string {
  // control characters or undecodable bytes: a binary file (a .glb renamed .bvh), not text to quote
  // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for them is the point
  if (/[\u0000-\u0008\u000e-\u001f\ufffd]/.test(s)) return 'binary data (not BVH text)';
  return JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}...` : s);
}

/**
 * Parse a BVH file.
 *
 * @param text the file's text, or its bytes (decoded as UTF-8). CRLF, CR or LF line ends, tabs, a BOM,
 *   blank lines, leading/trailing whitespace, scientific notation (`1e-05`, `-2.5E+2`) and leading-dot
 *   numbers (`.03333`) are accepted; blank lines are never frames. Keywords (`HIERARCHY`, `ROOT`,
 *   `JOINT`, `End Site`, `OFFSET`, `CHANNELS`, `MOTION`, `Frames:`, `Frame Time:`) and channel names are
 *   matched case-insensitively (PyMO writes `End site`; three.js's BVHLoader accepts any case). A joint with no `CHANNELS` line has no channels; a hierarchy with no channels
 *   at all has no frame data to read, and its `Frames` frames are the rest pose.
 * @returns the clip (skeleton and per-frame local rotations/translations, metres; conventions in the
 *   module doc), the layout (offsets and channels in file units and order), the unit scale used and
 *   how it was chosen. Frame Time is kept as read. Clip arrays are `Float32Array`.
 * @throws BvhParseError (`file:line: detail`) on: missing HIERARCHY, ROOT, MOTION, `Frames:` or
 *   `Frame Time:`; unbalanced braces; an unknown keyword or channel name; a repeated channel; a CHANNELS
 *   count that does not match its names; a missing or malformed OFFSET; duplicate joint names; a frame
 *   count other than declared (the message names both); a frame line with the wrong number of values
 *   (names the line, expected and found counts); a non-numeric, NaN or infinite value; a zero, negative
 *   or non-numeric frame time.
 */
export function parseBvh(input: string | Uint8Array, options: BvhParseOptions = {}): BvhParseResult {
  const bytes = typeof input === 'string' ? null : input;
  const headerEnd = bytes ? headerByteEnd(bytes) : 0;
  const text = bytes ? decodeBytes(bytes.subarray(0, headerEnd)) : (input as string);
  const fileName = options.fileName ?? '<bvh>';
  const fail = (line: number, detail: string): never => {
    throw new BvhParseError(fileName, line, detail);
  };
  const lines = new LineReader(text);
  if (text.charCodeAt(0) === 0xfeff) lines.pos = 1;

  // --- HIERARCHY
  const joints: JointBuild[] = [];
  const byName = new Map<string, number>();
  /** open blocks: joint index, or -1 - owner for an End Site */
  const stack: number[] = [];
  let pending: { kind: 'joint' | 'end'; index: number; line: number } | null = null;
  let endSiteOffset: [number, number, number] | null = null;
  let endSiteLine = 0;
  let seenHierarchy = false;
  let sawMotion = false;
  let raw: string | null;
  const open = (i: number) => (i >= 0 ? `joint '${joints[i].name}' (line ${joints[i].line})` : 'End Site');
  const readOffset = (tokens: string[], line: number): [number, number, number] => {
    if (tokens.length !== 4) fail(line, `OFFSET needs 3 numbers, found ${tokens.length - 1}`);
    const o: [number, number, number] = [0, 0, 0];
    for (let k = 0; k < 3; k++) {
      const v = parseDecimal(tokens[k + 1]);
      if (!Number.isFinite(v)) fail(line, `OFFSET value ${quote(tokens[k + 1])} is not a finite number`);
      o[k] = v;
    }
    return o;
  };

  for (;;) {
    raw = lines.next();
    if (raw === null) break;
    const line = lines.line;
    const s = raw.trim();
    if (s === '') continue;
    const tokens = s.split(WS);
    // keywords in any letter case (PyMO writes `End site`; three.js's BVHLoader also ignores case)
    const kw = tokens[0].toUpperCase();
    if (!seenHierarchy) {
      if (kw !== 'HIERARCHY' || tokens.length !== 1) fail(line, `expected HIERARCHY, found ${quote(s)}`);
      seenHierarchy = true;
      continue;
    }
    if (pending) {
      if (s !== '{') {
        const what = pending.kind === 'end' ? 'End Site' : `joint '${joints[pending.index].name}'`;
        fail(line, `expected '{' after ${what} (line ${pending.line}), found ${quote(s)}`);
      }
      stack.push(pending.kind === 'end' ? -1 - pending.index : pending.index);
      if (pending.kind === 'end') {
        endSiteOffset = null;
        endSiteLine = pending.line;
      }
      pending = null;
      continue;
    }
    const top = stack.length ? stack[stack.length - 1] : Number.NaN;
    switch (kw) {
      case 'ROOT':
      case 'JOINT': {
        if (kw === 'ROOT' && stack.length) fail(line, `ROOT inside ${open(top)}: missing '}'`);
        if (kw === 'JOINT' && !(top >= 0)) {
          fail(line, stack.length ? 'JOINT inside an End Site' : 'JOINT outside any ROOT');
        }
        const name = s.slice(tokens[0].length).trim();
        if (name === '') fail(line, `${kw} without a name`);
        const dup = byName.get(name);
        if (dup !== undefined)
          fail(line, `duplicate joint name '${name}' (first at line ${joints[dup].line})`);
        byName.set(name, joints.length);
        joints.push({
          name,
          parent: kw === 'ROOT' ? -1 : top,
          offset: null,
          channels: null,
          endSite: null,
          line,
        });
        pending = { kind: 'joint', index: joints.length - 1, line };
        break;
      }
      case 'END': {
        if (tokens.length !== 2 || tokens[1].toUpperCase() !== 'SITE')
          fail(line, `unknown keyword ${quote(s)}`);
        if (!(top >= 0))
          fail(line, stack.length ? 'End Site inside an End Site' : 'End Site outside any joint');
        if (joints[top].endSite) fail(line, `second End Site in joint '${joints[top].name}'`);
        pending = { kind: 'end', index: top, line };
        break;
      }
      case 'OFFSET': {
        if (!stack.length) fail(line, 'OFFSET outside any joint');
        const o = readOffset(tokens, line);
        if (top >= 0) {
          if (joints[top].offset) fail(line, `second OFFSET in joint '${joints[top].name}'`);
          joints[top].offset = o;
        } else {
          if (endSiteOffset) fail(line, 'second OFFSET in End Site');
          endSiteOffset = o;
        }
        break;
      }
      case 'CHANNELS': {
        if (!(top >= 0))
          fail(line, stack.length ? 'CHANNELS inside an End Site' : 'CHANNELS outside any joint');
        const j = joints[top];
        if (j.channels) fail(line, `second CHANNELS line in joint '${j.name}'`);
        const count = tokens.length > 1 ? parseDecimal(tokens[1]) : Number.NaN;
        if (!Number.isInteger(count) || count < 0) {
          fail(line, `CHANNELS count ${quote(tokens[1] ?? '')} is not a whole number`);
        }
        const names = tokens.slice(2);
        if (count !== names.length)
          fail(line, `CHANNELS count ${count} does not match ${names.length} names`);
        const chans: BvhChannel[] = [];
        for (const nm of names) {
          const c = CHANNEL_BY_LOWER[nm.toLowerCase()];
          if (!c) fail(line, `unknown channel ${quote(nm)} (expected one of ${BVH_CHANNELS.join(', ')})`);
          if (chans.includes(c)) fail(line, `channel '${c}' listed twice in joint '${j.name}'`);
          chans.push(c);
        }
        j.channels = chans;
        break;
      }
      case '}': {
        if (tokens.length !== 1) fail(line, `unexpected ${quote(s)}`);
        if (!stack.length) fail(line, "unbalanced '}' (no open joint)");
        const i = stack.pop()!;
        if (i >= 0) {
          if (!joints[i].offset) fail(joints[i].line, `joint '${joints[i].name}' has no OFFSET`);
        } else {
          if (!endSiteOffset) fail(endSiteLine, `End Site of joint '${joints[-1 - i].name}' has no OFFSET`);
          joints[-1 - i].endSite = endSiteOffset;
        }
        break;
      }
      case 'MOTION': {
        if (stack.length)
          fail(line, `MOTION before ${open(top)} was closed: unbalanced braces (missing '}')`);
        if (!joints.length) fail(line, 'MOTION before any ROOT');
        sawMotion = true;
        break;
      }
      default:
        if (/^Frames?\b/i.test(kw)) fail(line, `missing MOTION line before ${quote(s)}`);
        fail(line, `unknown keyword ${quote(tokens[0])}`);
    }
    if (sawMotion) break;
  }
  if (!sawMotion) {
    const last = Math.max(lines.line, 1);
    if (!seenHierarchy) fail(last, 'empty file: expected HIERARCHY');
    if (pending || stack.length) {
      const i = pending ? pending.index : stack[stack.length - 1];
      fail(last, `end of file inside ${open(i)}: unbalanced braces (missing '}')`);
    }
    fail(last, joints.length ? 'missing MOTION section' : 'no ROOT in HIERARCHY');
  }

  // --- MOTION header
  let frames = -1;
  let framesLine = 0;
  let frameTime = Number.NaN;
  while (frames < 0 || Number.isNaN(frameTime)) {
    raw = lines.next();
    if (raw === null) {
      fail(Math.max(lines.line, 1), frames < 0 ? "missing 'Frames:' after MOTION" : "missing 'Frame Time:'");
    }
    const line = lines.line;
    const s = raw!.trim();
    if (s === '') continue;
    let m = /^Frames\s*:?\s*(.*)$/i.exec(s);
    if (m) {
      if (frames >= 0) fail(line, "second 'Frames:' line");
      const v = parseDecimal(m[1]);
      if (!Number.isInteger(v) || v < 1) fail(line, `Frames: ${quote(m[1])}: need a whole number >= 1`);
      frames = v;
      framesLine = line;
      continue;
    }
    m = /^Frame\s+Time\s*:?\s*(.*)$/i.exec(s);
    if (m) {
      if (!Number.isNaN(frameTime)) fail(line, "second 'Frame Time:' line");
      const v = parseDecimal(m[1]);
      if (!(v > 0) || !Number.isFinite(v)) {
        fail(line, `Frame Time ${quote(m[1])}: need a positive number of seconds`);
      }
      frameTime = v;
      continue;
    }
    fail(line, `${frames < 0 ? "missing 'Frames:'" : "missing 'Frame Time:'"} (found ${quote(s)})`);
  }

  // --- layout, skeleton
  const layout: BvhLayout = {
    joints: joints.map((j) => ({
      name: j.name,
      parent: j.parent,
      offset: j.offset!,
      channels: j.channels ?? [],
      endSite: j.endSite,
      line: j.line,
    })),
  };
  let unitScale: number;
  let unitGuess: string;
  const us = options.unitScale ?? 'auto';
  if (us === 'auto') {
    ({ unitScale, unitGuess } = guessBvhUnitScale(layout));
  } else {
    if (!(us > 0) || !Number.isFinite(us)) {
      throw new RangeError(`unitScale ${us}: need a positive number of metres per file unit`);
    }
    unitScale = us;
    unitGuess = describeScale(us);
  }
  const n = joints.length;
  const restT = new Float64Array(3 * n);
  const restR = new Float64Array(4 * n);
  for (let j = 0; j < n; j++) {
    for (let k = 0; k < 3; k++) restT[3 * j + k] = layout.joints[j].offset[k] * unitScale;
    restR[4 * j + 3] = 1;
  }
  const skeleton = createSkeleton({
    names: joints.map((j) => j.name),
    parents: joints.map((j) => j.parent),
    restTranslations: restT,
    restRotations: restR,
  });

  // --- frames
  const plan = buildPlan(layout);
  const C = plan.channelCount;
  let start = lines.pos;
  if (bytes) start = start === text.length ? headerEnd : utf8Length(text, start);
  const src = bytes ?? text;
  const scanCtx = {
    channelCount: C,
    frames,
    framesLine,
    onFrame: (_vals: Float64Array, _f: number) => {},
    fail,
    label: (k: number) => channelLabel(layout, k),
  };
  // Before allocating for the declared count: a frame line holds at least 2C characters ("0 0 ... 0\n"),
  // so a count the data cannot hold is reported (with the real count) without allocating for it.
  if (C > 0 && frames * 2 * C - 1 > src.length - start) scanMotion(src, start, lines.line, scanCtx);
  if (frames * n * 4 > 2 ** 30) fail(framesLine, `Frames: ${frames} x ${n} joints is too large for one clip`);
  const rotations = new Float32Array(frames * n * 4);
  const translations = new Float32Array(frames * n * 3);
  const channelValues = options.keepChannelValues ? new Float64Array(frames * C) : undefined;
  const onFrame = frameConverter(plan, restT, unitScale, rotations, translations, channelValues, C);
  if (C === 0) {
    // no channel at all: frame lines would be empty, so the declared frames are the rest pose
    const none = new Float64Array(0);
    for (let f = 0; f < frames; f++) onFrame(none, f);
  } else {
    scanMotion(src, start, lines.line, { ...scanCtx, onFrame });
  }
  const baseName = options.fileName ? options.fileName.replace(/^.*[\\/]/, '').replace(/\.bvh$/i, '') : '';
  const clip: Clip = {
    name: options.name ?? (baseName || 'bvh'),
    skeleton,
    frameCount: frames,
    frameTime,
    rotations,
    translations,
  };
  const result: BvhParseResult = { clip, layout, unitScale, unitGuess };
  if (channelValues) result.channelValues = channelValues;
  return result;
}

/**
 * Per-joint channel plan. For joint j: `posSlot[3j + axis]` is the index within a frame of its
 * position channel for that axis (-1 when absent); `rotSlot[3j + k]` the index of the k-th angle of the
 * rotation sequence `axes[3j..3j+2]` (-1 when absent: angle 0). The sequence lists the joint's rotation
 * axes in file order, padded with the missing axes in X, Y, Z order, so fewer than three rotation
 * channels still compose correctly (the padded angles are 0). `orders[j]` names the same sequence
 * (e.g. 'ZXY') and `parity[j]` is +1 when it is a cyclic permutation of XYZ, else -1.
 */
interface ChannelPlan {
  channelCount: number;
  posSlot: Int32Array;
  rotSlot: Int32Array;
  axes: Int32Array;
  parity: Float64Array;
  orders: EulerOrder[];
  hasRot: Uint8Array;
}

function buildPlan(layout: BvhLayout): ChannelPlan {
  const n = layout.joints.length;
  const posSlot = new Int32Array(3 * n).fill(-1);
  const rotSlot = new Int32Array(3 * n).fill(-1);
  const axes = new Int32Array(3 * n);
  const parity = new Float64Array(n);
  const orders: EulerOrder[] = [];
  const hasRot = new Uint8Array(n);
  let c = 0;
  for (let j = 0; j < n; j++) {
    const seq: number[] = [];
    const slots: number[] = [];
    for (const ch of layout.joints[j].channels) {
      const a = channelAxis(ch);
      if (isRotation(ch)) {
        seq.push(a);
        slots.push(c);
      } else posSlot[3 * j + a] = c;
      c++;
    }
    for (let a = 0; a < 3; a++) if (!seq.includes(a)) seq.push(a);
    for (let k = 0; k < 3; k++) axes[3 * j + k] = seq[k];
    for (let k = 0; k < slots.length; k++) rotSlot[3 * j + k] = slots[k];
    hasRot[j] = slots.length ? 1 : 0;
    parity[j] = (seq[1] - seq[0] + 3) % 3 === 1 ? 1 : -1;
    orders.push(seq.map((a) => 'XYZ'[a]).join('') as EulerOrder);
  }
  return { channelCount: c, posSlot, rotSlot, axes, parity, orders, hasRot };
}

/**
 * Byte index where the header of a BVH file given as bytes ends: after the later of the `Frames` and
 * `Frame Time` lines that follow the `MOTION` line (the length when not found; the header parser then
 * reports what is missing). Only this part is decoded to text.
 */
function headerByteEnd(b: Uint8Array): number {
  const n = b.length;
  const lineEndAfter = (i: number) => {
    let e = i;
    while (e < n && b[e] !== 10 && b[e] !== 13) e++;
    if (e < n) e += b[e] === 13 && b[e + 1] === 10 ? 2 : 1;
    return e;
  };
  // ASCII letters compared in either case (keywords are case-insensitive, see parseBvh)
  const find = (word: number[], from: number, lineStart: boolean) => {
    for (let i = from; i + word.length <= n; i++) {
      let k = 0;
      while (k < word.length && (b[i + k] | 0x20) === (word[k] | 0x20)) k++;
      if (k < word.length) continue;
      if (!lineStart) return i;
      let j = i - 1;
      while (j >= 0 && (b[j] === 32 || b[j] === 9)) j--;
      if (j < 0 || b[j] === 10 || b[j] === 13) return i;
    }
    return -1;
  };
  const m = find([77, 79, 84, 73, 79, 78], 0, true); // MOTION
  if (m < 0) return n;
  const frames = find([70, 114, 97, 109, 101, 115], m, true); // Frames
  const time = find([84, 105, 109, 101], m, false); // (Frame) Time
  if (frames < 0 || time < 0) return n;
  return lineEndAfter(Math.max(frames, time));
}

/** UTF-8 byte length of `s.slice(0, end)`. */
function utf8Length(s: string, end: number): number {
  let len = 0;
  for (let i = 0; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) len++;
    else if (c < 0x800) len += 2;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < end) {
      len += 4;
      i++;
    } else len += 3;
  }
  return len;
}

function channelLabel(layout: BvhLayout, k: number): string {
  let c = 0;
  for (const j of layout.joints) {
    if (k < c + j.channels.length) return `channel ${k + 1} ('${j.name}' ${j.channels[k - c]})`;
    c += j.channels.length;
  }
  return `channel ${k + 1}`;
}

// ---------------------------------------------------------------------------------------------
// Layout for writing

/** Fraction of the leaf bone's length used for a default End Site (see {@link defaultBvhLayout}). */
export const END_SITE_FRACTION = 0.5;

const ROOT_CHANNELS: readonly BvhChannel[] = [
  'Xposition',
  'Yposition',
  'Zposition',
  'Zrotation',
  'Xrotation',
  'Yrotation',
];
const JOINT_CHANNELS: readonly BvhChannel[] = ['Zrotation', 'Xrotation', 'Yrotation'];

/**
 * A BVH layout for writing `skeleton`: joints index-aligned with its bones; OFFSET = the rest translation
 * in the parent's rest-aligned frame (see {@link writeBvh}), `R_p * t / unitScale` with `R_p` the parent's
 * rest world rotation (just `t / unitScale` for a skeleton without rest rotations, e.g. one read from
 * BVH), in file units (metres per file unit `unitScale`, default 0.01 = centimetres); roots get 6 channels
 * `Xposition Yposition Zposition Zrotation Xrotation Yrotation`, other joints 3 channels
 * `Zrotation Xrotation Yrotation` (with `positions: 'all'`, every joint gets the 6 root channels, for
 * clips whose non-root translations are animated; with `positions` a per-bone mask, the roots and the
 * bones where it is nonzero, e.g. {@link animatedTranslations} of the clip to write).
 *
 * Names: the bone names, made writable: line breaks become spaces, edge whitespace is trimmed, an
 * empty name becomes `joint<i>`, and a repeated name gets `_2`, `_3`... (glTF rigs may repeat names).
 *
 * End Sites: every leaf bone (no children) gets one that continues the leaf bone's direction by
 * {@link END_SITE_FRACTION} (half) of its length, so viewers draw a visible last bone. The direction is
 * from the nearest ancestor at a different rest position to the leaf (world rest pose; the leaf's
 * written frame is parallel to the world at rest); when all ancestors coincide with the leaf the End
 * Site is `0 0 0`.
 * @throws BvhWriteError when unitScale is not a positive finite number.
 */
export function defaultBvhLayout(
  skeleton: Skeleton,
  unitScale = 0.01,
  options: { positions?: 'roots' | 'all' | ArrayLike<number> } = {},
): BvhLayout {
  if (!(unitScale > 0) || !Number.isFinite(unitScale)) {
    throw new BvhWriteError(`unitScale ${unitScale}: need a positive number of metres per file unit`);
  }
  const n = skeleton.boneCount;
  const hasChild = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (skeleton.parents[i] >= 0) hasChild[skeleton.parents[i]] = 1;
  const world = restWorld(skeleton);
  const joints: BvhJointLayout[] = [];
  const used = new Set<string>();
  for (let i = 0; i < n; i++) {
    const p = skeleton.parents[i];
    const t = skeleton.restTranslations;
    let endSite: [number, number, number] | null = null;
    if (!hasChild[i]) {
      endSite = [0, 0, 0];
      const wp = world.positions;
      for (let a = p; a >= 0; a = skeleton.parents[a]) {
        const dx = wp[3 * i] - wp[3 * a];
        const dy = wp[3 * i + 1] - wp[3 * a + 1];
        const dz = wp[3 * i + 2] - wp[3 * a + 2];
        if (Math.hypot(dx, dy, dz) > 1e-9) {
          const s = END_SITE_FRACTION / unitScale;
          endSite = [dx * s, dy * s, dz * s];
          break;
        }
      }
    }
    const pos = options.positions;
    const six = p < 0 || pos === 'all' || (typeof pos === 'object' && pos[i] !== 0);
    let name = skeleton.names[i].replace(/[\r\n]+/g, ' ').trim() || `joint${i}`;
    if (used.has(name)) {
      let k = 2;
      while (used.has(`${name}_${k}`)) k++;
      name = `${name}_${k}`;
    }
    used.add(name);
    const off = [t[3 * i], t[3 * i + 1], t[3 * i + 2]];
    if (p >= 0) vrotate(off, 0, world.rotations, 4 * p, off, 0);
    joints.push({
      name,
      parent: p,
      offset: [off[0] / unitScale, off[1] / unitScale, off[2] / unitScale],
      channels: [...(six ? ROOT_CHANNELS : JOINT_CHANNELS)],
      endSite,
      line: 0,
    });
  }
  return { joints };
}

/**
 * Per bone 1 where the clip's local translation departs from the skeleton's rest translation on some
 * frame by more than `tolerance` metres in some component (default 1e-7 m), else 0. A BVH joint without
 * position channels keeps its OFFSET on every frame, so these bones need them: e.g. RobotExpressive's
 * IK-style feet (`Foot.L` hangs from the root bone and moves by translation).
 */
export function animatedTranslations(clip: Clip, tolerance = 1e-7): Uint8Array {
  const sk = clip.skeleton;
  const n = sk.boneCount;
  const out = new Uint8Array(n);
  const t = clip.translations;
  const rest = sk.restTranslations;
  for (let f = 0; f < clip.frameCount; f++) {
    for (let i = 0; i < n; i++) {
      if (out[i]) continue;
      const o = 3 * (f * n + i);
      if (
        !(Math.abs(t[o] - rest[3 * i]) <= tolerance) ||
        !(Math.abs(t[o + 1] - rest[3 * i + 1]) <= tolerance) ||
        !(Math.abs(t[o + 2] - rest[3 * i + 2]) <= tolerance)
      )
        out[i] = 1;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Writer

/** Header numbers (offsets): shortest round-trip decimal, or rounded to 1e-8 when that is long. */
function fmtOffset(v: number): string {
  const s = String(v);
  if (s.length <= 14) return s;
  const r = Math.round(v * 1e8) / 1e8;
  return r === 0 ? '0' : String(r);
}

function validateLayout(layout: BvhLayout, skeleton: Skeleton): void {
  const n = skeleton.boneCount;
  if (layout.joints.length !== n) {
    throw new BvhWriteError(`layout has ${layout.joints.length} joints, the clip skeleton ${n} bones`);
  }
  const seen = new Set<string>();
  for (let i = 0; i < n; i++) {
    const j = layout.joints[i];
    const where = `layout joint ${i} '${j.name}'`;
    if (j.parent !== skeleton.parents[i]) {
      throw new BvhWriteError(
        `${where}: parent ${j.parent} differs from the skeleton's ${skeleton.parents[i]}`,
      );
    }
    if (j.name === '' || j.name !== j.name.trim() || /[\r\n]/.test(j.name)) {
      throw new BvhWriteError(
        `${where}: a BVH joint name must be non-empty, one line, without edge whitespace`,
      );
    }
    if (seen.has(j.name)) throw new BvhWriteError(`${where}: duplicate joint name`);
    seen.add(j.name);
    const chans = new Set<string>();
    for (const c of j.channels) {
      if (!BVH_CHANNELS.includes(c)) throw new BvhWriteError(`${where}: unknown channel '${c}'`);
      if (chans.has(c)) throw new BvhWriteError(`${where}: channel '${c}' listed twice`);
      chans.add(c);
    }
    for (const [field, v] of [
      ['offset', j.offset],
      ['endSite', j.endSite],
    ] as const) {
      if (v && (v.length !== 3 || !v.every(Number.isFinite))) {
        throw new BvhWriteError(`${where}: ${field} must be 3 finite numbers`);
      }
    }
  }
}

/** Angle congruent to `a` (mod 2 pi) nearest to `ref`. */
function nearestCongruent(a: number, ref: number): number {
  return a + 2 * Math.PI * Math.round((ref - a) / (2 * Math.PI));
}

/** `a` wrapped to (-pi, pi]. */
function wrapPi(a: number): number {
  return a - 2 * Math.PI * Math.ceil((a - Math.PI) / (2 * Math.PI));
}

/**
 * Angles for a joint with fewer than 3 rotation channels, written to `e[0..nRot-1]` (radians, file
 * order; the rest set to 0): the rotation is taken as `Ri(a)` (one channel, axis `i`) or `Ri(a) * Rj(b)`
 * (two channels), which is exact for rotations of that form and a projection otherwise.
 *
 * One axis: `a = 2 atan2(q_i, w)`. Two axes, with `e_i x e_j = p e_k`: `q = Ri(a) Rj(b)` has
 * `(q_i, w) = cos(b/2) (sin(a/2), cos(a/2))` and `(p q_k, q_j) = sin(b/2) (sin(a/2), cos(a/2))`, so `a/2`
 * is the direction of the longer of the two; then `Ri(-a) q = Rj(b)` gives
 * `b = 2 atan2(c q_j + p s q_k, c w + s q_i)` with `s, c = sin, cos(a/2)`. Unlike a padded 3-angle
 * decomposition this is well conditioned for every `b`. Angles are moved by multiples of 2 pi next to `prev`.
 */
function decomposeFew(
  e: Float64Array,
  q: ArrayLike<number>,
  nRot: number,
  i: number,
  j: number,
  p: number,
  prev: ArrayLike<number> | undefined,
): void {
  const w = q[3];
  const qi = q[i];
  let a: number;
  let b = 0;
  if (nRot === 1) a = 2 * Math.atan2(qi, w);
  else {
    const qj = q[j];
    const qk = q[3 - i - j];
    const half = Math.hypot(qi, w) >= Math.hypot(qk, qj) ? Math.atan2(qi, w) : Math.atan2(p * qk, qj);
    a = 2 * half;
    const s = Math.sin(half);
    const c = Math.cos(half);
    b = 2 * Math.atan2(c * qj + p * s * qk, c * w + s * qi);
  }
  e[0] = prev ? nearestCongruent(a, prev[0]) : wrapPi(a);
  e[1] = nRot === 2 ? (prev ? nearestCongruent(b, prev[1]) : wrapPi(b)) : 0;
  e[2] = 0;
}

export interface BvhWriteOptions {
  /**
   * Joints, offsets, channels and End Sites to write; default {@link defaultBvhLayout}(clip.skeleton,
   * unitScale, { positions: animatedTranslations(clip) }) (position channels on the roots and on every
   * bone whose translation is animated). Its joints must be index-aligned with the clip skeleton (same parents; the layout's
   * names are the ones written), as the layout returned by {@link parseBvh} is. Names must be unique,
   * non-empty, one line, without edge whitespace (what the reader would give back). Its OFFSETs are
   * written as given: for a skeleton with rest rotations they must be in the rest-aligned frames
   * ({@link defaultBvhLayout}'s are).
   */
  layout?: BvhLayout;
  /** Metres per file unit, default 0.01 (centimetres). */
  unitScale?: number;
  /**
   * Channel values (degrees, file order of the written file, `frameCount * channelCount`), e.g. the
   * `channelValues` of the parse that produced the clip. When given, each frame's Euler angles are the
   * equivalent solution nearest to the reference frame instead of to the previous written frame, so a
   * rewrite of an unchanged clip reproduces the original angles (same branch, same multiples of 360)
   * rather than merely the same rotations.
   */
  reference?: Float64Array;
}

const wq = quat64();
const we = new Float64Array(3);
const wp = new Float64Array(3);
const wt = new Float64Array(3);

/**
 * Write a clip as BVH text.
 *
 * Header: the layout's joints depth-first from each root (children in index order), OFFSETs and End
 * Sites written as given (file units), tab indentation, `\n` line ends. `Frame Time` is written as the
 * shortest decimal that reads back to the same double. Frames: per joint in its own channel order,
 * position channels = clip translation / `unitScale`, rotation channels = Euler angles in degrees from
 * {@link eulerFromQuat} in the joint's own order, given the previous frame's angles so tracks stay
 * continuous (no 360-degree jumps); values rounded to 1e-6.
 *
 * Rest rotations: BVH has none (its rest pose is every rotation channel at zero), so a skeleton's rest
 * rotations are baked out. With `R_i` bone i's rest world rotation (`R_-1` = identity), bone i is
 * written in its frame turned by `inverse(R_i)`, parallel to the world at rest: local rotation
 * `q'_i = R_p * q_i * inverse(R_i)`, translation `t'_i = R_p * t_i` (p = parent). Then the world pose
 * of every frame is unchanged (world rotation `W_i * inverse(R_i)`, the same joint positions) and the
 * rest pose (`q'_i` = identity) is the skeleton's. A skeleton without rest rotations (one read from
 * BVH) is written exactly as stored. A joint with fewer than 3 rotation channels
 * writes the angles of the rotation's projection on its axes (exact when the rotation is about those
 * axes only, see `decomposeFew`); a translation component with no channel is not written (the default layout gives position
 * channels to every bone whose translation is animated).
 *
 * Precision: rotations come from the clip's `Float32Array`, so near gimbal lock (middle angle near
 * +-90 degrees) the first and third angles carry an error of about 1e-7 rad / cos(middle angle); the
 * rotation itself is exact to float32.
 *
 * @throws BvhWriteError on a layout that does not match the skeleton, a bad channel, a bad unit scale,
 *   a reference of the wrong length, or a non-finite clip value (names the frame and bone).
 */
export function writeBvh(clip: Clip, options: BvhWriteOptions = {}): string {
  const sk = clip.skeleton;
  const unitScale = options.unitScale ?? 0.01;
  if (!(unitScale > 0) || !Number.isFinite(unitScale)) {
    throw new BvhWriteError(`unitScale ${unitScale}: need a positive number of metres per file unit`);
  }
  const n = sk.boneCount;
  const F = clip.frameCount;
  if (!Number.isInteger(F) || F < 1)
    throw new BvhWriteError(`clip '${clip.name}': frameCount ${F} is not a whole number >= 1`);
  if (!(clip.frameTime > 0) || !Number.isFinite(clip.frameTime)) {
    throw new BvhWriteError(
      `clip '${clip.name}': frameTime ${clip.frameTime} is not a positive number of seconds`,
    );
  }
  if (clip.rotations.length !== 4 * n * F || clip.translations.length !== 3 * n * F) {
    throw new BvhWriteError(
      `clip '${clip.name}': rotations/translations have ${clip.rotations.length}/${clip.translations.length} values, expected ${4 * n * F}/${3 * n * F} for ${F} frames x ${n} bones`,
    );
  }
  const layout = options.layout ?? defaultBvhLayout(sk, unitScale, { positions: animatedTranslations(clip) });
  validateLayout(layout, sk);
  // rest world rotations, and per bone whether its own or its parent's is not the identity
  const restRot = restWorld(sk).rotations;
  const turned = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    if (Math.abs(Math.abs(restRot[4 * i + 3]) - 1) > 1e-15) turned[i] = 1;
  }
  const bake = new Uint8Array(n);
  for (let i = 0; i < n; i++) bake[i] = turned[i] || (sk.parents[i] >= 0 && turned[sk.parents[i]]) ? 1 : 0;
  const children: number[][] = Array.from({ length: n }, () => []);
  for (let i = 0; i < n; i++) if (sk.parents[i] >= 0) children[sk.parents[i]].push(i);

  const out: string[] = ['HIERARCHY'];
  const order: number[] = [];
  const emit = (i: number, depth: number) => {
    const ind = '\t'.repeat(depth);
    const j = layout.joints[i];
    order.push(i);
    out.push(`${ind}${j.parent < 0 ? 'ROOT' : 'JOINT'} ${j.name}`, `${ind}{`);
    out.push(`${ind}\tOFFSET ${j.offset.map(fmtOffset).join(' ')}`);
    out.push(`${ind}\tCHANNELS ${j.channels.length}${j.channels.map((c) => ` ${c}`).join('')}`);
    for (const c of children[i]) emit(c, depth + 1);
    if (j.endSite) {
      out.push(
        `${ind}\tEnd Site`,
        `${ind}\t{`,
        `${ind}\t\tOFFSET ${j.endSite.map(fmtOffset).join(' ')}`,
        `${ind}\t}`,
      );
    }
    out.push(`${ind}}`);
  };
  for (let i = 0; i < n; i++) if (sk.parents[i] < 0) emit(i, 0);
  out.push('MOTION', `Frames: ${clip.frameCount}`, `Frame Time: ${String(clip.frameTime)}`);

  // per joint (in file order): channel kinds
  const sub = { layout: { joints: order.map((i) => layout.joints[i]) } };
  const plan = buildPlan(sub.layout);
  const inv = 1 / unitScale;
  const prev = new Float64Array(3 * n);
  const rot = clip.rotations;
  const tr = clip.translations;
  const C = plan.channelCount;
  const vals = new Float64Array(C);
  const ref = options.reference;
  if (ref && ref.length !== clip.frameCount * C) {
    throw new BvhWriteError(
      `reference has ${ref.length} values, expected ${clip.frameCount} frames x ${C} channels = ${clip.frameCount * C}`,
    );
  }
  const frameText = new AsciiFrameWriter();
  for (let f = 0; f < clip.frameCount; f++) {
    for (let o = 0; o < n; o++) {
      const i = order[o];
      const o3 = 3 * o;
      const t = 3 * (f * n + i);
      const p = sk.parents[i];
      wt[0] = tr[t];
      wt[1] = tr[t + 1];
      wt[2] = tr[t + 2];
      if (bake[i] && p >= 0) vrotate(wt, 0, restRot, 4 * p, wt, 0);
      for (let a = 0; a < 3; a++) {
        const s = plan.posSlot[o3 + a];
        if (s >= 0) vals[s] = wt[a] * inv;
      }
      if (plan.hasRot[o]) {
        const r = 4 * (f * n + i);
        wq[0] = rot[r];
        wq[1] = rot[r + 1];
        wq[2] = rot[r + 2];
        wq[3] = rot[r + 3];
        if (!(Math.hypot(wq[0], wq[1], wq[2], wq[3]) > 1e-6)) {
          throw new BvhWriteError(
            `frame ${f}: bone '${sk.names[i]}' rotation is not a unit quaternion (${Array.from(wq).join(', ')})`,
          );
        }
        if (bake[i]) {
          // q' = R_p * q * inverse(R_i)
          if (p >= 0) qmul(wq, 0, restRot, 4 * p, wq, 0);
          qmulByConj(wq, 0, wq, 0, restRot, 4 * i);
        }
        if (ref) {
          for (let k = 0; k < 3; k++) {
            const s = plan.rotSlot[o3 + k];
            wp[k] = s >= 0 ? ref[f * C + s] * DEG2RAD : 0;
          }
        } else {
          wp[0] = prev[o3];
          wp[1] = prev[o3 + 1];
          wp[2] = prev[o3 + 2];
        }
        const usePrev = f > 0 || ref !== undefined;
        const nRot = plan.rotSlot[o3 + 2] >= 0 ? 3 : plan.rotSlot[o3 + 1] >= 0 ? 2 : 1;
        if (nRot === 3) eulerFromQuat(we, wq, plan.orders[o], usePrev ? wp : undefined);
        else
          decomposeFew(
            we,
            wq,
            nRot,
            plan.axes[o3],
            plan.axes[o3 + 1],
            plan.parity[o],
            usePrev ? wp : undefined,
          );
        prev[o3] = we[0];
        prev[o3 + 1] = we[1];
        prev[o3 + 2] = we[2];
        for (let k = 0; k < 3; k++) {
          const s = plan.rotSlot[o3 + k];
          if (s >= 0) vals[s] = we[k] * RAD2DEG;
        }
      }
    }
    for (let k = 0; k < C; k++) {
      const v = vals[k];
      if (!Number.isFinite(v)) {
        throw new BvhWriteError(
          `frame ${f}: ${channelLabel(sub.layout, k)} is not finite (clip value NaN/Infinity)`,
        );
      }
      if (k > 0) frameText.char(32);
      frameText.number(v);
    }
    frameText.char(10);
  }
  out.push('');
  return out.join('\n') + frameText.finish();
}
