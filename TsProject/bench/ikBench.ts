/**
 * Two-bone IK figures (not a test): time per limb solve (ArmIK, LegIK) over precomputed random poses,
 * heap bytes per solve, and reach errors over random poses: arm reach error on reachable targets, and
 * the leg's foot distance error when the avatar's thigh/shin proportions differ from the performer's.
 *
 * Two timings per limb: random weights (arm: position in [0.5, 1), rotation and bend goal in [0, 1), so
 * every step of the solver runs, slerps included: the dearest case; leg: 1, [0, 1), 0) and the live
 * hub's usual weights (arm 1/1/1: full position and rotation, bend goal on; leg 1/1/0).
 *
 * Run alone: `npx esbuild bench/ikBench.ts --bundle --platform=node --main-fields=module,main
 * --outfile=dist/ikBench.cjs && node --expose-gc dist/ikBench.cjs` (add `--jitless` for the no-JIT
 * figure, the one that matters for PuerTS on phones); or call {@link runIkBench}.
 */
import { quat } from 'gl-matrix';
import { createSkeleton, forwardKinematics, HumanBodyBones as H, quat64, type Skeleton } from '../src/core';
import { ArmIK, humanoidLimb, LegIK, LegSourceJoints, LimbGoal } from '../src/ik';
import { makeHumanoid } from '../test/helpers/humanoid';
import { now } from './harness';

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

function randomUnit(r: () => number): number[] {
  for (;;) {
    const x = 2 * r() - 1;
    const y = 2 * r() - 1;
    const z = 2 * r() - 1;
    const l = Math.hypot(x, y, z);
    if (l > 0.1 && l <= 1) return [x / l, y / l, z / l];
  }
}

function randomAxisAngle(r: () => number, max: number): Float64Array {
  return quat.setAxisAngle(quat64(), randomUnit(r), max * r()) as Float64Array;
}

/** `count` random poses of `s`: world rotations and positions, each `Float64Array`. */
function randomPoses(s: Skeleton, count: number, seed: number, bones: number[]) {
  const r = rng(seed);
  const W: Float64Array[] = [];
  const P: Float64Array[] = [];
  const local = Float64Array.from(s.restRotations);
  for (let f = 0; f < count; f++) {
    local.set(s.restRotations);
    for (const b of bones) {
      const q = quat.multiply(quat64(), local.subarray(4 * b, 4 * b + 4), randomAxisAngle(r, 1.5));
      local.set(q, 4 * b);
    }
    const w = new Float64Array(4 * s.boneCount);
    const p = new Float64Array(3 * s.boneCount);
    forwardKinematics(s, local, s.restTranslations, w, p);
    W.push(w);
    P.push(p);
  }
  return { W, P };
}

function heapUsed(): number {
  return process.memoryUsage().heapUsed;
}

export interface IkBenchResult {
  /** Microseconds per solve, random weights. */
  armMicros: number;
  legMicros: number;
  /** Microseconds per solve, the hub's usual weights (arm 1/1/1, leg 1/1/0). */
  armMicrosFullWeights: number;
  legMicrosFullWeights: number;
  armHeapBytesPerSolve: number;
  legHeapBytesPerSolve: number;
  armReachMaxErrorM: number;
  legProportionalMaxErrorM: number;
  legOtherProportions: { meanErrorM: number; maxErrorM: number; boundM: number };
}

