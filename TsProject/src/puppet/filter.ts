/**
 * Confidence-weighted smoothing of the 21 joints (issue 12, item 3). Engine-free, allocation-free per frame.
 *
 * Per joint, with c its confidence this frame, thr = visibilityThreshold, s = body scale (Hips-Neck distance,
 * joints.ts computeBodyScale; the running value is an EMA with weight 0.2 per frame that had one):
 * - c >= thr, previous value measured or held:
 *   - jump |new - previous| > outlierJump * s: an outlier, dropped, the previous value held (state held,
 *     confidence x heldDecay); the first such frame always, later ones while the time held <= maxHoldMs;
 *     after that the jump is accepted as is (the person really moved);
 *   - else exponential moving average x += alpha (new - x), alpha = 1 - exp(-dt / tau), tau =
 *     smoothingMs / (c (1 + speedGain v)): a first-order low-pass (exact discretisation for a step of dt) whose
 *     time constant grows as the confidence drops (a measurement of low confidence counts less) and shrinks
 *     with the joint's speed v in body scales / s (One-Euro filter idea, Casiez et al. CHI 2012; v is
 *     |new - previous output| / dt low-passed with a 1 Hz cutoff, tau_v = 1 / (2 pi) s);
 * - c >= thr, no previous value or the previous one was inferred (parent/child/torso/rest): the measurement
 *   is taken as is (a real measurement overwrites a guess at once, not held back by the EMA);
 * - c < thr: not used. A previous measured/held value is held (same time limit); otherwise the joint is
 *   marked in `missing` (state rest, confidence 0, previous position) for the occlusion fill.
 */
import { bodyScaleScratch, computeBodyScale } from './joints';
import type { PoseOptions } from './options';
import { createJointSet, type JointSet, JointStateCode, PUPPET_JOINT_COUNT } from './types';

const J = PUPPET_JOINT_COUNT;
/** Time constant of the speed low-pass, ms: 1 Hz cutoff (One-Euro's dCutoff default), 1000 / (2 pi). */
const SPEED_TAU_MS = 1000 / (2 * Math.PI);

/**
 * Confidence-weighted smoothing of the 21 joints (module doc): a low-confidence measurement counts less, one
 * below the threshold is not used, outliers are dropped. Allocation-free per frame.
 */
export class ConfidenceFilter {
  /** 1 where the joint has no value this frame (for the occlusion fill), after step(). */
  readonly missing = new Uint8Array(J);
  /** Running body scale in pose-space units (0 until a frame had Hips and Neck, or both shoulders). */
  bodyScale = 0;
  /** Outliers dropped since reset (for the log). */
  outliers = 0;
  private readonly prev: JointSet = createJointSet();
  private readonly has = new Uint8Array(J);
  private readonly heldMs = new Float64Array(J);
  private readonly heldCount = new Uint32Array(J);
  private readonly speed = new Float64Array(J);
  private readonly dtBox = new Float64Array(1);
  /** take()'s confidence and blend factor (numbers passed to a call V8 does not inline are boxed). */
  private readonly takeArgs = new Float64Array(2);

  constructor(readonly options: PoseOptions) {}

  /** Forget every joint's history (a new take or a cut): the next frame starts the smoothing afresh. */
  reset(): void {
    this.has.fill(0);
    this.heldMs.fill(0);
    this.heldCount.fill(0);
    this.speed.fill(0);
    this.missing.fill(0);
    this.bodyScale = 0;
    this.outliers = 0;
  }

  /**
   * Filter one frame.
   * @param inJ raw joints (landmarksToJoints) with their confidences, pose space.
   * @param dtMs time since the previous frame, ms (negative is taken as 0).
   * @param out filtered joints (not inJ). Remembered as the previous value unless commit() replaces it.
   */
  step(inJ: JointSet, dtMs: number, out: JointSet): void {
    // the time goes through a typed array: a double passed to a call V8 does not inline is boxed per frame;
    // a NaN or negative step counts as 0 (run() and hold() read it there)
    this.dtBox[0] = Number.isFinite(dtMs) && dtMs > 0 ? dtMs : 0;
    this.run(inJ, out);
  }

