/**
 * Issue 22 parts 4 and 5: tfjs-models pose-detection keypoints (MoveNet / PoseNet 17 COCO keypoints, BlazePose
 * 33) in the shapes people save them (src/puppet/keypoints.ts), and the camera image size checks
 * (src/puppet/imageSize.ts).
 *
 * The real data part converts the real MediaPipe squat (../shared/data/pose-landmarks/pose_squats.full.json,
 * 720x1280 pixels, 65 frames at 5 fps) to 17-keypoint files in each shape (BlazePose index -> COCO name), and
 * checks that the puppet's joints equal the 33-landmark run on the 17 joints COCO gives (tolerance 0.01 px;
 * the inputs are the same numbers), that the four joints COCO cannot give (hand tips, toes) are filled by the
 * occlusion chain every frame and marked in puppet.json, and renders a MoveNet file onto char1.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runPuppetRender } from '../src/cli/puppet';
import { decodePng, loadCharacter, loadLandmarkRecording } from '../src/io/node';
import {
  BLAZEPOSE_KEYPOINTS,
  COCO_KEYPOINTS,
  COCO_TO_BLAZEPOSE,
  checkRecordingImageSize,
  isTfjsKeypointFile,
  JOINT_STATES,
  type LandmarkRecording,
  PUPPET_JOINTS,
  PuppetInputError,
  PuppetSession,
  parseTfjsReference,
  tfjsKeypointsToRecording,
} from '../src/puppet';
import { runAllocProbe } from './helpers/allocProbe';
import { dataPath, describeWithData } from './helpers/data';
import { LANDMARK_OFFSETS, standingFrame } from './helpers/puppetPose';
import { runKind } from './helpers/runCli';

const FILLED = ['LeftHandTip', 'RightHandTip', 'LeftToes', 'RightToes'];
const COCO_JOINTS = PUPPET_JOINTS.map((n, j) => [n, j] as const).filter(([n]) => !FILLED.includes(n));

/** A standing person's 17 COCO keypoints in pixels of 640x480 (hips at 320, 264; torso 120 px). */
function standingKeypoints(dx = 0): { x: number; y: number; score: number; name: string }[] {
  return COCO_TO_BLAZEPOSE.map((b, k) => ({
    x: 320 + dx + LANDMARK_OFFSETS[b][0] * 120,
    y: 264 + LANDMARK_OFFSETS[b][1] * 120,
    score: 0.9,
    name: COCO_KEYPOINTS[k],
  }));
}

