/**
 * Finger muscle model (src/rig/fingers.ts) on synthetic humanoids with five-finger hands: known answers
 * for curl and spread, mirror symmetry, apply/measure round trips, presets, isolation from the body,
 * partial hands, copy modes, validation and allocation-free per-frame calls.
 */
import * as path from 'node:path';
import fc from 'fast-check';
import { quat, vec3 } from 'gl-matrix';
import {
  createSkeleton,
  forwardKinematics,
  HumanBodyBones as H,
  quat64,
  type Skeleton,
  vec64,
  vectorAngle,
} from '../src/core';
import { canonicalPose, type ReferencePose } from '../src/retarget';
import {
  FINGER_MUSCLE_COUNT,
  FINGER_NAMES,
  FINGER_PRESET_NAMES,
  type FingerHand,
  type FingerName,
  FingerRig,
  FingerRigError,
  fingerHumanBone,
  withRestFingers,
} from '../src/rig/fingers';
import { runAllocProbe } from './helpers/allocProbe';
import { makeHumanoid } from './helpers/humanoid';

const DEG = Math.PI / 180;

// ---------------------------------------------------------------------------------------------
// A humanoid with full five-finger hands (test/helpers/humanoid.ts has only a middle finger).

/** Left-hand finger layout in the T-pose hand frame (hand along +X, palm down -Y, thumb toward +Z), metres. */
const LAYOUT: Record<FingerName, { root: number[]; dir: number[]; lengths: number[] }> = {
  thumb: { root: [0.02, -0.012, 0.022], dir: [1, -0.4, 1], lengths: [0.04, 0.032, 0.026, 0.02] },
  index: { root: [0.09, 0, 0.022], dir: [1, 0, 0], lengths: [0.045, 0.026, 0.02, 0.015] },
  middle: { root: [0.095, 0, 0], dir: [1, 0, 0], lengths: [0.05, 0.03, 0.022, 0.016] },
  ring: { root: [0.09, 0, -0.02], dir: [1, 0, 0], lengths: [0.046, 0.028, 0.021, 0.015] },
  little: { root: [0.08, 0, -0.038], dir: [1, 0, 0], lengths: [0.035, 0.02, 0.018, 0.013] },
};

interface HandsSpec {
  pose?: 'T' | 'A';
  /** Fingers to build on both hands (default all five). */
  fingers?: readonly FingerName[];
  /** Fingers to build on the right hand only, when different. */
  rightFingers?: readonly FingerName[];
  /** Unmapped end joints after each distal bone (default true). */
  ends?: boolean;
  /** Give every bone a random rest frame (same geometry), seeded. */
  scramble?: number;
  scale?: number;
}

function makeHands(spec: HandsSpec = {}): Skeleton {
  const base = makeHumanoid({ fingers: false, pose: spec.pose, scale: spec.scale });
  const s = spec.scale ?? 1;
  const names = [...base.names];
  const parents = Array.from(base.parents);
  const offs = Array.from(base.restTranslations);
  const rots = Array.from(base.restRotations);
  const map = Array.from(base.humanoid);
  for (const hand of ['left', 'right'] as const) {
    const sx = hand === 'left' ? 1 : -1;
    const side = hand === 'left' ? 'Left' : 'Right';
    const handBone = base.humanoid[H[`${side}Hand`]];
    const list = hand === 'right' && spec.rightFingers ? spec.rightFingers : (spec.fingers ?? FINGER_NAMES);
    for (const finger of list) {
      const L = LAYOUT[finger];
      const d = vec3.normalize(vec64(), L.dir as vec3);
      let parent = handBone;
      const count = spec.ends === false ? 3 : 4;
      for (let k = 0; k < count; k++) {
        const off =
          k === 0 ? L.root : [d[0] * L.lengths[k - 1], d[1] * L.lengths[k - 1], d[2] * L.lengths[k - 1]];
        names.push(`${side}Hand${finger[0].toUpperCase()}${finger.slice(1)}${k + 1}`);
        parents.push(parent);
        offs.push(off[0] * sx * s, off[1] * s, off[2] * s);
        rots.push(0, 0, 0, 1);
        parent = names.length - 1;
        if (k < 3) map[fingerHumanBone(hand, finger, k)] = parent;
      }
    }
  }
  const sk = createSkeleton({ names, parents, restTranslations: offs, restRotations: rots, humanoid: map });
  return spec.scramble ? scrambleRestFrames(sk, spec.scramble) : sk;
}

