import * as path from 'node:path';
import fc from 'fast-check';
import { quat, vec3 } from 'gl-matrix';
import {
  angleBetween,
  createSkeleton,
  forwardKinematics,
  HumanBodyBones as H,
  quat64,
  type Skeleton,
} from '../src/core';
import { ArmIK, DEFAULT_ARM_BEND, humanoidLimb, IKError, type Limb, LimbGoal } from '../src/ik';
import { runAllocProbe } from './helpers/allocProbe';
import { makeHumanoid } from './helpers/humanoid';

type V = [number, number, number];
const sub = (a: V, b: V): V => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const add = (a: V, b: V): V => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
const mul = (a: V, k: number): V => [a[0] * k, a[1] * k, a[2] * k];
const dot = (a: V, b: V) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const norm = (a: V) => Math.hypot(a[0], a[1], a[2]);
const unit = (a: V): V => mul(a, 1 / norm(a));
const cross = (a: V, b: V): V => [
  a[1] * b[2] - a[2] * b[1],
  a[2] * b[0] - a[0] * b[2],
  a[0] * b[1] - a[1] * b[0],
];
const perp = (a: V, u: V): V => sub(a, mul(u, dot(a, u)));
const angle = (a: V, b: V) => Math.atan2(norm(cross(a, b)), dot(a, b));
const at = (P: ArrayLike<number>, i: number): V => [P[3 * i], P[3 * i + 1], P[3 * i + 2]];
const rotAt = (W: ArrayLike<number>, i: number) => quat64(W[4 * i], W[4 * i + 1], W[4 * i + 2], W[4 * i + 3]);
/** `q v q*` */
function rotate(q: ArrayLike<number>, v: V): V {
  const t = vec3.transformQuat(new Float64Array(3), Float64Array.from(v), q as quat);
  return [t[0], t[1], t[2]];
}
const finiteAll = (a: ArrayLike<number>) => Array.from(a).every(Number.isFinite);

/** Deterministic generator (mulberry32) for poses inside fast-check properties (seeded by fc). */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
function randomUnit(r: () => number): V {
  for (;;) {
    const v: V = [2 * r() - 1, 2 * r() - 1, 2 * r() - 1];
    const l = norm(v);
    if (l > 0.1 && l <= 1) return mul(v, 1 / l);
  }
}

/** A posed skeleton: local rotations (rest, then changed by `turn`), world W/P by FK. */
class Pose {
  readonly local: Float64Array;
  W: Float64Array;
  P: Float64Array;
  constructor(readonly s: Skeleton) {
    this.local = Float64Array.from(s.restRotations);
    this.W = new Float64Array(4 * s.boneCount);
    this.P = new Float64Array(3 * s.boneCount);
    this.fk();
  }
  /** Local rotation of `bone` := rest * axisAngle(axis, angle) (about the bone's rest axes). */
  turn(bone: number, axis: V, a: number): this {
    const q = quat.setAxisAngle(quat64(), unit(axis), a);
    const rest = rotAt(this.s.restRotations, bone);
    const out = quat.multiply(quat64(), rest, q);
    this.local.set(out, 4 * bone);
    return this.fk();
  }
  fk(): this {
    forwardKinematics(this.s, this.local, this.s.restTranslations, this.W, this.P);
    return this;
  }
  copy(): { W: Float64Array; P: Float64Array } {
    return { W: Float64Array.from(this.W), P: Float64Array.from(this.P) };
  }
}

/**
 * What the hub does after a solve: every bone not written keeps its local rotation, positions follow
 * from the parents' world rotations. Returns the recomputed world positions.
 */
