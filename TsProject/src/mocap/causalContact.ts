/**
 * Causal foot contact (issue 23 item 2): the cleanup's contact rule run frame by frame on past and current
 * frames only, for a live source (the webcam mocap through the hub, ./hubDriver.ts). Engine-free; `step`
 * allocates nothing.
 *
 * The rule is src/contact/rule.ts `ruleProbability` (the rule `kind cleanup --model rule` uses; its module
 * doc; the same formula and constants, written inline here so no double is returned from a call, which V8
 * boxes when it does not inline the call; test/mocap.hub.test.ts checks the two agree): per foot, the lower of its two points (ankle or toe, each measured from its own contact
 * level) must be within `RULE_HEIGHT` (0.06) leg lengths of that level AND that point's horizontal speed
 * below `RULE_SPEED` (0.5) leg lengths per second; soft, `P = min(sigmoid(6 (1 - h / 0.06L)),
 * sigmoid(6 (1 - v / 0.5L)))`, P >= 0.5 exactly when both hold. Then the hysteresis of src/contact/rule.ts
 * `cleanContacts`: a contact starts at P >= 0.7 and ends at P <= 0.3.
 *
 * What differs from the offline rule, and why (each needs future frames):
 * - Speed: a backward difference over the last `speedWindowSeconds` (default 1/15 s, 2 frames at 30 fps):
 *   `|p_t - p_s|_horizontal / (t - s)`, s the newest past frame at least that old (the offline rule: a
 *   central difference over +-1/60 s of the 60 Hz resampled track). Its lag is half the window, 33 ms,
 *   about 1.5 frames behind the central difference at 30 fps. One frame back is too noisy for a webcam:
 *   with 1 cm landmark noise the mocap's feet move 1.3-2.2 m/s (median, raw) or 0.6-1.2 m/s (the hub's
 *   One-Euro) frame to frame while standing still, above the rule's 0.45 m/s; the window divides that
 *   noise by its length in frames. 0.1 s (3 frames) was tried: contact starts came 3 frames after the
 *   offline rule's on the CMU kick.
 * - Contact levels: given (the mocap calibration: the ankle's height above the floor with the foot flat,
 *   the toe tip on the floor; ./hubDriver.ts) instead of the take's 5th percentile of each point's height.
 * - No gap merging and no dropping of short contacts (cleanContacts merges gaps of up to 3 frames at 60 Hz
 *   and drops contacts shorter than 5): both look ahead. The hub driver's release blend (100 ms) makes a
 *   short gap cheap: a contact starting again during it pins where the blended target is.
 * - The first frame, and the first after a gap longer than `maxGapSeconds`, has no speed: no contact;
 *   until the window has filled, the speed is over the frames there are.
 *
 * Units: metres, seconds; points are world positions (Y up), the floor the plane y = `floor`.
 */
import { RULE_HEIGHT, RULE_SHARPNESS, RULE_SPEED } from '../contact/rule';

export { RULE_HEIGHT, RULE_SPEED };

/**
 * Options of the causal foot contact: leg length and ankle and toe levels (metres), hysteresis thresholds and
 * time windows (seconds).
 */
export interface CausalContactOptions {
  /** Leg length L, metres (hip -> knee + knee -> ankle at rest); the rule's thresholds are in L. */
  legLength: number;
  /** Height of the ankle above the floor with the foot flat on it, metres. */
  ankleLevel: number;
  /** Height of the toe point above the floor with the foot flat on it, metres (the toe tip: 0). */
  toeLevel?: number;
  /** The floor's height (world y), metres (default 0: the mocap solver puts the lowest foot point there). */
  floor?: number;
  /** Hysteresis: a contact starts at P >= start (default 0.7) and ends at P <= end (default 0.3). */
  start?: number;
  end?: number;
  /** A step longer than this (seconds, default 0.5) restarts the speed (no contact on that frame). */
  maxGapSeconds?: number;
  /** The speed's backward window, seconds (default 1/15; at most `HISTORY - 1` frames are looked back). */
  speedWindowSeconds?: number;
}

