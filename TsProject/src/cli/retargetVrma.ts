/**
 * `kind retarget <take> --vrma [out.vrma]`: the take as a VRM Animation (`.vrma`,
 * VRMC_vrm_animation-1.0), no avatar needed. The take is retargeted (src/retarget `retargetClip`, the
 * same calibration as `kind retarget`) onto the `.vrma` rest skeleton built from its own proportions in
 * the VRM T-pose (src/io/vrmaRest.ts), and written with src/io/vrmaWrite.ts, atomically.
 */
import * as path from 'node:path';
import { type Clip, clipDuration, clipFps, forwardKinematics, HumanBodyBones as H, readFrame } from '../core';
import { GltfError } from '../io/gltf';
import { type LoadedSource, loadSource } from '../io/node';
import { interruptPoint } from '../io/node/interrupt';
import { VrmaError, vrmaRestSkeleton, writeVrma } from '../io/vrma';
import {
  alignRoots,
  estimateContactHeight,
  nearestAxis,
  poseGeometry,
  type RetargetClipOptions,
  RetargetError,
  retargetClip,
  type UpAxis,
  upAxisRotation,
} from '../retarget';
import { ensureOutputDir, refuseOverwritingInputs, writeFilesAtomically } from './files';
import { overrideArgument } from './jsonArgument';
import { checkClipValues, clipFileStem } from './retarget';

/** What a VRM Animation leaves out, said on every run (and in the docs). */
export const VRMA_LEFT_OUT =
  "expressions and lookAt (optional in VRMC_vrm_animation; a take carries no face or gaze: the eyes follow the head); upperChest (the take's spine goes onto spine and chest, so an avatar without one loses nothing)";

export interface VrmaCommandOptions {
  source: string;
  /** The `.vrma` to write; default `<outDir>/<clip stem>.vrma`. */
  vrma?: string;
  outDir: string;
  clip?: string;
  fps?: number;
  /** `--source-map`: inline JSON or a JSON file. */
  sourceMap?: string;
  sourceUp?: UpAxis;
  sourceUnit?: number;
  fromFrame?: number;
  /** Source path as the summary names it (default `source`), when `source` is a staged copy. */
  sourceName?: string;
  onProgress?: (done: number, total: number) => void;
}

export interface VrmaSummary {
  tool: string;
  source: { file: string; format: string; clip: string; bones: number; unit?: string; up: string };
  /** VRM humanoid bone names written, in node order. */
  humanBones: string[];
  frames: number;
  fps: number;
  durationSeconds: number;
  /** Hips height of the `.vrma` rest (metres): VRM players scale the hips path by their avatar's over this. */
  restHipsHeightM: number;
  bytes: number;
  output: string;
  leftOut: string;
  warnings: string[];
}

/**
 * The take in `o.source` as `.vrma` bytes and its summary, nothing written: load (BVH, glTF/VRM clip,
 * or a `.vrma`), retarget onto {@link vrmaRestSkeleton} (calibration as `kind retarget`: T reference,
 * hips 'scaled', ground contact; the rest skeleton has the take's own segment lengths, so the hips path
 * is scaled by about 1), write with `writeVrma`.
 * @throws Error naming the file for unreadable input, a take without the VRM required bones, or a
 * calibration failure.
 */
