import fc from 'fast-check';
import { quat } from 'gl-matrix';
import {
  angleBetween,
  createClip,
  createSkeleton,
  DEG2RAD,
  EULER_ORDERS,
  type EulerOrder,
  forwardKinematics,
  quatFromEuler,
  restWorld,
} from '../src/core';
import {
  type BvhChannel,
  type BvhLayout,
  BvhParseError,
  BvhWriteError,
  defaultBvhLayout,
  END_SITE_FRACTION,
  guessBvhUnitScale,
  parseBvh,
  restExtent,
  writeBvh,
} from '../src/io/bvh';
import { parseDecimal } from '../src/io/bvhNumber';

const q64 = () => new Float64Array(4);

/** A joint for {@link bvhText}: children nest by `parent` (index into the list, in depth-first order). */
interface J {
  name: string;
  parent: number;
  offset?: number[];
  channels: string[];
  end?: number[];
}

/** Build BVH text from joints (depth-first order) and frames (arrays of numbers or raw strings). */
function bvhText(joints: J[], frames: (number[] | string)[], frameTime = '0.0333333', eol = '\n'): string {
  const lines = ['HIERARCHY'];
  const emit = (i: number, depth: number) => {
    const ind = '  '.repeat(depth);
    const j = joints[i];
    lines.push(`${ind}${j.parent < 0 ? 'ROOT' : 'JOINT'} ${j.name}`, `${ind}{`);
    lines.push(`${ind}  OFFSET ${(j.offset ?? [0, 0, 0]).join(' ')}`);
    lines.push(`${ind}  CHANNELS ${j.channels.length} ${j.channels.join(' ')}`.trimEnd());
    joints.forEach((c, k) => {
      if (c.parent === i) emit(k, depth + 1);
    });
    if (j.end)
      lines.push(`${ind}  End Site`, `${ind}  {`, `${ind}    OFFSET ${j.end.join(' ')}`, `${ind}  }`);
    lines.push(`${ind}}`);
  };
  joints.forEach((j, i) => {
    if (j.parent < 0) emit(i, 0);
  });
  lines.push('MOTION', `Frames: ${frames.length}`, `Frame Time: ${frameTime}`);
  for (const f of frames) lines.push(typeof f === 'string' ? f : f.join(' '));
  return lines.join(eol) + eol;
}

const ROT3 = ['Zrotation', 'Xrotation', 'Yrotation'];
const SIX = ['Xposition', 'Yposition', 'Zposition', 'Zrotation', 'Xrotation', 'Yrotation'];

/** quaternion of a joint's rotation channels (degrees, in listed order) through core's quatFromEuler. */
function expectedQuat(channels: string[], values: number[]): Float64Array {
  const q = q64();
  quat.identity(q);
  channels.forEach((c, i) => {
    if (!c.endsWith('rotation')) return;
    const axis = [0, 0, 0];
    axis['XYZ'.indexOf(c[0])] = 1;
    const r = quat.setAxisAngle(q64(), axis as [number, number, number], values[i] * DEG2RAD);
    quat.multiply(q, q, r);
  });
  return q;
}

function rotationOf(
  clip: { rotations: Float32Array; skeleton: { boneCount: number } },
  f: number,
  b: number,
) {
  const o = 4 * (f * clip.skeleton.boneCount + b);
  return Array.from(clip.rotations.subarray(o, o + 4));
}
function translationOf(
  clip: { translations: Float32Array; skeleton: { boneCount: number } },
  f: number,
  b: number,
) {
  const o = 3 * (f * clip.skeleton.boneCount + b);
  return Array.from(clip.translations.subarray(o, o + 3));
}

function parseError(text: string, fileName = 'walk.bvh'): BvhParseError {
  try {
    parseBvh(text, { fileName });
  } catch (e) {
    if (e instanceof BvhParseError) return e;
    throw new Error(`expected BvhParseError, got ${String(e)}`);
  }
  throw new Error('expected BvhParseError, but the text parsed');
}

/** Wrap an angle difference in degrees to (-180, 180]. */
function wrapDeg(d: number): number {
  let r = d % 360;
  if (r <= -180) r += 360;
  else if (r > 180) r -= 360;
  return r;
}

