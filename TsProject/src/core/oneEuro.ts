/**
 * The One-Euro filter (1€ filter): a first-order low-pass whose cutoff rises with speed, so slow motion
 * loses its jitter and fast motion keeps its timing. Engine-free, allocation-free per sample.
 *
 * Source: G. Casiez, N. Roussel, D. Vogel, "1€ Filter: A Simple Speed-based Low-pass Filter for Noisy
 * Input in Interactive Systems", CHI 2012 (https://doi.org/10.1145/2207676.2208639), Algorithm 1.
 * Per sample `x` at interval `Te` seconds (the time since the previous sample):
 * - `alpha(fc) = 1 / (1 + tau / Te)`, `tau = 1 / (2 pi fc)` (smoothing factor of an exponential
 *   low-pass with cutoff `fc` Hz);
 * - derivative `dx = (x - x̂prev) / Te`, smoothed with the fixed derivative cutoff `dCutoff`:
 *   `dx̂ = dx̂prev + alpha(dCutoff) (dx - dx̂prev)`. The difference is taken from the previous FILTERED
 *   value `x̂prev`, not the previous raw sample: Algorithm 1 of the paper computes it as
 *   `(X - x.hatxprev()) * rate` (rate = 1 / Te), and the authors' reference implementation does the
 *   same (github.com/casiez/OneEuroFilter, typescript/src/OneEuroFilter.ts at commit 32a58a93,
 *   `OneEuroFilter.filter`: `(value - x.lastFilteredValue()) * freq`). Some early ports use the
 *   previous raw value (`lastRawValue()`, e.g. F. Renaut's JavaScript port listed on the authors' page); they
 *   differ from the second sample of a step on (test/oneEuro.test.ts has the hand-computed case);
 * - cutoff `fc = minCutoff + beta |dx̂|`;
 * - output `x̂ = x̂prev + alpha(fc) (x - x̂prev)`. The first sample passes through (`x̂ = x`, `dx̂ = 0`).
 *
 * Two kinds of channel:
 * - positions, filtered per axis (three independent scalar filters, as the paper does for each
 *   coordinate); `beta` in seconds per metre: the cutoff rises by `beta` Hz per m/s;
 * - unit quaternions `[x, y, z, w]`: the input is put in the previous output's hemisphere (`q` and
 *   `-q` are one rotation; a sign flip in the stream is no jump), the "derivative" is the angular speed
 *   `2 acos(|q · q̂prev|) / Te` in rad/s (`beta` then in seconds per radian), the low-pass is taken on the
 *   four components and the result renormalised (an nlerp from `q̂prev` toward `q` by `alpha(fc)`).
 *
 * Variable intervals: `Te` is each sample's own interval, so alpha follows the real frame rate (NatNet
 * timestamps, Unity's dt); a dropped frame gives the next sample twice the interval and a larger alpha,
 * which is the right weight for the older state. A gap longer than {@link ONE_EURO_RESET_GAP} seconds
 * (tracking lost, a stalled stream) restarts the channel on the new sample rather than sliding from a
 * stale pose. `Te <= 0` or not finite (a repeated frame) holds the previous output and leaves the state
 * as is. A non-finite input component holds the previous output too (a NaN in the state would stay
 * forever); before the first good sample it passes through.
 *
 * Off: `minCutoff <= 0` passes the input through unchanged (copied, bit for bit) and forgets the state,
 * so turning the filter on later starts from the then-current sample.
 */

/** The paper's three parameters. */
export interface OneEuroParams {
  /** Cutoff at rest, Hz (`fcmin`); `0` = off (pass-through). */
  minCutoff: number;
  /** Cutoff rise per unit speed: Hz per m/s (positions), per rad/s (rotations). */
  beta: number;
  /** Cutoff of the derivative's low-pass, Hz (`dcutoff`; the paper uses 1 Hz). */
  dCutoff: number;
}

/** A gap (seconds) after which a channel restarts on the new sample. */
export const ONE_EURO_RESET_GAP = 0.5;

const TWO_PI = 2 * Math.PI;

/** `1 / (1 + tau / te)` with `tau = 1 / (2 pi cutoff)` (the paper's smoothing factor). */
export function oneEuroAlpha(cutoff: number, te: number): number {
  return 1 / (1 + 1 / (TWO_PI * cutoff * te));
}

/**
 * `count` channels of one kind (positions: 3 values each; rotations: 4), with their filter state.
 * Each call filters one channel; values are read from and written to caller arrays at given offsets,
 * so a bank serves flat pose arrays without copies.
 */
export class OneEuroBank {
  readonly count: number;
  readonly kind: 'position' | 'rotation';
  /** Last output per channel (`3 count` or `4 count`). */
  readonly value: Float64Array;
  /** Smoothed derivative: per axis (`3 count`) for positions, angular speed (`count`) for rotations. */
  readonly speed: Float64Array;
  /** 1 once a channel has had its first good sample. */
  readonly ready: Uint8Array;

  constructor(count: number, kind: 'position' | 'rotation') {
    if (!Number.isInteger(count) || count < 0)
      throw new RangeError(`OneEuroBank: count ${count} is not a count`);
    this.count = count;
    this.kind = kind;
    this.value = new Float64Array((kind === 'position' ? 3 : 4) * count);
    this.speed = new Float64Array((kind === 'position' ? 3 : 1) * count);
    this.ready = new Uint8Array(count);
  }

  /** Forget channel `c` (or all): its next sample passes through. */
  reset(c = -1): void {
    if (c < 0) this.ready.fill(0);
    else this.ready[c] = 0;
  }

