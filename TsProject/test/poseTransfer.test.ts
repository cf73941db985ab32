/**
 * PoseTransfer (1:N avatar sync) and OffsetTransfer (1:1 by bone pairs) on synthetic skeletons:
 * known answers, self-copy round trips, world-space hips offsets, scale sync, errors, allocation.
 */
import * as path from 'node:path';
import fc from 'fast-check';
import { quat, vec3 } from 'gl-matrix';
import {
  angleBetween,
  createSkeleton,
  forwardKinematics,
  HumanBodyBones as H,
  HUMAN_BONE_NAMES,
  quat64,
  readQuat,
  restWorld,
  type Skeleton,
  vec64,
  vectorAngle,
} from '../src/core';
import { OffsetTransfer, PoseTransfer, PoseTransferError } from '../src/rig/poseTransfer';
import { runAllocProbe } from './helpers/allocProbe';
import { makeHumanoid } from './helpers/humanoid';

/** A deterministic random generator in [0, 1). */
function rng(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}

/** A random local pose: every bone's rest rotation turned by up to `maxAngle`, hips moved about. */
function randomPose(s: Skeleton, seed: number, maxAngle = 1.2): { rot: Float64Array; pos: Float64Array } {
  const rnd = rng(seed);
  const rot = Float64Array.from(s.restRotations);
  const pos = Float64Array.from(s.restTranslations);
  const q = quat64();
  const r = quat64();
  const axis = vec64();
  for (let i = 0; i < s.boneCount; i++) {
    vec3.normalize(axis, [rnd() - 0.5, rnd() - 0.5, rnd() - 0.5]);
    quat.setAxisAngle(q, axis, (rnd() - 0.5) * 2 * maxAngle);
    readQuat(r, s.restRotations, i);
    quat.multiply(q, r, q);
    rot.set(q, 4 * i);
  }
  const h = s.humanoid[H.Hips];
  pos[3 * h] = (rnd() - 0.5) * 4;
  pos[3 * h + 1] *= 0.8 + 0.3 * rnd();
  pos[3 * h + 2] = (rnd() - 0.5) * 4;
  return { rot, pos };
}

/**
 * World pose as a host shows it: `scale` on the hips node and `headScale` on the head node multiply the
 * translations of every bone below them (glTF node T * R * S).
 */
function hostWorld(
  s: Skeleton,
  rot: ArrayLike<number>,
  pos: ArrayLike<number>,
  scale: number,
  headScale: number,
): { r: Float64Array; p: Float64Array } {
  const n = s.boneCount;
  const r = new Float64Array(4 * n);
  const p = new Float64Array(3 * n);
  const c = new Float64Array(n);
  const q = quat64();
  const pq = quat64();
  const v = vec64();
  for (let i = 0; i < n; i++) {
    const own = (i === s.humanoid[H.Hips] ? scale : 1) * (i === s.humanoid[H.Head] ? headScale : 1);
    const par = s.parents[i];
    readQuat(q, rot, i);
    v[0] = pos[3 * i];
    v[1] = pos[3 * i + 1];
    v[2] = pos[3 * i + 2];
    if (par < 0) {
      r.set(q, 4 * i);
      p.set(v, 3 * i);
      c[i] = own;
      continue;
    }
    readQuat(pq, r, par);
    quat.multiply(q, pq, q);
    r.set(q, 4 * i);
    vec3.scale(v, v, c[par]);
    vec3.transformQuat(v, v, pq);
    p.set([v[0] + p[3 * par], v[1] + p[3 * par + 1], v[2] + p[3 * par + 2]], 3 * i);
    c[i] = c[par] * own;
  }
  return { r, p };
}

/** A copy of `s` with a bone appended (a leaf under `parent`). */
function withLeaf(s: Skeleton, name: string, parent: string, offset: number[]): Skeleton {
  return createSkeleton({
    names: [...s.names, name],
    parents: [...s.parents, s.names.indexOf(parent)],
    restTranslations: [...s.restTranslations, ...offset],
    restRotations: [...s.restRotations, 0, 0, 0, 1],
    humanoid: s.humanoid,
  });
}

/**
 * A copy of `s` where `bone` hangs directly off `newParent` (an earlier bone) with the same rest world
 * transform: an IK-style rig whose foot is not below its shin.
 */
