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
 * Exit codes: 0 done; 1 bad input (one line naming the file, frame, landmark, joint or field; nothing
 * written); 2 usage; 130 / 143 / 129 interrupted.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SingleBar } from 'cli-progress';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { applyPalette, GIFEncoder, quantize } from 'gifenc';
import {
  defaultAssetsDir,
  encodePng,
  isAnimatedDrawingsFolder,
  type LoadedRecording,
  loadLandmarkRecording,
  type RecordingLoadOptions,
  readInput,
} from '../io/node';
import { interruptPoint, serveUntilSignal, withInterrupts } from '../io/node/interrupt';
import {
  addLandmarkNoise,
  type Character,
  chooseTuneRow,
  createJointSet,
  DEFAULT_DEFORM_MODE,
  DEFAULT_POSE_OPTIONS,
  DEFAULT_TUNE_GRID,
  DEFORM_MODES,
  type DeformMode,
  formatMapping,
  frameHasPerson,
  framesText,
  JOINT_STATES,
  type KeypointFileInfo,
  type LandmarkRecording,
  type PoseOptions,
  PUPPET_JOINT_COUNT,
  type PuppetFile,
  PuppetInputError,
  type PuppetLayerStats,
  type PuppetMeshStats,
  PuppetRecorder,
  PuppetSession,
  parseCharCfg,
  type RgbaImage,
  rasterize,
  resampleRecording,
  resolvePoseOptions,
  STATE_RGB,
  serializeLandmarkRecording,
  type TakeQuality,
  type TuneGrid,
  type TuneMeshRow,
  type TuneRow,
  tune,
  tuneMesh,
  WEIGHT_MODES,
  type WeightMode,
} from '../puppet';
import { checkCharacter } from '../puppet/characterChecks';
import { numberArg, outDirArg, outFileArg } from './args';
import {
  checkOutputDir,
  createOutputDirUndoable,
  refuseOverwritingInputs,
  stageFolder,
  writeFilesAtomically,
} from './files';
import { loadPuppetCharacter } from './puppetCharacter';
import { DEFAULT_PUPPET_PORT, type PuppetServer, startPuppetServer } from './puppetServe';
import {
  noteNoPreviousOutputs,
  refuseForeignFrames,
  removeStaleTemporaries,
  sweepStaleBackups,
} from './puppetTemps';

/** The embedded default: `assets/default/puppet` (texture.png, mask.png, char_cfg.yaml, recording.json). */
export function defaultPuppetDir(): string {
  return path.join(defaultAssetsDir(), 'puppet');
}

const J = PUPPET_JOINT_COUNT;

export interface PuppetRenderOptions {
  /** AnimatedDrawings folder or an image (PNG); default the embedded drawing. */
  character?: string;
  /** Landmark recording, tfjs reference or tfjs-models keypoint file (io/node loadLandmarkRecording); default the embedded recording. */
  landmarks?: string;
  /** An AnimatedDrawings retarget config for an AnimatedDrawings character (src/puppet/retargetCfg.ts). */
  retargetCfg?: string;
  outDir: string;
  recording?: RecordingLoadOptions;
  pose?: Partial<PoseOptions>;
  weights?: WeightMode;
  /** 'arap' (default) or 'lbs' (deform.ts). */
  deform?: DeformMode;
  /** Draw the joints (coloured by state) and bones over the frames. */
  joints?: boolean;
  /** RGBA background of the frames (alpha 0 = transparent PNGs; the GIF then uses white). Default white. */
  background?: [number, number, number, number];
  /** Write preview.gif (default true). */
  preview?: boolean;
  /**
   * Depth-ordered body-part layers (depthOrder.ts; default true). false: one mesh in its static order (limbs
   * over the body), drawn exactly as before layers existed.
   */
  layers?: boolean;
  onProgress?: (done: number, total: number) => void;
  /**
   * A line to show at once, before the slow part it announces (a big drawing scaled down; stale temporaries
   * removed). Without it those lines go to the result's notes.
   */
  onNote?: (line: string) => void;
}

export interface PuppetRenderResult {
  file: PuppetFile;
  character: Character;
  loaded: LoadedRecording;
  outputs: { frames: string; preview: string | null; json: string; frameCount: number };
  notes: string[];
  /** What the drawing's files make doubtful (characterChecks.ts), one line each: printed as `warning:`. */
  warnings: string[];
  /** Wall-clock figures of this run (ms; not in puppet.json, which stays deterministic). */
  timing: {
    setupMs: number;
    poseRigSkinMsPerFrame: number;
    /** Of which the deformation (LBS, or LBS + ARAP + guard): ms per frame. */
    deformMsPerFrame: number;
    rasterMsPerFrame: number;
    pngMsPerFrame: number;
  };
}