/** Same geometry, random rest frames: W'_i = W_i R_i, so L'_i = inv(R_p) L_i R_i and off'_i = inv(R_p) off_i. */
function scrambleRestFrames(sk: Skeleton, seed: number): Skeleton {
  let x = seed;
  const rnd = () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
  const R: Float64Array[] = [];
  for (let i = 0; i < sk.boneCount; i++) {
    const axis = vec3.normalize(vec64(), [rnd() - 0.5, rnd() - 0.5, rnd() - 0.5]);
    R.push(quat.setAxisAngle(quat64(), axis, (rnd() - 0.5) * 4) as Float64Array);
  }
  const rots = new Float64Array(4 * sk.boneCount);
  const offs = new Float64Array(3 * sk.boneCount);
  for (let i = 0; i < sk.boneCount; i++) {
    const p = sk.parents[i];
    const L = sk.restRotations.subarray(4 * i, 4 * i + 4) as unknown as quat;
    const o = sk.restTranslations.subarray(3 * i, 3 * i + 3) as unknown as vec3;
    const out = quat64();
    if (p < 0) {
      quat.multiply(out, L, R[i]);
      offs.set(o, 3 * i);
    } else {
      const Rpi = quat.invert(quat64(), R[p]);
      quat.multiply(out, quat.multiply(quat64(), Rpi, L), R[i]);
      offs.set(vec3.transformQuat(new Float64Array(3), o, Rpi), 3 * i);
    }
    rots.set(out, 4 * i);
  }
  return createSkeleton({
    names: sk.names,
    parents: sk.parents,
    restTranslations: offs,
    restRotations: rots,
    humanoid: sk.humanoid,
  });
}

// ---------------------------------------------------------------------------------------------
// Helpers

function fk(sk: Skeleton, local: ArrayLike<number>) {
  const r = new Float64Array(4 * sk.boneCount);
  const p = new Float64Array(3 * sk.boneCount);
  forwardKinematics(sk, local as Float64Array, sk.restTranslations, r, p);
  return { r, p };
}

function pos(g: { p: Float64Array }, bone: number): number[] {
  return [g.p[3 * bone], g.p[3 * bone + 1], g.p[3 * bone + 2]];
}

function fingerBone(sk: Skeleton, hand: FingerHand, finger: FingerName, k: number): number {
  return sk.humanoid[fingerHumanBone(hand, finger, k)];
}

/** The first child of `bone` (the end joint after a distal bone). */
function childOf(sk: Skeleton, bone: number): number {
  return Array.from(sk.parents).indexOf(bone);
}

/** Unit direction from bone a to bone b in a posed geometry. */
function dir(g: { p: Float64Array }, a: number, b: number): number[] {
  const pa = pos(g, a);
  const pb = pos(g, b);
  const v = [pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]];
  const l = Math.hypot(v[0], v[1], v[2]);
  return v.map((c) => c / l);
}

function expectVec(v: number[], want: number[], tol: number): void {
  for (let k = 0; k < 3; k++) expect(Math.abs(v[k] - want[k])).toBeLessThan(tol);
}

function setup(spec: HandsSpec = {}): { sk: Skeleton; ref: ReferencePose; rig: FingerRig } {
  const sk = makeHands(spec);
  const ref = canonicalPose(sk);
  return { sk, ref, rig: new FingerRig(sk, ref) };
}

function isFingerBone(sk: Skeleton, b: number): boolean {
  for (const hand of ['left', 'right'] as const)
    for (const f of FINGER_NAMES)
      for (let k = 0; k < 3; k++) if (fingerBone(sk, hand, f, k) === b) return true;
  return false;
}

const muscleSet = (n: number) =>
  fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: n, maxLength: n });

// ---------------------------------------------------------------------------------------------

