/**
 * `kind retarget`: retarget a source clip onto an avatar and write `<clip>.glb`, `<clip>.bvh` and
 * `summary.json` (atomically) into the output folder.
 */
import * as path from 'node:path';
import { CleanupError, type CleanupResult, cleanupClip, type FootName } from '../cleanup';
import { changedFrames } from '../cleanup-report';
import {
  type Clip,
  clipDuration,
  clipFps,
  createClip,
  HumanBodyBones as H,
  HUMAN_BONE_NAMES,
  readFrame,
  type Skeleton,
  scaleSubtrees,
  writeFrame,
} from '../core';
import { writeBvh } from '../io/bvh';
import { type Avatar, writeRetargetedGlb } from '../io/gltf';
import type { HumanoidMapResult } from '../io/humanoidMap';
import { type LoadedSource, loadAvatar, loadSource } from '../io/node';
import { interruptPoint } from '../io/node/interrupt';
import {
  armDeviationFromPose,
  estimateContactHeight,
  type HipsMode,
  measureQuality,
  poseGeometry,
  type QualityReport,
  type ReferencePoseKind,
  type RetargetClipOptions,
  RetargetError,
  Retargeter,
  retargetClip,
  type UpAxis,
  upAxisRotation,
} from '../retarget';
import { HubError, type IKWeightMode, type IkFigures, IkQuality, RetargetHub } from '../rig';
import { type ContactModelName, contactSource } from './contactSource';
import {
  checkOutputDir,
  ensureOutputDir,
  type OutputFile,
  refuseOverwritingInputs,
  writeFilesAtomically,
} from './files';
import { overrideArgument } from './jsonArgument';

export interface RetargetCommandOptions {
  source: string;
  avatar: string;
  outDir: string;
  clip?: string;
  fps?: number;
  /** Calibrate on this source frame taken as the performer's reference pose (as is). */
  fromFrame?: number;
  pose?: ReferencePoseKind;
  /** `--map`: inline JSON or a JSON file (src/cli/jsonArgument.ts). */
  map?: string;
  /** `--source-map`: inline JSON or a JSON file. */
  sourceMap?: string;
  scale?: number;
  hips?: HipsMode;
  sourceUp?: UpAxis;
  sourceUnit?: number;
  headOffset?: [number, number, number];
  headScale?: number;
  /** Shoulder (clavicle) twist: 'keep' (default) or 'drop' (RetargetOptions.shoulderTwist). */
  shoulderTwist?: 'keep' | 'drop';
  /** 'contact' (default): hips height measured from the source's floor contact level; 'origin': floors at y = 0. */
  ground?: 'contact' | 'origin';
  /**
   * `--avatar-pose`: 't-pose' (default) calibrates on the avatar's rest straightened into the canonical
   * T-pose; 'rest' takes its rest as its T-pose as authored (RetargetOptions.targetReference 'rest'),
   * as VRM players do with a VRM avatar. Not with `ik`.
   */
  avatarPose?: 't-pose' | 'rest';
  /**
   * Run the live hub frame by frame with IK (targets: the source's hands and feet): 'auto' (the hub's
   * limb weights decide per frame and limb: arms when the hands meet or touch a prop, legs when the
   * feet are near the floor), 'on' (all four limbs always). 'off' or absent: the plain retarget.
   */
  ik?: IKWeightMode;
  /**
   * Clean the feet on the avatar before writing (`--cleanup`): contact probabilities of the retargeted
   * clip (./contactSource.ts, this model), then src/cleanup `cleanupClip`; the figures go to summary.json.
   */
  cleanup?: { model: ContactModelName; modelFile?: string };
  onProgress?: (done: number, total: number) => void;
  /**
   * When `outDir` is a staging folder that the caller moves into place afterwards (kind mocap's
   * all-or-nothing set): the final folder, named in summary.json and the returned summary instead.
   */
  finalOutDir?: string;
  /** The source's path as summary.json names it (default `source`), when `source` is a staged copy. */
  sourceName?: string;
}

