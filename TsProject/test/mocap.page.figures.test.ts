/**
 * The mocap page's live figures (src/web/mocap/figures.ts) on made-up frames with known answers: rate from
 * the frame times, inference and pose means over the window, jitter = the mean joint acceleration relative to
 * the hips (0 for constant velocity, `a` for p = a t^2 / 2 at uneven steps), bones not measured left out.
 */
import { MOCAP_BONE_COUNT } from '../src/mocap';
import { MocapFigures, WINDOW } from '../src/web/mocap/figures';

const N = MOCAP_BONE_COUNT;

/** Joint positions: the hips at `hips`, every other joint at `hips + offset(i) + (x, 0, 0)`. */
function positions(hips: number[], x: number): Float64Array {
  const p = new Float64Array(3 * N);
  for (let i = 0; i < N; i++) {
    p[3 * i] = hips[0] + (i ? x + 0.01 * i : 0);
    p[3 * i + 1] = hips[1] + 0.05 * i;
    p[3 * i + 2] = hips[2];
  }
  return p;
}

describe('mocap page figures', () => {
  it('before any frame: NaN means, rate 0', () => {
    const v = new MocapFigures().values();
    expect(v.rateHz).toBe(0);
    expect(v.inferenceMs).toBeNaN();
    expect(v.poseMs).toBeNaN();
    expect(v.jitter).toBeNaN();
  });

  it('constant velocity reads 0 jitter whatever the hips do; p = a t^2 / 2 reads a at uneven steps', () => {
    const still = new Uint8Array(N); // all measured
    const f = new MocapFigures();
    let t = 0;
    for (let k = 0; k < 10; k++) {
      t += k % 2 ? 30 : 40; // uneven frame steps, ms
      // joints move at 0.5 m/s relative to the hips; the hips accelerate (left out: relative to the hips)
      f.frame(t, positions([(t / 1000) ** 2, 0.9, 0], 0.5 * (t / 1000)), still, 1);
    }
    expect(f.values().jitter).toBeCloseTo(0, 9);
    const g = new MocapFigures();
    t = 0;
    const a = 3; // m/s^2
    for (let k = 0; k < 10; k++) {
      t += k % 2 ? 25 : 45;
      const s = t / 1000;
      g.frame(t, positions([0, 0.9, 0], 0.5 * a * s * s), still, 2);
    }
    const v = g.values();
    expect(v.jitter).toBeCloseTo(a, 9);
    expect(v.poseMs).toBe(2);
    expect(v.rateHz).toBeCloseTo((9 * 1000) / (t - 45), 9);
  });

  it('bones not measured in all three frames of a triple are left out; the windows keep the last 30', () => {
    const f = new MocapFigures();
    const state = new Uint8Array(N).fill(1); // held
    state[7] = 0; // one joint measured, with a 1 cm spike; the held ones spike by 5 cm
    for (let k = 0; k < 5; k++) {
      const p = positions([0, 0.9, 0], 0);
      if (k === 2) for (let i = 1; i < N; i++) p[3 * i] += i === 7 ? 0.01 : 0.05; // at frame 2, 100 ms steps
      f.frame(100 * k, p, state, 1);
    }
    // triples (0,1,2), (1,2,3), (2,3,4) of the measured joint: 2 ((p2 - p1) / 0.1 - (p1 - p0) / 0.1) / 0.2 =
    // 1, -2, 1 m/s^2
    expect(f.values().jitter).toBeCloseTo((1 + 2 + 1) / 3, 9);
    for (let k = 0; k < WINDOW + 5; k++) f.inference(k < 5 ? 1000 : 10);
    expect(f.values().inferenceMs).toBe(10);
  });
});
