/**
 * One take through `kind cleanup` (Node side, no writing): read a BVH, get contact probabilities
 * (./contactSource.ts), clean it (src/cleanup `cleanupClip`), and render the three outputs as text:
 * the cleaned BVH in the input's own layout, cleanup.json and cleanup.html. Used by the command, by
 * its worker threads (--batch) and by the benchmark. The writing (all or nothing) is in ./cleanup.ts.
 */
import * as path from 'node:path';
import { CleanupError, type CleanupResult, cleanupClip, legBones } from '../cleanup';
import {
  buildCleanupFile,
  type CleanupFile,
  changedFrames,
  cleanupFileToJson,
  cleanupSeries,
} from '../cleanup-report';
import { renderCleanupHtml } from '../cleanup-report/html';
import { type Clip, withHumanoid } from '../core';
import { type BvhParseResult, parseBvh, writeBvh } from '../io/bvh';
import { autoMapHumanoid } from '../io/humanoidMap';
import { readInput } from '../io/node';
import { type ContactModelName, type ContactSource, contactSource } from './contactSource';
import { loadChartAssets } from './qa';
import { checkClipValues, clipFileStem } from './retarget';

/** `x.toFixed(digits)` without a minus sign on a value that rounds to zero (`-0.000` -> `0.000`). */
function fixedNoNegativeZero(x: number, digits: number): string {
  const t = x.toFixed(digits);
  return /^-0(\.0*)?$/.test(t) ? t.slice(1) : t;
}

export const DEFAULT_REVIEW_BAND: [number, number] = [0.45, 0.65];

/** One take to clean. */
export interface CleanupJob {
  input: string;
  model: ContactModelName;
  modelFile?: string;
  rootCorrection?: boolean;
  reviewBand?: [number, number];
  /** Output BVH path (written into cleanup.json; the file itself is written by the caller). */
  outBvh: string;
}

export interface CleanupOutcome {
  file: CleanupFile;
  bvh: string;
  json: string;
  html: string;
}

/** Stages reported through `onStage` (for a progress bar). */
export const CLEANUP_STAGES = ['read', 'contacts', 'clean', 'report'] as const;

/**
 * Read a BVH file for cleanup: the clip with its humanoid map, the layout, unit and raw channel values
 * (to write the result back in the same layout).
 * @throws Error naming the file (and line, bone or frame): not a .bvh, a malformed file (the reader's
 *   `file:line: ...`), no legs or feet in the humanoid map, fewer than 2 frames, non-finite values.
 */
export function readTake(file: string): { clip: Clip; parsed: BvhParseResult } {
  if (path.extname(file).toLowerCase() !== '.bvh')
    throw new Error(`${file}: not a BVH file (kind cleanup reads .bvh motion capture)`);
  const bytes = readInput(file);
  const parsed = parseBvh(bytes, { fileName: path.basename(file), keepChannelValues: true });
  const map = autoMapHumanoid(parsed.clip.skeleton, { fileName: path.basename(file) });
  const clip: Clip = { ...parsed.clip, skeleton: withHumanoid(parsed.clip.skeleton, map.humanoid) };
  try {
    legBones(clip.skeleton, 'left');
    legBones(clip.skeleton, 'right');
  } catch (e) {
    throw new Error(`${file}: no feet found: ${(e as Error).message}`);
  }
  if (clip.frameCount < 2)
    throw new Error(`${file}: ${clip.frameCount} frame; foot cleanup needs at least 2 frames`);
  checkClipValues(file, clip);
  return { clip, parsed };
}

/**
 * The cleaned clip as BVH text in the input's layout (hierarchy, channels and their order, rotation
 * orders, unit, frame count and Frame Time). Frames the cleanup did not touch are written with the
 * input's own channel values, so they read back exactly as the input's; on the frames it touched, so are
 * the channels of every joint whose local rotation and translation it did not change (only the legs, and
 * the hips with root correction, are recomputed): their values are not passed through the clip's float32
 * rotations and back (126.771 stays 126.771, not 126.771025).
 */
