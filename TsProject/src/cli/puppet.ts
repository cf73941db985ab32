/**
 * `kind puppet`: the drawing puppet (issue 12) from the command line.
 *
 * - `kind puppet [--character c] [--landmarks rec.json] [--port n]`: serves the page (./puppetServe.ts) on
 *   127.0.0.1 and prints its URL; runs until Ctrl-C / SIGTERM (exit 130 / 143) or `--duration`.
 * - `kind puppet render [character] --landmarks <rec.json> -o <dir>`: runs in Node without a browser:
 *   the pose side, the rig and CPU LBS (src/puppet PuppetSession) over a recording, rasterised in software:
 *   `<dir>/frames/NNNN.png`, `<dir>/preview.gif` (animated) and `<dir>/puppet.json` (src/puppet/puppetFile.ts).
 *   All or nothing: the frames are written into a temporary folder beside `frames/` and the three outputs
 *   are moved into place together (./files.ts); an interrupt or an error leaves the previous outputs (and
 *   removes the output folder when this run made it and wrote nothing). A drawing above 2 MP is scaled
 *   down first (./puppetCharacter.ts, src/puppet/downscale.ts), one line saying so; `frames.<pid>.tmp` left
 *   by a killed run is removed (./puppetTemps.ts); doubtful characters get `warning:` lines or a one-line
 *   error (src/puppet/characterChecks.ts); `--layers off` draws one mesh in its static order.
 * - `kind puppet tune <rec.json...>`: the smoothing sweep (src/puppet/tune.ts): jitter against lag per
 *   setting, the row chosen as defaults.
 * With no character and no recording, `render` and the page use the embedded default
 * (`assets/default/puppet`: a drawing made by this project and a short recording).
 *
 * This file holds the command's registration and the page server run; render and its summary are in
 * ./puppetRender.ts, tune in ./puppetTune.ts, the argument parsers in ./puppetArgs.ts (all named from here).
 *
 * Exit codes: 0 done; 1 bad input (one line naming the file, frame, landmark, joint or field; nothing
 * written); 2 usage; 130 / 143 / 129 interrupted.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SingleBar } from 'cli-progress';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { loadLandmarkRecording, type RecordingLoadOptions } from '../io/node';
import { serveUntilSignal, withInterrupts } from '../io/node/interrupt';
import {
  DEFAULT_DEFORM_MODE,
  DEFAULT_TUNE_GRID,
  DEFORM_MODES,
  serializeLandmarkRecording,
  WEIGHT_MODES,
} from '../puppet';
import { outDirArg, outFileArg } from './args';
import { backgroundArg, gridArg, imageSizeArg, positive, recordingOptions, setArg } from './puppetArgs';
import { loadPuppetCharacter } from './puppetCharacter';
import { characterWarnings, defaultPuppetDir, formatRenderSummary, runPuppetRender } from './puppetRender';
import { DEFAULT_PUPPET_PORT, type PuppetServer, startPuppetServer } from './puppetServe';
import { formatTune, runPuppetTune } from './puppetTune';

// The command's parts, named from here as before the split.
export { backgroundArg, gridArg, imageSizeArg, setArg } from './puppetArgs';
export {
  characterWarnings,
  defaultPuppetDir,
  formatLayersLine,
  formatMeshLine,
  formatRenderSummary,
  frameName,
  type PuppetRenderOptions,
  type PuppetRenderResult,
  runPuppetRender,
} from './puppetRender';
export { formatTune, type PuppetTuneOptions, type PuppetTuneResult, runPuppetTune } from './puppetTune';

// ------------------------------------------------------------------------------------------- serve

export interface PuppetServeResult {
  signal: 'SIGINT' | 'SIGTERM' | null;
}

/**
 * Serve the page until SIGINT / SIGTERM (or `durationS`); prints its URL. A recording given in the tfjs
 * reference format is converted and served as a recording file.
 */