export interface RetargetSummary {
  tool: string;
  source: {
    file: string;
    format: string;
    clip: string;
    bones: number;
    unit?: string;
    up: string;
    humanoid: Record<string, string>;
    missingOptional: string[];
    clips?: string[];
  };
  target: {
    file: string;
    format: string;
    bones: number;
    humanoid: Record<string, string>;
    missingOptional: string[];
    /** Mesh nodes bound to the skeleton by a skin (0: the animation deforms no mesh). */
    skinnedMeshes: number;
  };
  frames: number;
  fps: number;
  frameTime: number;
  durationSeconds: number;
  calibration: {
    reference: string;
    pose: ReferencePoseKind;
    calibrationFrame: number;
    hipsMode: HipsMode;
    ground: 'contact' | 'origin';
    sourceContactHeightM: number;
    targetContactHeightM: number;
    sourceHipsHeightM: number;
    targetHipsHeightM: number;
    /** Scale on the source hips path ('scaled' mode; null in 'room' mode). */
    hipsScale: number | null;
    /** Height added to the source hips ('room' mode; null in 'scaled' mode), metres. */
    roomLiftM: number | null;
    avatarScale: number;
    headScale: number;
    headRotationOffsetDeg: [number, number, number];
    /** 'keep' or 'drop' (--shoulder-twist). */
    shoulderTwist: 'keep' | 'drop';
    /** With --avatar-pose rest: 'rest' (the avatar's rest taken as its T-pose as authored). */
    avatarPose?: 'rest';
  };
  quality: QualityReport;
  /**
   * With --ik auto|on: the mode, and per limb the frames with IK weight above 0, the end-effector error
   * over those frames and the bend-plane flips (see src/rig/ikQuality.ts).
   */
  ik?: { mode: IKWeightMode } & IkFigures;
  /** With --cleanup: the foot-slide cleanup on the avatar (per foot, metrics before/after; src/cleanup). */
  cleanup?: {
    model: string;
    segments: Record<FootName, number>;
    framesChanged: number;
    review: number;
    limits: number;
    metrics: CleanupResult['metrics'];
    ik: CleanupResult['ik'];
    /**
     * The supporting point's slide in contact (heel or toe, whichever is pinned), both feet pooled,
     * before and after, metres: `total` = `heel` + `toe` (the metrics' `pinnedSlide`, `slideHeel`,
     * `slideToe` summed over the feet), as `kind cleanup` prints it.
     */
    supportingSlide: Record<'before' | 'after', { total: number; heel: number; toe: number }>;
  };
  outputs: { glb: string; bvh: string; summary: string };
  warnings: string[];
}

function humanoidNames(mapping: HumanoidMapResult, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  mapping.humanoid.forEach((b, h) => {
    if (b >= 0) out[HUMAN_BONE_NAMES[h]] = names[b];
  });
  return out;
}

/** The supporting point's slide of both feet pooled, before and after (summary.json `cleanup.supportingSlide`). */
export function supportingSlide(
  metrics: CleanupResult['metrics'],
): NonNullable<RetargetSummary['cleanup']>['supportingSlide'] {
  const pool = (w: 'before' | 'after') => {
    const l = metrics[w].left;
    const r = metrics[w].right;
    return {
      total: l.pinnedSlide + r.pinnedSlide,
      heel: l.slideHeel + r.slideHeel,
      toe: l.slideToe + r.slideToe,
    };
  };
  return { before: pool('before'), after: pool('after') };
}

/** Safe file stem for the output files, from the clip name. */
export function clipFileStem(name: string): string {
  const s = name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '');
  return s.length > 0 ? s : 'clip';
}

/**
 * The sampling rates `--fps` accepts (`kind retarget`, `kind qa`), frames per second. Below 1 fps a
 * resampled clip keeps one pose per second or fewer (0.0001 fps: two frames 10 000 s apart), which is
 * no animation; above 1000 fps no capture or game runs.
 */
export const FPS_RANGE = { min: 1, max: 1000, text: 'at least 1, at most 1000 frames per second' } as const;