export function writeCleanedBvh(parsed: BvhParseResult, out: Clip, changed: Uint8Array): string {
  const text = writeBvh(out, {
    layout: parsed.layout,
    unitScale: parsed.unitScale,
    reference: parsed.channelValues,
  });
  const values = parsed.channelValues;
  if (!values) return text;
  const lines = text.split('\n');
  const ft = lines.findIndex((l) => l.startsWith('Frame Time:'));
  const C = values.length / out.frameCount;
  const src = parsed.clip;
  const joints = parsed.layout.joints;
  // channel range of each joint in a frame row (layout joint i is skeleton bone i for a BVH-read clip)
  const first = new Int32Array(joints.length);
  for (let j = 0, k = 0; j < joints.length; j++) {
    first[j] = k;
    k += joints[j].channels.length;
  }
  const sameBones =
    joints.length === src.skeleton.boneCount && joints.every((j, i) => j.name === src.skeleton.names[i]);
  const n = src.skeleton.boneCount;
  for (let f = 0; f < out.frameCount; f++) {
    if (!changed[f]) {
      const row: string[] = new Array(C);
      for (let k = 0; k < C; k++) row[k] = String(values[f * C + k]);
      lines[ft + 1 + f] = row.join(' ');
      continue;
    }
    if (!sameBones) continue;
    const row = lines[ft + 1 + f].split(' ');
    if (row.length !== C) continue;
    for (let j = 0; j < n; j++) {
      // per channel: rotation channels when the joint's rotation is unchanged, a position channel when its
      // axis of the translation is (root correction moves the hips horizontally only)
      let rotSame = true;
      for (let k = 4 * (f * n + j); rotSame && k < 4 * (f * n + j) + 4; k++)
        rotSame = out.rotations[k] === src.rotations[k];
      const t = 3 * (f * n + j);
      joints[j].channels.forEach((ch, c) => {
        const axis = ch === 'Xposition' ? 0 : ch === 'Yposition' ? 1 : ch === 'Zposition' ? 2 : -1;
        const same = axis < 0 ? rotSame : out.translations[t + axis] === src.translations[t + axis];
        if (same) row[first[j] + c] = String(values[f * C + first[j] + c]);
      });
    }
    lines[ft + 1 + f] = row.join(' ');
  }
  return lines.join('\n');
}

/**
 * Clean one take: read, contacts, cleanup, the three outputs as text.
 * @throws Error naming the file for bad input (see {@link readTake}), a contact model that cannot be
 *   used, or a cleanup error (src/cleanup `CleanupError`, prefixed with the file).
 */
export async function cleanTake(
  job: CleanupJob,
  options: {
    source?: ContactSource;
    /** Called as each stage starts (index into CLEANUP_STAGES) with the take's frame count (0 before it is read). */
    onStage?: (stage: number, frames: number) => void;
    html?: boolean;
  } = {},
): Promise<CleanupOutcome & { result: CleanupResult; source: Clip }> {
  const stage = options.onStage ?? (() => {});
  stage(0, 0);
  const { clip, parsed } = readTake(job.input);
  const F = clip.frameCount;
  stage(1, F);
  const detect = options.source ?? contactSource({ model: job.model, modelFile: job.modelFile });
  const est = await detect(clip);
  stage(2, F);
  const reviewBand = job.reviewBand ?? DEFAULT_REVIEW_BAND;
  let result: CleanupResult;
  try {
    result = cleanupClip(
      { clip, probabilities: { left: est.left, right: est.right }, points: est.points, floor: est.floor },
      { reviewBand, rootCorrection: job.rootCorrection ?? false },
    );
  } catch (e) {
    if (e instanceof CleanupError) throw new Error(`${job.input}: ${e.message}`);
    throw e;
  }
  stage(3, F);
  const warnings: string[] = [];
  const root = parsed.layout.joints.find((j) => j.parent < 0);
  if (root && !root.channels.some((c) => c.endsWith('position')))
    warnings.push(
      `the root joint ${root.name} has no position channels (an in-place take): the body does not travel, so feet that walk in place slide by design and are pinned in the take's own space; clean the take with its root motion instead`,
    );
  for (const foot of ['left', 'right'] as const) {
    if (result.feet[foot].segments.length === 0)
      warnings.push(`the ${foot} foot has no contact segment: nothing was pinned on that side`);
    for (const w of result.metrics.after[foot].warnings)
      warnings.push(`${foot} foot after cleanup: ${w} over its threshold`);
  }
  const file = buildCleanupFile({
    input: job.input,
    output: job.outBvh,
    source: clip,
    result,
    model: est.model,
    modelFile: job.model === 'learned' ? job.modelFile : undefined,
    reviewBand,
    rootCorrection: job.rootCorrection ?? false,
    warnings,
    unitScale: parsed.unitScale,
  });
  const changed = changedFrames(clip, result.clip);
  const bvh = writeCleanedBvh(parsed, result.clip, changed);
  const json = cleanupFileToJson(file);
  const html =
    options.html === false ? '' : renderCleanupHtml(file, cleanupSeries(clip, result), loadChartAssets());
  return { file, bvh, json, html, result, source: clip };
}

/** File stem of a take's outputs. */
export function takeStem(input: string): string {
  return clipFileStem(path.basename(input, path.extname(input)));
}