export async function runPuppetServe(o: {
  port?: number;
  character?: string;
  landmarks?: string;
  /** An AnimatedDrawings retarget config for `character` (`--retarget-cfg`). */
  retargetCfg?: string;
  recording?: RecordingLoadOptions;
  durationS?: number;
  quiet?: boolean;
  print?: (line: string) => void;
  /** Browser origins allowed besides the page's own (`--allow-origin`). */
  allowedOrigins?: readonly string[];
}): Promise<PuppetServeResult> {
  const print = o.print ?? ((l: string) => console.log(l));
  let landmarks = o.landmarks;
  let tmpFile: string | null = null;
  // a drawing the page could not use (an empty mask, a char_cfg.yaml missing joints) fails here, in
  // one line, instead of as a message the page shows for a moment
  if (o.retargetCfg !== undefined && o.character === undefined)
    throw new InvalidArgumentError('--retarget-cfg: give the --character folder whose joints it maps');
  if (o.character !== undefined) {
    const { character } = await loadPuppetCharacter(o.character, { retargetCfgFile: o.retargetCfg });
    for (const w of characterWarnings(o.character, character)) if (!o.quiet) print(`warning: ${w}`);
  }
  if (o.landmarks !== undefined) {
    const loaded = loadLandmarkRecording(o.landmarks, o.recording); // errors at the terminal, not in the page
    for (const n of loaded.notes) if (!o.quiet) print(`note: ${n}`);
    if (loaded.format !== 'recording') {
      // the page reads the recording format: serve a converted copy from a temporary file
      tmpFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kind-puppet-')), 'recording.json');
      fs.writeFileSync(tmpFile, serializeLandmarkRecording(loaded.recording));
      landmarks = tmpFile;
    }
  }
  let server: PuppetServer;
  try {
    server = await startPuppetServer({
      port: o.port ?? DEFAULT_PUPPET_PORT,
      character: o.character,
      landmarks,
      ...(o.landmarks !== undefined ? { landmarksName: path.basename(o.landmarks) } : {}),
      retargetCfg: o.retargetCfg,
      allowedOrigins: o.allowedOrigins,
      log: (line) => console.error(line), // a refused web page: one line, even with --quiet
    });
  } catch (e) {
    if (tmpFile) fs.rmSync(path.dirname(tmpFile), { recursive: true, force: true });
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EADDRINUSE')
      throw new Error(
        `port ${o.port ?? DEFAULT_PUPPET_PORT} is in use (another kind puppet?); give --port <n> (0 = any free one)`,
      );
    throw e;
  }
  if (!o.quiet) {
    print(`drawing puppet page: ${server.url}`);
    print('  open it in a browser (webcam, drawing pad, recordings); Ctrl-C stops the server');
  }
  let signal: PuppetServeResult['signal'];
  try {
    signal = await serveUntilSignal(o.durationS, () => server.close());
  } finally {
    if (tmpFile) fs.rmSync(path.dirname(tmpFile), { recursive: true, force: true });
  }
  if (!o.quiet) print(`stopped${signal ? ` (${signal})` : ''}: the puppet page server is closed`);
  return { signal };
}

// ------------------------------------------------------------------------------------------- command

