/**
 * The judge's own BVH text reader and writer (issue 20). Deliberately independent of src/io/bvh: the
 * foot-slide judge must not share code with what it judges. Small and plain; it reads what the shared
 * data holds and says where a file breaks its expectations.
 *
 * Format (Biovision Hierarchy; M. Meredith and S. Maddock, "Motion capture file formats explained",
 * University of Sheffield, 2001): `HIERARCHY`, nested `ROOT`/`JOINT <name> { OFFSET x y z
 * CHANNELS n <names> ... }` blocks and `End Site { OFFSET x y z }` leaves, then `MOTION`, `Frames: N`,
 * `Frame Time: t` (seconds) and N rows of channel values in hierarchy order (rotations in degrees,
 * positions in file units). Several ROOTs are allowed (each starts a tree).
 *
 * This module only reads and writes numbers; the meaning of the channels (rotation order, position
 * channels replacing the OFFSET) is in ./fk.ts.
 */

/** One ROOT/JOINT block. */
export interface BvhTextJoint {
  name: string;
  /** Index of the parent joint in {@link BvhText.joints}, -1 for a ROOT. */
  parent: number;
  /** OFFSET, file units, parent frame. */
  offset: [number, number, number];
  /** Channel names in file order, e.g. `['Xposition', 'Yposition', 'Zposition', 'Zrotation', ...]`. */
  channels: string[];
  /** Column of this joint's first channel in a frame row. */
  firstChannel: number;
  /** OFFSETs of the End Sites directly under this joint (file units, this joint's frame). */
  endSites: [number, number, number][];
  /** 1-based line of the ROOT/JOINT keyword. */
  line: number;
}

/** A BVH file as read: hierarchy, frame count, frame time and the raw channel values. */
export interface BvhText {
  /** Used in error messages. */
  fileName: string;
  /** Joints in file order (a parent always comes before its children). */
  joints: BvhTextJoint[];
  /** Values per frame row. */
  channelCount: number;
  frameCount: number;
  /** Seconds between frames. */
  frameTime: number;
  /** `Float64Array(frameCount * channelCount)`, frame-major, file units and degrees. */
  values: Float64Array;
  /** The file's text up to (not including) the `MOTION` line: written back verbatim. */
  header: string;
}

const CHANNEL_NAMES = new Set(['Xposition', 'Yposition', 'Zposition', 'Xrotation', 'Yrotation', 'Zrotation']);

/**
 * Read BVH text.
 * @throws Error `fileName:line: detail` for a malformed hierarchy, an unknown channel name, a missing or
 *   non-numeric OFFSET, a frame row with the wrong number of values, fewer rows than `Frames:` says, or a
 *   value that is not a finite number.
 */
