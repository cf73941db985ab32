/**
 * `kind puppet render` (./puppet.ts): the pose side, the rig and CPU LBS (src/puppet PuppetSession) over a
 * recording in Node, rasterised in software into `frames/NNNN.png`, `preview.gif` and `puppet.json`, all
 * or nothing (./files.ts); and the terminal summary of a render. Moved as is from ./puppet.ts.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
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
import { interruptPoint } from '../io/node/interrupt';
import {
  type Character,
  createJointSet,
  type DeformMode,
  formatMapping,
  frameHasPerson,
  framesText,
  JOINT_STATES,
  type KeypointFileInfo,
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
  STATE_RGB,
  type TakeQuality,
  type WeightMode,
} from '../puppet';
import { checkCharacter } from '../puppet/characterChecks';
import {
  checkOutputDir,
  createOutputDirUndoable,
  refuseOverwritingInputs,
  stageFolder,
  writeFilesAtomically,
} from './files';
import { loadPuppetCharacter } from './puppetCharacter';
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
export function noPersonMessage(frames: number, space: 'auto' | 'image' | 'world'): string {
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
