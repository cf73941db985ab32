/**
 * `kind puppet render` and `kind puppet tune` end to end (in process), and `kind puppet` serving the page:
 * - a synthetic AnimatedDrawings folder driven by a synthetic 1920x1080 recording: frames, preview.gif and
 *   puppet.json agree with each other (the PNG shows the drawing's arm where puppet.json puts its hand);
 *   a forearm at 45 degrees in the camera's pixels is at 45 degrees on the drawing (not atan(16/9) = 60.6);
 *   frames without a person and a hidden forearm get the states and low confidences of the fill;
 * - the real AnimatedDrawings char1 driven by the real squat (tfjs reference pixels, visibility absent):
 *   every joint measured, visibility reported unknown, the drawing's hips go down and up with the person's;
 * - bad input (no person in any frame, an empty mask, a char_cfg.yaml missing joints, 32 landmarks, NaN,
 *   a tfjs file without --image-size, broken JSON) fails with one line naming the place, exit 1, and leaves
 *   the previous outputs byte for byte, no temporary folder;
 * - tune: one row per setting, jitter against lag, the chosen row marked, the JSON written;
 * - the page server: URL printed, config served, stopped by SIGINT (exit 130) with the port closed.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEFAULT_PUPPET_PORT } from '../src/cli/puppetServe';
import { decodePng, encodePng } from '../src/io/node';
import {
  ANIMATED_DRAWINGS_JOINT_MAP,
  type Character,
  JOINT_STATES,
  type Landmark,
  type PoseFrame,
  PUPPET_JOINTS,
  type PuppetFile,
  parseTfjsReference,
} from '../src/puppet';
import { dataPath, describeWithData } from './helpers/data';
import { armsDownCharacter, J } from './helpers/puppetDrawing';
import { LANDMARK_OFFSETS, standingFrame } from './helpers/puppetPose';
import { runKind } from './helpers/runCli';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-puppet-cli-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Write a Character as an AnimatedDrawings folder (texture.png, mask.png, char_cfg.yaml). */
function writeAnimatedDrawingsFolder(
  c: Character,
  dir: string,
  o: { drop?: string[]; emptyMask?: boolean } = {},
): string {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'texture.png'), encodePng(c.texture));
  const m = new Uint8Array(c.width * c.height * 4);
  for (let i = 0; i < c.width * c.height; i++) {
    const v = o.emptyMask ? 0 : c.mask[i];
    m[4 * i] = m[4 * i + 1] = m[4 * i + 2] = v;
    m[4 * i + 3] = 255;
  }
  fs.writeFileSync(path.join(dir, 'mask.png'), encodePng({ width: c.width, height: c.height, data: m }));
  const parents: Record<string, string | null> = {
    root: null,
    hip: 'root',
    torso: 'hip',
    neck: 'torso',
    right_shoulder: 'torso',
    right_elbow: 'right_shoulder',
    right_hand: 'right_elbow',
    left_shoulder: 'torso',
    left_elbow: 'left_shoulder',
    left_hand: 'left_elbow',
    right_hip: 'root',
    right_knee: 'right_hip',
    right_foot: 'right_knee',
    left_hip: 'root',
    left_knee: 'left_hip',
    left_foot: 'left_knee',
  };
  const lines = [`height: ${c.height}`, 'skeleton:'];
  for (const [name, parent] of Object.entries(parents)) {
    if (o.drop?.includes(name)) continue;
    const j = J(ANIMATED_DRAWINGS_JOINT_MAP[name]);
    lines.push(
      '- loc:',
      `  - ${Math.round(c.restJoints.x[j])}`,
      `  - ${Math.round(c.restJoints.y[j])}`,
      `  name: ${name}`,
      `  parent: ${parent ?? 'null'}`,
    );
  }
  lines.push(`width: ${c.width}`);
  fs.writeFileSync(path.join(dir, 'char_cfg.yaml'), `${lines.join('\n')}\n`);
  return dir;
}

const IMAGE = { width: 1920, height: 1080 };
const HIPS: [number, number] = [960, 600];
const TORSO = 270;
const FOREARM = ['13', '15', '17', '19', '21'].map(Number);

/**
 * 40 frames at 30 fps on a 1920x1080 camera: a person standing in the A-pose (frames 0-9, 25-39), the left
 * forearm raised to 45 degrees above horizontal in PIXELS (frames 10-19), no person (20-24), the left
 * forearm hidden (visibility 0.05, frames 25-34).
 */
function syntheticRecording(): { image: typeof IMAGE; frames: PoseFrame[] } {
  const frames: PoseFrame[] = [];
  for (let f = 0; f < 40; f++) {
    const t = Math.round((f * 1000) / 30);
    if (f >= 20 && f < 25) {
      frames.push({ timestampMs: t, landmarks: [] });
      continue;
    }
    const fr = standingFrame({ image: IMAGE, hips: HIPS, torso: TORSO, visibility: 0.95, timestampMs: t });
    const lm = fr.landmarks as Landmark[];
    if (f >= 10 && f < 20) {
      // elbow (13) as in the A-pose; wrist and hand points along +45 degrees (up and to image right)
      const ex = lm[13].x * IMAGE.width;
      const ey = lm[13].y * IMAGE.height;
      const len = 0.45 * TORSO;
      const put = (i: number, along: number, side: number) => {
        const c = Math.SQRT1_2;
        lm[i].x = (ex + along * c + side * c) / IMAGE.width;
        lm[i].y = (ey - along * c + side * c) / IMAGE.height;
      };
      put(15, len, 0);
      put(17, len * 1.25, 4);
      put(19, len * 1.25, -4);
      put(21, len * 1.1, -8);
    }
    if (f >= 25 && f < 35) for (const i of FOREARM) lm[i].visibility = 0.05;
    frames.push(fr);
  }
  return { image: IMAGE, frames };
}

