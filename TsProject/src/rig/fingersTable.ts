/**
 * The finger muscle table: names, storage layout, default ranges (degrees), presets and value checks
 * for the finger muscle model of fingers.ts.
 *
 * Layout: 40 muscles, `index = (hand * 5 + finger) * 4 + muscle` with hand 0 left, 1 right; finger
 * 0 thumb, 1 index, 2 middle, 3 ring, 4 little; muscle 0 `curl1` (proximal bone), 1 `curl2`
 * (intermediate), 2 `curl3` (distal), 3 `spread` (proximal bone). Values are in [-1, 1].
 *
 * Meaning of a value `v` (Unity's muscle mapping, https://docs.unity3d.com/ScriptReference/HumanTrait.GetMuscleDefaultMin.html:
 * -1 is the muscle's min angle, +1 its max angle, linear in between on each side):
 * `angle = v >= 0 ? v * maxDeg : -v * minDeg` degrees about the muscle's axis, measured from the
 * canonical T-pose (0 = the T-pose finger, straight as in the reference pose; unlike Unity, whose muscle
 * 0 is the avatar's muscle "centre", not its T-pose).
 * - `curlK` is a flexion angle: positive folds the bone toward the palm. It is Unity's "Left Index K
 *   Stretched" muscle with the sign turned (Unity's Stretched -1 is the bent end), so `curl = -Stretched`
 *   and our range is `[-UnityMax, -UnityMin]`: the asymmetric thumb range Unity [-40, 35] becomes
 *   curl [-35, 40] (40 degrees of flexion at +1).
 * - `spread` is Unity's "Left Index Spread" as is: +1 opens the finger away from the hand's midline. For
 *   thumb, index and middle that is toward the thumb side (radial), for ring and little toward the
 *   little-finger side (ulnar); so spread +1 on every finger fans the hand open. (Unity's own axes give
 *   the middle finger the index's sign and the ring finger the little finger's.)
 *
 * Default ranges (degrees, both hands alike), Unity's default muscle limits
 * (`HumanTrait.GetMuscleDefaultMin/Max`), as Unity stretched / spread ranges:
 *
 * | finger | 1 Stretched | Spread | 2 Stretched | 3 Stretched |
 * |---|---|---|---|---|
 * | Thumb | -20, 20 | -25, 25 | -40, 35 | -40, 35 |
 * | Index | -50, 50 | -20, 20 | -45, 45 | -45, 45 |
 * | Middle | -50, 50 | -7.5, 7.5 | -45, 45 | -45, 45 |
 * | Ring | -50, 50 | -7.5, 7.5 | -45, 45 | -45, 45 |
 * | Little | -50, 50 | -20, 20 | -45, 45 | -45, 45 |
 *
 * Source: Unity documents the functions (GetMuscleDefaultMin/Max return degrees; the Avatar "Muscles &
 * Settings" manual page, https://docs.unity3d.com/Manual/MuscleDefinitions.html, gives only the head
 * example, -40..40) but publishes no table of the values. The values above are what those functions
 * return as printed by two independent public sources that agree entry for entry: the muscle table of
 * `dhag/polyling_motion_studio` (`muscle_pose.js`, CANON_ROWS, limits exported from Unity, commit
 * e9d08f17df388f006a22b9c23883dcb51c824fa5), and a public "Unity Humanoid Muscle reference" table of the
 * 95 muscles with their default ranges (Japanese; repository not identified). No Unity-authored table
 * was found: treat them as well-attested, not official.
 *
 * Consequence to know: applied about the straight T-pose (as here) these ranges fold a finger by at most
 * 50 + 45 + 45 = 140 degrees (a loose fist). Unity reaches a tight fist from the same ranges because its
 * muscle 0 is already bent (about 35 degrees per finger joint in the PolyLing table). Wider ranges can be
 * given to {@link FingerRig} (option `rangesDeg`).
 */

/** Hands, in storage order. */
export const FINGER_HANDS = ['left', 'right'] as const;
/** A hand: `'left'` or `'right'`. */
export type FingerHand = (typeof FINGER_HANDS)[number];
/** Fingers, in storage order. */
export const FINGER_NAMES = ['thumb', 'index', 'middle', 'ring', 'little'] as const;
/** A finger: thumb, index, middle, ring or little. */
export type FingerName = (typeof FINGER_NAMES)[number];
/** Muscles of one finger, in storage order. */
export const FINGER_MUSCLES = ['curl1', 'curl2', 'curl3', 'spread'] as const;
/** A finger muscle: the three curls (`curl1` on the proximal bone, `curl3` on the distal) and `spread`. */
export type FingerMuscleName = (typeof FINGER_MUSCLES)[number];
/** Number of finger muscles of both hands (2 x 5 x 4). */
export const FINGER_MUSCLE_COUNT = 40;
/** Number of finger muscles of one hand (5 x 4). */
export const HAND_MUSCLE_COUNT = 20;