/** Whether `fps` is within {@link FPS_RANGE}. */
export function fpsInRange(fps: number): boolean {
  return fps >= FPS_RANGE.min && fps <= FPS_RANGE.max;
}

/** Translations beyond this, in metres, are taken as a unit or data error (10 km). */
const MAX_TRANSLATION = 1e4;

/**
 * Every rotation finite and non-zero and every translation finite and within 10 km, else an error
 * naming the place: `walk.bvh: frame index 5 (0-based) bone 'Hips': translation 1e+298 m is out of range`.
 */
export function checkClipValues(where: string, clip: Clip): void {
  const n = clip.skeleton.boneCount;
  const r = clip.rotations;
  const t = clip.translations;
  for (let f = 0; f < clip.frameCount; f++) {
    for (let b = 0; b < n; b++) {
      const o = f * n + b;
      const len = r[4 * o] ** 2 + r[4 * o + 1] ** 2 + r[4 * o + 2] ** 2 + r[4 * o + 3] ** 2;
      const place = `${where}: frame index ${f} (0-based) bone '${clip.skeleton.names[b]}'`;
      if (!(len > 1e-12) || !Number.isFinite(len))
        throw new Error(`${place}: rotation is not a valid quaternion`);
      for (let c = 0; c < 3; c++) {
        const v = t[3 * o + c];
        if (!Number.isFinite(v) || Math.abs(v) > MAX_TRANSLATION) {
          const shown = Number.isFinite(v)
            ? `${v} m`
            : 'too large to represent (the value in the file overflows)';
          throw new Error(
            `${place}: translation ${shown} is out of range (beyond 10 km: check the units, --source-unit)`,
          );
        }
      }
    }
  }
}

/**
 * The live hub over a whole clip, frame by frame: the clip on the target and the IK figures.
 * `ik`: the hub's IK weight mode ('auto': its LimbWeights per frame and limb; 'on': all four limbs
 * always; 'off': none). Calibration, hips mode, scales and ground contact as for the plain retarget.
 */
export function runHub(
  clip: Clip,
  target: Skeleton,
  options: RetargetClipOptions,
  ik: IKWeightMode = 'auto',
): { clip: Clip; retargeter: Retargeter; ik: IkFigures } {
  const cf = options.calibrationFrame ?? 0;
  const ns = clip.skeleton.boneCount;
  const fr = new Float64Array(4 * ns);
  const fp = new Float64Array(3 * ns);
  readFrame(clip, cf, fr, fp);
  let contact: number | undefined;
  if (options.groundContact) {
    const probe = new Retargeter(clip.skeleton, target, { sourceUp: options.sourceUp });
    probe.calibrate({ rotations: fr, translations: fp });
    contact = estimateContactHeight(clip, upAxisRotation(probe.info!.sourceUp));
  }
  const hub = new RetargetHub(clip.skeleton, target, {
    ik,
    hipsMode: options.hipsMode ?? 'scaled',
    sourceUp: options.sourceUp,
    sourceContactHeight: contact,
    shoulderTwist: options.shoulderTwist,
    settings: {
      avatarScale: options.avatarScale ?? 1,
      headScale: options.headScale ?? 1,
      headRotationOffset: options.headRotationOffset ?? [0, 0, 0],
    },
  });
  const frame = { rotations: fr, translations: fp };
  if (typeof options.sourceReference === 'object') hub.calibrateOnFrame(frame, options.referencePose ?? 'T');
  else hub.calibrate(frame);
  const out = createClip(target, clip.frameCount, clip.frameTime, clip.name);
  const ikq = new IkQuality(clip.skeleton, hub);
  const every = options.progressEvery ?? 100;
  for (let f = 0; f < clip.frameCount; f++) {
    readFrame(clip, f, fr, fp);
    hub.update(fr, fp, f === 0 ? 0 : clip.frameTime);
    writeFrame(out, f, hub.localRotations, hub.localTranslations);
    ikq.add();
    if (options.onProgress && (f % every === every - 1 || f === clip.frameCount - 1))
      options.onProgress(f + 1, clip.frameCount);
  }
  return { clip: out, retargeter: hub.retargeter, ik: ikq.result() };
}