function hubRecompute(
  s: Skeleton,
  local: Float64Array,
  Wsolved: Float64Array,
  written: number[],
): Float64Array {
  const W = new Float64Array(4 * s.boneCount);
  const P = new Float64Array(3 * s.boneCount);
  for (let i = 0; i < s.boneCount; i++) {
    const p = s.parents[i];
    if (p < 0) {
      W.set(local.subarray(4 * i, 4 * i + 4), 4 * i);
      P.set(s.restTranslations.subarray(3 * i, 3 * i + 3), 3 * i);
      continue;
    }
    const qp = rotAt(W, p);
    const r = rotate(qp, at(s.restTranslations, i));
    P[3 * i] = P[3 * p] + r[0];
    P[3 * i + 1] = P[3 * p + 1] + r[1];
    P[3 * i + 2] = P[3 * p + 2] + r[2];
    if (written.includes(i)) W.set(Wsolved.subarray(4 * i, 4 * i + 4), 4 * i);
    else W.set(quat.multiply(quat64(), qp, rotAt(local, i)), 4 * i);
  }
  return P;
}

const s = makeHumanoid();
const limb = humanoidLimb(s, 'LeftArm');
const chest = s.humanoid[H.UpperChest];
const L1 = 0.28;
const L2 = 0.25;

function calibrated(skel = s, l: Limb = limb): ArmIK {
  const arm = new ArmIK(skel, l, 'left');
  const rest = new Pose(skel);
  arm.calibrate(rest.W, rest.P);
  return arm;
}

/** A random body and arm pose: chest and hips turned, arm bones turned about random axes. */
function randomPose(seed: number, maxArm = 2.5): Pose {
  const r = rng(seed);
  const p = new Pose(s);
  p.turn(s.humanoid[H.Hips], [0, 1, 0], (2 * r() - 1) * Math.PI);
  p.turn(chest, randomUnit(r), 0.5 * r());
  p.turn(limb.upper, randomUnit(r), maxArm * r());
  p.turn(limb.lower, randomUnit(r), maxArm * r());
  p.turn(limb.end, randomUnit(r), 1.5 * r());
  return p;
}

/** The test humanoid with the left forearm as long as the upper arm (L1 = L2 = 0.28). */
function equalArm(): { skel: Skeleton; l: Limb } {
  const off = Float64Array.from(s.restTranslations);
  off[3 * s.humanoid[H.LeftHand]] = L1;
  const skel = createSkeleton({ ...s, restTranslations: off });
  return { skel, l: humanoidLimb(skel, 'LeftArm') };
}

function goalAt(target: V, bend: V = [0, 0, 0], weights: V = [1, 0, 0]): LimbGoal {
  const g = new LimbGoal();
  g.targetPosition.set(target);
  g.bendGoal.set(bend);
  g.weights.set(weights);
  return g;
}