function readPuppet(dir: string): PuppetFile {
  return JSON.parse(fs.readFileSync(path.join(dir, 'puppet.json'), 'utf8')) as PuppetFile;
}

/** Every file under `dir` (relative path -> bytes). */
function snapshot(dir: string): Map<string, Buffer> {
  const m = new Map<string, Buffer>();
  const walk = (rel: string) => {
    for (const d of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) walk(r);
      else m.set(r, fs.readFileSync(path.join(dir, r)));
    }
  };
  walk('');
  return m;
}

/** Count the image descriptors of a GIF (0x2C after each graphic control block 21 F9 04 .. .. .. .. 00). */
function gifFrames(b: Buffer): number {
  let n = 0;
  for (let i = 0; i + 8 < b.length; i++)
    if (b[i] === 0x21 && b[i + 1] === 0xf9 && b[i + 2] === 0x04 && b[i + 7] === 0x00 && b[i + 8] === 0x2c)
      n++;
  return n;
}

describe('kind puppet render: a synthetic drawing and recording', () => {
  const charDir = writeAnimatedDrawingsFolder(armsDownCharacter(), path.join(tmp, 'armsdown'));
  const recFile = path.join(tmp, 'synthetic.json');
  fs.writeFileSync(recFile, JSON.stringify(syntheticRecording()));
  const out = path.join(tmp, 'render');
  let file: PuppetFile;
  let stdout: string;

  beforeAll(async () => {
    // no smoothing for the known answers (the filter has its own tests): the measured joints are the landmarks'
    const r = await runKind([
      'puppet',
      'render',
      charDir,
      '--landmarks',
      recFile,
      '-o',
      out,
      '--set',
      'smoothingMs=0',
    ]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    stdout = r.out;
    file = readPuppet(out);
  });

  it('writes one PNG per frame, an animated GIF of as many frames, and puppet.json in the issue shape', () => {
    const names = fs.readdirSync(path.join(out, 'frames')).sort();
    expect(names).toEqual(Array.from({ length: 40 }, (_, i) => `${String(i).padStart(4, '0')}.png`));
    for (const n of [names[0], names[39]]) {
      const png = decodePng(fs.readFileSync(path.join(out, 'frames', n)));
      expect([png.width, png.height]).toEqual([file.frame.width, file.frame.height]);
    }
    const gif = fs.readFileSync(path.join(out, 'preview.gif'));
    expect(gif.subarray(0, 6).toString('latin1')).toBe('GIF89a');
    expect(gifFrames(gif)).toBe(40);
    expect(file.joints).toEqual([...PUPPET_JOINTS]);
    expect(file.image).toEqual({ width: 200, height: 300 });
    expect(file.frames).toHaveLength(40);
    for (const fr of file.frames) {
      expect(fr.joints).toHaveLength(21);
      for (const j of fr.joints) {
        expect(Number.isFinite(j.x) && Number.isFinite(j.y)).toBe(true);
        expect(j.confidence).toBeGreaterThanOrEqual(0);
        expect(j.confidence).toBeLessThanOrEqual(1);
        expect(JOINT_STATES).toContain(j.state);
      }
    }
    expect(file.stats.frames).toBe(40);
    expect(file.stats.personFrames).toBe(35);
    expect(file.stats.inputRateHz).toBeCloseTo(30, 0);
    expect(stdout).toMatch(
      /^rendered 'armsdown' \(200x300 px, \d+ vertices, segments-geodesic weights, arap deformation\)/,
    );
    expect(stdout).toMatch(/person in 35\/40 frames; visibility given/);
    expect(stdout).toMatch(/wrote .*frames\/0000\.png \.\. 0039\.png \(40 frames, \d+x\d+\)/);
    expect(fs.readdirSync(out).sort()).toEqual(['frames', 'preview.gif', 'puppet.json']);
  });

  it('a forearm at 45 degrees in the 1920x1080 camera is at 45 degrees on the drawing (not 60.6)', () => {
    for (let f = 10; f < 20; f++) {
      const j = file.frames[f].joints;
      const a = j[J('LeftLowerArm')];
      const b = j[J('LeftHand')];
      const deg = (Math.atan2(-(b.y - a.y), b.x - a.x) * 180) / Math.PI;
      expect(Math.abs(deg - 45)).toBeLessThan(0.1);
      expect(b.state).toBe('measured');
    }
    // the drawing's forearm keeps its drawn length (37 px: elbow 125 -> hand 162)
    const j = file.frames[15].joints;
    expect(
      Math.hypot(j[J('LeftHand')].x - j[J('LeftLowerArm')].x, j[J('LeftHand')].y - j[J('LeftLowerArm')].y),
    ).toBeCloseTo(37, 0);
  });

  it("the frame PNG shows the drawing's arm where puppet.json puts the hand, and background where the hand was", () => {
    const png = decodePng(fs.readFileSync(path.join(out, 'frames', '0015.png')));
    const { originX, originY } = file.frame;
    const at = (x: number, y: number) => {
      const i = 4 * (Math.round(y + originY) * png.width + Math.round(x + originX));
      return Array.from(png.data.subarray(i, i + 4));
    };
    const hand = file.frames[15].joints[J('LeftHand')];
    expect(at(hand.x, hand.y)).toEqual([60, 90, 200, 255]); // the arm's blue
    expect(at(132, 162)).toEqual([255, 255, 255, 255]); // rest hand position: the arm has left it
    // frame 0 (the reference pose): the torso's red at the chest, as drawn
    const png0 = decodePng(fs.readFileSync(path.join(out, 'frames', '0000.png')));
    const i = 4 * ((110 + originY) * png0.width + (100 + originX));
    expect(Array.from(png0.data.subarray(i, i + 4))).toEqual([200, 60, 60, 255]);
  });

  it('frames with no person and a hidden forearm carry the fill states and low confidences', () => {
    for (let f = 20; f < 25; f++) {
      expect(file.frames[f].personFound).toBe(false);
      for (const j of file.frames[f].joints) expect(j.state).not.toBe('measured');
    }
    for (let f = 26; f < 35; f++) {
      const j = file.frames[f].joints;
      for (const n of ['LeftLowerArm', 'LeftHand', 'LeftHandTip'] as const) {
        expect(j[J(n)].state).not.toBe('measured');
        expect(j[J(n)].confidence).toBeLessThan(0.5);
      }
      expect(j[J('RightHand')].state).toBe('measured');
      // the chain's confidences drop down the arm
      expect(j[J('LeftHand')].confidence).toBeLessThanOrEqual(j[J('LeftLowerArm')].confidence);
    }
    const back = file.frames[35].joints;
    for (const n of ['LeftLowerArm', 'LeftHand', 'LeftHandTip'] as const)
      expect(back[J(n)].state).toBe('measured');
    const per = file.stats.perJoint[J('LeftHand')];
    expect(per.measured).toBeLessThanOrEqual(40 - 5 - 9);
    expect(JOINT_STATES.reduce((s, st) => s + file.stats.states[st], 0)).toBe(40 * 21);
  });

  it('puppet.json has the mesh figures (issue 22 part 3): no flipped triangle with ARAP, per frame and over the take; --deform lbs selects plain LBS', async () => {
    expect(file.mesh.deform).toBe('arap');
    const m = file.stats.mesh;
    expect(m.deform).toBe('arap');
    expect(m.deformed.frames).toBe(40);
    expect(m.deformed.framesWithFlips).toBe(0);
    expect(m.deformed.worstStretch).toBeLessThanOrEqual(5 + 1e-4);
    expect(m.guard).toMatchObject({ minAreaRatio: 0.2, maxAreaRatio: 5, framesNotConverged: 0 });
    for (const fr of file.frames) {
      expect(fr.mesh.flipped).toBe(0);
      expect(fr.mesh.stretch).toBeGreaterThanOrEqual(1);
      expect(fr.mesh.stretch).toBeLessThanOrEqual(5 + 1e-4);
    }
    expect(stdout).toMatch(
      /\n {2}mesh \(arap\): flipped triangles in 0\/40 frames \(at most 0\), area stretch worst [\d.]+ p99 [\d.]+; plain LBS: flipped triangles in \d+\/40 frames/,
    );
    expect(stdout).toMatch(
      /per frame pose \+ rig \+ LBS \+ ARAP [\d.]+ ms \(of which the deformation [\d.]+ ms\)/,
    );
    const o2 = path.join(tmp, 'render-lbs');
    const r = await runKind([
      'puppet',
      'render',
      charDir,
      '--landmarks',
      recFile,
      '-o',
      o2,
      '--set',
      'smoothingMs=0',
      '--deform',
      'lbs',
      '--no-preview',
    ]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/segments-geodesic weights, lbs deformation\)/);
    expect(r.out).toMatch(/\n {2}mesh \(lbs\): flipped triangles in \d+\/40 frames/);
    const f2 = readPuppet(o2);
    expect(f2.mesh.deform).toBe('lbs');
    // LBS alone: the frames' mesh is the LBS one, and the ARAP run measured the same LBS beside its own
    expect(f2.stats.mesh.deformed).toEqual(f2.stats.mesh.lbs);
    expect(f2.stats.mesh.lbs).toEqual(m.lbs);
    expect(
      (await runKind(['puppet', 'render', charDir, '--landmarks', recFile, '-o', o2, '--deform', 'dqs']))
        .code,
    ).toBe(2);
  });

  it('the same inputs give the same bytes: puppet.json, every frame and the GIF (no clock in the outputs)', async () => {
    const again = path.join(tmp, 'render-again');
    const r = await runKind([
      'puppet',
      'render',
      charDir,
      '--landmarks',
      recFile,
      '-o',
      again,
      '--set',
      'smoothingMs=0',
      '-q',
    ]);
    expect(r.code).toBe(0);
    const a = snapshot(out);
    const b = snapshot(again);
    expect([...b.keys()]).toEqual([...a.keys()]);
    for (const [k, v] of a) expect({ k, same: b.get(k)!.equals(v) }).toEqual({ k, same: true });
  });

  it('--joints draws the skeleton over the frames; --background transparent writes alpha 0 around the drawing', async () => {
    const o2 = path.join(tmp, 'render-joints');
    const r = await runKind([
      'puppet',
      'render',
      charDir,
      '--landmarks',
      recFile,
      '-o',
      o2,
      '--joints',
      '--background',
      'transparent',
      '--no-preview',
      '-q',
    ]);
    expect(r.code).toBe(0);
    expect(r.out).toBe('');
    expect(fs.readdirSync(o2).sort()).toEqual(['frames', 'puppet.json']);
    const png = decodePng(fs.readFileSync(path.join(o2, 'frames', '0005.png')));
    expect(png.data[3]).toBe(0); // top-left corner: transparent
    const f2 = readPuppet(o2);
    const hips = f2.frames[5].joints[0];
    const i = 4 * (Math.round(hips.y + f2.frame.originY) * png.width + Math.round(hips.x + f2.frame.originX));
    expect(Array.from(png.data.subarray(i, i + 3))).toEqual([76, 175, 80]); // a measured joint's green dot
  });
});

