/**
 * Resampled glTF clips keep their last key as their last frame (issue 10, section 9): glTF key times
 * are float32, so a last key at 4.2 s is stored as 4.19999981 s; the frame count is
 * `max(1, round(duration * fps)) + 1` and the last frame samples the last key (`resampledFrameCount`).
 * Clips are written as real GLBs: keys on the hips of the embedded default avatar (float32 times through
 * glTF Transform), and evenly spaced clips through `writeRetargetedGlb`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WebIO } from '@gltf-transform/core';
import fc from 'fast-check';
import { quat } from 'gl-matrix';
import type { RetargetSummary } from '../src/cli/retarget';
import { angleBetween, createClip, HumanBodyBones as H } from '../src/core';
import { parseBvh, readAvatar, readGltfClip, resampledFrameCount, writeRetargetedGlb } from '../src/io';
import { retargetClip } from '../src/retarget';
import { runKind } from './helpers/runCli';

const AVATAR = path.resolve(__dirname, '../assets/default/default-avatar.glb');
const avatarBytes = new Uint8Array(fs.readFileSync(AVATAR));
const DEG = Math.PI / 180;

/** The default avatar with one animation 'take': hips rotation keys (yaw in degrees about +Y) at `times`. */
async function avatarWithTake(times: number[], yawDeg: number[]): Promise<Uint8Array> {
  const io = new WebIO();
  const doc = await io.readBinary(avatarBytes);
  const hips = doc
    .getRoot()
    .listNodes()
    .find((n) => n.getName() === 'kind:Hips')!;
  const rest = hips.getRotation();
  const values: number[] = [];
  for (const y of yawDeg) {
    const q = quat.setAxisAngle(quat.create(), [0, 1, 0], y * DEG);
    quat.multiply(q, q, rest as unknown as quat);
    values.push(...q);
  }
  const buffer = doc.getRoot().listBuffers()[0];
  const input = doc.createAccessor('t').setType('SCALAR').setArray(new Float32Array(times)).setBuffer(buffer);
  const output = doc.createAccessor('r').setType('VEC4').setArray(new Float32Array(values)).setBuffer(buffer);
  const sampler = doc.createAnimationSampler().setInput(input).setOutput(output).setInterpolation('LINEAR');
  const anim = doc.createAnimation('take').addSampler(sampler);
  anim.addChannel(
    doc.createAnimationChannel().setTargetNode(hips).setTargetPath('rotation').setSampler(sampler),
  );
  return io.writeBinary(doc);
}

/** Degrees between the hips' rotation at frame f and at frame 0 (the yaw turned since frame 0). */
function hipsTurn(
  clip: { rotations: Float64Array | Float32Array; skeleton: { boneCount: number; humanoid: Int32Array } },
  f: number,
): number {
  const n = clip.skeleton.boneCount;
  const b = clip.skeleton.humanoid[H.Hips];
  const at = (k: number) => clip.rotations.subarray(4 * (k * n + b), 4 * (k * n + b) + 4);
  return angleBetween(at(f), at(0)) / DEG;
}

/** Yaw of the piecewise-linear key curve at time t (keys within 180 degrees of each other: slerp = lerp of the angle). */
function yawAt(times: number[], yaw: number[], t: number): number {
  if (t <= times[0]) return yaw[0];
  const last = times.length - 1;
  if (t >= times[last]) return yaw[last];
  let k = 0;
  while (times[k + 1] <= t) k++;
  const s = (t - times[k]) / (times[k + 1] - times[k]);
  return yaw[k] + s * (yaw[k + 1] - yaw[k]);
}