describe('ArmIK: reach', () => {
  it('reaches reachable targets within 0.1 mm (random poses, targets, bend goals and weights)', () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (seed, distFrac, wb) => {
          const arm = calibrated();
          const p = randomPose(seed);
          const r = rng(seed ^ 0x5bd1e995);
          const S = at(p.P, limb.upper);
          const d = L1 - L2 + distFrac * (2 * L2); // the whole reachable range [L1 - L2, L1 + L2]
          const T = add(S, mul(randomUnit(r), d));
          const bend = add(S, mul(randomUnit(r), 0.5 * r()));
          const g = goalAt(T, bend, [1, 0, wb]);
          arm.solve(p.W, p.P, g);
          expect(finiteAll(p.W) && finiteAll(p.P)).toBe(true);
          expect(norm(sub(at(p.P, limb.end), T))).toBeLessThan(1e-4);
          // bone lengths kept
          expect(norm(sub(at(p.P, limb.lower), S))).toBeCloseTo(L1, 12);
          expect(norm(sub(at(p.P, limb.end), at(p.P, limb.lower)))).toBeCloseTo(L2, 12);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reaches within 1e-12 m (not just 0.1 mm) and the hub recomputation puts the joints where the solver wrote them', () => {
    let worst = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const arm = calibrated();
      const p = randomPose(seed);
      const r = rng(seed);
      const S = at(p.P, limb.upper);
      const T = add(S, mul(randomUnit(r), 0.04 + 0.48 * r()));
      arm.solve(p.W, p.P, goalAt(T, add(S, randomUnit(r)), [1, 0, r()]));
      worst = Math.max(worst, norm(sub(at(p.P, limb.end), T)));
      const Pr = hubRecompute(s, p.local, p.W, [limb.upper, limb.lower, limb.end]);
      for (const b of [limb.lower, limb.end]) expect(norm(sub(at(Pr, b), at(p.P, b)))).toBeLessThan(1e-12);
    }
    expect(worst).toBeLessThan(1e-12);
  });

  it.each([
    ['exactly at full reach', 0],
    ['1e-12 m beyond full reach', 1e-12],
    ['1 m beyond', 1],
    ['1e6 m beyond', 1e6],
    ['1e200 m away', 1e200],
  ])('a target %s gives a straight arm pointing at it, no NaN', (_name, beyond) => {
    const arm = calibrated();
    const p = randomPose(7);
    const S = at(p.P, limb.upper);
    const u = unit([0.3, -0.5, 0.8]);
    const T = add(S, mul(u, L1 + L2 + beyond));
    arm.solve(p.W, p.P, goalAt(T, add(S, [0, -1, 0]), [1, 0, 1]));
    expect(finiteAll(p.W) && finiteAll(p.P)).toBe(true);
    const E = at(p.P, limb.lower);
    const F = at(p.P, limb.end);
    expect(angle(sub(E, S), u)).toBeLessThan(1e-7);
    expect(angle(sub(F, E), u)).toBeLessThan(1e-7);
    expect(norm(sub(F, add(S, mul(u, L1 + L2))))).toBeLessThan(1e-9);
  });

  it.each([
    ['half the minimum distance', 0.5],
    ['just inside the minimum', 1 - 1e-12],
    ['exactly the minimum', 1],
  ])('a target closer than |L1 - L2| (%s) folds the arm to the nearest reachable point', (_n, frac) => {
    const arm = calibrated();
    const p = randomPose(11);
    const S = at(p.P, limb.upper);
    const u = unit([-0.2, 0.4, 0.9]);
    const T = add(S, mul(u, frac * (L1 - L2)));
    arm.solve(p.W, p.P, goalAt(T));
    expect(finiteAll(p.W) && finiteAll(p.P)).toBe(true);
    expect(norm(sub(at(p.P, limb.end), add(S, mul(u, L1 - L2))))).toBeLessThan(1e-9);
    expect(norm(sub(at(p.P, limb.lower), add(S, mul(u, L1))))).toBeLessThan(1e-6);
  });

  it('folds an arm with equal bone lengths to the shoulder without NaN', () => {
    const { skel, l } = equalArm();
    const arm = calibrated(skel, l);
    const p = new Pose(skel);
    const S = at(p.P, l.upper);
    for (const d of [1e-3, 1e-9, 1e-15, 0]) {
      arm.solve(p.W, p.P, goalAt(add(S, [0, 0, d])));
      expect(finiteAll(p.W) && finiteAll(p.P)).toBe(true);
      expect(norm(sub(at(p.P, l.end), add(S, [0, 0, d])))).toBeLessThan(1e-9);
      expect(norm(sub(at(p.P, l.lower), S))).toBeCloseTo(L1, 12);
      p.fk();
    }
  });
});