function reparent(s: Skeleton, bone: string, newParent: string): Skeleton {
  const b = s.names.indexOf(bone);
  const np = s.names.indexOf(newParent);
  const w = restWorld(s);
  const parents = Array.from(s.parents);
  parents[b] = np;
  const rot = Float64Array.from(s.restRotations);
  const tr = Float64Array.from(s.restTranslations);
  const inv = quat.invert(quat64(), readQuat(quat64(), w.rotations, np));
  rot.set(quat.multiply(quat64(), inv, readQuat(quat64(), w.rotations, b)), 4 * b);
  const d = vec3.sub(
    vec64(),
    w.positions.subarray(3 * b, 3 * b + 3),
    w.positions.subarray(3 * np, 3 * np + 3),
  );
  tr.set(vec3.transformQuat(d, d, inv), 3 * b);
  return createSkeleton({
    names: s.names,
    parents,
    restTranslations: tr,
    restRotations: rot,
    humanoid: s.humanoid,
  });
}

function worldOf(s: Skeleton, rot: ArrayLike<number>, pos: ArrayLike<number>) {
  const r = new Float64Array(4 * s.boneCount);
  const p = new Float64Array(3 * s.boneCount);
  forwardKinematics(s, rot, pos, r, p);
  return { r, p };
}

function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let k = 0; k < a.length; k++) m = Math.max(m, Math.abs(a[k] - b[k]));
  return m;
}

function maxAngle(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let k = 0; k < a.length; k += 4)
    m = Math.max(m, angleBetween(Array.from(a).slice(k, k + 4), Array.from(b).slice(k, k + 4)));
  return m;
}

const bone = (s: Skeleton, h: keyof typeof H) => s.humanoid[H[h]];

