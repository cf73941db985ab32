/**
 * The puppet's pose side on synthetic frames (issue 12 items 1-4): readers, 33 -> 21 joints, the
 * confidence filter, the occlusion fill, and the public bug reports the issue lists, each a test.
 */
import * as path from 'node:path';
import fc from 'fast-check';
import {
  ConfidenceFilter,
  createJointSet,
  DEFAULT_POSE_OPTIONS,
  JOINT_STATES,
  type JointSet,
  JointStateCode,
  type Landmark,
  landmarksToJoints,
  type PoseFrame,
  PosePipeline,
  PUPPET_JOINTS,
  PuppetInputError,
  parseLandmarkRecording,
  parseTfjsReference,
  resolvePoseOptions,
  serializeLandmarkRecording,
} from '../src/puppet';
import { runAllocProbe } from './helpers/allocProbe';
import { standingFrame } from './helpers/puppetPose';

/** Frame times 33, 66, 99, ... ms. */
function makeClock(step = 33): () => number {
  let t = 0;
  return () => {
    t += step;
    return t;
  };
}

const J = (name: (typeof PUPPET_JOINTS)[number]) => PUPPET_JOINTS.indexOf(name);
const LEGS = ['LeftLowerLeg', 'LeftFoot', 'LeftToes', 'RightLowerLeg', 'RightFoot', 'RightToes'] as const;
const stateName = (s: JointSet, name: (typeof PUPPET_JOINTS)[number]) => JOINT_STATES[s.state[J(name)]];

function withVisibility(f: PoseFrame, ids: number[], v: number, move?: (l: Landmark) => void): PoseFrame {
  const landmarks = f.landmarks!.map((l, i) => {
    if (!ids.includes(i)) return l;
    const c = { ...l, visibility: v };
    move?.(c);
    return c;
  });
  return { ...f, landmarks };
}

