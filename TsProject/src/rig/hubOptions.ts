/**
 * The hub's constructor options, its error type, and the argument checks its methods share (a finite
 * number in range, one of a few choices, a whole source frame of finite numbers). Engine-free.
 *
 * Below src/rig/hub.ts and src/rig/hubState.ts (which needs {@link IKWeightMode}), so neither imports
 * the other.
 */
import type { Skeleton } from '../core';
import type { HipsMode, UpAxis } from '../retarget';
import type { FingerCopyMode } from './fingers';
import type { Settings } from './settings';

/** How the hub sets limb IK weights: from the situation (LimbWeights), always on, or off. */
export type IKWeightMode = 'auto' | 'on' | 'off';

/**
 * Options of a {@link RetargetHub}: hips mode, source up axis, IK and finger modes, initial settings, the
 * source's contact height.
 */
export interface HubOptions {
  /** Hips position mode; default 'room' (live: the avatar stands where the performer stands). */
  hipsMode?: HipsMode;
  /** Up axis of the source data; default 'auto'. */
  sourceUp?: UpAxis;
  /** IK weight mode for all four limbs; default 'auto'. */
  ik?: IKWeightMode;
  /** Finger copy mode; default 'rotation' (the retargeter's copy). */
  fingers?: FingerCopyMode;
  /** Initial settings (validated). */
  settings?: Partial<Settings>;
  /** Floor contact height of the source's ankles, metres (see RetargetOptions.sourceContactHeight). */
  sourceContactHeight?: number;
  /** Shoulder (clavicle) twist, 'keep' (default) or 'drop' (see RetargetOptions.shoulderTwist). */
  shoulderTwist?: 'keep' | 'drop';
}

/**
 * Thrown for bad hub input (wrong buffer length, NaN, an out-of-range setting); the message names the field.
 */
export class HubError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HubError';
  }
}

export type Frame = { rotations: ArrayLike<number>; translations: ArrayLike<number> };

export function describe(v: unknown): string {
  return typeof v === 'string' ? `the text '${v}'` : String(v);
}

/** A finite number within [min, max], else a HubError naming `field`. */
export function checkRange(field: string, v: unknown, min: number, max: number, unit = ''): number {
  if (typeof v !== 'number' || !Number.isFinite(v))
    throw new HubError(`${field}: need a finite number, got ${describe(v)}`);
  if (v < min || v > max) throw new HubError(`${field}: ${v} is outside ${min}..${max}${unit}`);
  return v;
}

export function checkChoice<T extends string>(field: string, v: unknown, choices: readonly T[]): T {
  if (!choices.includes(v as T))
    throw new HubError(`${field}: ${describe(v)} is not one of ${choices.map((c) => `'${c}'`).join(', ')}`);
  return v as T;
}

/**
 * A source frame for a calibration: arrays of `4n` rotations and `3n` translations, every value
 * finite; else a HubError naming the field, bone and component (a NaN taken into a calibration would
 * poison every later frame).
 */
export function checkFrame(what: string, frame: Frame | undefined | null, source: Skeleton): void {
  if (!frame || typeof frame !== 'object')
    throw new HubError(`${what}: need a frame { rotations, translations }, got ${describe(frame)}`);
  const n = source.boneCount;
  for (const [field, arr, k] of [
    ['rotations', frame.rotations, 4],
    ['translations', frame.translations, 3],
  ] as const) {
    if (!arr || typeof arr.length !== 'number' || arr.length !== k * n)
      throw new HubError(
        `${what}: frame.${field} has length ${arr?.length}, expected ${k * n} (${k} x ${n} source bones)`,
      );
    for (let i = 0; i < arr.length; i++) {
      const v = arr[i];
      if (typeof v !== 'number' || !Number.isFinite(v)) {
        const b = Math.floor(i / k);
        throw new HubError(
          `${what}: frame.${field}[${source.names[b]}].${'xyzw'[i % k]} is ${describe(v)} (need a finite number)`,
        );
      }
    }
  }
}