/** Frame file name: 4 digits, more when the recording has 10,000 frames or more. */
export function frameName(i: number, total: number): string {
  return `${String(i).padStart(Math.max(4, String(total - 1).length), '0')}.png`;
}

const MARGIN = 8;

/**
 * Render a recording onto a drawing (two passes over the frames: the first poses and measures, and finds
 * the frame size that holds the drawing in every frame; the second rasterises). Writes nothing on error.
 * @throws Error / PuppetInputError naming the file, frame, landmark, joint or field: no person in any frame,
 *   an empty mask, a char_cfg.yaml missing joints, a landmark array of 32 points, NaN.
 */
export async function runPuppetRender(o: PuppetRenderOptions): Promise<PuppetRenderResult> {
  const forget = noteNoPreviousOutputs(o.outDir);
  try {
    return await renderPuppet(o);
  } finally {
    forget();
  }
}

async function renderPuppet(o: PuppetRenderOptions): Promise<PuppetRenderResult> {
  checkOutputDir(o.outDir);
  // the commit replaces the whole frames folder: a file of the user's there would be lost
  refuseForeignFrames(path.join(o.outDir, 'frames'));
  const notes: string[] = [];
  // staged outputs of an earlier run killed outright (SIGKILL) go, and one line says so
  // lines to show at once (the terminal), else among the notes (callers without onNote)
  const say = o.onNote ?? ((l: string) => notes.push(l));
  const stale = removeStaleTemporaries(o.outDir);
  if (stale) say(stale);
  for (const l of sweepStaleBackups(o.outDir)) say(l);
  const characterPath = o.character ?? defaultPuppetDir();
  const landmarksPath = o.landmarks ?? path.join(defaultPuppetDir(), 'recording.json');
  const outputs = {
    frames: path.join(o.outDir, 'frames'),
    preview: o.preview === false ? null : path.join(o.outDir, 'preview.gif'),
    json: path.join(o.outDir, 'puppet.json'),
  };
  // the recording first: it is cheap to read (and read only), a file with nobody in it fails before any
  // set-up, and it names the world landmarks file a tfjs recording brings along
  const loaded = loadLandmarkRecording(landmarksPath, o.recording);
  const rec = loaded.recording;
  // a single frame has no rate: the fps a file without timestamps was read at plays no part
  notes.push(...loaded.notes.filter((n) => rec.frames.length > 1 || !/has no timestamps: read at/.test(n)));
  // no output may replace an input: the files by device and inode, the frames folder by path
  const inputs = [
    { role: 'landmark recording', path: landmarksPath },
    { role: 'character', path: characterPath },
    ...(loaded.worldFile ? [{ role: 'world landmarks file', path: loaded.worldFile }] : []),
    ...(o.retargetCfg ? [{ role: 'retarget config', path: o.retargetCfg }] : []),
  ];
  refuseOverwritingInputs([outputs.json, ...(outputs.preview ? [outputs.preview] : [])], inputs);
  const frames = path.resolve(outputs.frames);
  for (const i of inputs) {
    const p = path.resolve(i.path);
    if (p === frames || p.startsWith(`${frames}${path.sep}`))
      throw new Error(`${outputs.frames}: would replace the ${i.role} ${i.path}; choose another -o folder`);
  }
  const space = o.pose?.space ?? 'auto';
  if (!rec.frames.some((f) => frameHasPerson(f, space)))
    throw new PuppetInputError(noPersonMessage(rec.frames.length, space), landmarksPath);
  const { character, scaled } = await loadPuppetCharacter(characterPath, {
    ...(o.character === undefined ? { name: 'default' } : {}),
    retargetCfgFile: o.retargetCfg,
    onScaled: (line) => say(`${line}; the frames and puppet.json are in those pixels`),
  });
  const warnings = [...(loaded.warnings ?? []), ...characterWarnings(characterPath, character)];
  await interruptPoint();
  if (!isAnimatedDrawingsFolder(characterPath))
    notes.push(
      `${path.basename(characterPath)}: no char_cfg.yaml, so the joints are the default skeleton fitted to the drawing's bounding box; where its limbs are drawn elsewhere, place the joints in the page (Suggest joints, Edit joints) or give an AnimatedDrawings folder`,
    );
  const t0 = performance.now();
  const session = await PuppetSession.create(
    character,
    {
      pose: o.pose,
      image: rec.image,
      weights: o.weights,
      deform: o.deform,
      ...(o.layers === false ? { layers: false as const } : {}),
    },
    interruptPoint,
  );
  const setupMs = performance.now() - t0;
  await interruptPoint();

  // pass 1: pose, measure, bounds of the posed drawing
  const recorder = new PuppetRecorder(session);
  let minX = 0;
  let minY = 0;
  let maxX = character.width;
  let maxY = character.height;
  const tPose = performance.now();
  let deformMs = 0;
  const probe = new Float32Array(session.skinned.length);
  for (const frame of rec.frames) {
    const report = session.step(frame);
    // the deformation again on the same transforms, timed alone (the same result: no state between frames)
    const td = performance.now();
    if (session.posed) session.deformer.deform(session.transforms, probe);
    deformMs += performance.now() - td;
    recorder.add(frame.timestampMs, report);
    const s = session.skinned;
    for (let i = 0; i < s.length; i += 2) {
      if (s[i] < minX) minX = s[i];
      if (s[i] > maxX) maxX = s[i];
      if (s[i + 1] < minY) minY = s[i + 1];
      if (s[i + 1] > maxY) maxY = s[i + 1];
    }
  }
  const poseMs = (performance.now() - tPose - deformMs) / rec.frames.length;
  const stats = recorder.stats();
  // the frame: the drawing's page grown to hold the posed drawing, at most one drawing size each side
  const W = character.width;
  const H = character.height;
  const left = Math.ceil(Math.min(W, Math.max(0, -minX) + (minX < 0 ? MARGIN : 0)));
  const top = Math.ceil(Math.min(H, Math.max(0, -minY) + (minY < 0 ? MARGIN : 0)));
  const right = Math.ceil(Math.min(W, Math.max(0, maxX - W) + (maxX > W ? MARGIN : 0)));
  const bottom = Math.ceil(Math.min(H, Math.max(0, maxY - H) + (maxY > H ? MARGIN : 0)));
  const frameInfo = { width: W + left + right, height: H + top + bottom, originX: left, originY: top };
  if (left === W || top === H || right === W || bottom === H)
    notes.push(
      'the posed drawing reached more than one drawing size outside its page in some frame: the frames are cropped there',
    );
  await interruptPoint();

  // pass 2: rasterise each frame into the staged frames folder, and the GIF
  // a folder made here goes again if the run is interrupted or fails before writing into it
  const outDirDone = createOutputDirUndoable(o.outDir);
  let staged: ReturnType<typeof stageFolder>;
  try {
    staged = stageFolder(outputs.frames);
  } catch (e) {
    outDirDone(false);
    throw e;
  }
  const bg = o.background ?? [255, 255, 255, 255];
  const gifBg: [number, number, number, number] = bg[3] === 0 ? [255, 255, 255, 255] : bg;
  try {
    const target: RgbaImage = {
      width: frameInfo.width,
      height: frameInfo.height,
      data: new Uint8Array(frameInfo.width * frameInfo.height * 4),
    };
    const gifTarget: RgbaImage | null =
      outputs.preview && bg[3] === 0
        ? { width: target.width, height: target.height, data: new Uint8Array(target.data.length) }
        : null;
    const shifted = new Float32Array(session.skinned.length);
    const overlay = createJointSet(session.rig.jointCount);
    const gif = outputs.preview ? GIFEncoder() : null;
    const palette = gif ? framePalette(character, gifBg, o.joints === true) : null;
    session.reset();
    let rasterMs = 0;
    let pngMs = 0;
    let gifCs = 0;
    const n = rec.frames.length;
    for (let f = 0; f < n; f++) {
      session.step(rec.frames[f]);
      const s = session.skinned;
      for (let i = 0; i < s.length; i += 2) {
        shifted[i] = s[i] + left;
        shifted[i + 1] = s[i + 1] + top;
      }
      const d = session.drawingJoints;
      for (let j = 0; j < overlay.x.length; j++) {
        overlay.x[j] = d.x[j] + left;
        overlay.y[j] = d.y[j] + top;
      }
      overlay.confidence.set(d.confidence);
      overlay.state.set(d.state);
      const tr = performance.now();
      const ro = {
        background: bg,
        drawJoints: o.joints ? overlay : undefined,
        parents: session.rig.skeleton.parents,
        order: session.drawOrder?.order,
      };
      rasterize(character, session.mesh, shifted, target, ro);
      if (gifTarget) rasterize(character, session.mesh, shifted, gifTarget, { ...ro, background: gifBg });
      const tp = performance.now();
      rasterMs += tp - tr;
      fs.writeFileSync(path.join(staged.dir, frameName(f, n)), encodePng(target));
      pngMs += performance.now() - tp;
      if (gif && palette) {
        const src = gifTarget ?? target;
        // GIF delays are whole centiseconds: each frame ends at the centisecond nearest its true end, so
        // rounding does not add up (30 fps plays as 3, 3, 4, 3, 3, 4 ... cs, not 3 cs: 10 % fast); at
        // least 2 cs, as browsers play shorter delays at 10 cs
        const end =
          f + 1 < n
            ? rec.frames[f + 1].timestampMs
            : rec.frames[f].timestampMs + 1000 / Math.max(1, stats.inputRateHz || 30);
        const endCs = Math.max(gifCs + 2, Math.round((end - rec.frames[0].timestampMs) / 10));
        const delay = (endCs - gifCs) * 10;
        gifCs = endCs;
        gif.writeFrame(applyPalette(src.data, palette), src.width, src.height, {
          palette: f === 0 ? palette : undefined,
          delay,
          repeat: 0,
        });
      }
      o.onProgress?.(f + 1, n);
      if (f % 8 === 7) await interruptPoint(); // Ctrl-C takes effect between frames
    }
    gif?.finish();
    const file = recorder.build({
      character,
      input: {
        source: landmarksPath,
        image: { ...rec.image },
        ...(loaded.keypoints ? { keypoints: keypointsInput(loaded.keypoints) } : {}),
      },
      frame: frameInfo,
      stats,
    });
    if (scaled) file.character.scaledFrom = scaled;
    const timing = {
      setupMs: Math.round(setupMs),
      poseRigSkinMsPerFrame: round3(poseMs),
      deformMsPerFrame: round3(deformMs / n),
      rasterMsPerFrame: round3(rasterMs / n),
      pngMsPerFrame: round3(pngMs / n),
    };
    await interruptPoint();
    // without a preview, an earlier run's preview.gif would stand beside frames it does not show
    const oldPreview = path.join(o.outDir, 'preview.gif');
    const { leftovers } = writeFilesAtomically([
      { path: outputs.frames, stagedDir: staged.dir },
      { path: outputs.json, data: `${JSON.stringify(file)}\n` },
      ...(outputs.preview && gif
        ? [{ path: outputs.preview, data: gif.bytes() }]
        : fs.existsSync(oldPreview)
          ? [{ path: oldPreview, remove: true as const }]
          : []),
    ]);
    outDirDone(true);
    for (const l of leftovers) notes.push(`the previous output moved aside could not be deleted: ${l}`);
    return { file, character, loaded, outputs: { ...outputs, frameCount: n }, notes, warnings, timing };
  } catch (e) {
    staged.discard();
    outDirDone(false);
    throw e;
  }
}

