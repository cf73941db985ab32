/**
 * `kind cleanup --batch` through the built CLI (dist/kind.cjs beside dist/cleanupWorker.cjs, so the
 * takes go through real worker threads, not the in-process fallback) on a folder of 3 real takes, with
 * the real contact detector (the default, the model card's choice: the offline teacher).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEFAULT_CONTACT_MODEL } from '../src/cli/contactSource';
import { parseBvh } from '../src/io';
import { buildCli, builtCliPaths, removeBuiltCli } from './helpers/builtCli';
import { dataPath, describeWithData } from './helpers/data';

describeWithData('kind cleanup --batch in a built CLI (worker threads)', () => {
  const takes = [
    'bandai-namco-motiondataset/dataset-1_walk_normal_001.bvh',
    'cmu-locomotion/cgspeed-mb/02_01.bvh',
    'animated-drawings/cmu1/jumping_jacks.bvh',
  ];
  const built = builtCliPaths('cleanup-batch-test');
  const { bin } = built;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-cleanup-batch-'));
  const folder = path.join(work, 'takes');
  beforeAll(() => {
    buildCli('cleanup-batch-test');
    fs.mkdirSync(folder, { recursive: true });
    for (const t of takes) fs.copyFileSync(dataPath(t), path.join(folder, path.basename(t)));
  });
  afterAll(() => {
    removeBuiltCli(built);
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('cleans the 3 takes on worker threads; summary.json lists them and each BVH reads back with its frame count', () => {
    expect(fs.existsSync(path.join(built.dir, 'dist', 'cleanupWorker.cjs'))).toBe(true);
    const out = path.join(work, 'out');
    const r = spawnSync(
      process.execPath,
      [bin, 'cleanup', '--batch', folder, '-o', out, '-q', '--jobs', '2'],
      {
        encoding: 'utf8',
      },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const summary = JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8')) as {
      counts: { takes: number; cleaned: number; failed: number };
      notes: string[];
      takes: { name: string; model: string; frames: number; error?: string; outputs: { bvh: string } }[];
    };
    // no "worker bundle not found" note: the takes went through worker threads
    expect(summary.notes).toEqual([]);
    expect(summary.counts).toEqual({ takes: 3, cleaned: 3, failed: 0 });
    expect(summary.takes.map((t) => t.name).sort()).toEqual(takes.map((t) => path.basename(t)).sort());
    for (const t of summary.takes) {
      expect(t.error).toBeUndefined();
      expect(t.model).toBe(DEFAULT_CONTACT_MODEL); // 'teacher'
      const src = parseBvh(fs.readFileSync(path.join(folder, t.name), 'utf8')).clip;
      const back = parseBvh(fs.readFileSync(t.outputs.bvh, 'utf8')).clip;
      expect(t.frames).toBe(src.frameCount);
      expect(back.frameCount).toBe(src.frameCount);
      expect(back.frameTime).toBe(src.frameTime);
      expect(fs.existsSync(t.outputs.bvh.replace(/\.bvh$/, '.cleanup.json'))).toBe(true);
    }
  });
});