describe('PoseTransfer', () => {
  it('onto a copy of the source reproduces local rotations (1e-6) and translations, both hips modes', () => {
    for (const spec of [
      { twistRest: 0.9, spineBones: 4 },
      { pose: 'A' as const, spineBones: 2 },
    ]) {
      const s = makeHumanoid(spec);
      const pt = new PoseTransfer(s);
      pt.addTarget('room', makeHumanoid(spec));
      pt.addTarget('scaled', makeHumanoid(spec), { hipsMode: 'scaled' });
      pt.calibrate();
      for (let seed = 1; seed <= 20; seed++) {
        const { rot, pos } = randomPose(s, seed);
        pt.update(rot, pos);
        for (const id of ['room', 'scaled']) {
          const out = pt.output(id);
          expect(maxAngle(out.rotations, rot)).toBeLessThan(1e-6);
          expect(maxDiff(out.translations, pos)).toBeLessThan(1e-9);
          expect([out.scale, out.headScale]).toEqual([1, 1]);
        }
      }
    }
  });

  it('drives a differently shaped avatar so its limb segments point as the source segments (A-pose target)', () => {
    const src = makeHumanoid({ spineBones: 4 });
    const tgt = makeHumanoid({ pose: 'A', legs: 1.2, arms: 0.8, twistRest: 0.5, spineBones: 2 });
    const pt = new PoseTransfer(src);
    pt.addTarget('a', tgt, { hipsOffset: [1, 0, 0], scale: 1.3 });
    pt.calibrate();
    const limbs: [keyof typeof H, keyof typeof H][] = [
      ['LeftUpperArm', 'LeftLowerArm'],
      ['RightLowerArm', 'RightHand'],
      ['LeftUpperLeg', 'LeftLowerLeg'],
      ['RightLowerLeg', 'RightFoot'],
      ['LeftFoot', 'LeftToes'],
    ];
    const direction = (s: Skeleton, p: Float64Array, a: keyof typeof H, b: keyof typeof H) =>
      vec3.sub(vec64(), p.subarray(3 * bone(s, b)), p.subarray(3 * bone(s, a)));
    let worstLimb = 0;
    let worstSpine = 0;
    let spineVsRetargeter = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const { rot, pos } = randomPose(src, seed, 0.8);
      pt.update(rot, pos);
      const sw = worldOf(src, rot, pos);
      const wp = pt.output('a').worldPositions;
      for (const [a, b] of limbs)
        worstLimb = Math.max(worstLimb, vectorAngle(direction(src, sw.p, a, b), direction(tgt, wp, a, b)));
      const spine = direction(tgt, wp, 'Hips', 'Neck');
      worstSpine = Math.max(worstSpine, vectorAngle(direction(src, sw.p, 'Hips', 'Neck'), spine));
      // the spine is the retargeter's chain fit; scale and offset do not change its direction
      const own = pt.retargeter('a').lastTargetWorldPositions;
      spineVsRetargeter = Math.max(
        spineVsRetargeter,
        vectorAngle(direction(tgt, own, 'Hips', 'Neck'), spine),
      );
    }
    expect((worstLimb * 180) / Math.PI).toBeLessThan(1e-6);
    expect((worstSpine * 180) / Math.PI).toBeLessThan(1);
    expect((spineVsRetargeter * 180) / Math.PI).toBeLessThan(1e-6);
  });

  it('applies the hips offset exactly in world space to every bone below the hips', () => {
    const s = makeHumanoid({ twistRest: 0.4 });
    const tgt = makeHumanoid({ pose: 'A', legs: 1.1 });
    const pt = new PoseTransfer(s);
    const offset: [number, number, number] = [0.75, 0.1, -0.3];
    pt.addTarget('plain', tgt);
    pt.addTarget('moved', tgt, { hipsOffset: offset });
    pt.addTarget('movedScaled', tgt, { hipsOffset: offset, hipsMode: 'scaled' });
    pt.addTarget('plainScaled', tgt, { hipsMode: 'scaled' });
    pt.calibrate();
    for (let seed = 1; seed <= 10; seed++) {
      const { rot, pos } = randomPose(s, seed);
      pt.update(rot, pos);
      for (const [a, b] of [
        ['plain', 'moved'],
        ['plainScaled', 'movedScaled'],
      ]) {
        const pa = pt.output(a).worldPositions;
        const pb = pt.output(b).worldPositions;
        for (let i = 0; i < tgt.boneCount; i++)
          for (let c = 0; c < 3; c++)
            expect(Math.abs(pb[3 * i + c] - pa[3 * i + c] - offset[c])).toBeLessThan(1e-12);
        expect(maxDiff(pt.output(a).rotations, pt.output(b).rotations)).toBe(0);
      }
    }
    // moving it later takes effect without recalibration
    pt.setTargetOptions('moved', { hipsOffset: [0, 0, 2] });
    pt.update(s.restRotations, s.restTranslations);
    const h = 3 * bone(tgt, 'Hips');
    expect(pt.output('moved').worldPositions[h + 2] - pt.output('plain').worldPositions[h + 2]).toBeCloseTo(
      2,
      12,
    );
  });

  it('reports world positions the host gets from the local outputs with scale and head scale on their nodes (IK-style foot included)', () => {
    const src = makeHumanoid();
    // target: an IK-style left foot hanging off the hips, and a head-top leaf to show the head scale
    const tgt = withLeaf(
      reparent(makeHumanoid({ pose: 'A', legs: 0.9 }), 'LeftFoot', 'Hips'),
      'HeadTop',
      'Head',
      [0, 0.2, 0],
    );
    const pt = new PoseTransfer(src);
    pt.addTarget('t', tgt, { scale: 1.3, headScaleSync: false, headScale: 1.5, hipsOffset: [0.2, 0, 0] });
    pt.addTarget('unit', tgt);
    pt.calibrate();
    for (let seed = 1; seed <= 10; seed++) {
      const { rot, pos } = randomPose(src, seed);
      pt.update(rot, pos);
      const out = pt.output('t');
      expect([out.scale, out.headScale]).toEqual([1.3, 1.5]);
      const host = hostWorld(tgt, out.rotations, out.translations, out.scale, out.headScale);
      expect(maxDiff(host.p, out.worldPositions)).toBeLessThan(1e-12);
      expect(maxAngle(host.r, out.worldRotations)).toBeLessThan(1e-7);
      // the foot follows its shin at the scaled distance, and the head top sits 1.3 * 1.5 * 0.2 above the head
      const wp = out.worldPositions;
      const dist = (a: number, b: number) =>
        vec3.distance(wp.subarray(3 * a, 3 * a + 3), wp.subarray(3 * b, 3 * b + 3));
      const unit = pt.output('unit').worldPositions;
      const distU = (a: number, b: number) =>
        vec3.distance(unit.subarray(3 * a, 3 * a + 3), unit.subarray(3 * b, 3 * b + 3));
      const foot = bone(tgt, 'LeftFoot');
      const shin = bone(tgt, 'LeftLowerLeg');
      expect(dist(shin, foot)).toBeCloseTo(1.3 * distU(shin, foot), 12);
      expect(dist(bone(tgt, 'Head'), tgt.names.indexOf('HeadTop'))).toBeCloseTo(1.3 * 1.5 * 0.2, 12);
      // rotations do not depend on scale
      expect(maxDiff(out.rotations, pt.output('unit').rotations)).toBe(0);
    }
  });

  it('root scale sync: off, follow (same factor as the source) and height (same standing hips height)', () => {
    const src = makeHumanoid();
    const tgt = makeHumanoid({ legs: 1.3, scale: 0.9 });
    const pt = new PoseTransfer(src);
    pt.addTarget('off', tgt, { scale: 1.1 });
    pt.addTarget('follow', tgt, { scale: 1.1, rootScaleSync: 'follow' });
    pt.addTarget('height', tgt, { rootScaleSync: 'height' });
    pt.addTarget('heightScaled', tgt, { rootScaleSync: 'height', hipsMode: 'scaled' });
    pt.calibrate();
    const srcScale = 1.4;
    pt.setSourceScale(srcScale, 1.25);
    // the source standing at its scale: hips translation scaled (the hips path carries the avatar scale)
    const pos = Float64Array.from(src.restTranslations);
    const h = bone(src, 'Hips');
    for (let c = 0; c < 3; c++) pos[3 * h + c] *= srcScale;
    pt.update(src.restRotations, pos);
    expect(pt.output('off').scale).toBe(1.1);
    expect(pt.output('follow').scale).toBeCloseTo(1.1 * 1.4, 15);
    // standing hips heights above the floor (rest poses stand with straight legs on y = 0)
    const hs = restWorld(src).positions[3 * h + 1];
    const ht = restWorld(tgt).positions[3 * bone(tgt, 'Hips') + 1];
    expect(pt.output('height').scale).toBeCloseTo((srcScale * hs) / ht, 12);
    for (const id of ['off', 'follow', 'height', 'heightScaled']) {
      const out = pt.output(id);
      // a standing source gives a standing target at its own scale: hips at scale * standing height,
      // feet on the floor (ankle at scale * rest ankle height)
      expect(out.worldPositions[3 * bone(tgt, 'Hips') + 1]).toBeCloseTo(out.scale * ht, 10);
      const ankle = restWorld(tgt).positions[3 * bone(tgt, 'LeftFoot') + 1];
      expect(out.worldPositions[3 * bone(tgt, 'LeftFoot') + 1]).toBeCloseTo(out.scale * ankle, 10);
      expect(out.headScale).toBe(1.25);
    }
    // 'height' puts the target hips exactly at the source hips in room mode, whatever the pose
    const { rot, pos: p2 } = randomPose(src, 5);
    pt.update(rot, p2);
    const sw = worldOf(src, rot, p2);
    for (let c = 0; c < 3; c++)
      expect(pt.output('height').worldPositions[3 * bone(tgt, 'Hips') + c]).toBeCloseTo(sw.p[3 * h + c], 12);
    // room mode moves the target hips by the source hips' displacement; scaled mode by k times it
    pt.setSourceScale(1, 1);
    pt.update(src.restRotations, src.restTranslations);
    const base = Float64Array.from(pt.output('off').worldPositions);
    const moved = Float64Array.from(src.restTranslations);
    moved[3 * h] += 0.5;
    pt.update(src.restRotations, moved);
    expect(pt.output('off').worldPositions[3 * bone(tgt, 'Hips')] - base[3 * bone(tgt, 'Hips')]).toBeCloseTo(
      0.5,
      12,
    );
  });

  it('head scale sync copies the source head scale; without it the target keeps its own', () => {
    const s = makeHumanoid();
    const pt = new PoseTransfer(s);
    pt.addTarget('sync', s);
    pt.addTarget('own', s, { headScaleSync: false, headScale: 0.8 });
    pt.calibrate();
    pt.setSourceScale(1, 2);
    pt.update(s.restRotations, s.restTranslations);
    expect([pt.output('sync').headScale, pt.output('own').headScale]).toEqual([2, 0.8]);
    pt.setTargetOptions('own', { headScaleSync: true });
    pt.update(s.restRotations, s.restTranslations);
    expect(pt.output('own').headScale).toBe(2);
    expect(pt.sourceHeadScale).toBe(2);
  });

  it('adds targets after calibration (calibrated on adding), removes targets, lists ids', () => {
    const s = makeHumanoid();
    const pt = new PoseTransfer(s);
    pt.addTarget('a', s);
    pt.calibrate();
    pt.addTarget('b', makeHumanoid({ pose: 'A' }), { hipsOffset: [1, 0, 0] });
    expect(pt.targetIds).toEqual(['a', 'b']);
    const { rot, pos } = randomPose(s, 3);
    pt.update(rot, pos);
    expect(pt.output('b').rotations.every(Number.isFinite)).toBe(true);
    pt.removeTarget('a');
    expect(pt.targetIds).toEqual(['b']);
    pt.update(rot, pos);
    expect(() => pt.output('a')).toThrow(/target 'a': no such target \(have: b\)/);
    expect(pt.retargeter('b').info?.sourceUp).toBe('+y');
  });

  it('rejects bad input with errors naming the target, field or bone', () => {
    const s = makeHumanoid();
    const pt = new PoseTransfer(s);
    expect(() => pt.update(s.restRotations, s.restTranslations)).toThrow(/before calibrate/);
    pt.addTarget('a', s);
    expect(() => pt.addTarget('a', s)).toThrow(/target 'a': already added/);
    expect(() => pt.addTarget('', s)).toThrow(PoseTransferError);
    expect(() => pt.addTarget('b', s, { hipsOffset: [1, 2] as unknown as [number, number, number] })).toThrow(
      /target 'b' hipsOffset: need three finite numbers/,
    );
    expect(() => pt.addTarget('b', s, { hipsOffset: [1, Number.NaN, 0] })).toThrow(/hipsOffset/);
    expect(() => pt.addTarget('b', s, { scale: 0 })).toThrow(
      /target 'b' scale: 0 is not a positive finite number/,
    );
    expect(() => pt.addTarget('b', s, { headScale: Number.POSITIVE_INFINITY })).toThrow(/headScale/);
    expect(() => pt.addTarget('b', s, { hipsMode: 'floor' as 'room' })).toThrow(/hipsMode: 'floor'/);
    expect(() => pt.addTarget('b', s, { rootScaleSync: 'on' as 'off' })).toThrow(/rootScaleSync: 'on'/);
    const noHips = createSkeleton({
      ...s,
      humanoid: Array.from(s.humanoid, (b, h) => (h === H.Hips ? -1 : b)),
    });
    expect(() => pt.addTarget('b', noHips)).toThrow(/target 'b': target skeleton has no Hips/);
    expect(() => new PoseTransfer(noHips)).toThrow(/source skeleton: no Hips/);
    expect(() => new PoseTransfer(s, { referencePose: 'A' as 'T' })).toThrow(/referencePose/);
    expect(pt.targetIds).toEqual(['a']);
    pt.calibrate();
    expect(() => pt.update(s.restRotations.subarray(4), s.restTranslations)).toThrow(
      new RegExp(`source pose rotations: length ${4 * s.boneCount - 4}, expected ${4 * s.boneCount}`),
    );
    expect(() => pt.update(s.restRotations, s.restTranslations.subarray(3))).toThrow(
      /source pose translations/,
    );
    const bad = Float64Array.from(s.restTranslations);
    bad[3 * bone(s, 'LeftHand') + 1] = Number.NaN;
    expect(() => pt.update(s.restRotations, bad)).toThrow(
      /source pose translation of bone 'LeftHand' is not finite/,
    );
    expect(() => pt.setSourceScale(-1)).toThrow(/source scale: -1/);
    expect(() => pt.setTargetOptions('zz', {})).toThrow(/target 'zz': no such target/);
    expect(() => pt.setTargetOptions('a', { scale: -2 })).toThrow(/scale/);
    expect(() => pt.removeTarget('zz')).toThrow(/no such target/);
    expect(() => pt.calibrate({ rotations: [1, 2], translations: [] })).toThrow(
      /calibration frame rotations/,
    );
  });
});

