/**
 * Shared by test/unity.mocap.test.ts and test/unity.mocap.mono.test.ts: the real squat as a Unity hub on
 * KindBrowserMocapSource sees it, input buffers with the confidence tail (packed from the documented layout,
 * as KindAvatarDriver packs them), and the mocap setup JSON.
 */
import type { Skeleton } from '../src/core';
import { loadLandmarkRecording } from '../src/io/node';
import { calibrateMocap, MocapSolver, mocapSkeleton } from '../src/mocap';
import { dataPath } from './helpers/data';
import { InputPacker, setupJson } from './unity.helpers';

export interface Frame {
  rot: Float64Array;
  pos: Float64Array;
  conf: Float64Array;
  /** seconds since the previous frame (0 for the first) */
  dt: number;
}

/**
 * The frames a Unity hub on KindBrowserMocapSource sees: the rest T-pose first (the source shows it for
 * one frame when the skeleton arrives; confidence 1), then the squat as MocapSolver solves it.
 */
export function squatFrames(): { skeleton: Skeleton; frames: Frame[] } {
  const rec = loadLandmarkRecording(dataPath('pose-landmarks/pose_squats.full.json'), {
    imageSize: { width: 720, height: 1280 },
    fps: 5,
  }).recording;
  const cal = calibrateMocap(rec.frames, { source: 'squat' });
  const solver = new MocapSolver(cal);
  const skeleton = mocapSkeleton(cal);
  const n = skeleton.boneCount;
  const frames: Frame[] = [
    {
      rot: Float64Array.from(skeleton.restRotations),
      pos: Float64Array.from(skeleton.restTranslations),
      conf: new Float64Array(n).fill(1),
      dt: 0,
    },
  ];
  let last = Number.NaN;
  for (const f of rec.frames) {
    solver.step(f, { width: 720, height: 1280 });
    frames.push({
      rot: solver.localRotations.slice(),
      pos: solver.localTranslations.slice(),
      conf: solver.confidence.slice(),
      dt: Number.isNaN(last) ? 1 / 30 : (f.timestampMs - last) / 1000,
    });
    last = f.timestampMs;
  }
  return { skeleton, frames };
}

/** Input buffers with the confidence tail, as KindAvatarDriver packs them for an IKindConfidenceSource. */
export class TailPacker {
  readonly base: InputPacker;
  readonly buffer: ArrayBuffer;
  readonly floats: Float32Array;
  constructor(readonly skeleton: Skeleton) {
    this.base = new InputPacker(skeleton);
    const n = skeleton.boneCount;
    this.buffer = new ArrayBuffer(4 * (4 + 8 * n));
    this.floats = new Float32Array(this.buffer);
  }
  pack(fr: Frame, frameNo: number): ArrayBuffer {
    const n = this.skeleton.boneCount;
    this.base.packLocal(fr.rot, fr.pos, frameNo);
    this.floats.set(this.base.floats);
    this.floats[3] = 1; // the tail flag
    for (let i = 0; i < n; i++) this.floats[4 + 7 * n + i] = fr.conf[i];
    return this.buffer;
  }
}

export function mocapSetup(
  name: string,
  sk: Skeleton,
  target: Skeleton,
  ik: 'auto' | 'on',
  mocap = true,
): string {
  const s = JSON.parse(
    setupJson(name, sk, target, { options: { ik, hipsMode: 'room', fingers: 'rotation' } }),
  );
  if (mocap) s.source.mocap = true;
  return JSON.stringify(s);
}
