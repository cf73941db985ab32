/**
 * Retarget QA refuses to compare two different characters whatever the argument order (issue 10,
 * item 4): Xbot and Soldier retargets of the same take, both orders through `kind qa` and
 * `evaluateClip`; and a property over generated rigs that the refusal does not depend on the order.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { createClip } from '../src/core';
import { loadSource } from '../src/io/node';
import { evaluateClip } from '../src/qa';
import { dataPath, describeWithData } from './helpers/data';
import { makeHumanoid } from './helpers/humanoid';
import { runKind } from './helpers/runCli';

const REFUSAL = /golden and retargeted are different characters/;

/** 'refused: <message>' or 'compared'. */
function decision(
  golden: Parameters<typeof evaluateClip>[0],
  retargeted: Parameters<typeof evaluateClip>[1],
) {
  try {
    evaluateClip(golden, retargeted);
    return 'compared';
  } catch (e) {
    const m = (e as Error).message;
    if (!REFUSAL.test(m)) throw e;
    return 'refused';
  }
}

describeWithData('QA of an Xbot retarget against a Soldier retarget: refused in both orders', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-qa-sym-'));
  const take = dataPath('bandai-namco-motiondataset/dataset-1_walk_normal_001.bvh');
  const glb = (avatar: string) => path.join(work, avatar, 'dataset-1_walk_normal_001.glb');

  beforeAll(async () => {
    for (const avatar of ['Xbot', 'Soldier']) {
      const r = await runKind([
        'retarget',
        take,
        dataPath(`threejs/${avatar}.glb`),
        '-o',
        path.join(work, avatar),
        '-q',
      ]);
      expect(r.code).toBe(0);
    }
  });
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

  it.each([
    ['Xbot', 'Soldier'],
    ['Soldier', 'Xbot'],
  ])(
    'kind qa <%s golden> <%s retargeted>: exit 1, the one-line refusal naming the segment, nothing written',
    async (g, r) => {
      const out = path.join(work, `qa-${g}-${r}`);
      const res = await runKind(['qa', glb(g), glb(r), '-o', out]);
      expect(res.code).toBe(1);
      expect(res.err.trim().split('\n')).toHaveLength(1);
      // Xbot's upper arm is 49.9% of its hips-to-head length, Soldier's 45.3% (1.104 times apart)
      const [pg, pr] = g === 'Xbot' ? ['49.9', '45.3'] : ['45.3', '49.9'];
      expect(res.err).toContain(
        `golden and retargeted are different characters: the left upper arm is ${pg}% of the hips-to-head length on the golden, ${pr}% on the retargeted`,
      );
      expect(fs.existsSync(out)).toBe(false);
    },
  );

  it('evaluateClip on the two retargets: the same refusal both ways; each against itself is compared', async () => {
    const x = (await loadSource(glb('Xbot'))).clip;
    const s = (await loadSource(glb('Soldier'))).clip;
    expect(decision(x, s)).toBe('refused');
    expect(decision(s, x)).toBe('refused');
    expect(decision(x, x)).toBe('compared');
    expect(decision(s, s)).toBe('compared');
  });
});

describe('the different-characters refusal is symmetric', () => {
  it('upper arms 1.104 times apart (as Xbot and Soldier): refused both ways; 1.09 apart: compared both ways', () => {
    const clip = (arms: number) => createClip(makeHumanoid({ arms }), 4, 1 / 30);
    expect([decision(clip(1), clip(1.104)), decision(clip(1.104), clip(1))]).toEqual(['refused', 'refused']);
    expect([decision(clip(1), clip(1.09)), decision(clip(1.09), clip(1))]).toEqual(['compared', 'compared']);
  });

  it('property: evaluateClip(a, b) refuses exactly when evaluateClip(b, a) does', () => {
    const rig = (arms: number, legs: number, spineBones: number, neck: boolean, scale: number) =>
      createClip(makeHumanoid({ arms, legs, spineBones, neck, scale }), 3, 1 / 30);
    fc.assert(
      fc.property(
        fc.double({ min: 0.7, max: 1.4, noNaN: true }),
        // the ratio of the two arm lengths: anywhere, and densely around the 1.1 limit
        fc.oneof(
          fc.double({ min: 0.75, max: 1.3, noNaN: true }),
          fc.double({ min: 1.085, max: 1.12, noNaN: true }),
          fc.double({ min: 1 / 1.12, max: 1 / 1.085, noNaN: true }),
        ),
        fc.double({ min: 0.8, max: 1.25, noNaN: true }),
        fc.double({ min: 0.8, max: 1.25, noNaN: true }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 4 }),
        fc.boolean(),
        fc.double({ min: 0.5, max: 2, noNaN: true }),
        (armsA, ratio, legsA, legsB, spineA, spineB, neckB, scaleB) => {
          const a = rig(armsA, legsA, spineA, true, 1);
          const b = rig(armsA * ratio, legsB, spineB, neckB, scaleB);
          return decision(a, b) === decision(b, a);
        },
      ),
      { numRuns: 300, seed: 10 },
    );
  });
});
