import * as path from 'node:path';
import fc from 'fast-check';
import { forwardKinematics, HumanBodyBones as H, readFrame } from '../src/core';
import { loadSource } from '../src/io/node';
import {
  closeness,
  createLimbWeightsInput,
  defaultLimbWeightSettings,
  HipsOutput,
  Limb,
  LimbCondition,
  LimbWeights,
  LimbWeightsError,
  type LimbWeightsInput,
  WeightJoint,
} from '../src/rig/limbWeights';
import { PropSystem, PropType, type PropWorld } from '../src/rig/props';
import { runAllocProbe } from './helpers/allocProbe';
import { dataPath, describeWithData } from './helpers/data';
import { makeHumanoid } from './helpers/humanoid';

/** A hand-built prop registry (the PropWorld the weights read). */
function propWorld(props: { type: number; at: number[]; attached?: number }[]): PropWorld {
  const n = props.length;
  const w = {
    count: n,
    types: new Uint8Array(n),
    positions: new Float64Array(3 * n),
    attachedPoint: new Int8Array(n).fill(-1),
  };
  props.forEach((p, i) => {
    w.types[i] = p.type;
    w.positions.set(p.at, 3 * i);
    w.attachedPoint[i] = p.attached ?? -1;
  });
  return w;
}

/** A standing pose: hands 1.2 m apart at shoulder height, ankles 0.1 m up, hips 0.95 m; floor 0. */
function standing(props: PropWorld | null = null, floor = 0): LimbWeightsInput {
  const input = createLimbWeightsInput(props);
  const j = input.joints;
  j.set([0.6, 1.4 + floor, 0], WeightJoint.LeftHand);
  j.set([-0.6, 1.4 + floor, 0], WeightJoint.RightHand);
  j.set([0.1, 0.1 + floor, 0], WeightJoint.LeftFoot);
  j.set([-0.1, 0.1 + floor, 0], WeightJoint.RightFoot);
  j.set([0, 0.95 + floor, 0], WeightJoint.Hips);
  input.floor[0] = floor;
  return input;
}

const near = (a: number, b: number, tol = 1e-12) => {
  if (!(Math.abs(a - b) <= tol)) throw new Error(`got ${a}, want ${b}`);
};