describe('ArmIK: bend direction', () => {
  it('puts the elbow on the bend goal side (weight 1, goal off the line by more than the falloff)', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const arm = calibrated();
        const p = randomPose(seed);
        const r = rng(seed);
        const S = at(p.P, limb.upper);
        const u = randomUnit(r);
        const T = add(S, mul(u, 0.1 + 0.4 * r()));
        const side = unit(perp(randomUnit(r), u));
        const bend = add(add(S, mul(u, r() - 0.5)), mul(side, 0.06 + r()));
        arm.solve(p.W, p.P, goalAt(T, bend, [1, 0, 1]));
        const e = perp(sub(at(p.P, limb.lower), S), u);
        expect(angle(e, side)).toBeLessThan(1e-9);
      }),
      { numRuns: 200 },
    );
  });

  it('with bend-goal weight 0, solving for the FK hand position gives back the FK pose', () => {
    for (let seed = 1; seed <= 100; seed++) {
      const arm = calibrated();
      const p = new Pose(s);
      const r = rng(seed);
      p.turn(s.humanoid[H.Hips], [0, 1, 0], 6 * r());
      p.turn(limb.upper, randomUnit(r), 2 * r());
      p.turn(limb.lower, [0, 1, 0], 0.5 + 1.5 * r()); // an elbow bent well away from straight
      const fk = p.copy();
      arm.solve(p.W, p.P, goalAt(at(fk.P, limb.end), [9, 9, 9], [1, 0, 0]));
      for (const b of [limb.upper, limb.lower, limb.end]) {
        expect(norm(sub(at(p.P, b), at(fk.P, b)))).toBeLessThan(1e-12);
        expect(angleBetween(rotAt(p.W, b), rotAt(fk.W, b))).toBeLessThan(1e-7);
      }
    }
  });

  it('hands over continuously to the T-pose direction as the goal moves onto the shoulder -> target line', () => {
    const arm = calibrated();
    const p = new Pose(s);
    const S = at(p.P, limb.upper);
    const u = unit([0, 0.2, 1]); // reaching forward
    const T = add(S, mul(u, 0.4));
    const side: V = unit(perp([1, 0, 0], u));
    const tpose = unit(perp(DEFAULT_ARM_BEND as V, u));
    let prev: V | null = null;
    let maxStep = 0;
    const steps = 2000;
    const rFall = 0.1 * (L1 + L2);
    for (let k = steps; k >= 0; k--) {
      const off = (0.2 * k) / steps;
      const pp = new Pose(s);
      arm.solve(pp.W, pp.P, goalAt(T, add(add(S, mul(u, 0.2)), mul(side, off)), [1, 0, 1]));
      const E = at(pp.P, limb.lower);
      if (prev) maxStep = Math.max(maxStep, norm(sub(E, prev)));
      prev = E;
      const dir = perp(sub(E, S), u);
      if (off >= rFall) expect(angle(dir, side)).toBeLessThan(1e-9);
      if (k === 0) expect(angle(dir, tpose)).toBeLessThan(1e-9);
    }
    // the elbow sweeps a quarter circle of radius < L1 over 2000 steps: no step jumps
    expect(maxStep).toBeLessThan(2e-3);
  });

  it('never flips the elbow under 0.1 mm of target jitter when the bend goal is parallel to the target direction', () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.double({ min: -2, max: 3, noNaN: true }),
        fc.constantFrom<'fk-bent' | 'fk-straight-w0.5' | 'tpose-parallel'>(
          'fk-bent',
          'fk-straight-w0.5',
          'tpose-parallel',
        ),
        (seed, k, mode) => {
          const arm = calibrated();
          const r = rng(seed);
          const base = mode === 'fk-bent' ? randomPose(seed) : new Pose(s);
          const S = at(base.P, limb.upper);
          // in 'tpose-parallel' the target lies along the T-pose bend direction, so that one vanishes too
          const u = mode === 'tpose-parallel' ? (DEFAULT_ARM_BEND as V) : randomUnit(r);
          const T0 = add(S, mul(u, 0.1 + 0.4 * r()));
          const wb = mode === 'fk-straight-w0.5' ? 0.5 : 1;
          let prevE: V | null = null;
          let worst = 0;
          for (let f = 0; f < 30; f++) {
            const T = add(T0, mul(randomUnit(r), 1e-4 * r()));
            const bend = add(S, mul(sub(T, S), k)); // exactly on the shoulder -> target line
            const p = new Pose(s);
            p.local.set(base.local);
            p.fk();
            arm.solve(p.W, p.P, goalAt(T, bend, [1, 0, wb]));
            const E = at(p.P, limb.lower);
            expect(norm(sub(at(p.P, limb.end), T))).toBeLessThan(1e-4);
            if (prevE) worst = Math.max(worst, norm(sub(E, prevE)));
            prevE = E;
          }
          expect(worst).toBeLessThan(0.01);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps the previous frame direction and bend when the target is exactly at the shoulder', () => {
    // unequal bones: the arm folds along last frame's direction
    const arm = calibrated();
    const p = randomPose(3);
    const S = at(p.P, limb.upper);
    const u = unit([0.5, 0.1, 0.6]);
    arm.solve(p.W, p.P, goalAt(add(S, mul(u, 0.35)), add(S, [0, -1, 0]), [1, 0, 1]));
    const q = randomPose(3);
    arm.solve(q.W, q.P, goalAt(S, [5, 5, 5], [1, 0, 1]));
    expect(arm.report.targetAtRoot).toBe(true);
    expect(finiteAll(q.W) && finiteAll(q.P)).toBe(true);
    expect(norm(sub(at(q.P, limb.end), add(S, mul(u, L1 - L2))))).toBeLessThan(1e-9);
    expect(norm(sub(at(q.P, limb.lower), add(S, mul(u, L1))))).toBeLessThan(1e-6);
    // equal bones: the hand folds onto the shoulder and the elbow stands out on last frame's bend side
    const { skel, l } = equalArm();
    const eq = calibrated(skel, l);
    for (const [seed, goalDir] of [
      [1, [0, -1, 0]],
      [2, [0, 0.3, -1]],
      [3, [1, 1, 0]],
    ] as [number, V][]) {
      const r = rng(seed);
      const a = new Pose(skel);
      const Sa = at(a.P, l.upper);
      const ua = randomUnit(r);
      eq.solve(a.W, a.P, goalAt(add(Sa, mul(ua, 0.3)), add(Sa, goalDir), [1, 0, 1]));
      const n1 = unit(perp(sub(at(a.P, l.lower), Sa), ua));
      const b = new Pose(skel);
      eq.solve(b.W, b.P, goalAt(Sa, add(Sa, [0, 0, 1]), [1, 0, 1]));
      expect(eq.report.targetAtRoot).toBe(true);
      expect(norm(sub(at(b.P, l.end), Sa))).toBeLessThan(1e-9);
      expect(norm(sub(at(b.P, l.lower), add(Sa, mul(n1, L1))))).toBeLessThan(1e-9);
    }
    // a fresh solver (calibrated only) does not produce NaN either
    const fresh = calibrated();
    const z = new Pose(s);
    fresh.solve(z.W, z.P, goalAt(at(z.P, limb.upper)));
    expect(finiteAll(z.W) && finiteAll(z.P)).toBe(true);
  });

  it('turns the T-pose bend direction with the chest', () => {
    const arm = calibrated();
    for (const yaw of [0, 0.7, Math.PI / 2, 3]) {
      const p = new Pose(s);
      p.turn(s.humanoid[H.Hips], [0, 1, 0], yaw); // the whole body, arm straight in its T-pose
      const S = at(p.P, limb.upper);
      const yawQ = quat.setAxisAngle(quat64(), [0, 1, 0], yaw);
      const rot = (v: V): V => rotate(yawQ, v);
      const u = rot(unit([0.2, 0, 1])); // forward of the turned body
      arm.solve(p.W, p.P, goalAt(add(S, mul(u, 0.4)), [0, 0, 0], [1, 0, 0]));
      const dir = perp(sub(at(p.P, limb.lower), S), u);
      expect(angle(dir, perp(rot(DEFAULT_ARM_BEND as V), u))).toBeLessThan(1e-9);
    }
  });

  it('takes a custom calibration bend direction and frame bone', () => {
    const arm = new ArmIK(s, limb, 'left', { frameBone: -1 });
    const rest = new Pose(s);
    arm.calibrate(rest.W, rest.P, [0, 1, 0]);
    const p = new Pose(s);
    p.turn(s.humanoid[H.Hips], [0, 1, 0], 1); // world frame: the body turn does not carry the direction
    const S = at(p.P, limb.upper);
    const u = unit([1, 0, 1]);
    arm.solve(p.W, p.P, goalAt(add(S, mul(u, 0.4))));
    expect(angle(perp(sub(at(p.P, limb.lower), S), u), [0, 1, 0])).toBeLessThan(1e-9);
  });
});

