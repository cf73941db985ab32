/**
 * The BVH reader ({@link parseBvh}): the HIERARCHY header (joints, OFFSETs, CHANNELS, End Sites) and the
 * MOTION block, into a clip on a new skeleton and the file's layout. Conventions in src/io/bvh.ts.
 */
import type { Clip } from '../core/clip';
import { createSkeleton } from '../core/skeleton';
import { buildPlan, channelLabel, headerByteEnd, utf8Length } from './bvhChannelPlan';
import {
  BVH_CHANNELS,
  type BvhChannel,
  type BvhLayout,
  BvhParseError,
  type BvhParseOptions,
  type BvhParseResult,
  CHANNEL_BY_LOWER,
} from './bvhFormat';
import { parseDecimal } from './bvhNumber';
import { decodeBytes, frameConverter, scanMotion } from './bvhScan';
import { describeScale, guessBvhUnitScale } from './bvhUnits';

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
 * @param input the file's text, or its bytes (decoded as UTF-8). CRLF, CR or LF line ends, tabs, a BOM,
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