describe('bug reports of issue 12', () => {
  it('landmarks without visibility (tasks-vision 0.10.0: x, y, z only): no joint dropped, no NaN, report says unknown', () => {
    const p = new PosePipeline({}, { width: 1280, height: 720 });
    const out = createJointSet();
    for (let f = 0; f < 5; f++) {
      const r = p.step(standingFrame({ timestampMs: f * 33 }), out);
      expect(r.visibilityUnknown).toBe(true);
      expect(r.personFound).toBe(true);
      expect(r.counts.measured).toBe(21);
      for (let j = 0; j < 21; j++) {
        expect(Number.isFinite(out.x[j]) && Number.isFinite(out.y[j])).toBe(true);
        expect(out.confidence[j]).toBeCloseTo(DEFAULT_POSE_OPTIONS.unknownVisibilityConfidence, 12);
      }
    }
    // with visibility present the report says known
    expect(p.step(standingFrame({ visibility: 0.9, timestampMs: 200 }), out).visibilityUnknown).toBe(false);
  });

  it('chest-up framing: leg landmarks at visibility 0.05 placed above the hips are flagged and filled, no shin points up', () => {
    const img = { width: 1280, height: 720 };
    const T = 150;
    const hipsY = 400; // feet at 400 + 1.72 * 150 = 658 px: in the 720 px frame while standing
    for (const history of ['first frame', 'after good frames']) {
      const p = new PosePipeline({}, img);
      const out = createJointSet();
      const tick = makeClock();
      if (history === 'after good frames')
        for (let f = 0; f < 5; f++)
          p.step(
            standingFrame({
              image: img,
              torso: T,
              hips: [640, hipsY],
              visibility: 0.95,
              timestampMs: tick(),
            }),
            out,
          );
      for (let f = 0; f < 10; f++) {
        // the model's guess for the legs: knees and feet ABOVE the hips (y smaller), visibility 0.05
        const frame = withVisibility(
          standingFrame({
            image: img,
            torso: T,
            hips: [640, hipsY],
            visibility: 0.95,
            timestampMs: tick(),
          }),
          [25, 26, 27, 28, 29, 30, 31, 32],
          0.05,
          (l) => {
            l.y = (hipsY - 0.4 * T) / img.height - 0.01 * (f % 3);
          },
        );
        const r = p.step(frame, out);
        expect(r.counts.measured).toBe(15);
        const hy = out.y[J('Hips')];
        // the previous (good) value is held while the time held stays within maxHoldMs (100): frames 0, 1, 2 at 33 ms
        const heldOnce = history === 'after good frames' && f <= 2;
        if (heldOnce) expect(r.counts.held).toBe(6);
        for (const leg of LEGS) {
          expect(stateName(out, leg)).toBe(heldOnce ? 'held' : 'parent');
          if (!heldOnce)
            expect(out.confidence[J(leg)]).toBeLessThan(DEFAULT_POSE_OPTIONS.visibilityThreshold);
          expect(out.y[J(leg)]).toBeGreaterThan(hy); // below the hips (y down)
        }
        expect(out.y[J('LeftLowerLeg')]).toBeGreaterThan(out.y[J('LeftUpperLeg')]);
        expect(out.y[J('LeftFoot')]).toBeGreaterThan(out.y[J('LeftLowerLeg')]);
        expect(out.y[J('RightFoot')]).toBeGreaterThan(out.y[J('RightLowerLeg')]);
      }
    }
  });

  it('chest-up with the hips also guessed (visibility 0.05): hips inferred from the chest, legs filled below them', () => {
    const img = { width: 1280, height: 720 };
    const p = new PosePipeline({}, img);
    const out = createJointSet();
    const hidden = [23, 24, 25, 26, 27, 28, 29, 30, 31, 32];
    const frame = withVisibility(standingFrame({ image: img, visibility: 0.9 }), hidden, 0.05, (l) => {
      l.y -= 0.2;
    });
    p.step(frame, out);
    expect(stateName(out, 'Neck')).toBe('measured');
    expect(stateName(out, 'Chest')).toBe('child');
    expect(stateName(out, 'Spine')).toBe('child');
    expect(stateName(out, 'Hips')).toBe('child');
    expect(stateName(out, 'LeftFoot')).toBe('rest'); // never seen: the rest pose at the inferred hips
    for (const leg of LEGS) expect(out.y[J(leg)]).toBeGreaterThan(out.y[J('Hips')]);
    // chain confidences drop: measured > child-inferred > rest
    expect(out.confidence[J('Neck')]).toBeGreaterThan(out.confidence[J('Chest')]);
    expect(out.confidence[J('Chest')]).toBeGreaterThan(out.confidence[J('Spine')]);
    expect(out.confidence[J('Spine')]).toBeGreaterThan(out.confidence[J('LeftFoot')]);
    expect(out.confidence[J('LeftFoot')]).toBe(DEFAULT_POSE_OPTIONS.restConfidence);
  });

  it('a hip centre whose right hip drops to visibility 0.1 does not average it in', () => {
    const img = { width: 1280, height: 720 };
    const frame = withVisibility(standingFrame({ image: img, visibility: 0.9 }), [24], 0.1, (l) => {
      l.x += 0.2; // junk far to the side
    });
    const joints = createJointSet();
    landmarksToJoints(frame, img, resolvePoseOptions(), joints);
    const left = frame.landmarks![23];
    expect(joints.x[J('Hips')]).toBeCloseTo(left.x * img.width, 9);
    expect(joints.y[J('Hips')]).toBeCloseTo(left.y * img.height, 9);
    expect(joints.confidence[J('Hips')]).toBeCloseTo(0.9 * DEFAULT_POSE_OPTIONS.partialCompositeFactor, 12);
    // and both hips good: the mean
    landmarksToJoints(standingFrame({ image: img, visibility: 0.9 }), img, resolvePoseOptions(), joints);
    expect(joints.x[J('Hips')]).toBeCloseTo(640, 9);
    expect(joints.confidence[J('Hips')]).toBeCloseTo(0.9, 12);
  });

  it('aspect: a forearm at 45 degrees in the world stays at 45 degrees on a 1920x1080 frame (not 60.6)', () => {
    const img = { width: 1920, height: 1080 };
    const base = standingFrame({ image: img, visibility: 0.9 });
    // elbow 13 at (900, 500) px, wrist 15 200 px right and 200 px down: 45 degrees in pixels
    const lms = base.landmarks!.map((l) => ({ ...l }));
    lms[13] = { x: 900 / 1920, y: 500 / 1080, z: 0, visibility: 0.9 };
    lms[15] = { x: 1100 / 1920, y: 700 / 1080, z: 0, visibility: 0.9 };
    const world = base.landmarks!.map((l) => ({ x: l.x - 0.5, y: l.y - 0.5, z: 0, visibility: 0.9 }));
    world[13] = { x: 0.1, y: -0.3, z: 0, visibility: 0.9 };
    world[15] = { x: 0.3, y: -0.1, z: 0, visibility: 0.9 };
    const frame: PoseFrame = { timestampMs: 0, landmarks: lms, worldLandmarks: world };
    const deg = (s: JointSet) =>
      (Math.atan2(s.y[J('LeftHand')] - s.y[J('LeftLowerArm')], s.x[J('LeftHand')] - s.x[J('LeftLowerArm')]) *
        180) /
      Math.PI;
    const naive = (Math.atan2(lms[15].y - lms[13].y, lms[15].x - lms[13].x) * 180) / Math.PI;
    expect(naive).toBeCloseTo(60.64, 2); // atan(16/9): what normalised x, y would give
    for (const space of ['image', 'world', 'auto'] as const) {
      const joints = createJointSet();
      const info = landmarksToJoints(frame, img, resolvePoseOptions({ space }), joints);
      expect(info.space).toBe(space === 'world' ? 'world' : 'image');
      expect(deg(joints)).toBeCloseTo(45, 9);
    }
    // only world landmarks: auto picks world
    const joints = createJointSet();
    expect(
      landmarksToJoints({ timestampMs: 0, worldLandmarks: world }, img, resolvePoseOptions(), joints).space,
    ).toBe('world');
  });
});