/**
 * The checks of characterChecks.ts on a loaded character: its char_cfg.yaml read again (cheap) for the
 * joints' lines and parents as written. @throws PuppetInputError when nothing of the drawing would move.
 */
export function characterWarnings(where: string, character: Character): string[] {
  if (!fs.statSync(where).isDirectory()) return checkCharacter(character, null, { cfg: '', mask: where });
  const cfgName = `${where.replace(/[/\\]$/, '')}/char_cfg.yaml`;
  const cfg = parseCharCfg(new TextDecoder().decode(readInput(path.join(where, 'char_cfg.yaml'))), cfgName);
  return checkCharacter(character, cfg, { cfg: cfgName, mask: `${where.replace(/[/\\]$/, '')}/mask.png` });
}

const round3 = (v: number) => Math.round(v * 1000) / 1000;

/** puppet.json `input.keypoints` of a tfjs-models keypoint file: what it lacks and which joints are always filled. */
function keypointsInput(k: KeypointFileInfo): NonNullable<PuppetFile['input']['keypoints']> {
  return {
    set: k.set,
    coordinates: k.coordinates,
    absentLandmarks: k.absentLandmarks,
    filledJoints: k.filledJoints,
    multiPoseFrames: k.multiPoseFrames,
  };
}

/** The error of a recording in which the pose side finds nobody. */
function noPersonMessage(frames: number, space: 'auto' | 'image' | 'world'): string {
  const where =
    space === 'world'
      ? 'no frame has 33 world landmarks (--set space=world)'
      : space === 'image'
        ? 'no frame has 33 image landmarks (--set space=image)'
        : 'every frame has "landmarks": [] or no landmarks';
  return `no person in any of the ${frames} frame(s) (${where}); nothing to drive the drawing`;
}

