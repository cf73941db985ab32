/**
 * The toe pivot (src/cleanup/toePivot.ts): known answers, properties over random legs, continuity across
 * the reach boundary, the heel never pushed down.
 */
import fc from 'fast-check';
import { type quat, vec3 } from 'gl-matrix';
import { ToePivot } from '../src/cleanup';
import { LegDLS } from '../src/ik';

type V = [number, number, number];
const sub = (a: V, b: V): V => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const add = (a: V, b: V): V => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
const dot = (a: V, b: V) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const norm = (a: V) => Math.hypot(a[0], a[1], a[2]);
const v3 = (a: ArrayLike<number>): V => [a[0], a[1], a[2]];
const DEG = Math.PI / 180;

/** A leg in the y-z plane: hip, thigh down-forward, knee flexed by `flex` (radians), foot 0.134 m to the toe. */
function leg(flex: number, footPitch = 0) {
  const hip: V = [0, 0.95, 0];
  const t = -0.5 * flex;
  const knee = add(hip, [0, -0.45 * Math.cos(t), -0.45 * Math.sin(t)]);
  const s = t + flex;
  const ankle = add(knee, [0, -0.42 * Math.cos(s), -0.42 * Math.sin(s)]);
  // toe ahead (+z) and down, pitched by footPitch (positive: heel up)
  const c = Math.cos(footPitch);
  const sn = Math.sin(footPitch);
  const toe = add(ankle, [0, -0.06 * c - 0.12 * sn, -0.06 * sn + 0.12 * c]);
  return { hip, knee, ankle, toe };
}

function run(pv: ToePivot, dls: LegDLS, l: ReturnType<typeof leg>, target: V) {
  const f = (v: V) => Float64Array.from(v);
  pv.solve(
    dls,
    f(l.hip),
    0,
    f(l.knee),
    0,
    f(l.ankle),
    0,
    f(l.toe),
    0,
    f(target),
    0,
    f([0, 1, 0]),
    0,
    f([1, 0, 0]),
    0,
  );
  const q = Float64Array.from(pv.footDelta) as unknown as quat;
  // the solved toe: solved ankle + footDelta * (toe - ankle)
  const d = vec3.transformQuat(
    new Float64Array(3) as unknown as vec3,
    Float64Array.from(sub(l.toe, l.ankle)) as unknown as vec3,
    q,
  );
  const toe = add(v3(dls.ankle), v3(d));
  return {
    ankleTarget: v3(pv.ankleTarget),
    toe,
    report: { ...pv.report },
    dls: { ...dls.report },
    q: Array.from(q),
  };
}

