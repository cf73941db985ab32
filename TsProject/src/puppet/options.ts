/**
 * Options of the pose side of the puppet (landmarks -> joints -> smoothing -> occlusion fill). Engine-free.
 * The numeric defaults were chosen with `tune` (tune.ts, `kind puppet tune`) over the real squat recording;
 * the figures are in POSE.md next to this file.
 */

/** Which landmarks give the pose space: image (x * width, y * height, pixels) or world (x, y metres). */
export type PoseSpace = 'auto' | 'image' | 'world';

/**
 * The pose side's options (POSE.md): landmark space, visibility threshold, smoothing, outliers, hold and fill
 * confidences.
 */
export interface PoseOptions {
  /**
   * 'auto': image landmarks when the frame has them; world landmarks only when the frame has no
   * `landmarks` field (`landmarks: []` means no person, even beside world landmarks).
   */
  space: PoseSpace;
  /**
   * Confidence below which a measurement is not used at all ([0, 1]). A composite joint (hips centre, neck,
   * head, hand tips) averages only the landmarks at or above it.
   */
  visibilityThreshold: number;
  /**
   * Confidence given to a landmark whose `visibility` (and `presence`) is absent: "unknown", not 0
   * (tasks-vision 0.10.0 returned x, y, z only). Must be >= visibilityThreshold for such joints to be used.
   */
  unknownVisibilityConfidence: number;
  /**
   * An image landmark further outside the image than this fraction of its size (e.g. 0.02 = 2 %) is
   * off-frame: its confidence becomes 0 (the model guessed it).
   */
  offFrameMargin: number;
  /**
   * Time constant of the exponential moving average at confidence 1, in ms (0 = no smoothing). A measurement
   * of confidence c is blended with weight alpha = 1 - exp(-dt * c / smoothingMs): lower confidence, less weight.
   */
  smoothingMs: number;
  /**
   * Speed adaptation, seconds per body scale (0 = plain EMA): the time constant is divided by
   * (1 + speedGain * v), v the joint's smoothed speed in body scales / s, so slow motion loses its jitter and
   * fast motion keeps its timing (the One-Euro filter's idea: Casiez, Roussel, Vogel, CHI 2012,
   * https://doi.org/10.1145/2207676.2208639). The speed is (new - previous output) / dt low-passed with a
   * 1 Hz cutoff (the paper's dCutoff default).
   */
  speedGain: number;
  /** A measured joint moving more than outlierJump x body scale in one frame is an outlier: dropped, previous value held. */
  outlierJump: number;
  /**
   * How long a joint is held (outlier, or below threshold after a good value), ms: the first such frame is
   * always held, later ones while the time held stays within maxHoldMs; then an outlier is accepted as the
   * new value, and a joint below threshold goes to the occlusion fill.
   */
  maxHoldMs: number;
  /** Factor applied to a held joint's confidence per held frame ((0, 1]). */
  heldDecay: number;
  /** Factor applied to a composite joint's confidence when some of its landmarks were below threshold. */
  partialCompositeFactor: number;
  /** Confidence of a joint inferred from its parent, times the parent's confidence (keep it below the threshold). */
  parentFillConfidence: number;
  /** Confidence of a joint inferred from a child, times the child's confidence. */
  childFillConfidence: number;
  /** Confidence of a joint moved with the torso's motion, times the torso joint's confidence. */
  torsoFillConfidence: number;
  /** Confidence of a joint placed at the rest pose. */
  restConfidence: number;
}

/**
 * Defaults. smoothingMs and outlierJump from the tune sweep (POSE.md "Tuning"); the fill confidences are
 * deliberately below visibilityThreshold and drop at each step of the chain (parent > child > torso > rest).
 */
export const DEFAULT_POSE_OPTIONS: Readonly<PoseOptions> = Object.freeze({
  space: 'auto',
  visibilityThreshold: 0.5,
  unknownVisibilityConfidence: 0.8,
  offFrameMargin: 0.02,
  smoothingMs: 100,
  speedGain: 3,
  outlierJump: 1.5,
  maxHoldMs: 100,
  heldDecay: 0.8,
  partialCompositeFactor: 0.75,
  parentFillConfidence: 0.35,
  childFillConfidence: 0.25,
  torsoFillConfidence: 0.15,
  restConfidence: 0.05,
} as PoseOptions);

const UNIT_FIELDS = [
  'visibilityThreshold',
  'unknownVisibilityConfidence',
  'heldDecay',
  'partialCompositeFactor',
  'parentFillConfidence',
  'childFillConfidence',
  'torsoFillConfidence',
  'restConfidence',
] as const;

/**
 * Defaults overlaid with `o`, checked.
 * @throws RangeError naming the option: unknown space, a value not finite, a confidence outside [0, 1],
 *   a negative smoothingMs, outlierJump <= 0, offFrameMargin < 0, maxHoldMs < 0, speedGain < 0.
 */
export function resolvePoseOptions(o: Partial<PoseOptions> = {}): PoseOptions {
  const r: PoseOptions = { ...DEFAULT_POSE_OPTIONS, ...o };
  if (r.space !== 'auto' && r.space !== 'image' && r.space !== 'world')
    throw new RangeError(`pose option space: expected 'auto', 'image' or 'world', got ${String(r.space)}`);
  const bad = (k: string, want: string) => {
    throw new RangeError(
      `pose option ${k}: expected ${want}, got ${String((r as unknown as Record<string, unknown>)[k])}`,
    );
  };
  for (const k of UNIT_FIELDS) if (!(r[k] >= 0 && r[k] <= 1)) bad(k, 'a number in [0, 1]');
  if (!(r.smoothingMs >= 0 && Number.isFinite(r.smoothingMs)))
    bad('smoothingMs', 'a finite number >= 0 (ms)');
  if (!(r.outlierJump > 0)) bad('outlierJump', 'a number > 0 (body scales per frame; Infinity = off)');
  if (!(r.offFrameMargin >= 0)) bad('offFrameMargin', 'a number >= 0');
  if (!(r.maxHoldMs >= 0)) bad('maxHoldMs', 'a number >= 0 (ms)');
  if (!(r.speedGain >= 0 && Number.isFinite(r.speedGain)))
    bad('speedGain', 'a finite number >= 0 (s per body scale)');
  return r;
}
