/**
 * src/contact: known answers (a foot held still in the air is not a contact; a take shifted up or down
 * keeps its contacts), scale and frame-rate invariance of the features and probabilities, bad input.
 */

import {
  cleanContacts,
  computeFootTracks,
  contactFeatures,
  estimateFloor,
  FEATURE_COUNT,
  learnedContactProbabilities,
  loadShippedContactModel,
  ruleContactProbabilities,
} from '../src/contact';
import { HumanBodyBones as H, withHumanoid } from '../src/core';
import {
  DEFAULT_WALK,
  decimateClip,
  loadBvhClip,
  raisedLegClip,
  scaleClip,
  shiftClip,
} from './helpers/contact';
import { dataPath, describeWithData } from './helpers/data';

const weights = loadShippedContactModel();

describe('a foot held still in the air is not a contact', () => {
  const base = loadBvhClip(DEFAULT_WALK);
  const clip = raisedLegClip(base, 150, 40, 110, 60, 90);
  const tracks = computeFootTracks(clip);
  const floor = estimateFloor(tracks);
  const feats = contactFeatures(tracks, floor);

  it('the set-up: the left ankle is high, bent and perfectly still in frames 50..100', () => {
    const up = tracks.up;
    for (let f = 50; f < 100; f++) {
      const a = tracks.left.ankle;
      const h = up[0] * a[3 * f] + up[1] * a[3 * f + 1] + up[2] * a[3 * f + 2] + floor.d;
      expect(h).toBeGreaterThan(0.25 * tracks.legLength);
      const hipAnkle = Math.hypot(
        a[3 * f] - tracks.left.hip[3 * f],
        a[3 * f + 1] - tracks.left.hip[3 * f + 1],
        a[3 * f + 2] - tracks.left.hip[3 * f + 2],
      );
      expect(hipAnkle).toBeLessThan(0.8 * tracks.legLength); // knee bent
      // a velocity-only labeller would call this a contact: zero horizontal and vertical speed
      expect(feats.left[f * FEATURE_COUNT + 2]).toBeCloseTo(0, 6);
      expect(feats.left[f * FEATURE_COUNT + 4]).toBeCloseTo(0, 6);
    }
  });

  it.each([
    ['rule', () => ruleContactProbabilities(tracks)],
    ['learned', () => learnedContactProbabilities(tracks, weights)],
  ])('%s: the raised, still left foot is not a contact (P < 0.3), before the raise it is', (_name, run) => {
    const p = run();
    for (let f = 50; f < 100; f++) expect(p.left[f]).toBeLessThan(0.3);
    const left = cleanContacts(p.left);
    expect(left.slice(5, 30).every((v) => v === 1)).toBe(true); // standing before the raise
    expect(left.slice(45, 105).every((v) => v === 0)).toBe(true);
  });

  it('rule: the standing right foot stays in contact throughout', () => {
    // (the learned model misses this single-leg stance with the other foot held high: MODEL_CARD.md, limits)
    const right = cleanContacts(ruleContactProbabilities(tracks).right);
    expect(right.slice(5, 145).every((v) => v === 1)).toBe(true);
  });
});

describe('floor from the data: the same take shifted up 0.3 m or down 0.1 m gets the same contacts', () => {
  const clip = loadBvhClip(DEFAULT_WALK);
  const tracks = computeFootTracks(clip);
  it.each([0.3, -0.1])('shift %p m', (offset) => {
    const moved = computeFootTracks(shiftClip(clip, tracks.up, offset));
    const f0 = estimateFloor(tracks);
    const f1 = estimateFloor(moved);
    expect(-f1.d - -f0.d).toBeCloseTo(offset, 5);
    for (const run of [
      (t: typeof tracks) => ruleContactProbabilities(t),
      (t: typeof tracks) => learnedContactProbabilities(t, weights),
    ]) {
      const a = run(tracks);
      const b = run(moved);
      for (const side of ['left', 'right'] as const) {
        for (let f = 0; f < a[side].length; f++) expect(Math.abs(a[side][f] - b[side][f])).toBeLessThan(1e-4);
        expect(Array.from(cleanContacts(b[side]))).toEqual(Array.from(cleanContacts(a[side])));
      }
      // and there are contacts to compare
      expect(cleanContacts(a.left).reduce((s, v) => s + v, 0)).toBeGreaterThan(10);
    }
  });
});

