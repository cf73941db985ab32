/**
 * The "Using it from TypeScript" example (README.md, "From TypeScript", and docs/typescript.md), run on the
 * embedded default sample; the statements between the `// ---` marks below are the docs' code, compared
 * with both blocks statement for statement (comments and spacing aside), so the docs cannot drift from it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { withHumanoid } from '../src/core';
import { autoMapHumanoid, parseBvh, readAvatar, requireHumanoid, writeRetargetedGlb } from '../src/io';
import { measureQuality, retargetClip, upAxisRotation } from '../src/retarget';

const ROOT = path.resolve(__dirname, '../..');

/** Code lines without comments, spacing or import lines. */
const statements = (code: string) =>
  code
    .replace(/^import [^;]*;$/gm, '') // import statements, one or several lines
    .split('\n')
    .map((l) =>
      l
        .replace(/\/\/.*$/, '')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((l) => l !== '');

it('the README library example works as written', async () => {
  const dir = path.resolve(__dirname, '../assets/default');
  const bvhText = fs.readFileSync(path.join(dir, 'default-walk.bvh'), 'utf8');
  const glbBytes = new Uint8Array(fs.readFileSync(path.join(dir, 'default-avatar.glb')));
  // --- as in the README
  const { clip } = parseBvh(bvhText, { fileName: 'walk.bvh' }); // metres, unit guessed
  const map = autoMapHumanoid(clip.skeleton, { fileName: 'walk.bvh' });
  requireHumanoid(map, 'walk.bvh');
  const source = { ...clip, skeleton: withHumanoid(clip.skeleton, map.humanoid) };
  const avatar = await readAvatar(glbBytes, { fileName: 'avatar.glb' });
  const { clip: out, retargeter } = retargetClip(source, avatar.skeleton, { groundContact: true });
  const glb = await writeRetargetedGlb(avatar, out);
  const quality = measureQuality(source, out, { sourceAlignment: upAxisRotation(retargeter.info!.sourceUp) });
  // ---
  expect(out.frameCount).toBe(121);
  expect(new TextDecoder().decode(glb.subarray(0, 4))).toBe('glTF');
  expect(quality.segments.leftThigh!.maxDeg).toBeLessThan(1);
  expect(quality.footHeight.meanAbsM!).toBeLessThan(0.02);
});

it('README.md and docs/typescript.md show the code this test runs', () => {
  const self = fs.readFileSync(__filename, 'utf8');
  const ran = statements(self.split('// --- as in the README\n')[1].split('  // ---\n')[0]);
  expect(ran).toHaveLength(8);
  for (const file of ['README.md', 'docs/typescript.md']) {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    const block = /```ts\n(import \{\n {2}autoMapHumanoid,[\s\S]*?)```/.exec(text);
    expect([file, block !== null]).toEqual([file, true]);
    expect([file, statements(block![1])]).toEqual([file, ran]);
  }
});