/** Frames of history kept for the speed window. */
const HISTORY = 16;

/** Point offsets in the `points` array given to {@link CausalFootContact.step}: left ankle, left toe, right ankle, right toe (x y z each). */
export const CONTACT_POINTS = { LeftAnkle: 0, LeftToe: 3, RightAnkle: 6, RightToe: 9 } as const;

/** Thrown for bad causal-contact options or input; the message names the field. */
export class CausalContactError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CausalContactError';
  }
}

/** Two feet's causal contact decisions (left 0, right 1). */
export class CausalFootContact {
  /** 1 while the foot is in contact (after this frame's step). */
  readonly contact = new Uint8Array(2);
  /** This frame's rule probability per foot (0 on a frame with no speed). */
  readonly probability = new Float64Array(2);
  /** The speed (m/s, horizontal) and height above its level (m) of the point the rule used this frame. */
  readonly speed = new Float64Array(2);
  readonly height = new Float64Array(2);
  readonly options: Readonly<Required<CausalContactOptions>>;
  /** Ring of the last HISTORY frames' points (12 each) and their times (seconds since the first). */
  private readonly ring = new Float64Array(12 * HISTORY);
  private readonly ringT = new Float64Array(HISTORY);
  /** [frames held, head index, time now] (typed: no boxed doubles). */
  private readonly clock = new Float64Array(3);
  /** [dt seconds] for {@link CausalFootContact.stepStored}. */
  readonly dtIn = new Float64Array(1);

  /** @throws CausalContactError naming a bad option. */
  constructor(options: CausalContactOptions) {
    const o = {
      toeLevel: 0,
      floor: 0,
      start: 0.7,
      end: 0.3,
      maxGapSeconds: 0.5,
      speedWindowSeconds: 1 / 15,
      ...Object.fromEntries(Object.entries(options ?? {}).filter(([, v]) => v !== undefined)),
    } as Required<CausalContactOptions>;
    const need = (f: keyof CausalContactOptions, ok: boolean, what: string) => {
      if (!ok) throw new CausalContactError(`causal contact options.${f}: ${String(o[f])}; need ${what}`);
    };
    need('legLength', o.legLength > 0 && Number.isFinite(o.legLength), 'a finite number of metres > 0');
    for (const f of ['ankleLevel', 'toeLevel', 'floor'] as const)
      need(f, typeof o[f] === 'number' && Number.isFinite(o[f]), 'a finite number of metres');
    need('end', o.end >= 0 && o.end <= o.start, 'a probability <= start');
    need('start', o.start > 0 && o.start <= 1, 'a probability in (0, 1]');
    need('maxGapSeconds', o.maxGapSeconds > 0, 'a number of seconds > 0');
    need('speedWindowSeconds', o.speedWindowSeconds > 0 && o.speedWindowSeconds <= 1, 'seconds in (0, 1]');
    this.options = Object.freeze(o);
  }

  /**
   * The detector's memory as numbers (hot reload): contact, probability, speed, height (2 each), the clock
   * (3), the ring's times (HISTORY) and points (12 HISTORY); `11 + 13 HISTORY` numbers, all finite.
   */
  exportState(): number[] {
    const out: number[] = [];
    for (const a of [
      this.contact,
      this.probability,
      this.speed,
      this.height,
      this.clock,
      this.ringT,
      this.ring,
    ])
      for (let i = 0; i < a.length; i++) out.push(a[i]);
    return out;
  }

  /**
   * Restore {@link CausalFootContact.exportState}'s numbers (the options stay this detector's).
   * @throws CausalContactError for the wrong count or a non-finite number.
   */
  importState(v: ArrayLike<number>): void {
    const n = 11 + 13 * HISTORY;
    if (v?.length !== n)
      throw new CausalContactError(`causal contact state: ${v?.length} numbers, expected ${n}`);
    for (let i = 0; i < n; i++)
      if (typeof v[i] !== 'number' || !Number.isFinite(v[i]))
        throw new CausalContactError(`causal contact state[${i}]: need a finite number, got ${String(v[i])}`);
    let k = 0;
    for (const a of [
      this.contact,
      this.probability,
      this.speed,
      this.height,
      this.clock,
      this.ringT,
      this.ring,
    ])
      for (let i = 0; i < a.length; i++) a[i] = v[k++];
  }