describe('curl and spread: known answers on a palm-down T-pose hand (fingers along +-X, palm normal -Y)', () => {
  const { sk, ref, rig } = setup({ pose: 'A', scramble: 7 });

  function posedDir(hand: FingerHand, finger: FingerName, k: number, set: () => void): number[] {
    rig.applyPreset('left', 'reset');
    rig.applyPreset('right', 'reset');
    set();
    const local = Float64Array.from(ref.localRotations);
    rig.apply(local);
    const g = fk(sk, local);
    const a = fingerBone(sk, hand, finger, k);
    const b = k < 2 ? fingerBone(sk, hand, finger, k + 1) : childOf(sk, a);
    return dir(g, a, b);
  }

  it('the canonical reference has the synthetic hands palm down with the fingers along +-X', () => {
    for (const hand of ['left', 'right'] as const) {
      const f = rig.handFrame(hand);
      expectVec(f.palmNormal, [0, -1, 0], 1e-9);
      expectVec(
        f.radial.map((v, i) => (i === 0 ? 0 : v)),
        [0, 0, f.radial[2]],
        1e-9,
      );
      expect(f.radial[2]).toBeGreaterThan(0.98); // thumb side is +Z (forward) on both hands
      expect(f.radialFrom).toBe('fingers');
    }
  });

  it('curl1 = +1 turns the index proximal 50 degrees (Unity Index 1 Stretched range) toward the palm', () => {
    const c = Math.cos(50 * DEG);
    const s = Math.sin(50 * DEG);
    expectVec(
      posedDir('left', 'index', 0, () => rig.setMuscle('left', 'index', 'curl1', 1)),
      [c, -s, 0],
      1e-9,
    );
    expectVec(
      posedDir('right', 'index', 0, () => rig.setMuscle('right', 'index', 'curl1', 1)),
      [-c, -s, 0],
      1e-9,
    );
    // -1: the min angle, away from the palm (back of the hand, +Y)
    expectVec(
      posedDir('left', 'index', 0, () => rig.setMuscle('left', 'index', 'curl1', -1)),
      [c, s, 0],
      1e-9,
    );
    // half way: half the angle
    const c2 = Math.cos(25 * DEG);
    const s2 = Math.sin(25 * DEG);
    expectVec(
      posedDir('left', 'index', 0, () => rig.setMuscle('left', 'index', 'curl1', 0.5)),
      [c2, -s2, 0],
      1e-9,
    );
  });

  it('curl2/curl3 turn their own bone relative to the previous one (45 degrees each at +1)', () => {
    const d = posedDir('left', 'middle', 2, () => rig.setCurl('left', 'middle', 1));
    const total = (50 + 45 + 45) * DEG;
    expectVec(d, [Math.cos(total), -Math.sin(total), 0], 1e-9);
  });

  it('the thumb range is asymmetric: curl2 +1 folds 40 degrees, -1 extends 35 degrees (Unity Thumb 2 Stretched -40..35)', () => {
    const rest = posedDir('left', 'thumb', 1, () => {});
    const bent = posedDir('left', 'thumb', 1, () => rig.setMuscle('left', 'thumb', 'curl2', 1));
    const ext = posedDir('left', 'thumb', 1, () => rig.setMuscle('left', 'thumb', 'curl2', -1));
    expect(vectorAngle(rest, bent) / DEG).toBeCloseTo(40, 9);
    expect(vectorAngle(rest, ext) / DEG).toBeCloseTo(35, 9);
    // toward the palm side (-Y) when bending, away when extending
    expect(bent[1]).toBeLessThan(rest[1]);
    expect(ext[1]).toBeGreaterThan(rest[1]);
  });

  it('spread +1 opens index (20 deg) and middle (7.5 deg) toward the thumb, ring (7.5) and little (20) away from it', () => {
    const cases: [FingerName, number, number][] = [
      ['index', 20, 1],
      ['middle', 7.5, 1],
      ['ring', 7.5, -1],
      ['little', 20, -1],
    ];
    for (const [finger, deg, towardThumb] of cases) {
      for (const hand of ['left', 'right'] as const) {
        const sx = hand === 'left' ? 1 : -1;
        const d = posedDir(hand, finger, 0, () => rig.setSpread(hand, finger, 1));
        expectVec(d, [sx * Math.cos(deg * DEG), 0, towardThumb * Math.sin(deg * DEG)], 1e-9);
      }
    }
  });

  it('thumb spread +1 swings the thumb 25 degrees away from the index finger, about (nearly) the palm normal', () => {
    const rest = posedDir('left', 'thumb', 0, () => {});
    const open = posedDir('left', 'thumb', 0, () => rig.setSpread('left', 'thumb', 1));
    const axes = rig.boneAxes('left', 'thumb', 0, ref)!;
    // the spread axis is the palm normal (-Y) made perpendicular to the thumb's bend axis
    expect(vectorAngle(axes.spread, [0, -1, 0]) / DEG).toBeLessThan(30);
    expect(
      Math.abs(axes.spread[0] * axes.bend[0] + axes.spread[1] * axes.bend[1] + axes.spread[2] * axes.bend[2]),
    ).toBeLessThan(1e-12);
    // a 25-degree rotation about that axis: the component along it stays, the rest turns by 25 degrees
    const s = axes.spread;
    const along = (v: number[]) => v[0] * s[0] + v[1] * s[1] + v[2] * s[2];
    const flat = (v: number[]) => v.map((c, i) => c - along(v) * s[i]);
    expect(along(open)).toBeCloseTo(along(rest), 12);
    expect(vectorAngle(flat(rest), flat(open)) / DEG).toBeCloseTo(25, 9);
    // farther from the index finger's direction (+X), and toward the thumb side (+Z)
    expect(vectorAngle(open, [1, 0, 0])).toBeGreaterThan(vectorAngle(rest, [1, 0, 0]));
  });

  it('thumb curls fold it toward the palm and across it (toward the little finger) at 45 degrees', () => {
    const rest = posedDir('left', 'thumb', 1, () => {});
    const bent = posedDir('left', 'thumb', 1, () => rig.setMuscle('left', 'thumb', 'curl2', 0.5));
    const move = bent.map((v, i) => v - rest[i]);
    // the tip moves down (palm side, -Y) and back across the palm (-Z) about equally
    expect(move[1]).toBeLessThan(0);
    expect(move[2]).toBeLessThan(0);
    expect(Math.abs(Math.atan2(-move[2], -move[1]) / DEG - 45)).toBeLessThan(15);
  });
});

