/** The README's "Using it from TypeScript" example, run on the embedded default sample. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { withHumanoid } from '../src/core';
import { autoMapHumanoid, parseBvh, readAvatar, requireHumanoid, writeRetargetedGlb } from '../src/io';
import { measureQuality, retargetClip, upAxisRotation } from '../src/retarget';

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
