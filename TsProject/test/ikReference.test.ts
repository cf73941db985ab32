/**
 * Regression: the IK solvers compute what they computed before their rewrite for interpreters
 * (kernels written out, twoBone.ts "Interpreter cost"): 600 solves over random poses and goals covering
 * the solvers' branches (test/fixtures/ikReference.ts), against the values frozen in
 * test/fixtures/ikReference.json by the solvers of commit f378b4d. Plus the rewrite's one-sum test of
 * finite inputs, value by value.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { forwardKinematics } from '../src/core';
import { ArmIK, humanoidLimb, LegIK, LegSourceJoints, LimbGoal } from '../src/ik';
import { ikReferenceRuns } from './fixtures/ikReference';
import { makeHumanoid } from './helpers/humanoid';

const frozen: Record<string, { values: string; flags: number[] }> = JSON.parse(
  fs.readFileSync(path.join(__dirname, 'fixtures/ikReference.json'), 'utf8'),
);

function decode(b64: string): Float64Array {
  const bytes = Buffer.from(b64, 'base64');
  const out = new Float64Array(bytes.length / 8);
  for (let i = 0; i < out.length; i++) out[i] = bytes.readDoubleLE(8 * i);
  return out;
}

describe('IK: same results as the frozen reference', () => {
  const runs = ikReferenceRuns();

  it('has the four reference runs, 150 solves each', () => {
    expect(Object.keys(runs).sort()).toEqual(Object.keys(frozen).sort());
    for (const k of Object.keys(runs)) {
      expect(runs[k].flags.length).toBe(150);
      expect(runs[k].values.length).toBe(150 * 18);
    }
  });

  it('covers solved, skipped (non-finite), target-at-root and position-weight-0 frames in every run', () => {
    for (const k of Object.keys(frozen)) {
      const f = frozen[k].flags;
      expect(f.filter((x) => x === 1).length).toBeGreaterThan(20); // solved
      expect(f.filter((x) => x === 2).length).toBeGreaterThan(0); // skipped
      expect(f.filter((x) => x === 5).length).toBeGreaterThan(5); // solved, target at the root
      expect(f.filter((x) => x === 0).length).toBeGreaterThan(20); // no position solve
    }
  });

  for (const k of Object.keys(frozen)) {
    it(`${k}: every written value within 1e-12 of the reference, same report flags`, () => {
      const want = decode(frozen[k].values);
      const got = runs[k].values;
      expect(got.length).toBe(want.length);
      let worst = 0;
      let at = -1;
      for (let i = 0; i < want.length; i++) {
        const e = got[i] === want[i] ? 0 : Math.abs(got[i] - want[i]);
        if (Number.isNaN(e)) {
          worst = Number.POSITIVE_INFINITY;
          at = i;
          break;
        }
        if (e > worst) {
          worst = e;
          at = i;
        }
      }
      if (!(worst <= 1e-12)) {
        throw new Error(`${k}: solve ${Math.floor(at / 18)} value ${at % 18}: ${got[at]} vs ${want[at]}`);
      }
      expect(runs[k].flags).toEqual(frozen[k].flags);
    });
  }
});

describe('IK: the finiteness test (one sum, then each value)', () => {
  const s = makeHumanoid({ pose: 'A', twistRest: 0.4 });
  const n = s.boneCount;
  const W0 = new Float64Array(4 * n);
  const P0 = new Float64Array(3 * n);
  forwardKinematics(s, s.restRotations, s.restTranslations, W0, P0);
  const armLimb = humanoidLimb(s, 'LeftArm');
  const legLimb = humanoidLimb(s, 'LeftLeg');
  const at = (P: ArrayLike<number>, i: number) => [P[3 * i], P[3 * i + 1], P[3 * i + 2]];
  const bad = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];

  function armCase() {
    const arm = new ArmIK(s, armLimb, 'left');
    arm.calibrate(W0, P0);
    const W = Float64Array.from(W0);
    const P = Float64Array.from(P0);
    const g = new LimbGoal();
    const S = at(P0, armLimb.upper);
    g.targetPosition.set([S[0] + 0.2, S[1] - 0.3, S[2] + 0.2]);
    g.bendGoal.set([S[0], S[1] - 1, S[2] - 1]);
    g.weights.set([1, 0, 0.5]);
    return { arm, W, P, g };
  }
  function legCase() {
    const leg = new LegIK(s, legLimb, 'left');
    leg.calibrate(W0, P0);
    const W = Float64Array.from(W0);
    const P = Float64Array.from(P0);
    const g = new LimbGoal();
    const S = at(P0, legLimb.upper);
    g.targetPosition.set([S[0], S[1] - 0.8, S[2] + 0.2]);
    g.bendGoal.set([S[0], S[1], S[2] + 1]);
    g.weights.set([1, 0, 0.5]);
    const src = new LegSourceJoints();
    src.hip.set([0, 1, 0]);
    src.knee.set([0, 0.55, 0.1]);
    src.ankle.set([0, 0.1, 0]);
    return { leg, W, P, g, src };
  }

  it('ArmIK skips the position solve when any one of its 15 inputs is NaN or infinite, leaving W and P', () => {
    let cases = 0;
    for (const value of bad) {
      for (let i = 0; i < 15; i++) {
        const { arm, W, P, g } = armCase();
        if (i < 9) P[3 * [armLimb.upper, armLimb.lower, armLimb.end][Math.floor(i / 3)] + (i % 3)] = value;
        else if (i < 12) g.targetPosition[i - 9] = value;
        else g.bendGoal[i - 12] = value;
        const Pin = Float64Array.from(P);
        arm.solve(W, P, g);
        expect(arm.report.skippedNonFinite).toBe(true);
        expect(arm.report.solved).toBe(false);
        expect(W).toEqual(W0);
        expect(P).toEqual(Pin);
        cases++;
      }
    }
    expect(cases).toBe(45);
    // and solves with all of them finite
    const { arm, W, P, g } = armCase();
    arm.solve(W, P, g);
    expect(arm.report.solved).toBe(true);
  });

  it('LegIK skips the position solve when any one of its 24 inputs is NaN or infinite, leaving W and P', () => {
    let cases = 0;
    for (const value of bad) {
      for (let i = 0; i < 24; i++) {
        const { leg, W, P, g, src } = legCase();
        if (i < 9) P[3 * [legLimb.upper, legLimb.lower, legLimb.end][Math.floor(i / 3)] + (i % 3)] = value;
        else if (i < 12) g.targetPosition[i - 9] = value;
        else if (i < 15) g.bendGoal[i - 12] = value;
        else [src.hip, src.knee, src.ankle][Math.floor((i - 15) / 3)][(i - 15) % 3] = value;
        const Pin = Float64Array.from(P);
        leg.solve(W, P, g, src);
        expect(leg.report.skippedNonFinite).toBe(true);
        expect(W).toEqual(W0);
        expect(P).toEqual(Pin);
        cases++;
      }
    }
    expect(cases).toBe(72);
    const { leg, W, P, g, src } = legCase();
    leg.solve(W, P, g, src);
    expect(leg.report.solved).toBe(true);
  });

  it('finite inputs whose sum overflows are still solved (arm target at 1e308, leg source at 1e300)', () => {
    const a = armCase();
    const S = at(P0, armLimb.upper);
    a.g.targetPosition.set([1e308, 1e308, S[2]]);
    a.arm.solve(a.W, a.P, a.g);
    expect(a.arm.report.solved).toBe(true);
    expect(a.arm.report.skippedNonFinite).toBe(false);
    expect(Array.from(a.W).every(Number.isFinite) && Array.from(a.P).every(Number.isFinite)).toBe(true);
    // a straight arm pointing along (1, 1, 0)/sqrt 2, as far as it reaches
    const H = at(a.P, armLimb.end);
    const L = 0.28 + 0.25;
    expect(Math.hypot(H[0] - S[0] - L / Math.SQRT2, H[1] - S[1] - L / Math.SQRT2, H[2] - S[2])).toBeLessThan(
      1e-9,
    );

    const b = legCase();
    b.src.knee.set([1e300, 1e300, 0]);
    b.leg.solve(b.W, b.P, b.g, b.src);
    expect(b.leg.report.solved).toBe(true);
    expect(Array.from(b.W).every(Number.isFinite) && Array.from(b.P).every(Number.isFinite)).toBe(true);
  });
});