export function runIkBench(): IkBenchResult {
  const s = makeHumanoid({ pose: 'A', twistRest: 0.4 });
  const n = s.boneCount;
  const arm = new ArmIK(s, humanoidLimb(s, 'LeftArm'), 'left');
  const legLimb = humanoidLimb(s, 'LeftLeg');
  const leg = new LegIK(s, legLimb, 'left');
  const W0 = new Float64Array(4 * n);
  const P0 = new Float64Array(3 * n);
  forwardKinematics(s, s.restRotations, s.restTranslations, W0, P0);
  arm.calibrate(W0, P0);
  leg.calibrate(W0, P0);
  const count = 1024;
  const al = humanoidLimb(s, 'LeftArm');
  const poses = randomPoses(s, count, 1, [
    s.humanoid[H.UpperChest],
    al.upper,
    al.lower,
    legLimb.upper,
    legLimb.lower,
  ]);
  const r = rng(2);
  // goals: arm targets in the reachable range, random bend goals and weights; leg: source from another pose
  const armGoals: LimbGoal[] = [];
  const legGoals: LimbGoal[] = [];
  const sources: LegSourceJoints[] = [];
  const srcPoses = randomPoses(s, count, 3, [legLimb.upper, legLimb.lower]);
  for (let f = 0; f < count; f++) {
    const P = poses.P[f];
    const g = new LimbGoal();
    const d = 0.05 + 0.47 * r();
    const u = randomUnit(r);
    const l = 1;
    for (let k = 0; k < 3; k++) g.targetPosition[k] = P[3 * al.upper + k] + (d * u[k]) / l;
    for (let k = 0; k < 3; k++) g.bendGoal[k] = P[3 * al.upper + k] + 2 * r() - 1;
    g.weights.set([0.5 + 0.5 * r(), r(), r()]);
    armGoals.push(g);
    const sp = srcPoses.P[f];
    const j = new LegSourceJoints();
    for (let k = 0; k < 3; k++) {
      j.hip[k] = sp[3 * legLimb.upper + k];
      j.knee[k] = sp[3 * legLimb.lower + k];
      j.ankle[k] = sp[3 * legLimb.end + k];
    }
    sources.push(j);
    const lg = new LimbGoal();
    for (let k = 0; k < 3; k++) lg.targetPosition[k] = P[3 * legLimb.upper + k] + j.ankle[k] - j.hip[k];
    lg.weights.set([1, r(), 0]);
    legGoals.push(lg);
  }
  const withWeights = (goals: LimbGoal[], w: number[]) =>
    goals.map((g) => {
      const h = new LimbGoal();
      h.targetPosition.set(g.targetPosition);
      h.targetRotation.set(g.targetRotation);
      h.bendGoal.set(g.bendGoal);
      h.weights.set(w);
      return h;
    });
  const armGoalsFull = withWeights(armGoals, [1, 1, 1]);
  const legGoalsFull = withWeights(legGoals, [1, 1, 0]);
  const W = new Float64Array(4 * n);
  const P = new Float64Array(3 * n);
  const time = (which: 'arm' | 'leg', fullWeights = false): { micros: number; heap: number } => {
    const aw = fullWeights ? armGoalsFull : armGoals;
    const lw = fullWeights ? legGoalsFull : legGoals;
    const loop = (iters: number) => {
      for (let i = 0; i < iters; i++) {
        const f = i & (count - 1);
        W.set(poses.W[f]);
        P.set(poses.P[f]);
        if (which === 'arm') arm.solve(W, P, aw[f]);
        else leg.solve(W, P, lw[f], sources[f]);
      }
    };
    // the copy of W/P is timed separately and subtracted
    const copyOnly = (iters: number) => {
      for (let i = 0; i < iters; i++) {
        const f = i & (count - 1);
        W.set(poses.W[f]);
        P.set(poses.P[f]);
      }
    };
    loop(200000);
    copyOnly(200000);
    const iters = 400000;
    const runs: number[] = [];
    let heap = 0;
    for (let t = 0; t < 5; t++) {
      (globalThis as { gc?: () => void }).gc?.();
      const h0 = heapUsed();
      const t0 = now();
      loop(iters);
      const t1 = now();
      const grown = (heapUsed() - h0) / iters;
      heap = t === 0 ? grown : Math.min(heap, grown);
      const t2 = now();
      copyOnly(iters);
      const t3 = now();
      runs.push(((t1 - t0 - (t3 - t2)) * 1000) / iters);
    }
    runs.sort((a, b) => a - b);
    return { micros: runs[2], heap };
  };
  const armT = time('arm');
  const legT = time('leg');
  const armFull = time('arm', true);
  const legFull = time('leg', true);

  // reach errors
  let armReach = 0;
  for (let f = 0; f < count; f++) {
    W.set(poses.W[f]);
    P.set(poses.P[f]);
    const g = armGoals[f];
    const w = g.weights[0];
    g.weights[0] = 1;
    arm.solve(W, P, g);
    g.weights[0] = w;
    const e = Math.hypot(
      P[3 * al.end] - g.targetPosition[0],
      P[3 * al.end + 1] - g.targetPosition[1],
      P[3 * al.end + 2] - g.targetPosition[2],
    );
    armReach = Math.max(armReach, e);
  }
  let legProp = 0;
  for (let f = 0; f < count; f++) {
    W.set(poses.W[f]);
    P.set(poses.P[f]);
    leg.solve(W, P, legGoals[f], sources[f]);
    const g = legGoals[f].targetPosition;
    legProp = Math.max(
      legProp,
      Math.hypot(P[3 * legLimb.end] - g[0], P[3 * legLimb.end + 1] - g[1], P[3 * legLimb.end + 2] - g[2]),
    );
  }
  // another avatar: thigh 0.50 m, shin 0.37 m against the source's 0.45 / 0.42 (same total)
  const off = Float64Array.from(s.restTranslations);
  const scaleTo = (b: number, len: number) => {
    const l = Math.hypot(off[3 * b], off[3 * b + 1], off[3 * b + 2]);
    for (let k = 0; k < 3; k++) off[3 * b + k] *= len / l;
  };
  scaleTo(legLimb.lower, 0.5);
  scaleTo(legLimb.end, 0.37);
  const t = createSkeleton({ ...s, restTranslations: off });
  const tleg = new LegIK(t, legLimb, 'left');
  const tW = new Float64Array(4 * n);
  const tP = new Float64Array(3 * n);
  forwardKinematics(t, t.restRotations, t.restTranslations, tW, tP);
  tleg.calibrate(tW, tP);
  let sum = 0;
  let max = 0;
  for (let f = 0; f < count; f++) {
    forwardKinematics(t, t.restRotations, t.restTranslations, tW, tP);
    const j = sources[f];
    const g = new LimbGoal();
    for (let k = 0; k < 3; k++) g.targetPosition[k] = tP[3 * legLimb.upper + k] + j.ankle[k] - j.hip[k];
    g.weights.set([1, 0, 0]);
    tleg.solve(tW, tP, g, j);
    const e = Math.hypot(
      tP[3 * legLimb.end] - g.targetPosition[0],
      tP[3 * legLimb.end + 1] - g.targetPosition[1],
      tP[3 * legLimb.end + 2] - g.targetPosition[2],
    );
    sum += e;
    max = Math.max(max, e);
  }
  return {
    armMicros: armT.micros,
    legMicros: legT.micros,
    armMicrosFullWeights: armFull.micros,
    legMicrosFullWeights: legFull.micros,
    armHeapBytesPerSolve: armT.heap,
    legHeapBytesPerSolve: legT.heap,
    armReachMaxErrorM: armReach,
    legProportionalMaxErrorM: legProp,
    legOtherProportions: { meanErrorM: sum / count, maxErrorM: max, boundM: 2 * 0.05 },
  };
}