/**
 * The warning for an avatar whose meshes no skin binds to the skeleton (null when some mesh is
 * skinned): the animation deforms nothing; meshes hanging from bones move rigidly with them.
 */
export function skinlessNote(avatar: Avatar): string | null {
  if (avatar.meshes.skinned > 0) return null;
  const onBones = avatar.meshes.rigid.filter((m) => m.bone !== null);
  const bones = [...new Set(onBones.map((m) => m.bone))];
  const shown = bones.slice(0, 4).join(', ') + (bones.length > 4 ? ', ...' : '');
  return `the avatar has no skin (no mesh is bound to its skeleton): the animation deforms nothing; ${
    onBones.length > 0
      ? `only the ${onBones.length} mesh node(s) hanging from bones (${shown}) move, rigidly`
      : 'nothing visible will move'
  }`;
}

/** Run the retarget job; returns the summary (also written as summary.json). */
export async function runRetarget(o: RetargetCommandOptions): Promise<RetargetSummary> {
  checkOutputDir(o.outDir);
  const source: LoadedSource = await loadSource(o.source, {
    clipName: o.clip,
    fps: o.fps,
    override: overrideArgument('--source-map', o.sourceMap),
    unitScale: o.sourceUnit ?? 'auto',
  });
  const avatar: Avatar = await loadAvatar(o.avatar, overrideArgument('--map', o.map));
  await interruptPoint(); // an interrupt during loading stops here, before the computation
  const clip = source.clip;
  const calibrationFrame = o.fromFrame ?? 0;
  if (
    o.fromFrame !== undefined &&
    (!Number.isInteger(o.fromFrame) || o.fromFrame < 0 || o.fromFrame >= clip.frameCount)
  ) {
    throw new Error(`--from-frame ${o.fromFrame}: the clip has frames 0..${clip.frameCount - 1}`);
  }
  checkClipValues(o.source, clip);
  const ignored: string[] = [];
  if (o.fps !== undefined && source.format === 'bvh')
    ignored.push('--fps applies to glTF/VRM source clips; a BVH keeps its own Frame Time');
  if (o.sourceUnit !== undefined && source.format !== 'bvh')
    ignored.push('--source-unit applies to BVH sources; glTF/VRM are in metres');
  const headScale = o.headScale ?? 1;
  if (!(headScale > 0)) throw new Error(`--head-scale ${headScale}: need a positive number`);
  const notes: string[] = ignored.map((w) => `ignored: ${w}`);
  const avatarAtRest = o.avatarPose === 'rest';
  if (avatarAtRest && o.ik !== undefined && o.ik !== 'off')
    throw new Error('--avatar-pose rest: not with --ik yet (the hub calibrates on the straightened T-pose)');
  const options: RetargetClipOptions = {
    hipsMode: o.hips ?? 'scaled',
    referencePose: o.pose ?? 'T',
    sourceReference: o.fromFrame !== undefined ? { asIs: true } : 'auto',
    sourceUp: o.sourceUp ?? 'auto',
    avatarScale: o.scale ?? 1,
    headRotationOffset: o.headOffset ?? [0, 0, 0],
    headScale,
    shoulderTwist: o.shoulderTwist ?? 'keep',
    calibrationFrame,
    groundContact: (o.ground ?? 'contact') === 'contact',
    onProgress: o.onProgress,
    ...(avatarAtRest ? { targetReference: 'rest' as const } : {}),
  };
  let result: { clip: Clip; retargeter: Retargeter };
  let ikFigures: ({ mode: IKWeightMode } & IkFigures) | null = null;
  try {
    if (o.ik !== undefined && o.ik !== 'off') {
      const run = runHub(clip, avatar.skeleton, options, o.ik);
      result = run;
      ikFigures = { mode: o.ik, ...run.ik };
    } else {
      result = retargetClip(clip, avatar.skeleton, options);
    }
  } catch (e) {
    if (e instanceof RetargetError || e instanceof HubError) {
      throw new Error(`${path.basename(o.source)} onto ${path.basename(o.avatar)}: ${e.message}`);
    }
    throw e;
  }
  await interruptPoint(); // ... and one during the computation, here
  const { retargeter } = result;
  let out = result.clip;
  const info = retargeter.info!;
  checkClipValues(`the retargeted clip (from ${path.basename(o.source)})`, out);
  let cleanupFigures: RetargetSummary['cleanup'] | undefined;
  if (o.cleanup) {
    const est = await contactSource({ model: o.cleanup.model, modelFile: o.cleanup.modelFile })(out);
    let cleaned: CleanupResult;
    try {
      cleaned = cleanupClip({ clip: out, probabilities: est, points: est.points, floor: est.floor });
    } catch (e) {
      if (e instanceof CleanupError) throw new Error(`--cleanup on ${path.basename(o.avatar)}: ${e.message}`);
      throw e;
    }
    const changed = changedFrames(out, cleaned.clip);
    cleanupFigures = {
      model: est.model,
      segments: { left: cleaned.feet.left.segments.length, right: cleaned.feet.right.segments.length },
      framesChanged: changed.reduce((a, b) => a + b, 0),
      review: cleaned.review.length,
      limits: cleaned.limits.length,
      metrics: cleaned.metrics,
      ik: cleaned.ik,
      supportingSlide: supportingSlide(cleaned.metrics),
    };
    out = cleaned.clip;
    await interruptPoint();
  }
  if (info.sourceUp !== info.detectedSourceUp) {
    notes.push(
      `--source-up ${info.sourceUp}, but in the calibration frame the source's hips -> head points along ${info.detectedSourceUp}; the avatar will lean or lie down (omit --source-up to detect it)`,
    );
  }
  if (o.fromFrame !== undefined) {
    const n = clip.skeleton.boneCount;
    const fr = new Float64Array(4 * n);
    const fp = new Float64Array(3 * n);
    readFrame(clip, calibrationFrame, fr, fp);
    const dev = armDeviationFromPose(
      clip.skeleton,
      poseGeometry(clip.skeleton, fr, fp),
      options.referencePose ?? 'T',
    );
    const worst = Math.max(dev.left, dev.right);
    if (worst > 25) {
      notes.push(
        `--from-frame ${calibrationFrame} is taken as the performer's ${options.referencePose}-pose, but its upper arms are ${dev.left.toFixed(0)} and ${dev.right.toFixed(0)} degrees (left, right) from that pose; the result will carry the difference (use a frame where the performer holds the pose, or omit --from-frame)`,
      );
    }
  }
  if (avatar.format !== 'gltf') {
    notes.push(
      `the avatar is ${avatar.format === 'vrm0' ? 'VRM 0.x' : 'VRM 1.0'}; the output .glb is plain glTF 2.0: the VRM extensions (meta and licence, MToon materials, spring bones) are not carried over (the humanoid map is, in extras.kindHumanoid)`,
    );
  }
  if (avatarAtRest)
    notes.push(
      "--avatar-pose rest: the segment direction errors include the avatar's rest off a strict T-pose (its feet: their toe drop), which this mode keeps as a VRM player does",
    );
  const skinless = skinlessNote(avatar);
  if (skinless) notes.unshift(skinless);
  const T = avatar.skeleton;
  const boneScales = [
    { bone: T.humanoid[H.Hips], scale: options.avatarScale ?? 1 },
    { bone: T.humanoid[H.Head], scale: headScale },
  ].filter((b) => b.scale !== 1);
  // BVH has no joint scale: bake the scales into the offsets; the quality figures use the same clip.
  const scaledOut = boneScales.length > 0 ? scaleSubtrees(out, boneScales) : out;
  const quality = measureQuality(clip, scaledOut, {
    sourceAlignment: upAxisRotation(info.sourceUp),
    standingSkeleton: T,
    standingScale: options.avatarScale ?? 1,
    verticalScale: options.hipsMode === 'room' ? 1 : info.hipsScale,
  });

  const stem = clipFileStem(clip.name);
  const glbPath = path.join(o.outDir, `${stem}.glb`);
  const bvhPath = path.join(o.outDir, `${stem}.bvh`);
  const summaryPath = path.join(o.outDir, 'summary.json');
  refuseOverwritingInputs(
    [glbPath, bvhPath, summaryPath],
    [
      { role: 'source', path: o.source },
      { role: 'avatar', path: o.avatar },
      ...(o.map !== undefined ? [{ role: '--map file', path: o.map }] : []),
      ...(o.sourceMap !== undefined ? [{ role: '--source-map file', path: o.sourceMap }] : []),
    ],
  );
  const glb = await writeRetargetedGlb(avatar, out, { animationName: clip.name, boneScales });
  const bvh = writeBvh(scaledOut);
  const summary: RetargetSummary = {
    tool: 'kind retarget',
    source: {
      file: o.sourceName ?? o.source,
      format: source.format,
      clip: clip.name,
      bones: clip.skeleton.boneCount,
      unit: source.unit,
      up: info.sourceUp,
      humanoid: humanoidNames(source.mapping, clip.skeleton.names),
      missingOptional: source.mapping.missingOptional,
      clips: source.clipNames,
    },
    target: {
      file: o.avatar,
      format: avatar.format,
      bones: avatar.skeleton.boneCount,
      humanoid: humanoidNames(avatar.mapping, avatar.skeleton.names),
      missingOptional: avatar.mapping.missingOptional,
      skinnedMeshes: avatar.meshes.skinned,
    },
    frames: out.frameCount,
    fps: clipFps(out),
    frameTime: out.frameTime,
    durationSeconds: clipDuration(out),
    calibration: {
      reference: info.sourceReference,
      pose: options.referencePose ?? 'T',
      calibrationFrame,
      hipsMode: options.hipsMode ?? 'scaled',
      ground: options.groundContact ? 'contact' : 'origin',
      sourceContactHeightM: info.sourceContactHeight,
      targetContactHeightM: info.targetContactHeight,
      sourceHipsHeightM: info.sourceHipsHeight,
      targetHipsHeightM: info.targetHipsHeight,
      hipsScale: options.hipsMode === 'room' ? null : info.hipsScale,
      roomLiftM: options.hipsMode === 'room' ? info.roomLift : null,
      avatarScale: options.avatarScale ?? 1,
      headScale,
      headRotationOffsetDeg: options.headRotationOffset ?? [0, 0, 0],
      shoulderTwist: options.shoulderTwist ?? 'keep',
      ...(avatarAtRest ? { avatarPose: 'rest' as const } : {}),
    },
    quality,
    ...(ikFigures ? { ik: ikFigures } : {}),
    ...(cleanupFigures ? { cleanup: cleanupFigures } : {}),
    outputs: o.finalOutDir
      ? {
          glb: path.join(o.finalOutDir, path.basename(glbPath)),
          bvh: path.join(o.finalOutDir, path.basename(bvhPath)),
          summary: path.join(o.finalOutDir, path.basename(summaryPath)),
        }
      : { glb: glbPath, bvh: bvhPath, summary: summaryPath },
    // glTF Transform's own notice about extensions it does not know (VRM) is covered by the VRM note
    warnings: [...notes, ...source.warnings, ...avatar.warnings].filter(
      (w) => !/^Missing optional extension/.test(w),
    ),
  };
  const files: OutputFile[] = [
    { path: glbPath, data: glb },
    { path: bvhPath, data: bvh },
    { path: summaryPath, data: `${JSON.stringify(summary, null, 2)}\n` },
  ];
  await interruptPoint(); // nothing is written once interrupted; the write below is never cut short
  ensureOutputDir(o.outDir);
  writeFilesAtomically(files);
  return summary;
}

