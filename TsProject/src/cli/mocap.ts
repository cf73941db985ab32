/**
 * `kind mocap` with no file (issue 23 item 4): serves the live page (./mocapServe.ts, src/web/mocap) on
 * 127.0.0.1:8066 until Ctrl-C (`--port`, `--allow-origin`, `--duration`).
 *
 * `kind mocap <landmarks> -o <dir>` (issue 23 item 1): recorded MediaPipe pose landmarks -> a humanoid
 * source pose, written as `<dir>/<name>.bvh` (HumanBodyBones joint names, centimetres, Y up, the performer
 * facing +Z at the first frame, ZXY rotation channels, the recording's frame rate) and `<dir>/mocap.json`
 * (calibration, per frame and bone the confidence and state, summary figures). The solver is src/mocap.
 *
 * Inputs as `kind puppet` reads them (src/io/node `loadLandmarkRecording`): the recording format, a tfjs
 * reference with its `_3d` world sibling (`--image-size`, `--fps`), tfjs-models keypoints with BlazePose
 * `keypoints3D`. World landmarks are needed (the pose is 3-D).
 *
 * With an avatar (`kind mocap <landmarks> <avatar>`), the BVH written is then retargeted onto it by
 * `kind retarget`'s `runRetarget` (the BVH's rest T-pose is its calibration reference) into
 * `<dir>/retarget/` (`<name>.glb`, `<name>.bvh`, `summary.json`), staged as `<dir>/retarget.<pid>.tmp` and
 * put in place together with the BVH and mocap.json: one all-or-nothing set (an error or an interrupt
 * leaves the previous outputs).
 *
 * With `--vrma` (issue 25 item 4), `<dir>/<name>.vrma` too: the BVH as a VRM Animation, as
 * `kind retarget <bvh> --vrma` makes it (./retargetVrma.ts), in the same all-or-nothing set.
 *
 * Exit codes: 0 done; 1 bad input (one line naming the file and the frame / field; nothing written);
 * 2 usage; 130 / 143 / 129 interrupted (nothing written, the previous outputs unchanged).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SingleBar } from 'cli-progress';
import { type Command, InvalidArgumentError } from 'commander';
import { writeBvh } from '../io/bvh';
import { describeFsError, loadLandmarkRecording, requireNotFolder } from '../io/node';
import { interruptPoint, withInterrupts } from '../io/node/interrupt';
import { type MocapSummary, mocapJson, runMocap, summarizeMocap } from '../mocap';
import { numberArg, outDirArg } from './args';
import { type ContactModelName, cleanupChoice, cleanupOptions } from './contactSource';
import {
  checkOutputDir,
  createOutputDirUndoable,
  ensureOutputDir,
  type OutputFile,
  refuseOverwritingInputs,
  type StagedFolder,
  stageFolder,
  writeFilesAtomically,
} from './files';
import { DEFAULT_MOCAP_PORT, runMocapServe } from './mocapServe';
import { imageSizeArg } from './puppetArgs';
import { formatSummary, type RetargetSummary, runRetarget } from './retarget';
import { buildVrma, formatVrmaSummary, type VrmaSummary } from './retargetVrma';

function portArg(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError(`--port: '${v}' is not 0..65535`);
  return n;
}

export interface MocapCommandOptions {
  outDir: string;
  /** An avatar (.glb, .gltf, .vrm): the BVH is retargeted onto it by `kind retarget`'s pipeline into `<dir>/retarget/`. */
  avatar?: string;
  imageSize?: { width: number; height: number };
  fps?: number;
  world?: string;
  fovDeg?: number;
  /** One-Euro minimum cutoff on the landmarks, Hz (0 / undefined = off; beta 3 per m/s). */
  smoothHz?: number;
  /** With an avatar: clean the feet on it before writing (`--cleanup`, as `kind retarget --cleanup`). */
  cleanup?: { model: ContactModelName };
  /** Also write `<dir>/<name>.vrma`: the BVH as a VRM Animation, as `kind retarget <bvh> --vrma` makes it. */
  vrma?: boolean;
  onProgress?: (done: number, total: number) => void;
}