  /** Forget the past (the next step has no speed). */
  reset(): void {
    this.clock[0] = 0;
    this.contact.fill(0);
    this.probability.fill(0);
  }

  /**
   * One frame. `points`: 12 numbers, world metres ({@link CONTACT_POINTS}); `dt` seconds since the
   * previous step. `dt <= 0` or NaN (a repeated frame) keeps the previous decisions. Writes `contact`,
   * `probability`, `speed`, `height`. Allocates nothing.
   */
  step(points: ArrayLike<number>, dt: number): void {
    this.dtIn[0] = dt;
    this.stepStored(points);
  }

  /** {@link CausalFootContact.step} with `dt` in `dtIn[0]` (no double argument: nothing boxed). */
  stepStored(points: ArrayLike<number>): void {
    const dt = this.dtIn[0];
    if (!(dt > 0)) return;
    const o = this.options;
    const L = o.legLength;
    const c = this.clock;
    if (!(dt <= o.maxGapSeconds)) c[0] = 0;
    // the newest past frame at least the window old (else the oldest held)
    const now = c[0] > 0 ? c[2] + dt : 0;
    let past = -1;
    for (let k = 0; k < c[0]; k++) {
      const i = (c[1] - k + HISTORY) % HISTORY;
      past = i;
      if (now - this.ringT[i] >= o.speedWindowSeconds - 1e-9) break;
    }
    const span = past >= 0 ? now - this.ringT[past] : 0;
    const ring = this.ring;
    const q = 12 * past;
    for (let side = 0; side < 2; side++) {
      const a = 6 * side;
      const t = a + 3;
      // heights above the levels, in L (features 0, 1 of src/contact/features.ts); the lower point is used
      const ah = (points[a + 1] - o.floor - o.ankleLevel) / L;
      const th = (points[t + 1] - o.floor - o.toeLevel) / L;
      const useToe = th < ah;
      const b = useToe ? t : a;
      // its horizontal speed over the window, L per second (features 2, 3)
      let v = 0;
      if (span > 0) {
        const dx = points[b] - ring[q + b];
        const dz = points[b + 2] - ring[q + b + 2];
        v = Math.sqrt(dx * dx + dz * dz) / span / L;
      }
      const h = useToe ? th : ah;
      // ruleProbability with the one contact level (ground 0): heights below the level count as 0
      const hg = Math.max(h, 0);
      const ph = 1 / (1 + Math.exp(-RULE_SHARPNESS * (1 - hg / RULE_HEIGHT)));
      const pv = 1 / (1 + Math.exp(-RULE_SHARPNESS * (1 - v / RULE_SPEED)));
      const p = span > 0 ? Math.min(ph, pv) : 0;
      this.height[side] = h * L;
      this.speed[side] = v * L;
      this.probability[side] = p;
      const on = this.contact[side] === 1;
      this.contact[side] = (on ? p > o.end : p >= o.start) ? 1 : 0;
    }
    const head = c[0] > 0 ? (c[1] + 1) % HISTORY : 0;
    for (let i = 0; i < 12; i++) ring[12 * head + i] = points[i];
    this.ringT[head] = now;
    c[1] = head;
    c[2] = now;
    if (c[0] < HISTORY) c[0]++;
  }
}

/** `{ ...RULE }` thresholds in metres for a leg length (for reports): height `RULE_HEIGHT L`, speed `RULE_SPEED L` per second. */
export function contactThresholds(legLength: number): { heightM: number; speedMps: number } {
  return { heightM: RULE_HEIGHT * legLength, speedMps: RULE_SPEED * legLength };
}
