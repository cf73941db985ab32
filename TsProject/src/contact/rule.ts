/**
 * The rule baseline and label cleaning.
 *
 * Rule (per foot, per 60 Hz grid frame, from {@link contactFeatures}): the foot's lower joint (ankle or
 * toe, whichever is nearer its contact level) must be within `RULE_HEIGHT` leg lengths of its contact
 * level (the local ground of ./ground.ts when given: a still foot's own level on steps and raised
 * ground) AND that joint's horizontal speed below `RULE_SPEED` leg lengths per second. Both thresholds
 * scale with the character (features are in leg lengths). Soft version, so it is a probability:
 * `P = min(sigmoid(s (1 - h / RULE_HEIGHT)), sigmoid(s (1 - v / RULE_SPEED)))` with s = RULE_SHARPNESS;
 * P >= 0.5 exactly when both thresholds hold.
 *
 * Label cleaning ({@link cleanContacts}): hysteresis (a contact starts at P >= 0.7 and ends at
 * P <= 0.3), gaps of up to 3 frames at 60 Hz merged, contacts shorter than 5 frames at 60 Hz dropped
 * (both scaled with the rate) — issue 11 point 4.
 */
import { FEATURE_COUNT } from './features';

/** Height threshold above the joint's contact level, leg lengths (0.06 L is ~5.4 cm for L = 0.9 m). */
export const RULE_HEIGHT = 0.06;
/** Horizontal speed threshold, leg lengths per second (0.5 L/s is 0.45 m/s for L = 0.9 m). */
export const RULE_SPEED = 0.5;
/** Steepness of the soft thresholds. */
export const RULE_SHARPNESS = 6;

function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

/**
 * Rule probability of one grid frame from its features at `k` (see the module doc). `ground`: the
 * local ground at this frame above the contact level, leg lengths (./ground.ts; 0 = the take's contact
 * level, as the features measure heights). The height tested is the lower of the foot's height above the
 * contact level (0 below it: the level is the lowest the feet go) and its distance from the local ground,
 * above or below (a foot rising from the floor toward a box is not on the box until it reaches it). So
 * the local ground only adds contacts: P is never below the one-level rule's (`ground` 0).
 */
export function ruleProbability(features: Float32Array, k: number, ground = 0): number {
  const ah = features[k];
  const th = features[k + 1];
  const useToe = th < ah;
  const h = useToe ? th : ah;
  const hgt = ground === 0 ? Math.max(0, h) : Math.min(Math.max(0, h), Math.abs(h - ground));
  const spd = useToe ? features[k + 3] : features[k + 2];
  const ph = sigmoid(RULE_SHARPNESS * (1 - hgt / RULE_HEIGHT));
  const pv = sigmoid(RULE_SHARPNESS * (1 - spd / RULE_SPEED));
  return Math.min(ph, pv);
}

/**
 * Rule probabilities of one foot over the grid (`Float32Array(G)`). `ground` (optional,
 * `Float32Array(G)`, leg lengths): the local ground per grid frame (./ground.ts `localGround`); without
 * it every height is measured from the take's one contact level (the labels the model was trained on).
 */
export function ruleGrid(features: Float32Array, gridCount: number, ground?: Float32Array): Float32Array {
  const out = new Float32Array(gridCount);
  for (let g = 0; g < gridCount; g++)
    out[g] = ruleProbability(features, g * FEATURE_COUNT, ground ? ground[g] : 0);
  return out;
}

/**
 * Options of {@link cleanContacts}: the series' rate, the hysteresis thresholds and the shortest contact and
 * longest gap (frames at 60 fps).
 */
export interface CleanOptions {
  /** Frames per second of the series (default 60). */
  fps?: number;
  /** Hysteresis: start at P >= start (default 0.7), end at P <= end (default 0.3). */
  start?: number;
  end?: number;
  /** Minimum contact length in frames at 60 Hz (default 5), scaled by fps / 60. */
  minFrames60?: number;
  /** Longest gap merged, in frames at 60 Hz (default 3), scaled by fps / 60. */
  maxGap60?: number;
}

/**
 * Clean per-frame probabilities into 0/1 contact labels (`Uint8Array`, same length): hysteresis, then
 * gaps of at most `maxGap` frames merged, then contacts shorter than `minFrames` dropped.
 */
export function cleanContacts(prob: ArrayLike<number>, options: CleanOptions = {}): Uint8Array {
  const fps = options.fps ?? 60;
  const start = options.start ?? 0.7;
  const end = options.end ?? 0.3;
  const minLen = Math.max(1, Math.round(((options.minFrames60 ?? 5) * fps) / 60));
  const maxGap = Math.max(0, Math.round(((options.maxGap60 ?? 3) * fps) / 60));
  const n = prob.length;
  const c = new Uint8Array(n);
  let on = false;
  for (let i = 0; i < n; i++) {
    if (on ? prob[i] > end : prob[i] >= start) on = true;
    else on = false;
    c[i] = on ? 1 : 0;
  }
  // merge short gaps between two contacts
  let i = 0;
  while (i < n) {
    if (c[i] === 0) {
      let j = i;
      while (j < n && c[j] === 0) j++;
      if (i > 0 && j < n && j - i <= maxGap) c.fill(1, i, j);
      i = j;
    } else i++;
  }
  // drop short contacts
  i = 0;
  while (i < n) {
    if (c[i] === 1) {
      let j = i;
      while (j < n && c[j] === 1) j++;
      if (j - i < minLen) c.fill(0, i, j);
      i = j;
    } else i++;
  }
  return c;
}