/** Copy modes: controls only; source finger muscles measured and applied; source rotations left alone. */
export const FINGER_COPY_MODES = ['none', 'muscleData', 'rotation'] as const;
/**
 * How fingers are driven: `'none'` (from the controls and presets), `'muscleData'` (the source's muscles),
 * `'rotation'` (the source's finger rotations).
 */
export type FingerCopyMode = (typeof FINGER_COPY_MODES)[number];

/** Thrown for a bad finger control (value out of range, unknown name) or bad set-up data; the message names the field. */
export class FingerRigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FingerRigError';
  }
}

/** Unity's name of the muscle behind each of our 40, e.g. 'Left Index 1 Stretched' (curl = -Stretched), 'Left Index Spread'. */
export const UNITY_FINGER_MUSCLE_NAMES: readonly string[] = (() => {
  const out: string[] = [];
  for (const hand of ['Left', 'Right']) {
    for (const finger of ['Thumb', 'Index', 'Middle', 'Ring', 'Little']) {
      out.push(
        `${hand} ${finger} 1 Stretched`,
        `${hand} ${finger} 2 Stretched`,
        `${hand} ${finger} 3 Stretched`,
        `${hand} ${finger} Spread`,
      );
    }
  }
  return out;
})();

/** Unity's default [min, max] in degrees of `Stretched 1/2/3` and `Spread` per finger (see the module table). */
const UNITY_DEFAULTS: Record<FingerName, { stretched: [number, number][]; spread: [number, number] }> = {
  thumb: {
    stretched: [
      [-20, 20],
      [-40, 35],
      [-40, 35],
    ],
    spread: [-25, 25],
  },
  index: {
    stretched: [
      [-50, 50],
      [-45, 45],
      [-45, 45],
    ],
    spread: [-20, 20],
  },
  middle: {
    stretched: [
      [-50, 50],
      [-45, 45],
      [-45, 45],
    ],
    spread: [-7.5, 7.5],
  },
  ring: {
    stretched: [
      [-50, 50],
      [-45, 45],
      [-45, 45],
    ],
    spread: [-7.5, 7.5],
  },
  little: {
    stretched: [
      [-50, 50],
      [-45, 45],
      [-45, 45],
    ],
    spread: [-20, 20],
  },
};

/**
 * Default ranges of our muscles in degrees, `[min, max]` per muscle in storage order (40 entries, left
 * then right): curl = `[-UnityMax, -UnityMin]` of the Stretched muscle, spread = Unity's Spread range.
 */
export const FINGER_MUSCLE_RANGES_DEG: readonly (readonly [number, number])[] = (() => {
  const out: [number, number][] = [];
  for (let h = 0; h < 2; h++) {
    for (const f of FINGER_NAMES) {
      const u = UNITY_DEFAULTS[f];
      for (let k = 0; k < 3; k++) out.push([-u.stretched[k][1], -u.stretched[k][0]]);
      out.push([u.spread[0], u.spread[1]]);
    }
  }
  return out;
})();

/** Storage index of a muscle; hand/finger/muscle as indices (no checks). */
export function muscleSlot(hand: number, finger: number, muscle: number): number {
  return (hand * 5 + finger) * 4 + muscle;
}

/** Dotted field name of a muscle for messages and remote-control paths, e.g. `left.index.curl1`. */
export function muscleField(slot: number): string {
  const hand = FINGER_HANDS[Math.floor(slot / 20)];
  const finger = FINGER_NAMES[Math.floor(slot / 4) % 5];
  return `${hand}.${finger}.${FINGER_MUSCLES[slot % 4]}`;
}

function listOf(names: readonly string[]): string {
  return names.map((n) => `'${n}'`).join(', ');
}

function nameOf(value: unknown): string {
  return typeof value === 'string' ? `'${value}'` : String(value);
}

/** Index of a hand name. @throws FingerRigError naming the value and the valid names. */
export function handIndex(hand: string): number {
  const i = (FINGER_HANDS as readonly string[]).indexOf(hand);
  if (i < 0) throw new FingerRigError(`fingers: hand ${nameOf(hand)} is not one of ${listOf(FINGER_HANDS)}`);
  return i;
}

/** Index of a finger name. @throws FingerRigError naming the value and the valid names. */
export function fingerIndex(finger: string): number {
  const i = (FINGER_NAMES as readonly string[]).indexOf(finger);
  if (i < 0)
    throw new FingerRigError(`fingers: finger ${nameOf(finger)} is not one of ${listOf(FINGER_NAMES)}`);
  return i;
}

