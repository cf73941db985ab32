/**
 * An outside check of `kind cleanup`'s leg motion (issue 20, items 3 and 6), written apart from the
 * cleanup: it uses none of src/cleanup's own tracks, metrics or reports, only the clip it returns.
 *
 * For every BVH under the shared data (recursively; files without two legs or that do not parse are
 * listed and skipped), at the take's own rate and resampled to 25 fps (this file's own resampler:
 * linear translations, shortest-path slerp of rotations, frames at k / 25 s over the take's duration),
 * with the rule and the learned contact detectors (src/cli/contactSource.ts), it runs `cleanupClip`
 * and then, by src/core `forwardKinematics` of the input and of the output clip, per leg joint (thigh
 * = hip, shin = knee, foot = ankle, toes = toe; both legs) and per frame pair:
 *
 *     excess(t) = |p_after(t) - p_after(t-1)| - |p_source(t) - p_source(t-1)|     (metres)
 *
 * and reports its maximum and the number of joint-frames over 3 cm. The slide in contact is the
 * horizontal path of the source and of the cleaned ankle (perpendicular to the detector's floor normal)
 * over frame pairs where the detector's probability is >= 0.5 at both frames: the detector's contacts,
 * not the cleanup's segments; and over this check's own reference contacts, independent of both
 * detectors: frame pairs where the source ankle is within 4 cm of its take's 5th-percentile height
 * (along the detector's floor normal) and slower than 0.25 m/s at both frames. Also the largest
 * displacement |p_after - p_source| of any leg joint.
 *
 * Run: `npm run bench -- cleanup-steps [--json out.json] [--blend-seconds s] [--set option=number]...
 * [--rate own|25|both] [--quiet]` (`--set` passes a cleanupClip option, e.g. `--set maxContactTravel=0.2`).
 * Not a test: it takes minutes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { cleanupClip } from '../src/cleanup';
import { type ContactModelName, contactSource } from '../src/cli/contactSource';
import {
  type Clip,
  createClip,
  forwardKinematics,
  HumanBodyBones as H,
  readFrame,
  withHumanoid,
} from '../src/core';
import { parseBvh } from '../src/io/bvh';
import { autoMapHumanoid } from '../src/io/humanoidMap';
import { SHARED_DATA } from './harness';

const BOUND = 0.03;
const JOINTS: [string, number, number][] = [
  ['hip', H.LeftUpperLeg, H.RightUpperLeg],
  ['knee', H.LeftLowerLeg, H.RightLowerLeg],
  ['ankle', H.LeftFoot, H.RightFoot],
  ['toe', H.LeftToes, H.RightToes],
];

/** Every .bvh under `dir`, relative, sorted. */
function listBvh(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const d of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${d.name}` : d.name;
    if (d.isDirectory()) out.push(...listBvh(dir, r));
    else if (d.name.toLowerCase().endsWith('.bvh')) out.push(r);
  }
  return out.sort();
}

/** The clip at `fps`: frames at k / fps over the take's duration; lerp translations, slerp rotations. */
export function resampleClip(clip: Clip, fps: number): Clip {
  const dur = (clip.frameCount - 1) * clip.frameTime;
  const G = Math.floor(dur * fps + 1e-9) + 1;
  const out = createClip(clip.skeleton, G, 1 / fps, clip.name);
  const n = clip.skeleton.boneCount;
  for (let g = 0; g < G; g++) {
    const u = Math.min(g / fps / clip.frameTime, clip.frameCount - 1);
    const i = Math.min(Math.floor(u), clip.frameCount - 2);
    const a = u - i;
    for (let b = 0; b < n; b++) {
      for (let k = 0; k < 3; k++) {
        const p0 = clip.translations[3 * (i * n + b) + k];
        const p1 = clip.translations[3 * ((i + 1) * n + b) + k];
        out.translations[3 * (g * n + b) + k] = p0 + a * (p1 - p0);
      }
      const o0 = 4 * (i * n + b);
      const o1 = 4 * ((i + 1) * n + b);
      const r = clip.rotations;
      let dot = r[o0] * r[o1] + r[o0 + 1] * r[o1 + 1] + r[o0 + 2] * r[o1 + 2] + r[o0 + 3] * r[o1 + 3];
      const sign = dot < 0 ? -1 : 1;
      dot = Math.min(1, Math.abs(dot));
      const th = Math.acos(dot);
      let w0 = 1 - a;
      let w1 = a;
      if (th > 1e-6) {
        w0 = Math.sin((1 - a) * th) / Math.sin(th);
        w1 = Math.sin(a * th) / Math.sin(th);
      }
      for (let k = 0; k < 4; k++) out.rotations[4 * (g * n + b) + k] = w0 * r[o0 + k] + sign * w1 * r[o1 + k];
    }
  }
  return out;
}

/** World positions of the given bones over every frame: `Float64Array(3 * F)` per bone. */
function worldTracks(clip: Clip, bones: number[]): Float64Array[] {
  const n = clip.skeleton.boneCount;
  const rot = new Float64Array(4 * n);
  const pos = new Float64Array(3 * n);
  const wr = new Float64Array(4 * n);
  const wp = new Float64Array(3 * n);
  const out = bones.map(() => new Float64Array(3 * clip.frameCount));
  for (let f = 0; f < clip.frameCount; f++) {
    readFrame(clip, f, rot, pos);
    forwardKinematics(clip.skeleton, rot, pos, wr, wp);
    bones.forEach((b, j) => {
      for (let k = 0; k < 3; k++) out[j][3 * f + k] = wp[3 * b + k];
    });
  }
  return out;
}

export interface StepRow {
  take: string;
  fps: number;
  frames: number;
  model: ContactModelName;
  /** Resampled to 25 fps by this check (else the take's own rate). */
  resampled: boolean;
  /** Largest excess over all leg joints and frames, metres; where. */
  maxExcess: number;
  where: string;
  /** Joint-frames with excess > 3 cm. */
  over: number;
  /** Per joint name: largest excess, metres. */
  perJoint: Record<string, number>;
  /** Ankle slide in the detector's contacts, metres (both feet): source, cleaned. */
  slideSource: number;
  slideAfter: number;
  /** Ankle slide over this check's own reference contacts (source ankle low and slow), metres: source, cleaned. */
  refSlideSource: number;
  refSlideAfter: number;
  /** Largest |p_after - p_source| of a leg joint, metres. */
  maxShift: number;
  /** Leg-frames (per leg) where some joint of that leg moved more than 1 mm from the source. */
  touched: number;
  /** Leg-frames in all (2 per frame). */
  legFrames: number;
  error?: string;
}

function measure(
  take: string,
  source: Clip,
  after: Clip,
  prob: { left: ArrayLike<number>; right: ArrayLike<number> },
  normal: readonly number[],
  model: ContactModelName,
  resampled: boolean,
): StepRow {
  const sk = source.skeleton;
  const F = source.frameCount;
  const row: StepRow = {
    take,
    fps: 1 / source.frameTime,
    frames: F,
    model,
    resampled,
    maxExcess: 0,
    where: '',
    over: 0,
    perJoint: {},
    slideSource: 0,
    slideAfter: 0,
    refSlideSource: 0,
    refSlideAfter: 0,
    maxShift: 0,
    touched: 0,
    legFrames: 2 * F,
  };
  const touched = { left: new Uint8Array(F), right: new Uint8Array(F) };
  const items: { name: string; bone: number; side: 'left' | 'right' }[] = [];
  for (const [name, l, r] of JOINTS) {
    if (sk.humanoid[l] >= 0) items.push({ name, bone: sk.humanoid[l], side: 'left' });
    if (sk.humanoid[r] >= 0) items.push({ name, bone: sk.humanoid[r], side: 'right' });
  }
  const bones = items.map((i) => i.bone);
  const before = worldTracks(source, bones);
  const aft = worldTracks(after, bones);
  const d = (p: Float64Array, a: number, b: number) =>
    Math.hypot(p[3 * a] - p[3 * b], p[3 * a + 1] - p[3 * b + 1], p[3 * a + 2] - p[3 * b + 2]);
  const hd = (p: Float64Array, a: number, b: number) => {
    const x = p[3 * a] - p[3 * b];
    const y = p[3 * a + 1] - p[3 * b + 1];
    const z = p[3 * a + 2] - p[3 * b + 2];
    const v = x * normal[0] + y * normal[1] + z * normal[2];
    return Math.hypot(x - v * normal[0], y - v * normal[1], z - v * normal[2]);
  };
  items.forEach((it, j) => {
    const pb = before[j];
    const pa = aft[j];
    let m = 0;
    for (let f = 0; f < F; f++) {
      const s = Math.hypot(
        pa[3 * f] - pb[3 * f],
        pa[3 * f + 1] - pb[3 * f + 1],
        pa[3 * f + 2] - pb[3 * f + 2],
      );
      if (s > row.maxShift) row.maxShift = s;
      if (s > 0.001) touched[it.side][f] = 1;
      if (f === 0) continue;
      const e = d(pa, f, f - 1) - d(pb, f, f - 1);
      if (e > m) m = e;
      if (e > BOUND) row.over++;
      if (e > row.maxExcess) {
        row.maxExcess = e;
        row.where = `${it.side} ${it.name} frame ${f}`;
      }
    }
    const key = it.name;
    row.perJoint[key] = Math.max(row.perJoint[key] ?? 0, m);
    if (it.name === 'ankle') {
      const p = prob[it.side];
      for (let f = 1; f < F; f++) {
        if (!(p[f] >= 0.5 && p[f - 1] >= 0.5)) continue;
        row.slideSource += hd(pb, f, f - 1);
        row.slideAfter += hd(pa, f, f - 1);
      }
      // reference contacts of this check: the source ankle low (within 4 cm of its take's 5th percentile
      // height along the floor normal) and slow (under 0.25 m/s, central difference) at both frames
      const h = new Float64Array(F);
      for (let f = 0; f < F; f++)
        h[f] = pb[3 * f] * normal[0] + pb[3 * f + 1] * normal[1] + pb[3 * f + 2] * normal[2];
      const low = Float64Array.from(h).sort()[Math.floor(0.05 * (F - 1))] + 0.04;
      const still = new Uint8Array(F);
      for (let f = 0; f < F; f++) {
        const a = Math.max(0, f - 1);
        const b = Math.min(F - 1, f + 1);
        still[f] = h[f] <= low && d(pb, b, a) / ((b - a) * source.frameTime) < 0.25 ? 1 : 0;
      }
      for (let f = 1; f < F; f++) {
        if (!(still[f] && still[f - 1])) continue;
        row.refSlideSource += hd(pb, f, f - 1);
        row.refSlideAfter += hd(pa, f, f - 1);
      }
    }
  });
  for (const side of ['left', 'right'] as const) for (const t of touched[side]) row.touched += t;
  return row;
}

function loadTake(file: string): Clip {
  const parsed = parseBvh(fs.readFileSync(file, 'utf8'), { fileName: path.basename(file) });
  const map = autoMapHumanoid(parsed.clip.skeleton, { fileName: path.basename(file) });
  const clip: Clip = { ...parsed.clip, skeleton: withHumanoid(parsed.clip.skeleton, map.humanoid) };
  for (const h of [H.LeftUpperLeg, H.LeftLowerLeg, H.LeftFoot, H.RightUpperLeg, H.RightLowerLeg, H.RightFoot])
    if (clip.skeleton.humanoid[h] < 0) throw new Error('no two legs in the humanoid map');
  if (clip.frameCount < 2) throw new Error('fewer than 2 frames');
  return clip;
}

export async function runCleanupSteps(args: string[]): Promise<StepRow[]> {
  const opt = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const json = opt('--json');
  const blend = opt('--blend-seconds');
  const rate = opt('--rate') ?? 'both';
  const options: Record<string, unknown> = {};
  if (blend !== undefined) options.blendSeconds = Number(blend);
  // any other cleanupClip option: --set name=value (numbers)
  args.forEach((a, i) => {
    if (a !== '--set') return;
    const [k, v] = args[i + 1].split('=');
    options[k] = Number(v);
  });
  const quiet = args.includes('--quiet');
  const takes = fs.existsSync(SHARED_DATA) ? listBvh(SHARED_DATA) : [];
  const sources = { rule: contactSource({ model: 'rule' }), learned: contactSource({ model: 'learned' }) };
  const rows: StepRow[] = [];
  console.log(
    '| take | fps | model | frames | max excess cm (where) | joint-frames > 3 cm | ankle slide in detector contacts cm source -> after | ankle slide in reference contacts cm | max joint shift cm |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const take of takes) {
    let clip: Clip;
    try {
      clip = loadTake(path.join(SHARED_DATA, take));
    } catch (e) {
      console.log(`skipped ${take}: ${(e as Error).message.split('\n')[0]}`);
      continue;
    }
    const clips: [Clip, boolean][] = [];
    if (rate !== '25') clips.push([clip, false]);
    if (rate !== 'own' && Math.abs(1 / clip.frameTime - 25) > 1e-6)
      clips.push([resampleClip(clip, 25), true]);
    for (const [c, resampled] of clips) {
      for (const model of ['rule', 'learned'] as const) {
        let row: StepRow;
        try {
          const est = await sources[model](c);
          const res = cleanupClip(
            { clip: c, probabilities: { left: est.left, right: est.right }, floor: est.floor },
            options,
          );
          row = measure(take, c, res.clip, est, est.floor.normal, model, resampled);
        } catch (e) {
          row = {
            take,
            fps: 1 / c.frameTime,
            frames: c.frameCount,
            model,
            resampled,
            maxExcess: 0,
            where: '',
            over: 0,
            perJoint: {},
            slideSource: 0,
            slideAfter: 0,
            refSlideSource: 0,
            refSlideAfter: 0,
            maxShift: 0,
            touched: 0,
            legFrames: 0,
            error: (e as Error).message,
          };
        }
        rows.push(row);
        if (!quiet)
          console.log(
            row.error
              ? `| ${take} | ${row.fps.toFixed(0)} | ${model} | ${row.frames} | error: ${row.error} | | | |`
              : `| ${take} | ${row.fps.toFixed(0)} | ${model} | ${row.frames} | ${(row.maxExcess * 100).toFixed(1)} (${row.where}) | ${row.over} | ${(row.slideSource * 100).toFixed(1)} -> ${(row.slideAfter * 100).toFixed(1)} | ${(row.refSlideSource * 100).toFixed(1)} -> ${(row.refSlideAfter * 100).toFixed(1)} | ${(row.maxShift * 100).toFixed(1)} |`,
          );
      }
    }
  }
  const ok = rows.filter((r) => !r.error);
  for (const group of ['own', '25'] as const) {
    for (const model of ['rule', 'learned'] as const) {
      // 'own': every take at its own rate (mocapnet's 25 fps clip included); '25': the others resampled
      const g = ok.filter((r) => r.model === model && r.resampled === (group === '25'));
      if (g.length === 0) continue;
      const max = g.reduce((a, r) => (r.maxExcess > a.maxExcess ? r : a));
      const over = g.reduce((a, r) => a + r.over, 0);
      const sb = g.reduce((a, r) => a + r.slideSource, 0);
      const sa = g.reduce((a, r) => a + r.slideAfter, 0);
      const rb = g.reduce((a, r) => a + r.refSlideSource, 0);
      const ra = g.reduce((a, r) => a + r.refSlideAfter, 0);
      const tc = g.reduce((a, r) => a + r.touched, 0) / g.reduce((a, r) => a + r.legFrames, 0);
      console.log(
        `${group === '25' ? 'resampled to 25 fps' : 'own rates'}, ${model}: ${g.length} rows; max excess ${(max.maxExcess * 100).toFixed(1)} cm (${max.take} @ ${max.fps.toFixed(0)} fps, ${max.where}); joint-frames > 3 cm: ${over}; ankle slide in the detector's contacts ${(sb * 100).toFixed(1)} -> ${(sa * 100).toFixed(1)} cm, in the reference contacts ${(rb * 100).toFixed(1)} -> ${(ra * 100).toFixed(1)} cm; leg-frames touched ${(tc * 100).toFixed(1)}%`,
      );
    }
  }
  if (json) fs.writeFileSync(json, JSON.stringify(rows, null, 1));
  return rows;
}
