/**
 * The embedded default of the drawing puppet (assets/default/puppet, made by tools/make-puppet-sample.mjs):
 * it regenerates byte for byte; the drawing loads as an AnimatedDrawings character (one piece, no holes,
 * meshed with >= 97 % of its pixels covered); the landmark recording runs through the pose pipeline and
 * tells its story: the right hand above the head in the first second, the left forearm hidden for frames
 * 70-84 and measured again after, the hips down >= 40 px in the squat; no person for frames 120-134; back
 * and swaying from 135; from 150 a chest-up framing whose leg landmarks (visibility 0.05) are junk above the
 * hips, which the pipeline never follows (the shins stay pointing down).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadCharacter } from '../src/io/node';
import {
  buildMesh,
  type Character,
  fillHoles,
  JOINT_STATES,
  type JointState,
  JointStateCode,
  keepLargestComponent,
  type LandmarkRecording,
  maskArea,
  maskFromImage,
  type PipelineRun,
  PUPPET_JOINT_COUNT,
  PUPPET_JOINTS,
  type PuppetJointName,
  type PuppetMesh,
  parseCharCfg,
  parseLandmarkRecording,
  runPipeline,
} from '../src/puppet';
import { forPixels, J } from './helpers/puppetDrawing';

const DIR = path.resolve(__dirname, '../assets/default/puppet');
const SCRIPT = path.resolve(__dirname, '../../tools/make-puppet-sample.mjs');
const FILES = ['texture.png', 'mask.png', 'char_cfg.yaml', 'recording.json'];
const FOREARM: PuppetJointName[] = ['LeftLowerArm', 'LeftHand', 'LeftHandTip'];
const HIDDEN = { from: 70, to: 84 };
const NO_PERSON = { from: 120, to: 134 };
const BACK = 135;
const CHEST_UP = 150;
const FRAMES = 180;
const LEGS: PuppetJointName[] = [
  'LeftLowerLeg',
  'LeftFoot',
  'LeftToes',
  'RightLowerLeg',
  'RightFoot',
  'RightToes',
];
const noPerson = (f: number) => f >= NO_PERSON.from && f <= NO_PERSON.to;

it('tools/make-puppet-sample.mjs regenerates every file byte for byte', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-puppet-sample-'));
  try {
    execFileSync(process.execPath, [SCRIPT, '--out', tmp], { stdio: 'pipe' });
    for (const f of FILES) {
      const made = fs.readFileSync(path.join(tmp, f));
      const committed = fs.readFileSync(path.join(DIR, f));
      expect({ file: f, same: made.equals(committed) }).toEqual({ file: f, same: true });
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

describe('the default drawing', () => {
  let ch: Character;
  let mesh: PuppetMesh;
  beforeAll(() => {
    ch = loadCharacter(DIR);
    mesh = buildMesh(ch);
  });

  it('is an AnimatedDrawings character: 16 annotated joints -> 21, inside the drawing', () => {
    const cfg = parseCharCfg(fs.readFileSync(path.join(DIR, 'char_cfg.yaml'), 'utf8'), 'char_cfg.yaml');
    expect(cfg.joints).toHaveLength(16);
    expect([cfg.width, cfg.height]).toEqual([ch.width, ch.height]);
    const r = ch.restJoints;
    expect(r.x).toHaveLength(PUPPET_JOINT_COUNT);
    let measured = 0;
    for (let j = 0; j < PUPPET_JOINT_COUNT; j++) {
      expect(Number.isFinite(r.x[j]) && Number.isFinite(r.y[j])).toBe(true);
      if (r.state[j] === JointStateCode.Measured) measured++;
      // every joint (annotated or synthesised) lies on the drawing
      expect(ch.mask[Math.floor(r.y[j]) * ch.width + Math.floor(r.x[j])]).toBe(255);
    }
    expect(measured).toBe(15); // the 16 annotated ones (root and hip are both Hips)
    // the character's left is image right; head above the shoulders above the hips above the feet
    expect(r.x[J('LeftUpperArm')]).toBeGreaterThan(r.x[J('RightUpperArm')]);
    expect(r.y[J('Head')]).toBeLessThan(r.y[J('Neck')]);
    expect(r.y[J('Neck')]).toBeLessThan(r.y[J('Hips')]);
    expect(r.y[J('Hips')]).toBeLessThan(r.y[J('LeftFoot')]);
    // arms in an A-pose: 20-50 degrees below horizontal
    for (const [s, e] of [
      ['LeftUpperArm', 'LeftLowerArm'],
      ['RightUpperArm', 'RightLowerArm'],
    ] as const) {
      const dx = Math.abs(r.x[J(e)] - r.x[J(s)]);
      const deg = (Math.atan2(r.y[J(e)] - r.y[J(s)], dx) * 180) / Math.PI;
      expect(deg).toBeGreaterThan(20);
      expect(deg).toBeLessThan(50);
    }
  });

  it('mask: non-empty, one 8-connected piece, no holes; the texture is opaque paper', () => {
    const area = maskArea(ch.mask);
    expect(area).toBeGreaterThan(0.1 * ch.width * ch.height);
    const one = Uint8Array.from(ch.mask);
    keepLargestComponent(one, ch.width, ch.height);
    expect(maskArea(one)).toBe(area);
    const filled = Uint8Array.from(ch.mask);
    fillHoles(filled, ch.width, ch.height);
    expect(maskArea(filled)).toBe(area);
    // opaque, and exactly white paper outside the drawing (the mask holds the outline's anti-aliased rim)
    let transparent = 0;
    let notPaper = 0;
    for (let i = 0; i < ch.width * ch.height; i++) {
      const [r, g, b, a] = ch.texture.data.subarray(4 * i, 4 * i + 4);
      if (a !== 255) transparent++;
      if (!ch.mask[i] && r + g + b !== 765) notPaper++;
    }
    expect(transparent).toBe(0);
    expect(notPaper).toBe(0);
    // read as a photo of paper (no mask.png), the texture gives the drawing (plus the 2-px dilation of
    // AnimatedDrawings' segmentation steps)
    const m = maskFromImage(ch.texture);
    let inter = 0;
    let uni = 0;
    for (let i = 0; i < m.length; i++) {
      if (m[i] && ch.mask[i]) inter++;
      if (m[i] || ch.mask[i]) uni++;
    }
    console.log(
      `default drawing: maskFromImage(texture) holds ${((100 * inter) / area).toFixed(2)} % of mask.png, IoU ${(inter / uni).toFixed(4)}`,
    );
    expect(inter / area).toBeGreaterThan(0.995);
    expect(uni / area).toBeLessThan(1.15);
  });

  it('mesh: 150-700 vertices covering >= 97 % of the mask pixels', () => {
    const cov = new Uint8Array(ch.width * ch.height);
    const t = mesh.triangles;
    for (let k = 0; k < mesh.triangleCount; k++)
      forPixels(mesh.vertices, t[3 * k], t[3 * k + 1], t[3 * k + 2], ch.width, ch.height, (x, y) => {
        cov[y * ch.width + x] = 1;
      });
    let covered = 0;
    for (let i = 0; i < cov.length; i++) if (ch.mask[i] && cov[i]) covered++;
    const coverage = covered / maskArea(ch.mask);
    console.log(
      `default drawing ${ch.width}x${ch.height}: ${maskArea(ch.mask)} mask px, ${mesh.vertexCount} vertices, ${mesh.triangleCount} triangles, coverage ${(100 * coverage).toFixed(2)} %`,
    );
    expect(mesh.vertexCount).toBeGreaterThanOrEqual(150);
    expect(mesh.vertexCount).toBeLessThanOrEqual(700);
    expect(coverage).toBeGreaterThanOrEqual(0.97);
  });
});

describe('the default recording', () => {
  let rec: LandmarkRecording;
  let run: PipelineRun;
  const state = (f: number, n: PuppetJointName) => JOINT_STATES[run.filtered[f].state[J(n)]];
  const y = (f: number, n: PuppetJointName) => run.filtered[f].y[J(n)];
  beforeAll(() => {
    rec = parseLandmarkRecording(fs.readFileSync(path.join(DIR, 'recording.json'), 'utf8'), 'recording.json');
    run = runPipeline(rec);
  });

  it('180 frames at 30 fps of a 640x480 image, a person in every frame but 120-134, image space', () => {
    expect(rec.image).toEqual({ width: 640, height: 480 });
    expect(rec.frames).toHaveLength(FRAMES);
    rec.frames.forEach((f, i) => {
      expect(f.timestampMs).toBe(Math.round((i * 1000) / 30));
      expect(f.landmarks).toHaveLength(noPerson(i) ? 0 : 33);
      expect(f.worldLandmarks).toHaveLength(noPerson(i) ? 0 : 33);
    });
    expect(run.space).toBe('image');
    const absent = run.frames.flatMap((f, i) => (f.personFound ? [] : [i]));
    expect(absent).toEqual(Array.from({ length: 15 }, (_, k) => NO_PERSON.from + k));
    expect(run.frames.filter((f) => f.visibilityUnknown)).toHaveLength(0);
    expect(run.outliers).toBe(0);
  });

  it('a rigid skeleton: bone lengths constant up to the ~1 px landmark noise (where both ends are visible)', () => {
    for (const [a, b] of [
      ['RightUpperArm', 'RightLowerArm'],
      ['RightLowerArm', 'RightHand'],
      ['LeftUpperLeg', 'LeftLowerLeg'],
      ['Hips', 'Neck'],
    ] as const) {
      const seen = run.raw.filter((s) => s.confidence[J(a)] >= 0.5 && s.confidence[J(b)] >= 0.5);
      // every frame with a person, but the chest-up frames for the leg
      expect(seen).toHaveLength(a === 'LeftUpperLeg' ? FRAMES - 15 - (FRAMES - CHEST_UP) : FRAMES - 15);
      const len = seen.map((s) => Math.hypot(s.x[J(b)] - s.x[J(a)], s.y[J(b)] - s.y[J(a)]));
      const mean = len.reduce((s, v) => s + v, 0) / len.length;
      const sd = Math.sqrt(len.reduce((s, v) => s + (v - mean) ** 2, 0) / len.length);
      expect(mean).toBeGreaterThan(40);
      expect(sd).toBeLessThan(2.5);
    }
  });

  it('0-1 s: the right hand goes from below the shoulders to above the head', () => {
    expect(y(0, 'RightHand')).toBeGreaterThan(y(0, 'RightUpperArm'));
    const above = run.filtered.slice(0, 30).filter((s) => s.y[J('RightHand')] < s.y[J('Head')]).length;
    expect(above).toBeGreaterThanOrEqual(10);
    // and down again by 2 s, the left hand never up
    expect(y(59, 'RightHand')).toBeGreaterThan(y(59, 'RightUpperArm'));
    for (let f = 0; f < 90; f++) expect(y(f, 'LeftHand')).toBeGreaterThan(y(f, 'LeftUpperArm'));
  });

  it('1-2 s: the upper body leans about the hips and comes back', () => {
    const tilt = (f: number) => {
      const s = run.filtered[f];
      return (Math.atan2(s.x[J('Neck')] - s.x[J('Hips')], s.y[J('Hips')] - s.y[J('Neck')]) * 180) / Math.PI;
    };
    const lean = Math.max(...Array.from({ length: 30 }, (_, k) => Math.abs(tilt(30 + k))));
    expect(lean).toBeGreaterThan(8);
    expect(Math.abs(tilt(10))).toBeLessThan(3);
    expect(Math.abs(tilt(65))).toBeLessThan(3);
  });

  it('2-3 s: the hips go down >= 40 px in the squat and come back up', () => {
    const start = y(60, 'Hips');
    const lowest = Math.max(...run.filtered.slice(60, 90).map((s) => s.y[J('Hips')]));
    console.log(`default recording: hips ${start.toFixed(1)} -> ${lowest.toFixed(1)} px in the squat`);
    expect(lowest - start).toBeGreaterThanOrEqual(40);
    expect(Math.abs(y(95, 'Hips') - start)).toBeLessThan(5);
  });

  it('frames 70-84: the left forearm is hidden (not measured), measured again by frame 86', () => {
    for (const n of FOREARM) {
      expect(state(HIDDEN.from - 1, n)).toBe('measured');
      for (let f = HIDDEN.from; f <= HIDDEN.to; f++) {
        expect(run.raw[f].confidence[J(n)]).toBeLessThan(0.5);
        expect({ f, n, state: state(f, n) }).not.toEqual({ f, n, state: 'measured' });
      }
      const back = run.filtered.findIndex(
        (s, f) => f > HIDDEN.to && s.state[J(n)] === JointStateCode.Measured,
      );
      expect(back).toBeGreaterThan(HIDDEN.to);
      expect(back).toBeLessThanOrEqual(86);
      for (let f = back; f < NO_PERSON.from; f++) expect(state(f, n)).toBe('measured');
    }
    // everything else measured in every frame up to the no-person stretch
    for (let f = 0; f < NO_PERSON.from; f++)
      for (let j = 0; j < PUPPET_JOINT_COUNT; j++)
        if (!FOREARM.includes(PUPPET_JOINTS[j]))
          expect({ f, j: PUPPET_JOINTS[j], state: JOINT_STATES[run.filtered[f].state[j]] }).toEqual({
            f,
            j: PUPPET_JOINTS[j],
            state: 'measured',
          });
  });

  it('3-4 s: both arms out to the sides (hands near shoulder height, far out)', () => {
    const s = run.filtered[115];
    for (const side of ['Left', 'Right'] as const) {
      const sh = J(`${side}UpperArm`);
      const h = J(`${side}Hand`);
      expect(Math.abs(s.y[h] - s.y[sh])).toBeLessThan(15);
      expect(Math.abs(s.x[h] - s.x[sh])).toBeGreaterThan(100);
    }
  });

  it('frames 120-134: no person; nothing is measured (held, then the rest pose)', () => {
    for (let f = NO_PERSON.from; f <= NO_PERSON.to; f++) {
      expect(run.frames[f].personFound).toBe(false);
      expect({ f, measured: run.frames[f].counts.measured }).toEqual({ f, measured: 0 });
    }
    console.log(
      `default recording, no person (${NO_PERSON.from}-${NO_PERSON.to}), held/rest per frame: ` +
        Array.from({ length: 15 }, (_, k) => {
          const c = run.frames[NO_PERSON.from + k].counts;
          return `${c.held}h/${c.rest}r`;
        }).join(' '),
    );
  });

  it('frames 135-149: the person is back, all 21 joints measured again within 2 frames, swaying', () => {
    const all = (f: number) => run.frames[f].counts.measured === PUPPET_JOINT_COUNT;
    let first = BACK;
    while (first < CHEST_UP && !all(first)) first++;
    console.log(`default recording: back at ${BACK}, all 21 measured from frame ${first}`);
    expect(first - BACK).toBeLessThanOrEqual(2);
    for (let f = first; f < CHEST_UP; f++) expect({ f, all: all(f) }).toEqual({ f, all: true });
    // the upper body sways (lean of the Hips -> Neck line up to ~6 degrees, both ways) over 135-179
    const tilt = (f: number) => {
      const s = run.filtered[f];
      return (Math.atan2(s.x[J('Neck')] - s.x[J('Hips')], s.y[J('Hips')] - s.y[J('Neck')]) * 180) / Math.PI;
    };
    const tilts = Array.from({ length: FRAMES - BACK }, (_, k) => tilt(BACK + k));
    expect(Math.max(...tilts)).toBeGreaterThan(4);
    expect(Math.max(...tilts)).toBeLessThan(8);
    expect(Math.min(...tilts)).toBeLessThan(-4);
    expect(Math.min(...tilts)).toBeGreaterThan(-8);
    // arms at rest: hands below the shoulders
    for (let f = BACK; f < FRAMES; f++)
      for (const side of ['Left', 'Right'] as const)
        expect(y(f, `${side}Hand`) - y(f, `${side}UpperArm`)).toBeGreaterThan(80);
  });

  it('frames 150-179: chest-up, the junk leg landmarks above the hips are not followed: the shins point down', () => {
    const parent: Record<string, PuppetJointName> = {
      LeftLowerLeg: 'LeftUpperLeg',
      LeftFoot: 'LeftLowerLeg',
      LeftToes: 'LeftFoot',
      RightLowerLeg: 'RightUpperLeg',
      RightFoot: 'RightLowerLeg',
      RightToes: 'RightFoot',
    };
    const conf = (f: number, n: PuppetJointName) => run.filtered[f].confidence[J(n)];
    for (let f = CHEST_UP; f < FRAMES; f++) {
      // the input: knees and ankles above the hips, visibility 0.05
      expect(run.raw[f].y[J('LeftLowerLeg')]).toBeLessThan(run.raw[f].y[J('Hips')] - 20);
      expect(run.raw[f].y[J('RightFoot')]).toBeLessThan(run.raw[f].y[J('Hips')] - 35);
      for (const n of LEGS) {
        expect(run.raw[f].confidence[J(n)]).toBeLessThan(0.1);
        const st = state(f, n);
        expect({ f, n, st }).not.toEqual({ f, n, st: 'measured' });
        // held for at most 100 ms (3 frames), confidence decaying; then guessed, below the threshold
        if (f - CHEST_UP >= 3) expect({ f, n, st }).toEqual({ f, n, st: 'parent' });
        else {
          expect({ f, n, st }).toEqual({ f, n, st: 'held' });
          expect(conf(f, n)).toBeLessThan(f === CHEST_UP ? conf(f - 1, n) : conf(f - 1, n) * 0.9);
        }
        if (f > CHEST_UP) expect(conf(f, n)).toBeLessThan(f - CHEST_UP >= 3 ? 0.35 : 0.65);
        // a shin never points up: below (y greater than) its parent, by most of a bone
        expect(y(f, n) - y(f, parent[n])).toBeGreaterThan(n.endsWith('Toes') ? 5 : 60);
      }
      for (const n of [
        'Hips',
        'Spine',
        'Chest',
        'Neck',
        'Head',
        'LeftUpperLeg',
        'RightUpperLeg',
        'LeftUpperArm',
        'LeftLowerArm',
        'LeftHand',
        'LeftHandTip',
        'RightUpperArm',
        'RightLowerArm',
        'RightHand',
        'RightHandTip',
      ] as const)
        expect({ f, n, st: state(f, n) }).toEqual({ f, n, st: 'measured' });
    }
    const legs = LEGS.map((n) => {
      const d = run.filtered.slice(CHEST_UP).map((s) => s.y[J(n)] - s.y[J(parent[n])]);
      const c = run.filtered.slice(CHEST_UP + 3).map((s) => s.confidence[J(n)]);
      return `${n} ${Math.min(...d).toFixed(0)}..${Math.max(...d).toFixed(0)} px below its parent, confidence ${Math.min(...c).toFixed(3)}..${Math.max(...c).toFixed(3)}`;
    });
    console.log(`default recording, chest-up (150-179):\n  ${legs.join('\n  ')}`);
  });

  it('over the whole take: measured, held, parent and rest all occur (per-state counts logged)', () => {
    const total = Object.fromEntries(JOINT_STATES.map((s) => [s, 0])) as Record<JointState, number>;
    for (const f of run.frames) for (const s of JOINT_STATES) total[s] += f.counts[s];
    console.log(`default recording: joint-frames per state ${JSON.stringify(total)}`);
    expect(Object.values(total).reduce((a, b) => a + b, 0)).toBe(FRAMES * PUPPET_JOINT_COUNT);
    expect(total.measured).toBeGreaterThan(0);
    expect(total.held).toBeGreaterThan(0);
    expect(total.parent).toBeGreaterThan(0);
    expect(total.rest).toBeGreaterThan(0);
    // the hips are always measured or held, so no joint needs the child or torso fill here
    expect([total.child, total.torso]).toEqual([0, 0]);
  });

  it('world landmarks: hip-centred metres, about 1.7 m tall, the same motion', () => {
    for (const f of rec.frames) {
      if (!f.landmarks?.length) continue;
      const w = f.worldLandmarks!;
      expect(Math.abs((w[23].x + w[24].x) / 2)).toBeLessThan(0.01);
      expect(Math.abs((w[23].y + w[24].y) / 2)).toBeLessThan(0.01);
      for (const p of w) expect(Math.abs(p.z)).toBeLessThan(0.2);
    }
    const w0 = rec.frames[0].worldLandmarks!;
    const eyesToSoles = Math.max(w0[31].y, w0[32].y) - Math.min(w0[2].y, w0[5].y);
    expect(eyesToSoles).toBeGreaterThan(1.45);
    expect(eyesToSoles).toBeLessThan(1.7);
    const world = runPipeline(rec, { space: 'world' });
    expect(world.space).toBe('world');
    expect(world.frames.map((f, i) => f.personFound === !noPerson(i)).every(Boolean)).toBe(true);
    for (let f = HIDDEN.from; f <= HIDDEN.to; f++)
      expect(world.filtered[f].state[J('LeftHand')]).not.toBe(JointStateCode.Measured);
    // chest-up in metres too: the legs not measured and below their parents (the shin points down)
    for (let f = CHEST_UP; f < FRAMES; f++) {
      const s = world.filtered[f];
      for (const n of LEGS) expect(s.state[J(n)]).not.toBe(JointStateCode.Measured);
      expect(s.y[J('LeftLowerLeg')]).toBeGreaterThan(s.y[J('LeftUpperLeg')] + 0.25);
      expect(s.y[J('RightFoot')]).toBeGreaterThan(s.y[J('RightLowerLeg')] + 0.25);
    }
  });
});