export interface MocapCommandResult {
  summary: MocapSummary;
  outputs: { bvh: string; json: string; vrma?: string };
  /** With --vrma: `kind retarget --vrma`'s lines about the VRM Animation written. */
  vrma?: string;
  /** `kind retarget`'s summary of the avatar run, when an avatar was given. */
  retarget?: string;
  notes: string[];
  headingDeg: number;
  calibrationFrames: number;
}

/** `pose_squats.full.json` -> `pose_squats`; `take.json` -> `take`. */
export function mocapStem(file: string): string {
  return path.basename(file).replace(/(\.full)?\.json$/i, '') || 'mocap';
}

/** Load, solve and write (all or nothing). */
export async function runMocapCommand(input: string, o: MocapCommandOptions): Promise<MocapCommandResult> {
  checkOutputDir(o.outDir);
  if (o.avatar) {
    // an avatar that cannot be read fails before anything is written, not after the mocap set
    try {
      fs.accessSync(o.avatar, fs.constants.R_OK);
    } catch (e) {
      throw new Error(describeFsError(o.avatar, e));
    }
    requireNotFolder(o.avatar);
  }
  const outputs = {
    bvh: path.join(o.outDir, `${mocapStem(input)}.bvh`),
    json: path.join(o.outDir, 'mocap.json'),
    ...(o.vrma ? { vrma: path.join(o.outDir, `${mocapStem(input)}.vrma`) } : {}),
  };
  const loaded = loadLandmarkRecording(input, { imageSize: o.imageSize, fps: o.fps, world: o.world });
  const inputs = [{ role: 'landmark file', path: input }];
  if (loaded.worldFile) inputs.push({ role: 'world landmark file', path: loaded.worldFile });
  refuseOverwritingInputs([outputs.bvh, outputs.json, ...(outputs.vrma ? [outputs.vrma] : [])], inputs);
  await interruptPoint();
  const run = runMocap(loaded.recording, {
    source: input,
    fovDeg: o.fovDeg,
    smoothMinCutoff: o.smoothHz,
    smoothBeta: o.smoothHz ? 3 : undefined,
    onProgress: o.onProgress,
  });
  const bvh = writeBvh(run.clip, { unitScale: 0.01 });
  const json = mocapJsonText(mocapJson(run, input, { bvh: outputs.bvh }) as { frames: unknown[] });
  const vrma = outputs.vrma ? await vrmaOfBvh(o.outDir, outputs.bvh, outputs.vrma, bvh) : undefined;
  const extra: OutputFile[] = vrma && outputs.vrma ? [{ path: outputs.vrma, data: vrma.bytes }] : [];
  await interruptPoint(); // nothing is written once interrupted
  const stale = staleOutputs(o.outDir, outputs.bvh, o.avatar !== undefined);
  if (!o.avatar) {
    ensureOutputDir(o.outDir);
    writeFilesAtomically([{ path: outputs.bvh, data: bvh }, { path: outputs.json, data: json }, ...extra]);
  }
  // an avatar: the BVH through `kind retarget` (its rest T-pose is the calibration reference) into a
  // staged retarget/ first; then the BVH, mocap.json and retarget/ go into place together (retarget/ last),
  // so the folder is all the previous run or all this one, on an error or an interrupt alike
  const retarget = o.avatar
    ? formatSummary(await retargetStaged(o.outDir, outputs, bvh, json, o.avatar, o.cleanup, extra))
    : undefined;
  const notes = [...loaded.notes];
  if (stale.length) notes.push(`left from an earlier run, not written by this one: ${stale.join(', ')}`);
  const defaulted = run.solver.calibration.defaulted;
  if (defaulted.length)
    notes.push(
      `never seen while calibrating, set from the other side or torso proportions: ${defaulted.join(', ')} (mocap.json calibration.defaulted)`,
    );
  if (run.framesHipsFromImage < run.clip.frameCount)
    notes.push(
      `hips horizontal position from the image in ${run.framesHipsFromImage} of ${run.clip.frameCount} frames (held in the others)`,
    );
  return {
    summary: summarizeMocap(run),
    outputs,
    vrma: vrma ? formatVrmaSummary(vrma.summary) : undefined,
    retarget,
    notes,
    headingDeg: (run.solver.calibration.heading * 180) / Math.PI,
    calibrationFrames: run.solver.calibration.frames.length,
  };
}