describe('readers', () => {
  const lm = (i: number): { x: number; y: number; z: number; visibility?: number; presence?: number } => ({
    x: i / 40,
    y: 0.5,
    z: -0.1,
    visibility: 0.9,
    presence: 0.99,
  });
  const good = () => ({
    image: { width: 640, height: 480 },
    frames: [
      { timestampMs: 0, landmarks: Array.from({ length: 33 }, (_, i) => lm(i)) },
      { timestampMs: 33, landmarks: [] },
      {
        timestampMs: 66,
        landmarks: Array.from({ length: 33 }, (_, i) => ({ x: i / 40, y: 0.4, z: 0 })),
        worldLandmarks: Array.from({ length: 33 }, (_, i) => ({
          x: i / 100,
          y: -0.5,
          z: 0.1,
          visibility: 0.5,
        })),
      },
    ],
  });
  const errorOf = (text: string, source = 'rec.json') => {
    try {
      parseLandmarkRecording(text, source);
    } catch (e) {
      expect(e).toBeInstanceOf(PuppetInputError);
      return (e as Error).message;
    }
    throw new Error('no error');
  };

  it('round trip: serialize then parse gives the same recording', () => {
    const text = JSON.stringify(good());
    const rec = parseLandmarkRecording(text, 'rec.json');
    expect(rec.frames).toHaveLength(3);
    expect(rec.frames[1].landmarks).toEqual([]);
    expect(rec.frames[2].landmarks![3].visibility).toBeUndefined();
    const again = parseLandmarkRecording(serializeLandmarkRecording(rec), 'again.json');
    expect(again.image).toEqual(rec.image);
    expect(again.frames).toEqual(rec.frames);
    expect(JSON.parse(serializeLandmarkRecording(again))).toEqual(good());
  });

  it('32 points, null (NaN), missing fields, out-of-range visibility, bad image, timestamps: errors naming the place', () => {
    const g = good();
    g.frames[0].landmarks.pop();
    expect(errorOf(JSON.stringify(g))).toBe(
      'rec.json: frame 0, landmarks: has 32 landmarks; BlazePose gives exactly 33 (or [] for no person)',
    );
    const n = good();
    (n.frames[2].landmarks[31] as { x: number | null }).x = null; // JSON.stringify(NaN)
    expect(errorOf(JSON.stringify(n))).toBe(
      'rec.json: frame 2, landmarks, landmark 31, field x: x must be a finite number, got null (a NaN or infinity written by JSON.stringify?)',
    );
    const m = good();
    delete (m.frames[2].worldLandmarks![7] as { z?: number }).z;
    expect(errorOf(JSON.stringify(m))).toMatch(
      /^rec\.json: frame 2, worldLandmarks, landmark 7, field z: z must be a finite number, got missing$/,
    );
    const v = good();
    (v.frames[0].landmarks[5] as { visibility?: number }).visibility = 1.5;
    expect(errorOf(JSON.stringify(v))).toMatch(
      /frame 0, landmarks, landmark 5, field visibility: visibility must be in \[0, 1\], got 1.5/,
    );
    const i = good();
    i.image.width = 0;
    expect(errorOf(JSON.stringify(i))).toBe('rec.json: image.width: image width must be positive, got 0');
    const t = good();
    t.frames[2].timestampMs = 10;
    expect(errorOf(JSON.stringify(t))).toMatch(
      /frame 2, field timestampMs: timestampMs 10 is before the previous frame's 33/,
    );
    expect(errorOf(JSON.stringify({ image: { width: 1, height: 1 }, frames: [] }))).toMatch(/no frames/);
  });

  it('bad JSON: file:line:column', () => {
    const text = JSON.stringify(good(), null, 2).replace('"timestampMs": 33', '"timestampMs": NaN');
    const line = text.split('\n').findIndex((l) => l.includes('NaN')) + 1;
    const col = text.split('\n')[line - 1].indexOf('NaN') + 1;
    expect(errorOf(text, 'take.json')).toMatch(new RegExp(`^take\\.json:${line}:${col}: not valid JSON`));
  });

  it('tfjs reference format: pixels / image size, z / width, timestamps from fps; mismatches named', () => {
    const px = JSON.stringify([Array.from({ length: 33 }, (_, i) => [i * 10, 640, -72])]);
    const world = JSON.stringify([Array.from({ length: 33 }, (_, i) => [i / 100, -0.5, 0.2])]);
    const rec = parseTfjsReference(px, world, 'squats', { width: 720, height: 1280 }, 5);
    expect(rec.frames[0].landmarks![3]).toEqual({ x: 30 / 720, y: 0.5, z: -0.1 });
    expect(rec.frames[0].worldLandmarks![3]).toEqual({ x: 0.03, y: -0.5, z: 0.2 });
    const two = JSON.stringify([JSON.parse(px)[0], JSON.parse(px)[0]]);
    expect(
      parseTfjsReference(two, undefined, 's', { width: 720, height: 1280 }, 5).frames[1].timestampMs,
    ).toBe(200);
    expect(() => parseTfjsReference(two, world, 's', { width: 720, height: 1280 }, 5)).toThrow(
      /pixel file has 2 frames and the world file 1/,
    );
    const short = JSON.stringify([Array.from({ length: 32 }, () => [1, 2, 3])]);
    expect(() => parseTfjsReference(short, undefined, 's', { width: 720, height: 1280 }, 5)).toThrow(
      's (pixels): frame 0: need 33 landmarks, got 32',
    );
    expect(() => parseTfjsReference(px, undefined, 's', { width: 720, height: 0 }, 5)).toThrow(
      /image height must be positive/,
    );
    expect(() => parseTfjsReference(undefined, undefined, 's', { width: 720, height: 1280 }, 5)).toThrow(
      /need the pixel/,
    );
  });
});

