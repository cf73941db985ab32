/**
 * Leg bones and world leg trajectories of a clip (forward kinematics of every frame). Engine-free;
 * set-up time code (allocates the tracks once, nothing per frame).
 */
import {
  type Clip,
  forwardKinematics,
  HumanBodyBones as H,
  HUMAN_BONE_NAMES,
  readFrame,
  type Skeleton,
} from '../core';
import { CleanupError, type FootName } from './types';

/** Bone indices of one leg (skeleton bones, from the humanoid map). `toe` is -1 when the rig has none. */
export interface LegBones {
  upper: number;
  lower: number;
  end: number;
  toe: number;
}

/** World positions of one leg per frame: `Float64Array(3 * frameCount)` each, metres, clip world frame. */
export interface LegTrack {
  hip: Float64Array;
  knee: Float64Array;
  ankle: Float64Array;
  /** Toe joint, or null when the rig has no toe bone. */
  toe: Float64Array | null;
}

const LEG: Record<FootName, [number, number, number, number]> = {
  left: [H.LeftUpperLeg, H.LeftLowerLeg, H.LeftFoot, H.LeftToes],
  right: [H.RightUpperLeg, H.RightLowerLeg, H.RightFoot, H.RightToes],
};

/**
 * The leg's bones from the skeleton's humanoid map.
 * @throws CleanupError naming the foot and the missing HumanBodyBones name (toes are optional).
 */
export function legBones(skeleton: Skeleton, foot: FootName): LegBones {
  const [u, l, e, t] = LEG[foot];
  for (const h of [u, l, e]) {
    if (skeleton.humanoid[h] < 0)
      throw new CleanupError(`${foot} foot: the skeleton has no ${HUMAN_BONE_NAMES[h]} in its humanoid map`);
  }
  return {
    upper: skeleton.humanoid[u],
    lower: skeleton.humanoid[l],
    end: skeleton.humanoid[e],
    toe: skeleton.humanoid[t],
  };
}

/** Both legs' world tracks over every frame of the clip. */
export function legTracks(clip: Clip, bones: Record<FootName, LegBones>): Record<FootName, LegTrack> {
  const n = clip.skeleton.boneCount;
  const F = clip.frameCount;
  const rot = new Float64Array(4 * n);
  const pos = new Float64Array(3 * n);
  const wr = new Float64Array(4 * n);
  const wp = new Float64Array(3 * n);
  const make = (b: LegBones): LegTrack => ({
    hip: new Float64Array(3 * F),
    knee: new Float64Array(3 * F),
    ankle: new Float64Array(3 * F),
    toe: b.toe >= 0 ? new Float64Array(3 * F) : null,
  });
  const out = { left: make(bones.left), right: make(bones.right) };
  for (let f = 0; f < F; f++) {
    readFrame(clip, f, rot, pos);
    forwardKinematics(clip.skeleton, rot, pos, wr, wp);
    for (const foot of ['left', 'right'] as const) {
      const b = bones[foot];
      const tr = out[foot];
      for (let k = 0; k < 3; k++) {
        tr.hip[3 * f + k] = wp[3 * b.upper + k];
        tr.knee[3 * f + k] = wp[3 * b.lower + k];
        tr.ankle[3 * f + k] = wp[3 * b.end + k];
        if (tr.toe) tr.toe[3 * f + k] = wp[3 * b.toe + k];
      }
    }
  }
  return out;
}

/** Mean rest hip-to-ankle leg length (thigh + shin, metres) of both legs. */
export function restLegLength(skeleton: Skeleton, bones: Record<FootName, LegBones>): number {
  const rot = new Float64Array(4 * skeleton.boneCount);
  const pos = new Float64Array(3 * skeleton.boneCount);
  forwardKinematics(skeleton, skeleton.restRotations, skeleton.restTranslations, rot, pos);
  const d = (a: number, b: number) =>
    Math.hypot(pos[3 * a] - pos[3 * b], pos[3 * a + 1] - pos[3 * b + 1], pos[3 * a + 2] - pos[3 * b + 2]);
  let sum = 0;
  for (const foot of ['left', 'right'] as const) {
    const b = bones[foot];
    sum += d(b.upper, b.lower) + d(b.lower, b.end);
  }
  return sum / 2;
}