describe('tfjs-models keypoint files (no data)', () => {
  const image = { width: 640, height: 480 };

  it('reads a pose list, a bare list, a keyed object and camelCase names into 33 landmarks', () => {
    const kps = standingKeypoints();
    const named = Object.fromEntries(kps.map((k) => [k.name, { x: k.x / 640, y: k.y / 480 }]));
    const camel = kps.map((k) => ({
      ...k,
      name: k.name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()),
    }));
    for (const frames of [
      [{ score: 0.8, keypoints: kps }],
      [[{ score: 0.8, keypoints: kps }]],
      [kps.map(({ x, y, score }) => ({ x, y, score }))], // no names: COCO order
      [camel],
    ]) {
      expect(isTfjsKeypointFile(frames)).toBe(true);
      const r = tfjsKeypointsToRecording(frames, 'mv.json', { image, fps: 30 });
      const l = r.recording.frames[0].landmarks!;
      expect(l).toHaveLength(33);
      expect(r.info.set).toBe('coco17');
      expect(r.info.coordinates).toBe('pixels');
      // left shoulder (COCO 5) is BlazePose 11; the left index finger (19) is absent: at the wrist, visibility 0
      expect(l[11].x).toBeCloseTo(kps[5].x / 640, 12);
      expect(l[11].y).toBeCloseTo(kps[5].y / 480, 12);
      expect(l[11].visibility).toBe(0.9);
      expect([l[19].x, l[19].y, l[19].visibility]).toEqual([l[15].x, l[15].y, 0]);
      expect([l[31].x, l[31].y, l[31].visibility]).toEqual([l[27].x, l[27].y, 0]);
      expect(r.info.filledJoints).toEqual(['LeftHandTip', 'RightHandTip', 'LeftToes', 'RightToes']);
      expect(r.info.absentLandmarks).toEqual([1, 3, 4, 6, 9, 10, 17, 18, 19, 20, 21, 22, 29, 30, 31, 32]);
    }
    // tfjs-models' own test data shape: keyed by name, normalised, no scores
    const r = tfjsKeypointsToRecording([named, named], 'pose_1.json', { image, fps: 30 });
    expect(r.info.coordinates).toBe('normalized');
    expect(r.info.shapes).toEqual(['named']);
    expect(r.info.scoresAbsent).toBe(true);
    expect(r.recording.frames[1].timestampMs).toBeCloseTo(1000 / 30, 9);
    expect(r.recording.frames[0].landmarks![0].visibility).toBeUndefined(); // unknown, not 0
    expect(r.notes.join('\n')).toMatch(/no keypoint scores: visibility unknown/);
  });

  it('takes the highest-scoring pose of a multi-person frame, and says how often', () => {
    const near = { score: 0.4, keypoints: standingKeypoints(-200) };
    const far = { score: 0.9, keypoints: standingKeypoints(150) };
    const r = tfjsKeypointsToRecording([[near, far], [], [far]], 'multi.json', { image, fps: 10 });
    expect(r.recording.frames[0].landmarks![0].x).toBeCloseTo((320 + 150) / 640, 9);
    expect(r.recording.frames[1].landmarks).toEqual([]); // no person
    expect(r.info.multiPoseFrames).toBe(1);
    // nobody in any frame is still a keypoint file (kind puppet then says there is no person)
    expect(isTfjsKeypointFile([[], []])).toBe(true);
    expect(
      tfjsKeypointsToRecording([[], []], 'none.json', { image, fps: 10 }).recording.frames[1].landmarks,
    ).toEqual([]);
    expect(isTfjsKeypointFile([[[1, 2, 3]]])).toBe(false); // the tfjs reference's [frames][33][x, y, z]
    expect(r.info.emptyFrames).toBe(1);
    expect(r.notes.join('\n')).toMatch(
      /1 frame\(s\) hold several poses; the one with the highest score was taken/,
    );
  });

  it('reads 33 BlazePose keypoints with keypoints3D as image and world landmarks, nothing filled', () => {
    const f = standingFrame({ image });
    const keypoints = f.landmarks!.map((l, i) => ({
      x: l.x * 640,
      y: l.y * 480,
      score: 0.7,
      name: BLAZEPOSE_KEYPOINTS[i],
    }));
    const keypoints3D = f.landmarks!.map((l, i) => ({
      x: l.x - 0.5,
      y: l.y - 0.5,
      z: 0,
      name: BLAZEPOSE_KEYPOINTS[i],
    }));
    const r = tfjsKeypointsToRecording([{ keypoints, keypoints3D }], 'bp.json', { image, fps: 30 });
    expect(r.info.set).toBe('blazepose33');
    expect(r.info.filledJoints).toEqual([]);
    expect(r.recording.frames[0].worldLandmarks).toHaveLength(33);
    expect(r.recording.frames[0].landmarks![31].x).toBeCloseTo(f.landmarks![31].x, 12);
  });

  it('names the file, frame, keypoint and field of bad input', () => {
    const kps = standingKeypoints();
    const t =
      (v: unknown, o = { image, fps: 30 }) =>
      () =>
        tfjsKeypointsToRecording(v, 'bad.json', o);
    expect(t([{ keypoints: kps }], { image: undefined as never, fps: 30 })).toThrow(
      /bad\.json: a tfjs-models keypoint file \(17 COCO keypoints, x, y in pixels\) needs the camera image size: give --image-size WxH/,
    );
    expect(t([{ keypoints: kps.map((k, i) => (i === 3 ? { ...k, x: null } : k)) }])).toThrow(
      /bad\.json: frame 0, keypoints, keypoint 3, field x: x must be a finite number, got null/,
    );
    expect(
      t([
        { keypoints: kps },
        { keypoints: kps.map((k, i) => (i === 5 ? { ...k, name: 'left_shoulderr' } : k)) },
      ]),
    ).toThrow(
      /bad\.json: frame 1, keypoints, keypoint 5, field name: unknown keypoint name "left_shoulderr"/,
    );
    expect(t([{ keypoints: kps.slice(0, 12).map(({ x, y }) => ({ x, y })) }])).toThrow(
      /bad\.json: frame 0, keypoints: has 12 keypoints without names; need 17/,
    );
    expect(t([{ keypoints: kps.map((k) => ({ ...k, score: 2 })) }])).toThrow(
      /keypoint 0, field score: score must be in \[0, 1\], got 2/,
    );
    expect(t([[{ keypoints: kps }, 'x']])).toThrow(
      /bad\.json: frame 0, pose 1: must be a pose \{ keypoints: \[\.\.\.\] \}/,
    );
    expect(t([{ nose: { x: 0.5, y: 0.5 }, nose_: { x: 0.5, y: 0.5 } }])).toThrow(
      /keypoint nose_: keypoint nose given twice/,
    );
    expect(t([{ keypoints: kps }, 7])).toThrow(/bad\.json: frame 1: must be a pose/);
    // a raw [frames][17][3] array is not a tfjs reference: the error says how 17 keypoints are read
    expect(() =>
      parseTfjsReference(JSON.stringify([kps.map((k) => [k.x, k.y, 0.9])]), undefined, 'raw.json', image, 30),
    ).toThrow(
      /raw\.json \(pixels\): frame 0: need 33 landmarks, got 17 \(17 MoveNet \/ PoseNet keypoints are read as tfjs-models poses/,
    );
  });

  it('PuppetSession.step allocates nothing per frame on 17-keypoint recordings (hand tips and toes filled every frame)', () => {
    const r = runAllocProbe(`
      import { PuppetSession, tfjsKeypointsToRecording, COCO_KEYPOINTS, COCO_TO_BLAZEPOSE } from ${JSON.stringify(path.resolve(__dirname, '../src/puppet'))};
      import { armsDownCharacter } from ${JSON.stringify(path.resolve(__dirname, 'helpers/puppetDrawing'))};
      import { LANDMARK_OFFSETS } from ${JSON.stringify(path.resolve(__dirname, 'helpers/puppetPose'))};
      const image = { width: 640, height: 480 };
      const poses = [];
      for (let i = 0; i < 48; i++) {
        const a = Math.sin(i / 4);
        poses.push({ score: 0.8, keypoints: COCO_TO_BLAZEPOSE.map((b, k) => ({
          x: 320 + 30 * a + LANDMARK_OFFSETS[b][0] * 110 + (b === 15 ? 40 * a : 0),
          y: 300 + LANDMARK_OFFSETS[b][1] * 110 - (b === 15 ? 60 * a : 0),
          score: 0.9, name: COCO_KEYPOINTS[k] })) });
      }
      const scored = tfjsKeypointsToRecording(poses, 'movenet.json', { image, fps: 30 }).recording;
      const named = tfjsKeypointsToRecording(
        poses.map((p) => Object.fromEntries(p.keypoints.map((k) => [k.name, { x: k.x / 640, y: k.y / 480 }]))),
        'pose_1.json', { image, fps: 30 }).recording;
      const c = armsDownCharacter();
      for (const [name, rec] of [['scored', scored], ['named', named], ['scoredAgain', scored]]) {
        const s = new PuppetSession(c, { image, weights: 'segments' });
        const I = new Int32Array(1);
        const T = new Float64Array(1);
        result[name] = bytesPerCall(() => {
          const f = rec.frames[I[0]++ % rec.frames.length];
          T[0] += 33.37;
          f.timestampMs = T[0];
          s.step(f);
        }, 3000);
      }
    `);
    expect(Object.keys(r)).toEqual(['scored', 'named', 'scoredAgain']);
    console.log(`bytes per PuppetSession.step on 17-keypoint recordings: ${JSON.stringify(r)}`);
    for (const v of Object.values(r)) expect(v).toBeLessThan(1);
  });

  it('refuses pixels that fall outside a swapped --image-size, naming the right one', () => {
    // a portrait video: person 640 px tall in 480x854
    const img = { width: 480, height: 854 };
    const frames = Array.from({ length: 5 }, () =>
      COCO_TO_BLAZEPOSE.map((b, k) => ({
        x: 240 + LANDMARK_OFFSETS[b][0] * 200,
        y: 440 + LANDMARK_OFFSETS[b][1] * 200,
        score: 0.9,
        name: COCO_KEYPOINTS[k],
      })),
    );
    const ok = tfjsKeypointsToRecording(frames, 'p.json', { image: img, fps: 30 });
    expect(
      checkRecordingImageSize(ok.recording, { coordinates: 'pixels', given: 'flag', source: 'p.json' })
        .outside?.given,
    ).toBe(0);
    const swapped = tfjsKeypointsToRecording(frames, 'p.json', {
      image: { width: 854, height: 480 },
      fps: 30,
    });
    expect(() =>
      checkRecordingImageSize(swapped.recording, { coordinates: 'pixels', given: 'flag', source: 'p.json' }),
    ).toThrow(
      /^p\.json: \d+% of landmarks fall outside 854x480 \(more than 5% of the image beyond an edge\); the recording looks like 480x854 \(--image-size 480x854\), which holds all of them$/,
    );
  });
});