describe('features are invariant to the take scale', () => {
  it('a take scaled x2 gives the same features (and leg length x2)', () => {
    const clip = loadBvhClip(DEFAULT_WALK);
    const t1 = computeFootTracks(clip);
    const t2 = computeFootTracks(scaleClip(clip, 2));
    expect(t2.legLength / t1.legLength).toBeCloseTo(2, 9);
    const a = contactFeatures(t1, estimateFloor(t1));
    const b = contactFeatures(t2, estimateFloor(t2));
    expect(b.gridCount).toBe(a.gridCount);
    let maxDiff = 0;
    for (const side of ['left', 'right'] as const)
      for (let i = 0; i < a[side].length; i++) maxDiff = Math.max(maxDiff, Math.abs(a[side][i] - b[side][i]));
    expect(maxDiff).toBeLessThan(1e-5);
    // the features are not trivially zero
    expect(Math.max(...a.left)).toBeGreaterThan(0.1);
  });
});

describeWithData('frame-rate resampling', () => {
  it('a 120 fps take decimated to 60 fps gives close probabilities', () => {
    const clip = loadBvhClip(dataPath('cmu-locomotion/cgspeed-mb/02_01.bvh'));
    expect(Math.round(1 / clip.frameTime)).toBe(120);
    const hi = computeFootTracks(clip);
    const lo = computeFootTracks(decimateClip(clip, 2));
    const pa = learnedContactProbabilities(hi, weights);
    const pb = learnedContactProbabilities(lo, weights);
    for (const side of ['left', 'right'] as const) {
      let sum = 0;
      let agree = 0;
      const ca = cleanContacts(pa[side], { fps: 120 });
      const cb = cleanContacts(pb[side], { fps: 60 });
      for (let f = 0; f < lo.frameCount; f++) {
        sum += Math.abs(pa[side][2 * f] - pb[side][f]);
        if (ca[2 * f] === cb[f]) agree++;
      }
      expect(sum / lo.frameCount).toBeLessThan(0.03);
      expect(agree / lo.frameCount).toBeGreaterThan(0.97);
      expect(cb.reduce((s, v) => s + v, 0)).toBeGreaterThan(30);
    }
  });
});

describe('bad input', () => {
  const clip = loadBvhClip(DEFAULT_WALK);
  it('a clip without feet names the missing HumanBodyBones', () => {
    const hm = Int32Array.from(clip.skeleton.humanoid);
    hm[H.LeftFoot] = -1;
    hm[H.RightLowerLeg] = -1;
    const bad = { ...clip, skeleton: withHumanoid(clip.skeleton, hm) };
    expect(() => computeFootTracks(bad)).toThrow(/missing LeftFoot, RightLowerLeg \(HumanBodyBones\)/);
  });
  it('a clip of one frame', () => {
    const one = decimateClip(clip, clip.frameCount);
    expect(one.frameCount).toBe(1);
    expect(() => computeFootTracks(one)).toThrow(/1 frame\(s\); contact detection needs at least 2/);
  });
  it('NaN names the frame and the bone', () => {
    const n = clip.skeleton.boneCount;
    const b = clip.skeleton.humanoid[H.RightFoot];
    const rotations = clip.rotations.slice();
    rotations[4 * (17 * n + b) + 2] = Number.NaN;
    expect(() => computeFootTracks({ ...clip, rotations })).toThrow(
      new RegExp(`frame 17, bone '${clip.skeleton.names[b]}': NaN or infinite value`),
    );
  });
});
