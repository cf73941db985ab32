/**
 * IK figures of one leg after the cleanup (issue 11, point 10): how much the hip, knee and ankle local
 * rotations changed, how far the knee moved, and knee pops. Engine-free; report-time code.
 */
import type { Clip } from '../core';
import { kneeAngleDeg } from './metrics';
import type { LegBones, LegTrack } from './tracks';

export interface JointRotationStats {
  /** Degrees. */
  maxDeg: number;
  /** Degrees, over the changed frames. */
  meanDeg: number;
}

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

/**
 * The figures of one leg: rotation changes over the frames with a weight > 0, knee shift, and knee pops
 * (frames whose knee angle jump exceeds the source's by more than `popMargin` degrees; frames flagged in
 * `jump`, where the source itself jumps, are not counted).
 */
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
