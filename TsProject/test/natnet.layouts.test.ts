/**
 * NatNet layouts Motive may send that the SDKs read differently:
 * - NatNet 3.x skeleton descriptions with the per-bone marker block (SDK 4.x) or without it (SDK 3.0-3.1
 *   samples): both decode, from a packet built by hand byte by byte and from the encoder in both layouts;
 *   the decoder says which it read.
 * - NAT_RESPONSE by the request it answers: a FrameRate reply is a float32.
 */
import fc from 'fast-check';
import {
  decodeModelDef,
  decodeResponse,
  encodeModelDef,
  encodeResponse,
  NatNetDecodeError,
  NatNetEncodeError,
  type NatNetVersion,
  type SkeletonDescription,
} from '../src/live/natnet';

/** Little-endian bytes by hand (no project code): int32, float32, NUL-terminated ASCII. */
class Bytes {
  readonly out: number[] = [];
  i32(v: number): this {
    for (let k = 0; k < 4; k++) this.out.push((v >>> (8 * k)) & 0xff);
    return this;
  }
  f32(v: number): this {
    const b = new Uint8Array(new Float32Array([v]).buffer);
    this.out.push(...b);
    return this;
  }
  str(s: string): this {
    for (const c of s) this.out.push(c.charCodeAt(0));
    this.out.push(0);
    return this;
  }
  /** A packet: uint16 message id, uint16 payload length, payload. */
  packet(id: number): Uint8Array {
    const n = this.out.length;
    return new Uint8Array([id & 0xff, id >> 8, n & 0xff, n >> 8, ...this.out]);
  }
}

const V30: NatNetVersion = { major: 3, minor: 0 };
const V31: NatNetVersion = { major: 3, minor: 1 };

/** The three bones of the hand-built skeleton: name, id, parent id, offset (metres). */
const BONES: [string, number, number, [number, number, number]][] = [
  ['Skeleton_Hip', 1, 0, [0, 0.95, 0]],
  ['Skeleton_Ab', 2, 1, [0, 0.0825, 0]],
  ['Skeleton_LThigh', 3, 1, [0.0875, -0.0525, 0]],
];

/** MODELDEF 3.x: a marker set, a rigid body with 2 markers (type 1 always has them in 3.x), the skeleton. */
function handBuilt(boneMarkers: boolean): Uint8Array {
  const b = new Bytes().i32(3);
  b.i32(0).str('Skeleton').i32(2).str('Skeleton_Hip').str('Skeleton_Ab'); // marker set
  b.i32(1).str('Wand').i32(7).i32(-1).f32(0).f32(0).f32(0); // rigid body
  b.i32(2).f32(0.01).f32(0.02).f32(0.03).f32(-0.01).f32(-0.02).f32(-0.03).i32(0).i32(5);
  b.i32(2).str('Skeleton').i32(1).i32(BONES.length); // skeleton
  for (const [name, id, parent, off] of BONES) {
    b.str(name).i32(id).i32(parent).f32(off[0]).f32(off[1]).f32(off[2]);
    if (boneMarkers) b.i32(0); // SDK 4.x: an (empty) marker block after every bone
  }
  return b.packet(5);
}

