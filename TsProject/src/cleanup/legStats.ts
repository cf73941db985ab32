/**
 * Report-time figures of the foot-slide cleanup's leg IK (issue 11, point 10): rotation changes of the
 * hip, knee and ankle bones, knee shift and knee pops per foot, and the frame ranges where the IK hit a
 * limit; and the knee's hinge axis the solver falls back to. Engine-free; set-up and report time code
 * (allocates its results).
 */
import { type Clip, forwardKinematics, vrotateConj } from '../core';
import { kneeAngleDeg } from './metrics';
import type { LegBones, LegTrack } from './tracks';
import type { FootName, FrameRange } from './types';

/** How much the cleanup rotated one joint of a leg (degrees). */
export interface JointRotationStats {
  /** Degrees. */
  maxDeg: number;
  /** Degrees, over the changed frames. */
  meanDeg: number;
}

/**
 * The IK figures of one leg: frames changed, rotation change of hip, knee and ankle, knee shift and knee
 * pops.
 */
export interface FootIkStats {
  /** Frames whose leg was changed (weight > 0). */
  framesChanged: number;
  /** Change of the local rotation of the hip (thigh), knee (shin) and ankle (foot) bones. */
  hip: JointRotationStats;
  knee: JointRotationStats;
  ankle: JointRotationStats;
  /** Knee joint position change, metres. */
  kneeShiftMax: number;
  kneeShiftMean: number;
  /**
   * Frames whose knee angle jump exceeds the source's at that frame by more than `kneePopMargin60`
   * (scaled); a frame where the source itself jumps (an ankle step faster than `maxFootSpeed`) is not
   * counted.
   */
  kneePops: number;
}

export interface LimitRange extends FrameRange {
  foot: FootName;
  /** 'outOfReach': the anchor was beyond the allowed hip-ankle distance, the foot left the pin. */
  kind: 'outOfReach' | 'kneeLimit';
  /** Largest distance of the solved ankle from its target over the range, metres (full weight). */
  maxPinError: number;
}

/**
 * The runs of equal non-zero `limitKind` (1 = out of reach, 2 = knee on a limit) of one foot, with the
 * largest `pinError` (metres) over each run.
 */
export function limitRanges(foot: FootName, limitKind: Uint8Array, pinError: Float32Array): LimitRange[] {
  const F = limitKind.length;
  const out: LimitRange[] = [];
  let start = -1;
  for (let f = 0; f <= F; f++) {
    const k = f < F ? limitKind[f] : 0;
    if (start >= 0 && (k !== limitKind[start] || f === F)) {
      let m = 0;
      for (let t = start; t < f; t++) m = Math.max(m, pinError[t]);
      out.push({
        foot,
        start,
        end: f,
        kind: limitKind[start] === 1 ? 'outOfReach' : 'kneeLimit',
        maxPinError: m,
      });
      start = -1;
    }
    if (start < 0 && k !== 0) start = f;
  }
  return out;
}

/** The knee's bend axis in the thigh's frame, from the source frame where the leg is most bent. */
export function hingeAxisLocal(clip: Clip, b: LegBones, tr: LegTrack): Float64Array {
  let best = -1;
  let bestF = 0;
  const c = new Float64Array(3);
  for (let f = 0; f < clip.frameCount; f++) {
    const o = 3 * f;
    const tx = tr.knee[o] - tr.hip[o];
    const ty = tr.knee[o + 1] - tr.hip[o + 1];
    const tz = tr.knee[o + 2] - tr.hip[o + 2];
    const ux = tr.ankle[o] - tr.knee[o];
    const uy = tr.ankle[o + 1] - tr.knee[o + 1];
    const uz = tr.ankle[o + 2] - tr.knee[o + 2];
    const x = ty * uz - tz * uy;
    const y = tz * ux - tx * uz;
    const z = tx * uy - ty * ux;
    const l = Math.sqrt(x * x + y * y + z * z);
    if (l > best) {
      best = l;
      bestF = f;
      c[0] = x / (l || 1);
      c[1] = y / (l || 1);
      c[2] = z / (l || 1);
    }
  }
  const n = clip.skeleton.boneCount;
  const rot = clip.rotations.subarray(4 * bestF * n, 4 * (bestF + 1) * n);
  const pos = clip.translations.subarray(3 * bestF * n, 3 * (bestF + 1) * n);
  const wr = new Float64Array(4 * n);
  const wp = new Float64Array(3 * n);
  forwardKinematics(clip.skeleton, rot, pos, wr, wp);
  const out = new Float64Array(3);
  vrotateConj(out, 0, wr, 4 * b.upper, c, 0);
  return out;
}

/** The IK figures of one foot (see {@link FootIkStats}). */
export function ikStats(
  src: Clip,
  out: Clip,
  b: LegBones,
  before: LegTrack,
  after: LegTrack,
  weight: Float32Array,
  popMargin: number,
  jump: Uint8Array,
): FootIkStats {
  const n = src.skeleton.boneCount;
  const stats = [b.upper, b.lower, b.end].map(() => ({ maxDeg: 0, sum: 0 }));
  let changed = 0;
  let shiftMax = 0;
  let shiftSum = 0;
  let pops = 0;
  for (let f = 0; f < src.frameCount; f++) {
    if (f > 0 && !jump[f]) {
      const jb = Math.abs(kneeAngleDeg(before, f) - kneeAngleDeg(before, f - 1));
      const ja = Math.abs(kneeAngleDeg(after, f) - kneeAngleDeg(after, f - 1));
      if (ja > jb + popMargin) pops++;
    }
    if (weight[f] === 0) continue;
    changed++;
    [b.upper, b.lower, b.end].forEach((bone, j) => {
      const o = 4 * (f * n + bone);
      // angle of conj(a) b from its vector part and w (acos of a dot product is noisy near 1)
      const r = src.rotations;
      const q = out.rotations;
      const ax = r[o];
      const ay = r[o + 1];
      const az = r[o + 2];
      const aw = r[o + 3];
      const bx = q[o];
      const by = q[o + 1];
      const bz = q[o + 2];
      const bw = q[o + 3];
      const x = aw * bx - ax * bw - ay * bz + az * by;
      const y = aw * by - ay * bw - az * bx + ax * bz;
      const z = aw * bz - az * bw - ax * by + ay * bx;
      const w = aw * bw + ax * bx + ay * by + az * bz;
      const deg = (2 * Math.atan2(Math.sqrt(x * x + y * y + z * z), Math.abs(w)) * 180) / Math.PI;
      stats[j].maxDeg = Math.max(stats[j].maxDeg, deg);
      stats[j].sum += deg;
    });
    const o = 3 * f;
    const s = Math.hypot(
      after.knee[o] - before.knee[o],
      after.knee[o + 1] - before.knee[o + 1],
      after.knee[o + 2] - before.knee[o + 2],
    );
    shiftMax = Math.max(shiftMax, s);
    shiftSum += s;
  }
  const js = (j: number): JointRotationStats => ({
    maxDeg: stats[j].maxDeg,
    meanDeg: changed ? stats[j].sum / changed : 0,
  });
  return {
    framesChanged: changed,
    hip: js(0),
    knee: js(1),
    ankle: js(2),
    kneeShiftMax: shiftMax,
    kneeShiftMean: changed ? shiftSum / changed : 0,
    kneePops: pops,
  };
}