describeWithData('kind puppet render: char1 driven by the real squat (tfjs reference, no visibility)', () => {
  it('every joint measured, visibility unknown, the drawing squats with the person', async () => {
    const out = path.join(tmp, 'squat');
    const squat = dataPath('pose-landmarks/pose_squats.full.json');
    const r = await runKind([
      'puppet',
      'render',
      dataPath('animated-drawings/characters/char1'),
      '--landmarks',
      squat,
      '--image-size',
      '720x1280',
      '--fps',
      '5',
      '-o',
      out,
    ]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/65 frames, 5\.0 Hz, camera 720x1280, image landmarks/);
    expect(r.out).toMatch(/visibility unknown \(absent in the file\)/);
    expect(r.out).toMatch(/note: world landmarks from .*pose_squats_3d\.full\.json/);
    const file = readPuppet(out);
    expect(file.stats.states.measured).toBe(65 * 21);
    expect(file.stats.visibilityUnknownFrames).toBe(65);
    expect(fs.readdirSync(path.join(out, 'frames'))).toHaveLength(65);
    const rec = parseTfjsReference(
      fs.readFileSync(squat, 'utf8'),
      undefined,
      'squat',
      { width: 720, height: 1280 },
      5,
    );
    const personHips = rec.frames.map((f) => ((f.landmarks![23].y + f.landmarks![24].y) / 2) * 1280);
    const drawingHips = file.frames.map((f) => f.joints[0].y);
    const mean = (a: number[]) => a.reduce((s, v) => s + v, 0) / a.length;
    const ma = mean(personHips);
    const mb = mean(drawingHips);
    let sab = 0;
    let saa = 0;
    let sbb = 0;
    for (let i = 0; i < 65; i++) {
      sab += (personHips[i] - ma) * (drawingHips[i] - mb);
      saa += (personHips[i] - ma) ** 2;
      sbb += (drawingHips[i] - mb) ** 2;
    }
    expect(sab / Math.sqrt(saa * sbb)).toBeGreaterThan(0.98);
    expect(Math.max(...drawingHips) - Math.min(...drawingHips)).toBeGreaterThan(60);
    // the smoothing changes little on this already smooth 5 fps take (POSE.md)
    expect(file.stats.jitter.ratio).toBeGreaterThan(0.9);
    expect(file.stats.jitter.ratio).toBeLessThanOrEqual(1.0001);
  });
});

