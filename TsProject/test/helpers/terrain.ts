/**
 * Uneven ground made from a take on a flat floor (tests and measurements of issue 20, point 4): every
 * stance of each foot is moved up to the terrain's height where that foot stands, so a real walk
 * becomes a walk onto a platform, over stepping stones or up a slope, with its own timing.
 *
 * How (independent of the contact detector and of the cleanup): a foot's stances are its runs of
 * frames where the ankle or the toe moves slower than 0.25 m/s (over +-1/60 s) for at least 1/12 s.
 * A stance standing at horizontal position p (the median of its lower joint) is raised by
 * `height(p)`; between two stances the raise moves from one to the next with the foot's horizontal
 * progress from one stance to the next (a smoothstep in time when the foot steps in place); the hips are raised by the smaller raise of the two feet (the body rides on the lower foot).
 * Each leg is then solved (src/ik LegDLS, the cleanup's solver) so its ankle reaches its source
 * position plus its raise, and the foot keeps its source world rotation (toes follow the foot).
 * Y-up and Z-up takes both work (the up axis is the take's, from hips to head).
 */
import { legBones, legTracks } from '../../src/cleanup';
import { type Clip, forwardKinematics, qmul, qmulConj, readFrame } from '../../src/core';
import { LegDLS } from '../../src/ik/dls';
import { clipUp } from './cleanupRule';

export interface TerrainResult {
  clip: Clip;
  up: [number, number, number];
  /** Per foot, the stances found `[start, end)` and the raise given to each, metres. */
  stances: Record<'left' | 'right', { start: number; end: number; raise: number }[]>;
  /** Per foot, the raise per frame, metres. */
  raise: Record<'left' | 'right', Float64Array>;
  /** Largest distance of a solved ankle from its raised target, metres (the leg could not reach). */
  maxMiss: number;
}

const smooth = (u: number) => {
  const x = Math.max(0, Math.min(1, u));
  return x * x * (3 - 2 * x);
};

/** Stances of one joint pair (see the module doc): `[start, end)` runs. */
export function stances(
  ankle: Float64Array,
  toe: Float64Array | null,
  frameTime: number,
): { start: number; end: number }[] {
  const F = ankle.length / 3;
  const k = Math.max(1, Math.round(1 / 60 / frameTime));
  const still = new Uint8Array(F);
  for (let f = 0; f < F; f++) {
    const a = Math.max(0, f - k);
    const b = Math.min(F - 1, f + k);
    const sp = (p: Float64Array) =>
      Math.hypot(p[3 * b] - p[3 * a], p[3 * b + 1] - p[3 * a + 1], p[3 * b + 2] - p[3 * a + 2]) /
      ((b - a) * frameTime);
    still[f] = sp(ankle) < 0.25 || (toe !== null && sp(toe) < 0.25) ? 1 : 0;
  }
  const minRun = Math.max(2, Math.round(5 / 60 / frameTime));
  const out: { start: number; end: number }[] = [];
  let i = 0;
  while (i < F) {
    if (!still[i]) {
      i++;
      continue;
    }
    let j = i;
    while (j < F && still[j]) j++;
    if (j - i >= minRun) out.push({ start: i, end: j });
    i = j;
  }
  return out;
}

/**
 * The take on uneven ground (see the module doc).
 * @param height terrain height (metres, along up) at a world position (x, y, z) on the flat floor.
 */
