/**
 * Retarget QA core (src/qa): known answers for the rotation measures, wrap/unwrap of twist velocity,
 * properties over random rotations (fast-check), rig profile parsing with file:line:column errors, and
 * evaluateClip on synthetic clips (sampling, spikes, runs, levels, causes).
 */
import fc from 'fast-check';
import { quat } from 'gl-matrix';
import {
  type Clip,
  createClip,
  forwardKinematics,
  HumanBodyBones as H,
  quat64,
  type Skeleton,
  sampleClip,
  worldToLocalRotations,
} from '../src/core';
import {
  compareRotations,
  defaultRigProfile,
  emptyRigProfile,
  evaluateClip,
  parseRigProfile,
  QA_CAUSES,
  RigProfileError,
  reportToJson,
  severityOf,
  twistVelocity,
  unwrapDegrees,
} from '../src/qa';
import { makeHumanoid } from './helpers/humanoid';

const R2D = 180 / Math.PI;
const D2R = Math.PI / 180;
const out = new Float64Array(3);

function axisAngle(axis: number[], rad: number): Float64Array {
  const l = Math.hypot(axis[0], axis[1], axis[2]);
  const q = quat64();
  quat.setAxisAngle(q, [axis[0] / l, axis[1] / l, axis[2] / l], rad);
  return q as Float64Array;
}
function mulq(a: ArrayLike<number>, b: ArrayLike<number>): Float64Array {
  const o = quat64();
  quat.multiply(o, a as quat, b as quat);
  return o as Float64Array;
}
function neg(q: ArrayLike<number>): Float64Array {
  return Float64Array.from([-q[0], -q[1], -q[2], -q[3]]);
}
const X = [1, 0, 0];

describe('compareRotations known answers', () => {
  const base = axisAngle([0.3, -0.5, 0.8], 1.1);
  it('q against -q gives 0', () => {
    compareRotations(base, neg(base), X, out);
    expect(out[0]).toBe(0);
    expect(Math.abs(out[1])).toBe(0);
    expect(out[2]).toBe(0);
  });
  it('a pure 30-degree twist gives E_twist 30, E_rot 30, swing 0', () => {
    const obs = mulq(base, axisAngle(X, 30 * D2R));
    compareRotations(base, obs, X, out);
    expect(out[0] * R2D).toBeCloseTo(30, 10);
    expect(out[1] * R2D).toBeCloseTo(30, 10);
    expect(out[2] * R2D).toBeCloseTo(0, 10);
    // and -30 the other way; sign survives q -> -q of the observed
    compareRotations(base, neg(mulq(base, axisAngle(X, -30 * D2R))), X, out);
    expect(out[1] * R2D).toBeCloseTo(-30, 10);
  });
  it('a pure swing gives twist 0 and swing = E_rot', () => {
    const obs = mulq(base, axisAngle([0, 0.6, 0.8], 50 * D2R));
    compareRotations(base, obs, X, out);
    expect(out[1]).toBeCloseTo(0, 12);
    expect(out[2] * R2D).toBeCloseTo(50, 10);
    expect(out[0] * R2D).toBeCloseTo(50, 10);
  });
  it('180 degrees about a perpendicular axis gives twist 0, no NaN', () => {
    for (const axis of [
      [0, 1, 0],
      [0, 0, 1],
      [0, Math.SQRT1_2, -Math.SQRT1_2],
    ]) {
      compareRotations([0, 0, 0, 1], [axis[0], axis[1], axis[2], 0], X, out);
      expect(out[1]).toBe(0);
      expect(out[0] * R2D).toBeCloseTo(180, 10);
      expect(out[2] * R2D).toBeCloseTo(180, 10);
    }
  });
  it('180 degrees about the twist axis gives 180 (both signs of q)', () => {
    compareRotations([0, 0, 0, 1], [1, 0, 0, 0], X, out);
    expect(out[1] * R2D).toBe(180);
    compareRotations([0, 0, 0, 1], [-1, 0, 0, -0], X, out);
    expect(out[1] * R2D).toBe(180);
    expect(out[2]).toBe(0);
  });
  it('twists of 0.0005 rad stored in float32 come back signed within 1e-7 rad', () => {
    const axes = [X, [0, 1, 0], [0.267, 0.535, 0.802]];
    for (const a of axes) {
      const l = Math.hypot(a[0], a[1], a[2]);
      const ax = a.map((v) => v / l);
      for (const th of [0.0005, -0.0005, 0.0001, -0.00002]) {
        const q32 = Float32Array.from(axisAngle(ax, th));
        compareRotations(Float32Array.from([0, 0, 0, 1]), q32, ax, out);
        expect(Math.abs(out[1] - th)).toBeLessThan(1e-7);
        expect(Math.sign(out[1])).toBe(Math.sign(th));
        expect(Math.abs(out[0] - Math.abs(th))).toBeLessThan(1e-7);
        // the acos form would not be exact here: document the difference
        const acosForm = 2 * Math.acos(Math.min(1, Math.abs(q32[3])));
        expect(Math.abs(acosForm - Math.abs(th))).toBeGreaterThan(Math.abs(out[0] - Math.abs(th)));
      }
    }
  });
});