/**
 * One GIF palette for every frame: the rasteriser samples texels at the nearest texel, so a frame holds
 * only the drawing's own colours, the background and the overlay's: quantise those (gifenc, PnnQuant).
 */
function framePalette(
  c: Character,
  bg: readonly [number, number, number, number],
  overlay: boolean,
): number[][] {
  const n = c.width * c.height;
  const px: number[] = [];
  const step = Math.max(1, Math.floor(n / 200000));
  for (let i = 0; i < n; i += step) {
    if (!c.mask[i]) continue;
    const a = c.texture.data[4 * i + 3] / 255;
    for (let k = 0; k < 3; k++) px.push(Math.round(c.texture.data[4 * i + k] * a + bg[k] * (1 - a)));
    px.push(255);
  }
  const extra: number[][] = [[bg[0], bg[1], bg[2]]];
  if (overlay) extra.push(...STATE_RGB.map((c) => [c[0], c[1], c[2]]), [255, 255, 255], [0, 0, 0]);
  // the background and overlay colours weigh as much as a good share of the drawing
  for (const e of extra)
    for (let r = 0; r < Math.max(64, px.length / 40); r++) px.push(e[0], e[1], e[2], 255);
  return quantize(new Uint8Array(px), 256);
}

/** The terminal summary of a render, a few lines. */
export function formatRenderSummary(r: PuppetRenderResult, cwd = process.cwd()): string {
  const f = r.file;
  const s = f.stats;
  // paths as given; absolute ones (the embedded default) relative to the working folder when under it
  const rel = (p: string) => {
    if (!path.isAbsolute(p)) return p;
    const r = path.relative(cwd, p);
    return r === '' || r.startsWith('..') || path.isAbsolute(r) ? p : r;
  };
  const total = s.frames * J;
  const pct = (v: number) => `${((100 * v) / total).toFixed(1)}%`;
  const lines = [
    `rendered '${r.character.name}' (${f.image.width}x${f.image.height} px, ${f.mesh.vertices} vertices, ${f.mesh.weights} weights, ${f.mesh.deform} deformation) driven by ${rel(f.input.source)} (${framesText(s.frames)}, ${s.frames > 1 && s.inputRateHz > 0 ? `${s.inputRateHz.toFixed(1)} Hz` : 'rate unknown'}, camera ${f.input.image.width}x${f.input.image.height}, ${s.space} landmarks)`,
    `  person in ${s.personFrames}/${framesText(s.frames)}; visibility ${s.visibilityUnknownFrames === 0 ? 'given' : s.visibilityUnknownFrames === s.frames ? 'unknown (absent in the file)' : `unknown in ${s.visibilityUnknownFrames} frames`}`,
    `  joint-frames: ${JOINT_STATES.map((st) => `${st} ${s.states[st]}${st === 'measured' ? ` (${pct(s.states[st])})` : ''}`).join(', ')}`,
  ];
  const notMeasured = s.perJoint
    .map((p) => ({ name: p.name, n: s.frames - p.measured, p }))
    .filter((x) => x.n > 0)
    .sort((a, b) => b.n - a.n);
  if (notMeasured.length > 0) {
    const shown = notMeasured.slice(0, 4).map(
      (x) =>
        `${x.name} ${x.n} (${JOINT_STATES.filter((st) => st !== 'measured' && x.p[st] > 0)
          .map((st) => `${st} ${x.p[st]}`)
          .join(', ')})`,
    );
    lines.push(
      `  not measured: ${shown.join('; ')}${notMeasured.length > 4 ? `; ... ${notMeasured.length - 4} more joint(s) (puppet.json stats.perJoint)` : ''}`,
    );
  }
  lines.push(
    `  jitter (body scales/s^2, measured joints): raw ${s.jitter.raw.toFixed(2)} -> smoothed ${s.jitter.smoothed.toFixed(2)} (x${s.jitter.ratio.toFixed(2)}), lag ${Number.isFinite(s.lagMs) ? `${s.lagMs} ms` : '-'}; outliers dropped ${s.outliers}`,
  );
  // a character's own skeleton (six arms, four legs): the mapping used, one line per joint
  if (f.character.mapping.rule !== 'standard')
    lines.push(...formatMapping(f.character.mapping).map((l) => `  ${l}`));
  const t = r.timing;
  lines.push(formatMeshLine(s.mesh));
  lines.push(formatLayersLine(s.layers));
  lines.push(
    `  time: setup (mesh, weights, deformer) ${t.setupMs} ms; per frame pose + rig + ${f.mesh.deform === 'arap' ? 'LBS + ARAP' : 'LBS'} ${t.poseRigSkinMsPerFrame} ms (of which the deformation ${t.deformMsPerFrame} ms), rasterise ${t.rasterMsPerFrame} ms, PNG ${t.pngMsPerFrame} ms`,
  );
  for (const w of r.warnings) lines.push(`  warning: ${w}`);
  for (const n of r.notes) lines.push(`  note: ${n}`);
  const n = r.outputs.frameCount;
  lines.push(
    `  wrote ${rel(path.join(r.outputs.frames, frameName(0, n)))}${n > 1 ? ` .. ${frameName(n - 1, n)}` : ''} (${framesText(n)}, ${f.frame.width}x${f.frame.height}), ${r.outputs.preview ? `${rel(r.outputs.preview)}, ` : ''}${rel(r.outputs.json)}`,
  );
  return lines.join('\n');
}

