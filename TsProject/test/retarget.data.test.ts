/**
 * Every real take onto every real avatar (../shared/data): the first seconds of each take here, the
 * whole takes with KIND_FULL=1 (`npm run test:full`). Checks: no NaN, frame count and frame time
 * preserved, the GLB passes the Khronos validator, the BVH output reads back, and the limb-segment
 * direction error stays small (mean < 2 deg, max < 10 deg) for segments mapped on both sides.
 */
import * as path from 'node:path';
import { sliceClip } from '../src/core';
import { parseBvh, writeBvh } from '../src/io/bvh';
import { writeRetargetedGlb } from '../src/io/gltf';
import { loadAvatar, loadSource } from '../src/io/node';
import { measureQuality, retargetClip, upAxisRotation } from '../src/retarget';
import { AVATARS, BVH_TAKES, dataPath, describeWithData, FULL } from './helpers/data';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const validator = require('gltf-validator') as {
  validateBytes(
    data: Uint8Array,
    options?: object,
  ): Promise<{
    issues: { numErrors: number; messages: { code: string; message: string; severity: number }[] };
  }>;
};

const SECONDS = 3;
const rows: string[] = [];

describeWithData('retargeting real takes onto real avatars', () => {
  afterAll(() => {
    console.log(
      `segment direction error (deg) and foot height error per pair${FULL ? ' (full takes)' : ` (first ${SECONDS} s)`}:\n${rows.join('\n')}`,
    );
  });

  for (const take of BVH_TAKES) {
    for (const avatarFile of AVATARS) {
      it(`${path.basename(take)} -> ${path.basename(avatarFile)}`, async () => {
        const src = await loadSource(dataPath(take));
        const clip = FULL ? src.clip : sliceClip(src.clip, 0, Math.round(SECONDS / src.clip.frameTime));
        const avatar = await loadAvatar(dataPath(avatarFile));
        const { clip: out, retargeter } = retargetClip(clip, avatar.skeleton, { groundContact: true });
        expect(out.frameCount).toBe(clip.frameCount);
        expect(out.frameTime).toBe(clip.frameTime);
        expect(out.rotations.every(Number.isFinite)).toBe(true);
        expect(out.translations.every(Number.isFinite)).toBe(true);

        // GLB: validate, read back, and measure the quality on what was written
        const glb = await writeRetargetedGlb(avatar, out);
        const report = await validator.validateBytes(glb, { maxIssues: 20 });
        const errors = report.issues.messages.filter((m) => m.severity === 0);
        expect(errors.map((m) => `${m.code}: ${m.message}`)).toEqual([]);
        const json = JSON.parse(
          new TextDecoder().decode(
            glb.subarray(20, 20 + new DataView(glb.buffer, glb.byteOffset).getUint32(12, true)),
          ),
        );
        expect(json.animations.length).toBe(1);
        expect(json.animations[0].channels.length).toBeGreaterThanOrEqual(avatar.skeleton.boneCount);

        const q = measureQuality(clip, out, { sourceAlignment: upAxisRotation(retargeter.info!.sourceUp) });
        const segs = Object.entries(q.segments).filter(([, e]) => e !== null) as [
          string,
          NonNullable<(typeof q.segments)[string]>,
        ][];
        const worstMean = segs.reduce((a, b) => (b[1].meanDeg > a[1].meanDeg ? b : a));
        const worstMax = segs.reduce((a, b) => (b[1].maxDeg > a[1].maxDeg ? b : a));
        const fh = q.footHeight.meanAbsM;
        rows.push(
          `${path.basename(take)} -> ${path.basename(avatarFile)}: ${segs.length} segments; worst mean ${worstMean[0]} ${worstMean[1].meanDeg.toFixed(3)}, worst max ${worstMax[0]} ${worstMax[1].maxDeg.toFixed(3)}; foot ${fh === null ? 'n/a' : `${(fh * 100).toFixed(1)} cm`} (below standing ${(q.footHeight.maxBelowStandingM * 100).toFixed(1)} cm); up ${retargeter.info!.sourceUp}; ref ${retargeter.info!.sourceReference}; hips x${retargeter.info!.hipsScale.toFixed(3)}`,
        );
        for (const [name, e] of segs) {
          expect([name, e.meanDeg < 2, e.maxDeg < 10]).toEqual([name, true, true]);
        }

        // BVH output reads back with the same frames and frame time
        const bvh = parseBvh(writeBvh(out), { fileName: 'out.bvh' });
        expect(bvh.clip.frameCount).toBe(out.frameCount);
        expect(Math.abs(bvh.clip.frameTime - out.frameTime)).toBeLessThan(1e-7);
      });
    }
  }
});
