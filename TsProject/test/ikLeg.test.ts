import fc from 'fast-check';
import { quat, vec3 } from 'gl-matrix';
import { createSkeleton, forwardKinematics, HumanBodyBones as H, quat64, type Skeleton } from '../src/core';
import { humanoidLimb, LegIK, LegSourceJoints, LimbGoal } from '../src/ik';
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
const finiteAll = (a: ArrayLike<number>) => Array.from(a).every(Number.isFinite);
function rotate(q: ArrayLike<number>, v: V): V {
  const t = vec3.transformQuat(new Float64Array(3), Float64Array.from(v), q as quat);
  return [t[0], t[1], t[2]];
}

/** Deterministic generator (mulberry32), seeded by fast-check. */
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

class Pose {
  readonly local: Float64Array;
  readonly W: Float64Array;
  readonly P: Float64Array;
  constructor(readonly s: Skeleton) {
    this.local = Float64Array.from(s.restRotations);
    this.W = new Float64Array(4 * s.boneCount);
    this.P = new Float64Array(3 * s.boneCount);
    this.fk();
  }
  turn(bone: number, axis: V, a: number): this {
    const q = quat.setAxisAngle(quat64(), unit(axis), a);
    this.local.set(quat.multiply(quat64(), rotAt(this.s.restRotations, bone), q), 4 * bone);
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

/** Skeleton with the left thigh and shin set to the given lengths (metres, before `scale`). */
function legsOf(thigh: number, shin: number, spec: Parameters<typeof makeHumanoid>[0] = {}): Skeleton {
  const base = makeHumanoid(spec);
  const off = Float64Array.from(base.restTranslations);
  const sc = spec.scale ?? 1;
  const knee = base.humanoid[H.LeftLowerLeg];
  const foot = base.humanoid[H.LeftFoot];
  // rest offsets may be rotated (twistRest): keep their directions, set their lengths
  for (const [b, len] of [
    [knee, thigh],
    [foot, shin],
  ] as const) {
    const o = at(off, b);
    off.set(mul(unit(o), len * sc), 3 * b);
  }
  return createSkeleton({ ...base, restTranslations: off });
}

const src = makeHumanoid(); // thigh 0.45, shin 0.42
const srcLimb = humanoidLimb(src, 'LeftLeg');

/** A source leg pose: body yaw, thigh turned at random, knee bent by `knee` radians (negative: reversed). */
function sourcePose(r: () => number, knee: number, yaw = (2 * r() - 1) * Math.PI): LegSourceJoints {
  const p = new Pose(src);
  p.turn(src.humanoid[H.Hips], [0, 1, 0], yaw);
  p.turn(srcLimb.upper, randomUnit(r), 1.2 * r());
  p.turn(srcLimb.lower, [1, 0, 0], knee);
  const j = new LegSourceJoints();
  j.hip.set(at(p.P, srcLimb.upper));
  j.knee.set(at(p.P, srcLimb.lower));
  j.ankle.set(at(p.P, srcLimb.end));
  return j;
}

function targetOf(s: Skeleton) {
  const limb = humanoidLimb(s, 'LeftLeg');
  const leg = new LegIK(s, limb, 'left');
  const rest = new Pose(s);
  leg.calibrate(rest.W, rest.P);
  const L1 = norm(sub(at(rest.P, limb.lower), at(rest.P, limb.upper)));
  const L2 = norm(sub(at(rest.P, limb.end), at(rest.P, limb.lower)));
  return { s, limb, leg, L1, L2 };
}

/** A random target FK pose (the hub's retargeted pose before IK). */
function targetPose(s: Skeleton, r: () => number): Pose {
  const limb = humanoidLimb(s, 'LeftLeg');
  const p = new Pose(s);
  p.turn(s.humanoid[H.Hips], [0, 1, 0], 6 * r());
  p.turn(limb.upper, randomUnit(r), 1.5 * r());
  p.turn(limb.lower, randomUnit(r), 2 * r());
  p.turn(limb.end, randomUnit(r), r());
  return p;
}

function goalAt(target: V, weights: V = [1, 0, 0], bend: V = [0, 0, 0]): LimbGoal {
  const g = new LimbGoal();
  g.targetPosition.set(target);
  g.weights.set(weights);
  g.bendGoal.set(bend);
  return g;
}

const sourceChain = (j: LegSourceJoints) =>
  norm(sub(at(j.knee, 0), at(j.hip, 0))) + norm(sub(at(j.ankle, 0), at(j.knee, 0)));

describe('LegIK: knee from the source knee', () => {
  it('with the source proportions (scaled), the foot reaches the scaled source ankle within 0.1 mm and the knee is the scaled source knee', () => {
    const t = targetOf(makeHumanoid({ scale: 1.3, twistRest: 0.4 }));
    fc.assert(
      fc.property(
        fc.integer(),
        fc.double({ min: -0.4, max: 2.6, noNaN: true }),
        fc.boolean(),
        (seed, knee, turn) => {
          const r = rng(seed);
          const j = sourcePose(r, knee);
          const p = targetPose(t.s, r);
          const S = at(p.P, t.limb.upper);
          const ratio = (t.L1 + t.L2) / sourceChain(j);
          expect(ratio).toBeCloseTo(1.3, 12);
          // the hub's foot target: the source ankle relative to the hip, scaled (and here maybe turned)
          const R = turn ? quat.setAxisAngle(quat64(), randomUnit(r), 3 * r()) : quat64();
          const T = add(S, rotate(R, mul(sub(at(j.ankle, 0), at(j.hip, 0)), ratio)));
          t.leg.solve(p.W, p.P, goalAt(T), j);
          expect(finiteAll(p.W) && finiteAll(p.P)).toBe(true);
          expect(norm(sub(at(p.P, t.limb.end), T))).toBeLessThan(1e-4);
          const E = at(p.P, t.limb.lower);
          const u = unit(sub(T, S));
          const su = unit(sub(at(j.ankle, 0), at(j.hip, 0)));
          const sk = sub(at(j.knee, 0), at(j.hip, 0));
          // along the line and off it, the knee is the source knee scaled
          expect(dot(sub(E, S), u)).toBeCloseTo(ratio * dot(sk, su), 9);
          expect(norm(perp(sub(E, S), u))).toBeCloseTo(ratio * norm(perp(sk, su)), 9);
          if (!turn) expect(norm(sub(E, add(S, mul(sk, ratio))))).toBeLessThan(1e-9);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('with other proportions, the foot misses by the distance error | |T - knee| - L2 |, at most twice the thigh mismatch', () => {
    // target thigh/shin 0.50/0.37 against the source's 0.45/0.42
    const t = targetOf(legsOf(0.5, 0.37, { twistRest: -0.3 }));
    let worst = 0;
    let sum = 0;
    const runs = 2000;
    for (let seed = 1; seed <= runs; seed++) {
      const r = rng(seed);
      const j = sourcePose(r, -0.3 + 2.8 * r());
      const p = targetPose(t.s, r);
      const S = at(p.P, t.limb.upper);
      const ratio = (t.L1 + t.L2) / sourceChain(j);
      const T = add(S, mul(sub(at(j.ankle, 0), at(j.hip, 0)), ratio));
      t.leg.solve(p.W, p.P, goalAt(T), j);
      const E = at(p.P, t.limb.lower);
      const F = at(p.P, t.limb.end);
      const err = norm(sub(F, T));
      // the shin points at the target, so the miss is exactly the distance error
      expect(err).toBeCloseTo(Math.abs(norm(sub(T, E)) - t.L2), 12);
      const mismatch = Math.abs(t.L1 - ratio * norm(sub(at(j.knee, 0), at(j.hip, 0))));
      expect(err).toBeLessThanOrEqual(2 * mismatch + 1e-12);
      worst = Math.max(worst, err);
      sum += err;
    }
    // the bound is reached only with the knee fully folded; measured figures are well inside it
    const mismatch = Math.abs(t.L1 - ((t.L1 + t.L2) / 0.87) * 0.45);
    expect(mismatch).toBeCloseTo(0.5 - 0.45, 12);
    expect(worst).toBeLessThan(2 * mismatch);
    expect(worst).toBeGreaterThan(0.001); // the error is real, not hidden
    expect(sum / runs).toBeLessThan(worst);
  });

  it('a straight source leg gives a straight leg pointing at a target at full reach, 1e-12 beyond or far beyond, no NaN', () => {
    const t = targetOf(legsOf(0.5, 0.37));
    for (const beyond of [0, 1e-12, 1, 1e6, 1e200]) {
      const r = rng(42);
      const j = sourcePose(r, 0);
      const p = targetPose(t.s, r);
      const S = at(p.P, t.limb.upper);
      const u = unit([0.2, -1, 0.3]);
      const T = add(S, mul(u, t.L1 + t.L2 + beyond));
      t.leg.solve(p.W, p.P, goalAt(T), j);
      expect(finiteAll(p.W) && finiteAll(p.P)).toBe(true);
      const E = at(p.P, t.limb.lower);
      const F = at(p.P, t.limb.end);
      expect(angle(sub(E, S), u)).toBeLessThan(1e-9);
      expect(angle(sub(F, E), u)).toBeLessThan(1e-9);
      expect(norm(sub(F, add(S, mul(u, t.L1 + t.L2))))).toBeLessThan(1e-9);
    }
  });

  it('has no 180-degree flip: a source knee passing through straight moves the target knee continuously', () => {
    const t = targetOf(makeHumanoid({ scale: 0.9, twistRest: 0.2 }));
    const steps = 800;
    let prev: V | null = null;
    let maxStep = 0;
    for (let k = 0; k <= steps; k++) {
      const knee = -0.04 + (0.08 * k) / steps; // through 0: reversed, straight, bent
      const j = sourcePose(rng(5), knee, 0.3);
      const p = new Pose(t.s);
      const S = at(p.P, t.limb.upper);
      const ratio = (t.L1 + t.L2) / sourceChain(j);
      const T = add(S, mul(sub(at(j.ankle, 0), at(j.hip, 0)), ratio));
      t.leg.solve(p.W, p.P, goalAt(T), j);
      const E = at(p.P, t.limb.lower);
      expect(norm(sub(at(p.P, t.limb.end), T))).toBeLessThan(1e-9);
      if (prev) maxStep = Math.max(maxStep, norm(sub(E, prev)));
      prev = E;
    }
    // the source knee moves ~0.45 m * 1e-4 rad = 45 um per step; so does the target knee (x0.9)
    expect(maxStep).toBeLessThan(1e-4);
  });

  it('keeps a reversed (hyper-extended) knee reversed', () => {
    const t = targetOf(makeHumanoid({ scale: 1.1 }));
    for (const knee of [-0.3, -0.05, 0.05, 0.3, 1.5]) {
      const j = sourcePose(rng(8), knee, 0);
      const p = new Pose(t.s);
      const S = at(p.P, t.limb.upper);
      const ratio = (t.L1 + t.L2) / sourceChain(j);
      const T = add(S, mul(sub(at(j.ankle, 0), at(j.hip, 0)), ratio));
      t.leg.solve(p.W, p.P, goalAt(T), j);
      const u = unit(sub(T, S));
      const su = unit(sub(at(j.ankle, 0), at(j.hip, 0)));
      const kneeSide = perp(sub(at(p.P, t.limb.lower), S), u);
      const srcSide = perp(sub(at(j.knee, 0), at(j.hip, 0)), su);
      expect(angle(kneeSide, srcSide)).toBeLessThan(1e-9);
      // facing +Z: a bent knee is in front of the hip -> ankle line, a reversed one behind it
      expect(Math.sign(kneeSide[2])).toBe(Math.sign(knee));
    }
  });

  it('keeps the last direction for a target exactly at the hip, and the last source direction for a degenerate source', () => {
    const t = targetOf(legsOf(0.5, 0.37));
    const r = rng(3);
    const j = sourcePose(r, 0.8, 0);
    const p = new Pose(t.s);
    const S = at(p.P, t.limb.upper);
    const u = unit([0.1, -1, 0.2]);
    t.leg.solve(p.W, p.P, goalAt(add(S, mul(u, 0.7))), j);
    const q = new Pose(t.s);
    t.leg.solve(q.W, q.P, goalAt(S), j);
    expect(t.leg.report.targetAtRoot).toBe(true);
    expect(finiteAll(q.W) && finiteAll(q.P)).toBe(true);
    // thigh toward the carried source knee, shin folded back to the hip: the nearest reachable point
    expect(norm(sub(at(q.P, t.limb.end), S))).toBeCloseTo(t.L1 - t.L2, 9);
    // source ankle on the source hip: last source direction, no NaN
    const bad = new LegSourceJoints();
    bad.hip.set(j.hip);
    bad.knee.set(j.knee);
    bad.ankle.set(j.hip);
    const w = new Pose(t.s);
    t.leg.solve(w.W, w.P, goalAt(add(S, mul(u, 0.7))), bad);
    expect(finiteAll(w.W) && finiteAll(w.P)).toBe(true);
    // all source joints in one point: the thigh points at the target, no NaN
    const pt = new LegSourceJoints();
    const z = new Pose(t.s);
    t.leg.solve(z.W, z.P, goalAt(add(S, mul(u, 0.7))), pt);
    expect(finiteAll(z.W) && finiteAll(z.P)).toBe(true);
    expect(angle(sub(at(z.P, t.limb.lower), S), u)).toBeLessThan(1e-9);
  });

  it('bend-goal weight turns the knee toward the bend goal and keeps its offset from the line', () => {
    const t = targetOf(makeHumanoid());
    fc.assert(
      fc.property(fc.integer(), fc.double({ min: 0, max: 1, noNaN: true }), (seed, wb) => {
        const r = rng(seed);
        const j = sourcePose(r, 0.2 + 2 * r(), 0);
        const p = new Pose(t.s);
        const S = at(p.P, t.limb.upper);
        const T = add(S, sub(at(j.ankle, 0), at(j.hip, 0)));
        const u = unit(sub(T, S));
        const side = unit(perp(randomUnit(r), u));
        const free = new Pose(t.s);
        t.leg.solve(free.W, free.P, goalAt(T), j);
        const freeOff = perp(sub(at(free.P, t.limb.lower), S), u);
        t.leg.solve(p.W, p.P, goalAt(T, [1, 0, wb], add(S, mul(side, 0.5))), j);
        const off = perp(sub(at(p.P, t.limb.lower), S), u);
        expect(norm(off)).toBeCloseTo(norm(freeOff), 9);
        expect(norm(sub(at(p.P, t.limb.end), T))).toBeLessThan(1e-9);
        if (wb === 1) expect(angle(off, side)).toBeLessThan(1e-9);
        else expect(angle(off, side)).toBeLessThanOrEqual(angle(freeOff, side) + 1e-9);
      }),
    );
  });
});

describe('LegIK: weights', () => {
  it('position weight 0 leaves W/P bit for bit; rotation weight 1 sets the foot rotation exactly; positions blend by slerp', () => {
    const t = targetOf(makeHumanoid({ twistRest: 0.3 }));
    const r = rng(12);
    const j = sourcePose(r, 1);
    const base = targetPose(t.s, r);
    const fk = base.copy();
    const S = at(base.P, t.limb.upper);
    const T = add(S, mul(sub(at(j.ankle, 0), at(j.hip, 0)), 1));
    const g = goalAt(T, [0, 0, 1], [1, 2, 3]);
    t.leg.solve(base.W, base.P, g, j);
    expect(base.W).toEqual(fk.W);
    expect(base.P).toEqual(fk.P);
    g.weights.set([0.3, 1, 0]);
    quat.setAxisAngle(g.targetRotation, unit([1, 1, 0]), 2);
    t.leg.solve(base.W, base.P, g, j);
    expect(Array.from(base.W.subarray(4 * t.limb.end, 4 * t.limb.end + 4))).toEqual(
      Array.from(g.targetRotation),
    );
    // knee angle from FK grows linearly with the position weight
    const full = Pose.prototype.copy.call({ W: fk.W, P: fk.P } as unknown as Pose);
    g.weights.set([1, 0, 0]);
    t.leg.solve(full.W, full.P, g, j);
    const fullAngle = angle(sub(at(full.P, t.limb.lower), S), sub(at(fk.P, t.limb.lower), S));
    for (const w of [0.25, 0.5, 0.75]) {
      const q = { W: Float64Array.from(fk.W), P: Float64Array.from(fk.P) };
      g.weights.set([w, 0, 0]);
      t.leg.solve(q.W, q.P, g, j);
      expect(angle(sub(at(q.P, t.limb.lower), S), sub(at(fk.P, t.limb.lower), S))).toBeCloseTo(
        w * fullAngle,
        9,
      );
    }
  });
});