/** One line of the layers (depthOrder.ts): the groups, how often the order changed, the order held longest. */
export function formatLayersLine(l: PuppetLayerStats): string {
  if (!l.enabled) return '  layers: off (one mesh, limbs over the body: --layers off)';
  const used = l.groups.filter((g) => g.triangles > 0);
  const frames = l.orders.reduce((a, o) => a + o.frames, 0);
  const longest = l.orders.reduce((a, o) => (o.frames > a.frames ? o : a), l.orders[0]);
  const times = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
  return `  layers: ${times(used.length, 'body-part group')} by depth (${used.map((g) => g.name).join(', ')}); the order changed ${times(l.orderChanges, 'time')} in ${framesText(frames)} (${times(l.orders.length, 'order')}; held longest, back to front: ${longest ? `${longest.order.join(' < ')}, ${framesText(longest.frames)}` : '-'})`;
}

/** One line of mesh figures: flipped triangles and the area stretch, the deformation against plain LBS. */
export function formatMeshLine(m: PuppetMeshStats): string {
  const take = (q: TakeQuality) =>
    `flipped triangles in ${q.framesWithFlips}/${framesText(q.frames)} (at most ${q.maxFlipped}), area stretch worst ${q.worstStretch.toFixed(2)} p99 ${q.p99Stretch.toFixed(2)}`;
  return m.deform === 'lbs'
    ? `  mesh (lbs): ${take(m.deformed)}`
    : `  mesh (arap): ${take(m.deformed)}${m.guard.framesNotConverged > 0 ? ` (the fold-over guard left ${m.guard.framesNotConverged} frame(s) out of bounds)` : ''}; plain LBS: ${take(m.lbs)}`;
}