describe('ToePivot', () => {
  test('reachable: the foot keeps its source rotation, the ankle goes to T + (ankle - toe), the toe lands on T', () => {
    const l = leg(60 * DEG, 20 * DEG);
    const T = add(l.toe, [0, 0, -0.02]); // 2 cm back: the leg reaches it
    const r = run(new ToePivot(), new LegDLS(), l, T);
    expect(r.q).toEqual([0, 0, 0, 1]);
    expect(r.report.swing).toBe(0);
    expect(norm(sub(r.ankleTarget, add(T, sub(l.ankle, l.toe))))).toBeLessThan(1e-12);
    expect(norm(sub(r.toe, T))).toBeLessThan(2e-5);
    expect(r.report.outOfReach).toBe(false);
  });

  test('out of reach: the foot pitches heel-up about the toe so the ankle sits at the leg reach; the toe stays on T', () => {
    const l = leg(60 * DEG, 10 * DEG);
    const T = add(l.toe, [0, 0, -0.15]); // 15 cm behind: the source foot would need the leg 1.4 cm longer than allowed
    const dls = new LegDLS();
    const r = run(new ToePivot(), dls, l, T);
    expect(r.report.swing).toBeGreaterThan(1 * DEG);
    expect(r.report.swing).toBeLessThan(30 * DEG);
    const d = sub(l.ankle, l.toe);
    expect(norm(sub(r.ankleTarget, T))).toBeCloseTo(norm(d), 9);
    expect(norm(sub(r.ankleTarget, l.hip))).toBeCloseTo(r.dls.maxHipAnkleDistance, 6);
    expect(norm(sub(r.toe, T))).toBeLessThan(1e-3);
    expect(r.report.outOfReach).toBe(false);
    // heel up: the ankle is higher above the toe than in the source
    expect(r.ankleTarget[1] - T[1]).toBeGreaterThan(l.ankle[1] - l.toe[1] + 0.001);
  });

  test('too close for the knee: the foot is not turned (that would push the heel down)', () => {
    const l = leg(140 * DEG, 10 * DEG);
    const T = add(l.toe, [0, 0.4, 0]); // 40 cm up: the leg would have to fold past its limit
    const r = run(new ToePivot(), new LegDLS({ maxFlexion: 145 * DEG }), l, T);
    expect(r.q).toEqual([0, 0, 0, 1]);
    expect(r.report.outOfReach).toBe(true);
  });

  test('properties over random legs and targets: foot length kept, swing in [0, 30 deg], toe on T whenever the swing is under its cap', () => {
    let swungOnT = 0;
    fc.assert(
      fc.property(
        fc.double({ min: 5 * DEG, max: 120 * DEG, noNaN: true }),
        fc.double({ min: -20 * DEG, max: 50 * DEG, noNaN: true }),
        fc.tuple(
          fc.double({ min: -0.2, max: 0.2, noNaN: true }),
          fc.double({ min: -0.05, max: 0.05, noNaN: true }),
          fc.double({ min: -0.3, max: 0.3, noNaN: true }),
        ),
        (flex, pitch, move) => {
          const l = leg(flex, pitch);
          const T = add(l.toe, move as V);
          const dls = new LegDLS();
          const r = run(new ToePivot(), dls, l, T);
          const d = sub(l.ankle, l.toe);
          expect(norm(sub(r.ankleTarget, T))).toBeCloseTo(norm(d), 9);
          expect(r.report.swing).toBeGreaterThanOrEqual(0);
          expect(r.report.swing).toBeLessThanOrEqual(30 * DEG + 1e-12);
          // footDelta takes d to ankleTarget - T
          const qd = vec3.transformQuat(
            new Float64Array(3) as unknown as vec3,
            Float64Array.from(d) as unknown as vec3,
            Float64Array.from(r.q) as unknown as quat,
          );
          expect(norm(sub(v3(qd), sub(r.ankleTarget, T)))).toBeLessThan(1e-9);
          // the toe is where the report says
          expect(Math.abs(norm(sub(r.toe, T)) - r.report.toeError)).toBeLessThan(1e-6);
          // beyond reach with the swing under its cap, and a foot long enough to bridge the gap from the
          // leg's reach to T: the toe is on T
          const bridge = norm(sub(l.hip, T)) <= r.dls.maxHipAnkleDistance + norm(d);
          if (r.report.swing > 0 && r.report.swing < 30 * DEG - 1e-9 && bridge) {
            expect(r.report.toeError).toBeLessThan(1e-3);
            swungOnT++;
          }
          // never the heel pushed down: a swing only ever raises the ankle relative to the source foot
          if (r.report.swing > 0)
            expect(dot(sub(r.ankleTarget, T), [0, 1, 0])).toBeGreaterThan(dot(d, [0, 1, 0]) - 1e-9);
        },
      ),
      { numRuns: 300 },
    );
    // the runs did exercise the pivot (about one in eight turns the foot and keeps the toe on T)
    expect(swungOnT).toBeGreaterThan(15);
  });

  test('continuous across the reach boundary: the ankle target moves with the toe target, the swing grows from 0', () => {
    const l = leg(60 * DEG, 10 * DEG);
    const pv = new ToePivot();
    const dls = new LegDLS();
    let prev: ReturnType<typeof run> | null = null;
    let sawSwing = false;
    let sawNone = false;
    for (let i = 0; i <= 400; i++) {
      const T = add(l.toe, [0, 0, -0.0005 * i]); // 0.5 mm steps back, 20 cm in all
      const r = run(pv, dls, l, T);
      if (r.report.swing > 0) sawSwing = true;
      else sawNone = true;
      if (prev) {
        expect(norm(sub(r.ankleTarget, prev.ankleTarget))).toBeLessThan(0.002);
        expect(norm(sub(r.toe, prev.toe))).toBeLessThan(0.002);
        expect(Math.abs(r.report.swing - prev.report.swing)).toBeLessThan(0.5 * DEG);
      }
      prev = r;
    }
    expect(sawSwing && sawNone).toBe(true);
  });

  test('maxSwing is checked', () => {
    expect(() => new ToePivot({ maxSwing: -1 })).toThrow(RangeError);
    expect(() => new ToePivot({ maxSwing: 4 })).toThrow(/maxSwing/);
  });
});