describe('ArmIK: weights and writing', () => {
  it('position weight 0 leaves W and P bit for bit (and rotation weight alone turns only the hand)', () => {
    const arm = calibrated();
    const p = randomPose(5);
    const fk = p.copy();
    arm.solve(p.W, p.P, goalAt([0.3, 1.2, 0.4], [0, 0, 1], [0, 0, 1]));
    expect(p.W).toEqual(fk.W);
    expect(p.P).toEqual(fk.P);
    expect(arm.report.solved).toBe(false);
    const g = goalAt([0.3, 1.2, 0.4], [0, 0, 1], [0, 0.5, 1]);
    quat.setAxisAngle(g.targetRotation, [0, 0, 1], 1);
    arm.solve(p.W, p.P, g);
    expect(p.P).toEqual(fk.P);
    for (let i = 0; i < s.boneCount; i++) {
      const same = [0, 1, 2, 3].every((k) => p.W[4 * i + k] === fk.W[4 * i + k]);
      expect(same).toBe(i !== limb.end);
    }
  });

  it('rotation weight 1 gives the end bone exactly the target rotation', () => {
    fc.assert(
      fc.property(fc.integer(), fc.double({ min: 0, max: 1, noNaN: true }), (seed, wp) => {
        const arm = calibrated();
        const p = randomPose(seed);
        const r = rng(seed);
        const g = goalAt(add(at(p.P, limb.upper), mul(randomUnit(r), 0.3)), [0, 0, 0], [wp, 1, 0]);
        quat.setAxisAngle(g.targetRotation, randomUnit(r), 2 * Math.PI * r());
        arm.solve(p.W, p.P, g);
        expect(Array.from(p.W.subarray(4 * limb.end, 4 * limb.end + 4))).toEqual(
          Array.from(g.targetRotation),
        );
      }),
    );
  });

  it('weights in between interpolate monotonically (slerp: angle proportional to the weight)', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const base = randomPose(seed);
      const r = rng(seed);
      const S = at(base.P, limb.upper);
      const g = goalAt(add(S, mul(randomUnit(r), 0.1 + 0.4 * r())), add(S, randomUnit(r)), [1, 0, 1]);
      quat.setAxisAngle(g.targetRotation, randomUnit(r), 3 * r());
      const full = base.copy();
      calibrated().solve(full.W, full.P, g);
      const fullUpper = angleBetween(rotAt(full.W, limb.upper), rotAt(base.W, limb.upper));
      const fullLower = angleBetween(rotAt(full.W, limb.lower), rotAt(base.W, limb.lower));
      const endToTarget = angleBetween(rotAt(base.W, limb.end), g.targetRotation);
      let prev = [-1, -1, -1];
      for (let k = 0; k <= 10; k++) {
        const w = k / 10;
        const p = base.copy();
        g.weights.set([w, w, 1]);
        calibrated().solve(p.W, p.P, g);
        const a = [
          angleBetween(rotAt(p.W, limb.upper), rotAt(base.W, limb.upper)),
          angleBetween(rotAt(p.W, limb.lower), rotAt(base.W, limb.lower)),
          angleBetween(rotAt(p.W, limb.end), rotAt(base.W, limb.end)),
        ];
        expect(a[0]).toBeCloseTo(w * fullUpper, 9);
        expect(a[1]).toBeCloseTo(w * fullLower, 9);
        expect(a[2]).toBeCloseTo(w * endToTarget, 9);
        expect(angleBetween(rotAt(p.W, limb.end), g.targetRotation)).toBeCloseTo((1 - w) * endToTarget, 9);
        for (let j = 0; j < 3; j++) expect(a[j]).toBeGreaterThanOrEqual(prev[j] - 1e-12);
        prev = a;
        // positions written agree with the rotations written
        const Pr = hubRecompute(s, base.local, p.W, [limb.upper, limb.lower, limb.end]);
        expect(norm(sub(at(Pr, limb.end), at(p.P, limb.end)))).toBeLessThan(1e-12);
      }
    }
  });

  it('turns each bone by the shortest rotation from its FK segment to the solved one (twist kept)', () => {
    for (let seed = 1; seed <= 50; seed++) {
      const p = randomPose(seed);
      const fk = p.copy();
      const r = rng(seed);
      const S = at(p.P, limb.upper);
      calibrated().solve(p.W, p.P, goalAt(add(S, mul(randomUnit(r), 0.3)), add(S, randomUnit(r)), [1, 0, 1]));
      const pairs: [number, number][] = [
        [limb.upper, limb.lower],
        [limb.lower, limb.end],
      ];
      for (const [b, c] of pairs) {
        const d = quat.multiply(quat64(), rotAt(p.W, b), quat.conjugate(quat64(), rotAt(fk.W, b)));
        const axis: V = [d[0], d[1], d[2]];
        // the swing axis is perpendicular to both the old and the new segment: no twist about either
        expect(Math.abs(dot(axis, unit(sub(at(fk.P, c), at(fk.P, b)))))).toBeLessThan(1e-9);
        expect(Math.abs(dot(axis, unit(sub(at(p.P, c), at(p.P, b)))))).toBeLessThan(1e-9);
      }
    }
  });

  it('solves a limb with helper bones between its bones (twist bones), as the hub recomputes it', () => {
    const tw = quat.setAxisAngle(quat64(), unit([1, 2, 3]), 0.8);
    const sk = createSkeleton({
      names: ['Chest', 'UpperArm', 'UpperArmTwist', 'LowerArm', 'LowerArmTwist', 'Hand'],
      parents: [-1, 0, 1, 2, 3, 4],
      restTranslations: [0, 1.4, 0, 0.15, 0, 0, 0.14, 0, 0, 0.1, 0.03, 0, 0.12, 0, 0, 0.1, 0.02, 0],
      restRotations: [0, 0, 0, 1, 0, 0, 0, 1, ...tw, 0, 0, 0, 1, ...tw, 0, 0, 0, 1],
    });
    const l: Limb = { upper: 1, lower: 3, end: 5 };
    const arm = new ArmIK(sk, l, 'left');
    const rest = new Pose(sk);
    arm.calibrate(rest.W, rest.P);
    for (let seed = 1; seed <= 50; seed++) {
      const r = rng(seed);
      const p = new Pose(sk);
      for (const b of [1, 2, 3, 4, 5]) p.turn(b, randomUnit(r), 1.5 * r());
      const S = at(p.P, 1);
      const T = add(S, mul(randomUnit(r), 0.1 + 0.25 * r()));
      arm.solve(p.W, p.P, goalAt(T, add(S, randomUnit(r)), [1, 0, 1]));
      expect(norm(sub(at(p.P, 5), T))).toBeLessThan(1e-12);
      const Pr = hubRecompute(sk, p.local, p.W, [1, 3, 5]);
      expect(norm(sub(at(Pr, 3), at(p.P, 3)))).toBeLessThan(1e-12);
      expect(norm(sub(at(Pr, 5), T))).toBeLessThan(1e-12);
    }
  });
});

