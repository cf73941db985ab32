/**
 * Odd but valid files (issue 15; ../shared/data/odd-files, its README gives the avatar geometry and the
 * expected values): each read through the library API and through `kind inspect` / `kind retarget`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { HUMAN_BONE_NAMES } from '../src/core';
import { parseBvh } from '../src/io/bvh';
import { readAvatar } from '../src/io/gltf';
import { dataPath, describeWithData } from './helpers/data';
import { runKind } from './helpers/runCli';

const odd = (f: string) => dataPath('odd-files', f);
const read = (f: string) => readAvatar(new Uint8Array(fs.readFileSync(odd(f))), { fileName: f });
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

describeWithData(
  'odd files: VRM 0.x humanoid entries with "node": -1 (vrm0_node_minus1.vrm; control vrm0_ok.vrm)',
  () => {
    it('reads as VRM 0.x with the same skeleton and map as the control, the -1 bones absent with a note each', async () => {
      const a = await read('vrm0_node_minus1.vrm');
      const ok = await read('vrm0_ok.vrm');
      expect(a.format).toBe('vrm0');
      expect(ok.format).toBe('vrm0');
      expect(a.skeleton.boneCount).toBe(21);
      expect(a.skeleton.names).toEqual(ok.skeleton.names);
      expect(Array.from(a.skeleton.humanoid)).toEqual(Array.from(ok.skeleton.humanoid));
      expect(a.skeleton.humanoid[HUMAN_BONE_NAMES.indexOf('LeftEye')]).toBe(-1);
      expect(a.skeleton.humanoid[HUMAN_BONE_NAMES.indexOf('RightEye')]).toBe(-1);
      expect(Array.from(a.skeleton.restTranslations)).toEqual(Array.from(ok.skeleton.restTranslations));
      expect(a.warnings).toEqual([
        ...ok.warnings,
        "extensions.VRM.humanoid.humanBones[21].node: -1 (bone 'leftEye' not assigned): treated as absent",
        "extensions.VRM.humanoid.humanBones[22].node: -1 (bone 'rightEye' not assigned): treated as absent",
      ]);
    });

    it('kind inspect prints the note; kind retarget onto it writes the same clip as onto the control', async () => {
      const ins = await runKind(['inspect', odd('vrm0_node_minus1.vrm')]);
      expect(ins.err).toBe('');
      expect(ins.code).toBe(0);
      expect(ins.out).toMatch(/vrm0_node_minus1\.vrm: VRM 0\.x, 21 bones, clips: wave/);
      expect(ins.out).toMatch(
        /note: extensions\.VRM\.humanoid\.humanBones\[21\]\.node: -1 \(bone 'leftEye' not assigned\)/,
      );
      const d1 = tmpDir();
      const d2 = tmpDir();
      const r1 = await runKind(['retarget', '-q', '-o', d1, odd('base.bvh'), odd('vrm0_node_minus1.vrm')]);
      const r2 = await runKind(['retarget', '-q', '-o', d2, odd('base.bvh'), odd('vrm0_ok.vrm')]);
      expect([r1.code, r1.err, r2.code, r2.err]).toEqual([0, '', 0, '']);
      const b1 = parseBvh(fs.readFileSync(path.join(d1, 'base.bvh')), { fileName: '1.bvh' });
      const b2 = parseBvh(fs.readFileSync(path.join(d2, 'base.bvh')), { fileName: '2.bvh' });
      expect(Array.from(b1.clip.rotations)).toEqual(Array.from(b2.clip.rotations));
      expect(b1.clip.skeleton.boneCount).toBe(21);
    });
  },
);
