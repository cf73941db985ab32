/**
 * The rotation of the original's LimbIK.target (issue 21 part 2): the end bone (hand/foot) takes the
 * target's world rotation by the limb's rotation weight ("end 회전은 rotationWeight로 Slerp", the design
 * document's TwoBoneIKSolver). Known answers on the default walk and avatar:
 * - RetargetHub.ikRotationOverride: rotation weight 0 gives the FK rotation (the output bit for bit as
 *   without the override), 1 the target's rotation within 1e-6, 0.5 half the angle (slerp); the end
 *   bone's position is the same at every weight;
 * - the bridge's ikGoals `rotation` (Unity's axes, as TwoBoneIKSolver sends LimbIK.target's rotation) in
 *   the shipped bundle: the hand's world rotation composed from the output buffer's local rotations (Unity
 *   coordinates) is the rotation sent, to float32 precision; null gives it back; a bad one is refused
 *   naming the field; it survives a hot reload.
 * Not run in Unity: the C# side (TwoBoneIKSolver.SendGoals) is compile-checked only.
 */
import * as path from 'node:path';
import { type Clip, forwardKinematics, readFrame, type Skeleton } from '../src/core';
import { loadAvatar, loadSource } from '../src/io/node';
import { RetargetHub } from '../src/rig';
import { InputPacker, loadShippedBundle, setupJson } from './unity.helpers';

const DEFAULT = path.resolve(__dirname, '../assets/default');
const LEFT_HAND = 17;
const LEFT_FOOT = 5;

let clip: Clip;
let target: Skeleton;
beforeAll(async () => {
  clip = (await loadSource(path.join(DEFAULT, 'default-walk.bvh'))).clip;
  target = (await loadAvatar(path.join(DEFAULT, 'default-avatar.glb'))).skeleton;
});

/** Angle (radians) between two unit quaternions, q and -q the same rotation: 2 atan2(|a - b'|, |a + b'|), b' on a's side. */
function angle(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const s = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0 ? -1 : 1;
  let dm = 0;
  let dp = 0;
  for (let k = 0; k < 4; k++) {
    dm += (a[k] - s * b[k]) ** 2;
    dp += (a[k] + s * b[k]) ** 2;
  }
  return 2 * Math.atan2(Math.sqrt(dm), Math.sqrt(dp));
}

function unit(q: number[]): number[] {
  const l = Math.hypot(...q);
  return q.map((v) => v / l);
}

/** A hub fed the walk's first `frames` frames, with limb `limb`'s weights [1, rotationWeight, NaN]. */
function run(limb: number, rotationWeight: number, rotation: number[] | null, frames = 12) {
  const hub = new RetargetHub(clip.skeleton, target, { sourceUp: '+y' });
  hub.ikWeightOverride.set([1, rotationWeight, Number.NaN], 3 * limb);
  if (rotation) hub.ikRotationOverride.set(rotation, 4 * limb);
  const n = clip.skeleton.boneCount;
  const r = new Float64Array(4 * n);
  const p = new Float64Array(3 * n);
  for (let f = 0; f < frames; f++) {
    readFrame(clip, f, r, p);
    if (!hub.isCalibrated) hub.calibrate({ rotations: r, translations: p });
    hub.updateLive(r, p, clip.frameTime);
  }
  const t = target.boneCount;
  const wr = new Float64Array(4 * t);
  const wp = new Float64Array(3 * t);
  forwardKinematics(target, hub.localRotations, hub.localTranslations, wr, wp);
  return { hub, local: Array.from(hub.localRotations), wr, wp };
}

describe.each([
  ['left arm', 0, LEFT_HAND],
  ['left leg', 2, LEFT_FOOT],
])('end bone rotation goal (RetargetHub.ikRotationOverride), %s', (_name, limb, bone) => {
  const q = unit([0.3, -0.5, 0.2, 0.8]);
  const rot = (x: { wr: Float64Array }) => {
    const b = target.humanoid[bone];
    return Array.from(x.wr.subarray(4 * b, 4 * b + 4));
  };
  const pos = (x: { wp: Float64Array }) => {
    const b = target.humanoid[bone];
    return Array.from(x.wp.subarray(3 * b, 3 * b + 3));
  };

  it('weight 0: the FK rotation (the output as without the goal); 1: the goal within 1e-6; 0.5: half the angle; the position never moves', () => {
    const fk = run(limb, 0, null);
    const w0 = run(limb, 0, q);
    const wHalf = run(limb, 0.5, q);
    const w1 = run(limb, 1, q);
    expect(w0.local).toEqual(fk.local);
    const theta = angle(rot(fk), q);
    expect(theta).toBeGreaterThan(0.3); // the goal is really elsewhere
    expect(angle(rot(w1), q)).toBeLessThan(1e-6);
    expect(Math.abs(angle(rot(wHalf), q) - theta / 2)).toBeLessThan(1e-6);
    expect(Math.abs(angle(rot(wHalf), rot(fk)) - theta / 2)).toBeLessThan(1e-6);
    for (const x of [w0, wHalf, w1]) {
      const d = pos(x).map((v, i) => Math.abs(v - pos(fk)[i]));
      expect(Math.max(...d)).toBeLessThan(1e-12);
    }
    // the other limbs are untouched
    const other = limb === 0 ? 18 : 6; // the right hand / foot
    const o = target.humanoid[other];
    expect(Array.from(w1.wr.subarray(4 * o, 4 * o + 4))).toEqual(
      Array.from(fk.wr.subarray(4 * o, 4 * o + 4)),
    );
  });

  it('survives the hub state (hot reload); unset limbs stay unset', () => {
    const a = run(limb, 1, q, 2).hub;
    const back = RetargetHub.fromState(clip.skeleton, target, JSON.parse(JSON.stringify(a.exportState())));
    expect(Array.from(back.ikRotationOverride.subarray(4 * limb, 4 * limb + 4))).toEqual(q);
    expect(Number.isNaN(back.ikRotationOverride[4 * ((limb + 1) % 4)])).toBe(true);
    const bad = { ...a.exportState(), ikRotationOverride: [1, 2] };
    expect(() => RetargetHub.fromState(clip.skeleton, target, bad)).toThrow(/ikRotationOverride/);
  });
});