export async function buildVrma(
  o: VrmaCommandOptions,
): Promise<{ bytes: Uint8Array; clip: Clip; summary: Omit<VrmaSummary, 'output'> }> {
  const source: LoadedSource = await loadSource(o.source, {
    clipName: o.clip,
    fps: o.fps,
    override: overrideArgument('--source-map', o.sourceMap),
    unitScale: o.sourceUnit ?? 'auto',
  });
  await interruptPoint();
  const take = source.clip;
  checkClipValues(o.source, take);
  const base = path.basename(o.source);
  const cf = o.fromFrame ?? 0;
  if (o.fromFrame !== undefined && (!Number.isInteger(cf) || cf < 0 || cf >= take.frameCount))
    throw new Error(`--from-frame ${cf}: the clip has frames 0..${take.frameCount - 1}`);
  let rest: ReturnType<typeof vrmaRestSkeleton>;
  try {
    rest = vrmaRestSkeleton(take.skeleton, takeOnFloor(take, cf, o.sourceUp ?? 'auto'));
  } catch (e) {
    if (e instanceof VrmaError) throw new Error(`${base}: ${e.message}`);
    throw e;
  }
  const options: RetargetClipOptions = {
    hipsMode: 'scaled',
    referencePose: 'T',
    sourceReference: o.fromFrame !== undefined ? { asIs: true } : 'auto',
    sourceUp: o.sourceUp ?? 'auto',
    calibrationFrame: cf,
    groundContact: true,
    onProgress: o.onProgress,
  };
  let result: ReturnType<typeof retargetClip>;
  try {
    result = retargetClip(take, rest, options);
  } catch (e) {
    if (e instanceof RetargetError) throw new Error(`${base} onto the VRM T-pose: ${e.message}`);
    throw e;
  }
  await interruptPoint();
  const clip = result.clip;
  checkClipValues(`the VRM Animation clip (from ${base})`, clip);
  let bytes: Uint8Array;
  try {
    bytes = await writeVrma(clip, { fileName: base, generator: 'KindRetargeting kind retarget --vrma' });
  } catch (e) {
    if (e instanceof GltfError) throw new Error(e.message);
    throw e;
  }
  const info = result.retargeter.info!;
  const warnings = source.warnings.filter((w) => !/^Missing optional extension/.test(w));
  if (info.sourceUp !== info.detectedSourceUp)
    warnings.push(
      `--source-up ${info.sourceUp}, but in the calibration frame the source's hips -> head points along ${info.detectedSourceUp}`,
    );
  const missing = source.mapping.missingOptional.filter((b) => !/^(LeftEye|RightEye|UpperChest)$/.test(b));
  if (missing.length > 0)
    warnings.push(
      `the take has no ${missing.length} optional humanoid bone(s) (${missing.slice(0, 4).join(', ')}${missing.length > 4 ? ', ...' : ''}): not in the VRM Animation`,
    );
  return {
    bytes,
    clip,
    summary: {
      tool: 'kind retarget --vrma',
      source: {
        file: o.sourceName ?? o.source,
        format: source.format,
        clip: take.name,
        bones: take.skeleton.boneCount,
        unit: source.unit,
        up: info.sourceUp,
      },
      humanBones: [...rest.names],
      frames: clip.frameCount,
      fps: clipFps(clip),
      durationSeconds: clipDuration(clip),
      restHipsHeightM: rest.restTranslations[1],
      bytes: bytes.length,
      leftOut: VRMA_LEFT_OUT,
      warnings,
    },
  };
}

/**
 * How the take stands on the floor, for the `.vrma` rest (vrmaRest.ts): the ankle height with a foot
 * on the floor (`estimateContactHeight`, src/retarget, metres) and the foot's pitch there: the median
 * over the frames where an ankle is within 2 cm of that height of the angle of its foot -> toes below
 * the horizontal (radians; undefined without toes or such frames). The up axis is `up`, or, for
 * 'auto', the axis nearest hips -> head in frame `cf` (as the retargeter's calibration finds it).
 * A flat foot of the take is then the T-pose rest of the `.vrma` foot, which VRM players take as flat.
 */