describe('kind puppet render: bad input names the place, exits 1 and leaves the previous outputs', () => {
  const good = writeAnimatedDrawingsFolder(armsDownCharacter(), path.join(tmp, 'bad', 'good'));
  const goodRec = path.join(tmp, 'bad', 'good.json');
  fs.writeFileSync(goodRec, JSON.stringify(syntheticRecording()));
  const out = path.join(tmp, 'bad', 'out');
  let before: Map<string, Buffer>;

  beforeAll(async () => {
    expect((await runKind(['puppet', 'render', good, '--landmarks', goodRec, '-o', out, '-q'])).code).toBe(0);
    before = snapshot(out);
    expect([...before.keys()].filter((k) => k.startsWith('frames/'))).toHaveLength(40);
  });

  const rec = (name: string, body: unknown): string => {
    const f = path.join(tmp, 'bad', name);
    fs.writeFileSync(f, typeof body === 'string' ? body : JSON.stringify(body));
    return f;
  };
  const standing = (t: number) => standingFrame({ image: IMAGE, visibility: 0.9, timestampMs: t });

  const cases: [string, () => string[], RegExp][] = [
    [
      'no person in any frame',
      () => [
        '--landmarks',
        rec('empty.json', {
          image: IMAGE,
          frames: [0, 33, 66].map((t) => ({ timestampMs: t, landmarks: [] })),
        }),
      ],
      /^kind: .*empty\.json: no person in any of the 3 frame\(s\)/,
    ],
    [
      'a mask with nothing in it',
      () => [
        writeAnimatedDrawingsFolder(armsDownCharacter(), path.join(tmp, 'bad', 'blank'), { emptyMask: true }),
        '--landmarks',
        goodRec,
      ],
      /^kind: .*blank: mask\.png: .*(empty|no character pixel|nothing)/i,
    ],
    [
      // a char_cfg.yaml missing joints is no longer refused (issue 22 part 1: its own skeleton); a retarget
      // config naming a joint the char_cfg lacks is
      'a retarget config naming a joint the character lacks',
      () => {
        const retarget = path.join(tmp, 'bad', 'retarget.yaml');
        fs.mkdirSync(path.dirname(retarget), { recursive: true });
        fs.writeFileSync(retarget, 'char_joint_bvh_joints_mapping:\n  left_paw: [LeftLeg, LeftFoot]\n');
        return [
          writeAnimatedDrawingsFolder(armsDownCharacter(), path.join(tmp, 'bad', 'nopaw'), {}),
          '--landmarks',
          goodRec,
          '--retarget-cfg',
          retarget,
        ];
      },
      /^kind: .*retarget\.yaml:2: char_joint_bvh_joints_mapping: character joint 'left_paw' is not in .*nopaw\/char_cfg\.yaml/,
    ],
    [
      '32 landmarks',
      () => {
        const f = standing(0);
        f.landmarks!.pop();
        return ['--landmarks', rec('32.json', { image: IMAGE, frames: [f] })];
      },
      /^kind: .*32\.json: frame 0, landmarks: has 32 landmarks; BlazePose gives exactly 33/,
    ],
    [
      'NaN (null in JSON)',
      () => {
        const f = standing(33);
        f.landmarks![5].x = Number.NaN; // JSON.stringify writes null
        return ['--landmarks', rec('nan.json', { image: IMAGE, frames: [standing(0), f] })];
      },
      /^kind: .*nan\.json: frame 1, landmarks, landmark 5, field x: x must be a finite number, got null/,
    ],
    [
      'broken JSON',
      () => [
        '--landmarks',
        rec(
          'broken.json',
          '{ "image": { "width": 640, "height": 480 },\n  "frames": [ { "timestampMs": 0, } ] }',
        ),
      ],
      /^kind: .*broken\.json:2:\d+: not valid JSON/,
    ],
    [
      'a tfjs reference without --image-size',
      () => [
        '--landmarks',
        rec(
          'tfjs.json',
          JSON.stringify([LANDMARK_OFFSETS.map(([x, y]) => [x * 100 + 300, y * 100 + 300, 0])]),
        ),
      ],
      /^kind: .*tfjs\.json: a tfjs reference file .* needs the camera image size: give --image-size WxH/,
    ],
    [
      'no such character',
      () => [path.join(tmp, 'bad', 'nope'), '--landmarks', goodRec],
      /^kind: .*nope: no such file or folder/,
    ],
    [
      'no such recording',
      () => ['--landmarks', path.join(tmp, 'bad', 'nope.json')],
      /^kind: .*nope\.json: no such file or folder/,
    ],
  ];

  it.each(cases)('%s', async (_name, args, message) => {
    const a = args();
    const withChar = a[0].startsWith('--') ? [good, ...a] : a;
    const r = await runKind(['puppet', 'render', ...withChar, '-o', out]);
    expect(r.code).toBe(1);
    expect(r.err.split('\n')).toHaveLength(1);
    expect(r.err).toMatch(message);
    const now = snapshot(out);
    expect([...now.keys()]).toEqual([...before.keys()]);
    for (const [k, b] of before) expect(now.get(k)!.equals(b)).toBe(true);
    expect(fs.readdirSync(out).filter((n) => /\.(tmp|bak)$/.test(n))).toEqual([]);
  });

  it('usage errors exit 2: a character without --landmarks, a bad --image-size, a bad --set', async () => {
    for (const args of [
      [good, '-o', out],
      [good, '--landmarks', goodRec, '--image-size', '720by1280', '-o', out],
      [good, '--landmarks', goodRec, '--set', 'smoothingMs=-1', '-o', out],
      [good, '--landmarks', goodRec, '--set', 'bogus=1', '-o', out],
      [good, '--landmarks', goodRec, '--weights', 'nearest', '-o', out],
    ]) {
      const r = await runKind(['puppet', 'render', ...args]);
      expect(r.code).toBe(2);
    }
    const r = await runKind(['puppet', 'render', good, '-o', out]);
    expect(r.err).toMatch(/--landmarks: name the recording/);
  });
});

