/**
 * RetargetHub.exportState / fromState (hot reload of one hub): a hub run over part of a real take,
 * exported through JSON text, imported into a fresh hub and run on equals one uninterrupted run
 * bit for bit (difference 0: the re-applied calibrated offsets are kept as exported, not renormalised), with the state that matters exercised (I-pose calibration, settings, props and a chair,
 * finger presets and modes, head-forward fix, auto weights mid-transition).
 */

import { type Clip, readFrame, type Skeleton } from '../src/core';
import { loadAvatar, loadSource } from '../src/io/node';
import { decodeStateNumbers, encodeStateNumbers, type HubState, RetargetHub } from '../src/rig';
import { dataPath, describeWithData } from './helpers/data';

type Setup = (hub: RetargetHub, frame: { rotations: Float64Array; translations: Float64Array }) => void;

/** Run frames [from, to) of `clip` on `hub`, appending every output value to `out`. */
function run(hub: RetargetHub, clip: Clip, from: number, to: number, out: number[]): void {
  const n = clip.skeleton.boneCount;
  const r = new Float64Array(4 * n);
  const p = new Float64Array(3 * n);
  for (let f = from; f < to; f++) {
    readFrame(clip, f, r, p);
    hub.update(r, p, clip.frameTime);
    for (const v of hub.localRotations) out.push(v);
    for (const v of hub.localTranslations) out.push(v);
    for (const v of hub.outputScales) out.push(v);
    for (const v of hub.ikWeights) out.push(v);
  }
}

function maxDiff(a: number[], b: number[]): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= m)) m = Number.isNaN(d) ? Number.POSITIVE_INFINITY : d;
  }
  return m;
}

/** One run of `frames` frames vs. runs cut every `every` frames by export -> JSON -> fromState. */
function compare(src: Skeleton, tgt: Skeleton, clip: Clip, setup: Setup, frames: number, every: number) {
  const make = () => {
    const hub = new RetargetHub(src, tgt, { ik: 'auto' });
    const n = src.boneCount;
    const frame = { rotations: new Float64Array(4 * n), translations: new Float64Array(3 * n) };
    readFrame(clip, 0, frame.rotations, frame.translations);
    setup(hub, frame);
    return hub;
  };
  const whole: number[] = [];
  run(make(), clip, 0, frames, whole);
  const cut: number[] = [];
  let hub = make();
  let reloads = 0;
  for (let f = 0; f < frames; f += every) {
    run(hub, clip, f, Math.min(frames, f + every), cut);
    const text = JSON.stringify(hub.exportState());
    hub = RetargetHub.fromState(src, tgt, JSON.parse(text) as HubState);
    reloads++;
  }
  return { diff: maxDiff(whole, cut), reloads };
}

