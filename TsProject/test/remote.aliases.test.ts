/**
 * The original KindRetargeting's parameter names (issue 14): `updateValueRealtime` accepts them as
 * aliases and `getCharacterData` reports them, through the protocol (RemoteControl) and through the
 * Unity bridge's command(), so a controller written for the original keeps working unchanged.
 */
import { findParameter, PARAMETER_ALIASES, PARAMETERS, RemoteControl } from '../src/live/remote';
import * as bridge from '../src/unity/bridge';
import { makeHumanoid } from './helpers/humanoid';
import { makeFixture } from './remote.fixture';
import { InputPacker, setupJson } from './unity.helpers';

type Json = Record<string, unknown>;

function send(rc: RemoteControl, m: Json): { reply: Json; broadcast?: Json } {
  const r = rc.handle(JSON.stringify(m));
  return { reply: JSON.parse(r.reply), broadcast: r.broadcast ? JSON.parse(r.broadcast) : undefined };
}

/** Every original name the C# members give, with a value inside its range and its effect. */
const CASES: [string, number | boolean, Record<string, number | boolean>][] = [
  ['footFrontBackOffset', 0.12, { leftFootFrontBack: 0.12, rightFootFrontBack: 0.12 }],
  ['footInOutOffset', -0.05, { leftFootInOut: -0.05, rightFootInOut: -0.05 }],
  ['chairSeatHeightOffset', 0.2, { chairSeatOffset: 0.2 }],
  ['enableLeftArmIK', false, { leftArmIKForcedOff: true }],
  ['enableRightArmIK', false, { rightArmIKForcedOff: true }],
  ['weightSmoothSpeed', 42, { weightSmoothingSpeed: 42 }],
  ['leftHandEnabled', false, { leftFingersEnabled: false }],
  ['rightHandEnabled', false, { rightFingersEnabled: false }],
  ['leftPinkyCurl', 0.5, { leftLittleCurl: 0.5 }],
  ['rightPinkyCurl', -0.25, { rightLittleCurl: -0.25 }],
  [
    'leftSpreadFingers',
    0.375,
    {
      leftThumbSpread: 0.375,
      leftIndexSpread: 0.375,
      leftMiddleSpread: 0.375,
      leftRingSpread: 0.375,
      leftLittleSpread: 0.375,
    },
  ],
  [
    'rightSpreadFingers',
    -0.5,
    {
      rightThumbSpread: -0.5,
      rightIndexSpread: -0.5,
      rightMiddleSpread: -0.5,
      rightRingSpread: -0.5,
      rightLittleSpread: -0.5,
    },
  ],
];

/** Original names that are this package's names too: the parameters themselves. */
const SAME = [
  'avatarScale',
  'headScale',
  'headRotationOffsetX',
  'headRotationOffsetY',
  'headRotationOffsetZ',
  'floorHeight',
  'leftThumbCurl',
  'leftIndexCurl',
  'leftMiddleCurl',
  'leftRingCurl',
  'rightThumbCurl',
  'rightIndexCurl',
  'rightMiddleCurl',
  'rightRingCurl',
];