describe('compareRotations properties', () => {
  const arbQuat = fc
    .tuple(
      fc.double({ min: -1, max: 1, noNaN: true }),
      fc.double({ min: -1, max: 1, noNaN: true }),
      fc.double({ min: -1, max: 1, noNaN: true }),
      fc.double({ min: -1, max: 1, noNaN: true }),
    )
    .filter(([x, y, z, w]) => Math.hypot(x, y, z, w) > 0.1)
    .map(([x, y, z, w]) => {
      const l = Math.hypot(x, y, z, w);
      return Float64Array.from([x / l, y / l, z / l, w / l]);
    });
  const arbAxis = arbQuat.map((q) => {
    const l = Math.hypot(q[0], q[1], q[2]) || 1;
    return [q[0] / l || 1, q[1] / l, q[2] / l];
  });
  it('E_rot matches 2*acos(|dot|), is sign-invariant, and twist/swing recompose the rotation', () => {
    fc.assert(
      fc.property(arbQuat, arbQuat, arbAxis, (a, b, ax) => {
        const l = Math.hypot(ax[0], ax[1], ax[2]);
        const axis = [ax[0] / l, ax[1] / l, ax[2] / l];
        compareRotations(a, b, axis, out);
        const [rot, twist, swing] = out;
        const dot = Math.abs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]);
        expect(Math.abs(rot - 2 * Math.acos(Math.min(1, dot)))).toBeLessThan(1e-6);
        expect(twist).toBeGreaterThan(-Math.PI - 1e-12);
        expect(twist).toBeLessThanOrEqual(Math.PI);
        expect(swing).toBeGreaterThanOrEqual(0);
        // the same with -a and -b
        const o2 = new Float64Array(3);
        compareRotations(neg(a), b, axis, o2);
        expect(Math.abs(o2[0] - rot)).toBeLessThan(1e-12);
        expect(Math.abs(Math.cos(o2[1]) - Math.cos(twist))).toBeLessThan(1e-9);
        expect(Math.abs(Math.sin(o2[1]) - Math.sin(twist))).toBeLessThan(1e-9);
        // recompose: dq = swing(perp axis, swing angle) * twist(axis, twist) has the same angle as dq
        // (check the angle bound: rot <= swing + |twist| and rot >= |swing - |twist||)
        expect(rot).toBeLessThanOrEqual(swing + Math.abs(twist) + 1e-9);
        expect(rot).toBeGreaterThanOrEqual(Math.abs(swing - Math.abs(twist)) - 1e-9);
      }),
      { numRuns: 500 },
    );
  });
  it('an added twist about the axis shows up exactly as E_twist (swing 0)', () => {
    fc.assert(
      fc.property(arbQuat, arbAxis, fc.double({ min: -3.1, max: 3.1, noNaN: true }), (a, ax, th) => {
        const l = Math.hypot(ax[0], ax[1], ax[2]);
        const axis = [ax[0] / l, ax[1] / l, ax[2] / l];
        compareRotations(a, mulq(a, axisAngle(axis, th)), axis, out);
        expect(Math.abs(out[1] - th)).toBeLessThan(1e-9);
        expect(out[2]).toBeLessThan(1e-7);
        expect(Math.abs(out[0] - Math.abs(th))).toBeLessThan(1e-9);
      }),
      { numRuns: 500 },
    );
  });
});

