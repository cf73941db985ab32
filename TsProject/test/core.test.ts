import * as path from 'node:path';
import fc from 'fast-check';
import { quat } from 'gl-matrix';
import {
  angleBetween,
  clipDuration,
  clipFps,
  createClip,
  createSkeleton,
  DEG2RAD,
  EULER_ORDERS,
  eulerFromQuat,
  frameIndexAt,
  HUMAN_BONE_NAMES,
  HUMAN_PARENT,
  HumanBodyBones,
  isRequiredHumanBone,
  quatFromEuler,
  REQUIRED_HUMAN_BONES,
  restWorld,
  SkeletonError,
  sampleClip,
  slerpShortest,
  swingTwist,
  worldToLocalRotations,
} from '../src/core';
import { runAllocProbe } from './helpers/allocProbe';

const q64 = () => new Float64Array(4);

describe('HumanBodyBones', () => {
  it('has Unity indices 0 Hips ... 54 UpperChest', () => {
    expect(HUMAN_BONE_NAMES.length).toBe(55);
    expect(HumanBodyBones.Hips).toBe(0);
    expect(HumanBodyBones.LeftHand).toBe(17);
    expect(HumanBodyBones.Jaw).toBe(23);
    expect(HumanBodyBones.LeftThumbProximal).toBe(24);
    expect(HumanBodyBones.RightLittleDistal).toBe(53);
    expect(HumanBodyBones.UpperChest).toBe(54);
  });
  it('has 15 required bones and a parent chain reaching Hips from every bone', () => {
    expect(REQUIRED_HUMAN_BONES.length).toBe(15);
    expect(isRequiredHumanBone(HumanBodyBones.Chest)).toBe(false);
    expect(isRequiredHumanBone(HumanBodyBones.LeftLowerLeg)).toBe(true);
    for (let b = 0; b < 55; b++) {
      let p = b;
      let steps = 0;
      while (HUMAN_PARENT[p] >= 0 && steps++ < 10) p = HUMAN_PARENT[p];
      expect(p).toBe(HumanBodyBones.Hips);
    }
    expect(HUMAN_PARENT[HumanBodyBones.LeftIndexDistal]).toBe(HumanBodyBones.LeftIndexIntermediate);
    expect(HUMAN_PARENT[HumanBodyBones.Neck]).toBe(HumanBodyBones.UpperChest);
  });
});