const pct = (a: number, b: number) => (a > 0 ? `${(100 * (1 - b / a)).toFixed(0)}% less` : 'n/a');

/** Frames (both feet) whose pinned point is `code` (1 heel, 2 toe). */
const pinned = (f: CleanupFile, code: number) =>
  f.feet.left.pin.filter((p) => p === code).length + f.feet.right.pin.filter((p) => p === code).length;

/** A few lines about one cleaned take. */
export function formatCleanupSummary(f: CleanupFile, written: string[]): string {
  const lines: string[] = [];
  lines.push(
    `cleaned '${f.clip}' (${f.frames} frames at ${f.fps.toFixed(3)} fps; contacts: ${f.model}; floor ${f.floor.method} at ${fixedNoNegativeZero(f.floor.height, 3)} m): ` +
      `${f.feet.left.segments.length} left and ${f.feet.right.segments.length} right contact segments ` +
      `(heel ${f.feet.left.heel.segments.length}/${f.feet.right.heel.segments.length}, toe ${f.feet.left.toe.segments.length}/${f.feet.right.toe.segments.length}; ` +
      `toe pinned on ${pinned(f, 2)} frames, heel on ${pinned(f, 1)}), ${f.framesChanged} frames changed`,
  );
  if (f.ground?.note)
    lines.push(
      `  ground: ${f.ground.note} (levels ${f.ground.levels.map((l) => `${(l.height * 100).toFixed(1)}`).join(', ')} cm above the floor); penetration measured against each contact's own ground`,
    );
  for (const foot of ['left', 'right'] as const) {
    const b = f.metrics.before[foot];
    const a = f.metrics.after[foot];
    lines.push(
      `  ${foot} foot: supporting point's slide in contact ${(b.pinnedSlide * 100).toFixed(1)} -> ${(a.pinnedSlide * 100).toFixed(1)} cm (${pct(b.pinnedSlide, a.pinnedSlide)}; ` +
        `heel ${(b.slideHeel * 100).toFixed(1)} -> ${(a.slideHeel * 100).toFixed(1)}, toe ${(b.slideToe * 100).toFixed(1)} -> ${(a.slideToe * 100).toFixed(1)}), ` +
        `ankle ${(b.slideTotal * 100).toFixed(1)} -> ${(a.slideTotal * 100).toFixed(1)} cm, ` +
        `speed S ${b.meanContactSpeed.toFixed(3)} -> ${a.meanContactSpeed.toFixed(3)} m/s, ` +
        `penetration ${(b.penetrationMax * 100).toFixed(1)} -> ${(a.penetrationMax * 100).toFixed(1)} cm, ` +
        `skating ${b.skatingRatio.toFixed(3)} -> ${a.skatingRatio.toFixed(3)}, ` +
        `IK knee max ${f.ik[foot].knee.maxDeg.toFixed(1)} deg, ${f.ik[foot].kneePops} knee pops`,
    );
  }
  const t = f.transitions;
  lines.push(
    `  transitions: blends of at least ${t.blendSeconds.toFixed(2)} s (${t.rampFrames} frames), correction at most ${t.maxCorrectionSpeed.toFixed(2)} m/s (${(t.stepLimit * 100).toFixed(1)} cm per frame); ` +
      `largest leg-joint step beyond the source's ${(Math.max(t.maxStepExcess.left, t.maxStepExcess.right) * 100).toFixed(1)} cm (bound ${(t.maxJointStep * 100).toFixed(1)}), pin eased on ${t.eased.left + t.eased.right} frames`,
  );
  lines.push(
    `  review: ${
      f.review.length === 0
        ? 'nothing'
        : f.review
            .map((r) => `${r.foot} ${r.start}-${r.end - 1} ${r.reason ?? 'reviewBand'}`)
            .slice(0, 6)
            .join(', ') + (f.review.length > 6 ? `, ... (${f.review.length} in cleanup.json)` : '')
    }; ` +
      `${
        f.short.length > 0
          ? `short contacts not fixed: ${f.short
              .map((r) => `${r.foot} ${r.start}-${r.end - 1}`)
              .slice(0, 4)
              .join(', ')}${f.short.length > 4 ? ', ...' : ''}; `
          : ''
      }IK limits: ${
        f.limits.length === 0
          ? 'none'
          : f.limits
              .map((r) => `${r.foot} ${r.start}-${r.end - 1} ${r.kind}`)
              .slice(0, 4)
              .join(', ') + (f.limits.length > 4 ? ', ...' : '')
      }`,
  );
  for (const w of f.warnings.slice(0, 4)) lines.push(`  note: ${w}`);
  lines.push(`  wrote ${written.join(', ')}`);
  return lines.join('\n');
}