describe('parseBvh: rotations and translations', () => {
  it('CHANNELS Zrotation Xrotation Yrotation 30 45 60 is Rz(30)Rx(45)Ry(60) (known answer)', () => {
    const text = bvhText([{ name: 'Hips', parent: -1, channels: ROT3, end: [0, 1, 0] }], [[30, 45, 60]]);
    const { clip } = parseBvh(text);
    const q = rotationOf(clip, 0, 0);
    const want = [0.2005621, 0.5319757, 0.3919038, 0.7233174];
    for (let k = 0; k < 4; k++) expect(Math.abs(q[k] - want[k])).toBeLessThan(1e-6);
  });

  it('composes every order exactly as quatFromEuler, for any angles incl. multiple turns (property)', () => {
    const joints: J[] = EULER_ORDERS.map((o, i) => ({
      name: `j${o}`,
      parent: i - 1,
      offset: [0, 1, 0],
      channels: [...o].map((a) => `${a}rotation`),
    }));
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.double({ min: -720, max: 720, noNaN: true }),
            fc.double({ min: -2e6, max: 2e6, noNaN: true }),
          ),
          {
            minLength: 18,
            maxLength: 18,
          },
        ),
        (vals) => {
          const { clip } = parseBvh(bvhText(joints, [vals.map((v) => v.toPrecision(12)).join(' ')]));
          return EULER_ORDERS.every((order, j) => {
            const a = vals.slice(3 * j, 3 * j + 3).map((v) => Number(v.toPrecision(12)) * DEG2RAD);
            const want = quatFromEuler(q64(), a[0], a[1], a[2], order);
            const got = rotationOf(clip, 0, j);
            // same quaternion (not only the same rotation), to float32 rounding
            return got.every((g, k) => Math.abs(g - want[k]) < 2e-7);
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('maps position and rotation channels by name in any interleaving (root Zrot Xrot Yrot Xpos Ypos Zpos)', () => {
    const text = bvhText(
      [
        {
          name: 'Hips',
          parent: -1,
          offset: [5, 6, 7],
          channels: ['Zrotation', 'Xrotation', 'Yrotation', 'Xposition', 'Yposition', 'Zposition'],
          end: [0, 1, 0],
        },
      ],
      [[90, 0, 0, 1, 2, 3]],
    );
    const { clip } = parseBvh(text, { unitScale: 0.01 });
    const t = translationOf(clip, 0, 0);
    expect(t[0]).toBeCloseTo(0.01, 7);
    expect(t[1]).toBeCloseTo(0.02, 7);
    expect(t[2]).toBeCloseTo(0.03, 7);
    const about = quat.setAxisAngle(q64(), [0, 0, 1], Math.PI / 2);
    expect(angleBetween(rotationOf(clip, 0, 0), about)).toBeLessThan(1e-6);
  });

  it('keeps each joint its own channel set and order: 6/3/2/1/0 channels, positions only, subsets', () => {
    const joints: J[] = [
      {
        name: 'root',
        parent: -1,
        offset: [10, 20, 30],
        channels: ['Xposition', 'Zrotation', 'Yposition', 'Xrotation', 'Zposition', 'Yrotation'],
      },
      { name: 'two', parent: 0, offset: [1, 2, 3], channels: ['Xrotation', 'Yrotation'] },
      { name: 'one', parent: 1, offset: [4, 5, 6], channels: ['Yrotation'] },
      { name: 'posOnly', parent: 2, offset: [7, 8, 9], channels: ['Xposition', 'Yposition', 'Zposition'] },
      { name: 'yOnly', parent: 3, offset: [11, 12, 13], channels: ['Yposition', 'Zrotation'] },
      { name: 'none', parent: 4, offset: [14, 15, 16], channels: [], end: [0, 0, 1] },
      {
        name: 'ZYX6',
        parent: 0,
        offset: [0, 1, 0],
        channels: ['Zrotation', 'Yrotation', 'Xrotation', 'Zposition', 'Yposition', 'Xposition'],
        end: [1, 0, 0],
      },
    ];
    const frame = [1, 10, 2, 20, 3, 30, 40, 50, 60, -7, -8, -9, 99, 70, 15, 25, 35, 4, 5, 6];
    const { clip, layout } = parseBvh(bvhText(joints, [frame]), { unitScale: 1 });
    expect(layout.joints.map((j) => j.channels.length)).toEqual([6, 2, 1, 3, 2, 0, 6]);
    // root: positions 1 2 3, rotation Rz(10) Rx(20) Ry(30)
    expect(translationOf(clip, 0, 0)).toEqual([1, 2, 3]);
    expect(
      angleBetween(rotationOf(clip, 0, 0), expectedQuat(joints[0].channels, frame.slice(0, 6))),
    ).toBeLessThan(1e-6);
    // two rotation channels: Rx(40) Ry(50); translation = OFFSET
    expect(
      angleBetween(rotationOf(clip, 0, 1), expectedQuat(['Xrotation', 'Yrotation'], [40, 50])),
    ).toBeLessThan(1e-6);
    expect(translationOf(clip, 0, 1)).toEqual([1, 2, 3]);
    expect(angleBetween(rotationOf(clip, 0, 2), expectedQuat(['Yrotation'], [60]))).toBeLessThan(1e-6);
    // positions only: identity rotation, translation replaced
    expect(translationOf(clip, 0, 3)).toEqual([-7, -8, -9]);
    expect(rotationOf(clip, 0, 3)).toEqual([0, 0, 0, 1]);
    // only Yposition: X and Z keep the OFFSET
    expect(translationOf(clip, 0, 4)).toEqual([11, 99, 13]);
    expect(angleBetween(rotationOf(clip, 0, 4), expectedQuat(['Zrotation'], [70]))).toBeLessThan(1e-6);
    // no channels: rest
    expect(translationOf(clip, 0, 5)).toEqual([14, 15, 16]);
    expect(rotationOf(clip, 0, 5)).toEqual([0, 0, 0, 1]);
    expect(angleBetween(rotationOf(clip, 0, 6), expectedQuat(joints[6].channels, [15, 25, 35]))).toBeLessThan(
      1e-6,
    );
    expect(translationOf(clip, 0, 6)).toEqual([6, 5, 4]);
  });

  it('builds the skeleton: one bone per ROOT/JOINT, whole names, identity rest, rest translation = OFFSET * unitScale', () => {
    const joints: J[] = [
      { name: 'mixamorig:Hips', parent: -1, offset: [0, 100, 0], channels: SIX },
      { name: 'Left Up.Leg 01', parent: 0, offset: [10, -5, 0], channels: ROT3 },
      { name: 'End', parent: 1, offset: [0, -40, 0], channels: ROT3 },
      { name: 'Site', parent: 2, offset: [0, -40, 0], channels: ROT3, end: [0, 0, 10] },
      { name: 'End Effector', parent: 0, offset: [0, 50, 0], channels: ROT3, end: [0, 10, 0] },
    ];
    const { clip, layout } = parseBvh(bvhText(joints, [new Array(18).fill(0)]), { unitScale: 0.01 });
    const sk = clip.skeleton;
    expect(sk.names).toEqual(joints.map((j) => j.name));
    expect(Array.from(sk.parents)).toEqual([-1, 0, 1, 2, 0]);
    expect(Array.from(sk.restTranslations).map((v) => Math.round(v * 1e6) / 1e6)).toEqual([
      0, 1, 0, 0.1, -0.05, 0, 0, -0.4, 0, 0, -0.4, 0, 0, 0.5, 0,
    ]);
    for (let i = 0; i < sk.boneCount; i++)
      expect(Array.from(sk.restRotations.subarray(4 * i, 4 * i + 4))).toEqual([0, 0, 0, 1]);
    expect(layout.joints[3].endSite).toEqual([0, 0, 10]);
    expect(layout.joints[2].endSite).toBeNull();
    expect(layout.joints[1].line).toBe(6);
  });

  it('reads several ROOT hierarchies one after another (each a root bone, channels in file order)', () => {
    const joints: J[] = [
      { name: 'A', parent: -1, offset: [1, 0, 0], channels: ['Xposition'] },
      { name: 'A1', parent: 0, offset: [0, 1, 0], channels: ['Zrotation'] },
      { name: 'B', parent: -1, offset: [0, 0, 1], channels: ['Yposition', 'Yrotation'] },
    ];
    const r = parseBvh(bvhText(joints, [[5, 90, 7, 45]]), { unitScale: 1 });
    expect(Array.from(r.clip.skeleton.parents)).toEqual([-1, 0, -1]);
    expect(translationOf(r.clip, 0, 0)).toEqual([5, 0, 0]);
    expect(translationOf(r.clip, 0, 2)).toEqual([0, 7, 1]);
    expect(angleBetween(rotationOf(r.clip, 0, 1), expectedQuat(['Zrotation'], [90]))).toBeLessThan(1e-6);
    expect(angleBetween(rotationOf(r.clip, 0, 2), expectedQuat(['Yrotation'], [45]))).toBeLessThan(1e-6);
    const back = parseBvh(writeBvh(r.clip, { layout: r.layout, unitScale: 1 }), {
      unitScale: 1,
      keepChannelValues: true,
    });
    for (const [k, v] of [5, 90, 7, 45].entries())
      expect(Math.abs(back.channelValues![k] - v)).toBeLessThan(1e-4);
  });

  it('reads CRLF, tabs, lone CR, a BOM, no final newline, scientific notation, blank lines and edge whitespace', () => {
    const base = bvhText(
      [{ name: 'Hips', parent: -1, channels: SIX, end: [0, 1, 0] }],
      [
        [1, 2, 3, 0, 0, 0],
        [4, 5, 6, 0, 0, 0],
      ],
    );
    const want = parseBvh(base, { unitScale: 1 });
    const messy =
      '\uFEFF  HIERARCHY  \r\n' +
      'ROOT\tHips \r\n\t{\r\n\t\tOFFSET\t0 0 0\r\n' +
      '\t\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation \r\n' +
      '\t\tEnd Site\r\n\t\t{\r\n\t\t\tOFFSET 0 1 0\r\n\t\t}\r\n\t}\r\n\r\n' +
      'MOTION\r\nFrames:\t2\r\nFrame Time:\t0.0333333\r\n' +
      '   1e0\t2.0E+0 +3 0 0 0.0  \r\n\r\n' +
      '\t 4.00000 50e-1 .6e1 0e-05 2.5E-200 0\r\n  \r\n\t\r\n';
    const got = parseBvh(messy, { unitScale: 1 });
    const gotBytes = parseBvh(new TextEncoder().encode(messy), { unitScale: 1 });
    expect(Array.from(gotBytes.clip.translations)).toEqual(Array.from(got.clip.translations));
    expect(got.clip.frameCount).toBe(2);
    expect(got.clip.skeleton.names).toEqual(['Hips']);
    expect(Array.from(got.clip.translations)).toEqual(Array.from(want.clip.translations));
    expect(Array.from(got.clip.rotations)).toEqual(Array.from(want.clip.rotations));
    // lone CR line ends and no final newline
    const cr = base.replace(/\n/g, '\r').replace(/\r$/, '');
    expect(Array.from(parseBvh(cr, { unitScale: 1 }).clip.translations)).toEqual(
      Array.from(want.clip.translations),
    );
    // -2.5E+2 and 1e-05
    const sci = parseBvh(
      bvhText([{ name: 'a', parent: -1, channels: ['Xposition', 'Yposition'] }], ['-2.5E+2 1e-05']),
      {
        unitScale: 1,
        keepChannelValues: true,
      },
    );
    expect(Array.from(sci.channelValues!)).toEqual([-250, 1e-5]);
  });

  it('reads bytes (UTF-8) the same as text, including non-ASCII joint names before the motion data', () => {
    const text = bvhText(
      [
        { name: 'Hüfte', parent: -1, channels: SIX },
        { name: '脊椎 spine', parent: 0, offset: [0, 10, 0], channels: ROT3, end: [0, 5, 0] },
      ],
      [
        [1, 2, 3, 10, 20, 30, 40, 50, 60],
        [4, 5, 6, 70, 80, 90, -10, -20, -30],
      ],
    );
    const a = parseBvh(text, { unitScale: 0.01, keepChannelValues: true });
    const b = parseBvh(new TextEncoder().encode(text), { unitScale: 0.01, keepChannelValues: true });
    expect(b.clip.skeleton.names).toEqual(['Hüfte', '脊椎 spine']);
    expect(Array.from(b.channelValues!)).toEqual(Array.from(a.channelValues!));
    expect(Array.from(b.clip.rotations)).toEqual(Array.from(a.clip.rotations));
    // Frame Time before Frames, and an invalid UTF-8 byte in a name: frames still start at the right byte
    const swapped = text.replace(
      'Frames: 2\nFrame Time: 0.0333333\n',
      'Frame Time: 0.0333333\n\nFrames: 2\n',
    );
    const raw = new TextEncoder().encode(swapped.replace('Hüfte', 'Hxfte'));
    raw[raw.indexOf(0x78)] = 0xff; // 'x' -> an invalid byte
    const c = parseBvh(raw, { unitScale: 0.01, keepChannelValues: true });
    expect(c.clip.skeleton.names[0]).toBe('H\ufffdfte');
    expect(Array.from(c.channelValues!)).toEqual(Array.from(a.channelValues!));
    // errors from bytes name the same lines as from text
    const bad = text.replace('70 80 90', '70 x 90');
    expect(() => parseBvh(new TextEncoder().encode(bad), { fileName: 'b.bvh' })).toThrow(
      'b.bvh:20: frame 1: channel 5 (\'Hüfte\' Xrotation) value "x" is not a number',
    );
    expect(() => parseBvh(bad, { fileName: 'b.bvh' })).toThrow(
      "b.bvh:20: frame 1: channel 5 ('Hüfte' Xrotation)",
    );
  });

  it('reads every number exactly as Number() does (fast path and fallback, property)', () => {
    const digits = (min: number, max: number) =>
      fc.array(fc.constantFrom(...'0123456789'), { minLength: min, maxLength: max }).map((a) => a.join(''));
    const token = fc
      .tuple(
        fc.constantFrom('', '-', '+'),
        digits(0, 12),
        fc.boolean(),
        digits(0, 12),
        fc.option(
          fc.tuple(
            fc.constantFrom('e', 'E'),
            fc.constantFrom('', '-', '+'),
            fc.integer({ min: 0, max: 330 }),
          ),
        ),
      )
      .map(([s, i, dot, f, e]) => {
        const ip = i === '' && f === '' ? '0' : i;
        return `${s}${ip}${dot || f ? '.' : ''}${f}${e ? `${e[0]}${e[1]}${e[2]}` : ''}`;
      });
    fc.assert(
      fc.property(fc.array(token, { minLength: 8, maxLength: 8 }), (tokens) => {
        const finite = tokens.map((t) => (Number.isFinite(Number(t)) ? t : '1'));
        const joints: J[] = [
          { name: 'a', parent: -1, channels: ['Xposition', 'Yposition', 'Zposition', 'Xrotation'] },
          { name: 'b', parent: 0, channels: ['Xposition', 'Yposition', 'Zposition', 'Zrotation'] },
        ];
        const r = parseBvh(bvhText(joints, [finite.join(' ')]), { keepChannelValues: true, unitScale: 1 });
        return finite.every((t, k) => Object.is(r.channelValues![k], Number(t)));
      }),
      { numRuns: 1000 },
    );
  });

  it('parseDecimal accepts the BVH number forms and rejects everything else', () => {
    expect(parseDecimal('.03333')).toBe(0.03333);
    expect(parseDecimal('1.')).toBe(1);
    expect(parseDecimal(' +5 ')).toBe(5);
    expect(parseDecimal('-2.5E+2')).toBe(-250);
    expect(parseDecimal('0.0083333')).toBe(0.0083333);
    expect(parseDecimal('12345678901234567890')).toBe(Number('12345678901234567890'));
    for (const bad of [
      '',
      ' ',
      'abc',
      'NaN',
      'Infinity',
      '-Infinity',
      '0x10',
      '1e',
      '1e+',
      '-',
      '.',
      '1.2.3',
      '--1',
      '1,5',
      '5a',
    ])
      expect(parseDecimal(bad)).toBeNaN();
  });
});

describe('parseBvh: header and errors', () => {
  const good = () =>
    bvhText(
      [
        { name: 'Hips', parent: -1, channels: SIX },
        { name: 'Spine', parent: 0, offset: [0, 10, 0], channels: ROT3, end: [0, 5, 0] },
      ],
      [new Array(9).fill(0), new Array(9).fill(1)],
    );

  it('keeps Frame Time as read and reports units, name and counts', () => {
    const r = parseBvh(good().replace('0.0333333', '0.0083333'), { fileName: 'dir/walk.bvh' });
    expect(r.clip.frameTime).toBe(0.0083333);
    expect(r.clip.frameCount).toBe(2);
    expect(r.clip.name).toBe('walk');
    expect(parseBvh(good(), { name: 'x' }).clip.name).toBe('x');
    expect(parseBvh(good().replace('0.0333333', '.03333')).clip.frameTime).toBe(0.03333);
  });

  it('names file, line, and both counts on a frame-count mismatch', () => {
    const fewer = good().replace('Frames: 2', 'Frames: 3');
    let e = parseError(fewer);
    expect(e.message).toBe('walk.bvh:17: Frames: 3 declared but 2 frame lines found');
    expect(e.line).toBe(17);
    expect(e.fileName).toBe('walk.bvh');
    const more = good().replace('Frames: 2', 'Frames: 1');
    e = parseError(more);
    expect(e.message).toMatch(
      /^walk\.bvh:17: Frames: 1 declared but 2 frame lines found \(extra data from line 20\)$/,
    );
  });

  it('reports an impossible declared frame count without allocating for it', () => {
    expect(parseError(good().replace('Frames: 2', 'Frames: 1000000000000')).message).toBe(
      'walk.bvh:17: Frames: 1000000000000 declared but 2 frame lines found',
    );
    const noChannels =
      'HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\n}\nMOTION\nFrames: 1000000000000\nFrame Time: 1\n';
    expect(parseError(noChannels).message).toBe(
      'walk.bvh:7: Frames: 1000000000000 x 1 joints is too large for one clip',
    );
    expect(parseBvh(noChannels.replace('1000000000000', '3')).clip.frameCount).toBe(3);
  });

  it('names line, expected and found counts for a frame line with the wrong number of values', () => {
    const lines = good().split('\n');
    lines[18] = '0 0 0 0 0 0 0 0';
    expect(parseError(lines.join('\n')).message).toBe('walk.bvh:19: frame 0 has 8 values, expected 9');
    lines[18] = '0 0 0 0 0 0 0 0 0 0 0';
    expect(parseError(lines.join('\n')).message).toBe('walk.bvh:19: frame 0 has 11 values, expected 9');
  });

  it.each([
    ['abc', 'is not a number'],
    ['NaN', 'is not a number'],
    ['Infinity', 'is not a number'],
    ['1e400', 'is not finite'],
    ['-1e999', 'is not finite'],
    ['1.2.3', 'is not a number'],
    ['--1', 'is not a number'],
    ['-', 'is not a number'],
    ['1e', 'is not a number'],
    ['1,5', 'is not a number'],
  ])('rejects the frame value %s with file:line and the channel', (tok, what) => {
    const lines = good().split('\n');
    lines[19] = `1 1 1 1 ${tok} 1 1 1 1`;
    const e = parseError(lines.join('\n'));
    expect(e.message).toBe(
      `walk.bvh:20: frame 1: channel 5 ('Hips' Xrotation) value ${JSON.stringify(tok)} ${what}`,
    );
  });

  it.each<[string, (t: string) => string, RegExp]>([
    [
      'missing MOTION',
      (t) => t.replace('MOTION\n', ''),
      /^walk\.bvh:16: missing MOTION line before "Frames: 2"$/,
    ],
    [
      'missing Frame Time',
      (t) => t.replace('Frame Time: 0.0333333\n', ''),
      /^walk\.bvh:18: missing 'Frame Time:' \(found "0 0 0/,
    ],
    [
      'missing Frames',
      (t) => t.replace('Frames: 2\n', ''),
      /^walk\.bvh:18: missing 'Frames:' \(found "0 0 0/,
    ],
    [
      'zero frame time',
      (t) => t.replace('0.0333333', '0'),
      /^walk\.bvh:18: Frame Time "0": need a positive number of seconds$/,
    ],
    ['negative frame time', (t) => t.replace('0.0333333', '-0.01'), /^walk\.bvh:18: Frame Time "-0.01"/],
    ['non-numeric frame time', (t) => t.replace('0.0333333', 'fast'), /^walk\.bvh:18: Frame Time "fast"/],
    [
      'non-numeric Frames',
      (t) => t.replace('Frames: 2', 'Frames: two'),
      /^walk\.bvh:17: Frames: "two": need a whole number >= 1$/,
    ],
    [
      'an extra closing brace',
      (t) => t.replace('MOTION', '}\nMOTION'),
      /^walk\.bvh:16: unbalanced '}' \(no open joint\)$/,
    ],
    [
      'a missing closing brace',
      (t) => t.replace('}\nMOTION', 'MOTION'),
      /^walk\.bvh:15: MOTION before joint 'Hips' \(line 2\) was closed: unbalanced braces/,
    ],
    [
      'end of file inside a joint',
      (t) => t.slice(0, t.indexOf('MOTION')).replace(/}\n$/, ''),
      /^walk\.bvh:14: end of file inside joint 'Hips' \(line 2\)/,
    ],
    [
      'an unknown channel',
      (t) => t.replace('CHANNELS 3 Zrotation Xrotation', 'CHANNELS 3 Zrotation Xrot'),
      /^walk\.bvh:9: unknown channel "Xrot" \(expected one of Xposition/,
    ],
    [
      'a CHANNELS count mismatch',
      (t) => t.replace('CHANNELS 6', 'CHANNELS 5'),
      /^walk\.bvh:5: CHANNELS count 5 does not match 6 names$/,
    ],
    [
      'a repeated channel',
      (t) => t.replace('Zposition Zrotation', 'Zposition Xposition'),
      /^walk\.bvh:5: channel 'Xposition' listed twice in joint 'Hips'$/,
    ],
    [
      'duplicate joint names',
      (t) => t.replace('JOINT Spine', 'JOINT Hips'),
      /^walk\.bvh:6: duplicate joint name 'Hips' \(first at line 2\)$/,
    ],
    [
      'missing HIERARCHY',
      (t) => t.replace('HIERARCHY\n', ''),
      /^walk\.bvh:1: expected HIERARCHY, found "ROOT Hips"$/,
    ],
    ['an empty file', () => '  \n', /^walk\.bvh:1: empty file: expected HIERARCHY$/],
    [
      'a short OFFSET',
      (t) => t.replace('OFFSET 0 10 0', 'OFFSET 0 10'),
      /^walk\.bvh:8: OFFSET needs 3 numbers, found 2$/,
    ],
    [
      'a non-numeric OFFSET',
      (t) => t.replace('OFFSET 0 10 0', 'OFFSET 0 ten 0'),
      /^walk\.bvh:8: OFFSET value "ten" is not a finite number$/,
    ],
    [
      'a missing OFFSET',
      (t) => t.replace('    OFFSET 0 10 0\n', ''),
      /^walk\.bvh:6: joint 'Spine' has no OFFSET$/,
    ],
    [
      'an unknown keyword',
      (t) => t.replace('JOINT Spine', 'BONE Spine'),
      /^walk\.bvh:6: unknown keyword "BONE"$/,
    ],
    [
      'JOINT outside ROOT',
      (t) => `HIERARCHY\nJOINT x\n${t.slice(10)}`,
      /^walk\.bvh:2: JOINT outside any ROOT$/,
    ],
    [
      'a missing {',
      (t) => t.replace('JOINT Spine\n  {\n', 'JOINT Spine\n'),
      /^walk\.bvh:7: expected '\{' after joint 'Spine' \(line 6\), found "OFFSET 0 10 0"$/,
    ],
    [
      'a missing ROOT',
      () => 'HIERARCHY\nMOTION\nFrames: 1\nFrame Time: 1\n0\n',
      /^walk\.bvh:2: MOTION before any ROOT$/,
    ],
    [
      'no data after Frame Time',
      (t) => t.slice(0, t.indexOf('Frame Time: 0.0333333') + 21),
      /^walk\.bvh:17: Frames: 2 declared but 0 frame lines found$/,
    ],
  ])('reports %s with file:line', (_what, edit, re) => {
    expect(parseError(edit(good())).message).toMatch(re);
  });

  it('never fails with anything but BvhParseError on damaged input, text and bytes alike (property)', () => {
    const text = good();
    const ops = fc.array(
      fc.tuple(
        fc.nat(text.length),
        fc.nat(8),
        fc.constantFrom('', '{', '}', ' ', '\n', 'x', '-', '.', 'e', '9', 'End Site', 'JOINT a', '\r'),
      ),
      { minLength: 1, maxLength: 4 },
    );
    fc.assert(
      fc.property(ops, (edits) => {
        let t = text;
        for (const [at, del, ins] of edits)
          t = t.slice(0, Math.min(at, t.length)) + ins + t.slice(Math.min(at + del, t.length));
        // text and bytes must agree: the same clip, or the same error
        const outcome = (input: string | Uint8Array) => {
          try {
            const r = parseBvh(input);
            const ok = r.clip.rotations.every(Number.isFinite) && r.clip.translations.every(Number.isFinite);
            return ok ? `ok ${r.clip.frameCount} ${Array.from(r.clip.rotations).join(',')}` : 'non-finite';
          } catch (e) {
            return e instanceof BvhParseError && /^<bvh>:\d+: /.test(e.message) && e.line >= 1
              ? e.message
              : `unexpected ${String(e)}`;
          }
        };
        const a = outcome(t);
        const b = outcome(new TextEncoder().encode(t));
        return a === b && !a.startsWith('unexpected') && a !== 'non-finite';
      }),
      { numRuns: 2000 },
    );
  });
});

describe('units', () => {
  /** A standing T-posed humanoid of the given height (file units), Y up or Z up. */
  function human(height: number, zUp = false): J[] {
    const v = (x: number, y: number) => (zUp ? [x, 0, y] : [x, y, 0]).map((c) => c * height);
    return [
      { name: 'Hips', parent: -1, offset: v(0, 0.53), channels: SIX },
      { name: 'Spine', parent: 0, offset: v(0, 0.15), channels: ROT3 },
      { name: 'Head', parent: 1, offset: v(0, 0.2), channels: ROT3, end: v(0, 0.12) },
      { name: 'LeftArm', parent: 1, offset: v(0.1, 0.1), channels: ROT3, end: v(0.3, 0) },
      { name: 'LeftUpLeg', parent: 0, offset: v(0.1, -0.05), channels: ROT3 },
      { name: 'LeftLeg', parent: 4, offset: v(0, -0.24), channels: ROT3 },
      { name: 'LeftFoot', parent: 5, offset: v(0, -0.24), channels: ROT3, end: [0, 0, 0] },
    ];
  }
  it.each([
    [1.75, 1, 'metres (auto)'],
    [175, 0.01, 'centimetres (auto)'],
    [1750, 0.001, 'millimetres (auto)'],
    [46, 0.0254, 'inches (auto)'],
    [30, 0.0254 / 0.45, 'CMU ASF units (1/0.45 inch) (auto)'],
    [70, 0.01, 'centimetres (auto)'],
    [300, 0.01, 'centimetres (auto)'],
  ])('guesses the unit of a %s-unit tall skeleton from its extent', (height, scale, guess) => {
    for (const zUp of [false, true]) {
      const frame = new Array(3 + 6 * 3 + 3).fill(0);
      const r = parseBvh(bvhText(human(height, zUp), [frame]));
      expect(r.unitScale).toBeCloseTo(scale, 12);
      expect(r.unitGuess).toBe(guess);
      expect(restExtent(r.layout)).toBeCloseTo(height * 1, 6);
    }
  });

  it('uses a given number instead of guessing, and scales translations by it', () => {
    const frame = new Array(24).fill(0);
    frame[1] = 100;
    const r = parseBvh(bvhText(human(175), [frame]), { unitScale: 0.05 });
    expect(r.unitScale).toBe(0.05);
    expect(r.unitGuess).toBe('0.05 m per unit (given)');
    expect(translationOf(r.clip, 0, 0)[1]).toBeCloseTo(5, 6);
    expect(r.clip.skeleton.restTranslations[4]).toBeCloseTo(0.15 * 175 * 0.05, 9);
    expect(parseBvh(bvhText(human(175), [frame]), { unitScale: 0.01 }).unitGuess).toBe('centimetres (given)');
    expect(() => parseBvh(bvhText(human(175), [frame]), { unitScale: -1 })).toThrow(RangeError);
  });

  /** A two-joint layout whose rest extent is `e` file units. */
  const stick = (e: number): BvhLayout => ({
    joints: [
      { name: 'a', parent: -1, offset: [0, 0, 0], channels: [], endSite: null, line: 2 },
      { name: 'b', parent: 0, offset: [0, e, 0], channels: [], endSite: null, line: 5 },
    ],
  });

  it('prefers centimetres for any extent that is a plausible human in cm (0.5 m to 2.6 m), else the nearest to 1.7 m', () => {
    // band edges (file units): 7.5 metres|CMU, 42.7 CMU|inches, 50 inches|cm, 537.6 cm|mm
    const cases: [number, string][] = [
      [7.4, 'metres'],
      [7.6, 'CMU ASF units (1/0.45 inch)'],
      [42.6, 'CMU ASF units (1/0.45 inch)'],
      [42.8, 'inches'],
      [49.9, 'inches'],
      [50, 'centimetres'],
      [260, 'centimetres'],
      [537, 'centimetres'],
      [538, 'millimetres'],
    ];
    for (const [e, unit] of cases)
      expect([e, guessBvhUnitScale(stick(e)).unitGuess]).toEqual([e, `${unit} (auto)`]);
    fc.assert(
      fc.property(fc.double({ min: 0.01, max: 1e5, noNaN: true }), (e) => {
        const g = guessBvhUnitScale(stick(e));
        expect(g.extent).toBeCloseTo(e, 9);
        if (e >= 50 && e <= 260) return g.unitScale === 0.01;
        // outside the cm prior: no candidate is nearer to 1.7 m (in log ratio, CMU penalised by 0.1)
        const err = (s: number, pen: number) => Math.abs(Math.log((e * s) / 1.7)) + pen;
        const mine = err(g.unitScale, g.unitGuess.startsWith('CMU') ? 0.1 : 0);
        return [1, 0.0254 / 0.45, 0.0254, 0.01, 0.001].every(
          (s, i) => mine <= err(s, i === 1 ? 0.1 : 0) + 1e-12,
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('reads back a centimetre BVH of a small avatar (0.7 m joint extent) as centimetres', () => {
    // hips -> spine -> head and a leg, 0.7 m from foot to head, written by writeBvh (centimetres)
    const sk = createSkeleton({
      names: ['Hips', 'Spine', 'Head', 'LeftUpLeg', 'LeftLeg', 'LeftFoot'],
      parents: [-1, 0, 1, 0, 3, 4],
      restTranslations: [0, 0.36, 0, 0, 0.14, 0, 0, 0.2, 0, 0.06, -0.02, 0, 0, -0.17, 0, 0, -0.17, 0],
      restRotations: Array.from({ length: 6 }, () => [0, 0, 0, 1]).flat(),
    });
    const world = restWorld(sk);
    const ys = Array.from({ length: 6 }, (_, i) => world.positions[3 * i + 1]);
    expect(Math.max(...ys) - Math.min(...ys)).toBeCloseTo(0.7, 9);
    const back = parseBvh(writeBvh(createClip(sk, 2, 1 / 30)));
    expect(back.unitGuess).toBe('centimetres (auto)');
    expect(back.unitScale).toBe(0.01);
    for (let i = 0; i < 18; i++)
      expect(back.clip.skeleton.restTranslations[i]).toBeCloseTo(sk.restTranslations[i], 6);
  });

  it('falls back to centimetres for a skeleton with no extent', () => {
    const g = guessBvhUnitScale({
      joints: [{ name: 'a', parent: -1, offset: [0, 0, 0], channels: [], endSite: null, line: 2 }],
    });
    expect(g.unitScale).toBe(0.01);
    expect(g.extent).toBe(0);
  });
});

describe('writeBvh', () => {
  const mixed: J[] = [
    { name: 'Hips', parent: -1, offset: [0, 90, 0], channels: SIX },
    {
      name: 'Spine',
      parent: 0,
      offset: [0, 10, 0],
      channels: ['Xposition', 'Yposition', 'Zposition', 'Yrotation', 'Xrotation', 'Zrotation'],
    },
    {
      name: 'Head',
      parent: 1,
      offset: [0, 30, 0],
      channels: ['Xrotation', 'Zrotation', 'Yrotation'],
      end: [0, 15, 0],
    },
  ];

  it('round-trips a 6-channel root, 6-channel Spine and 3-channel Head (15 values per frame) within 1e-4', () => {
    // smooth motion away from gimbal lock, so every angle must come back as written (continuity)
    const frames: number[][] = [];
    for (let f = 0; f < 200; f++) {
      const t = f / 10;
      const s = (k: number) => Math.sin(t * (0.3 + 0.1 * k) + k);
      frames.push(
        [
          100 * s(0),
          90 + 5 * s(1),
          -400 * s(2),
          170 * s(3),
          80 * s(4),
          175 * s(5),
          0.5 * s(6),
          10 + s(7),
          0.25 * s(8),
          120 * s(9),
          60 * s(10),
          -150 * s(11),
          30 * s(12),
          85 * s(13),
          179 * s(14),
        ].map((v) => Math.round(v * 1e4) / 1e4),
      );
    }
    const text = bvhText(mixed, frames, '0.0083333');
    const a = parseBvh(text, { keepChannelValues: true });
    expect(a.channelValues!.length / a.clip.frameCount).toBe(15);
    const out = writeBvh(a.clip, { layout: a.layout, unitScale: a.unitScale });
    const b = parseBvh(out, { keepChannelValues: true, unitScale: a.unitScale });
    expect(b.clip.frameTime).toBe(0.0083333);
    expect(b.clip.frameCount).toBe(200);
    expect(b.layout.joints.map((j) => j.channels)).toEqual(a.layout.joints.map((j) => j.channels));
    expect(b.layout.joints.map((j) => j.offset)).toEqual(a.layout.joints.map((j) => j.offset));
    expect(b.layout.joints.map((j) => j.endSite)).toEqual(a.layout.joints.map((j) => j.endSite));
    let worst = 0;
    for (let i = 0; i < a.channelValues!.length; i++)
      worst = Math.max(worst, Math.abs(b.channelValues![i] - a.channelValues![i]));
    expect(worst).toBeLessThan(1e-4);
  });

  it('writes Frame Time with enough digits to read back within 1e-7', () => {
    for (const ft of [0.0083333, 1 / 120, 1 / 30, 0.008342, 0.01, 1 / 119.88, 0.1 + 0.2]) {
      const sk = createSkeleton({
        names: ['a'],
        parents: [-1],
        restTranslations: [0, 0, 0],
        restRotations: [0, 0, 0, 1],
      });
      const back = parseBvh(writeBvh(createClip(sk, 2, ft))).clip.frameTime;
      expect(Math.abs(back - ft)).toBeLessThan(1e-7);
      expect(back).toBe(ft);
    }
  });

  it('round-trips random layouts and poses as rotations and positions (property)', () => {
    const channelSet = fc
      .subarray(
        ['Xposition', 'Yposition', 'Zposition', 'Xrotation', 'Yrotation', 'Zrotation'] as BvhChannel[],
        { minLength: 1 },
      )
      .chain((cs) => fc.shuffledSubarray(cs, { minLength: cs.length, maxLength: cs.length }));
    fc.assert(
      fc.property(
        fc.array(channelSet, { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 1e9 }),
        (chans, frames, seed) => {
          let rnd = seed;
          const next = () => {
            rnd = (rnd * 16807) % 2147483647;
            return rnd / 2147483647;
          };
          const joints: J[] = chans.map((c, i) => ({
            name: `j${i}`,
            parent: i - 1,
            offset: [1, 2, 3],
            channels: c,
          }));
          const C = chans.reduce((s, c) => s + c.length, 0);
          const rows = Array.from({ length: frames }, () =>
            Array.from({ length: C }, () => Math.round((next() * 720 - 360) * 1e3) / 1e3),
          );
          const a = parseBvh(bvhText(joints, rows), { keepChannelValues: true, unitScale: 0.01 });
          const b = parseBvh(writeBvh(a.clip, { layout: a.layout, unitScale: 0.01 }), { unitScale: 0.01 });
          for (let f = 0; f < frames; f++) {
            for (let j = 0; j < joints.length; j++) {
              if (angleBetween(rotationOf(a.clip, f, j), rotationOf(b.clip, f, j)) > 2e-6) return false;
              const ta = translationOf(a.clip, f, j);
              const tb = translationOf(b.clip, f, j);
              // axes without a channel keep the OFFSET on both sides
              if (ta.some((v, k) => Math.abs(v - tb[k]) > 1e-6)) return false;
            }
          }
          return true;
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps Euler tracks continuous: a spin through several turns has no 360-degree jumps', () => {
    const sk = createSkeleton({
      names: ['root'],
      parents: [-1],
      restTranslations: [0, 0, 0],
      restRotations: [0, 0, 0, 1],
    });
    const clip = createClip(sk, 181, 1 / 30);
    for (let f = 0; f <= 180; f++) {
      const q = quatFromEuler(q64(), f * 4 * DEG2RAD, 0.3, -0.2, 'ZXY');
      clip.rotations.set(q, 4 * f);
    }
    const r = parseBvh(writeBvh(clip), { keepChannelValues: true });
    const v = r.channelValues!;
    const z = (f: number) => v[6 * f + 3];
    for (let f = 1; f <= 180; f++) expect(Math.abs(z(f) - z(f - 1) - 4)).toBeLessThan(1e-3);
    expect(z(180)).toBeCloseTo(720, 3);
  });

  it('follows reference angles when given: other Euler branches and multiples of 360 come back as in the source', () => {
    // middle angle beyond 90 and first angle beyond 180: an unguided writer picks the equivalent principal triple
    const rows = [
      [0, 0, 0, 400, 120, -200],
      [0, 0, 0, 410, 130, -190],
    ];
    const a = parseBvh(bvhText([{ name: 'r', parent: -1, channels: SIX }], rows), {
      keepChannelValues: true,
      unitScale: 1,
    });
    const plain = parseBvh(writeBvh(a.clip, { layout: a.layout, unitScale: 1 }), {
      keepChannelValues: true,
      unitScale: 1,
    });
    expect(Math.abs(plain.channelValues![4] - 120)).toBeGreaterThan(1); // a different but equivalent triple
    for (let f = 0; f < 2; f++) {
      expect(angleBetween(rotationOf(plain.clip, f, 0), rotationOf(a.clip, f, 0))).toBeLessThan(1e-6);
      for (const k of [3, 5])
        expect(Math.abs(wrapDeg(plain.channelValues![6 * f + k] - rows[f][k]))).toBeGreaterThan(1);
    }
    const guided = parseBvh(
      writeBvh(a.clip, { layout: a.layout, unitScale: 1, reference: a.channelValues }),
      {
        keepChannelValues: true,
        unitScale: 1,
      },
    );
    for (let i = 0; i < 12; i++)
      expect(Math.abs(guided.channelValues![i] - rows[Math.floor(i / 6)][i % 6])).toBeLessThan(1e-4);
    expect(() => writeBvh(a.clip, { layout: a.layout, reference: new Float64Array(3) })).toThrow(
      BvhWriteError,
    );
  });

  it('writes any skeleton order depth-first and reads back the same pose (bones renumbered by name)', () => {
    // breadth-first bone order (as in many glTF files): root, A, B, A1, B1
    const sk = createSkeleton({
      names: ['root', 'A', 'B', 'A1', 'B1'],
      parents: [-1, 0, 0, 1, 2],
      restTranslations: [0, 1, 0, 0.1, 0, 0, -0.1, 0, 0, 0, 0.3, 0, 0, 0.2, 0.1],
      restRotations: [0, 0, 0, 1, 0, 0, Math.SQRT1_2, Math.SQRT1_2, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1],
    });
    const clip = createClip(sk, 3, 1 / 60);
    for (let f = 0; f < 3; f++) {
      for (let i = 0; i < 5; i++) {
        const q = quatFromEuler(q64(), 0.1 * f + 0.2 * i, -0.3 * i, 0.05 * f, 'YXZ');
        clip.rotations.set(q, 4 * (f * 5 + i));
      }
      clip.translations[3 * (f * 5)] = 0.5 * f;
    }
    const text = writeBvh(clip, { unitScale: 0.01 });
    expect(text.indexOf('JOINT A1')).toBeLessThan(text.indexOf('JOINT B'));
    const r = parseBvh(text, { unitScale: 0.01 });
    expect(r.clip.skeleton.names).toEqual(['root', 'A', 'A1', 'B', 'B1']);
    const map = r.clip.skeleton.names.map((n) => sk.names.indexOf(n));
    // BVH has no rest rotations: the file's rest pose (zero channels) is the skeleton's rest pose
    const restA = restWorld(sk);
    const restB = restWorld(r.clip.skeleton);
    expect(Array.from(r.clip.skeleton.restRotations)).toEqual([
      0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1,
    ]);
    for (let i = 0; i < 5; i++)
      for (let k = 0; k < 3; k++)
        expect(Math.abs(restB.positions[3 * i + k] - restA.positions[3 * map[i] + k])).toBeLessThan(1e-9);
    // compare world poses: the same joint positions; each world rotation turned by the inverse of the
    // bone's rest world rotation (the written joint frames are parallel to the world at rest)
    const wa = { r: new Float64Array(20), p: new Float64Array(15) };
    const wb = { r: new Float64Array(20), p: new Float64Array(15) };
    for (let f = 0; f < 3; f++) {
      forwardKinematics(
        sk,
        clip.rotations.subarray(20 * f, 20 * f + 20),
        clip.translations.subarray(15 * f, 15 * f + 15),
        wa.r,
        wa.p,
      );
      const c = r.clip;
      forwardKinematics(
        c.skeleton,
        c.rotations.subarray(20 * f, 20 * f + 20),
        c.translations.subarray(15 * f, 15 * f + 15),
        wb.r,
        wb.p,
      );
      for (let i = 0; i < 5; i++) {
        const j = map[i];
        const expected = quat.multiply(
          q64(),
          wa.r.subarray(4 * j, 4 * j + 4),
          quat.conjugate(q64(), restA.rotations.subarray(4 * j, 4 * j + 4)),
        );
        expect(angleBetween(wb.r.subarray(4 * i, 4 * i + 4), expected)).toBeLessThan(1e-6);
        for (let k = 0; k < 3; k++) expect(Math.abs(wb.p[3 * i + k] - wa.p[3 * j + k])).toBeLessThan(1e-6);
      }
    }
  });

  it('a skeleton with rest rotations and animated non-root translations reads back with its rest pose and every world pose (property)', () => {
    // before: the BVH's rest pose (zero channels) was the skeleton's local frames unturned (a folded
    // figure), and a non-root bone's translation (an IK-style foot under the root) was dropped
    const unit = fc.double({ min: -1, max: 1, noNaN: true });
    const rot = fc
      .tuple(unit, unit, unit, unit)
      .filter(([x, y, z, w]) => Math.hypot(x, y, z, w) > 0.2)
      .map(([x, y, z, w]) => {
        const l = Math.hypot(x, y, z, w);
        return [x / l, y / l, z / l, w / l];
      });
    const vec = fc.tuple(unit, unit, unit);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(), rot, vec), { minLength: 1, maxLength: 6 }),
        fc.array(fc.tuple(rot, vec), { minLength: 12, maxLength: 12 }),
        fc.nat(5),
        (bones, frames, moving) => {
          const n = bones.length;
          const sk = createSkeleton({
            names: bones.map((_b, i) => `b${i}`),
            parents: bones.map(([p], i) => (i === 0 ? -1 : p % i)),
            restTranslations: bones.flatMap(([, , t]) => t),
            restRotations: bones.flatMap(([, r]) => r),
          });
          const F = 2;
          const clip = createClip(sk, F, 1 / 30);
          for (let f = 0; f < F; f++)
            for (let i = 0; i < n; i++) {
              const [r, t] = frames[(f * n + i) % frames.length];
              clip.rotations.set(r, 4 * (f * n + i));
              // the root and one other bone move by translation, the rest keep their rest translation
              const tt =
                i === 0 || i === moving % n ? t : Array.from(sk.restTranslations.subarray(3 * i, 3 * i + 3));
              clip.translations.set(tt, 3 * (f * n + i));
            }
          const back = parseBvh(writeBvh(clip, { unitScale: 0.01 }), { unitScale: 0.01 }).clip;
          const map = back.skeleton.names.map((nm) => sk.names.indexOf(nm));
          const ra = restWorld(sk).positions;
          const rb = restWorld(back.skeleton).positions;
          for (let i = 0; i < n; i++)
            for (let k = 0; k < 3; k++)
              expect(Math.abs(rb[3 * i + k] - ra[3 * map[i] + k])).toBeLessThan(1e-7);
          const wa = { r: new Float64Array(4 * n), p: new Float64Array(3 * n) };
          const wb = { r: new Float64Array(4 * n), p: new Float64Array(3 * n) };
          for (let f = 0; f < F; f++) {
            forwardKinematics(
              sk,
              clip.rotations.subarray(4 * n * f, 4 * n * (f + 1)),
              clip.translations.subarray(3 * n * f, 3 * n * (f + 1)),
              wa.r,
              wa.p,
            );
            forwardKinematics(
              back.skeleton,
              back.rotations.subarray(4 * n * f, 4 * n * (f + 1)),
              back.translations.subarray(3 * n * f, 3 * n * (f + 1)),
              wb.r,
              wb.p,
            );
            for (let i = 0; i < n; i++)
              for (let k = 0; k < 3; k++)
                expect(Math.abs(wb.p[3 * i + k] - wa.p[3 * map[i] + k])).toBeLessThan(1e-5);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('defaultBvhLayout: 6 root channels, 3 ZXY elsewhere, End Sites continuing the leaf bone at half its length', () => {
    const sk = createSkeleton({
      names: ['Hips', 'Spine', 'Head', 'Arm'],
      parents: [-1, 0, 1, 1],
      restTranslations: [0, 1, 0, 0, 0.2, 0, 0, 0.4, 0, 0.3, 0, 0],
      // the arm's rest frame is turned 90 degrees about Z; it is written parallel to the world
      restRotations: [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, Math.SQRT1_2, Math.SQRT1_2],
    });
    const layout = defaultBvhLayout(sk, 0.01);
    expect(layout.joints.map((j) => j.channels)).toEqual([
      ['Xposition', 'Yposition', 'Zposition', 'Zrotation', 'Xrotation', 'Yrotation'],
      ['Zrotation', 'Xrotation', 'Yrotation'],
      ['Zrotation', 'Xrotation', 'Yrotation'],
      ['Zrotation', 'Xrotation', 'Yrotation'],
    ]);
    expect(layout.joints[1].offset.map((v) => Math.round(v * 1e9) / 1e9)).toEqual([0, 20, 0]);
    expect(layout.joints[0].endSite).toBeNull();
    expect(layout.joints[1].endSite).toBeNull();
    expect(layout.joints[2].endSite!.map((v) => Math.round(v * 1e9) / 1e9 + 0)).toEqual([
      0,
      40 * END_SITE_FRACTION,
      0,
    ]);
    // world direction of Arm is +X (from Spine): the End Site continues it in the world-parallel frame
    // (before the rest rotations were baked out it was -Y, in the arm's turned frame)
    expect(layout.joints[3].endSite!.map((v) => Math.round(v * 1e9) / 1e9 + 0)).toEqual([
      30 * END_SITE_FRACTION,
      0,
      0,
    ]);
    // a child's OFFSET is its rest translation turned into the world-parallel frame of its parent
    const turned = createSkeleton({
      names: ['Hips', 'Arm', 'Hand'],
      parents: [-1, 0, 1],
      restTranslations: [0, 1, 0, 0.3, 0, 0, 0, 0.25, 0],
      restRotations: [0, 0, 0, 1, 0, 0, -Math.SQRT1_2, Math.SQRT1_2, 0, 0, 0, 1],
    });
    // Arm turned -90 about Z: its +Y is the world's +X, so Hand's (0, 0.25, 0) is (25, 0, 0) cm
    expect(defaultBvhLayout(turned, 0.01).joints[2].offset.map((v) => Math.round(v * 1e9) / 1e9 + 0)).toEqual(
      [25, 0, 0],
    );
    expect(layout.joints.every((j) => j.line === 0)).toBe(true);
    expect(defaultBvhLayout(sk, 0.01, { positions: 'all' }).joints[2].channels.length).toBe(6);
  });

  it('rejects mismatched layouts, bad names and non-finite clip values with BvhWriteError naming the place', () => {
    const a = parseBvh(bvhText(mixed, [new Array(15).fill(0)]), { keepChannelValues: true });
    const layout: BvhLayout = JSON.parse(JSON.stringify(a.layout));
    layout.joints[2].parent = 0;
    expect(() => writeBvh(a.clip, { layout })).toThrow(
      /layout joint 2 'Head': parent 0 differs from the skeleton's 1/,
    );
    expect(() => writeBvh(a.clip, { layout: { joints: layout.joints.slice(1) } })).toThrow(
      /layout has 2 joints, the clip skeleton 3 bones/,
    );
    const renamed: BvhLayout = JSON.parse(JSON.stringify(a.layout));
    renamed.joints[1].channels = ['Xrotation', 'Xrotation'] as BvhChannel[];
    expect(() => writeBvh(a.clip, { layout: renamed })).toThrow(/'Spine': channel 'Xrotation' listed twice/);
    a.clip.rotations.fill(0, 4, 8);
    expect(() => writeBvh(a.clip, { layout: a.layout })).toThrow(
      /^frame 0: bone 'Spine' rotation is not a unit quaternion \(0, 0, 0, 0\)$/,
    );
    a.clip.rotations.set([0, 0, 0, 1], 4);
    expect(() => writeBvh({ ...a.clip, frameTime: 0 })).toThrow(
      /frameTime 0 is not a positive number of seconds/,
    );
    expect(() => writeBvh({ ...a.clip, frameCount: 2 })).toThrow(
      /rotations\/translations have 12\/9 values, expected 24\/18 for 2 frames x 3 bones/,
    );
    a.clip.rotations[4 * 1 + 2] = Number.NaN;
    expect(() => writeBvh(a.clip, { layout: a.layout })).toThrow(
      /^frame 0: bone 'Spine' rotation is not a unit quaternion \(0, 0, NaN, 1\)$/,
    );
    a.clip.rotations[4 * 1 + 2] = 0;
    a.clip.translations[3 * 1 + 1] = Number.POSITIVE_INFINITY;
    expect(() => writeBvh(a.clip, { layout: a.layout })).toThrow(
      /^frame 0: channel 8 \('Spine' Yposition\) is not finite \(clip value NaN\/Infinity\)$/,
    );
    expect(() => writeBvh(a.clip, { unitScale: 0 })).toThrow(BvhWriteError);
    const named: BvhLayout = JSON.parse(JSON.stringify(a.layout));
    named.joints[1].name = 'bad\nname';
    expect(() => writeBvh(a.clip, { layout: named })).toThrow(
      /layout joint 1 'bad\nname': a BVH joint name must be non-empty, one line/,
    );
    named.joints[1].name = 'Hips';
    expect(() => writeBvh(a.clip, { layout: named })).toThrow(/layout joint 1 'Hips': duplicate joint name/);
  });

  it('defaultBvhLayout makes skeleton names writable: repeated, empty, multi-line and padded names', () => {
    const sk = createSkeleton({
      names: ['Foot.L', 'Foot.L', ' padded ', '', 'two\nlines', 'Foot.L_2'],
      parents: [-1, 0, 1, 2, 3, 4],
      restTranslations: new Array(18).fill(0).map((_, i) => (i % 3 === 1 ? 0.1 : 0)),
      restRotations: new Array(6).fill([0, 0, 0, 1]).flat(),
    });
    const r = parseBvh(writeBvh(createClip(sk, 2, 0.1)));
    expect(r.clip.skeleton.names).toEqual([
      'Foot.L',
      'Foot.L_2',
      'padded',
      'joint3',
      'two lines',
      'Foot.L_2_2',
    ]);
    expect(Array.from(r.clip.skeleton.parents)).toEqual([-1, 0, 1, 2, 3, 4]);
  });

  it('formats values compactly: rounded to 1e-6, no trailing zeros, no -0', () => {
    const sk = createSkeleton({
      names: ['r'],
      parents: [-1],
      restTranslations: [0, 0, 0],
      restRotations: [0, 0, 0, 1],
    });
    const clip = createClip(sk, 1, 0.5);
    clip.translations.set([0.0000000001, -12.345678, 1e-6 * 0.01]);
    const text = writeBvh(clip, { unitScale: 0.01 });
    const last = text.trimEnd().split('\n').pop()!;
    const vals = last.split(' ');
    const want = String(Math.round(Math.fround(-12.345678) * 100 * 1e6) / 1e6);
    expect(want).toMatch(/^-1234\.5678\d*$/);
    expect(vals.slice(0, 3)).toEqual(['0', want, '0.000001']);
    expect(vals.slice(3)).toEqual(['0', '0', '0']);
    // both number paths (|v| below and above 2147.48) and the String() fallback for huge values
    const xs = [4096.5, -3000.25, 1e10, 0.5, -2147.25, 2147.5, 12.000001, -0.000001, 100];
    const sk10 = createSkeleton({
      names: ['a', 'b', 'c'],
      parents: [-1, 0, 1],
      restTranslations: [0, 0, 0, 0, 0, 0, 0, 0, 0],
      restRotations: [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1],
    });
    const layout: BvhLayout = defaultBvhLayout(sk10, 1, { positions: 'all' });
    const c10 = createClip(sk10, 1, 0.5);
    c10.translations.set(xs);
    const line = writeBvh(c10, { layout, unitScale: 1 }).trimEnd().split('\n').pop()!.split(' ');
    const pos = [0, 1, 2, 6, 7, 8, 12, 13, 14].map((k) => line[k]);
    expect(pos).toEqual(xs.map((x) => String(Math.round(Math.fround(x) * 1e6) / 1e6)));
    expect(pos.slice(0, 3)).toEqual(['4096.5', '-3000.25', '10000000000']);
  });
});

describe('orders used by writer and reader agree for every EulerOrder', () => {
  it.each(EULER_ORDERS.map((o) => [o]))('%s', (order: EulerOrder) => {
    const chans = [...order].map((a) => `${a}rotation`);
    const rows = [
      [10, 20, 30],
      [-30, 50, 120],
      [-60, 80, 150],
      [-100, 60, 179],
    ];
    const a = parseBvh(bvhText([{ name: 'r', parent: -1, channels: chans }], rows), {
      keepChannelValues: true,
    });
    const b = parseBvh(writeBvh(a.clip, { layout: a.layout, unitScale: a.unitScale }), {
      keepChannelValues: true,
    });
    for (let i = 0; i < 12; i++)
      expect(Math.abs(b.channelValues![i] - a.channelValues![i])).toBeLessThan(1e-4);
  });
});
