/**
 * Animation clips as structure-of-arrays typed arrays.
 *
 * A clip holds, for every frame and bone, the local rotation (unit quaternion `[x, y, z, w]`) and the
 * local translation (metres, parent frame) of a {@link Skeleton}. Frame `f`, bone `i` lives at
 * `rotations[4 * (f * n + i)]` and `translations[3 * (f * n + i)]`. Frames are evenly spaced by
 * `frameTime` seconds; frame 0 is at t = 0 and the last frame at `(frameCount - 1) * frameTime`.
 */
import { type NumArray, quat64, slerpShortest } from './quat';
import type { Skeleton } from './skeleton';

/**
 * An animation clip on one skeleton: `frameCount` frames of local rotations (`Float32Array(4 * boneCount *
 * frameCount)`, quaternions `[x, y, z, w]`, frame-major) and local translations (metres), `frameTime` seconds
 * apart.
 */
export interface Clip {
  name: string;
  readonly skeleton: Skeleton;
  readonly frameCount: number;
  /** Seconds between frames (BVH `Frame Time`), kept as read (no rounding). */
  readonly frameTime: number;
  /** `Float32Array(frameCount * boneCount * 4)`: local rotations. */
  readonly rotations: Float32Array;
  /** `Float32Array(frameCount * boneCount * 3)`: local translations, metres. */
  readonly translations: Float32Array;
}

/** Thrown for invalid clip data or arguments; the message names the field. */
export class ClipError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClipError';
  }
}

/**
 * A clip of `frameCount` frames filled with the skeleton's rest pose.
 * @throws ClipError when frameCount < 1 or frameTime is not a positive finite number.
 */
export function createClip(skeleton: Skeleton, frameCount: number, frameTime: number, name = 'clip'): Clip {
  if (!Number.isInteger(frameCount) || frameCount < 1)
    throw new ClipError(`frameCount ${frameCount}: need an integer >= 1`);
  if (!(frameTime > 0) || !Number.isFinite(frameTime))
    throw new ClipError(`frameTime ${frameTime}: need a positive number of seconds`);
  const n = skeleton.boneCount;
  const rotations = new Float32Array(frameCount * n * 4);
  const translations = new Float32Array(frameCount * n * 3);
  for (let f = 0; f < frameCount; f++) {
    rotations.set(skeleton.restRotations, f * n * 4);
    translations.set(skeleton.restTranslations, f * n * 3);
  }
  return { name, skeleton, frameCount, frameTime, rotations, translations };
}

/**
 * A new clip holding frames `[from, from + count)` of `clip` (clamped to the clip), same skeleton and
 * frame time. Copies the data.
 */
export function sliceClip(clip: Clip, from: number, count: number): Clip {
  const start = Math.max(0, Math.min(clip.frameCount - 1, Math.floor(from)));
  const end = Math.max(start + 1, Math.min(clip.frameCount, start + Math.floor(count)));
  const n = clip.skeleton.boneCount;
  return {
    name: clip.name,
    skeleton: clip.skeleton,
    frameCount: end - start,
    frameTime: clip.frameTime,
    rotations: clip.rotations.slice(start * n * 4, end * n * 4),
    translations: clip.translations.slice(start * n * 3, end * n * 3),
  };
}

/** Frames per second, `1 / frameTime` (e.g. Frame Time 0.0083333 -> 120.0005). */
export function clipFps(clip: Clip): number {
  return 1 / clip.frameTime;
}

/** Duration in seconds from the first to the last frame: `(frameCount - 1) * frameTime`. */
export function clipDuration(clip: Clip): number {
  return (clip.frameCount - 1) * clip.frameTime;
}

/** Index of the frame at or before time `t` (seconds), clamped to `[0, frameCount - 1]`. */
export function frameIndexAt(clip: Clip, t: number): number {
  const f = Math.floor(t / clip.frameTime + 1e-9);
  if (!(f > 0)) return 0;
  return f >= clip.frameCount ? clip.frameCount - 1 : f;
}