describe('twist unwrap and velocity', () => {
  it('a wrap 179 -> -179 is 2 degrees, not 358', () => {
    const tw = [170, 179, -179, -170];
    const v = twistVelocity(tw, 30, new Float64Array(4));
    expect(Array.from(v)).toEqual([0, 9 * 30, 2 * 30, 9 * 30]);
    expect(Array.from(unwrapDegrees(tw, new Float64Array(4)))).toEqual([170, 179, 181, 190]);
  });
  it('a quaternion sign flip is never a flip', () => {
    // a twist track through 180 built from quaternions whose sign flips every frame
    const tw: number[] = [];
    for (let f = 0; f < 40; f++) {
      const th = (150 + f * 2) * D2R;
      const q = axisAngle(X, th);
      compareRotations([0, 0, 0, 1], f % 2 ? neg(q) : q, X, out);
      tw.push(out[1] * R2D);
    }
    const v = twistVelocity(tw, 10, new Float64Array(40));
    for (let f = 1; f < 40; f++) expect(v[f]).toBeCloseTo(20, 6);
    const u = unwrapDegrees(tw, new Float64Array(40));
    expect(u[39]).toBeCloseTo(150 + 78, 6);
  });
  it('unwrap then wrap gives the input back (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -179.999, max: 180, noNaN: true }), { minLength: 1, maxLength: 50 }),
        (tw) => {
          const u = unwrapDegrees(tw, new Float64Array(tw.length));
          for (let i = 0; i < tw.length; i++) {
            let w = (u[i] - tw[i]) % 360;
            if (w < 0) w += 360;
            expect(Math.min(w, 360 - w)).toBeLessThan(1e-9);
            if (i > 0) expect(Math.abs(u[i] - u[i - 1])).toBeLessThanOrEqual(180 + 1e-9);
          }
        },
      ),
    );
  });
});

describe('rig profile', () => {
  it('defaults from the skeleton: twist axis = child direction, thresholds, weights, shoulder flag', () => {
    const sk = makeHumanoid();
    const p = defaultRigProfile(sk);
    expect(p.twistAxes.RightLowerArm).toEqual([-1, 0, 0]);
    expect(p.twistAxes.LeftUpperArm).toEqual([1, 0, 0]);
    expect(p.twistAxes.LeftUpperLeg[1]).toBeCloseTo(-1, 12);
    expect(p.thresholds.RightShoulder.rotationDeg).toBe(20);
    expect(p.thresholds.RightUpperArm.twistDeg).toBe(25);
    expect(p.thresholds.RightLowerArm.twistDeg).toBe(22);
    expect(p.thresholds.RightHand.positionFraction).toBe(0.02);
    expect(p.weights.RightShoulder).toBe(1.5);
    expect(p.weights.RightLowerArm).toBe(1.5);
    expect(p.weights.RightMiddleProximal).toBe(0.3);
    expect(p.weights.Spine).toBe(1);
    expect(p.flags.noShoulderBones).toBe(false);
    expect(defaultRigProfile(makeHumanoid({ shoulders: false })).flags.noShoulderBones).toBe(true);
    // non-identity rest frames: the axis is in the bone's own frame
    const tw = makeHumanoid({ twistRest: 0.7 });
    const a = defaultRigProfile(tw).twistAxes.RightLowerArm;
    const b = tw.restTranslations.slice(3 * tw.humanoid[H.RightHand], 3 * tw.humanoid[H.RightHand] + 3);
    const l = Math.hypot(b[0], b[1], b[2]);
    for (let c = 0; c < 3; c++) expect(a[c]).toBeCloseTo(b[c] / l, 12);
    // round trip through JSON
    const text = JSON.stringify(p);
    const back = parseRigProfile(text, 'p.json');
    expect(back.twistAxes.RightLowerArm).toEqual(p.twistAxes.RightLowerArm);
    expect(back.thresholds.RightLowerArm).toEqual(p.thresholds.RightLowerArm);
  });
  it('parses overrides', () => {
    const p = parseRigProfile(
      '{"schemaVersion":1,"twistAxes":{"RightLowerArm":[0,2,0]},"thresholds":{"RightLowerArm":{"twistDeg":10,"positionFraction":null}},"weights":{"RightHand":2},"wrist":{"lambda":0.5},"minRun":{"frames":6},"flags":{"mirrored":true}}',
      'x.json',
    );
    expect(p.twistAxes.RightLowerArm).toEqual([0, 1, 0]);
    expect(p.thresholds.RightLowerArm).toEqual({ twistDeg: 10, positionFraction: null });
    expect(p.weights.RightHand).toBe(2);
    expect(p.wrist).toEqual({ lambda: 0.5, thresholdDeg: 30 });
    expect(p.minRun).toEqual({ frames: 6, atFps: 30 });
    expect(p.flags).toEqual({ mirrored: true, noShoulderBones: null });
  });
  it.each([
    [
      '{\n  "thresholds": {\n    "RightLowerArm": { "twistDeg": -3 }\n  }\n}',
      'x.json:3:36: thresholds.RightLowerArm.twistDeg: -3 is out of range',
    ],
    [
      '{\n  "weights": { "RightForeArm": 1 }\n}',
      "x.json:2:32: weights.RightForeArm: 'RightForeArm' is not a HumanBodyBones name",
    ],
    ['{\n  "weights": { "rightHand": 1 }\n}', "did you mean 'RightHand'?"],
    [
      '{\n  "twistAxes": { "RightHand": [0, 0] }\n}',
      'x.json:2:31: twistAxes.RightHand: need an axis [x, y, z]',
    ],
    [
      '{\n  "twistAxes": { "RightHand": [0, 0, 0] }\n}',
      'x.json:2:31: twistAxes.RightHand: the axis has zero length',
    ],
    ['{\n  "flags": { "mirrored": "yes" }\n}', 'x.json:2:26: flags.mirrored: need true or false'],
    ['{\n  "thresold": {}\n}', 'x.json:2:15: thresold: unknown field'],
    ['{\n  "schemaVersion": 2\n}', 'x.json:2:20: schemaVersion: unknown version 2'],
    ['{\n  "wrist": { "lambda": 0.6, }\n}', 'x.json:2:29: unexpected character'],
    ['', 'x.json:1:1: the file is empty'],
    ['[1]', 'x.json:1:1: need an object'],
  ])('reports %j with file:line:column and the field', (text, msg) => {
    let err: unknown;
    try {
      parseRigProfile(text, 'x.json');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RigProfileError);
    expect((err as Error).message).toContain(msg);
  });
});

