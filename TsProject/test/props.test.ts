import * as path from 'node:path';
import fc from 'fast-check';
import { quat, vec3 } from 'gl-matrix';
import {
  createSkeleton,
  forwardKinematics,
  HumanBodyBones as H,
  quat64,
  readQuat,
  readVec3,
  type Skeleton,
  vec64,
} from '../src/core';
import { loadAvatar } from '../src/io/node';
import { canonicalPose } from '../src/retarget/referencePose';
import {
  DEFAULT_PROP_POINT_OFFSETS,
  PROP_POINT_NAMES,
  PropError,
  PropSystem,
  PropType,
} from '../src/rig/props';
import { runAllocProbe } from './helpers/allocProbe';
import { AVATARS, dataPath, describeWithData } from './helpers/data';
import { makeHumanoid } from './helpers/humanoid';

/** World rotations/positions of a skeleton with its reference-pose locals, `changes` applied (bone -> local rotation). */
function posed(s: Skeleton, local: Float64Array, changes: [number, ArrayLike<number>][] = []) {
  const l = Float64Array.from(local);
  for (const [b, q] of changes) l.set(q, 4 * b);
  const W = new Float64Array(4 * s.boneCount);
  const P = new Float64Array(3 * s.boneCount);
  forwardKinematics(s, l, s.restTranslations, W, P);
  return { W, P };
}

const vecAt = (a: ArrayLike<number>, i: number) => Array.from(readVec3(vec64(), a, i));
const quatAt = (a: ArrayLike<number>, i: number) => Array.from(readQuat(quat64(), a, i));

function expectClose(got: ArrayLike<number>, want: ArrayLike<number>, tol = 1e-12) {
  expect(got.length).toBe(want.length);
  for (let k = 0; k < want.length; k++) {
    if (!(Math.abs(got[k] - want[k]) <= tol)) {
      throw new Error(`component ${k}: got ${Array.from(got)}, want ${Array.from(want)} (tol ${tol})`);
    }
  }
}

/** Same rotation (q or -q). */
function expectSameRotation(got: ArrayLike<number>, want: ArrayLike<number>, tol = 1e-12) {
  const d = Math.abs(got[0] * want[0] + got[1] * want[1] + got[2] * want[2] + got[3] * want[3]);
  if (!(1 - d <= tol)) throw new Error(`rotation ${Array.from(got)} differs from ${Array.from(want)}`);
}

/** The test humanoid turned to face -Z (a half turn about Y on its root): same body, other world axes. */
function facingBack(): Skeleton {
  const s = makeHumanoid();
  const rot = Float64Array.from(s.restRotations);
  rot.set([0, 1, 0, 0], 0);
  return createSkeleton({ ...s, restRotations: rot });
}

// makeHumanoid(): hips (0, 1, 0); spine 0.1 + 0.15 + 0.15 -> top at y 1.4; shoulder (+-0.05, +0.1);
// upper arm +-0.1 -> (+-0.15, 1.5, 0); forearm 0.28, hand 0.25 -> hands at (+-0.68, 1.5, 0);
// neck 0.12, head 0.1 -> head at (0, 1.62, 0).
const T_HAND_L = [0.68, 1.5, 0];
const T_POINTS = {
  LeftHand: [0.68 + 0.039, 1.5 - 0.022, 0],
  RightHand: [-0.68 - 0.039, 1.5 - 0.022, 0],
  Head: [0, 1.62 + 0.16, 0],
};

