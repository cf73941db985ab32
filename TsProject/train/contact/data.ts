/**
 * Takes for the contact model (Node only): which clips train, which are held out, and how to load one.
 *
 * Held out (never trained on, whole clips): every clip in the folders the data README marks ⚠ test-only
 * (`cmu-locomotion/iclone-ccbase/`, `cmu-locomotion/mocapnet-25fps/`). They are other skeletons and,
 * for CMU subjects 5, 6 and 7, other performers than any training clip. The `holdout/` folder the README
 * mentions (subjects 3, 12, 49, 131) is not present in ../shared/data; when it is, its clips are added
 * to the held-out set (see HOLDOUT_EXTRA).
 * Training: the other BVH takes in ../shared/data whose licence allows use (CMU terms, MIT, Bandai
 * Namco dataset licence), see TRAIN_TAKES.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type Clip, withHumanoid } from '../../src/core';
import { computeFootTracks, type FootTracks } from '../../src/contact';
import { parseBvh } from '../../src/io/bvh';
import { autoMapHumanoid } from '../../src/io/humanoidMap';

/** `$KIND_SHARED_DATA`, else `shared/data` beside the repository (found from this file or its bundle in dist/). */
export const SHARED_DATA = process.env.KIND_SHARED_DATA
  ? path.resolve(process.env.KIND_SHARED_DATA)
  : ([path.resolve(__dirname, '../../../../shared/data'), path.resolve(__dirname, '../../../shared/data')].find((p) =>
      fs.existsSync(path.join(p, 'SOURCES.md')),
    ) ?? path.resolve(__dirname, '../../../../shared/data'));

/** Training takes (relative to the shared data folder). */
export const TRAIN_TAKES = [
  'cmu-locomotion/cgspeed-mb/02_01.bvh',
  'cmu-locomotion/cgspeed-mb/01_01.bvh',
  'cmu-locomotion/cgspeed-mb/01_14.bvh',
  'cmu-locomotion/daz-style/02_02.bvh',
  'cmu-locomotion/other/10_01.bvh',
  'bandai-namco-motiondataset/dataset-1_walk_normal_001.bvh',
  'bandai-namco-motiondataset/dataset-1_run_normal_001.bvh',
  'bandai-namco-motiondataset/dataset-1_dance-short_normal_001.bvh',
  'threejs/pirouette.bvh',
  'animated-drawings/cmu1/jumping_jacks.bvh',
  'animated-drawings/fair1/jumping.bvh',
  'animated-drawings/rokoko/jesse_dance.bvh',
];

/** Held-out takes: the ⚠ test-only folders of cmu-locomotion, whole clips. */
export function holdoutTakes(): string[] {
  const out: string[] = [];
  for (const dir of ['cmu-locomotion/iclone-ccbase', 'cmu-locomotion/mocapnet-25fps', ...HOLDOUT_EXTRA]) {
    const abs = path.join(SHARED_DATA, dir);
    if (!fs.existsSync(abs)) continue;
    for (const f of fs.readdirSync(abs).sort()) if (f.endsWith('.bvh')) out.push(`${dir}/${f}`);
  }
  return out;
}

/** Folders of the README's holdout set, used when present. */
export const HOLDOUT_EXTRA = [
  'cmu-locomotion/holdout/cgspeed-mb',
  'cmu-locomotion/holdout/cgspeed-max',
  'cmu-locomotion/holdout/iclone-ccbase',
  'cmu-locomotion/holdout/mocapnet-25fps',
];

/** Parse a BVH take and map its humanoid bones. */
export function loadClip(rel: string): Clip {
  const file = path.join(SHARED_DATA, rel);
  const fileName = path.basename(file);
  const parsed = parseBvh(fs.readFileSync(file, 'utf8'), { fileName });
  const map = autoMapHumanoid(parsed.clip.skeleton, { fileName });
  return { ...parsed.clip, skeleton: withHumanoid(parsed.clip.skeleton, map.humanoid) };
}

/** Foot tracks of a take. */
export function loadTracks(rel: string): FootTracks {
  return computeFootTracks(loadClip(rel));
}
