import * as fs from 'node:fs';
import { cleanupClip } from '../src/cleanup';
import { loadBvh, ruleLabels } from './helpers/cleanupRule';
import { BVH_TAKES, dataPath, describeWithData } from './helpers/data';

/** Real takes: the CMU walks (several skeleton conventions) and the project's BVH takes. */
const TAKES = [
  'cmu-locomotion/iclone-ccbase/005_01.bvh',
  'cmu-locomotion/iclone-ccbase/006_01.bvh',
  'cmu-locomotion/iclone-ccbase/007_02.bvh',
  'cmu-locomotion/iclone-ccbase/006_06.bvh',
  'cmu-locomotion/cgspeed-mb/02_01.bvh',
  'cmu-locomotion/daz-style/02_02.bvh',
  'cmu-locomotion/other/10_01.bvh',
  ...BVH_TAKES,
];

describeWithData('cleanup on real takes (contacts from a simple in-test rule)', () => {
  const rows: string[] = [];
  afterAll(() => {
    console.log(
      `take | frames | contact frames L/R | slide before -> after (m, L+R) | S before -> after (m/s) | penetration before -> after (m) | IK hip/knee max (deg) | knee pops | limits\n${rows.join('\n')}`,
    );
  });
  test.each(TAKES)('%s', (take) => {
    const file = dataPath(take);
    if (!fs.existsSync(file)) return;
    const clip = loadBvh(file);
    const labels = ruleLabels(clip);
    const res = cleanupClip({ clip, probabilities: labels.probabilities, floor: labels.floor });
    const mb = res.metrics.before;
    const ma = res.metrics.after;
    const slideB = mb.left.slideTotal + mb.right.slideTotal;
    const slideA = ma.left.slideTotal + ma.right.slideTotal;
    rows.push(
      `${take} | ${clip.frameCount} | ${mb.left.contactFrames}/${mb.right.contactFrames} | ${slideB.toFixed(3)} -> ${slideA.toFixed(3)} | ` +
        `${mb.left.meanContactSpeed.toFixed(3)}/${mb.right.meanContactSpeed.toFixed(3)} -> ${ma.left.meanContactSpeed.toFixed(3)}/${ma.right.meanContactSpeed.toFixed(3)} | ` +
        `${Math.max(mb.left.penetrationMax, mb.right.penetrationMax).toFixed(3)} -> ${Math.max(ma.left.penetrationMax, ma.right.penetrationMax).toFixed(3)} | ` +
        `${Math.max(res.ik.left.hip.maxDeg, res.ik.right.hip.maxDeg).toFixed(1)}/${Math.max(res.ik.left.knee.maxDeg, res.ik.right.knee.maxDeg).toFixed(1)} | ` +
        `${res.ik.left.kneePops + res.ik.right.kneePops} | ${res.limits.length}`,
    );
    // same frame count and time, no NaN
    expect(res.clip.frameCount).toBe(clip.frameCount);
    expect(res.clip.frameTime).toBe(clip.frameTime);
    expect(res.clip.skeleton).toBe(clip.skeleton);
    expect(res.clip.rotations.every(Number.isFinite)).toBe(true);
    expect(res.clip.translations.every(Number.isFinite)).toBe(true);
    // frames away from every segment are bit-equal
    const n = clip.skeleton.boneCount;
    let untouched = 0;
    for (let f = 0; f < clip.frameCount; f++) {
      if (res.feet.left.weight[f] !== 0 || res.feet.right.weight[f] !== 0) continue;
      untouched++;
      const a = new Uint32Array(clip.rotations.buffer, 4 * 4 * f * n, 4 * n);
      const b = new Uint32Array(res.clip.rotations.buffer, 4 * 4 * f * n, 4 * n);
      expect(
        Buffer.from(b.buffer, b.byteOffset, b.byteLength).equals(
          Buffer.from(a.buffer, a.byteOffset, a.byteLength),
        ),
      ).toBe(true);
    }
    expect(Buffer.from(res.clip.translations.buffer).equals(Buffer.from(clip.translations.buffer))).toBe(
      true,
    ); // root correction off
    // slide during contact drops substantially where there was any to remove
    if (slideB > 0.05) expect(slideA).toBeLessThan(0.35 * slideB);
    // no knee pop beyond the source's jump + 5 degrees (per frame at >= 60 fps). The dance takes are the
    // exception the crude in-test rule makes: it labels gliding dance steps as contacts, so some anchors
    // lie 20+ cm from the source foot and pinning them bends the knee fast; there at most 0.5% of frames.
    const pops = res.ik.left.kneePops + res.ik.right.kneePops;
    if (/dance/.test(take)) expect(pops).toBeLessThanOrEqual(0.005 * clip.frameCount);
    else expect(pops).toBe(0);
    // penetration below the floor never grows
    for (const foot of ['left', 'right'] as const)
      expect(ma[foot].penetrationMax).toBeLessThanOrEqual(mb[foot].penetrationMax + 1e-4);
    expect(untouched + mb.left.contactFrames).toBeGreaterThan(0);
  });
});