/** Index of a muscle name. @throws FingerRigError naming the value and the valid names. */
export function muscleIndex(muscle: string): number {
  const i = (FINGER_MUSCLES as readonly string[]).indexOf(muscle);
  if (i < 0)
    throw new FingerRigError(`fingers: muscle ${nameOf(muscle)} is not one of ${listOf(FINGER_MUSCLES)}`);
  return i;
}

/** A copy mode, checked. @throws FingerRigError naming the value and the valid modes. */
export function checkCopyMode(mode: string): FingerCopyMode {
  if (!(FINGER_COPY_MODES as readonly string[]).includes(mode))
    throw new FingerRigError(`fingers: copy mode ${nameOf(mode)} is not one of ${listOf(FINGER_COPY_MODES)}`);
  return mode as FingerCopyMode;
}

/**
 * A muscle value, checked: a finite number in [-1, 1] (out-of-range values are an error, not clamped,
 * so a bad remote-control message is reported rather than silently changed).
 * @throws FingerRigError naming `field`, e.g. `fingers.left.index.curl1: 1.5 is outside [-1, 1]`.
 */
export function checkMuscleValue(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new FingerRigError(`fingers.${field}: ${nameOf(value)} is not a finite number`);
  if (value < -1 || value > 1) throw new FingerRigError(`fingers.${field}: ${value} is outside [-1, 1]`);
  return value;
}

// ---------------------------------------------------------------------------------------------
// Presets

/** Preset names accepted by {@link FingerRig.applyPreset}. */
export const FINGER_PRESET_NAMES = ['rock', 'paper', 'scissors', 'v', 'index-point', 'reset'] as const;
/** A hand-pose preset name (rock, paper, scissors, v, index-point, reset). */
export type FingerPresetName = (typeof FINGER_PRESET_NAMES)[number];

/** Muscles of one finger as `[curl1, curl2, curl3, spread]`. */
type FingerValues = readonly [number, number, number, number];
const STRAIGHT: FingerValues = [0, 0, 0, 0];
const CURLED: FingerValues = [1, 1, 1, 0];
/** Thumb folded toward the palm and turned toward the index finger (over curled fingers). */
const THUMB_OVER: FingerValues = [1, 1, 1, -1];

/**
 * The presets, per hand, as 20 muscle values in storage order (thumb, index, middle, ring, little; each
 * `[curl1, curl2, curl3, spread]`). The same values serve both hands (the model is mirrored).
 * - `reset`: every muscle 0: the T-pose fingers (reference-pose local rotations, exactly).
 * - `rock` (fist): the four fingers curled fully (+1 on each curl, spread 0); thumb curled and turned
 *   toward the index (`THUMB_OVER`: curls +1, spread -1).
 * - `paper` (open hand): all fingers straight, every spread +1 (fanned open), thumb straight and spread
 *   open.
 * - `scissors`: index and middle straight and slightly apart (index spread +0.5, middle -0.5), ring
 *   and little curled, thumb curled but not turned (curls +1, spread 0).
 * - `v` (V sign): index and middle straight and fully apart (index +1, middle -1), ring and little
 *   curled, thumb over them (`THUMB_OVER`).
 * - `index-point`: index straight, middle, ring and little curled, thumb over them (`THUMB_OVER`).
 */
export const FINGER_PRESETS: Readonly<Record<FingerPresetName, readonly number[]>> = {
  reset: [...STRAIGHT, ...STRAIGHT, ...STRAIGHT, ...STRAIGHT, ...STRAIGHT],
  rock: [...THUMB_OVER, ...CURLED, ...CURLED, ...CURLED, ...CURLED],
  paper: [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1],
  scissors: [1, 1, 1, 0, 0, 0, 0, 0.5, 0, 0, 0, -0.5, ...CURLED, ...CURLED],
  v: [...THUMB_OVER, 0, 0, 0, 1, 0, 0, 0, -1, ...CURLED, ...CURLED],
  'index-point': [...THUMB_OVER, ...STRAIGHT, ...CURLED, ...CURLED, ...CURLED],
};

/** A preset's values. @throws FingerRigError naming the value and the valid names. */
export function presetValues(name: string): readonly number[] {
  if (!(FINGER_PRESET_NAMES as readonly string[]).includes(name))
    throw new FingerRigError(`fingers: preset ${nameOf(name)} is not one of ${listOf(FINGER_PRESET_NAMES)}`);
  return FINGER_PRESETS[name as FingerPresetName];
}
