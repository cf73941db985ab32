/**
 * The live source stage (src/rig/sourceStage.ts) through the hub: off = the raw stream bit for bit,
 * raw pose kept beside the filtered one, settings and remote parameters, hot-reload state, no
 * allocation per frame; and on noisy copies of every real take (first 4 s, 120 Hz), the AVATAR's
 * hands and feet: jitter down, lag bounded (bench/filterEval.ts; the full sweep is bench/filterSweep.ts).
 */
import * as path from 'node:path';
import { addNoise, clipFrames, DEFAULT_NOISE, measure, resample, runEffectors } from '../bench/filterEval';
import { HumanBodyBones as H } from '../src/core';
import { loadAvatar, loadSource } from '../src/io/node';
import { findParameter } from '../src/live/remote/params';
import {
  defaultSettings,
  parseSettings,
  RetargetHub,
  SourceStage,
  serializeSettings,
  sourceFilterOff,
} from '../src/rig';
import { runAllocProbe } from './helpers/allocProbe';
import { BVH_TAKES, dataPath, describeWithData } from './helpers/data';

const rows: string[] = [];

describeWithData('live source stage on real takes', () => {
  afterAll(() =>
    console.log(`avatar hands/feet on noisy takes (raw -> default filter):\n${rows.join('\n')}`),
  );

  it('off: updateLive gives the same bits as update on the raw stream; raw and filtered kept', async () => {
    const src = await loadSource(dataPath('bandai-namco-motiondataset/dataset-1_walk_normal_001.bvh'));
    const avatar = await loadAvatar(dataPath('threejs/Xbot.glb'));
    const frames = addNoise(clipFrames(resample(src.clip, 120, 1)), DEFAULT_NOISE);
    const cal = { rotations: frames.rotations[0], translations: frames.translations[0] };
    const a = new RetargetHub(frames.skeleton, avatar.skeleton, {
      settings: { sourceFilter: sourceFilterOff() },
    });
    const b = new RetargetHub(frames.skeleton, avatar.skeleton);
    const on = new RetargetHub(frames.skeleton, avatar.skeleton);
    for (const h of [a, b, on]) h.calibrate(cal);
    const out = new Float64Array(3);
    for (let f = 0; f < frames.rotations.length; f++) {
      a.updateLive(frames.rotations[f], frames.translations[f], 1 / 120);
      b.update(frames.rotations[f], frames.translations[f], 1 / 120);
      on.updateLive(frames.rotations[f], frames.translations[f], 1 / 120);
      expect(new Uint8Array(a.localRotations.buffer)).toEqual(new Uint8Array(b.localRotations.buffer));
      expect(new Uint8Array(a.localTranslations.buffer)).toEqual(new Uint8Array(b.localTranslations.buffer));
      // the raw pose is kept beside the filtered one
      const st = on.sourceStage;
      expect(st.tryGetRawWorldPosition(H.LeftHand, out)).toBe(true);
      const h3 = 3 * frames.skeleton.humanoid[H.LeftHand];
      expect(Array.from(out)).toEqual(Array.from(st.rawWorldPositions.subarray(h3, h3 + 3)));
      expect(Array.from(st.rawLocalRotations)).toEqual(Array.from(frames.rotations[f]));
    }
    // filtered differs from raw once on
    const st = on.sourceStage;
    let d = 0;
    for (let i = 0; i < st.worldPositions.length; i++)
      d = Math.max(d, Math.abs(st.worldPositions[i] - st.rawWorldPositions[i]));
    expect(d).toBeGreaterThan(1e-4);
    expect(st.tryGetRawWorldPosition(H.UpperChest + 100, out)).toBe(false);
  });

  for (const take of BVH_TAKES) {
    it(`${path.basename(take)}: avatar hands and feet jitter down, lag bounded (default filter)`, async () => {
      const src = await loadSource(dataPath(take));
      const avatar = await loadAvatar(dataPath('threejs/Xbot.glb'));
      const clean = clipFrames(resample(src.clip, 120, 4));
      const noisy = addNoise(clean, DEFAULT_NOISE);
      const cal = { rotations: clean.rotations[0], translations: clean.translations[0] };
      const cleanRun = runEffectors(clean, avatar.skeleton, sourceFilterOff(), cal);
      const raw = measure(runEffectors(noisy, avatar.skeleton, sourceFilterOff(), cal), cleanRun, clean.dt);
      const filt = measure(
        runEffectors(noisy, avatar.skeleton, defaultSettings().sourceFilter, cal),
        cleanRun,
        clean.dt,
      );
      const own = measure(cleanRun, cleanRun, clean.dt);
      rows.push(
        `${path.basename(take)}: jitter hands ${raw.jitterHands.toFixed(1)} -> ${filt.jitterHands.toFixed(1)} (clean ${own.jitterHands.toFixed(1)}), feet ${raw.jitterFeet.toFixed(1)} -> ${filt.jitterFeet.toFixed(1)} (clean ${own.jitterFeet.toFixed(1)}) m/s^2; lag hands ${raw.lagHands.toFixed(1)} -> ${filt.lagHands.toFixed(1)}, feet ${raw.lagFeet.toFixed(1)} -> ${filt.lagFeet.toFixed(1)} ms`,
      );
      expect(filt.jitterHands).toBeLessThan(0.6 * raw.jitterHands);
      expect(filt.jitterFeet).toBeLessThan(0.6 * raw.jitterFeet);
      // lag the filter adds (4-second windows: a near-still take gives a rough delay estimate either way)
      expect(filt.lagHands - raw.lagHands).toBeLessThan(20);
      expect(filt.lagFeet - raw.lagFeet).toBeLessThan(20);
    });
  }
});