  private run(inJ: JointSet, out: JointSet): void {
    const dt = this.dtBox[0];
    const o = this.options;
    const thr = o.visibilityThreshold;
    computeBodyScale(inJ, thr);
    const s0 = bodyScaleScratch[0];
    if (s0 > 0) this.bodyScale = this.bodyScale > 0 ? this.bodyScale + 0.2 * (s0 - this.bodyScale) : s0;
    const jump = o.outlierJump * this.bodyScale;
    const jump2 = jump * jump;
    const prev = this.prev;
    const speedAlpha = 1 - Math.exp(-dt / SPEED_TAU_MS);
    for (let j = 0; j < J; j++) {
      const c = inJ.confidence[j];
      const ps = prev.state[j];
      const prevGood = this.has[j] === 1 && (ps === JointStateCode.Measured || ps === JointStateCode.Held);
      const mayHold = this.heldCount[j] === 0 || this.heldMs[j] + dt <= o.maxHoldMs;
      this.missing[j] = 0;
      if (c >= thr) {
        if (!prevGood) {
          this.speed[j] = 0;
          this.takeArgs[0] = c;
          this.takeArgs[1] = 1;
          this.take(inJ, j, out);
          continue;
        }
        const dx = inJ.x[j] - prev.x[j];
        const dy = inJ.y[j] - prev.y[j];
        const d2 = dx * dx + dy * dy;
        if (this.bodyScale > 0 && d2 > jump2) {
          if (mayHold) {
            this.hold(j, out);
            this.outliers++;
          } else {
            this.speed[j] = 0;
            this.takeArgs[0] = c;
            this.takeArgs[1] = 1;
            this.take(inJ, j, out);
          }
          continue;
        }
        let alpha = 1;
        if (o.smoothingMs > 0 && dt > 0) {
          let gain = 1;
          if (o.speedGain > 0 && this.bodyScale > 0) {
            const v = Math.sqrt(d2) / this.bodyScale / (dt / 1000);
            this.speed[j] += speedAlpha * (v - this.speed[j]);
            gain = 1 + o.speedGain * this.speed[j];
          }
          alpha = 1 - Math.exp((-dt * c * gain) / o.smoothingMs);
        } else if (o.smoothingMs > 0) alpha = 0;
        this.takeArgs[0] = c;
        this.takeArgs[1] = alpha;
        this.take(inJ, j, out);
      } else if (prevGood && mayHold) {
        this.hold(j, out);
      } else {
        out.x[j] = this.has[j] === 1 ? prev.x[j] : inJ.x[j];
        out.y[j] = this.has[j] === 1 ? prev.y[j] : inJ.y[j];
        out.confidence[j] = 0;
        out.state[j] = JointStateCode.Rest;
        this.missing[j] = 1;
        this.heldMs[j] = 0;
        this.heldCount[j] = 0;
      }
    }
    this.commit(out);
  }

  /**
   * Make `final` (e.g. after the occlusion fill) the previous value of the next step, so that the filter
   * knows which values were guesses. A joint still marked missing with confidence 0 (not filled) keeps
   * whether it had a value before.
   */
  commit(final: JointSet): void {
    const p = this.prev;
    for (let j = 0; j < J; j++) {
      p.x[j] = final.x[j];
      p.y[j] = final.y[j];
      p.confidence[j] = final.confidence[j];
      p.state[j] = final.state[j];
      if (!(this.missing[j] === 1 && final.confidence[j] === 0)) this.has[j] = 1;
    }
  }

  private take(inJ: JointSet, j: number, out: JointSet): void {
    const c = this.takeArgs[0];
    const alpha = this.takeArgs[1];
    const p = this.prev;
    if (alpha >= 1) {
      out.x[j] = inJ.x[j];
      out.y[j] = inJ.y[j];
    } else {
      out.x[j] = p.x[j] + alpha * (inJ.x[j] - p.x[j]);
      out.y[j] = p.y[j] + alpha * (inJ.y[j] - p.y[j]);
    }
    out.confidence[j] = c;
    out.state[j] = JointStateCode.Measured;
    this.heldMs[j] = 0;
    this.heldCount[j] = 0;
  }

  /** Keep the previous value of joint j; the frame's time step is dtBox[0], as run() reads it. */
  private hold(j: number, out: JointSet): void {
    const dt = this.dtBox[0];
    const p = this.prev;
    out.x[j] = p.x[j];
    out.y[j] = p.y[j];
    out.confidence[j] = p.confidence[j] * this.options.heldDecay;
    out.state[j] = JointStateCode.Held;
    this.heldMs[j] += dt;
    this.heldCount[j]++;
  }
}
