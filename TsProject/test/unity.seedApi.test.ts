/**
 * The bridge commands behind the original's API facades (issue 21 part 2), run in the bundle the package
 * ships (Runtime/Resources/kind-retargeting/main.mjs, in a bare vm context as the Unity side loads it),
 * compared with the Node build of the bridge on the same frames:
 * - autoFloorHeight (TwoBoneIKSolver.CalculateAutoFloorHeight): the hub's floor height is set and
 *   exported; a bad comfortRatio is refused naming the field;
 * - limbWeightState (LimbWeightController's layer arrays, HipsWeightOffset, foot height thresholds):
 *   the hub's layer values of the last frame in the original's table, the thresholds set;
 * - ikWeights (TwoBoneIKSolver.LimbIK positionWeight/rotationWeight/bendGoalWeight with driveWeights):
 *   the weights the solver uses from the next frame, the output changed; null gives them back;
 * - ikGoals (LimbIK.target/bendGoal positions): the solver aims there from the next frame; null gives
 *   them back; both overrides survive a hot reload;
 * - setHandPosePreset with the original's Korean names (가위, 바위, 보, 브이, 검지, 초기화): the same
 *   finger values as the English names.
 * Not run in Unity: the C# side of these (the facades in Runtime/Shells) is compile-checked only.
 */
import * as path from 'node:path';
import type { Clip, Skeleton } from '../src/core';
import { loadAvatar, loadSource } from '../src/io/node';
import { RetargetHub } from '../src/rig';
import * as bridge from '../src/unity/bridge';
import { InputPacker, loadShippedBundle, setupJson } from './unity.helpers';

interface Api {
  createHub(setup: string): number;
  destroyHub(h: number): void;
  update(h: number, input: ArrayBuffer, dt: number): ArrayBuffer;
  command(h: number, json: string): string;
}

const DEFAULT = path.resolve(__dirname, '../assets/default');

const loadShipped = (): Api => loadShippedBundle<Api>();

let clip: Clip;
let target: Skeleton;
beforeAll(async () => {
  clip = (await loadSource(path.join(DEFAULT, 'default-walk.bvh'))).clip;
  target = (await loadAvatar(path.join(DEFAULT, 'default-avatar.glb'))).skeleton;
});

/** A hub in the shipped bundle and one in the Node bridge, fed the same `frames` frames. */
function pair(name: string, frames: number) {
  const api = loadShipped();
  const setup = setupJson(name, clip.skeleton, target, { options: { ik: 'auto' } });
  const a = api.createHub(setup);
  const b = bridge.createHub(setup);
  const pack = new InputPacker(clip.skeleton);
  for (let f = 0; f < frames; f++) {
    const input = pack.packFrame(clip, f);
    api.update(a, input, clip.frameTime);
    bridge.update(b, input, clip.frameTime);
  }
  let next = frames;
  return {
    /** One more frame into the shipped hub; its output floats. */
    step: () => new Float32Array(api.update(a, pack.packFrame(clip, next++), clip.frameTime).slice(0)),
    shipped: (msg: unknown) => JSON.parse(api.command(a, JSON.stringify(msg))),
    node: (msg: unknown) => JSON.parse(bridge.command(b, JSON.stringify(msg))),
    dispose() {
      api.destroyHub(a);
      bridge.destroyHub(b);
    },
  };
}