describe('resampled glTF clips end on their last key', () => {
  it('a last key at 4.2 s (float32 4.19999981) at 10 fps: 43 frames, the last at 4.2 s and 90 degrees', async () => {
    expect(Math.fround(4.2)).toBeLessThan(4.2);
    const avatar = await readAvatar(await avatarWithTake([0, 4.2], [0, 90]), { fileName: 'take.glb' });
    const clip = readGltfClip(avatar, 'take', { fps: 10 });
    expect(clip.frameCount).toBe(43);
    expect(clip.frameTime).toBe(0.1);
    expect(hipsTurn(clip, 42)).toBeCloseTo(90, 4);
    expect(hipsTurn(clip, 41)).toBeCloseTo((90 * 4.1) / Math.fround(4.2), 3);
    expect(clip.warnings).toEqual([]); // a whole number of frames: nothing to say
  });

  it('uneven keys at 0, 1, 2.5, 4.2 s at the default 30 fps: 127 frames, the last the last key', async () => {
    const times = [0, 1, 2.5, 4.2];
    const yaw = [0, 30, -20, 90];
    const avatar = await readAvatar(await avatarWithTake(times, yaw), { fileName: 'take.glb' });
    const clip = readGltfClip(avatar, 'take');
    expect(clip.frameCount).toBe(127);
    expect(clip.frameTime).toBeCloseTo(1 / 30, 15);
    expect(clip.warnings).toEqual(['key times are not evenly spaced: resampled at 30 fps']);
    expect(hipsTurn(clip, 126)).toBeCloseTo(90, 4);
    expect(hipsTurn(clip, 30)).toBeCloseTo(30, 3); // the key at 1 s
    expect(hipsTurn(clip, 75)).toBeCloseTo(20, 3); // the key at 2.5 s (-20 degrees)
  });

  it('a length that is not a whole number of frames: the last key goes to the nearest frame, with a note', async () => {
    // 4.14 s at 10 fps = 41.4 frames: 42 frames, the last (4.1 s) holds the key of 4.14 s
    const early = readGltfClip(
      await readAvatar(await avatarWithTake([0, 4.14], [0, 90]), { fileName: 'a.glb' }),
      'take',
      { fps: 10 },
    );
    expect(early.frameCount).toBe(42);
    expect(hipsTurn(early, 41)).toBeCloseTo(90, 4);
    expect(hipsTurn(early, 40)).toBeCloseTo((90 * 4.0) / Math.fround(4.14), 3);
    expect(early.warnings.join('\n')).toMatch(
      /the clip lasts 4\.1400 s, 41\.400 frames at 10 fps: its last key is the last frame, 41 \(4\.1000 s\)/,
    );
    // 4.16 s = 41.6 frames: 43 frames, the last (4.2 s) holds the key of 4.16 s
    const late = readGltfClip(
      await readAvatar(await avatarWithTake([0, 4.16], [0, 90]), { fileName: 'b.glb' }),
      'take',
      { fps: 10 },
    );
    expect(late.frameCount).toBe(43);
    expect(hipsTurn(late, 42)).toBeCloseTo(90, 4);
    expect(hipsTurn(late, 41)).toBeCloseTo((90 * 4.1) / Math.fround(4.16), 3);
  });

  it('a rate so low that the clip is under half a frame: 2 frames, the end moved by more than half a frame, with a note', async () => {
    // 4 s at 1e-300 fps is 4e-300 frames: still 2 frames (first and last key), the last at 1e300 s.
    // Before, the note compared the frame count with round(4e-300) = 0, within the tolerance: no word.
    const avatar = await readAvatar(await avatarWithTake([0, 4], [0, 90]), { fileName: 'c.glb' });
    for (const fps of [1e-300, 0.1]) {
      const clip = readGltfClip(avatar, 'take', { fps });
      expect(clip.frameCount).toBe(2);
      expect(hipsTurn(clip, 1)).toBeCloseTo(90, 4);
      expect(clip.warnings.join('\n')).toMatch(
        /the clip lasts 4\.0000 s, 0\.\d{3} frames at .* fps: its last key is the last frame, 1 /,
      );
    }
  });

  it('every length k / fps in float32 up to 20 s gives k + 1 frames (24, 25, 30, 60 fps)', () => {
    const lost: string[] = [];
    for (const fps of [24, 25, 30, 60]) {
      for (let k = 1; k <= 20 * fps; k++) {
        // first key at 0 or later: both ends rounded to float32
        for (const start of [0, 0.5, 3.1]) {
          const d = Math.fround(start + k / fps) - Math.fround(start);
          if (resampledFrameCount(d, fps) !== k + 1) lost.push(`${k}/${fps} from ${start}`);
        }
      }
    }
    expect(lost).toEqual([]);
  });

  it('random float32 keys and rates: round(duration x fps) + 1 frames, first and last keys exact, the rest sampled on time (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 5 }),
        fc.array(fc.double({ min: 0.02, max: 4, noNaN: true }), { minLength: 4, maxLength: 4 }),
        fc.array(fc.double({ min: -80, max: 80, noNaN: true }), { minLength: 5, maxLength: 5 }),
        fc.oneof(
          fc.constantFrom(10, 24, 25, 29.97, 30, 50, 60, 120),
          fc.double({ min: 5, max: 120, noNaN: true }),
        ),
        fc.double({ min: 0, max: 10, noNaN: true }),
        async (keys, gaps, yawAll, fps, start) => {
          const times = [Math.fround(start)];
          for (let k = 1; k < keys; k++) times.push(Math.fround(times[k - 1] + gaps[k - 1]));
          fc.pre(times.every((t, k) => k === 0 || t - times[k - 1] > 0.01));
          const yaw = yawAll.slice(0, keys);
          const avatar = await readAvatar(await avatarWithTake(times, yaw), { fileName: 'p.glb' });
          const clip = readGltfClip(avatar, 'take', { fps });
          const d = times[keys - 1] - times[0];
          const n = Math.max(1, Math.round(d * fps)) + 1;
          expect(clip.frameCount).toBe(n);
          // the end moves by half a frame at most (a clip shorter than half a frame still gets 2 frames)
          if (d * fps >= 0.5) expect(Math.abs((n - 1) / fps - d)).toBeLessThanOrEqual(0.5 / fps + 1e-9);
          else expect(n).toBe(2);
          const turn = (t: number) => Math.abs(yawAt(times, yaw, t) - yaw[0]);
          expect(Math.abs(hipsTurn(clip, n - 1) - turn(times[keys - 1]))).toBeLessThan(1e-3);
          for (let f = 1; f < n - 1; f++)
            expect(Math.abs(hipsTurn(clip, f) - turn(times[0] + f / fps))).toBeLessThan(2e-3);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('clips written by writeRetargetedGlb read back frame for frame, at their own rate and resampled to it (property)', async () => {
    const avatar = await readAvatar(avatarBytes, { fileName: 'default-avatar.glb' });
    const sk = avatar.skeleton;
    const hips = sk.humanoid[H.Hips];
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 600 }), fc.constantFrom(24, 25, 30, 60), async (k, fps) => {
        const clip = createClip(sk, k + 1, 1 / fps, 'take');
        const q = quat.create();
        for (let f = 0; f <= k; f++) {
          quat.setAxisAngle(q, [0, 1, 0], ((f / k) * 90 * DEG) as number);
          quat.multiply(q, q, sk.restRotations.subarray(4 * hips, 4 * hips + 4) as unknown as quat);
          clip.rotations.set(q, 4 * (f * sk.boneCount + hips));
        }
        const back = await readAvatar(await writeRetargetedGlb(avatar, clip), { fileName: 'out.glb' });
        for (const options of [{}, { fps }]) {
          const read = readGltfClip(back, 'take', options);
          expect(read.frameCount).toBe(k + 1);
          expect(hipsTurn(read, k)).toBeCloseTo(90, 3);
        }
      }),
      { numRuns: 40 },
    );
  });
});