describe('remote control: the original parameter names', () => {
  it('the alias table covers exactly the renamed originals, each acting on existing parameters', () => {
    expect(PARAMETER_ALIASES.map((a) => a.name).sort()).toEqual(CASES.map((c) => c[0]).sort());
    for (const a of PARAMETER_ALIASES) {
      expect(PARAMETERS.some((p) => p.name === a.name)).toBe(false);
      for (const n of a.aliasOf) expect(PARAMETERS.some((p) => p.name === n)).toBe(true);
    }
    for (const n of SAME) expect(PARAMETERS.some((p) => p.name === n)).toBe(true);
  });

  it.each(CASES)(
    'updateValueRealtime %s = %p sets the parameters it stands for, and reads back',
    (name, v, effect) => {
      const { characters, hubs } = makeFixture();
      const rc = new RemoteControl(characters);
      const hub = hubs.get('Alice')!;
      const { reply, broadcast } = send(rc, {
        action: 'updateValueRealtime',
        characterName: 'Alice',
        property: name,
        value: v,
      });
      expect(reply).toMatchObject({ ok: true, property: name, value: v, values: effect });
      expect(broadcast).toMatchObject({ action: 'valueChanged', property: name, value: v, values: effect });
      for (const [n, want] of Object.entries(effect)) {
        const got = findParameter(n)!.get(hub);
        if (typeof want === 'number') expect(got).toBeCloseTo(want, 12);
        else expect(got).toBe(want);
      }
      // getCharacterData reports the original name with the value just set
      const data = send(rc, { action: 'getCharacterData', characterName: 'Alice' }).reply;
      const aliases = data.aliases as Json[];
      const row = aliases.find((a) => a.name === name)!;
      expect(row).toMatchObject({ name, value: v, aliasOf: Object.keys(effect) });
      // and the parameters list itself is unchanged (no duplicates for panels that draw every row)
      expect((data.parameters as Json[]).map((p) => p.name)).toEqual(PARAMETERS.map((p) => p.name));
    },
  );

  it('an alias checks its range like the parameter (nothing changes on a bad value)', () => {
    const { characters, hubs } = makeFixture();
    const rc = new RemoteControl(characters);
    const before = hubs.get('Alice')!.exportSettings();
    const { reply } = send(rc, {
      action: 'updateValueRealtime',
      characterName: 'Alice',
      property: 'footFrontBackOffset',
      value: 0.6,
    });
    expect(reply).toMatchObject({ ok: false, error: { field: 'value' } });
    expect(String((reply.error as Json).message)).toMatch(
      /footFrontBackOffset: need a number in -0\.5\.\.0\.5 m/,
    );
    expect(hubs.get('Alice')!.exportSettings()).toEqual(before);
  });

  it('through the Unity bridge command(): original names in, original names back', () => {
    const src = makeHumanoid({ spineBones: 4 });
    const tgt = makeHumanoid({ pose: 'A' });
    const h = bridge.createHub(setupJson('aliases', src, tgt));
    try {
      const cmd = (m: Json) => JSON.parse(bridge.command(h, JSON.stringify(m)));
      for (const [name, v] of CASES) {
        expect(cmd({ action: 'updateValueRealtime', property: name, value: v })).toMatchObject({
          ok: true,
          property: name,
          value: v,
        });
      }
      const data = cmd({ action: 'getCharacterData' });
      const byName = new Map((data.aliases as Json[]).map((a) => [a.name, a.value]));
      for (const [name, v] of CASES) {
        if (typeof v === 'number') expect(byName.get(name)).toBeCloseTo(v, 12);
        else expect(byName.get(name)).toBe(v);
      }
      // the settings the aliases changed, as the file would save them
      const s = cmd({ action: 'exportSettings' }).settings;
      expect(s.footOffsets).toEqual({
        left: { frontBack: 0.12, inOut: -0.05 },
        right: { frontBack: 0.12, inOut: -0.05 },
      });
      expect(s.chairSeatOffset).toBe(0.2);
    } finally {
      bridge.destroyHub(h);
    }
  });
});

describe('Unity bridge: ikState (IKTargetGizmo)', () => {
  it('reports the four limbs with targets, bend goals and weights in Unity axes (left is -x)', () => {
    const src = makeHumanoid({ spineBones: 4 });
    const tgt = makeHumanoid({ pose: 'A' });
    const h = bridge.createHub(setupJson('gizmo', src, tgt, { options: { ik: 'on' } }));
    try {
      const packer = new InputPacker(src);
      const rest = { rotations: src.restRotations, translations: src.restTranslations };
      for (let f = 0; f < 3; f++)
        bridge.update(h, packer.packLocal(rest.rotations, rest.translations, f), 1 / 60);
      const cmd = (m: Json) => JSON.parse(bridge.command(h, JSON.stringify(m)));
      const r = cmd({ action: 'ikState' });
      expect(r.ok).toBe(true);
      const limbs = r.limbs as {
        limb: string;
        target: number[];
        bendGoal: number[];
        reached: number[];
        weight: number;
      }[];
      expect(limbs.map((l) => l.limb)).toEqual(['leftArm', 'rightArm', 'leftLeg', 'rightLeg']);
      // Unity is left-handed with the character's left at -x: the mirror happened
      expect(limbs[0].target[0]).toBeLessThan(-0.1);
      expect(limbs[1].target[0]).toBeGreaterThan(0.1);
      expect(limbs[2].target[0]).toBeLessThan(0);
      expect(limbs[3].target[0]).toBeGreaterThan(0);
      // hands above feet; knees' bend goals between hips and feet in height
      expect(limbs[0].target[1]).toBeGreaterThan(limbs[2].target[1] + 0.5);
      for (const l of limbs) {
        expect(l.weight).toBeGreaterThanOrEqual(0);
        expect(l.weight).toBeLessThanOrEqual(1);
        for (const v of [...l.target, ...(l.bendGoal ?? []), ...l.reached])
          expect(Number.isFinite(v)).toBe(true);
      }
      // arms have a bend goal (behind the elbow's side: below the shoulder, the left one at -x); legs none
      expect(limbs[0].bendGoal![0]).toBeLessThan(0);
      expect(limbs[1].bendGoal![0]).toBeGreaterThan(0);
      expect(limbs[2].bendGoal).toBeNull();
      expect(limbs[3].bendGoal).toBeNull();
      expect(cmd({ action: 'ikState', extra: 1 })).toMatchObject({ ok: false, error: { field: 'extra' } });
    } finally {
      bridge.destroyHub(h);
    }
  });
});