export function registerPuppetCommand(program: Command, setExitCode: (code: number) => void): void {
  const recordingFlags = (c: Command) =>
    c
      .option(
        '--image-size <WxH>',
        'camera image size in pixels for a tfjs reference or tfjs-models keypoint file (e.g. 720x1280); checked against the landmarks',
        imageSizeArg,
      )
      .option(
        '--fps <n>',
        'frame rate of a tfjs reference or keypoint file without timestamps (default 30)',
        positive('--fps', 1000),
      )
      .option('--world <file>', "a tfjs reference's world landmarks file (default: its _3d sibling)");
  const puppet = recordingFlags(
    program
      .command('puppet')
      .description(
        'the drawing puppet: serves the page (a drawing driven by your webcam through MediaPipe pose) on 127.0.0.1 and prints its URL.\nSubcommands: render (frames, an animated preview and puppet.json, in Node), tune (the smoothing sweep).\nWith no character, the embedded default drawing and recording.',
      )
      .option(
        '--character <folder|png>',
        'the drawing shown first: an AnimatedDrawings folder (texture.png, mask.png, char_cfg.yaml) or an image',
      )
      .option('--landmarks <recording.json>', 'a landmark recording offered as the "recording" source')
      .option(
        '--retarget-cfg <file.yaml>',
        "an AnimatedDrawings retarget config for the --character folder (which of the person's bones drives each of its joints)",
      )
      .option(
        '--port <n>',
        'port (0 = any free one)',
        (v: string) => {
          const n = Number(v);
          if (!Number.isInteger(n) || n < 0 || n > 65535)
            throw new InvalidArgumentError(`--port: '${v}' is not 0..65535`);
          return n;
        },
        DEFAULT_PUPPET_PORT,
      )
      .option(
        '--duration <s>',
        'stop after this many seconds (default: until Ctrl-C)',
        positive('--duration', 2e6),
      )
      .option(
        '--allow-origin <origin...>',
        "web pages (origins such as http://192.168.1.5:8080, or *) allowed besides the puppet page's own; others get 403",
      )
      .option('-q, --quiet', 'print nothing but errors')
      // the page's options come before a subcommand; render's and tune's own after it
      .enablePositionalOptions(),
  ).action(async (opts) => {
    const r = await runPuppetServe({
      port: opts.port,
      character: opts.character,
      landmarks: opts.landmarks,
      retargetCfg: opts.retargetCfg,
      recording: recordingOptions(opts),
      durationS: opts.duration,
      quiet: opts.quiet === true,
      allowedOrigins: opts.allowOrigin,
    });
    if (r.signal) setExitCode(r.signal === 'SIGINT' ? 130 : 143);
  });

  recordingFlags(
    puppet
      .command('render')
      .description(
        'render a landmark recording onto a drawing in Node (no browser): <dir>/frames/NNNN.png, <dir>/preview.gif and <dir>/puppet.json (the 21 joints per frame in drawing pixels with confidence and state, and the figures), all or nothing.\nWith no character and no --landmarks, the embedded default drawing and recording.',
      )
      .argument(
        '[character]',
        'AnimatedDrawings folder (texture.png, mask.png, char_cfg.yaml) or an image (.png, .jpg)',
      )
      .option(
        '--landmarks <recording.json>',
        'landmark recording (the recording format; a tfjs reference or tfjs-models MoveNet/PoseNet/BlazePose keypoints with --image-size)',
      )
      .option('-o, --out <dir>', 'output folder', outDirArg, 'puppet-out')
      .option(
        '--retarget-cfg <file.yaml>',
        "an AnimatedDrawings retarget config (char_joint_bvh_joints_mapping, char_bodypart_groups) saying which of the person's bones drives each joint of the character; without one, joints are mapped by name (DRAWING.md)",
      )
      .addOption(
        new Option(
          '--weights <mode>',
          'skinning weights: 4 nearest joints, bone segments, or segments measured inside the mask',
        )
          .choices([...WEIGHT_MODES])
          .default('segments-geodesic'),
      )
      .addOption(
        new Option(
          '--deform <mode>',
          'deformation: arap = linear blend skinning refined as-rigid-as-possible with a fold-over guard (no flipped triangles, area stretch at most 5x), lbs = linear blend skinning alone',
        )
          .choices([...DEFORM_MODES])
          .default(DEFAULT_DEFORM_MODE),
      )
      .option(
        '--joints',
        'draw the joints over the frames, coloured by state as in the page: measured green, held amber, parent blue, child purple, torso orange, rest grey',
      )
      .option(
        '--background <colour>',
        'frame background: white (default), black, transparent or #rrggbb',
        backgroundArg,
      )
      .option('--no-preview', 'do not write preview.gif')
      .addOption(
        new Option(
          '--layers <on|off>',
          "depth-ordered body-part layers (trunk, arms, legs, or the retarget config's groups: an arm in front of the body covers it); off = one mesh, limbs always over the body",
        )
          .choices(['on', 'off'])
          .default('on'),
      )
      .option('--set <option=value>', 'a pose option (repeatable), e.g. smoothingMs=60 (POSE.md)', setArg)
      .option('-q, --quiet', 'print nothing but errors'),
  ).action(async (characterArg: string | undefined, opts) => {
    if (characterArg !== undefined && opts.landmarks === undefined)
      throw new InvalidArgumentError(
        '--landmarks: name the recording that drives the drawing (or give neither for the embedded default)',
      );
    if (characterArg === undefined && opts.landmarks === undefined && !opts.quiet)
      console.log(
        `no character given: using the embedded default (${path.relative(process.cwd(), defaultPuppetDir()) || defaultPuppetDir()})`,
      );
    let bar: SingleBar | null = null;
    const tty = !opts.quiet && process.stderr.isTTY;
    const r = await withInterrupts('kind puppet render', () =>
      runPuppetRender({
        character: characterArg,
        landmarks: opts.landmarks,
        retargetCfg: opts.retargetCfg,
        outDir: opts.out,
        recording: recordingOptions(opts),
        pose: opts.set,
        weights: opts.weights,
        deform: opts.deform,
        joints: opts.joints === true,
        background: opts.background,
        preview: opts.preview !== false,
        layers: opts.layers !== 'off',
        onNote: (line) => {
          if (!opts.quiet) console.log(`note: ${line}`);
        },
        onProgress: (done, total) => {
          if (!tty || total < 300) return;
          if (!bar) {
            bar = new SingleBar({
              format: 'rendering [{bar}] {percentage}% | {value}/{total} frames',
              stream: process.stderr,
            });
            bar.start(total, 0);
          }
          bar.update(done);
          if (done === total) bar.stop();
        },
      }),
    );
    if (!opts.quiet) console.log(formatRenderSummary(r));
  });

  recordingFlags(
    puppet
      .command('tune')
      .description(
        'sweep the smoothing strength and thresholds over recordings and report jitter against lag for each setting (and the error from the clean input with --noise); the chosen row is marked',
      )
      .argument(
        '<recordings...>',
        'landmark recordings (the recording format, or tfjs references with --image-size)',
      )
      .option(
        '--resample <fps>',
        'resample each recording at this rate first (a 5 fps reference to a webcam rate)',
        positive('--resample', 1000),
      )
      .option(
        '--noise <sigma>',
        'add seeded Gaussian landmark noise, a fraction of the image height (e.g. 0.003); the input is the clean reference',
        positive('--noise', 0.5),
      )
      .option('--seeds <n>', 'noisy copies per recording with --noise (default 3)', (v: string) => {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 1 || n > 100)
          throw new InvalidArgumentError(`--seeds: '${v}' is not a whole number 1..100`);
        return n;
      })
      .option(
        '--grid <option=v1,v2>',
        `values to sweep (repeatable; default ${Object.entries(DEFAULT_TUNE_GRID)
          .map(([k, v]) => `${k}=${v?.join(',')}`)
          .join(' ')})`,
        gridArg,
      )
      .option('--max-lag <ms>', 'lag allowed for the chosen row (default 100)', positive('--max-lag', 10000))
      .option('--json <file>', 'also write the rows as JSON', outFileArg('--json'))
      .option(
        '--character <folder|png...>',
        'drawings to run each recording onto for the mesh figures (flipped triangles, area stretch, LBS against ARAP); default the embedded drawing',
      )
      .option('--no-mesh', 'no mesh figures')
      .option('-q, --quiet', 'print nothing but errors'),
  ).action(async (recordings: string[], opts) => {
    if (opts.seeds !== undefined && opts.noise === undefined)
      throw new InvalidArgumentError('--seeds applies to --noise');
    const r = await withInterrupts('kind puppet tune', () =>
      runPuppetTune({
        recordings,
        recording: recordingOptions(opts),
        resampleFps: opts.resample,
        noise: opts.noise,
        seeds: opts.seeds,
        grid: opts.grid,
        maxLagMs: opts.maxLag,
        json: opts.json,
        characters: opts.mesh === false ? false : opts.character,
      }),
    );
    if (!opts.quiet) {
      console.log(formatTune(r));
      if (opts.json) console.log(`wrote ${opts.json}`);
    }
  });
}