describe('Euler conversion', () => {
  it('ZXY 30 45 60 is Rz(30)Rx(45)Ry(60) (known answer)', () => {
    const q = quatFromEuler(q64(), 30 * DEG2RAD, 45 * DEG2RAD, 60 * DEG2RAD, 'ZXY');
    const want = [0.2005621, 0.5319757, 0.3919038, 0.7233174];
    for (let k = 0; k < 4; k++) expect(Math.abs(q[k] - want[k])).toBeLessThan(1e-6);
    // the same from gl-matrix products, independent of our composition code
    const rz = quat.setAxisAngle(quat.create(), [0, 0, 1], 30 * DEG2RAD);
    const rx = quat.setAxisAngle(quat.create(), [1, 0, 0], 45 * DEG2RAD);
    const ry = quat.setAxisAngle(quat.create(), [0, 1, 0], 60 * DEG2RAD);
    const p = quat.multiply(quat.create(), quat.multiply(quat.create(), rz, rx), ry);
    for (let k = 0; k < 4; k++) expect(Math.abs(q[k] - p[k])).toBeLessThan(1e-6);
  });

  it('round-trips every order away from gimbal lock (property)', () => {
    for (const order of EULER_ORDERS) {
      fc.assert(
        fc.property(
          fc.double({ min: -Math.PI + 1e-6, max: Math.PI - 1e-6, noNaN: true }),
          fc.double({ min: -Math.PI / 2 + 1e-3, max: Math.PI / 2 - 1e-3, noNaN: true }),
          fc.double({ min: -Math.PI + 1e-6, max: Math.PI - 1e-6, noNaN: true }),
          (a, b, c) => {
            const q = quatFromEuler(q64(), a, b, c, order);
            const e = eulerFromQuat([0, 0, 0], q, order);
            const back = quatFromEuler(q64(), e[0], e[1], e[2], order);
            return angleBetween(q, back) < 1e-9 && Math.abs(e[1] - b) < 1e-9;
          },
        ),
        { numRuns: 300 },
      );
    }
  });

  it('keeps tracks continuous: no 360-degree jumps through +-180 and no flips', () => {
    for (const order of EULER_ORDERS) {
      let prev = [0, 0, 0];
      for (let f = 0; f <= 720; f++) {
        const a = f * DEG2RAD; // first angle sweeps two full turns
        const q = quatFromEuler(q64(), a, 0.3, -0.2, order);
        const e = eulerFromQuat([0, 0, 0], q, order, prev);
        expect(Math.abs(e[0] - prev[0])).toBeLessThan(2 * DEG2RAD);
        expect(Math.abs(e[0] - a)).toBeLessThan(1e-9);
        prev = e as number[];
      }
    }
  });

  it('allocates nothing per Euler conversion or FK (measured in a plain Node process)', () => {
    const src = path.resolve(__dirname, '../src/core');
    const r = runAllocProbe(`
      import * as c from ${JSON.stringify(src)};
      const q = c.quatFromEuler(new Float64Array(4), 0.3, 0.2, 0.1, 'ZXY');
      const out = new Float64Array(3);
      const prev = new Float64Array([0.3, 0.2, 0.1]);
      result.euler = bytesPerCall(() => c.eulerFromQuat(out, q, 'ZXY', prev));
      result.fromEuler = bytesPerCall(() => c.quatFromEuler(q, 0.3, 0.2, 0.1, 'YXZ'));
      const skel = c.createSkeleton({ names: ['a', 'b', 'c'], parents: [-1, 0, 1], restTranslations: [0, 1, 0, 0, 1, 0, 0, 1, 0], restRotations: [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1] });
      const wr = new Float64Array(12), wp = new Float64Array(9);
      result.fk = bytesPerCall(() => c.forwardKinematics(skel, skel.restRotations, skel.restTranslations, wr, wp));
      let sink = wr;
      result.control = bytesPerCall(() => { sink = new Float64Array(sink); });
    `);
    expect(r.euler).toBeLessThan(1);
    expect(r.fromEuler).toBeLessThan(1);
    expect(r.fk).toBeLessThan(1);
    // the measure does see allocation: a call that makes one small array reads >= 16 bytes
    expect(r.control).toBeGreaterThan(16);
  });

  it('has no gimbal jitter: through +-90 degrees the third angle is held and the rotation is exact', () => {
    for (const order of EULER_ORDERS) {
      let prev = [0.4, 0, 0.25];
      for (let f = -30; f <= 30; f++) {
        const b = Math.PI / 2 + f * 1e-9; // straddles the singularity
        const q = quatFromEuler(q64(), 0.4, b, 0.25, order);
        const e = eulerFromQuat([0, 0, 0], q, order, prev);
        const back = quatFromEuler(q64(), e[0], e[1], e[2], order);
        expect(angleBetween(q, back)).toBeLessThan(1e-6);
        expect(Math.abs(e[0] - prev[0])).toBeLessThan(1e-3);
        expect(Math.abs(e[2] - prev[2])).toBeLessThan(1e-3);
        prev = e as number[];
      }
    }
  });
});

describe('quaternion helpers', () => {
  it('angleBetween treats q and -q as equal and is exact for tiny angles in float32', () => {
    const a = quat.setAxisAngle(quat.create(), [0, 1, 0], 0.7);
    const neg = quat.scale(quat.create(), a, -1);
    expect(angleBetween(a, neg)).toBeLessThan(1e-7);
    const tiny = new Float32Array(4);
    quat.setAxisAngle(tiny, [1, 0, 0], 1e-4);
    expect(Math.abs(angleBetween([0, 0, 0, 1], tiny) - 1e-4)).toBeLessThan(1e-9);
  });

  it('swing-twist: signed twist about the axis, q = swing * twist, swing perpendicular (property)', () => {
    fc.assert(
      fc.property(
        fc.tuple(
          fc.double({ min: -1, max: 1, noNaN: true }),
          fc.double({ min: -1, max: 1, noNaN: true }),
          fc.double({ min: -1, max: 1, noNaN: true }),
          fc.double({ min: -1, max: 1, noNaN: true }),
        ),
        ([x, y, z, w]) => {
          const n = Math.hypot(x, y, z, w);
          if (n < 1e-3) return true;
          const q = [x / n, y / n, z / n, w / n];
          const axis = [0, 0, 1];
          const sw = q64();
          const tw = q64();
          swingTwist(q, axis, sw, tw);
          const back = quat.multiply(q64(), sw, tw);
          const swingAlongAxis = Math.abs(sw[2]);
          return angleBetween(q, back) < 1e-9 && swingAlongAxis < 1e-9;
        },
      ),
      { numRuns: 500 },
    );
    const q = quat.setAxisAngle(q64(), [0, 0, 1], 30 * DEG2RAD);
    expect(swingTwist(q, [0, 0, 1]) / DEG2RAD).toBeCloseTo(30, 9);
    expect(swingTwist(quat.setAxisAngle(q64(), [0, 0, 1], -30 * DEG2RAD), [0, 0, 1]) / DEG2RAD).toBeCloseTo(
      -30,
      9,
    );
    // -q gives the same twist
    expect(swingTwist(quat.scale(q64(), q, -1), [0, 0, 1]) / DEG2RAD).toBeCloseTo(30, 9);
  });

  it('swing-twist has no NaN at 180 degrees about a perpendicular axis', () => {
    const tw = q64();
    const sw = q64();
    const q = quat.setAxisAngle(q64(), [1, 0, 0], Math.PI);
    const t = swingTwist(q, [0, 0, 1], sw, tw);
    expect(t).toBe(0);
    expect(Array.from(tw)).toEqual([0, 0, 0, 1]);
    expect(sw.every(Number.isFinite)).toBe(true);
    expect(angleBetween(sw, q)).toBeLessThan(1e-12);
  });

  it('slerp takes the shortest path', () => {
    const a = quat.setAxisAngle(q64(), [0, 1, 0], 170 * DEG2RAD);
    const b = quat.setAxisAngle(q64(), [0, 1, 0], -170 * DEG2RAD);
    const m = slerpShortest(q64(), a, b, 0.5);
    expect(angleBetween(m, quat.setAxisAngle(q64(), [0, 1, 0], Math.PI))).toBeLessThan(1e-9);
  });
});