/** Sum of a GIF's frame delays (graphic control extensions), centiseconds. */
function gifDurationCs(b: Buffer): number {
  let cs = 0;
  for (let i = 0; i + 8 < b.length; i++)
    if (b[i] === 0x21 && b[i + 1] === 0xf9 && b[i + 2] === 0x04 && b[i + 7] === 0x00 && b[i + 8] === 0x2c)
      cs += b[i + 4] | (b[i + 5] << 8);
  return cs;
}

describe('kind puppet render: odd but valid input, and inputs a trial run broke', () => {
  const dir = path.join(tmp, 'odd');
  fs.mkdirSync(dir, { recursive: true });
  const good = writeAnimatedDrawingsFolder(armsDownCharacter(), path.join(dir, 'char'));
  const rec = (name: string, body: unknown): string => {
    const f = path.join(dir, name);
    fs.writeFileSync(f, JSON.stringify(body));
    return f;
  };
  const standing = (t: number) =>
    standingFrame({ image: IMAGE, hips: HIPS, torso: TORSO, visibility: 0.9, timestampMs: t });

  it('a recording of one frame renders one frame (it crashed in the lag measure)', async () => {
    const out = path.join(dir, 'one');
    const r = await runKind([
      'puppet',
      'render',
      good,
      '--landmarks',
      rec('one.json', { image: IMAGE, frames: [standing(0)] }),
      '-o',
      out,
      '-q',
    ]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(fs.readdirSync(path.join(out, 'frames'))).toEqual(['0000.png']);
    const f = readPuppet(out);
    expect(f.frames).toHaveLength(1);
    expect(f.stats.lagMs).toBeNull(); // NaN: no delay can be measured from one frame
    expect(gifFrames(fs.readFileSync(path.join(out, 'preview.gif')))).toBe(1);
  });

  it("the GIF plays at the recording's pace: its delays add up to the recording's length (30 fps: 3 and 4 cs)", async () => {
    const out = path.join(dir, 'pace');
    const frames = Array.from({ length: 90 }, (_, i) => standing(Math.round((i * 1000) / 30)));
    expect(
      (
        await runKind([
          'puppet',
          'render',
          good,
          '--landmarks',
          rec('pace.json', { image: IMAGE, frames }),
          '-o',
          out,
          '-q',
        ])
      ).code,
    ).toBe(0);
    // 90 frames of 1/30 s: 3000 ms = 300 cs (the last frame shown for one frame time too)
    expect(gifDurationCs(fs.readFileSync(path.join(out, 'preview.gif')))).toBe(300);
  });

  it('--no-preview removes an earlier preview.gif, so the folder never holds two runs', async () => {
    const out = path.join(dir, 'nopreview');
    const file = rec('np.json', { image: IMAGE, frames: [standing(0), standing(33), standing(67)] });
    expect((await runKind(['puppet', 'render', good, '--landmarks', file, '-o', out, '-q'])).code).toBe(0);
    expect(fs.existsSync(path.join(out, 'preview.gif'))).toBe(true);
    expect(
      (await runKind(['puppet', 'render', good, '--landmarks', file, '-o', out, '-q', '--no-preview'])).code,
    ).toBe(0);
    expect(fs.readdirSync(out).sort()).toEqual(['frames', 'puppet.json']);
  });

  it('"landmarks": [] is a frame with no person even when it carries world landmarks', async () => {
    const frames = [0, 33, 67].map((t) => {
      const f = standing(t);
      return {
        timestampMs: t,
        landmarks: [],
        worldLandmarks: f.landmarks!.map((l) => ({ x: l.x - 0.5, y: l.y - 0.5, z: 0 })),
      };
    });
    const r = await runKind([
      'puppet',
      'render',
      good,
      '--landmarks',
      rec('emptyimg.json', { image: IMAGE, frames }),
      '-o',
      path.join(dir, 'e'),
    ]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/emptyimg\.json: no person in any of the 3 frame\(s\)/);
  });

  it('a char_cfg.yaml joint outside the image, or a parent cycle, is refused naming the joint and line', async () => {
    const c = armsDownCharacter();
    const far = writeAnimatedDrawingsFolder(c, path.join(dir, 'far'));
    const cfg = fs.readFileSync(path.join(far, 'char_cfg.yaml'), 'utf8');
    fs.writeFileSync(
      path.join(far, 'char_cfg.yaml'),
      cfg
        .replace(/(name: left_hand)/, '$1')
        .replace(/- loc:\n {2}- 132\n {2}- 162/, '- loc:\n  - 1320\n  - 162'),
    );
    const file = rec('far.json', { image: IMAGE, frames: [standing(0), standing(33)] });
    const r = await runKind(['puppet', 'render', far, '--landmarks', file, '-o', path.join(dir, 'far-out')]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /far\/char_cfg\.yaml:\d+: joint 'left_hand': loc \[1320, 162\] lies outside the 200x300 image/,
    );
    const cyc = writeAnimatedDrawingsFolder(c, path.join(dir, 'cyc'));
    const t = fs.readFileSync(path.join(cyc, 'char_cfg.yaml'), 'utf8');
    fs.writeFileSync(
      path.join(cyc, 'char_cfg.yaml'),
      t.replace('name: torso\n  parent: hip', 'name: torso\n  parent: neck'),
    );
    const r2 = await runKind(['puppet', 'render', cyc, '--landmarks', file, '-o', path.join(dir, 'cyc-out')]);
    expect(r2.code).toBe(1);
    expect(r2.err).toMatch(/cyc\/char_cfg\.yaml:\d+: joint '(torso|neck)': its parents form a cycle/);
  });

  it('a tfjs file read with a wrong --image-size is refused; a bad world file is named as such', async () => {
    const px = rec(
      'tf.json',
      Array.from({ length: 4 }, () => LANDMARK_OFFSETS.map(([x, y]) => [x * 100 + 300, y * 100 + 300, 0])),
    );
    const r = await runKind([
      'puppet',
      'render',
      good,
      '--landmarks',
      px,
      '--image-size',
      '1x1',
      '-o',
      path.join(dir, 'tf'),
    ]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /tf\.json: 100% of landmarks fall outside 1x1 \(more than 5% of the image beyond an edge\); the landmarks reach x \d+ px, y \d+ px: give the video's size in pixels; the smallest common size that holds them is 640x480 \(--image-size 640x480\)/,
    );
    const world = rec('world.json', { not: 'frames' });
    const r2 = await runKind([
      'puppet',
      'render',
      good,
      '--landmarks',
      px,
      '--image-size',
      '640x480',
      '--world',
      world,
      '-o',
      path.join(dir, 'tf'),
    ]);
    expect(r2.code).toBe(1);
    expect(r2.err).toMatch(/world\.json: need \[frames\]\[33\]\[x, y, z\], got an object/);
    const short = rec(
      'world3.json',
      Array.from({ length: 3 }, () => LANDMARK_OFFSETS.map(([x, y]) => [x, y, 0])),
    );
    const r3 = await runKind([
      'puppet',
      'render',
      good,
      '--landmarks',
      px,
      '--image-size',
      '640x480',
      '--world',
      short,
      '-o',
      path.join(dir, 'tf'),
    ]);
    expect(r3.err).toMatch(/the pixel file has 4 frames and the world file .*world3\.json 3/);
  });

  it('a JPEG photo of a drawing on paper renders, its mask taken from the paper; a bare image says its joints are the default skeleton', async () => {
    const { decode, encode } = await import('jpeg-js');
    const tex = decodePng(fs.readFileSync(path.resolve(__dirname, '../assets/default/puppet/texture.png')));
    const jpg = path.join(dir, 'drawing.jpg');
    fs.writeFileSync(
      jpg,
      encode({ width: tex.width, height: tex.height, data: Buffer.from(tex.data) }, 90).data,
    );
    expect(decode(fs.readFileSync(jpg), { useTArray: true }).width).toBe(360);
    const out = path.join(dir, 'jpg');
    const r = await runKind([
      'puppet',
      'render',
      jpg,
      '--landmarks',
      rec('jpg.json', { image: IMAGE, frames: [standing(0), standing(33)] }),
      '-o',
      out,
    ]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/rendered 'drawing' \(360x480 px/);
    expect(r.out).toMatch(/note: drawing\.jpg: no char_cfg\.yaml, so the joints are the default skeleton/);
    // the mask found on the JPEG's paper against the drawn mask.png
    const { loadCharacter } = await import('../src/io/node');
    const fromJpg = loadCharacter(jpg);
    const drawn = decodePng(fs.readFileSync(path.resolve(__dirname, '../assets/default/puppet/mask.png')));
    let both = 0;
    let either = 0;
    for (let i = 0; i < fromJpg.mask.length; i++) {
      const a = fromJpg.mask[i] > 0;
      const b = drawn.data[4 * i] > 127;
      if (a && b) both++;
      if (a || b) either++;
    }
    expect(both / either).toBeGreaterThan(0.85);
    const notImage = rec('notimage.jpg', { x: 1 });
    const bad = await runKind([
      'puppet',
      'render',
      notImage,
      '--landmarks',
      path.join(dir, 'jpg.json'),
      '-o',
      path.join(dir, 'ni'),
    ]);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/notimage\.jpg: not a PNG or JPEG image/);
  });

  it('--set takes space=image|world|auto; a value that is not a number says so', async () => {
    const file = rec('space.json', { image: IMAGE, frames: [standing(0), standing(33)] });
    const w = await runKind([
      'puppet',
      'render',
      good,
      '--landmarks',
      file,
      '--set',
      'space=world',
      '-o',
      path.join(dir, 'sp'),
    ]);
    expect(w.code).toBe(1); // this recording has no world landmarks
    expect(w.err).toMatch(/no person in any of the 2 frame\(s\)/);
    const bad = await runKind([
      'puppet',
      'render',
      good,
      '--landmarks',
      file,
      '--set',
      'smoothingMs=abc',
      '-o',
      path.join(dir, 'sp'),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--set: smoothingMs=abc is not a number/);
    expect(
      (
        await runKind([
          'puppet',
          'render',
          good,
          '--landmarks',
          file,
          '--set',
          'space=sideways',
          '-o',
          path.join(dir, 'sp'),
        ])
      ).code,
    ).toBe(2);
  });
});

describe('kind puppet tune', () => {
  it('sweeps the grid over a noisy copy of a recording: jitter against lag, error vs clean, the chosen row marked, JSON written', async () => {
    const recFile = path.join(tmp, 'tune.json');
    fs.writeFileSync(recFile, JSON.stringify(syntheticRecording()));
    const json = path.join(tmp, 'tune-out', 'rows.json');
    fs.mkdirSync(path.dirname(json));
    const r = await runKind([
      'puppet',
      'tune',
      recFile,
      '--noise',
      '0.003',
      '--seeds',
      '2',
      '--grid',
      'smoothingMs=0,100',
      '--grid',
      'speedGain=0,3',
      '--json',
      json,
    ]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/tune over .*tune\.json \(40 frames x 2 noise seeds\): 4 settings/);
    expect(r.out).toMatch(/<- chosen/);
    expect(r.out).toMatch(/defaults: smoothingMs 100, speedGain 3/);
    // the mesh figures: the recording (without the noise) on the embedded drawing, plain LBS -> ARAP
    expect(r.out).toMatch(
      /\n {2}.*tune\.json on default \(arap\): flipped \d+\/40 \(\d+\) -> 0\/40 \(0\); stretch worst [\d.]+ -> [\d.]+, p99/,
    );
    expect(JSON.parse(fs.readFileSync(json, 'utf8')).mesh[0].mesh.deformed.framesWithFlips).toBe(0);
    const rows = JSON.parse(fs.readFileSync(json, 'utf8')).rows as {
      options: { smoothingMs: number; speedGain: number };
      jitterRaw: number;
      jitterFiltered: number;
      lagMs: number;
      errorVsClean: number;
    }[];
    expect(rows).toHaveLength(4);
    const row = (s: number, g: number) =>
      rows.find((x) => x.options.smoothingMs === s && x.options.speedGain === g)!;
    // the same raw input for every row; smoothing lowers the jitter, the plain EMA the most, and lags the most
    for (const x of rows) expect(x.jitterRaw).toBeCloseTo(rows[0].jitterRaw, 9);
    expect(row(100, 0).jitterFiltered).toBeLessThan(row(0, 0).jitterFiltered);
    expect(row(100, 0).jitterFiltered).toBeLessThan(row(100, 3).jitterFiltered);
    expect(row(100, 0).lagMs).toBeGreaterThanOrEqual(row(100, 3).lagMs);
    expect(row(0, 0).lagMs).toBeLessThanOrEqual(row(100, 3).lagMs);
    for (const x of rows) expect(Number.isFinite(x.errorVsClean)).toBe(true);
  });

  it('--json never replaces an input recording', async () => {
    const recFile = path.join(tmp, 'tune-victim.json');
    fs.writeFileSync(recFile, JSON.stringify(syntheticRecording()));
    const before = fs.readFileSync(recFile);
    const r = await runKind(['puppet', 'tune', recFile, '--grid', 'smoothingMs=0', '--json', recFile]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/would overwrite the landmark recording/);
    expect(fs.readFileSync(recFile).equals(before)).toBe(true);
  });

  it('--json never replaces the world landmarks file read beside a tfjs recording, nor takes an option as its value', async () => {
    const dir = path.join(tmp, 'tune-world');
    fs.mkdirSync(dir);
    const px = path.join(dir, 'take.full.json');
    const world = path.join(dir, 'take_3d.full.json');
    const frames = Array.from({ length: 5 }, (_, f) =>
      LANDMARK_OFFSETS.map(([x, y]) => [x * 100 + 300 + f, y * 100 + 300, 0]),
    );
    fs.writeFileSync(px, JSON.stringify(frames));
    fs.writeFileSync(world, JSON.stringify(frames.map((fr) => fr.map(([x, y]) => [x / 1000, y / 1000, 0]))));
    const before = fs.readFileSync(world);
    const r = await runKind([
      'puppet',
      'tune',
      px,
      '--image-size',
      '640x480',
      '--grid',
      'smoothingMs=0',
      '--json',
      world,
    ]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /would overwrite the world landmarks file .*take_3d\.full\.json; choose another --json file/,
    );
    expect(fs.readFileSync(world).equals(before)).toBe(true);
    // render, with the world file as an output's name
    const r2 = await runKind([
      'puppet',
      'render',
      '--landmarks',
      px,
      '--image-size',
      '640x480',
      '--world',
      path.join(dir, 'puppet.json'),
      '-o',
      dir,
    ]);
    expect(r2.code).toBe(1); // (that file does not exist: the world file is missing)
    fs.copyFileSync(world, path.join(dir, 'puppet.json'));
    const r3 = await runKind([
      'puppet',
      'render',
      '--landmarks',
      px,
      '--image-size',
      '640x480',
      '--world',
      path.join(dir, 'puppet.json'),
      '-o',
      dir,
    ]);
    expect(r3.code).toBe(1);
    expect(r3.err).toMatch(/would overwrite the world landmarks file/);
    expect(fs.readFileSync(path.join(dir, 'puppet.json')).equals(before)).toBe(true);
    const r4 = await runKind(['puppet', 'tune', px, '--image-size', '640x480', '--json', '-q']);
    expect(r4.code).toBe(2);
    expect(r4.err).toMatch(/--json: '-q' looks like an option/);
  });

  it('a recording with nobody in it is refused by tune as by render; a broken tfjs file is named before the missing --image-size', async () => {
    const empty = path.join(tmp, 'tune-empty.json');
    fs.writeFileSync(
      empty,
      JSON.stringify({ image: IMAGE, frames: [0, 33, 67].map((t) => ({ timestampMs: t, landmarks: [] })) }),
    );
    const r = await runKind(['puppet', 'tune', empty]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/tune-empty\.json: no person in any of the 3 frame\(s\)/);
    const broken = path.join(tmp, 'tune-broken.json');
    fs.writeFileSync(broken, '[[[1,2,3]');
    const b = await runKind(['puppet', 'tune', broken]);
    expect(b.code).toBe(1);
    expect(b.err).toMatch(/tune-broken\.json:1:\d+: not valid JSON/);
  });

  it('with no smoothing the jitter after equals the jitter before (the same joint-frames are measured)', async () => {
    const r = await runKind([
      'puppet',
      'tune',
      path.resolve(__dirname, '../assets/default/puppet/recording.json'),
      '--grid',
      'smoothingMs=0',
      '--json',
      path.join(tmp, 'tune-zero.json'),
    ]);
    expect(r.code).toBe(0);
    const row = JSON.parse(fs.readFileSync(path.join(tmp, 'tune-zero.json'), 'utf8')).rows[0];
    expect(row.jitterFiltered).toBeCloseTo(row.jitterRaw, 9);
    expect(row.lagMs).toBe(0);
  });

  it('refuses a grid value that is not a valid option and --seeds without --noise', async () => {
    const recFile = path.join(tmp, 'tune.json');
    expect((await runKind(['puppet', 'tune', recFile, '--grid', 'smoothingMs=-5'])).code).toBe(2);
    expect((await runKind(['puppet', 'tune', recFile, '--grid', 'speed=1'])).code).toBe(2);
    expect((await runKind(['puppet', 'tune', recFile, '--seeds', '2'])).code).toBe(2);
  });
});

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => {
          body += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

describe('kind puppet (the page server)', () => {
  it('prints its URL, serves the page config with the recording, and stops on SIGINT with exit 130', async () => {
    const recFile = path.join(tmp, 'serve.json');
    fs.writeFileSync(recFile, JSON.stringify(syntheticRecording()));
    const lines: string[] = [];
    const log = jest.spyOn(console, 'log').mockImplementation((...a: unknown[]) => {
      lines.push(a.join(' '));
    });
    try {
      const { main } = await import('../src/cli/main');
      const run = main(['node', 'kind', 'puppet', '--port', '0', '--landmarks', recFile]);
      while (!lines.some((l) => l.startsWith('drawing puppet page: ')))
        await new Promise((r) => setTimeout(r, 20));
      const url = lines
        .find((l) => l.startsWith('drawing puppet page: '))!
        .slice('drawing puppet page: '.length);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      const cfg = await get(`${url}config.json`);
      expect(cfg.status).toBe(200);
      expect(JSON.parse(cfg.body).recording).toBe('/recording.json');
      expect(JSON.parse(cfg.body).recordingName).toBe('serve.json');
      expect((await get(`${url}recording.json`)).body).toBe(fs.readFileSync(recFile, 'utf8'));
      process.emit('SIGINT', 'SIGINT');
      expect(await run).toBe(130);
      expect(lines.at(-1)).toBe('stopped (SIGINT): the puppet page server is closed');
      await expect(get(`${url}config.json`)).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      log.mockRestore();
    }
  });

  it('a tfjs reference given with --landmarks is converted for the page; a bad recording fails before serving', async () => {
    const tf = path.join(tmp, 'serve-tfjs.json');
    fs.writeFileSync(
      tf,
      JSON.stringify([LANDMARK_OFFSETS.map(([x, y]) => [x * 100 + 300, y * 100 + 300, 0])]),
    );
    const bad = await runKind(['puppet', '--port', '0', '--landmarks', tf]);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/needs the camera image size/);
    const r = await runKind([
      'puppet',
      '--port',
      '0',
      '--landmarks',
      tf,
      '--image-size',
      '640x480',
      '--duration',
      '0.2',
    ]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/drawing puppet page: http:\/\/127\.0\.0\.1:\d+\//);
    expect(r.out).toMatch(/stopped: the puppet page server is closed/);
  });

  it('--help shows the port default once (commander adds it)', async () => {
    const r = await runKind(['puppet', '--help']);
    expect(r.code).toBe(0);
    const port = String(DEFAULT_PUPPET_PORT);
    expect(r.out.split(port)).toHaveLength(2); // the port number appears once in the whole help
    expect(r.out).toMatch(new RegExp(`--port <n>\\s+port \\(0 = any free one\\) \\(default: ${port}\\)`));
  });
});

describe('README.md and docs/puppet.md show what kind puppet render prints on the embedded default', () => {
  it('each `$ npx kind puppet render` block equals a run on the default (but the wall-clock "time:" line)', async () => {
    // the block is in docs/puppet.md (the command's page) and, as the puppet's example, in README.md
    const shownBlocks = ['../../README.md', '../../docs/puppet.md'].map((f) => {
      const text = fs.readFileSync(path.resolve(__dirname, f), 'utf8');
      const m = /```\n\$ npx kind puppet render\n([\s\S]*?)```/.exec(text);
      expect(m).not.toBeNull();
      return m![1].trimEnd().split('\n');
    });
    const out = path.join(tmp, 'readme-default');
    const cwd = process.cwd();
    process.chdir(path.resolve(__dirname, '..'));
    try {
      const r = await runKind(['puppet', 'render', '-o', 'puppet-out-readme-test']);
      expect(r.code).toBe(0);
      const got = r.out.trimEnd().split('\n');
      const keep = (lines: string[]) =>
        lines
          .filter((l) => !l.startsWith('  time: '))
          .map((l) => l.replace(/puppet-out-readme-test\//g, 'puppet-out/'));
      for (const shown of shownBlocks) expect(keep(got)).toEqual(keep(shown));
      fs.renameSync('puppet-out-readme-test', out);
    } finally {
      fs.rmSync(path.resolve(__dirname, '../puppet-out-readme-test'), { recursive: true, force: true });
      process.chdir(cwd);
    }
  });
});
