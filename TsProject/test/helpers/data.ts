/**
 * Location of the shared real test data (`../shared/data` next to the repository root, or
 * `$KIND_SHARED_DATA`). Those files are never copied into the repository; suites that need them
 * skip with a printed reason when the folder is absent.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export const SHARED_DATA = process.env.KIND_SHARED_DATA
  ? path.resolve(process.env.KIND_SHARED_DATA)
  : path.resolve(__dirname, '../../../../shared/data');

export const HAS_SHARED_DATA = fs.existsSync(path.join(SHARED_DATA, 'SOURCES.md'));

/** Absolute path of a file under the shared data folder. */
export function dataPath(...parts: string[]): string {
  return path.join(SHARED_DATA, ...parts);
}

/** `describe` when the shared data exists, otherwise a skipped suite with the reason printed once. */
export function describeWithData(name: string, fn: () => void): void {
  if (HAS_SHARED_DATA) {
    describe(name, fn);
  } else {
    console.warn(`[skip] ${name}: shared data not found at ${SHARED_DATA} (set KIND_SHARED_DATA)`);
    describe.skip(name, fn);
  }
}

/** True when the slow suite over whole takes was asked for (`KIND_FULL=1`, `npm run test:full`). */
export const FULL = process.env.KIND_FULL === '1';

/** The real BVH takes (relative to the shared data folder). */
export const BVH_TAKES = [
  'bandai-namco-motiondataset/dataset-1_walk_normal_001.bvh',
  'bandai-namco-motiondataset/dataset-1_run_normal_001.bvh',
  'bandai-namco-motiondataset/dataset-1_dance-short_normal_001.bvh',
  'threejs/pirouette.bvh',
  'animated-drawings/cmu1/jumping_jacks.bvh',
  'animated-drawings/fair1/jumping.bvh',
  'animated-drawings/rokoko/jesse_dance.bvh',
];

/** The real avatars (relative to the shared data folder). */
export const AVATARS = [
  'threejs/Xbot.glb',
  'threejs/Soldier.glb',
  'threejs/RobotExpressive/RobotExpressive.glb',
  'threejs/CesiumMan/CesiumMan.glb',
  'vrm-samples-madjin/cryptovoxels.vrm',
  'vrm-specification/VRMC_materials_mtoon_UV_Animation_Test/VRMC_materials_mtoon_UV_Animation_Test.vrm',
];