export function terrainClip(clip: Clip, height: (p: [number, number, number]) => number): TerrainResult {
  const up = clipUp(clip);
  const s = clip.skeleton;
  const bones = { left: legBones(s, 'left'), right: legBones(s, 'right') };
  const tracks = legTracks(clip, bones);
  const F = clip.frameCount;
  const st = {} as TerrainResult['stances'];
  const raise = {} as TerrainResult['raise'];
  for (const foot of ['left', 'right'] as const) {
    const t = tracks[foot];
    const low = t.toe ?? t.ankle;
    const list = stances(t.ankle, t.toe, clip.frameTime).map((r) => {
      const med = [0, 1, 2].map((c) => {
        const v: number[] = [];
        for (let f = r.start; f < r.end; f++) v.push(low[3 * f + c]);
        v.sort((a, b) => a - b);
        return v[v.length >> 1];
      }) as [number, number, number];
      return { ...r, at: med, raise: height(med) };
    });
    const o = new Float64Array(F);
    const flat = (a: number[], b: number[]) => {
      let d = 0;
      for (let c = 0; c < 3; c++) d += (a[c] - b[c]) * (a[c] - b[c]);
      const v = (a[0] - b[0]) * up[0] + (a[1] - b[1]) * up[1] + (a[2] - b[2]) * up[2];
      return Math.sqrt(Math.max(0, d - v * v));
    };
    if (list.length > 0) {
      // before the first stance and after the last, the foot goes on toward where it is at the take's
      // first (last) frame, on the ground there
      const end = (f: number) => {
        const at = [0, 1, 2].map((c) => low[3 * f + c]) as [number, number, number];
        return { start: f, end: f + 1, at, raise: height(at) };
      };
      if (list[0].start > 0) list.unshift(end(0));
      if (list[list.length - 1].end < F) list.push(end(F - 1));
      for (let f = 0; f < F; f++) {
        const next = list.findIndex((r) => r.end > f);
        if (next < 0) o[f] = list[list.length - 1].raise;
        else if (f >= list[next].start || next === 0) o[f] = list[next].raise;
        else {
          // in the swing: by the horizontal progress from one stance to the next (on a slope the foot
          // follows the ground), by time when the foot steps in place
          const a = list[next - 1];
          const b = list[next];
          const total = flat(a.at, b.at);
          const p = [0, 1, 2].map((c) => low[3 * f + c]);
          const u =
            total > 0.05
              ? Math.max(0, Math.min(1, flat(p, a.at) / total))
              : smooth((f - a.end + 1) / (b.start - a.end + 1));
          o[f] = a.raise + (b.raise - a.raise) * u;
        }
      }
    }
    st[foot] = list
      .filter((r) => r.end - r.start > 1)
      .map(({ start, end, raise }) => ({ start, end, raise }));
    raise[foot] = o;
  }
  const out: Clip = { ...clip, rotations: clip.rotations.slice(), translations: clip.translations.slice() };
  const n = s.boneCount;
  const rot = new Float64Array(4 * n);
  const pos = new Float64Array(3 * n);
  const wr = new Float64Array(4 * n);
  const wp = new Float64Array(3 * n);
  const q = new Float64Array(12);
  const target = new Float64Array(3);
  const solvers = { left: new LegDLS(), right: new LegDLS() };
  let maxMiss = 0;
  for (let f = 0; f < F; f++) {
    readFrame(clip, f, rot, pos);
    const hipsRaise = Math.min(raise.left[f], raise.right[f]);
    for (let i = 0; i < n; i++)
      if (s.parents[i] < 0) for (let c = 0; c < 3; c++) pos[3 * i + c] += up[c] * hipsRaise;
    forwardKinematics(s, rot, pos, wr, wp);
    for (const foot of ['left', 'right'] as const) {
      const b = bones[foot];
      for (let c = 0; c < 3; c++) target[c] = tracks[foot].ankle[3 * f + c] + up[c] * raise[foot][f];
      const dls = solvers[foot];
      dls.solve(wp, 3 * b.upper, wp, 3 * b.lower, wp, 3 * b.end, target, 0);
      maxMiss = Math.max(maxMiss, dls.report.pinError);
      // as src/cleanup FootPinner at full weight: thigh local = parent^-1 * DH * thigh; shin local =
      // (DH * parent)^-1 * DS * shin; foot local = (DS * parent)^-1 * foot (the foot keeps its world rotation)
      qmul(q, 0, dls.thighDelta, 0, wr, 4 * b.upper);
      qmulConj(rot, 4 * b.upper, wr, 4 * s.parents[b.upper], q, 0);
      qmul(q, 0, dls.thighDelta, 0, wr, 4 * s.parents[b.lower]);
      qmul(q, 4, dls.shinDelta, 0, wr, 4 * b.lower);
      qmulConj(rot, 4 * b.lower, q, 0, q, 4);
      qmul(q, 0, dls.shinDelta, 0, wr, 4 * s.parents[b.end]);
      qmulConj(rot, 4 * b.end, q, 0, wr, 4 * b.end);
    }
    for (let i = 0; i < n; i++) {
      if (s.parents[i] < 0)
        for (let c = 0; c < 3; c++) out.translations[3 * (f * n + i) + c] = pos[3 * i + c];
    }
    for (const foot of ['left', 'right'] as const) {
      const b = bones[foot];
      for (const bone of [b.upper, b.lower, b.end])
        for (let c = 0; c < 4; c++) out.rotations[4 * (f * n + bone) + c] = rot[4 * bone + c];
    }
  }
  return { clip: out, up, stances: st, raise, maxMiss };
}
