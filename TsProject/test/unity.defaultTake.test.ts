/**
 * The bundle's `defaultTake()` (src/unity/defaultTake.ts): the embedded default walk handed to the Unity
 * sample's code-made source (KindDefaultTakeSource.cs), run from the fresh bundle in a bare `node:vm`
 * context (no Node API, as inside PuerTS), equals the take `kind retarget` with no arguments reads
 * (io/node loadSource on assets/default/default-walk.bvh): the same bones, parents, humanoid map, frame
 * count and frame time, and every rest offset, local rotation and hips position mirrored to Unity
 * coordinates within the 6-decimal rounding.
 */
import * as path from 'node:path';
import * as vm from 'node:vm';
import { defaultAssetsDir, loadSource } from '../src/io/node';
import { bundleAsScript, freshBundle } from './unity.helpers';

interface Take {
  name: string;
  frameCount: number;
  frameTime: number;
  names: string[];
  parents: number[];
  humanoid: number[];
  restLocalPositions: number[];
  restLocalRotations: number[];
  rotations: number[];
  hipsPositions: number[];
}

function bundleTake(): { text: string; again: string } {
  const ctx = vm.createContext({});
  new vm.Script(bundleAsScript(freshBundle()), { filename: 'main.mjs' }).runInContext(ctx);
  const api = (ctx as { __kind: { defaultTake(): string } }).__kind;
  return { text: api.defaultTake(), again: api.defaultTake() };
}

/** Largest |a[i] - m(b)[i]| where m mirrors b at X for Unity (stride 3: points, 4: quaternions). */
function maxMirroredDiff(a: number[], b: ArrayLike<number>, stride: 3 | 4): number {
  expect(a.length).toBe(b.length);
  let d = 0;
  for (let i = 0; i < a.length; i++) {
    const k = i % stride;
    const flip = stride === 3 ? k === 0 : k === 1 || k === 2;
    d = Math.max(d, Math.abs(a[i] - (flip ? -b[i] : b[i])));
  }
  return d;
}

test('defaultTake() from the bundle is the embedded default walk, in Unity coordinates', async () => {
  const { text, again } = bundleTake();
  expect(again).toBe(text); // built once, then the same string
  const take = JSON.parse(text) as Take;
  const src = await loadSource(path.join(defaultAssetsDir(), 'default-walk.bvh'));
  const clip = src.clip;
  const sk = clip.skeleton;
  const n = sk.boneCount;

  expect(n).toBe(21); // the Motive skeleton of tools/make-default-sample.mjs
  expect(take.frameCount).toBe(clip.frameCount);
  expect(take.frameCount).toBe(121);
  expect(take.frameTime).toBeCloseTo(clip.frameTime, 12);
  expect(take.names).toEqual([...sk.names]);
  expect(take.parents).toEqual(Array.from(sk.parents));
  expect(take.humanoid).toEqual(Array.from(sk.humanoid));
  expect(take.humanoid).toHaveLength(55);
  expect(take.names[take.humanoid[0]]).toBe('Hip'); // HumanBodyBones.Hips
  expect(take.names[take.humanoid[10]]).toBe('Head'); // HumanBodyBones.Head
  for (let i = 1; i < n; i++) expect(take.parents[i]).toBeLessThan(i);
  expect(take.parents[0]).toBe(-1);

  expect(maxMirroredDiff(take.restLocalPositions, sk.restTranslations, 3)).toBeLessThanOrEqual(5e-7);
  expect(maxMirroredDiff(take.restLocalRotations, sk.restRotations, 4)).toBeLessThanOrEqual(5e-7);
  expect(take.rotations).toHaveLength(clip.frameCount * n * 4);
  expect(maxMirroredDiff(take.rotations, clip.rotations, 4)).toBeLessThanOrEqual(5e-7);
  const hips: number[] = [];
  for (let f = 0; f < clip.frameCount; f++)
    for (let k = 0; k < 3; k++) hips.push(clip.translations[f * n * 3 + k]);
  expect(maxMirroredDiff(take.hipsPositions, hips, 3)).toBeLessThanOrEqual(5e-7);

  // real motion, metres: the hips stand about a metre up and travel forward; the rotations change
  const ys = take.hipsPositions.filter((_, i) => i % 3 === 1);
  expect(Math.min(...ys)).toBeGreaterThan(0.7);
  expect(Math.max(...ys)).toBeLessThan(1.3);
  const zTravel = Math.abs(take.hipsPositions[3 * (take.frameCount - 1) + 2] - take.hipsPositions[2]);
  expect(zTravel).toBeGreaterThan(0.5);
  const thigh = take.names.indexOf('LThigh');
  const q0 = take.rotations.slice(4 * thigh, 4 * thigh + 4);
  const q15 = take.rotations.slice((15 * n + thigh) * 4, (15 * n + thigh) * 4 + 4);
  const dot = Math.abs(q0[0] * q15[0] + q0[1] * q15[1] + q0[2] * q15[2] + q0[3] * q15[3]);
  expect(dot).toBeLessThan(0.999);
});