// ---------------------------------------------------------------------------------------------
// evaluateClip on synthetic clips.

/** A clip on `sk` where bone `h` swings sinusoidally about Z (so every frame is different). */
function wavingClip(sk: Skeleton, frames: number, frameTime: number): Clip {
  const c = createClip(sk, frames, frameTime, 'wave');
  const n = sk.boneCount;
  for (let f = 0; f < frames; f++) {
    const t = f * frameTime;
    for (const [h, amp, ax] of [
      [H.RightUpperArm, 40, [0, 0, 1]],
      [H.LeftUpperArm, 35, [0, 0, 1]],
      [H.RightLowerArm, 50, [0, 1, 0]],
      [H.Spine, 10, [0, 1, 0]],
      [H.RightShoulder, 25, [0, 0, 1]],
    ] as [number, number, number[]][]) {
      const b = sk.humanoid[h];
      if (b < 0) continue;
      const q = axisAngle(ax, amp * D2R * Math.sin(2 * Math.PI * 0.7 * t + h));
      const r = mulq(sk.restRotations.subarray(4 * b, 4 * b + 4), q);
      c.rotations.set(r, 4 * (f * n + b));
    }
  }
  return c;
}

function copyClip(c: Clip): Clip {
  return { ...c, rotations: c.rotations.slice(), translations: c.translations.slice() };
}

/** Right-multiply bone `h`'s local rotation by `q` over frames [a, b]. */
function inject(c: Clip, h: number, a: number, b: number, q: (f: number) => ArrayLike<number>): Clip {
  const n = c.skeleton.boneCount;
  const bi = c.skeleton.humanoid[h];
  for (let f = a; f <= b; f++) {
    const o = 4 * (f * n + bi);
    c.rotations.set(mulq(c.rotations.subarray(o, o + 4), q(f)), o);
  }
  return c;
}

