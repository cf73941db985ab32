/**
 * The One-Euro filter (src/core/oneEuro.ts) against the paper's formulas (Casiez, Roussel, Vogel,
 * CHI 2012, Algorithm 1): step response, speed-adaptive cutoff, variable intervals and dropped
 * frames, quaternion sign flips, off = identity, no allocation per sample.
 */
import * as path from 'node:path';
import fc from 'fast-check';
import { OneEuroBank, oneEuroAlpha } from '../src/core';
import { runAllocProbe } from './helpers/allocProbe';

/** Algorithm 1 written out for one scalar, independently of the bank. */
function reference(xs: number[], tes: number[], fcmin: number, beta: number, dcut: number): number[] {
  const alpha = (c: number, te: number) => {
    const tau = 1 / (2 * Math.PI * c);
    return 1 / (1 + tau / te);
  };
  const out: number[] = [];
  let xh = 0;
  let dxh = 0;
  for (let i = 0; i < xs.length; i++) {
    if (i === 0) {
      xh = xs[0];
      dxh = 0;
    } else {
      const dx = (xs[i] - xh) / tes[i];
      dxh = dxh + alpha(dcut, tes[i]) * (dx - dxh);
      const c = fcmin + beta * Math.abs(dxh);
      xh = xh + alpha(c, tes[i]) * (xs[i] - xh);
    }
    out.push(xh);
  }
  return out;
}

function runScalar(xs: number[], tes: number[], fcmin: number, beta: number, dcut: number): number[] {
  const bank = new OneEuroBank(1, 'position');
  const v = new Float64Array(3);
  const o = new Float64Array(3);
  return xs.map((x, i) => {
    v[0] = x;
    v[1] = 2 * x;
    v[2] = -x;
    bank.step(0, v, 0, o, 0, tes[i], fcmin, beta, dcut);
    return o[0];
  });
}