/** A short human summary of a run, a few lines. */
export function formatSummary(s: RetargetSummary): string {
  const lines: string[] = [];
  lines.push(
    `retargeted '${s.source.clip}' (${s.source.format}, ${s.source.bones} bones${s.source.unit ? `, ${s.source.unit}` : ''}) onto ${path.basename(s.target.file)} (${s.target.format}, ${s.target.bones} bones)`,
  );
  lines.push(
    `  ${s.frames} frames at ${s.fps.toFixed(3)} fps (${s.durationSeconds.toFixed(2)} s); calibration: ${s.calibration.reference} -> ${s.calibration.pose}-pose${s.calibration.avatarPose === 'rest' ? ' (the avatar at its rest)' : ''}, source up ${s.source.up}, ${s.calibration.roomLiftM !== null ? `hips room, ${s.calibration.roomLiftM >= 0 ? '+' : ''}${s.calibration.roomLiftM.toFixed(3)} m leg-length lift` : `hips scaled x${(s.calibration.hipsScale ?? 1).toFixed(3)}`}`,
  );
  const segs = Object.entries(s.quality.segments).filter(([, v]) => v !== null) as [
    string,
    NonNullable<QualityReport['segments'][string]>,
  ][];
  if (segs.length > 0) {
    const mean = segs.reduce((a, [, v]) => a + v.meanDeg, 0) / segs.length;
    const worst = segs.reduce((a, b) => (b[1].maxDeg > a[1].maxDeg ? b : a));
    lines.push(
      `  segment direction error: mean ${mean.toFixed(3)} deg over ${segs.length} segments; worst ${worst[0]} max ${worst[1].maxDeg.toFixed(3)} deg at frame ${worst[1].maxFrame}`,
    );
  }
  const fh = s.quality.footHeight;
  lines.push(
    `  foot height error on source contact frames: ${fh.meanAbsM === null ? 'n/a (no contact frames)' : `${(fh.meanAbsM * 100).toFixed(2)} cm`} (left ${fh.left.contactFrames}, right ${fh.right.contactFrames} frames); lowest ankle/toe ${(fh.maxBelowStandingM * 100).toFixed(1)} cm below standing height (frame ${fh.maxBelowStandingFrame})`,
  );
  if (s.ik) {
    const parts = (['leftArm', 'rightArm', 'leftLeg', 'rightLeg'] as const).map((k) => {
      const v = s.ik![k];
      const err =
        v.meanErrorMm === null ? 'no IK' : `${v.meanErrorMm.toFixed(1)}/${v.maxErrorMm.toFixed(1)} mm`;
      return `${k} ${v.ikFrames}/${s.frames} frames, ${err}, ${v.bendPlaneFlips}/${v.bendPlaneCompared} flipped`;
    });
    lines.push(
      `  IK ${s.ik.mode}: frames with IK weight > 0, end-effector error mean/max over them, bend plane off the source's by >10 deg (frames/compared): ${parts.join('; ')}`,
    );
  }
  if (s.cleanup) {
    const c = s.cleanup;
    const b = c.supportingSlide.before;
    const a = c.supportingSlide.after;
    const cm = (v: number) => (v * 100).toFixed(1);
    const less = b.total > 0 ? `${(100 * (1 - a.total / b.total)).toFixed(0)}% less` : 'n/a';
    lines.push(
      `  cleanup (${c.model} contacts): ${c.segments.left} left and ${c.segments.right} right segments, ${c.framesChanged} frames changed; supporting point's (heel or toe) slide in contact ${cm(b.total)} -> ${cm(a.total)} cm (${less}; heel ${cm(b.heel)} -> ${cm(a.heel)}, toe ${cm(b.toe)} -> ${cm(a.toe)}); ${c.review} review, ${c.limits} IK-limit ranges`,
    );
  }
  const missing = s.target.missingOptional;
  if (missing.length > 0) {
    const shown = missing.slice(0, 4).join(', ');
    lines.push(
      `  avatar lacks ${missing.length} optional bone(s): ${shown}${missing.length > 4 ? ', ... (all in summary.json)' : ''}`,
    );
  }
  for (const w of s.warnings.slice(0, 5)) lines.push(`  note: ${w}`);
  if (s.warnings.length > 5) lines.push(`  (${s.warnings.length - 5} more notes in summary.json)`);
  lines.push(`  wrote ${s.outputs.glb}, ${s.outputs.bvh}, ${s.outputs.summary}`);
  return lines.join('\n');
}