export function readBvhText(text: string, fileName = '<bvh>'): BvhText {
  const fail = (line: number, detail: string): never => {
    throw new Error(`${fileName}:${line}: ${detail}`);
  };
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.length > 0 && lines[0].charCodeAt(0) === 0xfeff) lines[0] = lines[0].slice(1);
  const joints: BvhTextJoint[] = [];
  // open blocks: joint index, or -1 for an End Site; `pending` is the block whose `{` comes next
  const stack: number[] = [];
  let pending: number | null = null;
  let channelCount = 0;
  let seenHierarchy = false;
  let motionLine = -1;
  let endSiteOf = -1;
  for (let i = 0; i < lines.length && motionLine < 0; i++) {
    const ln = i + 1;
    const tok = lines[i]
      .trim()
      .split(/\s+/)
      .filter((s) => s.length > 0);
    if (tok.length === 0) continue;
    const key = tok[0];
    const top = stack.length > 0 ? stack[stack.length - 1] : null;
    if (key === 'HIERARCHY') {
      seenHierarchy = true;
    } else if (key === 'ROOT' || key === 'JOINT') {
      if (!seenHierarchy) fail(ln, `${key} before HIERARCHY`);
      if (tok.length < 2) fail(ln, `${key} without a name`);
      if (key === 'JOINT' && (top === null || top < 0)) fail(ln, 'JOINT outside a joint block');
      if (key === 'ROOT' && top !== null) fail(ln, 'ROOT inside a joint block');
      joints.push({
        name: tok.slice(1).join(' '),
        parent: key === 'ROOT' ? -1 : (top as number),
        offset: [Number.NaN, Number.NaN, Number.NaN],
        channels: [],
        firstChannel: channelCount,
        endSites: [],
        line: ln,
      });
      pending = joints.length - 1;
    } else if (key === 'End') {
      if (top === null || top < 0) fail(ln, 'End Site outside a joint block');
      endSiteOf = top as number;
      pending = -1;
    } else if (key === '{') {
      if (pending === null) fail(ln, "'{' without ROOT, JOINT or End Site before it");
      stack.push(pending as number);
      pending = null;
    } else if (key === '}') {
      if (stack.length === 0) fail(ln, "'}' without an open block");
      const closed = stack.pop() as number;
      if (closed >= 0 && Number.isNaN(joints[closed].offset[0]))
        fail(joints[closed].line, `joint '${joints[closed].name}' has no OFFSET`);
    } else if (key === 'OFFSET') {
      if (top === null) fail(ln, 'OFFSET outside a block');
      if (tok.length !== 4) fail(ln, `OFFSET needs 3 numbers, found ${tok.length - 1}`);
      const o = tok.slice(1).map(Number) as [number, number, number];
      if (!o.every(Number.isFinite)) fail(ln, `OFFSET '${tok.slice(1).join(' ')}' is not 3 numbers`);
      if ((top as number) >= 0) joints[top as number].offset = o;
      else joints[endSiteOf].endSites.push(o);
    } else if (key === 'CHANNELS') {
      if (top === null || top < 0) fail(ln, 'CHANNELS outside a joint block');
      const n = Number(tok[1]);
      if (!Number.isInteger(n) || n < 0 || tok.length !== n + 2)
        fail(ln, `CHANNELS ${tok[1]}: expected that many channel names, found ${tok.length - 2}`);
      for (const c of tok.slice(2)) if (!CHANNEL_NAMES.has(c)) fail(ln, `unknown channel '${c}'`);
      const j = joints[top as number];
      if (j.channels.length > 0) fail(ln, `second CHANNELS line in joint '${j.name}'`);
      j.channels = tok.slice(2);
      j.firstChannel = channelCount;
      channelCount += n;
    } else if (key === 'MOTION') {
      if (stack.length > 0) fail(ln, `MOTION with ${stack.length} block(s) still open`);
      motionLine = i;
    } else {
      fail(ln, `unexpected '${key}' in the hierarchy`);
    }
  }
  if (!seenHierarchy) fail(1, 'no HIERARCHY');
  if (motionLine < 0) fail(lines.length, 'no MOTION section');
  if (joints.length === 0) fail(motionLine + 1, 'no joints');
  // Frames: N and Frame Time: t
  let i = motionLine + 1;
  const nextNonEmpty = (): number => {
    while (i < lines.length && lines[i].trim() === '') i++;
    return i;
  };
  nextNonEmpty();
  const framesM = /^Frames:\s*(\S+)\s*$/.exec((lines[i] ?? '').trim());
  if (!framesM) fail(i + 1, `expected 'Frames: N', found '${(lines[i] ?? '').trim()}'`);
  const frameCount = Number(framesM![1]);
  if (!Number.isInteger(frameCount) || frameCount < 1)
    fail(i + 1, `Frames: ${framesM![1]} is not a count >= 1`);
  i++;
  nextNonEmpty();
  const timeM = /^Frame\s+Time:\s*(\S+)\s*$/.exec((lines[i] ?? '').trim());
  if (!timeM) fail(i + 1, `expected 'Frame Time: t', found '${(lines[i] ?? '').trim()}'`);
  const frameTime = Number(timeM![1]);
  if (!(frameTime > 0) || !Number.isFinite(frameTime)) fail(i + 1, `Frame Time ${timeM![1]} is not positive`);
  i++;
  const values = new Float64Array(frameCount * channelCount);
  let f = 0;
  for (; i < lines.length && f < frameCount; i++) {
    const row = lines[i].trim();
    if (row === '') continue;
    const tok = row.split(/\s+/);
    if (tok.length !== channelCount)
      fail(i + 1, `frame ${f} has ${tok.length} values, the hierarchy has ${channelCount} channels`);
    for (let c = 0; c < channelCount; c++) {
      const v = Number(tok[c]);
      if (!Number.isFinite(v)) fail(i + 1, `frame ${f}, channel ${c + 1}: '${tok[c]}' is not a number`);
      values[f * channelCount + c] = v;
    }
    f++;
  }
  if (f < frameCount) fail(lines.length, `Frames: ${frameCount} but only ${f} frame rows`);
  return {
    fileName,
    joints,
    channelCount,
    frameCount,
    frameTime,
    values,
    header: `${lines.slice(0, motionLine).join('\n')}\n`,
  };
}

/** A number as short text: 6 decimals at most, no trailing zeros, no `-0`. */
function num(v: number): string {
  const r = Math.round(v * 1e6) / 1e6;
  return r === 0 ? '0' : String(r);
}

/**
 * BVH text with `bvh`'s hierarchy (verbatim) and the given motion.
 * @param values `Float64Array(frameCount * bvh.channelCount)`, file units and degrees.
 * @param frameTime seconds.
 * Values are written with 6 decimals at most (1e-8 m for a centimetre file).
 * @throws Error when `values` does not hold whole frames.
 */
export function writeBvhText(bvh: BvhText, values: Float64Array, frameTime: number): string {
  const C = bvh.channelCount;
  if (C === 0 || values.length % C !== 0)
    throw new Error(`${bvh.fileName}: ${values.length} values are not whole frames of ${C} channels`);
  const F = values.length / C;
  const rows: string[] = new Array(F);
  const row: string[] = new Array(C);
  for (let f = 0; f < F; f++) {
    for (let c = 0; c < C; c++) row[c] = num(values[f * C + c]);
    rows[f] = row.join(' ');
  }
  return `${bvh.header}MOTION\nFrames: ${F}\nFrame Time: ${frameTime}\n${rows.join('\n')}\n`;
}