/**
 * Outputs of an earlier run in `outDir` that this one does not replace, for a note (they are the user's
 * files: not deleted): the BVH the previous mocap.json names when it is another file, and retarget/ when
 * this run writes none.
 */
function staleOutputs(outDir: string, bvh: string, writesRetarget: boolean): string[] {
  const stale: string[] = [];
  try {
    const prev = JSON.parse(fs.readFileSync(path.join(outDir, 'mocap.json'), 'utf8'));
    const name = typeof prev?.outputs?.bvh === 'string' ? path.basename(prev.outputs.bvh) : '';
    const old = path.join(outDir, name);
    if (name && name !== path.basename(bvh) && fs.statSync(old).isFile()) stale.push(old);
  } catch {
    // no previous mocap.json, not ours, or its BVH is gone: nothing to say
  }
  const retarget = path.join(outDir, 'retarget');
  if (!writesRetarget && fs.existsSync(retarget)) stale.push(`${retarget}${path.sep}`);
  return stale;
}

/**
 * The avatar run: the mocap BVH written to a temporary folder, retargeted into a staged
 * `<dir>/retarget.<pid>.tmp`, then the BVH, mocap.json and the staged folder committed as one set.
 */
async function retargetStaged(
  outDir: string,
  outputs: { bvh: string; json: string },
  bvh: string,
  json: string,
  avatar: string,
  cleanup: MocapCommandOptions['cleanup'],
  extra: OutputFile[],
): Promise<RetargetSummary> {
  const retargetDir = path.join(outDir, 'retarget');
  // an existing retarget/ that cannot be replaced fails here, before anything is written
  checkOutputDir(retargetDir);
  const outDirDone = createOutputDirUndoable(outDir);
  const source = stageFolder(path.join(outDir, `${path.basename(outputs.bvh)}.source`));
  let staged: StagedFolder | undefined;
  try {
    const sourceBvh = path.join(source.dir, path.basename(outputs.bvh));
    try {
      fs.writeFileSync(sourceBvh, bvh);
    } catch (e) {
      throw new Error(describeFsError(sourceBvh, e));
    }
    staged = stageFolder(retargetDir);
    const summary = await runRetarget({
      source: sourceBvh,
      sourceName: outputs.bvh,
      avatar,
      outDir: staged.dir,
      finalOutDir: retargetDir,
      cleanup,
    });
    await interruptPoint();
    writeFilesAtomically([
      { path: outputs.bvh, data: bvh },
      { path: outputs.json, data: json },
      ...extra,
      { path: retargetDir, stagedDir: staged.dir },
    ]);
    source.discard();
    outDirDone(true);
    return summary;
  } catch (e) {
    staged?.discard();
    source.discard();
    outDirDone(false); // the folder this run made, now empty again
    throw e;
  }
}

/**
 * The mocap BVH as a VRM Animation (`--vrma`): the BVH written to a temporary folder next to the
 * output, made into `.vrma` bytes by `kind retarget --vrma`'s {@link buildVrma}, the folder removed.
 * Nothing is written at `vrmaPath` here (the caller commits it with the other outputs).
 */
