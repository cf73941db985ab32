/**
 * The `kind` command line (Node only). Subcommands: `retarget`, `inspect`, `live`, `qa`, `cleanup`, `puppet`, `mocap`.
 * Exit code 0 on success; 1 with a one-line error on failure (`kind live`: also when it received no
 * frame at all, with the reason); 2 on a usage error; `kind qa` exits 3
 * when a clip is Error (src/cli/qa.ts); the commands that write exit 130 / 143 / 129 when interrupted
 * by SIGINT / SIGTERM / SIGHUP, leaving no temporary file and the previous outputs
 * (src/io/node/interrupt.ts); `kind live` stopped by SIGINT / SIGTERM exits 130 / 143 once its sockets
 * are closed.
 */
import * as path from 'node:path';
import { SingleBar } from 'cli-progress';
import { Command, InvalidArgumentError, Option } from 'commander';
import { defaultAssetsDir } from '../io/node';
import { INTERRUPT_EXIT_CODES, withInterrupts } from '../io/node/interrupt';
import { numberArg, outDirArg } from './args';
import { registerCleanupCommand } from './cleanup';
import { cleanupChoice, cleanupOptions } from './contactSource';
import { runInspect } from './inspect';
import { runLive } from './live';
import { registerMocapCommand } from './mocap';
import { registerPuppetCommand } from './puppet';
import { registerQaCommand } from './qa';
import { FPS_RANGE, formatSummary, fpsInRange, runRetarget } from './retarget';
import { formatVrmaSummary, runRetargetVrma } from './retargetVrma';

const VERSION = '0.1.0';

/** Exit code set by a command's action (`kind qa`: 3 for an Error clip); reset by `main`. */
let actionExitCode = 0;

function triple(value: string): [number, number, number] {
  const parts = value.split(',').map((p) => Number(p.trim()));
  if (parts.length !== 3 || !parts.every(Number.isFinite) || value.split(',').some((p) => p.trim() === '')) {
    throw new InvalidArgumentError(`--head-offset: '${value}' is not three numbers x,y,z in degrees`);
  }
  if (parts.some((a) => Math.abs(a) > 360)) {
    throw new InvalidArgumentError(
      `--head-offset: ${value} is out of range (each angle within -360..360 degrees)`,
    );
  }
  return [parts[0], parts[1], parts[2]];
}

const IK_MODES = ['auto', 'on', 'off'] as const;

/**
 * `--ik [mode]`: auto, on or off. Commander gives an optional value the next word, so
 * {@link ikBeforeFiles} first writes `--ik auto` where a bare `--ik` stands before a file name
 * (`--ik walk.bvh avatar.glb` works as it did before the modes existed); any other word is a mode.
 */
function ikMode(value: string): (typeof IK_MODES)[number] {
  if ((IK_MODES as readonly string[]).includes(value)) return value as (typeof IK_MODES)[number];
  throw new InvalidArgumentError(
    `--ik: '${value}' is not one of auto, on, off${/[./\\]/.test(value) ? ' (a file name? put --ik after the files, or write --ik auto)' : ''}`,
  );
}

/**
 * The argument list with `auto` inserted after a bare `--ik` whose next word names a file (it has a
 * `.`, `/` or `\` and is not a mode), so a file given after `--ik` stays a file. Returns a new array.
 */
export function ikBeforeFiles(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    out.push(argv[i]);
    const next = argv[i + 1];
    if (
      argv[i] === '--ik' &&
      next !== undefined &&
      !next.startsWith('-') &&
      !(IK_MODES as readonly string[]).includes(next) &&
      /[./\\]/.test(next)
    )
      out.push('auto');
  }
  return out;
}

/** `--vrma [out.vrma]`: the value must name a .vrma (a file name of another kind is a misplaced argument). */
function vrmaPath(value: string): string {
  if (/\.vrma$/i.test(value)) return value;
  throw new InvalidArgumentError(
    `--vrma: '${value}' is not a .vrma file name (put --vrma after the take, or give the output as out.vrma)`,
  );
}

