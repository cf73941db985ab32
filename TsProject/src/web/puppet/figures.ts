/**
 * The page's live figures (browser-side bookkeeping; the measures themselves are the pose side's):
 * - inference rate, Hz: pose results per second over the last {@link RATE_RESULTS} results within
 *   {@link RATE_WINDOW_MS} (so a slow CPU backend at 1 Hz still shows a rate; wall time for the
 *   webcam; for a recording played at once, its own timestamps: the recording's frame rate);
 * - inference time, ms: mean duration of the backend's detect call over the same results;
 * - jitter before and after smoothing: src/puppet metrics `jitter` (mean joint acceleration, second
 *   difference over the frame times) over the last {@link JITTER_FRAMES} frames of the raw joints
 *   (PoseFrameReport.rawJoints, before the confidence filter) and of the pipeline's output, in body
 *   scales / s^2 (divided by the running body scale, the torso length, so it reads the same at any image size);
 *   only joints whose confidence is at least the visibility threshold in the frames used count;
 * - per joint: state (measured / held / parent / child / torso / rest) and confidence, as the pipeline gave them.
 * The windows are rings of preallocated joint sets: recording a frame allocates nothing.
 */
import { copyJointSet, createJointSet, type JointSet, jitter } from '../../puppet';

/** The rate and inference time use the last {@link RATE_RESULTS} results not older than this (ms) before the latest. */
export const RATE_WINDOW_MS = 10000;
export const RATE_RESULTS = 10;
export const JITTER_FRAMES = 30;

export interface FigureValues {
  /** Pose results per second (0 until two results arrived in the window). */
  rateHz: number;
  /** Mean detect duration in the window, ms (NaN when the source is a recording). */
  inferenceMs: number;
  /** Jitter of the raw joints, body scales / s^2 (NaN until 3 frames). */
  jitterRaw: number;
  /** Jitter of the smoothed joints, body scales / s^2. */
  jitterSmoothed: number;
  /** Frames in the jitter window. */
  jitterFrames: number;
}

export class LiveFigures {
  private readonly raw: JointSet[] = [];
  private readonly smooth: JointSet[] = [];
  private readonly times = new Float64Array(JITTER_FRAMES);
  private head = 0;
  private count = 0;
  private readonly arrivals = new Float64Array(256);
  private readonly durations = new Float64Array(256);
  private arrivalHead = 0;
  private arrivalCount = 0;
  bodyScale = 1;

  constructor() {
    for (let i = 0; i < JITTER_FRAMES; i++) {
      this.raw.push(createJointSet());
      this.smooth.push(createJointSet());
    }
  }

  reset(): void {
    this.head = this.count = 0;
    this.arrivalHead = this.arrivalCount = 0;
  }

  /** A pose result arrived at wall time `nowMs` after `durationMs` of inference (NaN: not measured). */
  arrival(nowMs: number, durationMs: number): void {
    this.arrivals[this.arrivalHead] = nowMs;
    this.durations[this.arrivalHead] = durationMs;
    this.arrivalHead = (this.arrivalHead + 1) % this.arrivals.length;
    this.arrivalCount = Math.min(this.arrivalCount + 1, this.arrivals.length);
  }

  /** One processed frame: its time (ms, the frame's timestamp), raw and smoothed joints, the body scale. */
  frame(timeMs: number, raw: JointSet, smoothed: JointSet, bodyScale: number): void {
    copyJointSet(this.raw[this.head], raw);
    copyJointSet(this.smooth[this.head], smoothed);
    this.times[this.head] = timeMs;
    this.head = (this.head + 1) % JITTER_FRAMES;
    this.count = Math.min(this.count + 1, JITTER_FRAMES);
    if (bodyScale > 0) this.bodyScale = bodyScale;
  }

  /**
   * The figures (allocates: called a few times a second for the display and by tests). The rate window
   * ends at the latest arrival (the clock of arrival(): wall time for the webcam, recording time for a file).
   */
  values(minConfidence: number): FigureValues {
    const nowMs = this.arrivalCount
      ? this.arrivals[(this.arrivalHead - 1 + this.arrivals.length) % this.arrivals.length]
      : 0;
    let n = 0;
    let first = Number.POSITIVE_INFINITY;
    let last = Number.NEGATIVE_INFINITY;
    let dur = 0;
    let durN = 0;
    for (let k = 0; k < Math.min(this.arrivalCount, RATE_RESULTS); k++) {
      const i = (this.arrivalHead - 1 - k + this.arrivals.length) % this.arrivals.length;
      const t = this.arrivals[i];
      if (nowMs - t > RATE_WINDOW_MS) break;
      n++;
      first = Math.min(first, t);
      last = Math.max(last, t);
      if (!Number.isNaN(this.durations[i])) {
        dur += this.durations[i];
        durN++;
      }
    }
    const rateHz = n >= 2 && last > first ? ((n - 1) * 1000) / (last - first) : 0;
    const order: number[] = [];
    for (let k = this.count; k > 0; k--) order.push((this.head - k + JITTER_FRAMES) % JITTER_FRAMES);
    const times = order.map((i) => this.times[i]);
    // both over the same joint-frames: those measured (raw confidence at or above the threshold)
    const rawWindow = order.map((i) => this.raw[i]);
    const o = { bodyScale: this.bodyScale, minConfidence, confidenceFrom: rawWindow };
    const enough = order.length >= 3;
    return {
      rateHz,
      inferenceMs: durN > 0 ? dur / durN : Number.NaN,
      jitterRaw: enough ? jitter(rawWindow, times, o) : Number.NaN,
      jitterSmoothed: enough
        ? jitter(
            order.map((i) => this.smooth[i]),
            times,
            o,
          )
        : Number.NaN,
      jitterFrames: order.length,
    };
  }
}
