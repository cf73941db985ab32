/**
 * The mocap page's live figures (browser-side bookkeeping over rings made once; `frame` allocates nothing):
 * - rate, Hz: frames per second over the last {@link WINDOW} frames (the frames' own timestamps);
 * - inference, ms: mean duration of the pose backend's detect call over the last {@link WINDOW} detections;
 * - pose, ms: mean duration of the solver step plus the retargeting onto the avatar, same window;
 * - jitter, m/s^2: the mean size of the joints' acceleration relative to the hips (second difference over
 *   uneven frame times, `2 ((p2 - p1) / dt2 - (p1 - p0) / dt1) / (dt1 + dt2)`), over the joints whose bone
 *   was measured in all three frames of each triple, in the last {@link WINDOW} frames. A still performer
 *   reads near 0; noise of a few millimetres at 30 fps reads metres per second squared.
 */
import { MOCAP_BONE_COUNT } from '../../mocap';

export const WINDOW = 30;
const N = MOCAP_BONE_COUNT;

export interface MocapFigureValues {
  rateHz: number;
  inferenceMs: number;
  poseMs: number;
  jitter: number;
}

export class MocapFigures {
  private readonly pos = new Float64Array(WINDOW * 3 * N);
  private readonly ok = new Uint8Array(WINDOW * N);
  private readonly times = new Float64Array(WINDOW);
  private readonly poseMs = new Float64Array(WINDOW);
  private readonly inferMs = new Float64Array(WINDOW);
  private head = 0;
  private count = 0;
  private inferHead = 0;
  private inferCount = 0;

  reset(): void {
    this.head = this.count = this.inferHead = this.inferCount = 0;
  }

  /** A detection took `ms`. */
  inference(ms: number): void {
    this.inferMs[this.inferHead] = ms;
    this.inferHead = (this.inferHead + 1) % WINDOW;
    this.inferCount = Math.min(this.inferCount + 1, WINDOW);
  }

  /** A solved frame at `timeMs`: joint positions `3 * 21` (metres), states (0 measured), the pose step's duration. */
  frame(timeMs: number, positions: ArrayLike<number>, state: ArrayLike<number>, poseMs: number): void {
    const h = this.head;
    for (let i = 0; i < N; i++) {
      for (let k = 0; k < 3; k++) this.pos[3 * N * h + 3 * i + k] = positions[3 * i + k] - positions[k];
      this.ok[N * h + i] = state[i] === 0 ? 1 : 0;
    }
    this.times[h] = timeMs;
    this.poseMs[h] = poseMs;
    this.head = (h + 1) % WINDOW;
    this.count = Math.min(this.count + 1, WINDOW);
  }

  values(): MocapFigureValues {
    const order: number[] = [];
    for (let k = this.count; k > 0; k--) order.push((this.head - k + WINDOW) % WINDOW);
    let pose = 0;
    for (const i of order) pose += this.poseMs[i];
    let inf = 0;
    for (let k = 0; k < this.inferCount; k++) inf += this.inferMs[k];
    const span = order.length >= 2 ? this.times[order[order.length - 1]] - this.times[order[0]] : 0;
    let acc = 0;
    let n = 0;
    for (let t = 2; t < order.length; t++) {
      const [a, b, c] = [order[t - 2], order[t - 1], order[t]];
      const dt1 = (this.times[b] - this.times[a]) / 1000;
      const dt2 = (this.times[c] - this.times[b]) / 1000;
      if (!(dt1 > 0 && dt2 > 0)) continue;
      for (let i = 1; i < N; i++) {
        if (!this.ok[N * a + i] || !this.ok[N * b + i] || !this.ok[N * c + i]) continue;
        let s = 0;
        for (let k = 0; k < 3; k++) {
          const p0 = this.pos[3 * N * a + 3 * i + k];
          const p1 = this.pos[3 * N * b + 3 * i + k];
          const p2 = this.pos[3 * N * c + 3 * i + k];
          const d = (2 * ((p2 - p1) / dt2 - (p1 - p0) / dt1)) / (dt1 + dt2);
          s += d * d;
        }
        acc += Math.sqrt(s);
        n++;
      }
    }
    return {
      rateHz: span > 0 ? ((order.length - 1) * 1000) / span : 0,
      inferenceMs: this.inferCount ? inf / this.inferCount : Number.NaN,
      poseMs: order.length ? pose / order.length : Number.NaN,
      jitter: n ? acc / n : Number.NaN,
    };
  }
}