describe('ArmIK: errors and bad input', () => {
  it('rejects limbs that are not chains, naming the bones', () => {
    expect(() => new ArmIK(s, { upper: limb.lower, lower: limb.upper, end: limb.end }, 'left')).toThrow(
      /left arm: lower bone 'LeftArm' is not a descendant of upper bone 'LeftForeArm'/,
    );
    expect(() => new ArmIK(s, { ...limb, end: 999 }, 'left')).toThrow(/end bone 999 is not a bone index/);
    expect(() => new ArmIK(s, limb, 'left', { bendFalloff: 0 })).toThrow(IKError);
    const noHand = createSkeleton({
      ...s,
      humanoid: Array.from(s.humanoid).map((b, h) => (h === H.LeftHand ? -1 : b)),
    });
    expect(() => humanoidLimb(noHand, 'LeftArm')).toThrow(/LeftArm: the skeleton has no LeftHand/);
  });

  it('needs calibrate before solve; a zero bend direction, a NaN pose or a short buffer is a clear error', () => {
    const arm = new ArmIK(s, limb, 'left');
    const p = new Pose(s);
    expect(() => arm.solve(p.W, p.P, new LimbGoal())).toThrow(/left arm: calibrate\(\) before solve\(\)/);
    expect(() => arm.calibrate(p.W, p.P, [0, 0, 0])).toThrow(/bendDirection/);
    const bad = Float64Array.from(p.P);
    bad[3 * limb.lower + 1] = Number.NaN;
    expect(() => arm.calibrate(p.W, bad)).toThrow(/position of 'LeftForeArm' is not finite/);
    arm.calibrate(p.W, p.P);
    expect(() => arm.solve(p.W, p.P.subarray(3), new LimbGoal())).toThrow(
      new RegExp(`left arm: P has length ${3 * s.boneCount - 3}, expected ${3 * s.boneCount}`),
    );
  });

  it('skips the position solve for a non-finite target and keeps the pose', () => {
    const arm = calibrated();
    const p = randomPose(9);
    const fk = p.copy();
    arm.solve(p.W, p.P, goalAt([Number.NaN, 0, 0], [0, 0, 0], [1, 0, 0]));
    expect(arm.report.skippedNonFinite).toBe(true);
    expect(p.P).toEqual(fk.P);
    expect(p.W).toEqual(fk.W);
  });
});