describe('One-Euro filter', () => {
  it('alpha = 1 / (1 + tau / Te), tau = 1 / (2 pi fc)', () => {
    // fc 1 Hz at 100 Hz: tau = 0.159154943, alpha = 1 / (1 + 15.9154943) = 0.0591174
    expect(oneEuroAlpha(1, 0.01)).toBeCloseTo(0.059117397, 8);
    expect(oneEuroAlpha(10, 1 / 120)).toBeCloseTo(1 / (1 + 1 / ((2 * Math.PI * 10) / 120)), 14);
  });

  it('step response with beta 0 is the first-order low-pass: 1 - (1 - alpha)^k', () => {
    const n = 50;
    const xs = [0, ...Array(n).fill(1)];
    const tes = Array(n + 1).fill(0.01);
    const out = runScalar(xs, tes, 1, 0, 1);
    const a = 0.059117397;
    for (let k = 1; k <= n; k++) expect(out[k]).toBeCloseTo(1 - (1 - a) ** k, 7);
    // known answer: after 0.1 s (10 samples) the output is 45.6% of the step
    expect(out[10]).toBeCloseTo(0.456, 3);
  });

  it('the cutoff rises with speed: fc = fcmin + beta |dx̂| (first ramp sample by hand)', () => {
    // ramp at 2 m/s sampled at 100 Hz; sample 1: dx = 2, dx̂ = alpha(1 Hz) * 2 = 0.118235,
    // fc = 1 + 10 * 0.118235 = 2.18235 Hz, alpha = 1 / (1 + 1 / (2 pi 2.18235 0.01)) = 0.120576, x̂ = 0.02 alpha
    const xs = Array.from({ length: 200 }, (_, i) => 0.02 * i);
    const tes = Array(200).fill(0.01);
    const out = runScalar(xs, tes, 1, 10, 1);
    expect(out[1]).toBeCloseTo(0.02 * 0.120576, 6);
    // the same ramp with beta 0 lags far more: the speed-adaptive cutoff is what keeps the timing
    const slow = runScalar(xs, tes, 1, 0, 1);
    const lag = (o: number[]) => (xs[199] - o[199]) / 2; // seconds behind at 2 m/s
    expect(lag(slow)).toBeCloseTo(1 / (2 * Math.PI), 1); // a first-order low-pass lags a ramp by tau
    expect(lag(out)).toBeLessThan(0.1 * lag(slow));
    // and matches Algorithm 1 written out, sample for sample
    const ref = reference(xs, tes, 1, 10, 1);
    for (let i = 0; i < 200; i++) expect(out[i]).toBeCloseTo(ref[i], 12);
  });

  it('the derivative is taken from the previous FILTERED value, as Algorithm 1 (step by hand)', () => {
    // step 0 -> 1 at 100 Hz, fcmin 1 Hz, beta 10, dcutoff 1 Hz. Sample 1: dx = 100, dx̂ = 0.0591174 * 100,
    // fc = 60.1174 Hz, x̂1 = alpha(fc) = 0.790676. Sample 2 (x = 1 again): the paper's
    // dx = (x2 - x̂1) * rate = 20.93 gives dx̂ = 6.7998, fc = 68.998 Hz, x̂2 = 0.960766; a derivative from
    // the previous RAW sample (x2 - x1 = 0, as some early ports do) would give x̂2 = 0.954072.
    const out = runScalar([0, 1, 1], [0.01, 0.01, 0.01], 1, 10, 1);
    expect(out[1]).toBeCloseTo(0.7906762, 7);
    expect(out[2]).toBeCloseTo(0.9607657, 7);
  });

  it('follows Algorithm 1 for any samples and intervals (variable dt), each axis alone', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -5, max: 5, noNaN: true }), { minLength: 2, maxLength: 40 }),
        fc.array(fc.double({ min: 0.002, max: 0.1, noNaN: true }), { minLength: 40, maxLength: 40 }),
        fc.double({ min: 0.1, max: 20, noNaN: true }),
        fc.double({ min: 0, max: 50, noNaN: true }),
        fc.double({ min: 0.1, max: 10, noNaN: true }),
        (xs, tes, fcmin, beta, dcut) => {
          const out = runScalar(xs, tes, fcmin, beta, dcut);
          const ref = reference(xs, tes, fcmin, beta, dcut);
          for (let i = 0; i < xs.length; i++) expect(Math.abs(out[i] - ref[i])).toBeLessThan(1e-9);
        },
      ),
    );
  });

  it('a dropped frame is a longer interval: alpha takes the real interval', () => {
    // two frames lost at 120 Hz: the step arrives 3/120 s after the last sample; beta 0, fc 2 Hz:
    // x̂ = alpha(2, 0.025) = 1 / (1 + 1 / (2 pi 2 0.025)) = 0.2390572, not alpha(2, 1/120) = 0.0947931
    const out = runScalar([0, 1], [1 / 120, 3 / 120], 2, 0, 1);
    expect(out[1]).toBeCloseTo(0.2390572, 6);
    expect(runScalar([0, 1], [1 / 120, 1 / 120], 2, 0, 1)[1]).toBeCloseTo(0.0947931, 6);
    // a gap over ONE_EURO_RESET_GAP restarts on the sample; a zero interval holds the output
    const restarted = runScalar([0, 0, 5], [0.01, 0.01, 0.6], 1, 0, 1);
    expect(restarted[2]).toBe(5);
    const held = runScalar([0, 1, 7], [0.01, 0.01, 0], 1, 0, 1);
    expect(held[2]).toBe(held[1]);
  });

  it('a quaternion sign flip in the input gives the same output (no jump), renormalised', () => {
    const n = 200;
    const te = 1 / 120;
    const a = new OneEuroBank(1, 'rotation');
    const b = new OneEuroBank(1, 'rotation');
    const qa = new Float64Array(4);
    const qb = new Float64Array(4);
    const oa = new Float64Array(4);
    const ob = new Float64Array(4);
    let maxStep = 0;
    const prev = new Float64Array([0, 0, 0, 1]);
    for (let i = 0; i < n; i++) {
      const ang = 2 * Math.sin(i * te * 3); // swinging about a tilted axis, up to 2 rad
      const s = Math.sin(ang / 2);
      qa.set([0.6 * s, 0.8 * s, 0, Math.cos(ang / 2)]);
      const flip = i % 7 === 3 ? -1 : 1;
      for (let c = 0; c < 4; c++) qb[c] = flip * qa[c];
      a.step(0, qa, 0, oa, 0, te, 1, 0.5, 1);
      b.step(0, qb, 0, ob, 0, te, 1, 0.5, 1);
      for (let c = 0; c < 4; c++) expect(ob[c]).toBe(oa[c]);
      expect(Math.hypot(ob[0], ob[1], ob[2], ob[3])).toBeCloseTo(1, 14);
      if (i > 0) {
        const d = Math.abs(ob[0] * prev[0] + ob[1] * prev[1] + ob[2] * prev[2] + ob[3] * prev[3]);
        maxStep = Math.max(maxStep, 2 * Math.acos(Math.min(1, d)));
        // the output stays in one hemisphere: consecutive outputs are close as 4-vectors
        expect(ob[0] * prev[0] + ob[1] * prev[1] + ob[2] * prev[2] + ob[3] * prev[3]).toBeGreaterThan(0.99);
      }
      prev.set(ob);
    }
    expect(maxStep).toBeLessThan(0.1); // the input moves at most 6 rad/s * 1/120 s = 0.05 rad per frame
  });

  it('off (minCutoff 0) passes the input through bit for bit, NaN and -0 included', () => {
    const p = new OneEuroBank(2, 'position');
    const r = new OneEuroBank(2, 'rotation');
    const x = new Float64Array([0.1 + 0.2, -0, Number.NaN, 1e-300, 5, -7]);
    const q = new Float64Array([0.1, 0.2, 0.3, 0.9, -0, Number.NaN, 1, 3]);
    const ox = new Float64Array(6);
    const oq = new Float64Array(8);
    for (let c = 0; c < 2; c++) {
      p.step(c, x, 3 * c, ox, 3 * c, 0.01, 0, 5, 1);
      r.step(c, q, 4 * c, oq, 4 * c, 0.01, 0, 5, 1);
    }
    expect(Object.is(ox[1], -0)).toBe(true);
    expect(new Uint8Array(ox.buffer)).toEqual(new Uint8Array(x.buffer));
    expect(new Uint8Array(oq.buffer)).toEqual(new Uint8Array(q.buffer));
  });

  it('allocates nothing per sample (measured in a plain Node process)', () => {
    const src = path.resolve(__dirname, '../src/core');
    const r = runAllocProbe(`
      import * as c from ${JSON.stringify(src)};
      const p = new c.OneEuroBank(4, 'position');
      const q = new c.OneEuroBank(4, 'rotation');
      const x = new Float64Array(12), o = new Float64Array(16), y = new Float64Array(16);
      const t = new Float64Array(1);
      result.position = bytesPerCall(() => { t[0] += 0.01; x[0] = Math.sin(t[0]); for (let k = 0; k < 4; k++) p.step(k, x, 3 * k, o, 3 * k, 1 / 120, 1, 0.5, 1); });
      result.rotation = bytesPerCall(() => { t[0] += 0.01; y[3] = 1; y[0] = 0.1 * Math.sin(t[0]); for (let k = 0; k < 4; k++) q.step(k, y, 0, o, 4 * k, 1 / 120, 1, 0.5, 1); });
    `);
    expect(r.position).toBeLessThan(1);
    expect(r.rotation).toBeLessThan(1);
  });
});