describe('limb weight conditions (known answers on the default ramps)', () => {
  it('ramp: 1 at near, 0 at far, linear between, NaN counts as far', () => {
    expect(closeness(0.12, 0.12, 0.3)).toBe(1);
    expect(closeness(0.3, 0.12, 0.3)).toBe(0);
    near(closeness(0.21, 0.12, 0.3), 0.5);
    expect(closeness(Number.NaN, 0.12, 0.3)).toBe(0);
    expect(closeness(0.2, 0.2, 0.2)).toBe(1); // a step when near == far
    expect(closeness(0.2000001, 0.2, 0.2)).toBe(0);
  });

  it('standing, nothing near: legs and hips on, arms off', () => {
    const lw = new LimbWeights();
    lw.snap(standing());
    expect(Array.from(lw.weights)).toEqual([0, 0, 1, 1, 1]);
    expect(Array.from(lw.hips)).toEqual([1, 0, 0]);
    expect(lw.nearestSlot[0]).toBe(-1);
    expect(lw.nearestDistance[2]).toBe(Number.POSITIVE_INFINITY);
  });

  it('arms: hands 0.21 m apart give 0.5 on both arms; a prop nearer one hand raises that arm (maximum)', () => {
    const lw = new LimbWeights();
    const input = standing(propWorld([{ type: PropType.Object, at: [0.15 + 0.15, 1.4, 0] }]));
    input.joints.set([0.15, 1.4, 0], WeightJoint.LeftHand);
    input.joints.set([-0.06, 1.4, 0], WeightJoint.RightHand);
    lw.snap(input);
    near(lw.conditions[LimbCondition.HandToHand], 0.5);
    near(lw.conditions[LimbCondition.LeftProp], (0.3 - 0.15) / 0.18);
    near(lw.conditions[LimbCondition.RightProp], 0); // 0.36 m from the right hand
    near(lw.weights[Limb.LeftArm], (0.3 - 0.15) / 0.18);
    near(lw.weights[Limb.RightArm], 0.5);
    expect(lw.nearestSlot[0]).toBe(0);
    near(lw.nearestDistance[0], 0.15);
  });

  it('arms: Object and Hand props count; Chair, None and props held in the same hand do not', () => {
    const at = [0.6, 1.4, 0.05]; // 5 cm from the left hand
    const cases: [number, number, number][] = [
      [PropType.Object, -1, 1],
      [PropType.Hand, -1, 1],
      [PropType.Chair, -1, 0],
      [PropType.None, -1, 0],
      [PropType.Object, 0, 0], // attached to the left hand itself
      [PropType.Object, 1, 1], // held in the right hand, touching the left: counts
      [PropType.Object, 2, 1], // on the head
    ];
    for (const [type, attached, want] of cases) {
      const lw = new LimbWeights();
      lw.snap(standing(propWorld([{ type, at, attached }])));
      expect([type, attached, lw.weights[Limb.LeftArm]]).toEqual([type, attached, want]);
      expect(lw.weights[Limb.RightArm]).toBe(0);
    }
  });

  it('arms forced off: target 0 whatever the conditions, weight falls at the smoothing speed', () => {
    const lw = new LimbWeights({ smoothingSpeed: 2 });
    const input = standing();
    input.joints.set([0.02, 1.4, 0], WeightJoint.LeftHand);
    input.joints.set([-0.02, 1.4, 0], WeightJoint.RightHand);
    lw.snap(input);
    expect(Array.from(lw.weights.subarray(0, 2))).toEqual([1, 1]);
    lw.configure({ leftArmForcedOff: true });
    lw.update(input, 0.125);
    expect(lw.targets[Limb.LeftArm]).toBe(0);
    expect(lw.weights[Limb.LeftArm]).toBe(0.75);
    expect(lw.weights[Limb.RightArm]).toBe(1);
    for (let i = 0; i < 3; i++) lw.update(input, 0.125);
    expect(lw.weights[Limb.LeftArm]).toBe(0);
    lw.configure({ leftArmForcedOff: false });
    lw.update(input, 0.125);
    expect(lw.weights[Limb.LeftArm]).toBe(0.25);
  });

  it('legs: foot height above the floor (a raised stage floor); minimum with the seated condition', () => {
    const lw = new LimbWeights();
    const input = standing(null, 0.5);
    input.joints[WeightJoint.LeftFoot + 1] = 0.5 + 0.325; // (0.45 - 0.325) / 0.25 = 0.5
    input.joints[WeightJoint.RightFoot + 1] = 0.5 + 0.6; // kicked up
    lw.snap(input);
    near(lw.conditions[LimbCondition.LeftFootHeight], 0.5);
    expect(lw.conditions[LimbCondition.RightFootHeight]).toBe(0);
    expect(lw.conditions[LimbCondition.LeftSeatedFoot]).toBe(1); // not seated
    near(lw.weights[Limb.LeftLeg], 0.5);
    expect(lw.weights[Limb.RightLeg]).toBe(0);
  });

  it('seated on a chair: tucked feet go to FK, feet out in front keep IK; hips correction off, seat offset on', () => {
    const lw = new LimbWeights({ chairSeatOffset: -0.04 });
    const input = standing(propWorld([{ type: PropType.Chair, at: [0, 0.5, 0] }]));
    input.joints.set([0, 0.5, 0], WeightJoint.Hips); // on the seat
    input.joints.set([0.1, 0.1, 0.25 * Math.cos(0.3) + 0], WeightJoint.LeftFoot);
    input.joints[WeightJoint.LeftFoot] = 0.25 * Math.sin(0.3);
    input.joints.set([-0.1, 0.1, 0.5], WeightJoint.RightFoot); // out in front
    lw.snap(input);
    near(lw.conditions[LimbCondition.LeftSeatedFoot], 1 - (0.35 - 0.25) / 0.2, 1e-12); // 0.25 m away: 0.5
    expect(lw.conditions[LimbCondition.RightSeatedFoot]).toBe(1);
    near(lw.weights[Limb.LeftLeg], 0.5);
    expect(lw.weights[Limb.RightLeg]).toBe(1);
    expect(lw.conditions[LimbCondition.Chair]).toBe(0);
    expect(lw.weights[Limb.Hips]).toBe(0);
    expect(Array.from(lw.hips)).toEqual([0, 1, -0.04]);
  });

  it('hips: a chair 0.4 m away and hips height 0.575 m combine by minimum', () => {
    const lw = new LimbWeights({ chairSeatOffset: 0.1 });
    const input = standing(propWorld([{ type: PropType.Chair, at: [0, 0.95, 0.4] }]));
    lw.snap(input);
    near(lw.conditions[LimbCondition.Chair], 0.5);
    near(lw.weights[Limb.Hips], 0.5);
    near(lw.hips[HipsOutput.Seat], 0.5);
    near(lw.hips[HipsOutput.SeatOffset], 0.05);
    input.joints[WeightJoint.Hips + 1] = 0.575; // (0.75 - 0.575) / 0.35 = 0.5 closeness
    input.props = null;
    lw.snap(input);
    near(lw.conditions[LimbCondition.HipsHeight], 0.5);
    near(lw.weights[Limb.Hips], 0.5);
    expect(lw.hips[HipsOutput.Seat]).toBe(0);
  });

  it('body scale: a half-size avatar standing reads as standing; every distance is divided by the scale', () => {
    // the standing pose at half size: hips 0.475 m, ankles 0.05 m, hands 0.6 m apart
    const half = standing();
    for (let i = 0; i < 15; i++) half.joints[i] *= 0.5;
    const lw = new LimbWeights();
    lw.snap(half); // read as a performer: hips 0.475 m is a deep crouch
    near(lw.weights[Limb.Hips], 1 - (0.75 - 0.475) / 0.35);
    half.scale![0] = 0.5;
    lw.snap(half);
    expect(Array.from(lw.weights)).toEqual([0, 0, 1, 1, 1]);
    // known answers at scale 0.5: hips 0.2875 m -> 0.575 m (closeness 0.5), hands 0.105 m apart -> 0.21 m (0.5),
    // an ankle 0.1625 m up -> 0.325 m (0.5), a chair 0.2 m from the hips -> 0.4 m (0.5)
    half.joints[WeightJoint.Hips + 1] = 0.2875;
    half.joints.set([0.0525, 0.7, 0], WeightJoint.LeftHand);
    half.joints.set([-0.0525, 0.7, 0], WeightJoint.RightHand);
    half.joints[WeightJoint.LeftFoot + 1] = 0.1625;
    lw.snap(half);
    near(lw.conditions[LimbCondition.HipsHeight], 0.5);
    near(lw.conditions[LimbCondition.HandToHand], 0.5);
    near(lw.conditions[LimbCondition.LeftFootHeight], 0.5);
    half.props = propWorld([{ type: PropType.Chair, at: [0, 0.2875, 0.2] }]);
    lw.snap(half);
    near(lw.hips[HipsOutput.Seat], 0.5);
    near(lw.nearestDistance[2], 0.2); // reported in metres, unscaled
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      half.scale![0] = bad;
      expect(() => lw.update(half, 0.01)).toThrow(`update: input.scale[0] is ${bad}: need the body scale`);
    }
  });

  it('a carried chair (attached) is no seat', () => {
    const lw = new LimbWeights();
    lw.snap(standing(propWorld([{ type: PropType.Chair, at: [0, 0.95, 0], attached: 1 }])));
    expect(lw.weights[Limb.Hips]).toBe(1);
    expect(lw.nearestSlot[2]).toBe(-1);
  });

  it('reads a PropSystem: another avatar hand registered as a Hand prop, moved by the host', () => {
    const props = new PropSystem(makeHumanoid());
    const slot = props.add('bob.rightHand', 'Hand', [5, 1.4, 0]);
    const lw = new LimbWeights();
    const input = standing(props);
    lw.snap(input);
    expect(lw.weights[Limb.LeftArm]).toBe(0);
    props.positions.set([0.6, 1.4, 0.1], 3 * slot); // high five
    lw.snap(input);
    expect(lw.weights[Limb.LeftArm]).toBe(1);
    expect(lw.nearestSlot[0]).toBe(slot);
  });
});