describe('mirror symmetry', () => {
  it('the same muscles on both hands give mirror-image world positions (x -> -x) of every finger joint', () => {
    // different random rest frames per bone: the geometry is mirror-symmetric, the bone frames are not
    const { sk, ref, rig } = setup({ pose: 'A', scramble: 11 });
    const pairs: [number, number][] = [];
    for (let b = 0; b < sk.boneCount; b++) {
      const name = sk.names[b];
      if (name.startsWith('Left')) pairs.push([b, sk.names.indexOf(`Right${name.slice(4)}`)]);
    }
    fc.assert(
      fc.property(muscleSet(20), (values) => {
        rig.setHandMuscles('left', values);
        rig.setHandMuscles('right', values);
        const local = Float64Array.from(ref.localRotations);
        rig.apply(local);
        const g = fk(sk, local);
        for (const [l, r] of pairs) {
          const pl = pos(g, l);
          expectVec(pos(g, r), [-pl[0], pl[1], pl[2]], 1e-9);
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe('apply / measure round trip (MuscleData)', () => {
  for (const [label, spec] of [
    ['T-pose rig, identity rest frames', { pose: 'T' }],
    ['A-pose rig, random rest frames', { pose: 'A', scramble: 3 }],
    ['no end joints (distal direction from the intermediate)', { pose: 'T', ends: false, scramble: 5 }],
  ] as [string, HandsSpec][]) {
    it(`measures back the applied muscles within 1e-6: ${label}`, () => {
      const { ref, rig } = setup(spec);
      const out = new Float32Array(FINGER_MUSCLE_COUNT);
      fc.assert(
        fc.property(muscleSet(20), muscleSet(20), (l, r) => {
          rig.setHandMuscles('left', l);
          rig.setHandMuscles('right', r);
          const local = Float64Array.from(ref.localRotations);
          rig.apply(local);
          const out64 = new Float64Array(FINGER_MUSCLE_COUNT);
          rig.measure(local, out64);
          rig.measure(local, out);
          for (let m = 0; m < FINGER_MUSCLE_COUNT; m++) {
            expect(Math.abs(out64[m] - rig.muscles[m])).toBeLessThan(1e-6);
            expect(Math.abs(out[m] - rig.muscles[m])).toBeLessThan(1e-6);
          }
        }),
        { numRuns: 200 },
      );
    });
  }

  it('measures 0 on the reference pose and ignores twist about the bone axis', () => {
    const { sk, ref, rig } = setup({ scramble: 9 });
    const out = new Float64Array(FINGER_MUSCLE_COUNT);
    rig.measure(ref.localRotations, out);
    for (const v of out) expect(Math.abs(v)).toBeLessThan(1e-9);
    // 30 degrees of twist about the left index proximal's own axis (its reference direction)
    rig.setCurl('left', 'index', 0.6);
    const local = Float64Array.from(ref.localRotations);
    rig.apply(local);
    const a = fingerBone(sk, 'left', 'index', 0);
    const axes = rig.boneAxes('left', 'index', 0, ref)!;
    const g = fk(sk, local);
    const parentWorld = g.r.subarray(4 * sk.parents[a], 4 * sk.parents[a] + 4) as unknown as quat;
    const world = g.r.subarray(4 * a, 4 * a + 4) as unknown as quat;
    // the bone's current twist axis (world) and a twist about it, written back as a local rotation
    const boneWorldRef = ref.world.rotations.subarray(4 * a, 4 * a + 4) as unknown as quat;
    const tLocal = vec3.transformQuat(vec64(), axes.twist as vec3, quat.invert(quat64(), boneWorldRef));
    const tw = quat.setAxisAngle(quat64(), tLocal, 30 * DEG);
    const newWorld = quat.multiply(quat64(), world, tw);
    const newLocal = quat.multiply(quat64(), quat.invert(quat64(), parentWorld), newWorld);
    local.set(newLocal, 4 * a);
    rig.measure(local, out);
    expect(out[4]).toBeCloseTo(0.6, 9); // left index curl1
    expect(Math.abs(out[7])).toBeLessThan(1e-9); // left index spread
  });
});

describe('presets', () => {
  const { sk, ref, rig } = setup({ pose: 'A', scramble: 13 });
  const posed = (name: string) => {
    rig.applyPreset('left', name);
    rig.applyPreset('right', name);
    const local = Float64Array.from(ref.localRotations);
    rig.apply(local);
    return { local, g: fk(sk, local) };
  };

  it('reset gives exactly the reference-pose local rotations of the finger bones', () => {
    const { local } = posed('reset');
    expect(Array.from(local)).toEqual(Array.from(ref.localRotations));
  });

  it('paper and reset keep every finger straight (each bone along the previous one, as in the reference)', () => {
    for (const name of ['paper', 'reset']) {
      const { g } = posed(name);
      for (const hand of ['left', 'right'] as const) {
        for (const f of FINGER_NAMES) {
          const b = [0, 1, 2].map((k) => fingerBone(sk, hand, f, k));
          const tip = childOf(sk, b[2]);
          expect(vectorAngle(dir(g, b[0], b[1]), dir(g, b[1], b[2]))).toBeLessThan(1e-9);
          expect(vectorAngle(dir(g, b[1], b[2]), dir(g, b[2], tip))).toBeLessThan(1e-9);
        }
      }
    }
  });

  it('paper fans the fingers apart (index and little farther apart than in the reference)', () => {
    const spreadOf = (g: { p: Float64Array }) =>
      vectorAngle(
        dir(g, fingerBone(sk, 'left', 'index', 0), fingerBone(sk, 'left', 'index', 1)),
        dir(g, fingerBone(sk, 'left', 'little', 0), fingerBone(sk, 'left', 'little', 1)),
      );
    expect(spreadOf(posed('paper').g) / DEG).toBeCloseTo(40, 6);
    expect(spreadOf(posed('reset').g)).toBeLessThan(1e-9);
  });

  it('rock folds each finger by its full curl range (140 degrees) with the fingertips on the palm side', () => {
    const { g } = posed('rock');
    for (const hand of ['left', 'right'] as const) {
      const frame = rig.handFrame(hand);
      for (const f of ['index', 'middle', 'ring', 'little'] as const) {
        const b = [0, 1, 2].map((k) => fingerBone(sk, hand, f, k));
        const tip = childOf(sk, b[2]);
        const first = dir(g, b[0], b[1]);
        const last = dir(g, b[2], tip);
        expect(vectorAngle(first, last) / DEG).toBeCloseTo(90, 6); // 45 + 45 after the proximal
        const fwd = frame.forward;
        const dot = (a: number[], c: number[]) => a[0] * c[0] + a[1] * c[1] + a[2] * c[2];
        // the distal bone points back toward the wrist (140 > 90 degrees of total flexion)
        expect(dot(last, fwd)).toBeLessThan(-0.5);
        const tipRel = pos(g, tip).map((v, i) => v - pos(g, b[0])[i]);
        expect(dot(tipRel, frame.palmNormal)).toBeGreaterThan(0.04); // well below the palm plane
      }
    }
  });

  it('with wider curl ranges (rangesDeg) rock closes the fist: fingertips within 2.5 cm of the palm plane, behind the knuckles', () => {
    const wide = { curl1: [-20, 90], curl2: [-10, 100], curl3: [-10, 80] } as const;
    const r2 = new FingerRig(sk, ref, {
      rangesDeg: { index: wide, middle: wide, ring: wide, little: wide },
    });
    const range = r2.rangeDeg('left', 'index', 'curl2');
    expect(range[0]).toBeCloseTo(-10, 12);
    expect(range[1]).toBeCloseTo(100, 12);
    r2.applyPreset('left', 'rock');
    const local = Float64Array.from(ref.localRotations);
    r2.apply(local);
    const g = fk(sk, local);
    const frame = r2.handFrame('left');
    const hp = pos(g, sk.humanoid[H.LeftHand]);
    const dot = (a: number[], c: number[]) => a[0] * c[0] + a[1] * c[1] + a[2] * c[2];
    for (const f of ['index', 'middle', 'ring', 'little'] as const) {
      const root = pos(g, fingerBone(sk, 'left', f, 0));
      const tip = pos(g, childOf(sk, fingerBone(sk, 'left', f, 2)));
      const rel = tip.map((v, i) => v - hp[i]);
      expect(dot(rel, frame.palmNormal)).toBeLessThan(0.025);
      expect(dot(rel, frame.forward)).toBeLessThan(
        dot(
          root.map((v, i) => v - hp[i]),
          frame.forward,
        ),
      );
    }
  });

  it('v and scissors keep index and middle straight and apart, ring and little curled; index-point only the index', () => {
    for (const [name, straight] of [
      ['v', ['index', 'middle']],
      ['scissors', ['index', 'middle']],
      ['index-point', ['index']],
    ] as [string, FingerName[]][]) {
      const { g } = posed(name);
      for (const f of ['index', 'middle', 'ring', 'little'] as const) {
        const b = [0, 1, 2].map((k) => fingerBone(sk, 'left', f, k));
        const bend = vectorAngle(dir(g, b[0], b[1]), dir(g, b[2], childOf(sk, b[2]))) / DEG;
        if (straight.includes(f)) expect(bend).toBeLessThan(1e-6);
        else expect(bend).toBeCloseTo(90, 6);
      }
    }
    const gap = (name: string) => {
      const { g } = posed(name);
      const d = (f: FingerName) => dir(g, fingerBone(sk, 'left', f, 0), fingerBone(sk, 'left', f, 1));
      return vectorAngle(d('index'), d('middle')) / DEG;
    };
    expect(gap('v')).toBeCloseTo(27.5, 6);
    expect(gap('scissors')).toBeCloseTo(13.75, 6);
  });

  it('every preset is a valid set of 20 values', () => {
    for (const name of FINGER_PRESET_NAMES) expect(() => rig.applyPreset('right', name)).not.toThrow();
  });
});

describe('fingers leave the body alone', () => {
  it('changes no non-finger bone rotation, no world position of a non-finger bone, and no bone length', () => {
    const { sk, ref, rig } = setup({ pose: 'A', scramble: 17 });
    fc.assert(
      fc.property(muscleSet(40), fc.integer({ min: 1, max: 1 << 30 }), (values, seed) => {
        rig.setHandMuscles('left', values.slice(0, 20));
        rig.setHandMuscles('right', values.slice(20));
        // a random body pose (every bone), then the fingers
        let x = seed;
        const rnd = () => {
          x = (x * 1103515245 + 12345) % 2147483648;
          return x / 2147483648 - 0.5;
        };
        const before = Float64Array.from(ref.localRotations);
        for (let b = 0; b < sk.boneCount; b++) {
          const q = quat.setAxisAngle(quat64(), vec3.normalize(vec64(), [rnd(), rnd(), rnd()]), rnd() * 2);
          quat.multiply(q, before.subarray(4 * b, 4 * b + 4) as unknown as quat, q);
          before.set(q, 4 * b);
        }
        const after = Float64Array.from(before);
        rig.apply(after);
        const g0 = fk(sk, before);
        const g1 = fk(sk, after);
        let changed = 0;
        for (let b = 0; b < sk.boneCount; b++) {
          const p = sk.parents[b];
          if (p >= 0) {
            const l0 = vec3.distance(pos(g0, b) as vec3, pos(g0, p) as vec3);
            const l1 = vec3.distance(pos(g1, b) as vec3, pos(g1, p) as vec3);
            expect(Math.abs(l1 - l0)).toBeLessThan(1e-12);
          }
          if (isFingerBone(sk, b)) {
            if (before.subarray(4 * b, 4 * b + 4).some((v, k) => v !== after[4 * b + k])) changed++;
            continue;
          }
          for (let k = 0; k < 4; k++) expect(after[4 * b + k]).toBe(before[4 * b + k]);
          // a non-finger bone below a finger (the end joints) moves with it; the others stay put
          let underFinger = false;
          for (let a = p; a >= 0; a = sk.parents[a]) if (isFingerBone(sk, a)) underFinger = true;
          if (!underFinger) for (let k = 0; k < 3; k++) expect(g1.p[3 * b + k]).toBe(g0.p[3 * b + k]);
        }
        expect(changed).toBe(30); // every finger bone was written (apply sets them from the reference)
      }),
      { numRuns: 30 },
    );
  });
});

describe('partial hands', () => {
  it('a hand without finger bones is a no-op; the other hand still works', () => {
    const { sk, ref, rig } = setup({ rightFingers: [] });
    expect(rig.hasFingers('right')).toBe(false);
    expect(rig.hasFingers('left')).toBe(true);
    rig.applyPreset('right', 'rock');
    rig.applyPreset('left', 'rock');
    const local = Float64Array.from(ref.localRotations);
    rig.apply(local);
    for (let b = 0; b < sk.boneCount; b++) {
      if (isFingerBone(sk, b)) continue;
      for (let k = 0; k < 4; k++) expect(local[4 * b + k]).toBe(ref.localRotations[4 * b + k]);
    }
    const out = new Float64Array(40);
    rig.measure(local, out);
    expect(Array.from(out.subarray(20))).toEqual(new Array(20).fill(0));
    expect(out[4]).toBeCloseTo(1, 9); // left index curl1
  });

  it('two mapped fingers give the palm from their roots; one finger without a thumb falls back to palm-down', () => {
    const two = setup({ fingers: ['index', 'middle'] });
    expect(two.rig.handFrame('left').radialFrom).toBe('fingers');
    expectVec(two.rig.handFrame('left').palmNormal, [0, -1, 0], 1e-9);
    const one = setup({ fingers: ['middle'] });
    expect(one.rig.handFrame('right').radialFrom).toBe('palm-down fallback');
    for (const { sk, ref, rig } of [two, one]) {
      rig.setMuscle('right', 'middle', 'curl1', 1);
      const local = Float64Array.from(ref.localRotations);
      rig.apply(local);
      const g = fk(sk, local);
      const d = dir(g, fingerBone(sk, 'right', 'middle', 0), fingerBone(sk, 'right', 'middle', 1));
      expectVec(d, [-Math.cos(50 * DEG), -Math.sin(50 * DEG), 0], 1e-9);
    }
  });

  it('one finger and a thumb take the thumb side from the thumb root (palm normal tilted by the thumb root height)', () => {
    const { sk, ref, rig } = setup({ fingers: ['thumb', 'middle'] });
    const frame = rig.handFrame('left');
    expect(frame.radialFrom).toBe('thumb');
    // the thumb root sits 1.2 cm below the palm plane, 2.2 cm to the side: atan(12/22) = 28.6 degrees of tilt
    expect(vectorAngle(frame.palmNormal, [0, -1, 0]) / DEG).toBeCloseTo(Math.atan2(0.012, 0.022) / DEG, 6);
    expect(frame.radial[2]).toBeGreaterThan(0.8);
    rig.setMuscle('left', 'middle', 'curl1', 1);
    const local = Float64Array.from(ref.localRotations);
    rig.apply(local);
    const g = fk(sk, local);
    const d = dir(g, fingerBone(sk, 'left', 'middle', 0), fingerBone(sk, 'left', 'middle', 1));
    const n = frame.palmNormal;
    expect(d[0] * n[0] + d[1] * n[1] + d[2] * n[2]).toBeCloseTo(Math.sin(50 * DEG), 9);
  });

  it('a finger missing its intermediate bone keeps its other curls (the distal turns about its own axis)', () => {
    const sk0 = makeHands({ fingers: ['index', 'middle', 'ring'] });
    const map = Array.from(sk0.humanoid);
    map[H.LeftIndexIntermediate] = -1;
    const sk = createSkeleton({ ...sk0, humanoid: map });
    const ref = canonicalPose(sk);
    const rig = new FingerRig(sk, ref);
    fc.assert(
      fc.property(muscleSet(20), (values) => {
        rig.setHandMuscles('left', values);
        const local = Float64Array.from(ref.localRotations);
        rig.apply(local);
        const out = new Float64Array(40);
        rig.measure(local, out);
        for (let m = 0; m < 20; m++) {
          const unmapped = m === 5 || m >= 16 || m < 4; // index curl2, little, thumb
          expect(Math.abs(out[m] - (unmapped ? 0 : values[m]))).toBeLessThan(1e-6);
        }
      }),
      { numRuns: 50 },
    );
  });
});

describe('enable flags and copy modes', () => {
  it('a disabled hand and rotation mode leave the pose as it is', () => {
    const { sk, ref, rig } = setup({ scramble: 19 });
    rig.applyPreset('left', 'rock');
    rig.applyPreset('right', 'rock');
    const start = Float64Array.from(ref.localRotations);
    start[4 * fingerBone(sk, 'left', 'index', 0)] += 0.1; // a copied (non-reference) rotation
    rig.setEnabled('left', false);
    expect(rig.isEnabled('left')).toBe(false);
    let local = Float64Array.from(start);
    rig.apply(local);
    for (const f of FINGER_NAMES)
      for (let k = 0; k < 3; k++) {
        const b = fingerBone(sk, 'left', f, k);
        for (let c = 0; c < 4; c++) expect(local[4 * b + c]).toBe(start[4 * b + c]);
      }
    rig.setEnabled('left', true);
    rig.setMode('rotation');
    local = Float64Array.from(start);
    rig.update(local);
    expect(Array.from(local)).toEqual(Array.from(start));
  });

  it('cached rotations follow every muscle change (setters and direct writes) and equal a fresh rig', () => {
    const { sk, ref, rig } = setup({ scramble: 23 });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 39 }), fc.double({ min: -1, max: 1, noNaN: true })), {
          minLength: 1,
          maxLength: 6,
        }),
        (edits) => {
          const local = Float64Array.from(ref.localRotations);
          rig.apply(local); // fills the cache with the current muscles
          for (const [m, v] of edits) rig.muscles[m] = v;
          rig.apply(local);
          const fresh = new FingerRig(sk, ref);
          fresh.muscles.set(rig.muscles);
          const want = Float64Array.from(ref.localRotations);
          fresh.apply(want);
          for (let i = 0; i < want.length; i++) expect(local[i]).toBe(want[i]);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('keptSinceLast skips exactly the fingers whose muscles held still', () => {
    const { sk, ref, rig } = setup({ scramble: 5 });
    const local = Float64Array.from(ref.localRotations);
    rig.applyPreset('left', 'rock');
    rig.apply(local);
    const index = fingerBone(sk, 'left', 'index', 0);
    const middle = fingerBone(sk, 'left', 'middle', 0);
    const written = Array.from(local.subarray(4 * middle, 4 * middle + 4));
    local[4 * index] = 9; // scribbles the caller promised not to make: left alone with keptSinceLast
    local[4 * middle] = 9;
    rig.setCurl('left', 'middle', 0.25);
    rig.apply(local, true);
    expect(local[4 * index]).toBe(9);
    expect(local[4 * middle]).not.toBe(9);
    expect(Array.from(local.subarray(4 * middle, 4 * middle + 4))).not.toEqual(written);
    rig.apply(local); // without the promise every finger is written again
    expect(local[4 * index]).not.toBe(9);
  });

  it('writeSerial changes with the mode and the enabled hands (callers restore bones apply stopped writing)', () => {
    const { rig } = setup();
    const s0 = rig.writeSerial;
    rig.setEnabled('left', false);
    const s1 = rig.writeSerial;
    rig.setMode('rotation');
    const s2 = rig.writeSerial;
    rig.setCurl('left', 'index', 0.5);
    expect(s1).not.toBe(s0);
    expect(s2).not.toBe(s1);
    expect(rig.writeSerial).toBe(s2);
  });

  it('muscleData copies the source finger muscles onto another skeleton (measured back within 1e-6)', () => {
    const source = setup({ pose: 'A', scramble: 23 });
    const target = setup({ pose: 'T', scramble: 29, scale: 1.3 });
    target.rig.setMode('muscleData');
    target.rig.setEnabled('right', false);
    fc.assert(
      fc.property(muscleSet(40), (values) => {
        source.rig.setHandMuscles('left', values.slice(0, 20));
        source.rig.setHandMuscles('right', values.slice(20));
        const srcLocal = Float64Array.from(source.ref.localRotations);
        source.rig.apply(srcLocal);
        const tgtLocal = Float64Array.from(target.ref.localRotations);
        target.rig.update(tgtLocal, source.rig, srcLocal);
        const out = new Float64Array(40);
        target.rig.measure(tgtLocal, out);
        for (let m = 0; m < 20; m++) expect(Math.abs(out[m] - values[m])).toBeLessThan(1e-6);
        for (let m = 20; m < 40; m++) expect(Math.abs(out[m])).toBeLessThan(1e-9); // disabled: reference pose
      }),
      { numRuns: 100 },
    );
  });

  it('withRestFingers measures from the rest fingers when the reference frame had bent fingers', () => {
    const sk = makeHands({ scramble: 31 });
    // a base pose with curled fingers (as the first frame of a take may have)
    const rest = canonicalPose(sk);
    const curled = new FingerRig(sk, rest);
    curled.applyPreset('left', 'rock');
    curled.applyPreset('right', 'v');
    const base = Float64Array.from(sk.restRotations);
    curled.apply(base);
    const refFromFrame = canonicalPose(sk, { baseRotations: base });
    const out = new Float64Array(40);
    new FingerRig(sk, refFromFrame).measure(base, out);
    for (const v of out) expect(Math.abs(v)).toBeLessThan(1e-9); // relative to that frame: nothing
    new FingerRig(sk, withRestFingers(sk, refFromFrame)).measure(base, out);
    for (let m = 0; m < 20; m++) expect(out[m]).toBeCloseTo(curled.muscles[m], 6); // the curl is back
  });
});

describe('validation', () => {
  const { sk, rig } = setup();
  it('rejects out-of-range and non-numeric values naming the field', () => {
    expect(() => rig.setMuscle('left', 'index', 'curl1', 1.5)).toThrow(
      new FingerRigError('fingers.left.index.curl1: 1.5 is outside [-1, 1]'),
    );
    expect(() => rig.setSpread('right', 'little', Number.NaN)).toThrow('fingers.right.little.spread: NaN');
    expect(() => rig.setCurl('right', 'thumb', '0.5' as unknown as number)).toThrow(
      "fingers.right.thumb.curl: '0.5' is not a finite number",
    );
    const bad = new Array(20).fill(0);
    bad[13] = -1.01;
    expect(() => rig.setHandMuscles('left', bad)).toThrow(
      'fingers.left.ring.curl2: -1.01 is outside [-1, 1]',
    );
    expect(() => rig.setHandMuscles('left', [0, 0])).toThrow('expected 20 muscle values, got 2');
  });

  it('leaves the previous values in force after a rejected set', () => {
    rig.setHandMuscles('left', new Array(20).fill(0.25));
    const bad = new Array(20).fill(0.5);
    bad[19] = 2;
    expect(() => rig.setHandMuscles('left', bad)).toThrow(FingerRigError);
    expect(Array.from(rig.muscles.subarray(0, 20))).toEqual(new Array(20).fill(0.25));
  });

  it('rejects unknown names with the list of valid ones', () => {
    expect(() => rig.setMuscle('middle' as FingerHand, 'index', 'curl1', 0)).toThrow(
      "fingers: hand 'middle' is not one of 'left', 'right'",
    );
    expect(() => rig.setCurl('left', 'pinky' as FingerName, 0)).toThrow(
      "finger 'pinky' is not one of 'thumb', 'index', 'middle', 'ring', 'little'",
    );
    expect(() => rig.setMuscle('left', 'index', 'curl4' as 'curl1', 0)).toThrow("muscle 'curl4'");
    expect(() => rig.applyPreset('left', 'fist')).toThrow(
      "fingers: preset 'fist' is not one of 'rock', 'paper', 'scissors', 'v', 'index-point', 'reset'",
    );
    expect(() => rig.setMode('copy' as 'none')).toThrow("copy mode 'copy'");
    expect(() => rig.setEnabled('left', 1 as unknown as boolean)).toThrow(
      'fingers.left.enabled: 1 is not a boolean',
    );
  });

  it('rejects wrong array lengths and bad ranges', () => {
    expect(() => rig.apply(new Float64Array(8))).toThrow(
      `localRotations has length 8, expected ${4 * sk.boneCount}`,
    );
    expect(() => rig.measure(new Float64Array(4 * sk.boneCount), new Float64Array(3))).toThrow(
      'measure output has length 3',
    );
    const ref = canonicalPose(sk);
    expect(() => new FingerRig(sk, { ...ref, localRotations: new Float64Array(3) })).toThrow(
      'reference localRotations has length 3',
    );
    expect(() => new FingerRig(sk, ref, { rangesDeg: { index: { curl1: [10, 50] } } })).toThrow(
      'rangesDeg.index.curl1 [10, 50] needs min < 0 < max',
    );
  });
});

describe('per-frame calls allocate nothing', () => {
  it('apply, measure and update (muscleData, Float64 and Float32 source frames) in a plain Node process', () => {
    const sk = makeHands({ pose: 'A', scramble: 37 });
    const json = JSON.stringify({
      names: sk.names,
      parents: Array.from(sk.parents),
      restTranslations: Array.from(sk.restTranslations),
      restRotations: Array.from(sk.restRotations),
      humanoid: Array.from(sk.humanoid),
    });
    const r = runAllocProbe(`
      import { createSkeleton } from ${JSON.stringify(path.resolve(__dirname, '../src/core'))};
      import { canonicalPose } from ${JSON.stringify(path.resolve(__dirname, '../src/retarget'))};
      import { FingerRig } from ${JSON.stringify(path.resolve(__dirname, '../src/rig/fingers'))};
      const sk = createSkeleton(${json});
      const ref = canonicalPose(sk);
      const src = new FingerRig(sk, ref);
      const tgt = new FingerRig(sk, ref, { mode: 'muscleData' });
      src.applyPreset('left', 'rock');
      src.applyPreset('right', 'v');
      const srcLocal = Float64Array.from(ref.localRotations);
      src.apply(srcLocal);
      const local = Float64Array.from(ref.localRotations);
      const out = new Float32Array(40);
      result.apply = bytesPerCall(() => src.apply(local), 5000);
      result.measure = bytesPerCall(() => src.measure(srcLocal, out), 5000);
      result.update = bytesPerCall(() => tgt.update(local, src, srcLocal), 5000);
      // a clip frame as the source (Float32Array subarray, as clips store them)
      const clip32 = new Float32Array(srcLocal.length * 2);
      clip32.set(srcLocal, srcLocal.length);
      const frame32 = clip32.subarray(srcLocal.length);
      result.update32 = bytesPerCall(() => tgt.update(local, src, frame32), 5000);
    `);
    expect(r.apply).toBeLessThan(1);
    expect(r.measure).toBeLessThan(1);
    expect(r.update).toBeLessThan(1);
    expect(r.update32).toBeLessThan(1);
  });
});