describe('OffsetTransfer', () => {
  const humanPairs = (s: Skeleton, t: Skeleton) =>
    HUMAN_BONE_NAMES.map((_, h) => h)
      .filter((h) => s.humanoid[h] >= 0 && t.humanoid[h] >= 0)
      .map((h) => ({ source: s.names[s.humanoid[h]], target: t.names[t.humanoid[h]] }));

  it('identity-offset pairs copy world rotations (random poses)', () => {
    const s = makeHumanoid({ twistRest: 0.6 });
    const t = makeHumanoid({ twistRest: 0.6, prefix: 'tgt:' });
    const ot = new OffsetTransfer(s, t, humanPairs(s, t));
    ot.calibrate();
    for (let k = 0; k < ot.offsets.length; k += 4)
      expect(angleBetween(ot.offsets.subarray(k, k + 4), [0, 0, 0, 1])).toBeLessThan(1e-12);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e6 }), (seed) => {
        const { rot, pos } = randomPose(s, seed);
        ot.update(rot, pos);
        const sw = worldOf(s, rot, pos);
        for (const p of ot.pairs) {
          const a = sw.r.subarray(4 * p.source, 4 * p.source + 4);
          const b = ot.worldRotations.subarray(4 * p.target, 4 * p.target + 4);
          if (angleBetween(a, b) > 1e-9) return false;
        }
        // every bone is paired here, so the local rotations are the source's too
        return maxAngle(ot.rotations, rot) < 1e-9;
      }),
      { numRuns: 50 },
    );
  });

  it('a rotated target frame keeps the relative offset: turning the source root by Q turns every paired target bone by Q', () => {
    const s = makeHumanoid();
    // target: the same body rotated 90 degrees about Y at its root, with different rest frames
    const t0 = makeHumanoid({ twistRest: 0.8, pose: 'A' });
    const rootRot = Float64Array.from(t0.restRotations);
    quat.multiply(
      rootRot.subarray(0, 4),
      quat.setAxisAngle(quat64(), [0, 1, 0], Math.PI / 2),
      rootRot.subarray(0, 4),
    );
    const t = createSkeleton({ ...t0, restRotations: rootRot });
    const pairs = humanPairs(s, t);
    const ot = new OffsetTransfer(s, t, pairs);
    ot.calibrate();
    const tw0 = restWorld(t).rotations;
    // known offsets: inverse(sourceWorld) * targetWorld at calibration
    const sw0 = restWorld(s).rotations;
    ot.pairs.forEach((p, k) => {
      const want = quat.multiply(
        quat64(),
        quat.invert(quat64(), readQuat(quat64(), sw0, p.source)),
        readQuat(quat64(), tw0, p.target),
      );
      expect(angleBetween(ot.offsets.subarray(4 * k, 4 * k + 4), want)).toBeLessThan(1e-12);
    });
    const Q = quat.setAxisAngle(quat64(), vec3.normalize(vec64(), [1, 2, -0.5]), 1.1);
    const rot = Float64Array.from(s.restRotations);
    quat.multiply(rot.subarray(0, 4), Q, rot.subarray(0, 4));
    ot.update(rot, s.restTranslations);
    for (const p of ot.pairs) {
      const want = quat.multiply(quat64(), Q, readQuat(quat64(), tw0, p.target));
      expect(angleBetween(ot.worldRotations.subarray(4 * p.target, 4 * p.target + 4), want)).toBeLessThan(
        1e-12,
      );
    }
    // and for any pose, inverse(sourceWorld) * targetWorld stays the calibrated offset
    for (let seed = 1; seed <= 20; seed++) {
      const { rot: r2, pos } = randomPose(s, seed);
      ot.update(r2, pos);
      const sw = worldOf(s, r2, pos);
      ot.pairs.forEach((p, k) => {
        const rel = quat.multiply(
          quat64(),
          quat.invert(quat64(), readQuat(quat64(), sw.r, p.source)),
          readQuat(quat64(), ot.worldRotations, p.target),
        );
        expect(angleBetween(rel, ot.offsets.subarray(4 * k, 4 * k + 4))).toBeLessThan(1e-9);
      });
    }
  });

  it('unpaired target bones keep their local rotation and translation (calibration pose or the given pose)', () => {
    const s = makeHumanoid();
    const t = makeHumanoid({ pose: 'A', twistRest: 0.3 });
    const pairs = ['LeftArm', 'LeftForeArm', 'RightArm', 'Spine'].map((n) => ({ source: n, target: n }));
    const ot = new OffsetTransfer(s, t, pairs);
    const tp = randomPose(t, 11);
    ot.calibrate(undefined, { rotations: tp.rot, translations: tp.pos });
    const { rot, pos } = randomPose(s, 12);
    ot.update(rot, pos);
    const paired = new Set(ot.pairs.map((p) => p.target));
    const own = randomPose(t, 13);
    for (const [base, args] of [
      [tp, [] as Float64Array[]],
      [own, [own.rot, own.pos]],
    ] as const) {
      ot.update(rot, pos, ...(args as [Float64Array?, Float64Array?]));
      for (let i = 0; i < t.boneCount; i++) {
        if (paired.has(i)) continue;
        for (let c = 0; c < 4; c++) expect(ot.rotations[4 * i + c]).toBe(base.rot[4 * i + c]);
      }
      expect(maxDiff(ot.translations, base.pos)).toBe(0);
      // outputs are consistent with FK
      const w = worldOf(t, ot.rotations, ot.translations);
      expect(maxDiff(w.p, ot.worldPositions)).toBeLessThan(1e-12);
      expect(maxAngle(w.r, ot.worldRotations)).toBeLessThan(1e-9);
    }
  });

  it('position pairs place the target bone at sourcePos + sourceWorld * positionOffset', () => {
    const s = makeHumanoid();
    const t = makeHumanoid({ legs: 1.2, twistRest: 0.5 });
    const ot = new OffsetTransfer(s, t, [
      { source: 'Hips', target: 'Hips', position: true },
      { source: 'LeftHand', target: 'LeftHand', position: true },
      { source: 'LeftArm', target: 'LeftArm' },
    ]);
    ot.calibrate();
    // at the calibration pose the target is where it was
    ot.update(s.restRotations, s.restTranslations);
    expect(maxDiff(ot.worldPositions, restWorld(t).positions)).toBeLessThan(1e-12);
    expect(ot.positionOffsets[1]).toBeCloseTo(1.2 - 1.0, 12); // hips: 0.2 m above the source hips
    for (let seed = 1; seed <= 10; seed++) {
      const { rot, pos } = randomPose(s, seed);
      ot.update(rot, pos);
      const sw = worldOf(s, rot, pos);
      ot.pairs.forEach((p, k) => {
        if (!p.position) return;
        const want = vec3.transformQuat(
          vec64(),
          ot.positionOffsets.subarray(3 * k, 3 * k + 3),
          readQuat(quat64(), sw.r, p.source),
        );
        vec3.add(want, want, sw.p.subarray(3 * p.source, 3 * p.source + 3));
        expect(maxDiff(ot.worldPositions.subarray(3 * p.target, 3 * p.target + 3), want)).toBeLessThan(1e-12);
      });
      const w = worldOf(t, ot.rotations, ot.translations);
      expect(maxDiff(w.p, ot.worldPositions)).toBeLessThan(1e-12);
    }
  });

  it('gives the same result for pairs by index, in any order', () => {
    const s = makeHumanoid();
    const t = makeHumanoid({ pose: 'A' });
    const byName = humanPairs(s, t);
    const byIndex = byName
      .map((p) => ({ source: s.names.indexOf(p.source), target: t.names.indexOf(p.target) }))
      .reverse();
    const a = new OffsetTransfer(s, t, byName);
    const b = new OffsetTransfer(s, t, byIndex);
    a.calibrate();
    b.calibrate();
    const { rot, pos } = randomPose(s, 9);
    a.update(rot, pos);
    b.update(rot, pos);
    expect(maxDiff(a.rotations, b.rotations)).toBe(0);
    expect(b.pairs.map((p) => p.target)).toEqual([...b.pairs.map((p) => p.target)].sort((x, y) => x - y));
  });

  it('rejects unknown, ambiguous or out-of-range bones, duplicate targets and bad poses', () => {
    const s = makeHumanoid();
    const t = makeHumanoid({ prefix: 'mixamorig:' });
    expect(() => new OffsetTransfer(s, t, [])).toThrow(/no bone pairs/);
    expect(() => new OffsetTransfer(s, t, [{ source: 'Hips', target: 'Hips' }])).toThrow(
      /bone pair 0: target bone 'Hips' is not in the target skeleton \(did you mean 'mixamorig:Hips'\?\)/,
    );
    expect(() => new OffsetTransfer(s, t, [{ source: 'Pelvis', target: 0 }])).toThrow(
      /bone pair 0: source bone 'Pelvis' is not in the source skeleton$/,
    );
    expect(() => new OffsetTransfer(s, t, [{ source: 0, target: 999 }])).toThrow(
      new RegExp(`target bone index 999 is not a bone \\(the target has bones 0..${t.boneCount - 1}\\)`),
    );
    expect(() => new OffsetTransfer(s, t, [{ source: 1.5, target: 0 }])).toThrow(/source bone index 1.5/);
    expect(
      () =>
        new OffsetTransfer(s, t, [
          { source: 'LeftArm', target: 'mixamorig:LeftArm' },
          { source: 'Hips', target: 'mixamorig:Hips' },
          { source: 'RightArm', target: 'mixamorig:LeftArm' },
        ]),
    ).toThrow(/bone pairs 0 and 2 both drive target bone 'mixamorig:LeftArm'/);
    const dup = createSkeleton({
      ...t,
      names: t.names.map((n) => (n === 'mixamorig:RightFoot' ? 'mixamorig:LeftFoot' : n)),
    });
    expect(() => new OffsetTransfer(s, dup, [{ source: 'LeftFoot', target: 'mixamorig:LeftFoot' }])).toThrow(
      /target bone name 'mixamorig:LeftFoot' is ambiguous \(bones \d+ and \d+ share it\); give the index/,
    );
    const ot = new OffsetTransfer(s, t, [{ source: 'Hips', target: 'mixamorig:Hips' }]);
    expect(() => ot.update(s.restRotations, s.restTranslations)).toThrow(/before calibrate/);
    ot.calibrate();
    expect(() => ot.update(s.restRotations, s.restTranslations, t.restRotations.subarray(4))).toThrow(
      /target pose rotations: length/,
    );
    expect(() => ot.calibrate({ rotations: s.restRotations, translations: [] })).toThrow(
      /source calibration pose translations/,
    );
    const bad = Float64Array.from(s.restRotations);
    bad[4 * bone(s, 'Head')] = Number.POSITIVE_INFINITY;
    expect(() => ot.update(bad, s.restTranslations)).toThrow(
      /source pose rotation of bone 'Head' is not finite/,
    );
  });
});

