/**
 * Toe pivot (issue 20, item 2): pin the TOE of a foot whose heel is off the ground and let the ankle
 * rotate about it. Engine-free; allocation-free per solve (scratch owned by the solver).
 *
 * Per frame, given the source hip, knee, ankle and toe (world metres), up, and the toe's target T:
 * 1. Foot first: the foot keeps its source world rotation, so the ankle's target is `A = T + d` with
 *    `d = ankle - toe` of the source frame: the heel rises and falls exactly as in the source and the
 *    toe lands on T.
 * 2. Leg: the damped-least-squares leg solver ({@link LegDLS}, src/ik/dls.ts, the same limits as the
 *    ankle pin: hinge knee, no over-straightening beyond the source + `stretchMargin`, flexion limit)
 *    solves for A.
 * 3. When A is beyond the leg's allowed hip-ankle distance r (the solver clamped it), the toe's target
 *    first rises toward the source toe's own height, by at most {@link ToePivot.slack} (the stance's
 *    lowering, `lift`, that put the foot on its ground): the smallest rise s along up with
 *    `|A + s up - hip| = r` (`s = -b - sqrt(b^2 - c)`, b = up.(A - hip), c = |A - hip|^2 - r^2), or
 *    all of the slack when that is not enough. A source toe is never pushed below where it was to stand
 *    a foot lower than the leg reaches: the toe stays where the source had it, horizontally pinned.
 * 4. When that is not enough either, the foot pitches
 *    heel-up about the toe instead of the toe leaving its anchor, as a real foot does when the leg is
 *    short: a rotation by phi >= 0 about the foot's lateral axis `a = unit(d x up)`, which takes the
 *    ankle to `X(phi) = T + d cos(phi) + e sin(phi)` (e = a x d: up and over the toe). With g = T - hip,
 *    `|X - hip|^2 = |g|^2 + |d|^2 + 2 (p cos(phi) + q sin(phi))`, p = g.d, q = g.e, so the reach
 *    `|X - hip| = r` holds at `phi = phi0 -+ acos(k / R)` (R = hypot(p, q), phi0 = atan2(q, p),
 *    k = (r^2 - |g|^2 - |d|^2) / 2): the smallest such phi in (0, phiMax] is taken, else the phi in
 *    [0, phiMax] nearest the hip. phiMax = min(`maxSwing` (default 30 deg), pi - 2 theta), theta the
 *    source foot's elevation (atan2(d.up, |d x up|)), so the heel never ends lower than in the source.
 *    The leg is solved again for X; past phiMax the toe leaves the anchor (reported). The foot's world
 *    rotation becomes `footDelta * source`, so the toe (a child of the foot, or a point fixed in its
 *    frame) stays on T.
 *    On the other side (the ankle too close to the hip for the knee's flexion limit) the foot is not
 *    rotated: that would push the heel down, and a toe contact never forces the heel down.
 * The result is continuous in the input: at the reach boundary phi = 0.
 *
 * Held heading (./pins.ts step 5): the caller may set {@link ToePivot.yaw}, a turn of the foot about up
 * (radians); then `d` is the source's `ankle - toe` turned by it, and the foot's world delta is the
 * pitch of step 4 times that turn, so the toe still lands on T.
 */
import { type NumArray, qmul } from '../core';
import type { LegDLS } from '../ik/dls';

/** Options of the toe pivot (the foot turning about a pinned toe). */
export interface ToePivotOptions {
  /** Largest rotation of the foot about the toe beyond the source's, radians. Default 30 deg. */
  maxSwing?: number;
}

/** Figures of the last {@link ToePivot.solve} (overwritten each call). */
export interface ToePivotReport {
  /** Distance of the solved toe from its target (raised by the slack used: {@link ToePivot.toeTarget}), metres. */
  toeError: number;
  /** Heel-up rotation of the foot about the toe beyond the source's, radians. */
  swing: number;
  /** The toe left its target by more than 1 mm (the leg could not reach even with the foot rotated). */
  outOfReach: boolean;
  /** The knee sits on a flexion limit (the solver's report). */
  kneeAtLimit: boolean;
}

// scratch layout
const D = 0; // source ankle - toe
const A = 3; // ankle target
const E = 6; // a x d
const T = 9; // toe target (raised by the slack used)
const DM = 12; // the leg's largest hip-ankle distance this frame
const YQ = 13; // the yaw quaternion (about up)
const PQ = 17; // the pitch quaternion (about the lateral axis)
const SCRATCH = 21;

/**
 * Toe-pivot solver (see the module doc). One instance per leg; `solve` drives the leg's {@link LegDLS}
 * (its `thighDelta`, `shinDelta` and `report` hold the leg's answer) and writes {@link footDelta}.
 */