async function vrmaOfBvh(
  outDir: string,
  bvhPath: string,
  vrmaPath: string,
  bvh: string,
): Promise<{ bytes: Uint8Array; summary: VrmaSummary }> {
  const outDirDone = createOutputDirUndoable(outDir);
  const temp = stageFolder(path.join(outDir, `${path.basename(bvhPath)}.vrma-source`));
  try {
    const file = path.join(temp.dir, path.basename(bvhPath));
    try {
      fs.writeFileSync(file, bvh);
    } catch (e) {
      throw new Error(describeFsError(file, e));
    }
    const built = await buildVrma({ source: file, sourceName: bvhPath, outDir });
    return { bytes: built.bytes, summary: { ...built.summary, output: vrmaPath } };
  } finally {
    temp.discard();
    outDirDone(false); // a folder made only for the temporary one is removed; the write makes it again
  }
}

/** mocap.json's text: indented, one line per frame (the frames are most of the file). */
export function mocapJsonText(obj: { frames: unknown[] }): string {
  const { frames, ...head } = obj;
  const top = JSON.stringify(head, null, 1);
  const rows = frames.map((f) => `  ${JSON.stringify(f)}`).join(',\n');
  return `${top.slice(0, top.lastIndexOf('}')).trimEnd()},\n "frames": [\n${rows}\n ]\n}\n`;
}

/** The terminal summary of a run. */
export function formatMocapSummary(r: MocapCommandResult): string {
  const s = r.summary;
  const b = Object.values(s.bones);
  const sum = (k: 'measured' | 'held' | 'filled') => b.reduce((a, x) => a + x[k], 0);
  const total = s.frames * b.length;
  const pct = (k: 'measured' | 'held' | 'filled') => `${((100 * sum(k)) / total).toFixed(1)}%`;
  const worst = Object.entries(s.bones)
    .filter(([, x]) => x.measured < s.frames)
    .sort((x, y) => x[1].measured - y[1].measured)
    .slice(0, 3)
    .map(([n, x]) => `${n} ${x.measured}/${s.frames}`);
  return [
    `mocap: ${s.frames} frames at ${Number(s.fps.toFixed(1))} fps (${s.durationS} s), calibrated on ${r.calibrationFrames} frames, heading ${r.headingDeg.toFixed(1)} deg`,
    `  bones: measured ${pct('measured')}, held ${pct('held')}, filled ${pct('filled')}${worst.length ? ` (least measured: ${worst.join(', ')})` : ''}`,
    `  hips height: standing ${s.hipsHeight.standing.toFixed(2)} m, range ${s.hipsHeight.min.toFixed(2)}-${s.hipsHeight.max.toFixed(2)} m; travels up to ${s.hipsMaxHorizontal.toFixed(2)} m horizontally`,
    `  knees: left ${s.knees.left.min.toFixed(0)}-${s.knees.left.max.toFixed(0)} deg, right ${s.knees.right.min.toFixed(0)}-${s.knees.right.max.toFixed(0)} deg (180 = straight)`,
    ...r.notes.map((n) => `  note: ${n}`),
    `  wrote ${r.outputs.bvh} and ${r.outputs.json}`,
    ...(r.vrma ? [r.vrma] : []),
    ...(r.retarget ? [r.retarget] : []),
  ].join('\n');
}