describe('limb weight smoothing', () => {
  it('moves by exactly speed * dt per frame until it reaches the target (known answer)', () => {
    const lw = new LimbWeights({ smoothingSpeed: 4 });
    const input = standing();
    input.joints.set([0.03, 1.4, 0], WeightJoint.LeftHand);
    input.joints.set([-0.03, 1.4, 0], WeightJoint.RightHand);
    const dt = 1 / 60;
    const seen: number[] = [];
    for (let f = 0; f < 16; f++) {
      lw.update(input, dt);
      seen.push(lw.weights[Limb.LeftArm]);
    }
    for (let f = 0; f < 14; f++) near(seen[f], Math.min(1, ((f + 1) * 4) / 60), 1e-12);
    expect(seen[15]).toBe(1); // reached exactly, no creeping
    // legs and hips started at 0 too and rose at the same rate
    near(lw.weights[Limb.LeftLeg], 1);
    lw.update(input, 0); // dt 0: holds
    expect(lw.weights[Limb.LeftArm]).toBe(1);
  });

  it('no weight ever jumps by more than speed * dt; weights stay in [0, 1] (property)', () => {
    const coord = fc.oneof(
      { weight: 20, arbitrary: fc.double({ min: -2, max: 2, noNaN: true }) },
      { weight: 1, arbitrary: fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -1e300) },
    );
    const frame = fc.record({
      joints: fc.array(coord, { minLength: 15, maxLength: 15 }),
      floor: fc.double({ min: -1, max: 1, noNaN: true }),
      props: fc.array(
        fc.record({
          type: fc.integer({ min: 0, max: 3 }),
          at: fc.array(fc.double({ min: -2, max: 2, noNaN: true }), { minLength: 3, maxLength: 3 }),
          attached: fc.integer({ min: -1, max: 2 }),
        }),
        { maxLength: 5 },
      ),
      dt: fc.oneof(fc.double({ min: 0, max: 0.2, noNaN: true }), fc.constantFrom(0, 1 / 120, 1 / 30, 2)),
      forceLeft: fc.boolean(),
      forceRight: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 50, noNaN: true }),
        fc.double({ min: -0.3, max: 0.3, noNaN: true }),
        fc.array(frame, { minLength: 1, maxLength: 40 }),
        (speed, seatOffset, frames) => {
          const lw = new LimbWeights({ smoothingSpeed: speed, chairSeatOffset: seatOffset });
          const before = new Float64Array(5);
          for (const f of frames) {
            lw.configure({ leftArmForcedOff: f.forceLeft, rightArmForcedOff: f.forceRight });
            const input = createLimbWeightsInput(propWorld(f.props));
            input.joints.set(f.joints);
            input.floor[0] = f.floor;
            before.set(lw.weights);
            const seatBefore = lw.hips[HipsOutput.Seat];
            lw.update(input, f.dt);
            const step = speed * f.dt;
            for (let k = 0; k < 5; k++) {
              const w = lw.weights[k];
              if (!(w >= 0 && w <= 1)) throw new Error(`weight ${k} = ${w}`);
              if (!(Math.abs(w - before[k]) <= step * (1 + 1e-12) + 1e-15)) {
                throw new Error(`weight ${k} jumped ${w - before[k]} > ${step}`);
              }
              const t = lw.targets[k];
              if (!(t >= 0 && t <= 1)) throw new Error(`target ${k} = ${t}`);
            }
            if (f.forceLeft) expect(lw.targets[Limb.LeftArm]).toBe(0);
            if (f.forceRight) expect(lw.targets[Limb.RightArm]).toBe(0);
            expect(Math.abs(lw.hips[HipsOutput.Seat] - seatBefore)).toBeLessThanOrEqual(
              step * (1 + 1e-12) + 1e-15,
            );
            expect(lw.hips[HipsOutput.Correction]).toBe(lw.weights[Limb.Hips]);
            expect(lw.hips[HipsOutput.SeatOffset]).toBe(lw.hips[HipsOutput.Seat] * seatOffset);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('snap sets weights to targets; reset zeroes them', () => {
    const lw = new LimbWeights();
    lw.snap(standing());
    expect(Array.from(lw.weights)).toEqual(Array.from(lw.targets));
    lw.reset();
    expect(Array.from(lw.weights)).toEqual([0, 0, 0, 0, 0]);
    expect(Array.from(lw.hips)).toEqual([0, 0, 0]);
  });
});

describe('limb weight errors name the field', () => {
  it.each([
    [{ smoothingSpeed: 0 }, /settings\.smoothingSpeed: 0 \(number\); need a number > 0/],
    [{ smoothingSpeed: Number.NaN }, /settings\.smoothingSpeed: NaN/],
    [
      { handToHand: { near: 0.3, far: 0.1 } },
      /settings\.handToHand\.far: 0\.1 \(number\); need a finite number of metres >= near \(0\.3\)/,
    ],
    [{ footHeight: { near: -0.1, far: 0.3 } }, /settings\.footHeight\.near: -0\.1/],
    [{ chairDistance: null as never }, /settings\.chairDistance: null/],
    [{ chairSeatOffset: Number.POSITIVE_INFINITY }, /settings\.chairSeatOffset: Infinity/],
    [{ leftArmForcedOff: 1 as never }, /settings\.leftArmForcedOff: 1 \(number\); need true or false/],
  ])('%j', (bad, message) => {
    expect(() => new LimbWeights(bad)).toThrow(LimbWeightsError);
    expect(() => new LimbWeights(bad)).toThrow(message);
    const lw = new LimbWeights();
    expect(() => lw.configure(bad)).toThrow(message);
    expect(lw.settings).toEqual(defaultLimbWeightSettings()); // unchanged
  });

  it('update: bad dt and short arrays', () => {
    const lw = new LimbWeights();
    for (const dt of [-0.01, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => lw.update(standing(), dt)).toThrow(
        `update: dt ${dt}: need a finite number of seconds >= 0`,
      );
    }
    expect(() =>
      lw.update({ joints: new Float64Array(12), floor: new Float64Array(1), props: null }, 0.01),
    ).toThrow(/input\.joints: need a Float64Array\(15\), got length 12/);
    expect(() =>
      lw.update({ joints: new Float64Array(15), floor: new Float64Array(0), props: null }, 0.01),
    ).toThrow(/input\.floor/);
  });

  it('settings cannot bypass validation: ramps are copied, the settings in force are frozen', () => {
    const ramp = { near: 0.1, far: 0.2 };
    const lw = new LimbWeights({ handToHand: ramp });
    ramp.far = -1;
    expect(lw.settings.handToHand).toEqual({ near: 0.1, far: 0.2 });
    expect(() => {
      (lw.settings as { smoothingSpeed: number }).smoothingSpeed = -1;
    }).toThrow(TypeError);
    expect(() => {
      (lw.settings.footHeight as { far: number }).far = -1;
    }).toThrow(TypeError);
  });
});

describe('limb weight performance', () => {
  it('allocates nothing per update with a prop registry (measured in a plain Node process)', () => {
    const root = path.resolve(__dirname, '..');
    const r = runAllocProbe(`
      import { LimbWeights, createLimbWeightsInput } from ${JSON.stringify(path.join(root, 'src/rig/limbWeights'))};
      import { PropSystem } from ${JSON.stringify(path.join(root, 'src/rig/props'))};
      import { makeHumanoid } from ${JSON.stringify(path.join(root, 'test/helpers/humanoid'))};
      const props = new PropSystem(makeHumanoid());
      for (let i = 0; i < 8; i++) props.add('p' + i, i % 3 === 0 ? 'Chair' : i % 3 === 1 ? 'Object' : 'Hand', [i * 0.1, 0.9, 0.05 * i]);
      props.attach('p1', 'LeftHand');
      const input = createLimbWeightsInput(props);
      input.joints.set([0.3, 1.2, 0.1, -0.2, 1.1, 0, 0.1, 0.2, 0, -0.1, 0.3, 0.2, 0, 0.7, 0.1]);
      input.floor[0] = 0.01;
      const lw = new LimbWeights({ chairSeatOffset: -0.03 });
      const dt = 1 / 90;
      let flip = 0;
      result.update = bytesPerCall(() => {
        input.joints[13] = (flip++ & 63) * 0.015; // hips moving so the weights keep changing
        lw.update(input, dt);
      });
      let sink = input.joints;
      result.control = bytesPerCall(() => { sink = new Float64Array(sink); });
    `);
    expect(r.update).toBeLessThan(1);
    expect(r.control).toBeGreaterThanOrEqual(16);
  });
});

/** World positions of the weight joints of every frame of a source clip (metres, Y up). */
async function takeJoints(file: string, clipName?: string) {
  const { clip } = await loadSource(dataPath(file), { clipName });
  const s = clip.skeleton;
  const n = s.boneCount;
  const lr = new Float64Array(4 * n);
  const lp = new Float64Array(3 * n);
  const wr = new Float64Array(4 * n);
  const wp = new Float64Array(3 * n);
  const frames: Float64Array[] = [];
  for (let f = 0; f < clip.frameCount; f++) {
    readFrame(clip, f, lr, lp);
    forwardKinematics(s, lr, lp, wr, wp);
    const j = new Float64Array(15);
    [H.LeftHand, H.RightHand, H.LeftFoot, H.RightFoot, H.Hips].forEach((h, k) => {
      j.set(wp.subarray(3 * s.humanoid[h], 3 * s.humanoid[h] + 3), 3 * k);
    });
    frames.push(j);
  }
  return { frames, dt: clip.frameTime };
}

/** Run the weights over the frames; checks the smoothing bound on every frame. Returns weights per frame. */
function run(lw: LimbWeights, input: LimbWeightsInput, frames: Float64Array[], dt: number) {
  const out: { w: number[]; t: number[]; hips: number[] }[] = [];
  const step = lw.settings.smoothingSpeed * dt;
  let prev = Array.from(lw.weights);
  for (const j of frames) {
    input.joints.set(j);
    lw.update(input, dt);
    const w = Array.from(lw.weights);
    for (let k = 0; k < 5; k++) {
      expect(Number.isFinite(w[k])).toBe(true);
      expect(Math.abs(w[k] - prev[k])).toBeLessThanOrEqual(step + 1e-12);
    }
    prev = w;
    out.push({ w, t: Array.from(lw.targets), hips: Array.from(lw.hips) });
  }
  return out;
}

describeWithData('limb weights on real takes', () => {
  it('walk (Bandai): arms stay FK, legs stay in IK, hips correction stays full', async () => {
    const { frames, dt } = await takeJoints('bandai-namco-motiondataset/dataset-1_walk_normal_001.bvh');
    const lw = new LimbWeights();
    const input = createLimbWeightsInput();
    input.joints.set(frames[0]);
    lw.snap(input);
    const rows = run(lw, input, frames, dt);
    const legs = rows.map((r) => Math.min(r.w[Limb.LeftLeg], r.w[Limb.RightLeg]));
    expect(Math.max(...rows.map((r) => Math.max(r.w[Limb.LeftArm], r.w[Limb.RightArm])))).toBe(0);
    expect(Math.min(...legs)).toBeGreaterThan(0.7); // the swinging ankle rises ~12 cm
    expect(legs.filter((w) => w === 1).length).toBeGreaterThan(frames.length / 3); // both feet planted
    expect(Math.min(...rows.map((r) => r.w[Limb.Hips]))).toBe(1);
  });

  it('dance (Bandai, 1901 frames): claps turn the arms to IK and back, floor work turns the hips correction off', async () => {
    const { frames, dt } = await takeJoints(
      'bandai-namco-motiondataset/dataset-1_dance-short_normal_001.bvh',
    );
    const lw = new LimbWeights();
    const rows = run(lw, createLimbWeightsInput(), frames, dt);
    const handsTogether = frames.map((j) => Math.hypot(j[0] - j[3], j[1] - j[4], j[2] - j[5]) < 0.12);
    expect(handsTogether.some(Boolean)).toBe(true);
    rows.forEach((r, f) => {
      if (handsTogether[f]) expect(r.t[Limb.LeftArm]).toBe(1);
    });
    expect(Math.max(...rows.map((r) => r.w[Limb.LeftArm]))).toBeGreaterThan(0.5);
    expect(rows[rows.length - 1].w[Limb.LeftArm]).toBeLessThan(0.5);
    expect(Math.min(...rows.map((r) => r.w[Limb.Hips]))).toBe(0); // hips down to 0.31 m
    expect(Math.max(...rows.map((r) => r.w[Limb.Hips]))).toBe(1);
    const kicks = frames.filter((j) => j[7] > 0.45 || j[10] > 0.45).length;
    expect(kicks).toBeGreaterThan(0);
    expect(Math.min(...rows.map((r) => Math.min(r.t[Limb.LeftLeg], r.t[Limb.RightLeg])))).toBe(0);
  });

  it('sitting (RobotExpressive "Sitting", chair at the seat): hips go onto the seat, feet stay in IK', async () => {
    const { frames, dt } = await takeJoints('threejs/RobotExpressive/RobotExpressive.glb', 'Sitting');
    const last = frames[frames.length - 1];
    // the performer stays seated for 1 s after the clip's 11 frames
    const held = [...frames, ...Array.from({ length: Math.round(1 / dt) }, () => last)];
    const props = new PropSystem(makeHumanoid());
    props.add('chair', 'Chair', [last[12], last[13], last[14]]); // the seat point under the seated hips
    const lw = new LimbWeights({ chairSeatOffset: -0.05 });
    const input = createLimbWeightsInput(props);
    input.joints.set(frames[0]);
    lw.snap(input);
    expect(lw.hips[HipsOutput.Seat]).toBe(0); // standing 0.8 m from the seat
    const rows = run(lw, input, held, dt);
    const end = rows[rows.length - 1];
    expect(end.hips).toEqual([0, 1, -0.05]); // correction off, fully seated, seat offset applied
    // smooth: the seat offset never moves by more than speed * dt * |offset| in a frame
    for (let f = 1; f < rows.length; f++) {
      expect(Math.abs(rows[f].hips[2] - rows[f - 1].hips[2])).toBeLessThanOrEqual(4 * dt * 0.05 + 1e-12);
    }
    // the robot's feet stay planted in front of the chair: legs never leave IK (no snapping)
    expect(Math.min(...rows.map((r) => Math.min(r.w[Limb.LeftLeg], r.w[Limb.RightLeg])))).toBe(1);
  });
});