describe('per-frame cost', () => {
  it('PoseTransfer.update and OffsetTransfer.update allocate nothing', () => {
    const r = runAllocProbe(`
      import { PoseTransfer, OffsetTransfer } from ${JSON.stringify(path.resolve(__dirname, '../src/rig/poseTransfer'))};
      import { makeHumanoid } from ${JSON.stringify(path.resolve(__dirname, 'helpers/humanoid'))};
      const src = makeHumanoid({ spineBones: 4 });
      const pt = new PoseTransfer(src);
      pt.addTarget('a', makeHumanoid({ pose: 'A', spineBones: 2, twistRest: 0.4 }), { hipsOffset: [1, 0, 0], rootScaleSync: 'height' });
      pt.addTarget('b', makeHumanoid({ legs: 1.2 }), { hipsMode: 'scaled', scale: 1.2, headScaleSync: false, headScale: 1.1 });
      pt.calibrate();
      pt.setSourceScale(1.1, 1.3);
      const sr = new Float32Array(src.restRotations), sp = new Float32Array(src.restTranslations);
      result.poseTransfer = bytesPerCall(() => pt.update(sr, sp), 5000);
      const tgt = makeHumanoid({ pose: 'A', prefix: 't_' });
      const ot = new OffsetTransfer(src, tgt, [
        { source: 'Hips', target: 't_Hips', position: true },
        { source: 'LeftArm', target: 't_LeftArm' },
        { source: 'LeftForeArm', target: 't_LeftForeArm' },
      ]);
      ot.calibrate();
      const tr = new Float64Array(tgt.restRotations), tp = new Float64Array(tgt.restTranslations);
      result.offsetTransfer = bytesPerCall(() => ot.update(sr, sp, tr, tp), 5000);
    `);
    expect(r.poseTransfer).toBeLessThan(1);
    expect(r.offsetTransfer).toBeLessThan(1);
  });
});