export function takeOnFloor(take: Clip, cf: number, up: UpAxis): { ankleHeight: number; footDrop?: number } {
  const sk = take.skeleton;
  const n = sk.boneCount;
  const lr = new Float64Array(4 * n);
  const lp = new Float64Array(3 * n);
  const wr = new Float64Array(4 * n);
  const wp = new Float64Array(3 * n);
  let axis = up;
  if (axis === 'auto') {
    readFrame(take, cf, lr, lp);
    const p = poseGeometry(sk, lr, lp).positions;
    const a = 3 * sk.humanoid[H.Hips];
    const b = 3 * sk.humanoid[H.Head];
    axis = nearestAxis([p[b] - p[a], p[b + 1] - p[a + 1], p[b + 2] - p[a + 2]]);
  }
  const align = upAxisRotation(axis);
  const ankleHeight = estimateContactHeight(take, align);
  const drops: number[] = [];
  for (let f = 0; f < take.frameCount; f++) {
    readFrame(take, f, lr, lp);
    alignRoots(sk, lr, lp, align);
    forwardKinematics(sk, lr, lp, wr, wp);
    for (const [foot, toes] of [
      [H.LeftFoot, H.LeftToes],
      [H.RightFoot, H.RightToes],
    ]) {
      const a = sk.humanoid[foot];
      const t = sk.humanoid[toes];
      if (a < 0 || t < 0 || wp[3 * a + 1] > ankleHeight + 0.02) continue;
      const dx = wp[3 * t] - wp[3 * a];
      const dy = wp[3 * t + 1] - wp[3 * a + 1];
      const dz = wp[3 * t + 2] - wp[3 * a + 2];
      const len = Math.hypot(dx, dy, dz);
      if (len > 1e-6) drops.push(Math.asin(Math.max(-1, Math.min(1, -dy / len))));
    }
  }
  if (drops.length === 0) return { ankleHeight };
  drops.sort((x, y) => x - y);
  return { ankleHeight, footDrop: drops[Math.floor(drops.length / 2)] };
}

/** The default output path: `<outDir>/<clip stem>.vrma`. */
export function defaultVrmaPath(outDir: string, clipName: string): string {
  return path.join(outDir, `${clipFileStem(clipName)}.vrma`);
}

/**
 * Run `kind retarget <take> --vrma [out.vrma]`: {@link buildVrma}, then write the file atomically
 * (temp + rename; an interrupt before the rename leaves no file and any earlier one untouched).
 * @throws Error when the output would overwrite the source, or as {@link buildVrma}.
 */
export async function runRetargetVrma(o: VrmaCommandOptions): Promise<VrmaSummary> {
  if (o.vrma !== undefined && !/\.vrma$/i.test(o.vrma))
    throw new Error(`--vrma ${o.vrma}: the output must end in .vrma`);
  const built = await buildVrma(o);
  const out = o.vrma ?? defaultVrmaPath(o.outDir, built.clip.name);
  refuseOverwritingInputs(
    [out],
    [
      { role: 'source', path: o.source },
      ...(o.sourceMap !== undefined ? [{ role: '--source-map file', path: o.sourceMap }] : []),
    ],
  );
  await interruptPoint(); // nothing is written once interrupted
  ensureOutputDir(path.dirname(out));
  writeFilesAtomically([{ path: out, data: built.bytes }]);
  return { ...built.summary, output: out };
}

/** A few human lines about a `.vrma` run. */
export function formatVrmaSummary(s: VrmaSummary): string {
  const fingers = s.humanBones.filter((b) => /Thumb|Index|Middle|Ring|Little/.test(b)).length;
  const lines = [
    `VRM Animation of '${s.source.clip}' (${s.source.format}, ${s.source.bones} bones${s.source.unit ? `, ${s.source.unit}` : ''}): ${s.humanBones.length} humanoid bones (${fingers} finger joints), source up ${s.source.up}`,
    `  ${s.frames} frames at ${s.fps.toFixed(3)} fps (${s.durationSeconds.toFixed(2)} s); rotations relative to the VRM T-pose, hips translation; rest hips height ${s.restHipsHeightM.toFixed(3)} m`,
    `  left out: ${s.leftOut}`,
  ];
  for (const w of s.warnings.slice(0, 5)) lines.push(`  note: ${w}`);
  lines.push(`  wrote ${s.output} (${s.bytes} bytes)`);
  return lines.join('\n');
}
