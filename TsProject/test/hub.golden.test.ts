/**
 * The hub's per-frame results pinned bit for bit (issue 24: the per-frame path restructured for
 * interpreters must give identical results). Each case runs a whole take through `updateLive` (the
 * source stage, then the hub: IK, situational weights, fingers, props) and through `update`, and hashes
 * (SHA-256) every frame's output bytes: local rotations and translations, output scales, the IK targets,
 * reached points and weights, and the source stage's filtered local pose. The digests were taken from the
 * code before that restructuring (commit d4aa3f4) on this machine's Node 20; V8's Math functions are its
 * own deterministic ports (fdlibm), so they do not depend on the CPU.
 *
 * A change that is meant to change the numbers (a new formula, a fixed bug) updates the digests in its
 * own commit and says why; a restructuring must leave them alone. `KIND_GOLDEN_PRINT=1` prints the digests
 * the code gives now.
 */
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { readFrame } from '../src/core';
import { loadAvatar, loadSource } from '../src/io/node';
import { RetargetHub } from '../src/rig';
import { dataPath, describeWithData } from './helpers/data';

const ASSETS = path.resolve(__dirname, '../assets/default');

interface Case {
  name: string;
  source: () => string;
  avatar: () => string;
  ik: 'on' | 'auto';
  live: boolean;
}

async function digest(c: Case): Promise<string> {
  const src = await loadSource(c.source());
  const avatar = await loadAvatar(c.avatar());
  const clip = src.clip;
  const n = clip.skeleton.boneCount;
  const frames: Float64Array[] = [];
  const positions: Float64Array[] = [];
  for (let f = 0; f < clip.frameCount; f++) {
    const r = new Float64Array(4 * n);
    const p = new Float64Array(3 * n);
    readFrame(clip, f, r, p);
    frames.push(r);
    positions.push(p);
  }
  const hub = new RetargetHub(clip.skeleton, avatar.skeleton, { ik: c.ik, fingers: 'none' });
  hub.calibrate({ rotations: frames[0], translations: positions[0] });
  hub.fingers.applyPreset('left', 'rock');
  hub.fingers.applyPreset('right', 'v');
  hub.props.add('ball', 'Object', [0.4, 1.1, 0.3]);
  hub.props.add('chair', 'Chair', [0, 0.45, -0.6]);
  const h = createHash('sha256');
  const put = (a: Float64Array) => h.update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  // two passes over the take: the second starts from the first one's filter and weight state
  for (let pass = 0; pass < 2; pass++) {
    for (let f = 0; f < clip.frameCount; f++) {
      const dt = f === 0 && pass === 0 ? 0 : clip.frameTime;
      if (c.live) hub.updateLive(frames[f], positions[f], dt);
      else hub.update(frames[f], positions[f], dt);
      put(hub.localRotations);
      put(hub.localTranslations);
      put(hub.outputScales);
      put(hub.ikTargets);
      put(hub.ikReached);
      put(hub.ikWeights);
      if (c.live) {
        put(hub.sourceStage.localRotations);
        put(hub.sourceStage.localTranslations);
      }
    }
  }
  return h.digest('hex');
}

const DEFAULT: Omit<Case, 'ik' | 'live' | 'name'> = {
  source: () => path.join(ASSETS, 'default-walk.bvh'),
  avatar: () => path.join(ASSETS, 'default-avatar.glb'),
};

/** name -> digest, from the code before issue 24's restructuring. */
const EXPECTED: Record<string, string> = {
  'default walk -> default avatar, ik on, updateLive':
    '5aacc2cd48084ae845f103d83d4300cbcbee14132892db6bfe069729dd7dff3a',
  'default walk -> default avatar, ik auto, updateLive':
    '1320e68acd7cdd65f99e1468da6c545308b72ab89538a4fa233e6174b3a1ec6e',
  'default walk -> default avatar, ik auto, update':
    '6ba94cef30f4c1baa93b1fe5ddb4bcc42c50f534cd60f0f5bc3c694c30f541cd',
  'Bandai walk -> Xbot, ik on, updateLive':
    'eff5960cb24aa36f89cf89907e1817edeb2564b591d036231a15accd83c0c4e5',
  'Bandai walk -> Xbot, ik auto, updateLive':
    'be3e76daf79bb2dfe63767850c01ba3c151e49e337f595c563956324f2959fd1',
};

const print = process.env.KIND_GOLDEN_PRINT === '1';

describe('hub results bit for bit on the embedded default', () => {
  for (const [ik, live] of [
    ['on', true],
    ['auto', true],
    ['auto', false],
  ] as const) {
    const name = `default walk -> default avatar, ik ${ik}, ${live ? 'updateLive' : 'update'}`;
    it(name, async () => {
      const d = await digest({ ...DEFAULT, name, ik, live });
      if (print) console.log(`'${name}': '${d}',`);
      expect(d).toBe(EXPECTED[name]);
    });
  }
});

describeWithData('hub results bit for bit on real data', () => {
  for (const [ik, live] of [
    ['on', true],
    ['auto', true],
  ] as const) {
    const name = `Bandai walk -> Xbot, ik ${ik}, ${live ? 'updateLive' : 'update'}`;
    it(name, async () => {
      const d = await digest({
        name,
        ik,
        live,
        source: () => dataPath('bandai-namco-motiondataset/dataset-1_walk_normal_001.bvh'),
        avatar: () => dataPath('threejs/Xbot.glb'),
      });
      if (print) console.log(`'${name}': '${d}',`);
      expect(d).toBe(EXPECTED[name]);
    });
  }
});
