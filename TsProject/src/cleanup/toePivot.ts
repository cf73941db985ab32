/**
 * Toe pivot (issue 20, item 2): pin the TOE of a foot whose heel is off the ground and let the ankle
 * rotate about it. Engine-free; allocation-free per solve (scratch owned by the solver).
 *
 * Per frame, given the source hip, knee, ankle and toe (world metres) and the toe's target T:
 * 1. Foot first: the foot keeps its source world rotation, so the ankle's target is `A = T + d` with
 *    `d = ankle - toe` of the source frame: the heel rises and falls exactly as in the source and the
 *    toe lands on T.
 * 2. Leg: the damped-least-squares leg solver ({@link LegDLS}, src/ik/dls.ts, the same limits as the
 *    ankle pin: hinge knee, no over-straightening beyond the source + `stretchMargin`, flexion limit)
 *    solves for A.
 * 3. When A is beyond the leg's allowed hip-ankle distance r (the solver clamped it), the foot rotates
 *    about the toe instead of the toe leaving its anchor: the ankle goes to the point of the circle
 *    {|X - T| = |d|, |X - hip| = r} nearest to A (with u = (hip - T) / D, D = |hip - T|:
 *    X = T + a u + rho v, a = (D^2 + |d|^2 - r^2) / (2 D), rho = sqrt(|d|^2 - a^2), v the unit part of
 *    d perpendicular to u), i.e. the heel rises further, as a real foot does when the leg is short. The
 *    rotation (shortest arc from d to X - T) is capped at `maxSwing` (default 30 deg); past it the toe
 *    leaves the anchor (reported). The leg is solved again for X. The foot's world rotation becomes
 *    `footDelta * source`, so the toe (a child of the foot, or a point fixed in its frame) stays on T.
 *    On the other side (the ankle too close to the hip for the knee's flexion limit) the foot is not
 *    rotated: that rotation would push the heel down, and a toe contact never forces the heel down.
 * The result is continuous in the input: at the reach boundary X = A and the rotation is 0.
 */
import type { NumArray } from '../core';
import type { LegDLS } from '../ik/dls';

export interface ToePivotOptions {
  /** Largest rotation of the foot about the toe beyond the source's, radians. Default 30 deg. */
  maxSwing?: number;
}

/** Figures of the last {@link ToePivot.solve} (overwritten each call). */
export interface ToePivotReport {
  /** Distance of the solved toe from its target, metres. */
  toeError: number;
  /** Rotation of the foot about the toe beyond the source's, radians. */
  swing: number;
  /** The toe left its target by more than 1 mm (the leg could not reach even with the foot rotated). */
  outOfReach: boolean;
  /** The knee sits on a flexion limit (the solver's report). */
  kneeAtLimit: boolean;
}

// scratch layout
const D = 0; // source ankle - toe
const A = 3; // ankle target
const SCRATCH = 6;

/**
 * Toe-pivot solver (see the module doc). One instance per leg; `solve` drives the leg's {@link LegDLS}
 * (its `thighDelta`, `shinDelta` and `report` hold the leg's answer) and writes {@link footDelta}.
 */
export class ToePivot {
  /** World rotation to apply to the foot on top of its source world rotation, `[x, y, z, w]`. */
  readonly footDelta = new Float64Array([0, 0, 0, 1]);
  /** The ankle target the leg was solved for last, metres. */
  readonly ankleTarget = new Float64Array(3);
  readonly report: ToePivotReport = { toeError: 0, swing: 0, outOfReach: false, kneeAtLimit: false };
  private readonly s = new Float64Array(SCRATCH);
  private readonly maxSwing: number;

  constructor(options: ToePivotOptions = {}) {
    this.maxSwing = options.maxSwing ?? (30 * Math.PI) / 180;
    if (!(this.maxSwing >= 0 && this.maxSwing < Math.PI))
      throw new RangeError(`ToePivot maxSwing ${this.maxSwing}: need [0, pi) radians`);
  }