// ------------------------------------------------------------------------------------------- tune

export interface PuppetTuneOptions {
  recordings: string[];
  recording?: RecordingLoadOptions;
  /** Resample every recording at this rate first (e.g. a 5 fps reference to a webcam's 30). */
  resampleFps?: number;
  /** Gaussian landmark noise, a fraction of the image height (tune.ts addLandmarkNoise); the input is then the clean reference. */
  noise?: number;
  /** Noise seeds (one noisy copy per seed); default 3 when `noise` is given. */
  seeds?: number;
  grid?: TuneGrid;
  /** Lag allowed for the chosen row, ms (default 100). */
  maxLagMs?: number;
  /** Write the rows as JSON here (all or nothing). */
  json?: string;
  /**
   * Drawings (AnimatedDrawings folders or images) to run each recording onto for the mesh figures
   * (flipped triangles, area stretch: LBS against ARAP, with the chosen row's options); default the embedded
   * drawing. `false`: no mesh figures.
   */
  characters?: string[] | false;
}

export interface PuppetTuneResult {
  rows: TuneRow[];
  /** Per recording and drawing: the mesh figures (empty when not asked for). */
  mesh: TuneMeshRow[];
  chosen: TuneRow;
  defaults: Partial<PoseOptions>;
  recordings: { source: string; frames: number; copies: number }[];
  notes: string[];
}

/** The tune sweep over recording files. @throws as loadLandmarkRecording; RangeError for a bad grid value. */
export async function runPuppetTune(o: PuppetTuneOptions): Promise<PuppetTuneResult> {
  if (o.json) {
    checkOutputDir(path.dirname(path.resolve(o.json)));
    refuseOverwritingInputs(
      [o.json],
      o.recordings.map((r) => ({ role: 'landmark recording', path: r })),
      'choose another --json file',
    );
  }
  const notes: string[] = [];
  const recs: LandmarkRecording[] = [];
  const clean: (LandmarkRecording | undefined)[] = [];
  const listed: PuppetTuneResult['recordings'] = [];
  const seeds = o.noise ? (o.seeds ?? 3) : 1;
  const meshRecs: LandmarkRecording[] = [];
  for (const file of o.recordings) {
    const loaded = loadLandmarkRecording(file, o.recording);
    notes.push(...loaded.notes);
    if (o.json && loaded.worldFile)
      refuseOverwritingInputs(
        [o.json],
        [{ role: 'world landmarks file', path: loaded.worldFile }],
        'choose another --json file',
      );
    let rec = loaded.recording;
    if (!rec.frames.some((f) => frameHasPerson(f, 'auto')))
      throw new PuppetInputError(noPersonMessage(rec.frames.length, 'auto'), file);
    if (rec.frames.length < 3)
      throw new PuppetInputError(`${rec.frames.length} frame(s); jitter needs at least 3`, file);
    if (o.resampleFps) rec = resampleRecording(rec, o.resampleFps);
    meshRecs.push({ ...rec, source: file });
    for (let s = 0; s < seeds; s++) {
      if (o.noise) {
        recs.push(addLandmarkNoise(rec, o.noise, s + 1));
        clean.push(rec);
      } else {
        recs.push(rec);
        clean.push(undefined);
      }
    }
    listed.push({ source: file, frames: rec.frames.length, copies: seeds });
    await interruptPoint();
  }
  const grid = o.grid ?? DEFAULT_TUNE_GRID;
  const rows = tune(recs, grid, { clean: o.noise ? clean : undefined });
  const chosen = chooseTuneRow(rows, o.maxLagMs ?? 100);
  const defaults = Object.fromEntries(
    Object.keys(grid).map((k) => [k, DEFAULT_POSE_OPTIONS[k as keyof PoseOptions]]),
  ) as Partial<PoseOptions>;
  const characters: Character[] = [];
  // a big drawing is scaled down as for render (puppetCharacter.ts), the line saying so among the notes
  for (const c of o.characters === false ? [] : (o.characters ?? [defaultPuppetDir()])) {
    const loadedCharacter = await loadPuppetCharacter(c, {
      ...(o.characters === undefined ? { name: 'default' } : {}),
      onScaled: (line) => notes.push(line),
    });
    characters.push(loadedCharacter.character);
    await interruptPoint();
  }
  await interruptPoint();
  const mesh = tuneMesh(characters, meshRecs, { pose: chosen.options });
  const result: PuppetTuneResult = { rows, mesh, chosen, defaults, recordings: listed, notes };
  if (o.json) {
    await interruptPoint();
    writeFilesAtomically([
      {
        path: o.json,
        data: `${JSON.stringify({ tool: 'kind puppet tune', ...result, grid, noise: o.noise ?? 0, resampleFps: o.resampleFps ?? null }, null, 1)}\n`,
      },
    ]);
  }
  return result;
}