export class ToePivot {
  /** World rotation to apply to the foot on top of its source world rotation, `[x, y, z, w]`. */
  readonly footDelta = new Float64Array([0, 0, 0, 1]);
  /** The ankle target the leg was solved for last, metres. */
  readonly ankleTarget = new Float64Array(3);
  /** The toe target used last (the given one, raised by the slack used), metres. */
  readonly toeTarget = new Float64Array(3);
  /**
   * Set by the caller before each {@link solve}: how far (metres, along up) the toe's target may rise
   * toward the source toe's height when the leg cannot reach (step 3); 0 = not at all.
   */
  readonly slack = new Float64Array(1);
  /**
   * Set by the caller before each {@link solve}: the foot's turn about up on top of its source rotation,
   * radians (./pins.ts step 5, the held heading); 0 = none.
   */
  readonly yaw = new Float64Array(1);
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
   * @param up unit world up (the floor normal).
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
    up: NumArray,
    uo: number,
    hingeAxis: NumArray,
    hao: number,
  ): void {
    const s = this.s;
    const q = this.footDelta;
    const yh = 0.5 * this.yaw[0];
    const ys = Math.sin(yh);
    s[YQ] = up[uo] * ys;
    s[YQ + 1] = up[uo + 1] * ys;
    s[YQ + 2] = up[uo + 2] * ys;
    s[YQ + 3] = Math.cos(yh);
    for (let k = 0; k < 4; k++) q[k] = s[YQ + k];
    for (let k = 0; k < 3; k++) s[D + k] = ankle[ao + k] - toe[to + k];
    if (this.yaw[0] !== 0) {
      // d turned about up by the yaw (Rodrigues)
      const c = Math.cos(this.yaw[0]);
      const sn = Math.sin(this.yaw[0]);
      const x = s[D];
      const y = s[D + 1];
      const z = s[D + 2];
      const ux = up[uo];
      const uy = up[uo + 1];
      const uz = up[uo + 2];
      const dd = (x * ux + y * uy + z * uz) * (1 - c);
      s[D] = x * c + (uy * z - uz * y) * sn + ux * dd;
      s[D + 1] = y * c + (uz * x - ux * z) * sn + uy * dd;
      s[D + 2] = z * c + (ux * y - uy * x) * sn + uz * dd;
    }
    for (let k = 0; k < 3; k++) {
      s[T + k] = target[tgo + k];
      s[A + k] = s[T + k] + s[D + k];
    }
    dls.solve(hip, ho, knee, ko, ankle, ao, s, A, hingeAxis, hao);
    this.report.swing = 0;
    s[DM] = dls.report.maxHipAnkleDistance;
    const reached =
      dls.report.outOfReach &&
      this.slack[0] > 0 &&
      this.rise(dls, hip, ho, knee, ko, ankle, ao, up, uo, hingeAxis, hao);
    if (!reached && dls.report.outOfReach)
      this.pitch(dls, hip, ho, knee, ko, ankle, ao, up, uo, hingeAxis, hao);
    this.finish(dls);
  }

  /** Step 3: the toe's target rises along up, at most by the slack. True when the leg then reaches. */
  private rise(
    dls: LegDLS,
    hip: NumArray,
    ho: number,
    knee: NumArray,
    ko: number,
    ankle: NumArray,
    ao: number,
    up: NumArray,
    uo: number,
    hingeAxis: NumArray,
    hao: number,
  ): boolean {
    const s = this.s;
    const slack = this.slack[0];
    const ex = s[A] - hip[ho];
    const ey = s[A + 1] - hip[ho + 1];
    const ez = s[A + 2] - hip[ho + 2];
    const b = ex * up[uo] + ey * up[uo + 1] + ez * up[uo + 2];
    const c = ex * ex + ey * ey + ez * ez - s[DM] * s[DM];
    // beyond reach (c > 0) with the ankle below the hip (b < 0): rising brings it nearer, until -b
    let rise = 0;
    let reached = false;
    if (c > 0 && b < 0) {
      const disc = b * b - c;
      if (disc >= 0) {
        const root = -b - Math.sqrt(disc);
        reached = root <= slack;
        rise = reached ? root : slack;
      } else rise = Math.min(-b, slack);
    }
    if (rise > 0) {
      for (let k = 0; k < 3; k++) {
        s[T + k] += rise * up[uo + k];
        s[A + k] += rise * up[uo + k];
      }
      dls.solve(hip, ho, knee, ko, ankle, ao, s, A, hingeAxis, hao);
    }
    return reached;
  }

  /** Step 4: the foot pitches heel-up about the toe by the smallest angle that lets the leg reach. */
  private pitch(
    dls: LegDLS,
    hip: NumArray,
    ho: number,
    knee: NumArray,
    ko: number,
    ankle: NumArray,
    ao: number,
    up: NumArray,
    uo: number,
    hingeAxis: NumArray,
    hao: number,
  ): void {
    const s = this.s;
    const q = this.footDelta;
    const dMax = s[DM];
    const dx = s[D];
    const dy = s[D + 1];
    const dz = s[D + 2];
    const ax0 = s[A] - hip[ho];
    const ay0 = s[A + 1] - hip[ho + 1];
    const az0 = s[A + 2] - hip[ho + 2];
    // lateral axis a = unit(d x up), e = a x d
    const ux = up[uo];
    const uy = up[uo + 1];
    const uz = up[uo + 2];
    let ax = dy * uz - dz * uy;
    let ay = dz * ux - dx * uz;
    let az = dx * uy - dy * ux;
    const al = Math.sqrt(ax * ax + ay * ay + az * az);
    const dl2 = dx * dx + dy * dy + dz * dz;
    if (!(Math.sqrt(ax0 * ax0 + ay0 * ay0 + az0 * az0) > dMax && this.maxSwing > 0 && al > 1e-9 * dl2))
      return;
    ax /= al;
    ay /= al;
    az /= al;
    s[E] = ay * dz - az * dy;
    s[E + 1] = az * dx - ax * dz;
    s[E + 2] = ax * dy - ay * dx;
    // the heel never ends lower than the source's: theta + phi <= pi - theta
    const theta = Math.atan2(dx * ux + dy * uy + dz * uz, al);
    let phiMax = Math.PI - 2 * theta;
    if (phiMax > this.maxSwing) phiMax = this.maxSwing;
    if (!(phiMax > 0)) return;
    const gx = s[T] - hip[ho];
    const gy = s[T + 1] - hip[ho + 1];
    const gz = s[T + 2] - hip[ho + 2];
    const p = gx * dx + gy * dy + gz * dz;
    const qq = gx * s[E] + gy * s[E + 1] + gz * s[E + 2];
    const R = Math.sqrt(p * p + qq * qq);
    const k = 0.5 * (dMax * dMax - (gx * gx + gy * gy + gz * gz) - dl2);
    const phi0 = Math.atan2(qq, p);
    const TWO_PI = 2 * Math.PI;
    // f(phi) = p cos(phi) + q sin(phi) = R cos(phi - phi0); the nearest approach to the hip is at phi0 + pi
    let phi = -1;
    if (R > 1e-15 && Math.abs(k) <= R) {
      const c = Math.acos(k / R);
      // smallest root in (0, phiMax]: candidates phi0 - c and phi0 + c, taken modulo 2 pi into [0, 2 pi)
      let r1 = (phi0 - c) % TWO_PI;
      if (r1 < 0) r1 += TWO_PI;
      let r2 = (phi0 + c) % TWO_PI;
      if (r2 < 0) r2 += TWO_PI;
      if (r1 > 0 && r1 <= phiMax) phi = r1;
      if (r2 > 0 && r2 <= phiMax && (phi < 0 || r2 < phi)) phi = r2;
    }
    if (phi < 0) {
      // no root in range: the phi of [0, phiMax] with the ankle nearest the hip (smallest f)
      let m = (phi0 + Math.PI) % TWO_PI;
      if (m < 0) m += TWO_PI;
      phi = m <= phiMax ? m : p * Math.cos(phiMax) + qq * Math.sin(phiMax) < p ? phiMax : 0;
    }
    if (!(phi > 0)) return;
    // q = pitch * yaw (the pitch about the turned foot's lateral axis, after the held heading's turn)
    const sh = Math.sin(0.5 * phi);
    s[PQ] = ax * sh;
    s[PQ + 1] = ay * sh;
    s[PQ + 2] = az * sh;
    s[PQ + 3] = Math.cos(0.5 * phi);
    qmul(q, 0, s, PQ, s, YQ);
    this.report.swing = phi;
    const c = Math.cos(phi);
    const sn = Math.sin(phi);
    for (let j = 0; j < 3; j++) s[A + j] = s[T + j] + s[D + j] * c + s[E + j] * sn;
    dls.solve(hip, ho, knee, ko, ankle, ao, s, A, hingeAxis, hao);
  }

  /** The report and the targets used, after the leg's last solve. */
  private finish(dls: LegDLS): void {
    const s = this.s;
    const r = this.report;
    for (let k = 0; k < 3; k++) {
      this.ankleTarget[k] = s[A + k];
      this.toeTarget[k] = s[T + k];
    }
    // the toe is the solved ankle minus the (rotated) foot vector: its error is the ankle's
    r.toeError = dls.report.pinError;
    r.kneeAtLimit = dls.report.kneeAtLimit;
    r.outOfReach = !(r.toeError <= 1e-3);
  }
}