describe('the --fps path: kind retarget and retargetClip keep the last key', () => {
  it('retargetClip on the clip read at 10 fps: 43 frames ending on the 90-degree turn', async () => {
    const source = await readAvatar(await avatarWithTake([0, 4.2], [0, 90]), { fileName: 'take.glb' });
    const target = await readAvatar(avatarBytes, { fileName: 'default-avatar.glb' });
    const { clip } = retargetClip(readGltfClip(source, 'take', { fps: 10 }), target.skeleton);
    expect(clip.frameCount).toBe(43);
    expect(hipsTurn(clip, 42)).toBeCloseTo(90, 3);
  });

  it('kind retarget --fps 10: summary, GLB and BVH hold 43 frames over 4.2 s', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-fps-'));
    const src = path.join(dir, 'take.glb');
    fs.writeFileSync(src, await avatarWithTake([0, 4.2], [0, 90]));
    const r = await runKind([
      'retarget',
      src,
      AVATAR,
      '--clip',
      'take',
      '--fps',
      '10',
      '-o',
      path.join(dir, 'out'),
    ]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const s = JSON.parse(fs.readFileSync(path.join(dir, 'out', 'summary.json'), 'utf8')) as RetargetSummary;
    expect(s.frames).toBe(43);
    expect(s.durationSeconds).toBeCloseTo(4.2, 9);
    const bvh = parseBvh(fs.readFileSync(s.outputs.bvh, 'utf8'), { fileName: 'take.bvh' });
    expect(bvh.clip.frameCount).toBe(43);
    const glb = await readAvatar(new Uint8Array(fs.readFileSync(s.outputs.glb)), { fileName: 'take.glb' });
    const read = readGltfClip(glb, 'take');
    expect(read.frameCount).toBe(43);
    expect(hipsTurn(read, 42)).toBeCloseTo(90, 3);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