/** Copy frame `f`'s local pose into `outRot` (4n) and `outPos` (3n). Allocates nothing. */
export function readFrame(clip: Clip, f: number, outRot: NumArray, outPos: NumArray): void {
  const n = clip.skeleton.boneCount;
  const r = clip.rotations;
  const t = clip.translations;
  const ro = f * n * 4;
  const to = f * n * 3;
  for (let k = 0; k < 4 * n; k++) outRot[k] = r[ro + k];
  for (let k = 0; k < 3 * n; k++) outPos[k] = t[to + k];
}

/** Store a local pose (`rot` 4n, `pos` 3n) as frame `f`. Allocates nothing. */
export function writeFrame(clip: Clip, f: number, rot: NumArray, pos: NumArray): void {
  const n = clip.skeleton.boneCount;
  const ro = f * n * 4;
  const to = f * n * 3;
  for (let k = 0; k < 4 * n; k++) clip.rotations[ro + k] = rot[k];
  for (let k = 0; k < 3 * n; k++) clip.translations[to + k] = pos[k];
}

const qa = quat64();
const qb = quat64();
const qo = quat64();

/**
 * Sample the clip at time `t` seconds: rotations by shortest-path slerp, translations linearly,
 * between the two neighbouring frames. Times before 0 or past the end clamp to the first or
 * last frame (never index past the last frame). Allocates nothing.
 */
export function sampleClip(clip: Clip, t: number, outRot: NumArray, outPos: NumArray): void {
  const last = clip.frameCount - 1;
  const x = t / clip.frameTime;
  if (!(x > 0) || x >= last) {
    readFrame(clip, x >= last ? last : 0, outRot, outPos);
    return;
  }
  const f0 = Math.floor(x);
  const u = x - f0;
  const n = clip.skeleton.boneCount;
  const r = clip.rotations;
  const tr = clip.translations;
  const a = f0 * n;
  const b = (f0 + 1) * n;
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < 4; k++) {
      qa[k] = r[4 * (a + i) + k];
      qb[k] = r[4 * (b + i) + k];
    }
    slerpShortest(qo, qa, qb, u);
    for (let k = 0; k < 4; k++) outRot[4 * i + k] = qo[k];
    for (let k = 0; k < 3; k++) outPos[3 * i + k] = tr[3 * (a + i) + k] * (1 - u) + tr[3 * (b + i) + k] * u;
  }
}

/**
 * A copy of `clip` whose skeleton and translations carry uniform scales on some bones, for formats with
 * no per-joint scale (BVH): every bone strictly below a listed bone gets its rest translation and its
 * translations in every frame multiplied by the product of the scales of its listed ancestors. The
 * listed bones themselves keep their translations (e.g. the hips' world-derived path).
 * @throws ClipError on a bone index out of range or a non-positive scale.
 */
export function scaleSubtrees(clip: Clip, scales: readonly { bone: number; scale: number }[]): Clip {
  const s = clip.skeleton;
  const n = s.boneCount;
  const factor = new Float64Array(n).fill(1);
  const own = new Float64Array(n).fill(1);
  for (const { bone, scale } of scales) {
    if (!Number.isInteger(bone) || bone < 0 || bone >= n)
      throw new ClipError(`scaleSubtrees: bone ${bone} out of range`);
    if (!(scale > 0) || !Number.isFinite(scale))
      throw new ClipError(`scaleSubtrees: scale ${scale} for bone '${s.names[bone]}' must be positive`);
    own[bone] *= scale;
  }
  for (let i = 0; i < n; i++) {
    const p = s.parents[i];
    factor[i] = p >= 0 ? factor[p] * own[p] : 1;
  }
  const rest = Float64Array.from(s.restTranslations);
  for (let i = 0; i < n; i++) for (let c = 0; c < 3; c++) rest[3 * i + c] *= factor[i];
  const skeleton = { ...s, restTranslations: rest };
  const translations = clip.translations.slice();
  for (let f = 0; f < clip.frameCount; f++) {
    for (let i = 0; i < n; i++) {
      const o = 3 * (f * n + i);
      translations[o] *= factor[i];
      translations[o + 1] *= factor[i];
      translations[o + 2] *= factor[i];
    }
  }
  return { ...clip, skeleton, translations, rotations: clip.rotations };
}