/** Add `kind mocap` to the program. */
export function registerMocapCommand(program: Command, setExitCode: (code: number) => void = () => {}): void {
  program
    .command('mocap')
    .description(
      'webcam mocap. With no file: serves the live page on 127.0.0.1 (webcam, a video file or a landmark recording -> MediaPipe -> the solver -> an avatar; Record saves the landmark file) and prints its URL. From recorded MediaPipe pose landmarks: writes <dir>/<name>.bvh (HumanBodyBones joints, centimetres, Y up, facing +Z, the recording frame rate) and <dir>/mocap.json (calibration, confidence and state per frame and bone, summary); with an avatar, also <dir>/retarget/ as kind retarget writes it',
    )
    .argument(
      '[landmarks]',
      'landmark recording with world landmarks (the puppet page format, a tfjs reference with its _3d file, or tfjs-models BlazePose keypoints)',
    )
    .argument(
      '[avatar]',
      'an avatar (.glb, .gltf, .vrm) to retarget the result onto, as kind retarget: <dir>/retarget/',
    )
    .option('-o, --out <dir>', 'output folder', outDirArg, 'mocap-out')
    .option(
      '--image-size <WxH>',
      'camera image size in pixels for a tfjs reference or keypoint file (e.g. 720x1280)',
      imageSizeArg,
    )
    .option(
      '--fps <n>',
      'frame rate of a tfjs reference or keypoint file without timestamps (default 30)',
      numberArg('--fps', 'above 0, at most 1000', (v) => v > 0 && v <= 1000),
    )
    .option('--world <file>', "a tfjs reference's world landmarks file (default: its _3d sibling)")
    .option(
      '--fov <deg>',
      "the camera's field of view across the image's longer side, degrees (default 60); scales the hips' depth motion",
      numberArg('--fov', 'above 1, below 179', (v) => v > 1 && v < 179),
    )
    .option(
      '--smooth <hz>',
      'One-Euro filter on the landmarks: its cutoff at rest in Hz (beta 3 per m/s); 4 suits 30 fps webcam input; default off',
      numberArg('--smooth', '0 (off) to 30', (v) => v >= 0 && v <= 30),
    )
    .option(
      '--port <n>',
      "with no landmark file: the page server's port (0 = any free one)",
      portArg,
      DEFAULT_MOCAP_PORT,
    )
    .option(
      '--allow-origin <origin...>',
      "with no landmark file: web pages (origins such as http://192.168.1.5:8080, or *) allowed besides the mocap page's own; others get 403",
    )
    .option(
      '--duration <s>',
      'with no landmark file: stop serving after this many seconds (default: until Ctrl-C)',
      numberArg('--duration', 'above 0', (v) => v > 0 && v <= 2e6),
    )
    .addOption(cleanupOptions()[0])
    .addOption(cleanupOptions()[1])
    .option(
      '--vrma',
      'also write <dir>/<name>.vrma: the result as a VRM Animation (VRMC_vrm_animation-1.0), as kind retarget --vrma',
    )
    .option('-q, --quiet', 'print nothing but errors')
    .action(async (input: string | undefined, avatar: string | undefined, opts, cmd: Command) => {
      const cleanup = cleanupChoice(opts, cmd);
      if (opts.vrma && input === undefined)
        throw new InvalidArgumentError('--vrma writes a recorded take: give a landmark file');
      if (cleanup && (input === undefined || avatar === undefined))
        throw new InvalidArgumentError(
          '--cleanup cleans the feet on an avatar: give a landmark file and an avatar',
        );
      if (input === undefined) {
        // no file: the live page (webcam, video file or recording -> the solver -> the avatar) on 127.0.0.1
        const r = await runMocapServe({
          port: opts.port,
          allowedOrigins: opts.allowOrigin,
          durationS: opts.duration,
          quiet: opts.quiet === true,
        });
        if (r.signal) setExitCode(r.signal === 'SIGINT' ? 130 : 143);
        return;
      }
      let bar: SingleBar | null = null;
      const tty = !opts.quiet && process.stderr.isTTY;
      const r = await withInterrupts('kind mocap', () =>
        runMocapCommand(input, {
          outDir: opts.out,
          avatar,
          imageSize: opts.imageSize,
          fps: opts.fps,
          world: opts.world,
          fovDeg: opts.fov,
          smoothHz: opts.smooth,
          cleanup,
          vrma: opts.vrma === true,
          onProgress: (done, total) => {
            if (!tty || total < 1000) return;
            if (!bar) {
              bar = new SingleBar({ format: 'mocap [{bar}] {value}/{total} frames', stream: process.stderr });
              bar.start(total, 0);
            }
            bar.update(done);
            if (done === total) bar.stop();
          },
        }),
      );
      if (!opts.quiet) console.log(formatMocapSummary(r));
    });
}
