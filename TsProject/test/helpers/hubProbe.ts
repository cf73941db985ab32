/**
 * The hub's allocation probe body (for `runAllocProbe`): four-limb IK, fingers (a preset) and two props,
 * the heaviest per-frame path; `result.update` is the bytes per `RetargetHub.update` over windows of `n`.
 * Used by test/hub.test.ts and by test/alloc.probe.test.ts, which checks the probe itself on it.
 */
import * as path from 'node:path';

export function hubProbe(n = 3000): string {
  const hub = JSON.stringify(path.resolve(__dirname, '../../src/rig'));
  const humanoid = JSON.stringify(path.resolve(__dirname, 'humanoid'));
  return `
  import { RetargetHub } from ${hub};
  import { makeHumanoid } from ${humanoid};
  const src = makeHumanoid({ spineBones: 4 });
  const tgt = makeHumanoid({ pose: 'A', legs: 1.1 });
  const hub = new RetargetHub(src, tgt, { ik: 'auto', fingers: 'none' });
  hub.calibrate({ rotations: src.restRotations, translations: src.restTranslations });
  hub.fingers.applyPreset('left', 'rock');
  hub.props.add('ball', 'Object', [0.5, 1, 0.3]);
  hub.props.add('chair', 'Chair', [0, 0.5, -0.3]);
  const rot = new Float32Array(src.restRotations), pos = new Float32Array(src.restTranslations);
  result.update = bytesPerCall(() => hub.update(rot, pos, 1 / 60), ${n});
`;
}