describe('ConfidenceFilter', () => {
  const o = resolvePoseOptions({ smoothingMs: 100, speedGain: 0, outlierJump: 1.5, maxHoldMs: 0 });
  const set = (x: number, c: number) => {
    const s = createJointSet();
    // Hips (0, 0) and Neck (0, -100): body scale 100
    s.x.fill(x);
    s.y.fill(0);
    s.y[3] = -100;
    s.confidence.fill(c);
    return s;
  };

  it('EMA: alpha = 1 - exp(-dt c / smoothingMs) (known answer); low confidence counts less', () => {
    const f = new ConfidenceFilter(o);
    const out = createJointSet();
    f.step(set(0, 0.9), 0, out);
    expect(out.x[5]).toBe(0);
    f.step(set(10, 0.8), 33, out);
    expect(out.x[5]).toBeCloseTo(10 * (1 - Math.exp((-33 * 0.8) / 100)), 12);
    const g = new ConfidenceFilter(o);
    g.step(set(0, 0.9), 0, out);
    g.step(set(10, 0.55), 33, out);
    expect(out.x[5]).toBeCloseTo(10 * (1 - Math.exp((-33 * 0.55) / 100)), 12);
  });

  it('an outlier (jump > outlierJump x body scale) is dropped for one frame, then accepted', () => {
    const f = new ConfidenceFilter(o);
    const out = createJointSet();
    f.step(set(0, 0.9), 0, out);
    f.step(set(160, 0.9), 33, out); // 1.6 body scales
    expect(out.x[5]).toBe(0);
    expect(out.state[5]).toBe(JointStateCode.Held);
    expect(out.confidence[5]).toBeCloseTo(0.9 * o.heldDecay, 12);
    expect(f.outliers).toBe(21);
    f.step(set(160, 0.9), 33, out); // maxHoldMs 0: the second frame is accepted as is
    expect(out.x[5]).toBe(160);
    expect(out.state[5]).toBe(JointStateCode.Measured);
  });

  it('below threshold: not used (held once, then missing for the fill)', () => {
    const f = new ConfidenceFilter(o);
    const out = createJointSet();
    f.step(set(0, 0.9), 0, out);
    f.step(set(50, 0.3), 33, out);
    expect(out.state[5]).toBe(JointStateCode.Held);
    expect(out.x[5]).toBe(0);
    f.step(set(50, 0.3), 33, out);
    expect(f.missing[5]).toBe(1);
    expect(out.confidence[5]).toBe(0);
    expect(out.x[5]).toBe(0);
  });
});