interface Api {
  createHub(setup: string): number;
  update(h: number, input: ArrayBuffer, dt: number): ArrayBuffer;
  command(h: number, json: string): string;
  exportState(): string;
  importState(json: string): void;
}

const loadShipped = (): Api => loadShippedBundle<Api>();

/** Hamilton product a * b, [x, y, z, w]. */
function qmul(a: number[], b: number[]): number[] {
  return [
    a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
    a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
    a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
    a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
  ];
}

/** World rotation (in the output's frame, the target root's; Unity coordinates) of bone `b` from an output buffer. */
function unityWorld(out: ArrayBuffer, b: number): number[] {
  const f = new Float32Array(out);
  const chain: number[] = [];
  for (let i = b; i >= 0; i = target.parents[i]) chain.unshift(i);
  let w = [0, 0, 0, 1];
  for (const i of chain) w = qmul(w, Array.from(f.subarray(4 + 4 * i, 8 + 4 * i)));
  return unit(w);
}

describe('ikGoals rotation (LimbIK.target rotation) in the shipped bundle', () => {
  it("the hand takes the target's rotation (Unity's axes) at rotation weight 1; null gives it back; a bad one is refused", () => {
    const api = loadShipped();
    const setup = setupJson('rot', clip.skeleton, target, { options: { ik: 'auto' } });
    const h = api.createHub(setup);
    const twin = api.createHub(setupJson('rot-twin', clip.skeleton, target, { options: { ik: 'auto' } }));
    const pack = new InputPacker(clip.skeleton);
    const cmd = (hub: number, msg: unknown) => JSON.parse(api.command(hub, JSON.stringify(msg)));
    const qu = unit([0.1, 0.7, -0.2, 0.65]); // Unity's axes, the output frame
    for (const hub of [h, twin])
      expect(cmd(hub, { action: 'ikWeights', limbs: [[1, 1, null], null, null, null] }).ok).toBe(true);
    expect(
      cmd(h, { action: 'ikGoals', limbs: [{ target: null, bendGoal: null, rotation: qu }, null, null, null] })
        .ok,
    ).toBe(true);
    let a = new ArrayBuffer(0);
    let b = new ArrayBuffer(0);
    for (let f = 0; f < 10; f++) {
      a = api.update(h, pack.packFrame(clip, f), clip.frameTime).slice(0);
      b = api.update(twin, pack.packFrame(clip, f), clip.frameTime).slice(0);
    }
    const hand = target.humanoid[LEFT_HAND];
    expect(angle(unityWorld(a, hand), qu)).toBeLessThan(1e-6); // float32 output composed along the chain
    expect(angle(unityWorld(b, hand), qu)).toBeGreaterThan(0.3);
    // where the hand is: the same as the twin's (ikState, metres)
    const reached = (hub: number) => cmd(hub, { action: 'ikState' }).limbs[0].reached as number[];
    const d = reached(h).map((v, i) => Math.abs(v - reached(twin)[i]));
    expect(Math.max(...d)).toBeLessThan(1e-9);

    // a hot reload keeps it
    const next = loadShipped();
    next.importState(api.exportState());
    const c = next.update(h, pack.packFrame(clip, 10), clip.frameTime).slice(0);
    expect(angle(unityWorld(c, hand), qu)).toBeLessThan(1e-6);

    // refused whole, naming the field; nothing changes
    for (const bad of [
      [0, 0, 0, 0],
      [0, 0, 1],
      [0, 0, 'x', 1],
      [Number.NaN, 0, 0, 1],
    ]) {
      const r = cmd(h, { action: 'ikGoals', limbs: [{ target: null, rotation: bad }, null, null, null] });
      expect(r.ok).toBe(false);
      expect(r.error.field).toBe('limbs[0].rotation');
    }
    const e = api.update(h, pack.packFrame(clip, 11), clip.frameTime).slice(0);
    expect(angle(unityWorld(e, hand), qu)).toBeLessThan(1e-6);

    // null gives it back: the output is the twin's again
    expect(cmd(h, { action: 'ikGoals', limbs: [null, null, null, null] }).ok).toBe(true);
    api.update(twin, pack.packFrame(clip, 11), clip.frameTime);
    const x = new Float32Array(api.update(h, pack.packFrame(clip, 12), clip.frameTime).slice(0));
    const y = new Float32Array(api.update(twin, pack.packFrame(clip, 12), clip.frameTime).slice(0));
    expect(Array.from(x)).toEqual(Array.from(y));
  });
});