describeWithData('tfjs-models keypoints from the real squat (../shared/data/pose-landmarks)', () => {
  const W = 720;
  const H = 1280;
  let px: number[][][];
  let world: number[][][];
  let dir: string;
  let ref: LandmarkRecording;
  const files: Record<string, string> = {};

  beforeAll(() => {
    px = JSON.parse(fs.readFileSync(dataPath('pose-landmarks', 'pose_squats.full.json'), 'utf8'));
    world = JSON.parse(fs.readFileSync(dataPath('pose-landmarks', 'pose_squats_3d.full.json'), 'utf8'));
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-keypoints-'));
    ref = parseTfjsReference(
      JSON.stringify(px),
      undefined,
      'pose_squats.full.json',
      { width: W, height: H },
      5,
    );
    // the reference has no visibility (unknown: 0.8 for every landmark); the keypoint files that carry scores
    // give 0.8 too, so both runs see the same confidences
    const kp = (f: number[][]) =>
      COCO_TO_BLAZEPOSE.map((b, k) => ({ x: f[b][0], y: f[b][1], score: 0.8, name: COCO_KEYPOINTS[k] }));
    const shapes: Record<string, unknown[]> = {
      // MoveNet estimatePoses results, one pose per frame, pixels
      movenet: px.map((f) => ({ score: 0.7, keypoints: kp(f) })),
      // PoseNet multi-pose results: a lower-scoring second person listed first
      posenet: px.map((f) => [
        { score: 0.35, keypoints: kp(f).map((k) => ({ ...k, x: k.x * 0.3 + 10, score: 0.3 })) },
        { score: 0.75, keypoints: kp(f) },
      ]),
      // tfjs-models' test-data shape: keyed by name, normalised, no scores (unknown: 0.8 as well)
      named: px.map((f) =>
        Object.fromEntries(
          COCO_TO_BLAZEPOSE.map((b, k) => [COCO_KEYPOINTS[k], { x: f[b][0] / W, y: f[b][1] / H }]),
        ),
      ),
    };
    for (const [name, v] of Object.entries(shapes)) {
      files[name] = path.join(dir, `squat_${name}.json`);
      fs.writeFileSync(files[name], JSON.stringify(v));
    }
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('the puppet joints of each 17-keypoint shape equal the 33-landmark run on the joints COCO has', () => {
    const character = loadCharacter(dataPath('animated-drawings', 'characters', 'char1'));
    const s = new PuppetSession(character, { image: { width: W, height: H } });
    const run = (rec: LandmarkRecording) => {
      s.reset();
      return rec.frames.map((f) => {
        s.step(f);
        const copy = (j: {
          x: Float64Array;
          y: Float64Array;
          confidence: Float64Array;
          state: Uint8Array;
        }) => ({
          x: Float64Array.from(j.x),
          y: Float64Array.from(j.y),
          c: Float64Array.from(j.confidence),
          st: Uint8Array.from(j.state),
        });
        return { pose: copy(s.poseJoints), drawing: copy(s.drawingJoints) };
      });
    };
    const base = run(ref);
    for (const name of ['movenet', 'posenet', 'named']) {
      const loaded = loadLandmarkRecording(files[name], { imageSize: { width: W, height: H }, fps: 5 });
      expect(loaded.format).toBe('tfjs-keypoints');
      expect(loaded.keypoints?.filledJoints).toEqual(FILLED);
      // pixels are checked against the image (none outside); normalised keypoints carry no evidence of the size
      if (name === 'named') expect(loaded.imageCheck?.kind).toBe('none');
      else expect(loaded.imageCheck?.outside?.given).toBe(0);
      const got = run(loaded.recording);
      expect(got).toHaveLength(65);
      let maxPose = 0;
      let maxDrawing = 0;
      const tipOff: number[] = [];
      const off: Record<string, number[]> = { hand: [], toes: [] };
      for (let f = 0; f < 65; f++) {
        for (const [, j] of COCO_JOINTS) {
          maxPose = Math.max(
            maxPose,
            Math.hypot(got[f].pose.x[j] - base[f].pose.x[j], got[f].pose.y[j] - base[f].pose.y[j]),
          );
          maxDrawing = Math.max(
            maxDrawing,
            Math.hypot(
              got[f].drawing.x[j] - base[f].drawing.x[j],
              got[f].drawing.y[j] - base[f].drawing.y[j],
            ),
          );
          expect(JOINT_STATES[got[f].pose.st[j]]).toBe('measured');
        }
        for (const n of FILLED) {
          const j = PUPPET_JOINTS.indexOf(n as (typeof PUPPET_JOINTS)[number]);
          // filled from the hand / foot (parent) every frame, below the visibility threshold (0.5)
          expect(JOINT_STATES[got[f].pose.st[j]]).toBe('parent');
          expect(got[f].pose.c[j]).toBeLessThan(0.5);
          expect(got[f].pose.c[j]).toBeGreaterThan(0);
          const torso = Math.hypot(
            base[f].pose.x[3] - base[f].pose.x[0],
            base[f].pose.y[3] - base[f].pose.y[0],
          );
          const d =
            Math.hypot(got[f].pose.x[j] - base[f].pose.x[j], got[f].pose.y[j] - base[f].pose.y[j]) / torso;
          tipOff.push(d);
          off[n.endsWith('HandTip') ? 'hand' : 'toes'].push(d);
        }
      }
      const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
      const meanOff = mean(tipOff);
      console.log(
        `${name}: 17 COCO joints vs the 33-landmark run: max ${maxPose.toExponential(1)} px (pose), ${maxDrawing.toExponential(1)} px (drawing); filled joints from the measured ones, torso lengths: hand tips mean ${mean(off.hand).toFixed(3)} (max ${Math.max(...off.hand).toFixed(3)}), toes ${mean(off.toes).toFixed(3)} (max ${Math.max(...off.toes).toFixed(3)})`,
      );
      expect(maxPose).toBeLessThan(0.01);
      expect(maxDrawing).toBeLessThan(0.01);
      expect(meanOff).toBeLessThan(0.3);
      // a hand tip never seen continues the forearm (occlusion.ts): 0.044 here; a fixed image direction gave 0.205
      expect(mean(off.hand)).toBeLessThan(0.1);
      expect(mean(off.toes)).toBeLessThan(0.3);
    }
  });

  it('renders a MoveNet file onto char1: frames written, the filled joints marked in puppet.json', async () => {
    const out = path.join(os.tmpdir(), 'kind-p457-movenet-render');
    fs.rmSync(out, { recursive: true, force: true });
    const r = await runPuppetRender({
      character: dataPath('animated-drawings', 'characters', 'char1'),
      landmarks: files.movenet,
      outDir: out,
      recording: { imageSize: { width: W, height: H }, fps: 5 },
      joints: true,
    });
    expect(r.outputs.frameCount).toBe(65);
    const pngs = fs.readdirSync(path.join(out, 'frames')).filter((f) => f.endsWith('.png'));
    expect(pngs).toHaveLength(65);
    const first = decodePng(fs.readFileSync(path.join(out, 'frames', '0000.png')));
    expect(first.width).toBe(r.file.frame.width);
    const file = JSON.parse(fs.readFileSync(path.join(out, 'puppet.json'), 'utf8'));
    expect(file.input.keypoints).toEqual({
      set: 'coco17',
      coordinates: 'pixels',
      absentLandmarks: [1, 3, 4, 6, 9, 10, 17, 18, 19, 20, 21, 22, 29, 30, 31, 32],
      filledJoints: FILLED,
      multiPoseFrames: 0,
    });
    const tip = PUPPET_JOINTS.indexOf('LeftHandTip');
    expect(file.frames.every((f: { joints: { state: string }[] }) => f.joints[tip].state === 'parent')).toBe(
      true,
    );
    expect(file.stats.perJoint[tip].measured).toBe(0);
    // every joint COCO gives is measured in every frame: the legs too
    for (const [n, j] of COCO_JOINTS) expect([n, file.stats.perJoint[j].measured]).toEqual([n, 65]);
    expect(r.notes.join('\n')).toMatch(/LeftHandTip, RightHandTip, LeftToes, RightToes are never measured/);
    console.log(
      `rendered ${files.movenet} -> ${out} (${r.file.frame.width}x${r.file.frame.height}); kept for looking at`,
    );
  });

  it('a swapped --image-size is refused, naming the right size (tfjs reference, MoveNet file, CLI exit 1)', async () => {
    const ref = dataPath('pose-landmarks', 'pose_squats.full.json');
    expect(() => loadLandmarkRecording(ref, { imageSize: { width: 1280, height: 720 }, fps: 5 })).toThrow(
      /pose_squats\.full\.json: 25% of landmarks fall outside 1280x720 \(more than 5% of the image beyond an edge\); the recording looks like 720x1280 \(--image-size 720x1280\), which holds all of them/,
    );
    expect(() =>
      loadLandmarkRecording(files.movenet, { imageSize: { width: 1280, height: 720 }, fps: 5 }),
    ).toThrow(
      /squat_movenet\.json: 2\d% of landmarks fall outside 1280x720 .*the recording looks like 720x1280 \(--image-size 720x1280\)/,
    );
    const r = await runKind([
      'puppet',
      'render',
      '--landmarks',
      ref,
      '--image-size',
      '1280x720',
      '--fps',
      '5',
      '-o',
      path.join(dir, 'x'),
    ]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/the recording looks like 720x1280 \(--image-size 720x1280\)/);
    expect(fs.existsSync(path.join(dir, 'x'))).toBe(false);
    // a person cut at the shins (720x900: the feet below the bottom edge) is read, with a note
    const cut = loadLandmarkRecording(ref, { imageSize: { width: 720, height: 900 }, fps: 5 });
    console.log(
      `720x900: ${(100 * cut.imageCheck!.outside!.given).toFixed(1)}% outside, 900x720: ${(100 * cut.imageCheck!.outside!.swapped).toFixed(1)}%`,
    );
    expect(cut.notes.join('\n')).toMatch(
      /of the landmarks lie outside the 720x900 image \(a person partly off-frame\?\)/,
    );
  });

  it('a recording whose "image" is swapped against its world landmarks is refused, naming the right size', () => {
    const make = (width: number, height: number) => ({
      image: { width, height },
      frames: px.map((f, i) => ({
        timestampMs: i * 200,
        landmarks: f.map(([x, y, z]) => ({ x: x / W, y: y / H, z: z / W })),
        worldLandmarks: world[i].map(([x, y, z]) => ({ x, y, z })),
      })),
    });
    const good = path.join(dir, 'squat_rec.json');
    fs.writeFileSync(good, JSON.stringify(make(W, H)));
    const ok = loadLandmarkRecording(good);
    console.log(
      `aspect ratio against the world landmarks, right size: ${ok.imageCheck!.aspect!.ratio.toFixed(3)} over ${ok.imageCheck!.aspect!.frames} frames`,
    );
    expect(ok.imageCheck!.aspect!.ratio).toBeGreaterThan(0.95);
    expect(ok.imageCheck!.aspect!.ratio).toBeLessThan(1.05);
    const bad = path.join(dir, 'squat_swapped.json');
    fs.writeFileSync(bad, JSON.stringify(make(H, W)));
    expect(() => loadLandmarkRecording(bad)).toThrow(PuppetInputError);
    expect(() => loadLandmarkRecording(bad)).toThrow(
      /squat_swapped\.json: the landmarks do not fit the 1280x720 image: against their world landmarks, y runs 0\.3\dx the scale of x \(median over 65 frames; the right size gives 0\.8-1\.25\); the recording looks like 720x1280 \(set "image": \{ "width": 720, "height": 1280 \} in the file\)/,
    );
  });
});