describeWithData('RetargetHub state export/import (hot reload) on a real take', () => {
  let clip: Clip;
  let tgt: Skeleton;
  beforeAll(async () => {
    clip = (await loadSource(dataPath('bandai-namco-motiondataset/dataset-1_dance-short_normal_001.bvh')))
      .clip;
    tgt = (await loadAvatar(dataPath('threejs/Xbot.glb'))).skeleton;
  });

  it('half a take, export -> JSON -> fromState, the rest: equals one run bit for bit', () => {
    const half = Math.floor(clip.frameCount / 2);
    const { diff } = compare(clip.skeleton, tgt, clip, (hub, fr) => hub.calibrate(fr), clip.frameCount, half);
    console.log(
      `hub state, cut at half of ${clip.frameCount} frames: max difference ${diff.toExponential(2)}`,
    );
    expect(diff).toBe(0);
  });

  it('every 7 frames, with I-pose calibration, settings, props, a chair, fingers and the head fix', () => {
    const setup: Setup = (hub, fr) => {
      hub.calibrateIPose(fr);
      hub.setAvatarScale(1.1);
      hub.setHeadScale(1.2);
      hub.setHeadRotationOffset(10, -5, 3);
      hub.setFloorHeight(0.02);
      hub.setFootOffset('left', 0.03, 0.01);
      hub.setChairSeatOffset(0.05);
      hub.weights.configure({ smoothingSpeed: 2, leftArmForcedOff: true });
      hub.update(fr.rotations, fr.translations, 0);
      hub.calibrateHeadForward();
      hub.props.add('cup', 'Object', [0.3, 1.0, 0.3]);
      hub.props.add('chair', 'Chair', [0, 0.5, 0.1]);
      hub.props.add('gone', 'Object');
      hub.props.add('hat', 'Object');
      hub.props.attach('hat', 'Head', { position: [0, 0.1, 0] });
      hub.props.remove('gone');
      hub.fingers.applyPreset('left', 'rock');
      hub.fingers.setEnabled('right', false);
      hub.setFingerMode('none');
    };
    const frames = Math.min(clip.frameCount, 300);
    const { diff, reloads } = compare(clip.skeleton, tgt, clip, setup, frames, 7);
    console.log(
      `hub state, ${reloads} reloads over ${frames} frames: max difference ${diff.toExponential(2)}`,
    );
    expect(reloads).toBeGreaterThanOrEqual(20);
    expect(diff).toBe(0);
  });

  it('muscleData finger mode and ik on survive a reload', () => {
    const setup: Setup = (hub, fr) => {
      hub.calibrate(fr);
      hub.setFingerMode('muscleData');
      hub.ikMode = 'on';
    };
    const { diff } = compare(clip.skeleton, tgt, clip, setup, 120, 11);
    expect(diff).toBe(0);
  });

  it('a hub that was never calibrated exports and imports as uncalibrated', () => {
    const hub = new RetargetHub(clip.skeleton, tgt);
    const back = RetargetHub.fromState(clip.skeleton, tgt, JSON.parse(JSON.stringify(hub.exportState())));
    expect(back.isCalibrated).toBe(false);
  });

  it('a wrong version or bad field is a HubError naming it', () => {
    const hub = new RetargetHub(clip.skeleton, tgt);
    const n = clip.skeleton.boneCount;
    const fr = { rotations: new Float64Array(4 * n), translations: new Float64Array(3 * n) };
    readFrame(clip, 0, fr.rotations, fr.translations);
    hub.calibrate(fr);
    const st = JSON.parse(JSON.stringify(hub.exportState()));
    expect(() => RetargetHub.fromState(clip.skeleton, tgt, { ...st, version: 99 })).toThrow(
      /state\.version: 99/,
    );
    expect(() => RetargetHub.fromState(clip.skeleton, tgt, { ...st, ik: [] })).toThrow(/state\.ik/);
    expect(() =>
      RetargetHub.fromState(clip.skeleton, tgt, { ...st, lastFrame: { rotations: [1], translations: [] } }),
    ).toThrow(/lastFrame: frame\.rotations has length 1/);
    expect(() =>
      RetargetHub.fromState(clip.skeleton, tgt, { ...st, props: { ...st.props, scale: -1 } }),
    ).toThrow(/state\.props: props state\.scale/);
  });
});

describe('state number encoding', () => {
  it('NaN, ±Infinity and -0 survive JSON text; other values unchanged', () => {
    const v = {
      a: [1.5, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 0, 1e-300],
      s: 'NaN',
      b: true,
      n: null,
    };
    const back = decodeStateNumbers(JSON.parse(JSON.stringify(encodeStateNumbers(v)))) as typeof v;
    expect(back.a.map((x) => (Object.is(x, -0) ? '-0' : String(x)))).toEqual([
      '1.5',
      'NaN',
      'Infinity',
      '-Infinity',
      '-0',
      '0',
      '1e-300',
    ]);
    expect(back.s).toBe('NaN');
    expect(back.b).toBe(true);
    expect(back.n).toBeNull();
  });
});