describe('the original API facades reach the hub (the shipped bundle)', () => {
  it('autoFloorHeight: sets and returns the hub floor height, as the Node bridge; refuses a bad ratio', () => {
    const p = pair('floor', 40);
    try {
      const before = p.shipped({ action: 'exportSettings' }).settings.floorHeight;
      const r = p.shipped({ action: 'autoFloorHeight', comfortRatio: 0.9 });
      expect(r.ok).toBe(true);
      expect(typeof r.floorHeight).toBe('number');
      expect(r.floorHeight).not.toBe(before);
      expect(p.shipped({ action: 'exportSettings' }).settings.floorHeight).toBe(r.floorHeight);
      const n = p.node({ action: 'autoFloorHeight', comfortRatio: 0.9 });
      expect(Math.abs(n.floorHeight - r.floorHeight)).toBeLessThan(1e-5);
      const bad = p.shipped({ action: 'autoFloorHeight', comfortRatio: 1.5 });
      expect(bad.ok).toBe(false);
      expect(bad.error.field).toBe('comfortRatio');
      expect(p.shipped({ action: 'exportSettings' }).settings.floorHeight).toBe(r.floorHeight);
    } finally {
      p.dispose();
    }
  });

  it("limbWeightState: the last frame's layers in the original's table, equal to the Node bridge; thresholds set", () => {
    const p = pair('weights', 60);
    try {
      const r = p.shipped({ action: 'limbWeightState' });
      expect(r.ok).toBe(true);
      for (const k of [
        'leftArmEndWeights',
        'rightArmEndWeights',
        'leftLegEndWeights',
        'rightLegEndWeights',
        'hipsWeights',
      ]) {
        expect(r[k]).toHaveLength(2);
        for (const v of r[k]) expect(v >= 0 && v <= 1).toBe(true);
      }
      expect(r.leftArmEndWeights[0]).toBe(r.rightArmEndWeights[0]); // both: hand-to-hand
      expect(r.hipsWeightOffset >= 0 && r.hipsWeightOffset <= 1).toBe(true);
      expect(r.footHeight).toEqual([0.2, 0.45]);
      const n = p.node({ action: 'limbWeightState' });
      for (const k of Object.keys(n)) {
        if (typeof n[k] === 'number') expect(Math.abs(n[k] - r[k])).toBeLessThan(1e-5);
        else if (Array.isArray(n[k]))
          for (let i = 0; i < n[k].length; i++) expect(Math.abs(n[k][i] - r[k][i])).toBeLessThan(1e-5);
      }
      const set = p.shipped({ action: 'limbWeightState', footHeight: [0.1, 0.3] });
      expect(set.footHeight).toEqual([0.1, 0.3]);
      const bad = p.shipped({ action: 'limbWeightState', footHeight: [0.3, 0.1] });
      expect(bad.ok).toBe(false);
      expect(bad.error.field).toBe('footHeight');
      expect(p.shipped({ action: 'limbWeightState' }).footHeight).toEqual([0.1, 0.3]);
    } finally {
      p.dispose();
    }
  });

  it('ikWeights: host-set LimbIK weights drive the solver from the next frame; null gives them back', () => {
    const p = pair('ikw', 30);
    const twin = pair('ikw-twin', 30);
    try {
      const set = p.shipped({ action: 'ikWeights', limbs: [[0, 0, 0], [1, 1, 1], null, [0.5, 0.25, null]] });
      expect(set.ok).toBe(true);
      expect(set.limbs).toEqual(
        [[0, 0, 0], [1, 1, 1], null, [0.5, 0.25, null]].map((l) => l ?? [null, null, null]),
      );
      const a = p.step();
      const b = twin.step();
      const w = p.shipped({ action: 'ikState' }).limbs.map((l: { weight: number }) => l.weight);
      const own = twin.shipped({ action: 'ikState' }).limbs.map((l: { weight: number }) => l.weight);
      expect(w[0]).toBe(0);
      expect(w[1]).toBe(1);
      expect(w[2]).toBe(own[2]); // null: the hub's own
      expect(w[3]).toBe(0.5);
      let diff = 0;
      for (let i = 0; i < a.length; i++) diff = Math.max(diff, Math.abs(a[i] - b[i]));
      expect(diff).toBeGreaterThan(1e-4);
      // given back: the same weights and output as the twin again
      expect(p.shipped({ action: 'ikWeights', limbs: [null, null, null, null] }).ok).toBe(true);
      p.step();
      twin.step();
      expect(p.shipped({ action: 'ikState' }).limbs.map((l: { weight: number }) => l.weight)).toEqual(
        twin.shipped({ action: 'ikState' }).limbs.map((l: { weight: number }) => l.weight),
      );
      // refused whole, naming the entry
      const bad = p.shipped({ action: 'ikWeights', limbs: [null, [0, 2, 0], null, null] });
      expect(bad.ok).toBe(false);
      expect(bad.error.field).toBe('limbs[1][1]');
      expect(p.shipped({ action: 'exportSettings' }).ok).toBe(true);
    } finally {
      p.dispose();
      twin.dispose();
    }
  });

  it('ikGoals: a host-set IK target (LimbIK.target) is where the solver aims from the next frame; null gives it back', () => {
    const p = pair('ikg', 30);
    const twin = pair('ikg-twin', 30);
    try {
      const goal = [0.3, 1.4, 0.35]; // Unity's axes, the output frame (metres)
      const set = p.shipped({
        action: 'ikGoals',
        limbs: [{ target: goal, bendGoal: null }, null, null, null],
      });
      expect(set.ok).toBe(true);
      // full IK on that arm in both (the walk alone leaves arm IK off)
      for (const h of [p, twin])
        expect(h.shipped({ action: 'ikWeights', limbs: [[1, 1, null], null, null, null] }).ok).toBe(true);
      p.step();
      twin.step();
      const mine = p.shipped({ action: 'ikState' }).limbs;
      const own = twin.shipped({ action: 'ikState' }).limbs;
      expect(mine[0].target).toEqual(goal);
      expect(mine[1].target).toEqual(own[1].target);
      // the hand went toward the new target (when the limb's IK weight is on)
      const dist = (a: number[], b: number[]) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
      expect(mine[0].weight).toBe(1);
      expect(dist(mine[0].reached, goal)).toBeLessThan(dist(own[0].reached, goal));
      expect(p.shipped({ action: 'ikGoals', limbs: [null, null, null, null] }).ok).toBe(true);
      p.step();
      twin.step();
      expect(p.shipped({ action: 'ikState' }).limbs[0].target).toEqual(
        twin.shipped({ action: 'ikState' }).limbs[0].target,
      );
      const bad = p.shipped({ action: 'ikGoals', limbs: [null, { target: [0, 'x', 0] }, null, null] });
      expect(bad.ok).toBe(false);
      expect(bad.error.field).toBe('limbs[1].target');
    } finally {
      p.dispose();
      twin.dispose();
    }
  });

  it('ikWeights and ikGoals survive a hot reload (the hub state through JSON), unset entries stay unset', () => {
    const hub = new RetargetHub(clip.skeleton, target);
    hub.ikWeightOverride.set([0.25, 1, 0], 3);
    hub.ikGoalOverride.set([0.1, 1.2, -0.3], 6);
    const back = RetargetHub.fromState(clip.skeleton, target, JSON.parse(JSON.stringify(hub.exportState())));
    expect(Array.from(back.ikWeightOverride)).toEqual(Array.from(hub.ikWeightOverride));
    expect(Number.isNaN(back.ikWeightOverride[0])).toBe(true);
    expect(Array.from(back.ikGoalOverride)).toEqual(Array.from(hub.ikGoalOverride));
    const bad = { ...hub.exportState(), ikWeightOverride: [2] };
    expect(() => RetargetHub.fromState(clip.skeleton, target, bad)).toThrow(/ikWeightOverride/);
  });

  it.each([
    ['가위', 'scissors'],
    ['바위', 'rock'],
    ['보', 'paper'],
    ['브이', 'v'],
    ['검지', 'index-point'],
    ['초기화', 'reset'],
  ])('setHandPosePreset %s: the same fingers as %s', (korean, english) => {
    const p = pair(`hands-${english}`, 2);
    const q = pair(`hands-${english}-en`, 2);
    const none = pair(`hands-${english}-none`, 2);
    try {
      const a = p.shipped({ action: 'setHandPosePreset', hand: 'both', preset: korean });
      expect(a.ok).toBe(true);
      expect(a.preset).toBe(english);
      const b = q.shipped({ action: 'setHandPosePreset', hand: 'both', preset: english });
      expect(b.ok).toBe(true);
      // the character's data (parameters with their values), its name aside
      const data = (x: typeof p) => {
        const d = x.shipped({ action: 'getCharacterData' });
        delete d.characterName;
        return d;
      };
      expect(data(p)).toEqual(data(q));
      // and the preset changed something (the finger values), but for reset on untouched fingers
      if (english !== 'reset') expect(data(p)).not.toEqual(data(none));
    } finally {
      p.dispose();
      q.dispose();
      none.dispose();
    }
  });
});