describe('NatNet 3.x skeleton descriptions, with and without per-bone markers', () => {
  for (const boneMarkers of [false, true]) {
    it(`hand-built bytes, ${boneMarkers ? 'with (SDK 4.x)' : 'without (SDK 3.0-3.1)'} the marker block: every field read`, () => {
      for (const v of [V30, V31]) {
        const m = decodeModelDef(handBuilt(boneMarkers), v);
        expect(m.boneMarkers).toBe(boneMarkers);
        expect(m.undecoded).toBe(0);
        expect(m.markerSets).toEqual([
          { type: 'markerSet', name: 'Skeleton', markerNames: ['Skeleton_Hip', 'Skeleton_Ab'] },
        ]);
        expect(m.rigidBodies).toHaveLength(1);
        expect(m.rigidBodies[0].markers.map((x) => x.activeLabel)).toEqual([0, 5]);
        expect(m.rigidBodies[0].markers[1].position).toEqual([
          Math.fround(-0.01),
          Math.fround(-0.02),
          Math.fround(-0.03),
        ]);
        expect(m.skeletons).toHaveLength(1);
        const s = m.skeletons[0];
        expect([s.name, s.id]).toEqual(['Skeleton', 1]);
        expect(s.bones.map((x) => [x.name, x.id, x.parentId, x.offset, x.markers])).toEqual(
          BONES.map(([name, id, parent, off]) => [name, id, parent, off.map(Math.fround), []]),
        );
        expect(m.descriptions.map((x) => x.type)).toEqual(['markerSet', 'rigidBody', 'skeleton']);
      }
    });
  }

  it("the trial's packet: a skeleton first, bones without markers (once 'markerCount at byte 62: count 1818585939')", () => {
    const b = new Bytes().i32(1).i32(2).str('Skeleton').i32(1).i32(BONES.length);
    for (const [name, id, parent, off] of BONES)
      b.str(name).i32(id).i32(parent).f32(off[0]).f32(off[1]).f32(off[2]);
    const bytes = b.packet(5);
    // byte 62 is where the 4.x layout looks for the first bone's marker count: the next bone's name
    expect(String.fromCharCode(...bytes.subarray(62, 66))).toBe('Skel');
    const m = decodeModelDef(bytes, V30);
    expect(m.boneMarkers).toBe(false);
    expect(m.skeletons[0].bones.map((x) => x.name)).toEqual(BONES.map((x) => x[0]));
  });

  it('a description neither layout reads is still an error naming the field (and both layouts)', () => {
    const bytes = handBuilt(false);
    const cut = bytes.slice(0, bytes.length - 6);
    cut[2] = (cut.length - 4) & 0xff;
    cut[3] = (cut.length - 4) >> 8;
    expect(() => decodeModelDef(cut, V30)).toThrow(NatNetDecodeError);
    expect(() => decodeModelDef(cut, V30)).toThrow(/without them, as the SDK 3.0-3.1 samples read/);
    // 4.x has the one layout: nothing to choose, nothing reported
    const sk: SkeletonDescription = {
      type: 'skeleton',
      name: 'S',
      id: 1,
      bones: [
        {
          type: 'rigidBody',
          name: 'S_Hip',
          id: 1,
          parentId: 0,
          offset: [0, 1, 0],
          rotationOffset: [0, 0, 0, 1],
          markers: [],
        },
      ],
    };
    const m4 = decodeModelDef(encodeModelDef({ skeletons: [sk] }, { major: 4, minor: 0 }), {
      major: 4,
      minor: 0,
    });
    expect([m4.skeletons[0].bones[0].name, m4.boneMarkers]).toEqual(['S_Hip', undefined]);
  });

  const name = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,15}$/);
  const f = fc.float({ min: -2, max: 2, noNaN: true, noDefaultInfinity: true });
  const marker = fc.record({
    position: fc.tuple(f, f, f),
    activeLabel: fc.integer({ min: 0, max: 1000 }),
    name: fc.constant(''),
  });
  const skeletonArb = fc
    .record({
      name,
      id: fc.integer({ min: 0, max: 1000 }),
      bones: fc.array(
        fc.record({ name, offset: fc.tuple(f, f, f), markers: fc.array(marker, { maxLength: 3 }) }),
        { minLength: 1, maxLength: 30 },
      ),
    })
    .map(
      (s): SkeletonDescription => ({
        type: 'skeleton',
        name: s.name,
        id: s.id,
        bones: s.bones.map((b, i) => ({
          type: 'rigidBody',
          name: `${s.name}_${b.name}`,
          id: i + 1,
          parentId: i === 0 ? 0 : 1 + (i >> 1),
          offset: b.offset,
          rotationOffset: [0, 0, 0, 1],
          markers: b.markers,
        })),
      }),
    );

  it('the encoder writes both layouts and the decoder reads each back, saying which (3.0 and 3.1)', () => {
    fc.assert(
      fc.property(skeletonArb, fc.boolean(), fc.constantFrom(V30, V31), (sk, boneMarkers, v) => {
        const bytes = encodeModelDef({ skeletons: [sk] }, v, { boneMarkers });
        const m = decodeModelDef(bytes, v);
        expect(m.boneMarkers).toBe(boneMarkers);
        const want = boneMarkers ? sk : { ...sk, bones: sk.bones.map((b) => ({ ...b, markers: [] })) };
        expect(m.skeletons).toEqual([want]);
      }),
      { numRuns: 300, seed: 10 },
    );
    // only 3.x has two layouts
    expect(() => encodeModelDef({ skeletons: [] }, { major: 4, minor: 1 }, { boneMarkers: false })).toThrow(
      NatNetEncodeError,
    );
  });
});

describe('NAT_RESPONSE decoded by the request it answers', () => {
  it('FrameRate: a float32 (120.0, not 1123024896); other 4-byte replies int32; text stays text', () => {
    const fr = new Bytes().f32(120).packet(3);
    expect(decodeResponse(fr, 'FrameRate')).toEqual({ kind: 'float', value: 120 });
    expect(decodeResponse(fr, 'framerate')).toEqual({ kind: 'float', value: 120 });
    // without knowing the request the 4 bytes are an int32 (the old reading of every reply)
    expect(decodeResponse(fr)).toEqual({ kind: 'int', value: 1123024896 });
    expect(decodeResponse(new Bytes().i32(4).packet(3), 'AnalogSamplesPerMocapFrame')).toEqual({
      kind: 'int',
      value: 4,
    });
    expect(decodeResponse(new Bytes().i32(1).packet(3), 'Bitstream,3.1')).toEqual({ kind: 'int', value: 1 });
    expect(decodeResponse(new Bytes().str('4.1.0.0').packet(3), 'Bitstream')).toEqual({
      kind: 'text',
      text: '4.1.0.0',
    });
    fc.assert(
      fc.property(fc.float({ noNaN: true }), (x) => {
        expect(decodeResponse(encodeResponse({ kind: 'float', value: x }), 'FrameRate')).toEqual({
          kind: 'float',
          value: x,
        });
      }),
      { numRuns: 200, seed: 3 },
    );
  });
});
