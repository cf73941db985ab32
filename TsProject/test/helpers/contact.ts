/** Shared helpers of the contact tests: load takes, edit clips (shift, scale, decimate, raise a leg). */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { quat } from 'gl-matrix';
import {
  type Clip,
  createSkeleton,
  HumanBodyBones as H,
  quat64,
  restWorld,
  withHumanoid,
} from '../../src/core';
import { parseBvh } from '../../src/io/bvh';
import { autoMapHumanoid } from '../../src/io/humanoidMap';

export const DEFAULT_WALK = path.resolve(__dirname, '../../assets/default/default-walk.bvh');
export const SHIPPED_ONNX = path.resolve(__dirname, '../../src/contact/model/contact.onnx');

export function loadBvhClip(file: string): Clip {
  const fileName = path.basename(file);
  const parsed = parseBvh(fs.readFileSync(file, 'utf8'), { fileName });
  const map = autoMapHumanoid(parsed.clip.skeleton, { fileName });
  return { ...parsed.clip, skeleton: withHumanoid(parsed.clip.skeleton, map.humanoid) };
}

/** The take moved by `offset` metres along `up` (root translations of every frame). */
export function shiftClip(clip: Clip, up: number[], offset: number): Clip {
  const n = clip.skeleton.boneCount;
  const t = clip.translations.slice();
  for (let f = 0; f < clip.frameCount; f++) {
    for (let i = 0; i < n; i++) {
      if (clip.skeleton.parents[i] >= 0) continue;
      for (let c = 0; c < 3; c++) t[3 * (f * n + i) + c] += up[c] * offset;
    }
  }
  return { ...clip, translations: t };
}

/** The take scaled uniformly by `s` (rest offsets and every translation). */
export function scaleClip(clip: Clip, s: number): Clip {
  const sk = clip.skeleton;
  const skeleton = createSkeleton({
    names: sk.names,
    parents: sk.parents,
    restTranslations: Array.from(sk.restTranslations, (v) => v * s),
    restRotations: sk.restRotations,
    humanoid: sk.humanoid,
  });
  return { ...clip, skeleton, translations: clip.translations.map((v) => v * s) };
}

/** Every `step`-th frame, frame time x step. */
export function decimateClip(clip: Clip, step: number): Clip {
  const n = clip.skeleton.boneCount;
  const F = Math.floor((clip.frameCount - 1) / step) + 1;
  const rotations = new Float32Array(F * n * 4);
  const translations = new Float32Array(F * n * 3);
  for (let f = 0; f < F; f++) {
    rotations.set(clip.rotations.subarray(f * step * n * 4, (f * step + 1) * n * 4), f * n * 4);
    translations.set(clip.translations.subarray(f * step * n * 3, (f * step + 1) * n * 3), f * n * 3);
  }
  return { ...clip, frameCount: F, frameTime: clip.frameTime * step, rotations, translations };
}

/**
 * A clip of `frames` frames at 60 fps standing in the rest pose, whose left leg is raised (hip flexed by
 * `hipDeg` about the character's lateral axis, knee bent by `kneeDeg`) and held perfectly still over
 * frames [from, to). The right foot stays on the floor throughout.
 */
export function raisedLegClip(
  base: Clip,
  frames: number,
  from: number,
  to: number,
  hipDeg: number,
  kneeDeg: number,
): Clip {
  const sk = base.skeleton;
  const n = sk.boneCount;
  const rest = restWorld(sk);
  const rotations = new Float32Array(frames * n * 4);
  const translations = new Float32Array(frames * n * 3);
  for (let f = 0; f < frames; f++) {
    rotations.set(sk.restRotations, f * n * 4);
    translations.set(sk.restTranslations, f * n * 3);
  }
  const lu = sk.humanoid[H.LeftUpperLeg];
  const ru = sk.humanoid[H.RightUpperLeg];
  const lat = [0, 1, 2].map((c) => rest.positions[3 * lu + c] - rest.positions[3 * ru + c]);
  const bend = (bone: number, deg: number): Float32Array => {
    const wq = rest.rotations.subarray(4 * bone, 4 * bone + 4) as unknown as quat;
    const inv = quat.invert(quat64(), wq);
    const axis = [0, 0, 0] as unknown as Float64Array;
    const tmp = quat.multiply(
      quat64(),
      quat.multiply(quat64(), inv, quat.fromValues(lat[0], lat[1], lat[2], 0)),
      wq,
    );
    axis[0] = tmp[0];
    axis[1] = tmp[1];
    axis[2] = tmp[2];
    const l = Math.hypot(axis[0], axis[1], axis[2]);
    const q = quat.setAxisAngle(quat64(), [axis[0] / l, axis[1] / l, axis[2] / l], (deg * Math.PI) / 180);
    const local = sk.restRotations.subarray(4 * bone, 4 * bone + 4) as unknown as quat;
    return Float32Array.from(quat.multiply(quat64(), local, q));
  };
  const hipQ = bend(lu, hipDeg);
  const kneeQ = bend(sk.humanoid[H.LeftLowerLeg], kneeDeg);
  for (let f = from; f < to; f++) {
    rotations.set(hipQ, 4 * (f * n + lu));
    rotations.set(kneeQ, 4 * (f * n + sk.humanoid[H.LeftLowerLeg]));
  }
  return { ...base, name: 'raised-leg', frameCount: frames, frameTime: 1 / 60, rotations, translations };
}