describe('prop attachment points', () => {
  it.each([
    ['T-pose rig', () => makeHumanoid()],
    ['A-pose rig', () => makeHumanoid({ pose: 'A' })],
    ['rig with rolled bone frames', () => makeHumanoid({ twistRest: 0.7 })],
    ['rig facing -Z', facingBack],
  ])('sit at the known places in the T-pose, with character axes (%s)', (_name, make) => {
    const s = make();
    const ref = canonicalPose(s);
    const props = new PropSystem(s, { reference: ref });
    props.update(ref.world.rotations, ref.world.positions);
    PROP_POINT_NAMES.forEach((name, k) => {
      expectClose(vecAt(props.pointPositions, k), T_POINTS[name], 1e-9);
      expectSameRotation(quatAt(props.pointRotations, k), [0, 0, 0, 1], 1e-12);
    });
    expectClose(vecAt(ref.world.positions, s.humanoid[H.LeftHand]), T_HAND_L, 1e-9);
  });

  it('default offsets are the issue values mirrored at X (Unity left-handed -> internal frame)', () => {
    // issue (Unity frame, +X = character's right): left (-0.039, -0.022, 0), right (0.039, -0.022, 0)
    expect(DEFAULT_PROP_POINT_OFFSETS.LeftHand).toEqual([0.039, -0.022, 0]);
    expect(DEFAULT_PROP_POINT_OFFSETS.RightHand).toEqual([-0.039, -0.022, 0]);
    expect(DEFAULT_PROP_POINT_OFFSETS.Head).toEqual([0, 0.16, 0]);
    // so the hand points are in the palm: farther from the elbow than the wrist is
    const s = makeHumanoid();
    const props = new PropSystem(s);
    const ref = canonicalPose(s);
    for (const [k, side] of [
      [0, 'Left'],
      [1, 'Right'],
    ] as const) {
      const elbow = readVec3(vec64(), ref.world.positions, s.humanoid[H[`${side}LowerArm`]]);
      const wrist = readVec3(vec64(), ref.world.positions, s.humanoid[H[`${side}Hand`]]);
      const point = readVec3(vec64(), props.pointPositions, k);
      expect(vec3.dist(point, elbow)).toBeGreaterThan(vec3.dist(wrist, elbow) + 0.035);
    }
  });

  it('follow the hand: arm lowered 90 degrees (known answer)', () => {
    const s = makeHumanoid();
    const ref = canonicalPose(s);
    const props = new PropSystem(s, { reference: ref });
    // left upper arm turned -90 degrees about +Z: +X (out) -> -Y (down)
    const down = quat.setAxisAngle(quat64(), [0, 0, 1], -Math.PI / 2);
    const { W, P } = posed(s, ref.localRotations, [[s.humanoid[H.LeftUpperArm], down]]);
    props.update(W, P);
    // hand at (0.15, 1.5 - 0.53, 0); offset (0.039, -0.022, 0) turned: (-0.022, -0.039, 0)
    expectClose(vecAt(props.pointPositions, 0), [0.15 - 0.022, 0.97 - 0.039, 0], 1e-12);
    expectSameRotation(quatAt(props.pointRotations, 0), down, 1e-12);
    // the right hand and head points did not move
    expectClose(vecAt(props.pointPositions, 1), T_POINTS.RightHand, 1e-12);
    expectClose(vecAt(props.pointPositions, 2), T_POINTS.Head, 1e-12);
  });

  it('scale multiplies the offsets (a point is a child of its bone)', () => {
    const s = makeHumanoid();
    const ref = canonicalPose(s);
    const props = new PropSystem(s, { reference: ref });
    props.scale = 2;
    props.update(ref.world.rotations, ref.world.positions);
    expectClose(vecAt(props.pointPositions, 0), [0.68 + 0.078, 1.5 - 0.044, 0], 1e-12);
    expectClose(vecAt(props.pointPositions, 2), [0, 1.62 + 0.32, 0], 1e-12);
  });

  it('custom offsets are in character axes whatever the bone frames', () => {
    for (const s of [makeHumanoid(), makeHumanoid({ twistRest: -1.1 }), facingBack()]) {
      const ref = canonicalPose(s);
      const props = new PropSystem(s, { reference: ref, offsets: { Head: [0.01, 0.02, 0.1] } });
      expectClose(vecAt(props.pointPositions, 2), [0.01, 1.64, 0.1], 1e-9);
    }
  });
});