describe('Skeleton and FK', () => {
  const skel = createSkeleton({
    names: ['root', 'a', 'b'],
    parents: [-1, 0, 1],
    restTranslations: [0, 1, 0, 0, 0.5, 0, 1, 0, 0],
    restRotations: [0, 0, 0, 1, 0, 0, Math.SQRT1_2, Math.SQRT1_2, 0, 0, 0, 1],
  });
  it('computes world positions (known answer) and inverts back to local rotations', () => {
    const w = restWorld(skel);
    // bone b: at a (0,1.5,0) plus Rz(90) * (1,0,0) = (0,1,0) -> (0, 2.5, 0)
    expect(Array.from(w.positions.slice(6, 9)).map((v) => +v.toFixed(12))).toEqual([0, 2.5, 0]);
    const local = new Float64Array(12);
    worldToLocalRotations(skel, w.rotations, local);
    for (let k = 0; k < 12; k++) expect(local[k]).toBeCloseTo(skel.restRotations[k], 12);
  });
  it('rejects bad structure with the bone named', () => {
    expect(() =>
      createSkeleton({
        names: ['x', 'y'],
        parents: [-1, 1],
        restTranslations: [0, 0, 0, 0, 0, 0],
        restRotations: [0, 0, 0, 1, 0, 0, 0, 1],
      }),
    ).toThrow(/bone 1 'y'/);
    expect(() =>
      createSkeleton({
        names: ['x'],
        parents: [-1],
        restTranslations: [0, Number.NaN, 0],
        restRotations: [0, 0, 0, 1],
      }),
    ).toThrow(SkeletonError);
  });
});

describe('Clip timing', () => {
  const skel = createSkeleton({
    names: ['r'],
    parents: [-1],
    restTranslations: [0, 0, 0],
    restRotations: [0, 0, 0, 1],
  });
  it('Frame Time 0.0083333 with 240 frames: fps 120.0005, 239-frame duration, clamps past the end', () => {
    const clip = createClip(skel, 240, 0.0083333);
    expect(clipFps(clip)).toBeCloseTo(120.0005, 4);
    expect(clipDuration(clip) / clip.frameTime).toBeCloseTo(239, 9);
    expect(frameIndexAt(clip, 1e6)).toBe(239);
    expect(frameIndexAt(clip, -3)).toBe(0);
    expect(frameIndexAt(clip, 2 * 0.0083333)).toBe(2);
  });
  it('samples between frames by slerp and clamps at both ends', () => {
    const clip = createClip(skel, 3, 0.5);
    quat.setAxisAngle(clip.rotations.subarray(4, 8), [0, 1, 0], Math.PI / 2);
    clip.translations[3] = 2;
    const r = new Float64Array(4);
    const p = new Float64Array(3);
    sampleClip(clip, 0.25, r, p);
    expect(angleBetween(r, quat.setAxisAngle(q64(), [0, 1, 0], Math.PI / 4))).toBeLessThan(1e-6);
    expect(p[0]).toBeCloseTo(1, 6);
    sampleClip(clip, 99, r, p);
    expect(Array.from(r)).toEqual([0, 0, 0, 1]);
  });
});
