/**
 * The hub's state for hot reload (RetargetHub.exportState / importState), and the JSON encoding of
 * the numbers in it. Engine-free.
 *
 * JSON has no NaN, Infinity or negative zero (RFC 8259 section 6, https://www.rfc-editor.org/rfc/rfc8259):
 * `JSON.stringify` writes `null` for the first two and `0` for the last. {@link encodeStateNumbers}
 * replaces each such number by `{"$num": "NaN" | "Infinity" | "-Infinity" | "-0"}` and
 * {@link decodeStateNumbers} turns them back, so a state survives `JSON.stringify` / `JSON.parse`
 * bit for bit (finite doubles are written in the shortest form that reads back to the same value,
 * ECMA-262 Number::toString, https://tc39.es/ecma262/#sec-numeric-types-number-tostring).
 */
import type { TwoBoneIKState } from '../ik';
import type { HipsMode, UpAxis } from '../retarget';
import type { FingerRigState } from './fingers';
import type { IKWeightMode } from './hubOptions';
import type { LimbWeightsState } from './limbWeights';
import type { PropSystemState } from './props';
import type { Settings } from './settings';
import type { SourceStageState } from './sourceStage';

/** Version of {@link HubState}; importState refuses another. */
export const HUB_STATE_VERSION = 1;

/** How the hub was last calibrated (re-run on import; calibration is deterministic). */
export interface HubCalibrationRecord {
  /** 'calibrate': automatic T-pose reference (`calibrate(frame?)`); 'onFrame': `calibrateOnFrame(frame, kind)` (I-pose calibration too). */
  method: 'calibrate' | 'onFrame';
  /** Reference pose kind ('T' for 'calibrate'). */
  kind: 'T' | 'I';
  /** The frame calibrated on (source local rotations `4n` and translations `3n`), null for none. */
  frame: { rotations: number[]; translations: number[] } | null;
}

/** Everything a {@link RetargetHub} carries from the past, JSON-able after {@link encodeStateNumbers}. */
export interface HubState {
  version: number;
  /** Constructor options kept by the retargeter. */
  options: { hipsMode: HipsMode; sourceUp: UpAxis; sourceContactHeight: number | null };
  calibration: HubCalibrationRecord | null;
  /** The settings with the calibrated rotation offsets (exportSettings). */
  settings: Settings;
  ikMode: IKWeightMode;
  /** Head-forward fix and the last copied head local rotation (what calibrateHeadForward reads), `[x, y, z, w]`. */
  headForward: number[];
  headCopyLocal: number[];
  fingers: FingerRigState;
  props: PropSystemState;
  weights: LimbWeightsState;
  /** Left arm, right arm, left leg, right leg. */
  ik: TwoBoneIKState[];
  snapWeights: boolean;
  /** {@link RetargetHub.ikWeightOverride} (12 numbers, NaN: none); absent in older states (none). */
  ikWeightOverride?: number[];
  /** {@link RetargetHub.ikGoalOverride} (24 numbers, NaN: none); absent in older states (none). */
  ikGoalOverride?: number[];
  /** {@link RetargetHub.ikRotationOverride} (16 numbers, NaN: none); absent in older states (none). */
  ikRotationOverride?: number[];
  /** The last calibration frame (resetCalibration recalibrates on it). */
  lastFrame: { rotations: number[]; translations: number[] };
  /** The live source stage's raw frame and filter memory (absent in states written before it). */
  source?: SourceStageState;
}

type Encoded = number | string | boolean | null | Encoded[] | { [k: string]: Encoded };

/** A deep copy of `value` with every NaN, ±Infinity and -0 as `{"$num": text}` (see the module docs). */
export function encodeStateNumbers(value: unknown): Encoded {
  if (typeof value === 'number') {
    if (Number.isFinite(value) && !(value === 0 && 1 / value < 0)) return value;
    return { $num: value === 0 ? '-0' : String(value) } as Encoded;
  }
  if (Array.isArray(value)) return value.map(encodeStateNumbers);
  if (value !== null && typeof value === 'object') {
    const out: { [k: string]: Encoded } = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = encodeStateNumbers(v);
    return out;
  }
  return value as Encoded;
}

const SPECIAL: Record<string, number> = {
  NaN: Number.NaN,
  Infinity: Number.POSITIVE_INFINITY,
  '-Infinity': Number.NEGATIVE_INFINITY,
  '-0': -0,
};

/** The inverse of {@link encodeStateNumbers} (a deep copy). */
export function decodeStateNumbers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decodeStateNumbers);
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value);
    const o = value as Record<string, unknown>;
    if (keys.length === 1 && keys[0] === '$num' && typeof o.$num === 'string' && o.$num in SPECIAL)
      return SPECIAL[o.$num];
    const out: Record<string, unknown> = {};
    for (const k of keys) out[k] = decodeStateNumbers(o[k]);
    return out;
  }
  return value;
}
