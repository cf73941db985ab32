/**
 * Test-only contact labels for the cleanup tests (the real detector is src/contact, built on another
 * branch; the cleanup tests must not depend on it). A crude rule: a foot is in contact where its lowest
 * joint is within `height` of the floor and its ankle moves horizontally slower than `speed`
 * (both at a 0.9 m leg, scaled); the floor is a low percentile of the lowest-joint heights along the
 * clip's up axis (from the rest skeleton: hips -> head).
 */
import * as fs from 'node:fs';
import {
  contactHeight,
  type FloorEstimate,
  type LegTrack,
  legBones,
  legTracks,
  REFERENCE_LEG_LENGTH,
  restLegLength,
} from '../../src/cleanup';
import { forwardKinematics, HumanBodyBones as H, withHumanoid } from '../../src/core';
import { type Clip, readFrame } from '../../src/core/clip';
import { parseBvh } from '../../src/io/bvh';
import { autoMapHumanoid } from '../../src/io/humanoidMap';
import { nearestAxis } from '../../src/retarget/retargeter';

export function loadBvh(file: string): Clip {
  const r = parseBvh(fs.readFileSync(file, 'utf8'), { fileName: file });
  const map = autoMapHumanoid(r.clip.skeleton, { fileName: file });
  return { ...r.clip, skeleton: withHumanoid(r.clip.skeleton, map.humanoid) };
}

const AXES: Record<string, [number, number, number]> = {
  '+x': [1, 0, 0],
  '-x': [-1, 0, 0],
  '+y': [0, 1, 0],
  '-y': [0, -1, 0],
  '+z': [0, 0, 1],
  '-z': [0, 0, -1],
};

/** Up axis of the clip's world from frame 0 (hips -> head), as a unit axis. */
export function clipUp(clip: Clip): [number, number, number] {
  const s = clip.skeleton;
  const n = s.boneCount;
  const rot = new Float64Array(4 * n);
  const pos = new Float64Array(3 * n);
  readFrame(clip, 0, rot, pos);
  const wr = new Float64Array(4 * n);
  const wp = new Float64Array(3 * n);
  forwardKinematics(s, rot, pos, wr, wp);
  const a = s.humanoid[H.Hips];
  const b = s.humanoid[H.Head] >= 0 ? s.humanoid[H.Head] : s.humanoid[H.Neck];
  const v = [wp[3 * b] - wp[3 * a], wp[3 * b + 1] - wp[3 * a + 1], wp[3 * b + 2] - wp[3 * a + 2]];
  return AXES[nearestAxis(v)];
}

export interface RuleLabels {
  floor: FloorEstimate;
  probabilities: { left: Float32Array; right: Float32Array };
  tracks: { left: LegTrack; right: LegTrack };
  scale: number;
}

/** The crude rule (see the module doc): P = 0.95 in contact, 0.05 elsewhere. */
export function ruleLabels(
  clip: Clip,
  opts: { height?: number; speed?: number; percentile?: number } = {},
): RuleLabels {
  const up = clipUp(clip);
  const bones = { left: legBones(clip.skeleton, 'left'), right: legBones(clip.skeleton, 'right') };
  const tracks = legTracks(clip, bones);
  const scale = restLegLength(clip.skeleton, bones) / REFERENCE_LEG_LENGTH;
  const F = clip.frameCount;
  const flat: FloorEstimate = { normal: up, d: 0, method: 'percentile' };
  const heights: number[] = [];
  for (const foot of ['left', 'right'] as const)
    for (let f = 0; f < F; f++) heights.push(contactHeight(tracks[foot], flat, f));
  heights.sort((x, y) => x - y);
  const low = heights[Math.floor((opts.percentile ?? 0.05) * (heights.length - 1))];
  const floor: FloorEstimate = { normal: up, d: -low, method: 'percentile' };
  const hMax = (opts.height ?? 0.08) * scale;
  const vMax = (opts.speed ?? 0.8) * scale;
  const probabilities = { left: new Float32Array(F), right: new Float32Array(F) };
  for (const foot of ['left', 'right'] as const) {
    const a = tracks[foot].ankle;
    for (let f = 0; f < F; f++) {
      const f0 = Math.max(0, f - 1);
      const f1 = Math.min(F - 1, f + 1);
      const d = [0, 1, 2].map((k) => a[3 * f1 + k] - a[3 * f0 + k]);
      const v = d[0] * up[0] + d[1] * up[1] + d[2] * up[2];
      const hs =
        Math.hypot(d[0] - v * up[0], d[1] - v * up[1], d[2] - v * up[2]) / ((f1 - f0) * clip.frameTime);
      const h = contactHeight(tracks[foot], floor, f);
      probabilities[foot][f] = h < hMax && hs < vMax ? 0.95 : 0.05;
    }
  }
  return { floor, probabilities, tracks, scale };
}
