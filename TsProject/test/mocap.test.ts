/**
 * The mocap's known answers (src/mocap; issue 23 item 1): a T-pose gives identity rotations and the
 * expected axes, a 90-degree elbow or knee gives 90 degrees, a performer turned away is turned to face +Z,
 * occluded bones are held then filled, a frame without a person holds the pose, the hips follow the image,
 * the BVH written reads back with the same directions, and a frame allocates nothing.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { forwardKinematics, HUMAN_BONE_NAMES } from '../src/core';
import { parseBvh, writeBvh } from '../src/io/bvh';
import {
  calibrateMocap,
  MB,
  MOCAP_BONE_COUNT,
  MOCAP_BONES,
  MOCAP_STATES,
  MocapInputError,
  MocapSolver,
  mocapKneeAngles,
  runMocap,
} from '../src/mocap';
import type { LandmarkRecording, PoseFrame } from '../src/puppet';
import { runAllocProbe } from './helpers/allocProbe';
import { bend, frameOf, IMAGE, tPosePoints, type V3 } from './helpers/mocapPose';

const angleDeg = (q: ArrayLike<number>, o = 0) =>
  (2 * Math.acos(Math.min(1, Math.abs(q[o + 3]))) * 180) / Math.PI;

function rec(frames: PoseFrame[]): LandmarkRecording {
  return { image: IMAGE, frames, source: 'test.json' };
}

function still(n: number, pts = tPosePoints(), o: Partial<Parameters<typeof frameOf>[1]> = {}): PoseFrame[] {
  return Array.from({ length: n }, (_, i) => frameOf(pts, { timestampMs: (i * 1000) / 30, ...o }));
}

describe('mocap known answers', () => {
  it('a T-pose facing the camera: heading 0, every world rotation the identity (under 0.5 degrees)', () => {
    const run = runMocap(rec(still(5)));
    expect(Math.abs(run.solver.calibration.heading)).toBeLessThan(1e-9);
    const worst = Math.max(...MOCAP_BONES.map((_, b) => angleDeg(run.solver.worldRotations, 4 * b)));
    expect(worst).toBeLessThan(0.5);
    expect([...run.solver.state].every((s) => s === 0)).toBe(true);
    // names are HumanBodyBones names; the lengths come from the landmarks
    for (const n of MOCAP_BONES) expect(HUMAN_BONE_NAMES).toContain(n);
    const L = run.solver.calibration.lengths;
    expect(L.leftUpperArm).toBeCloseTo(0.27, 6);
    expect(L.leftForearm).toBeCloseTo(0.25, 6);
    expect(L.leftThigh).toBeCloseTo(0.42, 6);
    expect(L.torso).toBeCloseTo(0.5, 6);
    // standing: the lowest foot point (the heels and toes, 0.91 below the hips) on the floor
    expect(run.solver.calibration.hipsHeight).toBeCloseTo(0.91, 6);
    expect(run.hips[1]).toBeCloseTo(0.91, 6);
    // joints where the landmarks are: the left wrist at (0.70, 0.5) from the hips
    const p = run.solver.positions;
    expect(p[3 * MB.LeftHand]).toBeCloseTo(0.7, 6);
    expect(p[3 * MB.LeftHand + 1] - p[1]).toBeCloseTo(0.5, 6);
  });

  it('a performer turned 40 degrees away from the camera is turned to face +Z: the same identity pose', () => {
    const run = runMocap(rec(still(5, tPosePoints(), { headingDeg: 40 })));
    expect((run.solver.calibration.heading * 180) / Math.PI).toBeCloseTo(-40, 6);
    const worst = Math.max(...MOCAP_BONES.map((_, b) => angleDeg(run.solver.worldRotations, 4 * b)));
    expect(worst).toBeLessThan(0.5);
  });

  it('an elbow bent 90 degrees forward gives a 90-degree forearm and no upper-arm twist; a knee bent 90 gives 90', () => {
    const pts = tPosePoints();
    // left forearm and hand turned -90 degrees about +Y at the elbow: the forearm points +Z (forward)
    bend(pts, [15, 17, 19, 21], pts[13], [0, 1, 0], -90);
    // right knee: the shin and foot turned +90 about +X at the knee: the shin points back (-Z)
    bend(pts, [28, 30, 32], pts[26], [1, 0, 0], 90);
    const run = runMocap(rec([...still(3), ...still(3, pts)]));
    const s = run.solver;
    expect(angleDeg(s.localRotations, 4 * MB.LeftLowerArm)).toBeCloseTo(90, 3);
    expect(angleDeg(s.worldRotations, 4 * MB.LeftUpperArm)).toBeLessThan(0.5);
    expect(angleDeg(s.localRotations, 4 * MB.RightLowerLeg)).toBeCloseTo(90, 3);
    expect(angleDeg(s.worldRotations, 4 * MB.RightUpperLeg)).toBeLessThan(0.5);
    const k = mocapKneeAngles(run);
    expect(k.right[5]).toBeCloseTo(90, 3);
    expect(k.left[5]).toBeCloseTo(180, 3);
    // the forearm's axis: rest +X goes to +Z
    const p = s.positions;
    const d = [0, 1, 2].map((c) => p[3 * MB.LeftHand + c] - p[3 * MB.LeftLowerArm + c]);
    expect(d[2] / Math.hypot(...d)).toBeCloseTo(1, 6);
  });

  it('an occluded left arm is held for maxHoldMs, then filled towards the relaxed pose; the rest stays measured', () => {
    const pts = tPosePoints();
    const frames = still(30, pts);
    const vis = new Map([13, 15, 17, 19, 21].map((i) => [i, 0.1] as [number, number]));
    for (let i = 10; i < 25; i++) frames[i] = frameOf(pts, { timestampMs: (i * 1000) / 30, vis });
    const run = runMocap(rec(frames), { maxHoldMs: 200 });
    const n = MOCAP_BONE_COUNT;
    const st = (f: number, b: number) => MOCAP_STATES[run.state[n * f + b]];
    expect(st(9, MB.LeftLowerArm)).toBe('measured');
    expect(st(10, MB.LeftLowerArm)).toBe('held');
    expect(st(15, MB.LeftLowerArm)).toBe('held'); // 6 frames = 200 ms after the last measurement at frame 9
    expect(st(17, MB.LeftLowerArm)).toBe('filled');
    expect(st(24, MB.LeftUpperArm)).toBe('filled');
    expect(st(25, MB.LeftUpperArm)).toBe('measured');
    expect(st(20, MB.RightLowerArm)).toBe('measured');
    expect(st(20, MB.Chest)).toBe('measured');
    // the hand's own landmarks (wrist) are hidden too
    expect(st(12, MB.LeftHand)).toBe('held');
    // confidence: measured 0.95, held decaying below it, filled 0.05
    expect(run.confidence[n * 9 + MB.LeftLowerArm]).toBeCloseTo(0.95, 5);
    expect(run.confidence[n * 12 + MB.LeftLowerArm]).toBeLessThan(0.95);
    expect(run.confidence[n * 20 + MB.LeftLowerArm]).toBeCloseTo(0.05, 5);
  });

  it('an arm seen again after a fill catches up over reacquireMs (150 ms) instead of snapping; 0 snaps', () => {
    const pts = tPosePoints();
    const frames = still(45, pts);
    const vis = new Map([13, 15, 17, 19, 21].map((i) => [i, 0.1] as [number, number]));
    for (let i = 10; i < 30; i++) frames[i] = frameOf(pts, { timestampMs: (i * 1000) / 30, vis });
    const recording = rec(frames);
    const cal = calibrateMocap(recording.frames);
    const trace = (o: { reacquireMs?: number }) => {
      const s = new MocapSolver(cal, o);
      return frames.map((f) => {
        s.step(f, IMAGE);
        return {
          q: Array.from(s.localRotations.slice(4 * MB.LeftUpperArm, 4 * MB.LeftUpperArm + 4)),
          st: s.state[MB.LeftUpperArm],
        };
      });
    };
    const between = (a: number[], b: number[]) =>
      (2 * Math.acos(Math.min(1, Math.abs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]))) * 180) /
      Math.PI;
    const eased = trace({});
    const snapped = trace({ reacquireMs: 0 });
    // filled towards the relaxed pose (arm down) by frame 29; the T-pose is the identity
    const gap = between(eased[29].q, [0, 0, 0, 1]);
    expect(gap).toBeGreaterThan(30);
    expect(MOCAP_STATES[eased[30].st]).toBe('measured');
    // snapped: the whole gap in one frame
    expect(between(snapped[29].q, snapped[30].q)).toBeCloseTo(gap, 6);
    // eased: each frame covers its share of what is left of the window (from the frame before to 150 ms
    // after the return), no step over 30 % of the gap, and from the window's end on the output is the measurement
    let biggest = 0;
    for (let f = 30; f < 36; f++) biggest = Math.max(biggest, between(eased[f - 1].q, eased[f].q));
    expect(biggest).toBeLessThan(0.3 * gap);
    expect(between(eased[30].q, [0, 0, 0, 1])).toBeGreaterThan(0.7 * gap);
    for (let f = 35; f < 45; f++) expect(between(eased[f].q, [0, 0, 0, 1])).toBeLessThan(1e-6);
    // the first frame of a take has nothing to catch up from: measured at once
    expect(between(eased[0].q, [0, 0, 0, 1])).toBeLessThan(1e-6);
  });

  it('hips not seen in the image (both hip landmarks under the threshold): the horizontal position is held, then eased back', () => {
    const pts = tPosePoints();
    const frames = still(5, pts);
    const hidden = new Map([23, 24].map((i) => [i, 0.05] as [number, number]));
    // the image puts the (unseen) hips 1 m to the side: a guess that must not be followed
    for (let i = 5; i < 10; i++)
      frames.push(frameOf(pts, { timestampMs: (i * 1000) / 30, hips: [1, 0, 0], vis: hidden }));
    for (let i = 10; i < 20; i++)
      frames.push(frameOf(pts, { timestampMs: (i * 1000) / 30, hips: [0.3, 0, 0] }));
    const run = runMocap(rec(frames));
    for (let f = 5; f < 10; f++) expect(run.hips[3 * f]).toBeCloseTo(0, 6);
    expect(run.framesHipsFromImage).toBe(15);
    // back: from 0 towards 0.3, the window from the last frame to 150 ms after this one (frame 10 covers
    // 33.3 of its 183.3 ms), 0.3 from frame 15 (t >= the window's end) on
    expect(run.hips[3 * 10]).toBeCloseTo((0.3 * 2) / 11, 4);
    expect(run.hips[3 * 12]).toBeGreaterThan(run.hips[3 * 11]);
    expect(run.hips[3 * 14]).toBeLessThan(0.3 - 1e-3);
    for (let f = 15; f < 20; f++) expect(run.hips[3 * f]).toBeCloseTo(0.3, 4);
  });

  it('a frame with no person holds the pose and the hips', () => {
    const frames = still(10);
    frames[4] = { timestampMs: frames[4].timestampMs, landmarks: [] };
    const run = runMocap(rec(frames));
    expect(run.framesWithoutPerson).toBe(1);
    expect(MOCAP_STATES[run.state[MOCAP_BONE_COUNT * 4]]).toBe('held');
    expect(run.hips[3 * 4 + 1]).toBeCloseTo(run.hips[3 * 3 + 1], 9);
  });

  it('"landmarks": [] is no person even with world landmarks: held like a missing frame; no person anywhere is refused', () => {
    const frames = still(10);
    frames[4] = { ...frames[4], landmarks: [] }; // world landmarks kept
    const run = runMocap(rec(frames));
    expect(run.framesWithoutPerson).toBe(1);
    expect(MOCAP_STATES[run.state[MOCAP_BONE_COUNT * 4]]).toBe('held');
    expect(run.confidence[MOCAP_BONE_COUNT * 4 + MB.LeftLowerArm]).toBeLessThan(1);
    const nobody = still(3).map((f) => ({ ...f, landmarks: [] }));
    expect(() => runMocap(rec(nobody))).toThrow(
      /^test\.json: frames: no person in any of the 3 frame\(s\) \(every frame has "landmarks": \[\] or no world landmarks\); nothing to solve$/,
    );
  });

  it("the hips follow the image: 50 cm to the performer's left and 1 m back gives x +0.5, z -1", () => {
    const frames = [
      ...still(3),
      frameOf(tPosePoints(), { timestampMs: 100, hips: [0.5, 0, -1] }),
      frameOf(tPosePoints(), { timestampMs: 133, hips: [0.5, 0.2, -1] }),
    ];
    const run = runMocap(rec(frames));
    expect(run.hips[3 * 3]).toBeCloseTo(0.5, 3);
    expect(run.hips[3 * 3 + 2]).toBeCloseTo(-1, 3);
    // height comes from the legs, not from the image: a hips point higher in the image changes nothing
    expect(run.hips[3 * 4 + 1]).toBeCloseTo(0.91, 6);
  });

  it('legs out of the image (knees down never seen): calibrates on the torso and arms, legs filled, lengths defaulted', () => {
    const vis = new Map([25, 26, 27, 28, 29, 30, 31, 32].map((i) => [i, 0.1] as [number, number]));
    const run = runMocap(rec(still(20, tPosePoints(), { vis })));
    const cal = run.solver.calibration;
    expect(cal.defaulted.sort()).toEqual(
      ['leftFoot', 'leftShin', 'leftThigh', 'rightFoot', 'rightShin', 'rightThigh'].sort(),
    );
    expect(cal.lengths.leftUpperArm).toBeCloseTo(0.27, 6); // seen: measured
    expect(cal.lengths.leftThigh).toBeCloseTo(0.76 * 0.5, 6); // 0.76 torso lengths
    expect(cal.hipsHeight).toBeCloseTo(0.38 + 0.405 + 0.07, 6);
    const n = MOCAP_BONE_COUNT;
    expect(MOCAP_STATES[run.state[n * 19 + MB.LeftLowerLeg]]).toBe('filled');
    expect(MOCAP_STATES[run.state[n * 19 + MB.LeftLowerArm]]).toBe('measured');
    expect(run.framesHipsFromImage).toBe(20);
  });

  it('refuses a recording without world landmarks or without a torso, naming the file and field', () => {
    const noWorld = still(3).map((f) => ({ ...f, worldLandmarks: undefined }));
    expect(() => calibrateMocap(noWorld, { source: 'a.json' })).toThrow(MocapInputError);
    expect(() => calibrateMocap(noWorld, { source: 'a.json' })).toThrow(
      /^a\.json: frames: no frame has 33 world landmarks/,
    );
    const hidden = still(3, tPosePoints(), { vis: new Map([[11, 0.1]]) });
    expect(() => runMocap(rec(hidden))).toThrow(/^test\.json: frames: no frame shows the torso/);
    expect(() => new MocapSolver(calibrateMocap(still(2)), { fovDeg: Number.NaN })).toThrow(/fovDeg/);
  });
});

describe('mocap BVH', () => {
  it('round trip: the BVH written (cm, ZXY) read back by src/io/bvh gives the same joint directions', () => {
    const pts = tPosePoints();
    bend(pts, [15, 17, 19, 21], pts[13], [0, 1, 0], -70);
    bend(pts, [13, 15, 17, 19, 21], pts[11], [0, 0, 1], -50);
    bend(pts, [26, 28, 30, 32], pts[24], [1, 0, 0], -60);
    bend(pts, [28, 30, 32], pts[26], [1, 0, 0], 80);
    const frames = [...still(3), frameOf(pts, { timestampMs: 100, hips: [0.2, 0, -0.3] })];
    const run = runMocap(rec(frames));
    const text = writeBvh(run.clip, { unitScale: 0.01 });
    expect(text).toMatch(
      /ROOT Hips\n\{\n\tOFFSET 0 91 0\n\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation/,
    );
    expect(text).toMatch(/Frame Time: 0\.0333/);
    const back = parseBvh(text, { fileName: 'mocap.bvh', unitScale: 0.01 });
    expect(back.clip.skeleton.names).toEqual([...MOCAP_BONES]);
    const n = MOCAP_BONE_COUNT;
    const fk = (rot: Float32Array, tr: Float32Array, sk = run.clip.skeleton) => {
      const wr = new Float64Array(4 * n);
      const wp = new Float64Array(3 * n);
      forwardKinematics(sk, rot.subarray(4 * n * 3, 4 * n * 4), tr.subarray(3 * n * 3, 3 * n * 4), wr, wp);
      return wp;
    };
    const a = fk(run.clip.rotations, run.clip.translations);
    const b = fk(back.clip.rotations, back.clip.translations, back.clip.skeleton);
    for (let i = 0; i < 3 * n; i++) expect(Math.abs(a[i] - b[i])).toBeLessThan(1e-5);
    // and the joints are where the landmarks put them: the left wrist, hips 20 cm left and 30 cm back
    const hips = [a[0], a[1], a[2]];
    // within 2 cm: a limb spanning depths (the bent leg, the raised arm) does not project exactly at its
    // mean depth, which the hips' depth estimate assumes (measured: x 0.199, z -0.286)
    expect(Math.abs(hips[0] - 0.2)).toBeLessThan(0.02);
    expect(Math.abs(hips[2] + 0.3)).toBeLessThan(0.02);
    const wrist: V3 = pts[15];
    for (let c = 0; c < 3; c++) expect(a[3 * MB.LeftHand + c] - hips[c]).toBeCloseTo(wrist[c], 5);
  });
});

describe('mocap allocation', () => {
  it('MocapSolver.step allocates nothing per frame, One-Euro filter on (measured outside jest, an esbuild probe)', () => {
    const r = runAllocProbe(`
      import { calibrateMocap, MocapSolver } from ${JSON.stringify(path.resolve(__dirname, '../src/mocap'))};
      import { bend, frameOf, tPosePoints } from ${JSON.stringify(path.resolve(__dirname, 'helpers/mocapPose'))};
      const frames = [];
      for (let i = 0; i < 64; i++) {
        const p = tPosePoints();
        bend(p, [15, 17, 19, 21], p[13], [0, 1, 0], -90 * Math.sin(i / 7));
        bend(p, [28, 30, 32], p[26], [1, 0, 0], 60 + 30 * Math.sin(i / 5));
        const vis = i % 8 === 3 ? new Map([[13, 0.1], [15, 0.1], [25, 0.1]]) : undefined;
        frames.push(frameOf(p, { timestampMs: i * 33, hips: [0.3 * Math.sin(i / 9), 0, 0], vis }));
      }
      frames.push({ timestampMs: 64 * 33, landmarks: [] });
      const s = new MocapSolver(calibrateMocap(frames), { smoothMinCutoff: 4, smoothBeta: 3 }); // the filter on too
      const img = { width: 1280, height: 720 };
      const T = new Float64Array(1);
      const I = new Int32Array(1);
      result.step = bytesPerCall(() => {
        const f = frames[I[0] % frames.length];
        T[0] += 33.37;
        I[0]++;
        f.timestampMs = T[0];
        s.step(f, img);
      }, 5000);
    `);
    expect(r.step).toBeLessThan(1);
  });
});

describe('mocap layering', () => {
  it('src/mocap imports only core and (types of) puppet, and through the hub (item 2) rig and the contact rule: engine-free (tsconfig.pure.json includes it)', () => {
    const dir = path.resolve(__dirname, '../src/mocap');
    const pure = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../tsconfig.pure.json'), 'utf8'));
    expect(pure.include).toContain('src/mocap');
    for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.ts'))) {
      const text = fs.readFileSync(path.join(dir, f), 'utf8');
      for (const m of text.matchAll(/^import (type )?[^;]*? from '([^']+)';/gms)) {
        const spec = m[2];
        const ok =
          spec === 'gl-matrix' ||
          spec.startsWith('./') ||
          spec.startsWith('../core') ||
          (spec === '../puppet' && m[1] === 'type ') ||
          // item 2: the hub driver drives src/rig's hub; the causal contact reuses src/contact's rule constants
          (f === 'hubDriver.ts' && spec === '../rig') ||
          (f === 'causalContact.ts' && spec === '../contact/rule');
        expect([f, spec, ok]).toEqual([f, spec, true]);
      }
    }
  });
});