/** Options of `kind retarget` that act on an avatar: refused with --vrma (the .vrma has none). */
const AVATAR_ONLY = [
  ['map', '--map'],
  ['scale', '--scale'],
  ['hips', '--hips'],
  ['ground', '--ground'],
  ['pose', '--pose'],
  ['headOffset', '--head-offset'],
  ['headScale', '--head-scale'],
  ['shoulderTwist', '--shoulder-twist'],
  ['avatarPose', '--avatar-pose'],
  ['ik', '--ik'],
  ['cleanup', '--cleanup'],
  ['cleanupModel', '--cleanup-model'],
] as const;

export function buildProgram(): Command {
  const program = new Command('kind')
    .description('KindRetargeting: humanoid retargeting, from the command line')
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    // a command's options after its subcommand's name belong to the subcommand (`kind puppet render
    // --landmarks x`: render's, not the page's); commander needs this on the root for nested commands
    .enablePositionalOptions()
    .exitOverride(); // subcommands inherit this: errors and --help throw instead of calling process.exit

  program
    .command('retarget')
    .description(
      'retarget a mocap clip onto a humanoid avatar; writes <dir>/<clip>.glb, <dir>/<clip>.bvh and <dir>/summary.json.\nWith no files, uses the embedded default (a keyframed walk onto an A-pose avatar).',
    )
    .argument('[source]', 'source clip: .bvh, or .glb/.gltf/.vrm with --clip')
    .argument('[avatar]', 'target avatar: .glb, .gltf or .vrm (none with --vrma)')
    .option('-o, --out <dir>', 'output folder', outDirArg, 'out')
    .option(
      '--vrma [file]',
      'write the take as a VRM Animation (.vrma, VRMC_vrm_animation-1.0) instead: no avatar; default <dir>/<clip>.vrma',
      vrmaPath,
    )
    .option('--clip <name>', 'animation to use when the source is a glTF/VRM file (default: the first)')
    .option(
      '--fps <n>',
      'sampling rate for glTF source clips with uneven keys',
      numberArg('--fps', FPS_RANGE.text, fpsInRange),
    )
    .option(
      '--from-frame <n>',
      "calibrate on this source frame, taken as the performer's reference pose (see --pose)",
      numberArg('--from-frame', 'a frame index: 0, 1, 2, ...', (v) => Number.isInteger(v) && v >= 0),
    )
    .addOption(
      new Option('--pose <kind>', 'reference pose kind for calibration').choices(['T', 'I']).default('T'),
    )
    .option(
      '--map <json>',
      'humanoid map override for the avatar: a JSON file, or inline JSON {"LeftUpperArm": "boneName", ...}',
    )
    .option('--source-map <json>', 'humanoid map override for the source: a JSON file, or inline JSON {...}')
    .option(
      '--scale <s>',
      'avatar scale (1 = as authored; a scale on the hips bone)',
      numberArg('--scale', 'more than 0, at most 100', (v) => v > 0 && v <= 100),
    )
    .addOption(
      new Option(
        '--hips <mode>',
        'hips position: scaled (path scaled by the hips-height ratio) or room (as is, plus the leg-length difference)',
      )
        .choices(['scaled', 'room'])
        .default('scaled'),
    )
    .addOption(
      new Option(
        '--ground <mode>',
        'hips height from the source floor contact level (contact) or from y = 0 (origin)',
      )
        .choices(['contact', 'origin'])
        .default('contact'),
    )
    .addOption(
      new Option('--source-up <axis>', 'up axis of the source data')
        .choices(['auto', '+x', '-x', '+y', '-y', '+z', '-z'])
        .default('auto'),
    )
    .option(
      '--source-unit <metres>',
      'metres per BVH unit (default: guessed from the skeleton size)',
      numberArg('--source-unit', 'metres per unit, more than 0, at most 1000', (v) => v > 0 && v <= 1000),
    )
    .option('--head-offset <x,y,z>', 'head rotation offset in degrees', triple)
    .option(
      '--head-scale <s>',
      'head scale (a scale on the head bone)',
      numberArg('--head-scale', 'more than 0, at most 100', (v) => v > 0 && v <= 100),
    )
    .addOption(
      new Option(
        '--avatar-pose <pose>',
        "the avatar's reference: t-pose (its rest straightened into the T-pose) or rest (its rest as its T-pose as authored, as VRM players take a VRM avatar)",
      )
        .choices(['t-pose', 'rest'])
        .default('t-pose'),
    )
    .addOption(
      new Option(
        '--shoulder-twist <mode>',
        "shoulder (clavicle) twist about its own axis: keep the source's, or drop it as Unity's Humanoid does (joint positions unchanged)",
      )
        .choices(['keep', 'drop'])
        .default('keep'),
    )
    .addOption(
      new Option(
        '--ik [mode]',
        "run the live hub with IK (targets: the source's hands and feet): auto (the default with --ik alone: arms when the hands meet or touch a prop, legs when the feet are near the floor, decided per frame), on (all four limbs always) or off (the plain retarget); adds IK figures to summary.json",
      )
        .preset('auto')
        .argParser(ikMode),
    )
    .addOption(cleanupOptions()[0])
    .addOption(cleanupOptions()[1])
    .option('-q, --quiet', 'print nothing but errors')
    .action(async (sourceArg: string | undefined, avatarArg: string | undefined, opts, cmd: Command) => {
      if (opts.vrma !== undefined) {
        if (!sourceArg)
          throw new InvalidArgumentError('--vrma: give the take to write (kind retarget <take> --vrma)');
        if (avatarArg)
          throw new InvalidArgumentError(
            `--vrma writes a VRM Animation, which needs no avatar: drop '${avatarArg}' or --vrma`,
          );
        const given = AVATAR_ONLY.filter(([k]) => cmd.getOptionValueSource(k) === 'cli').map(([, f]) => f);
        if (given.length > 0)
          throw new InvalidArgumentError(`${given.join(', ')}: not with --vrma (they act on an avatar)`);
        const s = await withInterrupts('kind retarget', () =>
          runRetargetVrma({
            source: sourceArg,
            vrma: opts.vrma === true ? undefined : opts.vrma,
            outDir: opts.out,
            clip: opts.clip,
            fps: opts.fps,
            sourceMap: opts.sourceMap,
            sourceUp: opts.sourceUp,
            sourceUnit: opts.sourceUnit,
            fromFrame: opts.fromFrame,
          }),
        );
        if (!opts.quiet) console.log(formatVrmaSummary(s));
        return;
      }
      const cleanup = cleanupChoice(opts, cmd);
      if (opts.ik === 'auto' || opts.ik === 'on') {
        // the live hub's ranges (src/rig/settings.ts SETTINGS_LIMITS), checked before anything loads
        if (opts.scale !== undefined && !(opts.scale >= 0.1 && opts.scale <= 3))
          throw new InvalidArgumentError(`--scale: ${opts.scale} is out of range with --ik (0.1..3)`);
        if (opts.headScale !== undefined && !(opts.headScale >= 0.1 && opts.headScale <= 3))
          throw new InvalidArgumentError(
            `--head-scale: ${opts.headScale} is out of range with --ik (0.1..3)`,
          );
        if (opts.headOffset?.some((a: number) => Math.abs(a) > 180))
          throw new InvalidArgumentError(
            `--head-offset: ${opts.headOffset.join(',')} is out of range with --ik (each angle within -180..180 degrees)`,
          );
      }
      let source = sourceArg;
      let avatar = avatarArg;
      if (!source && !avatar) {
        const dir = defaultAssetsDir();
        source = path.join(dir, 'default-walk.bvh');
        avatar = path.join(dir, 'default-avatar.glb');
        if (!opts.quiet)
          console.log(
            `no files given: using the embedded default (${path.relative(process.cwd(), dir) || dir})`,
          );
      } else if (!avatar) {
        throw new InvalidArgumentError(
          'give both a source and an avatar, or neither for the embedded default (or a source with --vrma [out.vrma] to write it as a VRM Animation, no avatar needed)',
        );
      }
      let bar: SingleBar | null = null;
      // a signal during the write is handled after it, before the guard goes (withInterrupts)
      const summary = await withInterrupts('kind retarget', () =>
        runRetarget({
          source: source!,
          avatar: avatar!,
          outDir: opts.out,
          clip: opts.clip,
          fps: opts.fps,
          fromFrame: opts.fromFrame,
          pose: opts.pose,
          map: opts.map,
          sourceMap: opts.sourceMap,
          scale: opts.scale,
          hips: opts.hips,
          sourceUp: opts.sourceUp,
          sourceUnit: opts.sourceUnit,
          headOffset: opts.headOffset,
          headScale: opts.headScale,
          ground: opts.ground,
          shoulderTwist: opts.shoulderTwist,
          avatarPose: opts.avatarPose,
          ik: opts.ik,
          cleanup,
          onProgress: (done, total) => {
            if (opts.quiet || total < 600 || !process.stderr.isTTY) return;
            if (!bar) {
              bar = new SingleBar({
                format: 'retargeting [{bar}] {percentage}% | {value}/{total} frames',
                stream: process.stderr,
              });
              bar.start(total, 0);
            }
            bar.update(done);
            if (done === total) bar.stop();
          },
        }),
      );
      if (!opts.quiet) console.log(formatSummary(summary));
    });

  program
    .command('live')
    .description(
      'drive avatars live from OptiTrack Motive over NatNet (or a replayed clip, or the webcam mocap page: --source browser), with the remote control on ws://127.0.0.1:64212/retargeting and a web viewer',
    )
    .option(
      '--natnet <host>',
      'Motive (NatNet server) address; without it a clip is replayed over NatNet on loopback',
    )
    .option(
      '--command-port <n>',
      'NatNet command port',
      numberArg('--command-port', '1..65535', (v) => Number.isInteger(v) && v > 0 && v < 65536),
      1510,
    )
    .option(
      '--multicast',
      'receive NatNet frames by multicast, from the group and data port the server advertises, instead of unicast',
    )
    .option(
      '--multicast-group <a.b.c.d>',
      'multicast group to join instead of the advertised one (implies --multicast)',
      (v: string) => {
        const p = v.split('.');
        if (p.length !== 4 || !p.every((x) => /^\d{1,3}$/.test(x) && Number(x) <= 255))
          throw new InvalidArgumentError(`--multicast-group: '${v}' is not a dotted IPv4 address`);
        if (Number(p[0]) < 224 || Number(p[0]) > 239)
          throw new InvalidArgumentError(
            `--multicast-group: ${v} is not a multicast address (224.0.0.0 to 239.255.255.255)`,
          );
        return p.map(Number).join('.');
      },
    )
    .option(
      '--data-port <n>',
      'NatNet data port instead of the advertised one (implies --multicast)',
      numberArg('--data-port', '1..65535', (v) => Number.isInteger(v) && v > 0 && v < 65536),
    )
    .option('--replay <clip.bvh>', 'clip to replay (default: the embedded walk)')
    .addOption(
      new Option(
        '--source <kind>',
        'where poses come from: natnet (Motive, with --natnet), replay (a clip over NatNet on loopback) or browser (the webcam mocap page of kind mocap streaming to ws://127.0.0.1:<remote-port>/source); default natnet with --natnet, else replay',
      ).choices(['natnet', 'replay', 'browser']),
    )
    .option(
      '--rate <x>',
      'replay speed factor',
      numberArg('--rate', 'above 0, at most 100', (v) => v > 0 && v <= 100),
      1,
    )
    .option('--skeleton <name>', 'streamed skeleton to follow (default: the first)')
    .option(
      '--avatar <file>',
      'avatar (.glb, .gltf, .vrm); repeat for several',
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option(
      '--remote-port <n>',
      'remote-control port (0 = any free one)',
      numberArg('--remote-port', '0..65535', (v) => Number.isInteger(v) && v >= 0 && v < 65536),
      64212,
    )
    .option(
      '--remote-open',
      'accept remote-control connections from the network (default: this machine only)',
    )
    .option('--token <secret>', 'shared token remote clients must give as ?token=')
    .option(
      '--allow-origin <origin...>',
      "web pages (origins such as http://192.168.1.5:8080, or *) allowed to use the remote control and the viewer besides the viewer's own; others get 403",
    )
    .option(
      '--viewer-port <n>',
      'viewer port (0 = any free one)',
      numberArg('--viewer-port', '0..65535', (v) => Number.isInteger(v) && v >= 0 && v < 65536),
      8064,
    )
    .option(
      '--duration <s>',
      'stop after this many seconds (default: run until Ctrl-C)',
      numberArg('--duration', 'above 0, at most 2000000 (23 days)', (v) => v > 0 && v <= 2e6),
    )
    .option('-q, --quiet', 'print nothing but errors')
    .action(async (opts) => {
      if (!opts.avatar || opts.avatar.length === 0) {
        throw new InvalidArgumentError('--avatar: give at least one avatar file (.glb, .gltf or .vrm)');
      }
      if (opts.natnet !== undefined && opts.replay !== undefined) {
        throw new InvalidArgumentError('--natnet and --replay: give one source');
      }
      if (opts.source === 'browser' && (opts.natnet !== undefined || opts.replay !== undefined)) {
        throw new InvalidArgumentError(
          '--source browser: the page is the source; leave out --natnet and --replay',
        );
      }
      if (opts.source === 'natnet' && opts.natnet === undefined) {
        throw new InvalidArgumentError("--source natnet: give Motive's address with --natnet <host>");
      }
      if (opts.source === 'replay' && opts.natnet !== undefined) {
        throw new InvalidArgumentError('--source replay and --natnet: give one source');
      }
      if (opts.natnet !== undefined && opts.natnet.trim() === '') {
        throw new InvalidArgumentError("--natnet: empty address; give the Motive machine's host name or IP");
      }
      if (opts.token !== undefined && opts.token === '') {
        throw new InvalidArgumentError('--token: empty; give a secret, or leave the option out');
      }
      const run = await runLive({
        natnet:
          opts.natnet !== undefined
            ? {
                host: opts.natnet,
                commandPort: opts.commandPort,
                multicast:
                  opts.multicast === true || opts.multicastGroup !== undefined || opts.dataPort !== undefined,
                multicastAddress: opts.multicastGroup,
                dataPort: opts.dataPort,
              }
            : undefined,
        replay: opts.replay,
        source: opts.source,
        rate: opts.rate,
        skeleton: opts.skeleton,
        avatars: opts.avatar,
        remotePort: opts.remotePort,
        remoteHost: opts.remoteOpen ? '0.0.0.0' : '127.0.0.1',
        token: opts.token,
        allowedOrigins: opts.allowOrigin,
        viewerPort: opts.viewerPort,
        duration: opts.duration,
        quiet: opts.quiet === true,
      });
      // stopped by Ctrl-C or SIGTERM, once every socket is closed: 130 / 143, as the other commands
      if (run.signal) actionExitCode = INTERRUPT_EXIT_CODES[run.signal];
    });

  program
    .command('inspect')
    .description('print the skeleton, the humanoid map found and what is missing')
    .argument('<file>', '.bvh, .glb, .gltf or .vrm')
    .option('--map <json>', 'humanoid map override: a JSON file, or inline JSON {"Jaw": null, ...}')
    .action(async (file: string, opts) => {
      console.log(await runInspect(file, { map: opts.map }));
    });

  registerQaCommand(program, (code) => {
    actionExitCode = code;
  });
  registerCleanupCommand(program, (code) => {
    actionExitCode = code;
  });
  registerPuppetCommand(program, (code) => {
    actionExitCode = code;
  });
  registerMocapCommand(program, (code) => {
    actionExitCode = code;
  });
  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  if (argv.length <= 2) {
    // no command: a usage error (help on stderr, exit 2), as `kind --help` is the way to ask for help
    process.stderr.write(program.helpInformation());
    return 2;
  }
  actionExitCode = 0;
  try {
    await program.parseAsync(ikBeforeFiles(argv));
    return actionExitCode;
  } catch (e) {
    const err = e as { code?: string; exitCode?: number; message?: string };
    if (
      err.code === 'commander.helpDisplayed' ||
      err.code === 'commander.version' ||
      err.code === 'commander.help'
    )
      return 0;
    if (
      e instanceof InvalidArgumentError &&
      err.code === 'commander.invalidArgument' &&
      !err.message?.startsWith('error:')
    ) {
      // thrown by an action (not by commander's own parsing, which has already printed its message)
      console.error(`kind: ${e.message}`);
      return 2;
    }
    if (typeof err.code === 'string' && err.code.startsWith('commander.')) return 2;
    const msg = (err.message ?? String(e)).split('\n')[0];
    console.error(`kind: ${msg}`);
    if (process.env.KIND_DEBUG) console.error(e);
    return 1;
  }
}
