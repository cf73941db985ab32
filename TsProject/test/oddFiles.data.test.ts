/**
 * Odd but valid files (issue 15; ../shared/data/odd-files, its README gives the avatar geometry and the
 * expected values): each read through the library API and through `kind inspect` / `kind retarget`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseBvh } from '../src/io/bvh';
import { dataPath, describeWithData } from './helpers/data';
import { runKind } from './helpers/runCli';

const odd = (f: string) => dataPath('odd-files', f);
const tmpDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'kind-odd-'));

describeWithData('odd files: BVH `End site` in lower case (endsite_lower.bvh)', () => {
  it('reads like base.bvh: 21 joints, same layout and frames', () => {
    const lower = parseBvh(fs.readFileSync(odd('endsite_lower.bvh')), { fileName: 'endsite_lower.bvh' });
    const base = parseBvh(fs.readFileSync(odd('base.bvh')), { fileName: 'base.bvh' });
    expect(lower.clip.skeleton.boneCount).toBe(21);
    expect(lower.layout.joints.map((j) => j.endSite)).toEqual(base.layout.joints.map((j) => j.endSite));
    expect(lower.layout.joints.filter((j) => j.endSite).length).toBeGreaterThan(0);
    expect(lower.clip.skeleton.names).toEqual(base.clip.skeleton.names);
    expect(Array.from(lower.clip.rotations)).toEqual(Array.from(base.clip.rotations));
    expect(Array.from(lower.clip.translations)).toEqual(Array.from(base.clip.translations));
  });

  it('kind inspect prints 21 joints; kind retarget writes a BVH that reads back with 21 joints', async () => {
    const ins = await runKind(['inspect', odd('endsite_lower.bvh')]);
    expect(ins.err).toBe('');
    expect(ins.code).toBe(0);
    expect(ins.out).toMatch(/endsite_lower\.bvh: BVH, 21 joints, 2 frames/);
    const dir = tmpDir();
    const ret = await runKind(['retarget', '-q', '-o', dir, odd('endsite_lower.bvh'), odd('base.glb')]);
    expect(ret.err).toBe('');
    expect(ret.code).toBe(0);
    const back = parseBvh(fs.readFileSync(path.join(dir, 'endsite_lower.bvh')), { fileName: 'out.bvh' });
    expect(back.clip.skeleton.boneCount).toBe(21);
    expect(back.clip.frameCount).toBe(2);
  });
});