describe('evaluateClip on synthetic clips', () => {
  const sk = makeHumanoid();
  const golden = wavingClip(sk, 120, 1 / 30);
  const axisRLA = defaultRigProfile(sk).twistAxes.RightLowerArm;

  it('golden against itself passes with zero everywhere', () => {
    const r = evaluateClip(golden, copyClip(golden));
    expect(r.result).toBe('Pass');
    expect(r.maxScore).toBe(0);
    expect(r.runs).toEqual([]);
    expect(r.series.every((s) => s.rotDeg.every((v) => v < 1e-3))).toBe(true);
    expect(severityOf(r)).toBe(0);
  });

  it('a resampled golden (60 fps, seconds) and a stretched one (normalized) pass', () => {
    const c60 = createClip(sk, 239, 1 / 60, 'resampled');
    const n = sk.boneCount;
    const rot = new Float64Array(4 * n);
    const pos = new Float64Array(3 * n);
    for (let f = 0; f < 239; f++) {
      sampleClip(golden, f / 60, rot, pos);
      c60.rotations.set(rot, 4 * n * f);
      c60.translations.set(pos, 3 * n * f);
    }
    const r = evaluateClip(golden, c60);
    expect(r.frames).toBe(239);
    expect(r.result).toBe('Pass');
    expect(r.warnings.some((w) => w.includes('resampled'))).toBe(true);
    // normalized: a clip twice as long on the same motion
    const slow = { ...c60, frameTime: 1 / 30 };
    expect(evaluateClip(golden, slow, { sampling: 'normalized' }).result).toBe('Pass');
    expect(evaluateClip(golden, slow).result).not.toBe('Pass'); // by seconds, the motion is off
    // an observed clip longer than the golden clamps to the golden's last frame (no NaN)
    const long = createClip(sk, 200, 1 / 30);
    const rl = evaluateClip(golden, long);
    expect(rl.series.every((s) => s.rotDeg.every(Number.isFinite))).toBe(true);
    // and a retarget of another length than the golden is an Error of the whole clip
    expect(rl.warnings.some((w) => w.startsWith('length mismatch (Error)'))).toBe(true);
    expect(rl.result).toBe('Error');
    const short = {
      ...golden,
      frameCount: 40,
      rotations: golden.rotations.slice(0, 4 * n * 40),
      translations: golden.translations.slice(0, 3 * n * 40),
    };
    const rs = evaluateClip(golden, short);
    expect(rs.result).toBe('Error');
    expect(rs.warnings[0] ?? '').toMatch(/length mismatch/);
    // one frame more or less is a note, not an Error
    const oneLess = {
      ...golden,
      frameCount: golden.frameCount - 1,
      rotations: golden.rotations.slice(0, 4 * n * (golden.frameCount - 1)),
      translations: golden.translations.slice(0, 3 * n * (golden.frameCount - 1)),
    };
    const r1 = evaluateClip(golden, oneLess);
    expect(r1.result).toBe('Pass');
    expect(r1.warnings.some((w) => w.includes('length mismatch'))).toBe(false);
  });

  it('golden and retargeted of different characters (proportions) are an error saying so', () => {
    const a = makeHumanoid();
    const b = makeHumanoid({ arms: 1.4 });
    const ca = createClip(a, 10, 1 / 30);
    const cb = createClip(b, 10, 1 / 30);
    expect(() => evaluateClip(ca, cb)).toThrow(/different characters: the left upper arm is/);
  });

  it('a forearm twist over frames 40-79 is a RightLowerArm twist run there, cause forearm roll', () => {
    const obs = inject(copyClip(golden), H.RightLowerArm, 40, 79, () => axisAngle(axisRLA, 45 * D2R));
    const r = evaluateClip(golden, obs);
    expect(r.result).toBe('Error');
    const tw = r.runs.find((x) => x.bone === 'RightLowerArm' && x.measure === 'twist')!;
    expect(tw).toBeDefined();
    expect([tw.startFrame, tw.endFrame]).toEqual([40, 79]);
    expect(tw.peak).toBeCloseTo(45, 3);
    expect(tw.causeCode).toBe('forearm-roll');
    expect(tw.action).toBe(QA_CAUSES['forearm-roll'].action);
    expect(tw.message).toContain('RightLowerArm twist over threshold for frames 40-79');
    expect(tw.message).toContain('-> check the forearm roll axis mapping');
    expect(tw.level).toBe('Error');
    const s = r.series.find((x) => x.bone === 'RightLowerArm')!;
    expect(s.twistDeg[60]).toBeCloseTo(45, 3);
    expect(s.swingDeg[60]).toBeLessThan(1e-3);
    expect(s.twistVelocityDegPerSec[40]).toBeCloseTo(45 * 30, 0);
    // wrist composite on the lower arm too
    expect(r.runs.some((x) => x.bone === 'RightLowerArm' && x.measure === 'wrist')).toBe(true);
    // severity per frame: w * (45/22 - 1) for the twist alone, inside the range
    expect(s.severity[60]).toBeGreaterThan(1.5 * (45 / 22 - 1));
    expect(r.score[10]).toBe(0);
    // plain JSON
    const j = JSON.parse(JSON.stringify(reportToJson(r)));
    expect(j.series[0].rotDeg.length).toBe(120);
    expect(j.runs[0].bone).toBe(r.runs[0].bone);
    expect(severityOf(r)).toBeGreaterThan(2000);
  });

  it('a 3-frame spike of 90 degrees gives no run and no Error (Warning only)', () => {
    const obs = inject(copyClip(golden), H.RightLowerArm, 50, 52, () => axisAngle(axisRLA, 90 * D2R));
    const r = evaluateClip(golden, obs);
    expect(r.runs).toEqual([]);
    expect(r.result).toBe('Warning');
    expect(r.maxScore).toBeGreaterThan(1);
    // at 120 fps the minimum run is 16 frames: a 15-frame burst is still a spike
    const g120 = wavingClip(sk, 200, 1 / 120);
    const o120 = inject(copyClip(g120), H.RightLowerArm, 50, 64, () => axisAngle(axisRLA, 90 * D2R));
    expect(evaluateClip(g120, o120).result).toBe('Warning');
    const o120b = inject(copyClip(g120), H.RightLowerArm, 50, 65, () => axisAngle(axisRLA, 90 * D2R));
    expect(evaluateClip(g120, o120b).result).toBe('Error');
  });

  it('a constant 15-degree offset on the upper arm is a calibration offset', () => {
    const obs = inject(copyClip(golden), H.RightUpperArm, 0, 119, () => axisAngle([0, 0, 1], -15 * D2R));
    const r = evaluateClip(golden, obs);
    const run = r.runs.find((x) => x.bone === 'RightUpperArm' && x.measure === 'rotation')!;
    expect([run.startFrame, run.endFrame, run.causeCode]).toEqual([0, 119, 'calibration-offset']);
    expect(run.peak).toBeCloseTo(15, 3);
  });

  it('missing shoulder absorbed by the upper arm is named', () => {
    const obs = copyClip(golden);
    const n = sk.boneCount;
    const bs = sk.humanoid[H.RightShoulder];
    const bu = sk.humanoid[H.RightUpperArm];
    for (let f = 0; f < obs.frameCount; f++) {
      const os = 4 * (f * n + bs);
      const ou = 4 * (f * n + bu);
      const sh = obs.rotations.slice(os, os + 4);
      const rest = sk.restRotations.subarray(4 * bs, 4 * bs + 4);
      // shoulder back to rest, its rotation pushed into the upper arm: U' = inv(rest) * S * U
      const inv = quat.invert(quat64(), rest as unknown as quat);
      obs.rotations.set(mulq(mulq(inv, sh), obs.rotations.subarray(ou, ou + 4)), ou);
      obs.rotations.set(rest, os);
    }
    const r = evaluateClip(golden, obs);
    const ua = r.runs.filter((x) => x.bone === 'RightUpperArm' && x.measure === 'rotation');
    expect(ua.length).toBeGreaterThan(0);
    for (const x of ua) expect(x.causeCode).toBe('missing-shoulder');
    const shr = r.runs.filter((x) => x.bone === 'RightShoulder' && x.measure === 'rotation');
    expect(shr.length).toBeGreaterThan(0);
    for (const x of shr) expect(x.causeCode).toBe('missing-shoulder');
  });

  it('an upper arm swivel about the shoulder-wrist line (hand in place) is proportion compensation, a Warning', () => {
    const obs = copyClip(golden);
    const n = sk.boneCount;
    const bu = sk.humanoid[H.RightUpperArm];
    const bh = sk.humanoid[H.RightHand];
    const W = new Float64Array(4 * n);
    const P = new Float64Array(3 * n);
    const L = new Float64Array(4 * n);
    const T = new Float64Array(3 * n);
    for (let f = 0; f < obs.frameCount; f++) {
      L.set(obs.rotations.subarray(4 * n * f, 4 * n * (f + 1)));
      T.set(obs.translations.subarray(3 * n * f, 3 * n * (f + 1)));
      forwardKinematics(sk, L, T, W, P);
      const ax = [0, 1, 2].map((c) => P[3 * bh + c] - P[3 * bu + c]);
      const R = axisAngle(ax, (25 + 8 * Math.sin(f / 7)) * D2R);
      // world rotations of the upper arm and below turn by R about the shoulder -> hand line
      for (let b = bu; b < n; b++) {
        let k = b;
        while (k > bu) k = sk.parents[k];
        if (k === bu) W.set(mulq(R, W.subarray(4 * b, 4 * b + 4)), 4 * b);
      }
      worldToLocalRotations(sk, W, L);
      obs.rotations.set(Float32Array.from(L), 4 * n * f);
    }
    const r = evaluateClip(golden, obs);
    const ua = r.runs.find((x) => x.bone === 'RightUpperArm' && x.measure === 'rotation')!;
    expect(ua).toBeDefined();
    expect(ua.causeCode).toBe('proportion-compensation');
    expect(ua.level).toBe('Warning');
    expect(r.runs.some((x) => x.bone === 'RightHand' && x.measure === 'position')).toBe(false);
  });

  it('no shoulder bones: upper arm thresholds x1.5 and the cause names the missing shoulder', () => {
    const sk2 = makeHumanoid({ shoulders: false });
    const g2 = wavingClip(sk2, 120, 1 / 30);
    const obs = inject(copyClip(g2), H.RightUpperArm, 0, 119, (f) =>
      axisAngle([0, 0, 1], (15 + 10 * Math.sin(f / 5)) * D2R),
    );
    const r = evaluateClip(g2, obs);
    const s = r.series.find((x) => x.bone === 'RightUpperArm')!;
    expect(s.rotThresholdDeg).toBe(18);
    expect(s.twistThresholdDeg).toBe(37.5);
    expect(r.warnings.some((w) => w.includes('no shoulder bones'))).toBe(true);
    // golden with shoulders vs observed rig without: the upper arm runs say so
    const r2 = evaluateClip(golden, wavingClip(sk2, 120, 1 / 30));
    const runs = r2.runs.filter((x) => x.bone === 'RightUpperArm');
    for (const x of runs) expect(x.causeCode).toBe('missing-shoulder');
  });

  it('the profile changes thresholds, weights and lambda', () => {
    const obs = inject(copyClip(golden), H.RightLowerArm, 40, 79, () => axisAngle(axisRLA, 18 * D2R));
    expect(evaluateClip(golden, obs).runs.filter((x) => x.measure === 'twist')).toEqual([]);
    const p = emptyRigProfile();
    p.thresholds.RightLowerArm = { twistDeg: 10 };
    p.weights.RightLowerArm = 3;
    const r = evaluateClip(golden, obs, { profile: p });
    const tw = r.runs.find((x) => x.measure === 'twist')!;
    expect(tw.threshold).toBe(10);
    expect(tw.severity).toBeCloseTo(3 * (18 / 10 - 1), 4);
    const bad = emptyRigProfile();
    bad.boneMap.RightHand = 'NoSuchBone';
    expect(() => evaluateClip(golden, obs, { profile: bad })).toThrow(
      "boneMap.RightHand: no bone named 'NoSuchBone'",
    );
    // read from a file, the error names its place there
    const fromFile = parseRigProfile('{\n  "boneMap": { "RightHand": "NoSuchBone" }\n}', 'rig.json');
    expect(() => evaluateClip(golden, obs, { profile: fromFile })).toThrow(
      /^rig\.json:2:29: boneMap\.RightHand: no bone named 'NoSuchBone' in the retargeted skeleton/,
    );
  });

  it('bad input is a clear error', () => {
    const obs = copyClip(golden);
    obs.rotations[4 * (3 * sk.boneCount + 2)] = Number.NaN;
    expect(() => evaluateClip(golden, obs)).toThrow(
      /observed clip 'wave': frame 3 bone '.*': rotation is not a valid quaternion/,
    );
  });
});