  /**
   * Solve one frame.
   * @param dls the leg's solver.
   * @param hip source hip joint (array + offset), metres, world; `knee`, `ankle`, `toe` likewise.
   * @param target the toe's target.
   * @param hingeAxis the knee's bend axis (world), as for {@link LegDLS.solve}.
   */
  solve(
    dls: LegDLS,
    hip: NumArray,
    ho: number,
    knee: NumArray,
    ko: number,
    ankle: NumArray,
    ao: number,
    toe: NumArray,
    to: number,
    target: NumArray,
    tgo: number,
    hingeAxis: NumArray,
    hao: number,
  ): void {
    const s = this.s;
    const q = this.footDelta;
    const r = this.report;
    q[0] = q[1] = q[2] = 0;
    q[3] = 1;
    for (let k = 0; k < 3; k++) {
      s[D + k] = ankle[ao + k] - toe[to + k];
      s[A + k] = target[tgo + k] + s[D + k];
      this.ankleTarget[k] = s[A + k];
    }
    dls.solve(hip, ho, knee, ko, ankle, ao, s, A, hingeAxis, hao);
    r.swing = 0;
    const dMax = dls.report.maxHipAnkleDistance;
    let ux = hip[ho] - target[tgo];
    let uy = hip[ho + 1] - target[tgo + 1];
    let uz = hip[ho + 2] - target[tgo + 2];
    const ax = s[A] - hip[ho];
    const ay = s[A + 1] - hip[ho + 1];
    const az = s[A + 2] - hip[ho + 2];
    const dA = Math.sqrt(ax * ax + ay * ay + az * az);
    const dl2 = s[D] * s[D] + s[D + 1] * s[D + 1] + s[D + 2] * s[D + 2];
    const Dh = Math.sqrt(ux * ux + uy * uy + uz * uz);
    if (dls.report.outOfReach && dA > dMax && this.maxSwing > 0 && dl2 > 1e-16 && Dh > 1e-9) {
      // the circle {|X - T| = |d|, |X - hip| = dMax}: its point nearest A (or the foot pointing at the hip)
      ux /= Dh;
      uy /= Dh;
      uz /= Dh;
      const du = s[D] * ux + s[D + 1] * uy + s[D + 2] * uz;
      let vx = s[D] - du * ux;
      let vy = s[D + 1] - du * uy;
      let vz = s[D + 2] - du * uz;
      const vl = Math.sqrt(vx * vx + vy * vy + vz * vz);
      const dl = Math.sqrt(dl2);
      let a = (Dh * Dh + dl2 - dMax * dMax) / (2 * Dh);
      if (a > dl) a = dl;
      if (a < -dl) a = -dl;
      const rho = Math.sqrt(Math.max(0, dl2 - a * a));
      if (vl > 1e-12) {
        vx /= vl;
        vy /= vl;
        vz /= vl;
      } else vx = vy = vz = 0;
      // wanted foot vector X - T; shortest arc d -> it
      const wx = a * ux + rho * vx;
      const wy = a * uy + rho * vy;
      const wz = a * uz + rho * vz;
      const cx = s[D + 1] * wz - s[D + 2] * wy;
      const cy = s[D + 2] * wx - s[D] * wz;
      const cz = s[D] * wy - s[D + 1] * wx;
      const dot = s[D] * wx + s[D + 1] * wy + s[D + 2] * wz;
      const cl = Math.sqrt(cx * cx + cy * cy + cz * cz);
      let angle = Math.atan2(cl, dot);
      if (angle > this.maxSwing) angle = this.maxSwing;
      if (cl > 1e-12 && angle > 0) {
        const sh = Math.sin(0.5 * angle) / cl;
        q[0] = cx * sh;
        q[1] = cy * sh;
        q[2] = cz * sh;
        q[3] = Math.cos(0.5 * angle);
        r.swing = angle;
        // rotated foot vector: d' = q d; ankle target T + d'
        const qx = q[0];
        const qy = q[1];
        const qz = q[2];
        const qw = q[3];
        const px = s[D];
        const py = s[D + 1];
        const pz = s[D + 2];
        const tx = 2 * (qy * pz - qz * py);
        const ty = 2 * (qz * px - qx * pz);
        const tz = 2 * (qx * py - qy * px);
        s[A] = target[tgo] + px + qw * tx + (qy * tz - qz * ty);
        s[A + 1] = target[tgo + 1] + py + qw * ty + (qz * tx - qx * tz);
        s[A + 2] = target[tgo + 2] + pz + qw * tz + (qx * ty - qy * tx);
        for (let k = 0; k < 3; k++) this.ankleTarget[k] = s[A + k];
        dls.solve(hip, ho, knee, ko, ankle, ao, s, A, hingeAxis, hao);
      }
    }
    // the toe is the solved ankle minus the (rotated) foot vector: its error is the ankle's
    r.toeError = dls.report.pinError;
    r.kneeAtLimit = dls.report.kneeAtLimit;
    r.outOfReach = !(r.toeError <= 1e-3);
  }
}