describe('source filter settings and remote parameters', () => {
  it('round-trips through the settings file; a file without it reads the defaults; bad values named', () => {
    const s = defaultSettings();
    s.sourceFilter.feet = { minCutoff: 0, beta: 3, dCutoff: 1.5 };
    const text = serializeSettings(s);
    expect(text).toContain('"feet": { "minCutoff": 0, "beta": 3, "dCutoff": 1.5 }');
    expect(parseSettings(text, 'a.json').sourceFilter).toEqual(s.sourceFilter);
    const old = text.replace(/,\n {2}"sourceFilter": \{[\s\S]*?\n {2}\}/, '');
    expect(old).not.toContain('sourceFilter');
    expect(parseSettings(old, 'old.json').sourceFilter).toEqual(defaultSettings().sourceFilter);
    expect(() => parseSettings(text.replace('"beta": 3', '"beta": -1'), 'a.json')).toThrow(
      /a\.json:\d+:\d+: sourceFilter\.feet\.beta: -1 is out of range 0\.\.100/,
    );
    expect(() => parseSettings(text.replace('"dCutoff": 1.5', '"dCutof": 1.5'), 'a.json')).toThrow(
      /sourceFilter\.feet\.dCutof: unknown field .*did you mean 'dCutoff'/,
    );
  });

  it('remote parameters set the hub filter, validated; hot-reload state carries the stage', async () => {
    const src = await loadSource(path.resolve(__dirname, '../assets/default/default-walk.bvh'));
    const avatar = await loadAvatar(path.resolve(__dirname, '../assets/default/default-avatar.glb'));
    const hub = new RetargetHub(src.clip.skeleton, avatar.skeleton);
    const p = findParameter('sourceFilterHandsBeta');
    expect(p?.type === 'number' && p.min === 0 && p.max === 100).toBe(true);
    if (p?.type !== 'number') return;
    p.set(hub, 12);
    expect(hub.settings.sourceFilter.hands.beta).toBe(12);
    expect(hub.sourceStage.groupParams('hands').beta).toBe(12);
    expect(() => hub.setSourceFilter('feet', -1, 0, 1)).toThrow(
      /sourceFilter\.feet\.minCutoff: -1 is outside 0\.\.60/,
    );
    const frames = clipFrames(src.clip);
    hub.calibrate({ rotations: frames.rotations[0], translations: frames.translations[0] });
    const noisy = addNoise(frames, DEFAULT_NOISE);
    for (let f = 0; f < 30; f++) hub.updateLive(noisy.rotations[f], noisy.translations[f], 1 / 30);
    const copy = RetargetHub.fromState(
      src.clip.skeleton,
      avatar.skeleton,
      JSON.parse(JSON.stringify(hub.exportState())),
    );
    expect(copy.settings.sourceFilter.hands.beta).toBe(12);
    expect(Array.from(copy.sourceStage.rawLocalRotations)).toEqual(
      Array.from(hub.sourceStage.rawLocalRotations),
    );
    const bits = (a: Float64Array) => Array.from(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
    for (let f = 30; f < 40; f++) {
      hub.updateLive(noisy.rotations[f], noisy.translations[f], 1 / 30);
      copy.updateLive(noisy.rotations[f], noisy.translations[f], 1 / 30);
      // the filters resume where they were, and the hub with them: bit for bit
      for (const k of ['worldRotations', 'worldPositions', 'localRotations', 'localTranslations'] as const)
        expect(bits(copy.sourceStage[k])).toEqual(bits(hub.sourceStage[k]));
      expect(bits(copy.localRotations)).toEqual(bits(hub.localRotations));
      expect(bits(copy.localTranslations)).toEqual(bits(hub.localTranslations));
    }
  });

  it('the stage state alone round-trips through JSON bit for bit (filter values, speeds, raw frame)', async () => {
    const src = await loadSource(path.resolve(__dirname, '../assets/default/default-walk.bvh'));
    const noisy = addNoise(clipFrames(src.clip), DEFAULT_NOISE);
    const a = new SourceStage(src.clip.skeleton);
    // a varying interval, a repeated frame (te 0) and a dropped one
    for (let f = 0; f < 25; f++)
      a.update(noisy.rotations[f], noisy.translations[f], f === 10 ? 0 : f === 12 ? 2 / 30 : 1 / 30);
    const text = JSON.stringify(a.exportState());
    const b = new SourceStage(src.clip.skeleton);
    b.importState(JSON.parse(text));
    expect(JSON.stringify(b.exportState())).toBe(text);
    const bits = (x: Float64Array) => Array.from(new Uint8Array(x.buffer));
    for (let f = 25; f < 45; f++) {
      a.update(noisy.rotations[f], noisy.translations[f], 1 / 30 + f * 1e-5);
      b.update(noisy.rotations[f], noisy.translations[f], 1 / 30 + f * 1e-5);
      expect(bits(b.worldRotations)).toEqual(bits(a.worldRotations));
      expect(bits(b.worldPositions)).toEqual(bits(a.worldPositions));
      expect(bits(b.localTranslations)).toEqual(bits(a.localTranslations));
    }
  });

  it('updateLive allocates nothing per frame (measured in a plain Node process)', () => {
    const root = path.resolve(__dirname, '..');
    const r = runAllocProbe(`
      import * as rig from ${JSON.stringify(path.join(root, 'src/rig'))};
      import * as core from ${JSON.stringify(path.join(root, 'src/core'))};
      const sk = core.createSkeleton({ names: ['a', 'b', 'c'], parents: [-1, 0, 1], restTranslations: [0, 1, 0, 0, 0.3, 0, 0, 0.3, 0], restRotations: [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1] });
      const st = new rig.SourceStage(sk);
      const rot = Float64Array.from(sk.restRotations), pos = Float64Array.from(sk.restTranslations);
      const t = new Float64Array(1);
      result.stage = bytesPerCall(() => { t[0] += 0.01; pos[0] = 0.01 * Math.sin(t[0]); st.update(rot, pos, 1 / 120); });
    `);
    expect(r.stage).toBeLessThan(1);
  });
});