describe('attached props', () => {
  const s = makeHumanoid({ twistRest: 0.4 });
  const ref = canonicalPose(s);
  const hand = s.humanoid[H.LeftHand];

  it('an attached prop follows the hand (known answer) and a detached one stays put', () => {
    const props = new PropSystem(s, { reference: ref });
    props.add('cup', 'Object', [5, 0, 5]);
    const turn = quat.setAxisAngle(quat64(), [0, 1, 0], 0.3);
    props.attach('cup', 'LeftHand', { position: [0.01, 0, 0.02], rotation: turn });
    // attached at once: T-pose point + offset in character axes
    expectClose(props.get('cup').position, [0.719 + 0.01, 1.478, 0.02], 1e-9);
    expectSameRotation(props.get('cup').rotation, turn, 1e-12);
    const down = quat.setAxisAngle(quat64(), [0, 0, 1], -Math.PI / 2);
    const la = s.humanoid[H.LeftUpperArm];
    const local = Float64Array.from(ref.localRotations);
    // apply the world turn `down` to the upper arm: local' = down * local (its parent chain is upright)
    const parentW = readQuat(quat64(), ref.world.rotations, s.parents[la]);
    const lw = quat.multiply(quat64(), down, readQuat(quat64(), ref.world.rotations, la));
    quat.multiply(lw, quat.invert(quat64(), parentW), lw);
    const { W, P } = posed(s, local, [[la, lw]]);
    props.update(W, P);
    // offset (0.049, -0.022, 0.02) from the hand turned -90 deg about Z: (-0.022, -0.049, 0.02)
    expectClose(props.get('cup').position, [0.15 - 0.022, 0.97 - 0.049, 0.02], 1e-9);
    expectSameRotation(props.get('cup').rotation, quat.multiply(quat64(), down, turn), 1e-12);
    props.detach('cup');
    const { W: W0, P: P0 } = posed(s, ref.localRotations);
    props.update(W0, P0);
    expectClose(props.get('cup').position, [0.128, 0.921, 0.02], 1e-9);
    expect(props.get('cup').attachedTo).toBeNull();
  });

  it('keeps a constant transform relative to the hand bone over random poses (property)', () => {
    const props = new PropSystem(s, { reference: ref });
    props.add('a', 'Object', [0.3, 1.2, 0.4], quat.setAxisAngle(quat64(), [1, 0, 0], 1));
    props.attach('a', 'LeftHand', { keepWorld: true });
    props.add('b', 'Object');
    props.attach('b', 'LeftHand', { position: [0.02, -0.01, 0.05], rotation: [0, 0, 0.6, 0.8] });
    // keepWorld: no jump at attach time
    expectClose(props.get('a').position, [0.3, 1.2, 0.4], 1e-12);
    const rel = (W: Float64Array, P: Float64Array, slot: number) => {
      const inv = quat.invert(quat64(), readQuat(quat64(), W, hand));
      const d = vec3.sub(vec64(), readVec3(vec64(), props.positions, slot), readVec3(vec64(), P, hand));
      return {
        p: Array.from(vec3.transformQuat(d, d, inv)),
        q: Array.from(quat.multiply(quat64(), inv, readQuat(quat64(), props.rotations, slot))),
      };
    };
    const rest = posed(s, ref.localRotations);
    props.update(rest.W, rest.P);
    const want = [rel(rest.W, rest.P, 0), rel(rest.W, rest.P, 1)];
    const arm = [H.Spine, H.Chest, H.LeftShoulder, H.LeftUpperArm, H.LeftLowerArm, H.LeftHand].map(
      (h) => s.humanoid[h],
    );
    const unitQuat = fc
      .tuple(
        fc.double({ min: -1, max: 1, noNaN: true }),
        fc.double({ min: -1, max: 1, noNaN: true }),
        fc.double({ min: -1, max: 1, noNaN: true }),
      )
      .map(([x, y, z]) => {
        const q = quat64(x, y, z, 1);
        return quat.normalize(q, q);
      });
    fc.assert(
      fc.property(fc.array(unitQuat, { minLength: arm.length, maxLength: arm.length }), (qs) => {
        const { W, P } = posed(
          s,
          ref.localRotations,
          arm.map((b, i) => [b, qs[i]]),
        );
        props.update(W, P);
        for (const slot of [0, 1]) {
          const got = rel(W, P, slot);
          expectClose(got.p, want[slot].p, 1e-12);
          expectSameRotation(got.q, want[slot].q, 1e-12);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('attach, re-attach, detach, list and remove', () => {
    const props = new PropSystem(s, { reference: ref, capacity: 4 });
    expect(props.add('sword', 'Object')).toBe(0);
    expect(props.add('hat', 'Object')).toBe(1);
    expect(props.add('chair', 'Chair', [0, 0.45, -0.3])).toBe(2);
    expect(props.add('bob.hand', 'Hand')).toBe(3);
    props.attach('sword', 'RightHand');
    props.attach('hat', 'Head');
    expect(props.propsAt('RightHand')).toEqual(['sword']);
    expect(props.propsAt('Head')).toEqual(['hat']);
    expect(props.propsAt('LeftHand')).toEqual([]);
    props.attach('sword', 'LeftHand'); // moves it
    expect(props.propsAt('RightHand')).toEqual([]);
    expect(props.propsAt('LeftHand')).toEqual(['sword']);
    expect(props.attachedPoint[0]).toBe(0);
    expect(props.list().map((p) => [p.id, p.type, p.slot, p.attachedTo])).toEqual([
      ['sword', 'Object', 0, 'LeftHand'],
      ['hat', 'Object', 1, 'Head'],
      ['chair', 'Chair', 2, null],
      ['bob.hand', 'Hand', 3, null],
    ]);
    props.detach('hat');
    expect(props.propsAt('Head')).toEqual([]);
    props.remove('sword');
    expect(props.has('sword')).toBe(false);
    expect(props.types[0]).toBe(PropType.None);
    expect(props.attachedPoint[0]).toBe(-1);
    expect(props.add('cup', 'Object')).toBe(0); // slot reused
    props.remove('bob.hand');
    expect(props.count).toBe(3);
    props.remove('chair');
    expect(props.count).toBe(2);
    props.setType('cup', 'Chair');
    expect(props.get('cup').type).toBe('Chair');
    props.setTransform('hat', [1, 2, 3], [0, 0, 1, 0]);
    expect(props.get('hat').position).toEqual([1, 2, 3]);
    expect(props.get('hat').rotation).toEqual([0, 0, 1, 0]);
    // the host moves a free prop by writing at its slot; update leaves free props alone
    const slot = props.slotOf('hat');
    props.positions[3 * slot] = 7;
    props.update(ref.world.rotations, ref.world.positions);
    expect(props.get('hat').position).toEqual([7, 2, 3]);
  });
});

describe('prop errors name the call, the field and the value', () => {
  const s = makeHumanoid();
  const make = () => {
    const p = new PropSystem(s, { capacity: 2 });
    p.add('cup', 'Object');
    return p;
  };
  it.each([
    [
      'unknown id',
      (p: PropSystem) => p.attach('mug', 'LeftHand'),
      /attach: no prop with id 'mug' \(registered: cup\)/,
    ],
    [
      'empty id',
      (p: PropSystem) => p.add('', 'Object'),
      /add: id: need a non-empty string, got an empty string/,
    ],
    ['non-string id', (p: PropSystem) => p.add(5 as unknown as string, 'Object'), /add: id: .*number 5/],
    ['duplicate id', (p: PropSystem) => p.add('cup', 'Object'), /add: prop id 'cup' is already registered/],
    [
      'unknown type',
      (p: PropSystem) => p.add('t', 'Table' as never),
      /add 't': type: 'Table' is not a prop type \(None, Object, Chair, Hand\)/,
    ],
    [
      'unknown point',
      (p: PropSystem) => p.attach('cup', 'Foot' as never),
      /attach 'cup': point: 'Foot' is not an attachment point \(LeftHand, RightHand, Head\)/,
    ],
    [
      'unknown point in propsAt',
      (p: PropSystem) => p.propsAt('leftHand' as never),
      /propsAt: point: 'leftHand'/,
    ],
    [
      'NaN position',
      (p: PropSystem) => p.add('t', 'Object', [0, Number.NaN, 0]),
      /add 't': position\[1\]: need a finite number \(metres\), got number NaN/,
    ],
    [
      'short position',
      (p: PropSystem) => p.add('t', 'Object', [0, 0]),
      /add 't': position: need 3 finite numbers/,
    ],
    [
      'zero rotation',
      (p: PropSystem) => p.add('t', 'Object', [0, 0, 0], [0, 0, 0, 0]),
      /rotation: the quaternion has zero length/,
    ],
    ['detach free prop', (p: PropSystem) => p.detach('cup'), /detach: prop 'cup' is not attached/],
    [
      'setTransform attached',
      (p: PropSystem) => {
        p.attach('cup', 'Head');
        p.setTransform('cup', [0, 0, 0]);
      },
      /setTransform 'cup': the prop is attached to Head/,
    ],
    [
      'keepWorld with an offset',
      (p: PropSystem) => p.attach('cup', 'Head', { keepWorld: true, position: [0, 0, 0] }),
      /either keepWorld or a local position/,
    ],
    [
      'full registry',
      (p: PropSystem) => {
        p.add('a', 'Object');
        p.add('b', 'Object');
      },
      /add 'b': the registry is full \(capacity 2\)/,
    ],
    ['remove unknown', (p: PropSystem) => p.remove('x'), /remove: no prop with id 'x'/],
    [
      'short W',
      (p: PropSystem) => p.update(new Float64Array(8), new Float64Array(3 * s.boneCount)),
      /update: W has length 8, need/,
    ],
    [
      'short P',
      (p: PropSystem) => p.update(new Float64Array(4 * s.boneCount), []),
      /update: P has length 0, need/,
    ],
  ])('%s', (_name, call, message) => {
    const p = make();
    expect(() => call(p)).toThrow(PropError);
    expect(() => call(make())).toThrow(message);
  });

  it('construction: missing bone, I-pose reference, bad offsets, bad capacity', () => {
    const noHead = createSkeleton({
      ...s,
      humanoid: Array.from(s.humanoid, (b, h) => (h === H.Head ? -1 : b)),
    });
    expect(() => new PropSystem(noHead, { reference: canonicalPose(s) })).toThrow(
      /attachment point Head: the skeleton does not map the humanoid bone Head/,
    );
    expect(() => new PropSystem(s, { reference: canonicalPose(s, { kind: 'I' }) })).toThrow(
      /reference: need the T-pose \(kind 'T'\), got kind 'I'/,
    );
    expect(() => new PropSystem(s, { offsets: { Hat: [0, 0, 0] } as never })).toThrow(
      /offsets\.Hat: not an attachment point/,
    );
    expect(() => new PropSystem(s, { offsets: { Head: [0, Number.POSITIVE_INFINITY, 0] } })).toThrow(
      /offsets\.Head\[1\]: need a finite number/,
    );
    expect(() => new PropSystem(s, { capacity: 0 })).toThrow(
      /capacity: need an integer 1\.\.100000, got number 0/,
    );
  });
});

describe('prop update performance', () => {
  it('allocates nothing per update (measured in a plain Node process)', () => {
    const root = path.resolve(__dirname, '..');
    const r = runAllocProbe(`
      import { PropSystem } from ${JSON.stringify(path.join(root, 'src/rig/props'))};
      import { makeHumanoid } from ${JSON.stringify(path.join(root, 'test/helpers/humanoid'))};
      import { canonicalPose } from ${JSON.stringify(path.join(root, 'src/retarget/referencePose'))};
      const s = makeHumanoid();
      const ref = canonicalPose(s);
      const props = new PropSystem(s, { reference: ref });
      for (let i = 0; i < 10; i++) props.add('p' + i, 'Object', [i, 0, 0]);
      props.attach('p1', 'LeftHand');
      props.attach('p2', 'RightHand', { keepWorld: true });
      props.attach('p3', 'Head');
      const W = ref.world.rotations, P = ref.world.positions;
      result.update = bytesPerCall(() => props.update(W, P));
      let sink = W;
      result.control = bytesPerCall(() => { sink = new Float64Array(sink); });
    `);
    expect(r.update).toBeLessThan(1);
    expect(r.control).toBeGreaterThanOrEqual(16);
  });
});

describeWithData('prop points on the real avatars', () => {
  for (const file of AVATARS) {
    it(path.basename(file), async () => {
      const avatar = await loadAvatar(dataPath(file));
      const s = avatar.skeleton;
      const ref = canonicalPose(s);
      const props = new PropSystem(s, { reference: ref });
      PROP_POINT_NAMES.forEach((name, k) => {
        const bone = s.humanoid[[H.LeftHand, H.RightHand, H.Head][k]];
        const want = vec3.add(
          vec64(),
          readVec3(vec64(), ref.world.positions, bone),
          DEFAULT_PROP_POINT_OFFSETS[name],
        );
        expectClose(vecAt(props.pointPositions, k), want, 1e-9);
        expectSameRotation(quatAt(props.pointRotations, k), [0, 0, 0, 1], 1e-9);
      });
      // hand points beyond the wrist (palm side), the head point above the head
      for (const [k, side] of [
        [0, 'Left'],
        [1, 'Right'],
      ] as const) {
        const elbow = readVec3(vec64(), ref.world.positions, s.humanoid[H[`${side}LowerArm`]]);
        const wrist = readVec3(vec64(), ref.world.positions, s.humanoid[H[`${side}Hand`]]);
        expect(vec3.dist(readVec3(vec64(), props.pointPositions, k), elbow)).toBeGreaterThan(
          vec3.dist(wrist, elbow),
        );
      }
      // the points follow a real pose: with every bone turned, each point keeps its place in its bone's frame
      const local = Float64Array.from(ref.localRotations);
      for (let i = 0; i < s.boneCount; i++) {
        const q = quat.setAxisAngle(
          quat64(),
          vec3.normalize(vec64(), [Math.sin(i), Math.cos(3 * i), 0.5]),
          0.3,
        );
        quat.multiply(q, readQuat(quat64(), local, i), q);
        local.set(q, 4 * i);
      }
      const W = new Float64Array(4 * s.boneCount);
      const P = new Float64Array(3 * s.boneCount);
      forwardKinematics(s, local, s.restTranslations, W, P);
      props.update(W, P);
      for (let k = 0; k < 3; k++) {
        const b = props.pointBones[k];
        const inv = quat.invert(quat64(), readQuat(quat64(), W, b));
        const d = vec3.sub(vec64(), readVec3(vec64(), props.pointPositions, k), readVec3(vec64(), P, b));
        vec3.transformQuat(d, d, inv);
        expectClose(Array.from(d), Array.from(props.pointLocalPositions.subarray(3 * k, 3 * k + 3)), 1e-9);
      }
    });
  }
});