describe('occlusion fill', () => {
  const img = { width: 1280, height: 720 };
  it('a hidden forearm: parent -> inferred from the elbow chain, confidence low and dropping; a real measurement overwrites the guess at once', () => {
    const p = new PosePipeline({}, img);
    const out = createJointSet();
    const tick = makeClock();
    for (let f = 0; f < 5; f++)
      p.step(standingFrame({ image: img, visibility: 0.9, timestampMs: tick() }), out);
    const shoulder = [out.x[J('LeftUpperArm')], out.y[J('LeftUpperArm')]];
    const elbow = [out.x[J('LeftLowerArm')], out.y[J('LeftLowerArm')]];
    const hide = [13, 15, 17, 19, 21];
    for (let f = 0; f < 6; f++)
      p.step(
        withVisibility(standingFrame({ image: img, visibility: 0.9, timestampMs: tick() }), hide, 0.02),
        out,
      );
    expect(stateName(out, 'LeftUpperArm')).toBe('measured');
    expect(stateName(out, 'LeftLowerArm')).toBe('parent');
    expect(stateName(out, 'LeftHand')).toBe('parent');
    expect(stateName(out, 'LeftHandTip')).toBe('parent');
    const c = (n: (typeof PUPPET_JOINTS)[number]) => out.confidence[J(n)];
    expect(c('LeftLowerArm')).toBeCloseTo(0.35 * 0.9, 12);
    expect(c('LeftHand')).toBeCloseTo(0.35 * 0.35 * 0.9, 12);
    expect(c('LeftHandTip')).toBeLessThan(c('LeftHand'));
    // the last seen offset from the shoulder
    expect(out.x[J('LeftLowerArm')] - shoulder[0]).toBeCloseTo(elbow[0] - shoulder[0], 6);
    expect(out.y[J('LeftLowerArm')] - shoulder[1]).toBeCloseTo(elbow[1] - shoulder[1], 6);
    // the arm comes back elsewhere: taken as measured, exactly, not blended with the guess
    const back = withVisibility(
      standingFrame({ image: img, visibility: 0.9, timestampMs: tick() }),
      hide,
      0.9,
      (l) => {
        l.y -= 0.1;
      },
    );
    const r = p.step(back, out);
    expect(stateName(out, 'LeftLowerArm')).toBe('measured');
    expect(out.y[J('LeftLowerArm')]).toBeCloseTo(r.rawJoints.y[J('LeftLowerArm')], 12);
    expect(out.y[J('LeftHand')]).toBeCloseTo(r.rawJoints.y[J('LeftHand')], 12);
  });

  it('the person leaves: torso-less frames fall to the rest pose (rest state, restConfidence), and counts sum to 21', () => {
    const p = new PosePipeline({}, img);
    const out = createJointSet();
    p.step(standingFrame({ image: img, visibility: 0.9, timestampMs: 0 }), out);
    let r = p.step({ timestampMs: 33, landmarks: [] }, out);
    expect(r.personFound).toBe(false);
    expect(r.counts.held).toBe(21);
    r = p.step({ timestampMs: 233, landmarks: [] }, out);
    expect(r.counts.rest).toBe(21);
    expect(Array.from(out.confidence).every((c) => c === DEFAULT_POSE_OPTIONS.restConfidence)).toBe(true);
    // the rest pose sits at the last hips, scaled to the body
    expect(out.x[J('Hips')]).toBeCloseTo(640, 6);
    expect(out.y[J('Neck')] - out.y[J('Hips')]).toBeCloseTo(
      -p.restPose.y[J('Hips')] + p.restPose.y[J('Neck')],
      9,
    );
    expect(Object.values(r.counts).reduce((a, b) => a + b, 0)).toBe(21);
  });
});

