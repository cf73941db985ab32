/**
 * The live pipeline the viewer's browser test runs: `startLive` replaying the embedded default walk
 * (or a noisy copy of it) onto the default avatar, with ephemeral remote-control and viewer ports.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { quat } from 'gl-matrix';
import { type Clip, quat64, readQuat, writeQuat } from '../src/core';
import { writeBvh } from '../src/io';
import { defaultAssetsDir, loadSource } from '../src/io/node';
import { type LiveHandle, startLive } from '../src/live/node/live';

export type ViewerTestLive = LiveHandle & {
  kind: 'startLive';
  /** The noisy clip being replayed (`noise: true` only): the raw stream's frames. */
  noisyClip?: Clip;
};

const ROOT = path.resolve(__dirname, '..');
export const DEFAULT_AVATAR = path.join(ROOT, 'assets/default/default-avatar.glb');

/** Deterministic standard normal samples (mulberry32 + Box-Muller). */
function gaussian(seed: number): () => number {
  let s = seed >>> 0;
  const u = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
}

/**
 * Sensor-like noise on a clip, in place: every bone's local rotation turned by a random axis-angle of
 * sigma 0.5 degree, the roots' translations moved by white noise of sigma 3 mm per axis, and every
 * 40th frame a 2 cm single-frame spike on the roots along X (a marker swap).
 */
export function addSensorNoise(clip: Clip, seed = 13): void {
  const g = gaussian(seed);
  const sk = clip.skeleton;
  const n = sk.boneCount;
  const q = quat64();
  const dq = quat64();
  const axis = new Float64Array(3);
  for (let f = 0; f < clip.frameCount; f++) {
    for (let b = 0; b < n; b++) {
      axis[0] = g();
      axis[1] = g();
      axis[2] = g();
      const len = Math.hypot(axis[0], axis[1], axis[2]) || 1;
      quat.setAxisAngle(dq, [axis[0] / len, axis[1] / len, axis[2] / len], (0.5 * Math.PI * g()) / 180);
      readQuat(q, clip.rotations, f * n + b);
      quat.multiply(q, q, dq);
      writeQuat(clip.rotations, f * n + b, q);
      if (sk.parents[b] < 0) {
        const o = 3 * (f * n + b);
        for (let k = 0; k < 3; k++) clip.translations[o + k] += 0.003 * g();
        if (f % 40 === 39) clip.translations[o] += 0.02;
      }
    }
  }
}

/**
 * Start the live pipeline. `noise`: replay a copy of the default walk with {@link addSensorNoise}
 * (written as BVH to a temporary folder, removed on close) instead of the walk itself. The source
 * filter has its default parameters (on).
 */
export async function startViewerTestLive(opts: { noise?: boolean } = {}): Promise<ViewerTestLive> {
  let replay = 'default';
  let dir: string | null = null;
  let noisyClip: Clip | undefined;
  if (opts.noise) {
    const src = await loadSource(path.join(defaultAssetsDir(), 'default-walk.bvh'));
    addSensorNoise(src.clip);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-viewer-'));
    replay = path.join(dir, 'noisy-walk.bvh');
    fs.writeFileSync(replay, writeBvh(src.clip));
    // what the replay server reads back (the BVH text rounds the values)
    noisyClip = (await loadSource(replay)).clip;
  }
  const h = await startLive({ replay, avatars: [DEFAULT_AVATAR], remotePort: 0, viewerPort: 0 });
  const close = h.close;
  return Object.assign(h, {
    kind: 'startLive' as const,
    noisyClip,
    close: async () => {
      await close();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    },
  });
}