if (require.main === module) {
  const r = runIkBench();
  const jit = process.execArgv.includes('--jitless') ? 'jitless' : 'JIT';
  console.log(`node ${process.version} (${jit})`);
  console.log(
    `ArmIK.solve  ${r.armMicros.toFixed(3)} us/solve (random weights), ${r.armMicrosFullWeights.toFixed(3)} us/solve (weights 1/1/1), heap ${r.armHeapBytesPerSolve.toFixed(3)} B/solve`,
  );
  console.log(
    `LegIK.solve  ${r.legMicros.toFixed(3)} us/solve (random weights), ${r.legMicrosFullWeights.toFixed(3)} us/solve (weights 1/1/0), heap ${r.legHeapBytesPerSolve.toFixed(3)} B/solve`,
  );
  console.log(
    `arm reach error on reachable targets (1024 random poses): max ${r.armReachMaxErrorM.toExponential(2)} m`,
  );
  console.log(
    `leg, source proportions (same skeleton): foot error max ${r.legProportionalMaxErrorM.toExponential(2)} m`,
  );
  const o = r.legOtherProportions;
  console.log(
    `leg, thigh/shin 0.50/0.37 vs source 0.45/0.42: foot error mean ${(o.meanErrorM * 1000).toFixed(2)} mm, max ${(o.maxErrorM * 1000).toFixed(2)} mm (bound ${(o.boundM * 1000).toFixed(0)} mm)`,
  );
}