  /**
   * Filter channel `c`: read `x` at `xo` (3 or 4 values), write the output to `out` at `oo` (may be
   * the same place). `te` seconds since this channel's previous sample. See the module docs.
   */
  step(
    c: number,
    x: ArrayLike<number>,
    xo: number,
    out: { [i: number]: number },
    oo: number,
    te: number,
    minCutoff: number,
    beta: number,
    dCutoff: number,
  ): void {
    if (this.kind === 'position') this.stepPosition(c, x, xo, out, oo, te, minCutoff, beta, dCutoff);
    else this.stepRotation(c, x, xo, out, oo, te, minCutoff, beta, dCutoff);
  }

  private stepPosition(
    c: number,
    x: ArrayLike<number>,
    xo: number,
    out: { [i: number]: number },
    oo: number,
    te: number,
    minCutoff: number,
    beta: number,
    dCutoff: number,
  ): void {
    const v = this.value;
    const c3 = 3 * c;
    const x0 = x[xo];
    const x1 = x[xo + 1];
    const x2 = x[xo + 2];
    if (!(minCutoff > 0)) {
      this.ready[c] = 0;
      out[oo] = x0;
      out[oo + 1] = x1;
      out[oo + 2] = x2;
      return;
    }
    const finite = Number.isFinite(x0) && Number.isFinite(x1) && Number.isFinite(x2);
    if (this.ready[c] === 0 || !(te <= ONE_EURO_RESET_GAP)) {
      if (!finite || Number.isNaN(te)) {
        // nothing good to start from: pass the input, or hold a started channel over a NaN interval
        if (this.ready[c] === 0) {
          out[oo] = x0;
          out[oo + 1] = x1;
          out[oo + 2] = x2;
          return;
        }
      } else {
        this.ready[c] = 1;
        v[c3] = x0;
        v[c3 + 1] = x1;
        v[c3 + 2] = x2;
        const s = this.speed;
        s[c3] = 0;
        s[c3 + 1] = 0;
        s[c3 + 2] = 0;
      }
    } else if (finite && te > 0) {
      const aD = oneEuroAlpha(dCutoff, te);
      const s = this.speed;
      for (let k = 0; k < 3; k++) {
        const xi = k === 0 ? x0 : k === 1 ? x1 : x2;
        const prev = v[c3 + k];
        const dx = (xi - prev) / te;
        const edx = s[c3 + k] + aD * (dx - s[c3 + k]);
        s[c3 + k] = edx;
        const a = oneEuroAlpha(minCutoff + beta * Math.abs(edx), te);
        v[c3 + k] = prev + a * (xi - prev);
      }
    }
    out[oo] = v[c3];
    out[oo + 1] = v[c3 + 1];
    out[oo + 2] = v[c3 + 2];
  }

  private stepRotation(
    c: number,
    x: ArrayLike<number>,
    xo: number,
    out: { [i: number]: number },
    oo: number,
    te: number,
    minCutoff: number,
    beta: number,
    dCutoff: number,
  ): void {
    const v = this.value;
    const c4 = 4 * c;
    let qx = x[xo];
    let qy = x[xo + 1];
    let qz = x[xo + 2];
    let qw = x[xo + 3];
    if (!(minCutoff > 0)) {
      this.ready[c] = 0;
      out[oo] = qx;
      out[oo + 1] = qy;
      out[oo + 2] = qz;
      out[oo + 3] = qw;
      return;
    }
    const len = Math.sqrt(qx * qx + qy * qy + qz * qz + qw * qw);
    const good = len > 1e-9 && Number.isFinite(len);
    if (this.ready[c] === 0 || !(te <= ONE_EURO_RESET_GAP)) {
      if (!good || Number.isNaN(te)) {
        if (this.ready[c] === 0) {
          out[oo] = qx;
          out[oo + 1] = qy;
          out[oo + 2] = qz;
          out[oo + 3] = qw;
          return;
        }
      } else {
        this.ready[c] = 1;
        v[c4] = qx / len;
        v[c4 + 1] = qy / len;
        v[c4 + 2] = qz / len;
        v[c4 + 3] = qw / len;
        this.speed[c] = 0;
      }
    } else if (good && te > 0) {
      qx /= len;
      qy /= len;
      qz /= len;
      qw /= len;
      const px = v[c4];
      const py = v[c4 + 1];
      const pz = v[c4 + 2];
      const pw = v[c4 + 3];
      let d = qx * px + qy * py + qz * pz + qw * pw;
      if (d < 0) {
        // the other hemisphere: the same rotation, taken next to the previous output
        qx = -qx;
        qy = -qy;
        qz = -qz;
        qw = -qw;
        d = -d;
      }
      const rate = (2 * Math.acos(Math.min(d, 1))) / te;
      const s = this.speed;
      const e = s[c] + oneEuroAlpha(dCutoff, te) * (rate - s[c]);
      s[c] = e;
      const a = oneEuroAlpha(minCutoff + beta * e, te);
      const rx = px + a * (qx - px);
      const ry = py + a * (qy - py);
      const rz = pz + a * (qz - pz);
      const rw = pw + a * (qw - pw);
      const rl = Math.sqrt(rx * rx + ry * ry + rz * rz + rw * rw);
      v[c4] = rx / rl;
      v[c4 + 1] = ry / rl;
      v[c4 + 2] = rz / rl;
      v[c4 + 3] = rw / rl;
    }
    out[oo] = v[c4];
    out[oo + 1] = v[c4 + 1];
    out[oo + 2] = v[c4 + 2];
    out[oo + 3] = v[c4 + 3];
  }
}