describe('properties', () => {
  it('any frame of random finite landmarks and visibilities gives finite joints and confidences in [0, 1]', () => {
    const num = fc.double({ min: -3, max: 3, noNaN: true, noDefaultInfinity: true });
    const vis = fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined });
    const lmArb = fc.record({ x: num, y: num, z: num, visibility: vis });
    const frameArb = fc.array(lmArb, { minLength: 33, maxLength: 33 });
    fc.assert(
      fc.property(fc.array(frameArb, { minLength: 1, maxLength: 6 }), fc.boolean(), (frames, world) => {
        const p = new PosePipeline({}, { width: 640, height: 480 });
        const out = createJointSet();
        return frames.every((lms, i) => {
          const clean = lms.map((l) => (l.visibility === undefined ? { x: l.x, y: l.y, z: l.z } : l));
          const frame: PoseFrame = world
            ? { timestampMs: i * 33, worldLandmarks: clean }
            : { timestampMs: i * 33, landmarks: clean };
          const r = p.step(frame, out);
          for (let j = 0; j < 21; j++) {
            if (!Number.isFinite(out.x[j]) || !Number.isFinite(out.y[j])) return false;
            if (!(out.confidence[j] >= 0 && out.confidence[j] <= 1)) return false;
            if (out.state[j] > 5) return false;
          }
          return Object.values(r.counts).reduce((a, b) => a + b, 0) === 21;
        });
      }),
      { numRuns: 300 },
    );
  });

  it('options are checked, naming the option', () => {
    expect(() => new PosePipeline({ visibilityThreshold: 1.5 })).toThrow(/pose option visibilityThreshold/);
    expect(() => new PosePipeline({ smoothingMs: -1 })).toThrow(/pose option smoothingMs/);
    expect(() => new PosePipeline({ space: 'screen' as 'image' })).toThrow(/pose option space/);
  });

  it('PosePipeline.step allocates nothing per frame', () => {
    const r = runAllocProbe(`
      import { PosePipeline, createJointSet } from ${JSON.stringify(path.resolve(__dirname, '../src/puppet'))};
      import { standingFrame } from ${JSON.stringify(path.resolve(__dirname, 'helpers/puppetPose'))};
      const img = { width: 1280, height: 720 };
      const frames = [];
      for (let i = 0; i < 64; i++) {
        const f = standingFrame({ image: img, visibility: 0.9, timestampMs: i * 33, hips: [640 + 40 * Math.sin(i / 5), 400] });
        if (i % 8 === 3) for (const k of [13, 15, 17, 19, 25, 27]) f.landmarks[k].visibility = 0.1;
        frames.push(f);
      }
      frames.push({ timestampMs: 64 * 33, landmarks: [] });
      const p = new PosePipeline({}, img);
      const out = createJointSet();
      // fractional webcam timestamps, kept in a typed array (a double in a closure variable would be boxed by the probe itself)
      const T = new Float64Array(1);
      const I = new Int32Array(1);
      result.step = bytesPerCall(() => {
        const f = frames[I[0] % frames.length];
        T[0] += 33.37;
        I[0]++;
        f.timestampMs = T[0];
        p.step(f, out);
      }, 5000);
    `);
    expect(r.step).toBeLessThan(1);
  });

  it('the whole per-frame pipeline (PuppetSession.step) allocates nothing on read recordings, with visibility unknown and given, one after the other', () => {
    // recordings through the readers (as kind puppet render reads them): one without visibility (tfjs
    // reference format, the unknown path boxed 33 numbers per frame before), one with visibility only, the
    // embedded default (image landmarks with presence, world ones without; no-person frames, hidden legs),
    // all in one process, so the readers' landmark shapes meet in the same code
    const r = runAllocProbe(`
      import { PuppetSession, parseLandmarkRecording, parseTfjsReference, serializeLandmarkRecording } from ${JSON.stringify(path.resolve(__dirname, '../src/puppet'))};
      import { armsDownCharacter } from ${JSON.stringify(path.resolve(__dirname, 'helpers/puppetDrawing'))};
      import { standingFrame } from ${JSON.stringify(path.resolve(__dirname, 'helpers/puppetPose'))};
      const img = { width: 640, height: 480 };
      const frames = [];
      for (let i = 0; i < 48; i++)
        frames.push(standingFrame({ image: img, visibility: i % 6 === 2 ? undefined : 0.9, timestampMs: i * 33, hips: [320 + 30 * Math.sin(i / 4), 300], torso: 110 }));
      const given = parseLandmarkRecording(serializeLandmarkRecording({ image: img, frames }), 'given.json');
      const pixels = JSON.stringify(frames.map((f) => f.landmarks.map((l) => [l.x * 640, l.y * 480, 0])));
      const unknown = parseTfjsReference(pixels, undefined, 'tfjs.json', img, 30);
      const def = parseLandmarkRecording(require('node:fs').readFileSync(${JSON.stringify(path.resolve(__dirname, '../assets/default/puppet/recording.json'))}, 'utf8'), 'recording.json');
      const c = armsDownCharacter();
      for (const [name, rec] of [['unknown', unknown], ['given', given], ['defaultRecording', def], ['unknownAgain', unknown]]) {
        const s = new PuppetSession(c, { image: img, weights: 'segments' });
        const I = new Int32Array(1);
        const T = new Float64Array(1);
        result[name] = bytesPerCall(() => {
          const f = rec.frames[I[0]++ % rec.frames.length];
          T[0] += 33.37; // time keeps going round the loop (a double in a typed array: not boxed by the probe)
          f.timestampMs = T[0];
          s.step(f);
        }, 3000);
      }
    `);
    expect(Object.keys(r)).toEqual(['unknown', 'given', 'defaultRecording', 'unknownAgain']);
    for (const v of Object.values(r)) expect(v).toBeLessThan(1);
  });
});