const fmt = (v: number | undefined, d: number) =>
  v === undefined || !Number.isFinite(v) ? '-' : v.toFixed(d);

/** The tune table for the terminal: one row per setting, the chosen one and the defaults marked. */
export function formatTune(r: PuppetTuneResult): string {
  const keys = Object.keys(r.rows[0]?.options ?? {});
  const withErr = r.rows.some((x) => x.errorVsClean !== undefined);
  const same = (a: Partial<PoseOptions>, b: Partial<PoseOptions>) =>
    keys.every((k) => a[k as keyof PoseOptions] === b[k as keyof PoseOptions]);
  const head = [
    ...keys,
    'jitter raw',
    'smoothed',
    'ratio',
    'lag ms',
    ...(withErr ? ['error vs clean'] : []),
    'not measured',
    'outliers/100',
    '',
  ];
  const body = r.rows.map((x) => [
    ...keys.map((k) => String(x.options[k as keyof PoseOptions])),
    fmt(x.jitterRaw, 2),
    fmt(x.jitterFiltered, 2),
    fmt(x.jitterRatio, 3),
    fmt(x.lagMs, 0),
    ...(withErr ? [fmt(x.errorVsClean, 4)] : []),
    fmt(100 * x.notMeasured, 1),
    fmt(x.outliersPer100, 2),
    `${x === r.chosen ? '<- chosen' : ''}${same(x.options, r.defaults) ? `${x === r.chosen ? ', ' : '<- '}defaults` : ''}`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padStart(widths[i]))
      .join('  ')
      .trimEnd();
  const recs = r.recordings.map(
    (x) => `${x.source} (${framesText(x.frames)}${x.copies > 1 ? ` x ${x.copies} noise seeds` : ''})`,
  );
  return [
    `tune over ${recs.join(', ')}: ${r.rows.length} settings; jitter = mean joint acceleration, body scales/s^2; lag behind the raw joints${withErr ? '; error = RMS distance from the clean joints, body scales' : ''}`,
    line(head),
    ...body.map(line),
    `chosen (${withErr ? 'least error vs clean' : 'least smoothed jitter'} with lag <= the limit): ${keys.map((k) => `${k} ${r.chosen.options[k as keyof PoseOptions]}`).join(', ')}; defaults: ${keys.map((k) => `${k} ${r.defaults[k as keyof PoseOptions]}`).join(', ')}`,
    ...formatTuneMesh(r.mesh),
    ...r.notes.map((n) => `note: ${n}`),
  ].join('\n');
}

/** The mesh figures of tune: one line per recording and drawing, plain LBS -> ARAP. */
function formatTuneMesh(rows: TuneMeshRow[]): string[] {
  if (rows.length === 0) return [];
  const q = (t: TakeQuality) => `${t.framesWithFlips}/${t.frames} (${t.maxFlipped})`;
  return [
    'mesh, chosen options: frames with flipped triangles (most in a frame), area stretch max(r, 1/r) worst and p99; plain LBS -> the deformation',
    ...rows.map((x) => {
      const m = x.mesh;
      const d = m.deformed;
      const l = m.lbs;
      return `  ${x.recording} on ${x.character} (${m.deform}): flipped ${q(l)} -> ${q(d)}; stretch worst ${l.worstStretch.toFixed(2)} -> ${d.worstStretch.toFixed(2)}, p99 ${l.p99Stretch.toFixed(2)} -> ${d.p99Stretch.toFixed(2)}${m.guard.framesNotConverged > 0 ? `; guard not converged in ${m.guard.framesNotConverged} frame(s)` : ''}`;
    }),
  ];
}

// ------------------------------------------------------------------------------------------- args

/** `--image-size 720x1280`. */
export function imageSizeArg(value: string): { width: number; height: number } {
  const m = /^\s*(\d+)\s*[xX]\s*(\d+)\s*$/.exec(value);
  const w = m ? Number(m[1]) : Number.NaN;
  const h = m ? Number(m[2]) : Number.NaN;
  if (!m || !(w > 0 && h > 0 && w <= 65536 && h <= 65536))
    throw new InvalidArgumentError(`--image-size: '${value}' is not WIDTHxHEIGHT in pixels (e.g. 720x1280)`);
  return { width: w, height: h };
}

/** `--background white|transparent|#rrggbb`. */
export function backgroundArg(value: string): [number, number, number, number] {
  const v = value.trim().toLowerCase();
  if (v === 'white') return [255, 255, 255, 255];
  if (v === 'black') return [0, 0, 0, 255];
  if (v === 'transparent') return [0, 0, 0, 0];
  const m = /^#([0-9a-f]{6})$/.exec(v);
  if (!m)
    throw new InvalidArgumentError(`--background: '${value}' is not white, black, transparent or #rrggbb`);
  const n = Number.parseInt(m[1], 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255, 255];
}

/** A number above 0 and at most `max`. */
const positive = (name: string, max: number) =>
  numberArg(name, `above 0, at most ${max}`, (v) => v > 0 && v <= max);

/** The numeric pose options a command line may set (`--set smoothingMs=60`) or sweep (`--grid smoothingMs=0,30,60`). */
const NUMERIC_POSE_OPTIONS = Object.keys(DEFAULT_POSE_OPTIONS).filter(
  (k) => typeof DEFAULT_POSE_OPTIONS[k as keyof PoseOptions] === 'number',
);

function optionName(name: string, key: string): keyof PoseOptions {
  if (!NUMERIC_POSE_OPTIONS.includes(key))
    throw new InvalidArgumentError(
      `${name}: unknown pose option '${key}' (one of ${NUMERIC_POSE_OPTIONS.join(', ')}${name === '--set' ? ', space' : ''})`,
    );
  return key as keyof PoseOptions;
}

function parseNumberList(name: string, key: string, text: string): number[] {
  const vals = text
    .split(',')
    .map((t) => (t.trim().toLowerCase() === 'inf' ? Number.POSITIVE_INFINITY : Number(t)));
  if (text.trim() === '' || vals.some((v) => Number.isNaN(v) || text.split(',').some((t) => t.trim() === '')))
    throw new InvalidArgumentError(`${name}: ${key}=${text} is not a list of numbers`);
  return vals;
}

/** `--grid key=v1,v2` (repeatable) into a TuneGrid. */
export function gridArg(value: string, prev: TuneGrid = {}): TuneGrid {
  const i = value.indexOf('=');
  if (i <= 0)
    throw new InvalidArgumentError(`--grid: '${value}' is not option=v1,v2,... (e.g. smoothingMs=0,30,60)`);
  const key = optionName('--grid', value.slice(0, i).trim());
  const vals = parseNumberList('--grid', key, value.slice(i + 1));
  for (const v of vals) {
    try {
      resolvePoseOptions({ [key]: v });
    } catch (e) {
      throw new InvalidArgumentError(`--grid: ${(e as Error).message}`);
    }
  }
  return { ...prev, [key]: vals };
}

/** `--set key=value` (repeatable) into pose options: a numeric option, or `space=auto|image|world`. */
export function setArg(value: string, prev: Partial<PoseOptions> = {}): Partial<PoseOptions> {
  const i = value.indexOf('=');
  if (i <= 0) throw new InvalidArgumentError(`--set: '${value}' is not option=value (e.g. smoothingMs=60)`);
  const name = value.slice(0, i).trim();
  const text = value.slice(i + 1).trim();
  let next: Partial<PoseOptions>;
  if (name === 'space') {
    if (text !== 'auto' && text !== 'image' && text !== 'world')
      throw new InvalidArgumentError(`--set: space=${text}: expected auto, image or world`);
    next = { ...prev, space: text };
  } else {
    const key = optionName('--set', name);
    const v = text.toLowerCase() === 'inf' ? Number.POSITIVE_INFINITY : Number(text);
    if (text === '' || Number.isNaN(v))
      throw new InvalidArgumentError(`--set: ${key}=${text} is not a number`);
    next = { ...prev, [key]: v };
  }
  try {
    resolvePoseOptions(next);
  } catch (e) {
    throw new InvalidArgumentError(`--set: ${(e as Error).message}`);
  }
  return next;
}

function recordingOptions(opts: {
  imageSize?: { width: number; height: number };
  fps?: number;
  world?: string;
}): RecordingLoadOptions {
  return { imageSize: opts.imageSize, fps: opts.fps, world: opts.world };
}

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