describe('IK allocation', () => {
  it('ArmIK.solve and LegIK.solve allocate nothing per call (plain Node probe)', () => {
    const r = runAllocProbe(`
      import { ArmIK, LegIK, humanoidLimb, LimbGoal, LegSourceJoints } from ${JSON.stringify(path.resolve(__dirname, '../src/ik'))};
      import { forwardKinematics } from ${JSON.stringify(path.resolve(__dirname, '../src/core'))};
      import { makeHumanoid } from ${JSON.stringify(path.resolve(__dirname, 'helpers/humanoid'))};
      const s = makeHumanoid({ pose: 'A', twistRest: 0.4 });
      const n = s.boneCount;
      const W0 = new Float64Array(4 * n), P0 = new Float64Array(3 * n);
      forwardKinematics(s, s.restRotations, s.restTranslations, W0, P0);
      const W = Float64Array.from(W0), P = Float64Array.from(P0);
      const arm = new ArmIK(s, humanoidLimb(s, 'LeftArm'), 'left');
      const leg = new LegIK(s, humanoidLimb(s, 'RightLeg'), 'right');
      arm.calibrate(W0, P0);
      leg.calibrate(W0, P0);
      const ga = new LimbGoal(), gl = new LimbGoal();
      ga.weights.set([0.7, 0.6, 0.5]);
      gl.weights.set([0.8, 0.6, 0.3]);
      gl.bendGoal.set([0, 0.5, 1]);
      const src = new LegSourceJoints();
      let k = 0;
      result.arm = bytesPerCall(() => {
        W.set(W0); P.set(P0);
        k = (k + 1) % 1000;
        ga.targetPosition[0] = 0.3 + 0.0003 * k; ga.targetPosition[1] = 1.2; ga.targetPosition[2] = 0.2;
        ga.bendGoal[0] = 0.3 - 0.001 * k;
        arm.solve(W, P, ga);
      }, 5000);
      result.leg = bytesPerCall(() => {
        W.set(W0); P.set(P0);
        k = (k + 1) % 1000;
        src.hip[1] = 1; src.knee[1] = 0.55; src.knee[2] = 0.0002 * k; src.ankle[1] = 0.1;
        gl.targetPosition[0] = -0.1; gl.targetPosition[1] = 0.1 + 0.0001 * k; gl.targetPosition[2] = 0.05;
        leg.solve(W, P, gl, src);
      }, 5000);
    `);
    expect(r.arm).toBeLessThan(1);
    expect(r.leg).toBeLessThan(1);
  });
});
