/**
 * What a QA evaluation reports (src/qa/evaluate.ts): results, measures, causes with their actions,
 * runs, series, the clip report and its options, the error type, and the report's plain-JSON form and
 * severity.
 */

import type { RigProfile } from './profile';

/** A clip's QA result. */
export type QaResult = 'Pass' | 'Warning' | 'Error';
/** The measure a flagged run is over. */
export type QaMeasure = 'rotation' | 'twist' | 'wrist' | 'position' | 'shoulder';

/** Machine-readable cause of a run (the `cause` text is the human form). */
export type QaCauseCode =
  | 'mirrored'
  | 'missing-shoulder'
  | 'shoulder-overdrive'
  | 'calibration-offset'
  | 'forearm-roll'
  | 'proportion-compensation'
  | 'end-effector'
  | 'generic';

/** Cause texts and actions by code. */
export const QA_CAUSES: Readonly<Record<QaCauseCode, { cause: string; action: string }>> = Object.freeze({
  mirrored: {
    cause: 'mirrored clip: the motion matches the golden with left and right swapped',
    action:
      'mirrored clip: re-export without mirroring, or set flags.mirrored in the rig profile if intended',
  },
  'missing-shoulder': {
    cause: 'shoulder still while the upper arm over-rotates',
    action: 'shoulder bone missing or unmapped: map the clavicle (Shoulder) bone in the rig profile',
  },
  'shoulder-overdrive': {
    cause: 'shoulder over-rotates while the upper arm does not',
    action: 'check the shoulder / upper arm split (shoulder weight) in the retarget settings',
  },
  'calibration-offset': {
    cause: 'constant offset over the whole clip',
    action: 'T/A-pose calibration offset baked in: re-calibrate with the matching reference pose',
  },
  'forearm-roll': {
    cause: 'twist on the forearm or wrist',
    action: 'check the forearm roll axis mapping',
  },
  'proportion-compensation': {
    cause: 'upper arm rotation off while the hand position matches',
    action: 'proportion compensation warning, not an error: review the arm by eye',
  },
  'end-effector': {
    cause: 'end effector off its golden position',
    action: 'check the limb rotations above it and the proportions / IK settings',
  },
  generic: {
    cause: 'over threshold',
    action: 'inspect the bone mapping and retarget settings for this bone',
  },
});

/**
 * One flagged run: a bone over its threshold on one measure for a range of frames, with its peak, likely
 * cause and action.
 */
export interface QaRun {
  /** HumanBodyBones name, e.g. 'RightLowerArm'. */
  bone: string;
  measure: QaMeasure;
  startFrame: number;
  /** Inclusive. */
  endFrame: number;
  startSeconds: number;
  endSeconds: number;
  /** Degrees, or fraction of character height for 'position'. */
  peak: number;
  peakFrame: number;
  threshold: number;
  level: 'Warning' | 'Error';
  cause: string;
  action: string;
  /** One line, e.g. "RightLowerArm twist over threshold for frames 120-156 -> check the forearm roll axis mapping". */
  message: string;
  /** Machine-readable cause. */
  causeCode: QaCauseCode;
  /** Peak of `w * max(0, E/T - 1)` over the run (the sort key of `runs`). */
  severity: number;
}

/** Per-frame error curves of one bone (degrees), as the report draws them. */
export interface QaSeries {
  bone: string;
  /** E_rot per observed frame, degrees. */
  rotDeg: Float32Array;
  /** Signed E_twist per frame, degrees in (-180, 180] (zeros for bones with no twist axis). */
  twistDeg: Float32Array;
  /** Swing angle per frame, degrees. */
  swingDeg: Float32Array;
  /** This bone's `w * max(0, E/T - 1)` per frame, summed over its measures. */
  severity: Float32Array;
  rotThresholdDeg: number;
  twistThresholdDeg: number | null;
  /** V_twist: unwrapped twist velocity, degrees per second (frame 0: 0). */
  twistVelocityDegPerSec: Float32Array;
}

/**
 * The QA result of one clip (qa.json per clip): result, scores, flagged runs, per-bone series and warnings.
 */
export interface QaClipReport {
  name: string;
  frames: number;
  fps: number;
  durationSeconds: number;
  result: QaResult;
  maxScore: number;
  meanScore: number;
  /** S per observed frame. */
  score: Float32Array;
  /** Sorted by severity, worst first. */
  runs: QaRun[];
  series: QaSeries[];
  warnings: string[];
}

/** Options of {@link evaluateClip}: the rig profile, the clip name, the wrist weight and the sampling. */
export interface EvaluateOptions {
  profile?: RigProfile;
  name?: string;
  /** Weight of the hand twist in E_wrist; overrides the profile's `wrist.lambda` (default 0.6). */
  lambda?: number;
  sampling?: 'seconds' | 'normalized';
}

/** Thrown for inputs the comparison cannot use (unmapped Hips, bad values, unknown bone in the profile). */
export class QaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QaError';
  }
}

/** Plain-JSON form of a report (typed arrays as number arrays), for files and worker messages. */
export function reportToJson(r: QaClipReport): object {
  return {
    name: r.name,
    frames: r.frames,
    fps: r.fps,
    durationSeconds: r.durationSeconds,
    result: r.result,
    maxScore: r.maxScore,
    meanScore: r.meanScore,
    severity: severityOf(r),
    score: Array.from(r.score),
    runs: r.runs.map((x) => ({ ...x })),
    series: r.series.map((s) => ({
      bone: s.bone,
      rotDeg: Array.from(s.rotDeg),
      twistDeg: Array.from(s.twistDeg),
      swingDeg: Array.from(s.swingDeg),
      severity: Array.from(s.severity),
      rotThresholdDeg: s.rotThresholdDeg,
      twistThresholdDeg: s.twistThresholdDeg,
      twistVelocityDegPerSec: Array.from(s.twistVelocityDegPerSec),
    })),
    warnings: [...r.warnings],
  };
}

/**
 * Review-queue sort key, larger = worse: `1000 * rank + min(999, integral of S over time)`, rank 2 for
 * Error, 1 for Warning, 0 for Pass; the integral is `sum_f S_f * frameTime` (score-seconds), so among
 * clips of one result the one with more and longer severity comes first.
 */
export function severityOf(r: QaClipReport): number {
  const rank = r.result === 'Error' ? 2 : r.result === 'Warning' ? 1 : 0;
  const integral = r.fps > 0 ? (r.meanScore * r.frames) / r.fps : 0;
  return 1000 * rank + Math.min(999, integral);
}
