/**
 * The remote-control protocol on real hubs: every action's effect on the hub, every error class
 * (named field, nothing changed), the declared parameter table against the rig's own validation.
 */
import { quat } from 'gl-matrix';
import { angleBetween, HumanBodyBones as H, quat64 } from '../src/core';
import {
  findParameter,
  type NumberParameter,
  PARAMETERS,
  type Parameter,
  RemoteControl,
  utf8Length,
} from '../src/live/remote';
import {
  FINGER_HANDS,
  FINGER_NAMES,
  FINGER_PRESET_NAMES,
  FINGER_PRESETS,
  fingerPoseWorld,
  RetargetHub,
  SETTINGS_LIMITS,
} from '../src/rig';
import { hubState, makeFixture, randomFrame } from './remote.fixture';

type Json = Record<string, unknown>;

function send(rc: RemoteControl, msg: unknown): { reply: Json; broadcast?: Json } {
  const r = rc.handle(typeof msg === 'string' ? msg : JSON.stringify(msg));
  return {
    reply: JSON.parse(r.reply),
    broadcast: r.broadcast === undefined ? undefined : JSON.parse(r.broadcast),
  };
}

/** A valid value different from the current one. */
function otherValue(p: Parameter, current: unknown): number | boolean | string {
  if (p.type === 'number') {
    const v = p.min + 0.3 * (p.max - p.min);
    return v === current ? p.min + 0.6 * (p.max - p.min) : v;
  }
  if (p.type === 'boolean') return !current;
  return p.options.find((o) => o !== current)!;
}

describe('remote control: parameter table', () => {
  it('declares the required parameters with the rig validation ranges', () => {
    const names = PARAMETERS.map((p) => p.name);
    expect(new Set(names).size).toBe(names.length);
    for (const n of [
      'avatarScale',
      'headScale',
      'headRotationOffsetX',
      'headRotationOffsetY',
      'headRotationOffsetZ',
      'floorHeight',
      'leftFootFrontBack',
      'leftFootInOut',
      'rightFootFrontBack',
      'rightFootInOut',
      'chairSeatOffset',
      'ikMode',
      'leftArmIKForcedOff',
      'rightArmIKForcedOff',
      'weightSmoothingSpeed',
      'fingerCopyMode',
      'leftFingersEnabled',
      'rightFingersEnabled',
    ])
      expect(names).toContain(n);
    for (const hand of FINGER_HANDS)
      for (const f of FINGER_NAMES)
        for (const m of ['Curl', 'Spread']) {
          const p = findParameter(`${hand}${f[0].toUpperCase()}${f.slice(1)}${m}`) as NumberParameter;
          expect([p.type, p.min, p.max]).toEqual(['number', -1, 1]);
        }
    const range = (n: string) => {
      const p = findParameter(n) as NumberParameter;
      return [p.min, p.max];
    };
    expect(range('avatarScale')).toEqual(SETTINGS_LIMITS.avatarScale);
    expect(range('headScale')).toEqual(SETTINGS_LIMITS.headScale);
    expect(range('headRotationOffsetY')).toEqual(SETTINGS_LIMITS.headRotationOffset);
    expect(range('floorHeight')).toEqual(SETTINGS_LIMITS.floorHeight);
    expect(range('rightFootInOut')).toEqual(SETTINGS_LIMITS.footOffset);
    expect(range('chairSeatOffset')).toEqual(SETTINGS_LIMITS.chairSeatOffset);
  });

  it('the hub accepts the ends of every declared number range and rejects just outside', () => {
    const { hubs } = makeFixture();
    const hub = hubs.get('Alice')!;
    for (const p of PARAMETERS) {
      if (p.type !== 'number') continue;
      for (const v of [p.min, p.max]) {
        p.set(hub, v);
        expect(p.get(hub)).toBe(v);
      }
      // the rig's own validation agrees with the table where it has one (smoothing speed: > 0 only;
      // the chair seat offset: LimbWeights takes any finite metres, SETTINGS_LIMITS bounds it)
      if (p.name === 'chairSeatOffset') continue;
      const below = p.name === 'weightSmoothingSpeed' ? 0 : p.min - 1e-6;
      expect(() => p.set(hub, below)).toThrow();
      if (p.name !== 'weightSmoothingSpeed') expect(() => p.set(hub, p.max + 1e-6)).toThrow();
    }
  });
});

describe('remote control: actions', () => {
  it('refresh lists the characters and the hand pose presets', () => {
    const { characters } = makeFixture();
    const { reply, broadcast } = send(new RemoteControl(characters), { action: 'refresh', id: 7 });
    expect(reply).toEqual({
      action: 'refresh',
      id: 7,
      ok: true,
      characters: ['Alice', 'Bob', 'Carol'],
      handPosePresets: [...FINGER_PRESET_NAMES],
    });
    expect(broadcast).toBeUndefined();
  });

  it('getCharacterData gives every parameter with the hub value', () => {
    const { characters, hubs } = makeFixture();
    const hub = hubs.get('Bob')!;
    hub.setAvatarScale(1.7);
    hub.fingers.setSpread('right', 'little', -0.25);
    const { reply } = send(new RemoteControl(characters), {
      action: 'getCharacterData',
      characterName: 'Bob',
    });
    expect(reply.ok).toBe(true);
    const params = reply.parameters as Json[];
    expect(params.map((p) => p.name)).toEqual(PARAMETERS.map((p) => p.name));
    const byName = new Map(params.map((p) => [p.name, p]));
    expect(byName.get('avatarScale')).toMatchObject({ type: 'number', value: 1.7, min: 0.1, max: 3 });
    expect(byName.get('rightLittleSpread')!.value).toBe(-0.25);
    expect(byName.get('ikMode')).toMatchObject({
      type: 'enum',
      value: 'auto',
      options: ['auto', 'on', 'off'],
    });
    expect(byName.get('fingerCopyMode')).toMatchObject({ value: 'rotation' });
    expect(byName.get('leftFingersEnabled')).toMatchObject({ type: 'boolean', value: true });
  });

  it('updateValueRealtime sets every parameter through the hub and broadcasts the change', () => {
    const { characters, hubs } = makeFixture();
    const rc = new RemoteControl(characters);
    const hub = hubs.get('Alice')!;
    for (const p of PARAMETERS) {
      const value = otherValue(p, p.get(hub));
      const { reply, broadcast } = send(rc, {
        action: 'updateValueRealtime',
        id: `set-${p.name}`,
        characterName: 'Alice',
        property: p.name,
        value,
      });
      expect(reply).toEqual({
        action: 'updateValueRealtime',
        id: `set-${p.name}`,
        ok: true,
        characterName: 'Alice',
        property: p.name,
        value,
      });
      expect(broadcast).toEqual({ action: 'valueChanged', characterName: 'Alice', property: p.name, value });
      expect(p.get(hub)).toBe(value);
    }
    // the other characters did not change
    expect(hubs.get('Bob')!.settings.avatarScale).toBe(1);
  });

  it('updateValueRealtime has the real effects on the hub', () => {
    const { characters, hubs, source } = makeFixture();
    const rc = new RemoteControl(characters);
    const hub = hubs.get('Alice')!;
    const set = (property: string, value: unknown) => {
      const { reply } = send(rc, { action: 'updateValueRealtime', characterName: 'Alice', property, value });
      expect(reply.ok).toBe(true);
    };
    const f = randomFrame(source, 3, 0.2);
    set('avatarScale', 1.2);
    set('headScale', 0.8);
    set('headRotationOffsetY', 30);
    set('floorHeight', 0.05);
    set('leftFootFrontBack', 0.1);
    set('rightFootInOut', -0.05);
    set('chairSeatOffset', -0.2);
    hub.update(f.rotations, f.translations, 1 / 60);
    expect(hub.settings.avatarScale).toBe(1.2);
    expect(Array.from(hub.outputScales)).toEqual([1.2, 0.8]);
    const s = hub.exportSettings();
    expect(s.headRotationOffset).toEqual([0, 30, 0]);
    expect(s.floorHeight).toBe(0.05);
    expect(s.footOffsets).toEqual({
      left: { frontBack: 0.1, inOut: 0 },
      right: { frontBack: 0, inOut: -0.05 },
    });
    expect(s.chairSeatOffset).toBe(-0.2);

    // IK forced off: no IK weight on any limb after an update
    set('ikMode', 'on');
    hub.update(f.rotations, f.translations, 1 / 60);
    expect(Array.from(hub.ikWeights)).toEqual([1, 1, 1, 1]);
    set('ikMode', 'off');
    hub.update(f.rotations, f.translations, 1 / 60);
    expect(Array.from(hub.ikWeights)).toEqual([0, 0, 0, 0]);
    set('leftArmIKForcedOff', true);
    set('weightSmoothingSpeed', 2.5);
    expect(hub.weights.settings.leftArmForcedOff).toBe(true);
    expect(hub.weights.settings.smoothingSpeed).toBe(2.5);

    // finger curl: in 'none' mode a full middle curl turns the middle proximal by its range (50 deg)
    set('fingerCopyMode', 'none');
    hub.update(f.rotations, f.translations, 1 / 60);
    const b = hub.target.humanoid[H.LeftMiddleProximal];
    const before = hub.localRotations.slice(4 * b, 4 * b + 4);
    set('leftMiddleCurl', 1);
    expect([0, 1, 2].map((k) => hub.fingers.muscles[(0 * 5 + 2) * 4 + k])).toEqual([1, 1, 1]);
    hub.update(f.rotations, f.translations, 1 / 60);
    const after = hub.localRotations.slice(4 * b, 4 * b + 4);
    expect((angleBetween(before, after) * 180) / Math.PI).toBeCloseTo(50, 6);
    // disabled hand: the finger bones are no longer written by the muscles
    set('leftFingersEnabled', false);
    expect(hub.fingers.isEnabled('left')).toBe(false);
  });

  it('setHandPosePreset sets the preset muscles and asks the others to re-fetch', () => {
    const { characters, hubs } = makeFixture();
    const rc = new RemoteControl(characters);
    const hub = hubs.get('Bob')!;
    const { reply, broadcast } = send(rc, {
      action: 'setHandPosePreset',
      characterName: 'Bob',
      hand: 'both',
      preset: 'rock',
    });
    expect(reply).toEqual({
      action: 'setHandPosePreset',
      ok: true,
      characterName: 'Bob',
      hand: 'both',
      preset: 'rock',
    });
    expect(broadcast).toEqual({ action: 'characterDataChanged', characterName: 'Bob' });
    expect(Array.from(hub.fingers.muscles)).toEqual([...FINGER_PRESETS.rock, ...FINGER_PRESETS.rock]);
    send(rc, { action: 'setHandPosePreset', characterName: 'Bob', hand: 'right', preset: 'v' });
    expect(Array.from(hub.fingers.muscles)).toEqual([...FINGER_PRESETS.rock, ...FINGER_PRESETS.v]);
    // the panel sees the preset through the parameters
    const data = send(rc, { action: 'getCharacterData', characterName: 'Bob' }).reply;
    const v = (n: string) => (data.parameters as Json[]).find((p) => p.name === n)!.value;
    expect([v('leftIndexCurl'), v('rightIndexCurl'), v('rightIndexSpread'), v('rightMiddleSpread')]).toEqual([
      1, 0, 1, -1,
    ]);
  });

  it('calibrateIPose recalibrates on the current frame; resetCalibration goes back to the T-pose calibration', () => {
    const { characters, hubs, frames, source } = makeFixture();
    const rc = new RemoteControl(characters);
    const hub = hubs.get('Alice')!;
    const tOffsets = hub.exportSettings().rotationOffsets;
    // the current frame (arms out) taken as the performer's I-pose: the avatar's canonical I-pose
    // (arms down) is matched to it, so the arm offsets turn by about 90 degrees
    const frame = randomFrame(source, 1, 0);
    frames.set('Alice', frame);
    const { reply, broadcast } = send(rc, { action: 'calibrateIPose', characterName: 'Alice', id: 'i' });
    expect(reply).toEqual({ action: 'calibrateIPose', id: 'i', ok: true, characterName: 'Alice' });
    expect(broadcast).toEqual({ action: 'characterDataChanged', characterName: 'Alice' });
    const iOffsets = hub.exportSettings().rotationOffsets;
    for (const bone of [H.LeftUpperArm, H.RightUpperArm]) {
      const name = hub.target.names[hub.target.humanoid[bone]];
      expect((angleBetween(tOffsets[name], iOffsets[name]) * 180) / Math.PI).toBeCloseTo(90, 0);
    }
    // in that frame the avatar's hands now hang below its shoulders
    hub.setFloorHeight(0);
    hub.ikMode = 'off';
    hub.update(frame.rotations, frame.translations, 0);
    const world = fingerPoseWorld(hub.target, hub.localRotations, hub.localTranslations).positions;
    const y = (b: number) => world[3 * hub.target.humanoid[b] + 1];
    expect(y(H.LeftUpperArm) - y(H.LeftHand)).toBeGreaterThan(0.4);
    const iPose = frame;

    expect(send(rc, { action: 'resetCalibration', characterName: 'Alice' }).reply.ok).toBe(true);
    // resetCalibration = a T-pose calibration on the last calibration frame: a fresh hub agrees
    const fresh = new RetargetHub(source, hub.target);
    fresh.calibrate(iPose);
    const reset = hub.exportSettings().rotationOffsets;
    const expected = fresh.exportSettings().rotationOffsets;
    expect(Object.keys(reset).sort()).toEqual(Object.keys(expected).sort());
    for (const k of Object.keys(expected)) expect(angleBetween(reset[k], expected[k])).toBeLessThan(1e-9);
  });

  it('calibrateHeadForward takes the head direction of the last update as forward', () => {
    const { characters, hubs, source } = makeFixture();
    const rc = new RemoteControl(characters);
    const hub = hubs.get('Bob')!;
    const f = randomFrame(source, 1, 0);
    const q = quat64();
    quat.setAxisAngle(q, [0, 1, 0], (30 * Math.PI) / 180);
    f.rotations.set(q, 4 * source.humanoid[H.Head]);
    hub.update(f.rotations, f.translations, 0);
    const b = 4 * hub.target.humanoid[H.Head];
    const turned = hub.localRotations.slice(b, b + 4);
    expect(send(rc, { action: 'calibrateHeadForward', characterName: 'Bob' }).reply.ok).toBe(true);
    hub.update(f.rotations, f.translations, 0);
    const fixed = hub.localRotations.slice(b, b + 4);
    expect((angleBetween(turned, fixed) * 180) / Math.PI).toBeCloseTo(30, 6);
    // the rest head (identity local) is what the turned head now gives
    expect(angleBetween(fixed, [0, 0, 0, 1])).toBeLessThan(1e-9);
  });

  it('autoCalibrateAll scales the avatar to the performer (neck heights)', () => {
    const { characters, hubs } = makeFixture();
    const rc = new RemoteControl(characters);
    const hub = hubs.get('Bob')!; // Bob is the source's proportions at 0.9
    hub.setAvatarScale(2);
    const { reply, broadcast } = send(rc, { action: 'autoCalibrateAll', characterName: 'Bob' });
    expect(reply).toEqual({ action: 'autoCalibrateAll', ok: true, characterName: 'Bob' });
    expect(broadcast).toEqual({ action: 'characterDataChanged', characterName: 'Bob' });
    expect(hub.settings.avatarScale).toBeCloseTo(1 / 0.9, 9);
  });
});

describe('remote control: errors name the field and change nothing', () => {
  const cases: [string, unknown, string, string | null][] = [
    ['unknown action', { action: 'explode', characterName: 'Alice' }, 'action', null],
    ['missing action', { characterName: 'Alice' }, 'action', null],
    ['action not a string', { action: 5 }, 'action', null],
    [
      'unknown character',
      { action: 'getCharacterData', characterName: 'Zed' },
      'characterName',
      'getCharacterData',
    ],
    [
      'unknown character (update)',
      { action: 'updateValueRealtime', characterName: 'Zed', property: 'avatarScale', value: 1 },
      'characterName',
      'updateValueRealtime',
    ],
    [
      'unknown parameter',
      { action: 'updateValueRealtime', characterName: 'Alice', property: 'avatarScal', value: 1 },
      'property',
      'updateValueRealtime',
    ],
    [
      'wrong type (string for a number)',
      { action: 'updateValueRealtime', characterName: 'Alice', property: 'avatarScale', value: '1.2' },
      'value',
      'updateValueRealtime',
    ],
    [
      'wrong type (number for a boolean)',
      { action: 'updateValueRealtime', characterName: 'Alice', property: 'leftFingersEnabled', value: 1 },
      'value',
      'updateValueRealtime',
    ],
    [
      'wrong type (null)',
      { action: 'updateValueRealtime', characterName: 'Alice', property: 'leftIndexCurl', value: null },
      'value',
      'updateValueRealtime',
    ],
    [
      'unknown enum option',
      { action: 'updateValueRealtime', characterName: 'Alice', property: 'ikMode', value: 'sometimes' },
      'value',
      'updateValueRealtime',
    ],
    [
      'out of range (high)',
      { action: 'updateValueRealtime', characterName: 'Alice', property: 'avatarScale', value: 3.5 },
      'value',
      'updateValueRealtime',
    ],
    [
      'out of range (low)',
      { action: 'updateValueRealtime', characterName: 'Alice', property: 'rightRingCurl', value: -1.01 },
      'value',
      'updateValueRealtime',
    ],
    [
      'out of range (head degrees)',
      { action: 'updateValueRealtime', characterName: 'Alice', property: 'headRotationOffsetZ', value: 181 },
      'value',
      'updateValueRealtime',
    ],
    [
      'extra field',
      {
        action: 'updateValueRealtime',
        characterName: 'Alice',
        property: 'avatarScale',
        value: 1.5,
        force: true,
      },
      'force',
      'updateValueRealtime',
    ],
    ['extra field (refresh)', { action: 'refresh', verbose: 1 }, 'verbose', 'refresh'],
    [
      'missing field value',
      { action: 'updateValueRealtime', characterName: 'Alice', property: 'avatarScale' },
      'value',
      'updateValueRealtime',
    ],
    ['missing field characterName', { action: 'calibrateIPose' }, 'characterName', 'calibrateIPose'],
    [
      'characterName not a string',
      { action: 'getCharacterData', characterName: ['Alice'] },
      'characterName',
      'getCharacterData',
    ],
    [
      'bad hand',
      { action: 'setHandPosePreset', characterName: 'Alice', hand: 'middle', preset: 'rock' },
      'hand',
      'setHandPosePreset',
    ],
    [
      'unknown preset',
      { action: 'setHandPosePreset', characterName: 'Alice', hand: 'left', preset: 'spock' },
      'preset',
      'setHandPosePreset',
    ],
    ['bad id', { action: 'refresh', id: { a: 1 } }, 'id', 'refresh'],
    ['non-JSON', '{"action": "refresh"', '$', null],
    ['not an object', '[1,2,3]', '$', null],
    ['JSON null', 'null', '$', null],
    ['oversized', JSON.stringify({ action: 'refresh', id: 'x'.repeat(20000) }), '$', null],
    [
      'calibration without a frame yet',
      { action: 'calibrateIPose', characterName: 'Carol' },
      'characterName',
      'calibrateIPose',
    ],
    [
      'hub throws (head forward before any calibration)',
      { action: 'calibrateHeadForward', characterName: 'Carol' },
      'characterName',
      'calibrateHeadForward',
    ],
  ];
  it.each(cases)('%s', (_name, msg, field, action) => {
    const { characters, hubs } = makeFixture();
    const rc = new RemoteControl(characters);
    const before = [...hubs.values()].map(hubState);
    const text = typeof msg === 'string' ? msg : JSON.stringify(msg);
    const out = rc.handle(text);
    expect(out.broadcast).toBeUndefined();
    const reply = JSON.parse(out.reply);
    expect(reply.ok).toBe(false);
    expect(reply.action).toBe(action);
    expect(reply.error.field).toBe(field);
    expect(typeof reply.error.message).toBe('string');
    expect(reply.error.message).not.toMatch(/\n/);
    expect(reply.error.message.length).toBeGreaterThan(5);
    expect([...hubs.values()].map(hubState)).toEqual(before);
  });

  it('error messages say the allowed range and echo a valid id', () => {
    const { characters } = makeFixture();
    const rc = new RemoteControl(characters);
    const { reply } = send(rc, {
      action: 'updateValueRealtime',
      id: 42,
      characterName: 'Alice',
      property: 'avatarScale',
      value: 5,
    });
    expect(reply).toEqual({
      action: 'updateValueRealtime',
      id: 42,
      ok: false,
      error: { field: 'value', message: '5 is not valid for avatarScale: need a number in 0.1..3' },
    });
    const e2 = send(rc, {
      action: 'updateValueRealtime',
      characterName: 'Alice',
      property: 'leftIndexCurl',
      value: 2,
    }).reply.error as Json;
    expect(e2.message).toContain('-1..1');
    const e3 = send(rc, { action: 'getCharacterData', characterName: 'Zed' }).reply.error as Json;
    expect(e3.message).toContain("'Alice', 'Bob', 'Carol'");
  });

  it('a hub method that throws halfway leaves the settings as they were', () => {
    const { characters, hubs } = makeFixture();
    const hub = hubs.get('Alice')!;
    hub.setAvatarScale(1.5);
    hub.setFloorHeight(0.1);
    const before = hubState(hub);
    // the hub's auto calibration changes the scale, then fails
    hub.autoCalibrateAll = () => {
      hub.setAvatarScale(1);
      hub.setFloorHeight(0);
      throw new Error('boom');
    };
    const rc = new RemoteControl(characters);
    const { reply } = send(rc, { action: 'autoCalibrateAll', characterName: 'Alice' });
    expect(reply.ok).toBe(false);
    expect((reply.error as Json).field).toBe('characterName');
    expect((reply.error as Json).message).toContain('boom');
    expect(hubState(hub)).toBe(before);
  });

  it('a malformed current frame is an error, not a poisoned calibration', () => {
    const { characters, hubs, frames, source } = makeFixture();
    const rc = new RemoteControl(characters);
    const hub = hubs.get('Alice')!;
    const before = hubState(hub);
    const bad = randomFrame(source, 2);
    bad.rotations[5] = Number.NaN;
    frames.set('Alice', bad);
    expect(send(rc, { action: 'calibrateIPose', characterName: 'Alice' }).reply.ok).toBe(false);
    frames.set('Alice', { rotations: new Float64Array(4), translations: new Float64Array(3) });
    expect(send(rc, { action: 'autoCalibrateAll', characterName: 'Alice' }).reply.ok).toBe(false);
    expect(hubState(hub)).toBe(before);
  });

  it('handle never throws on non-string input and counts UTF-8 bytes for the size limit', () => {
    const { characters } = makeFixture();
    const rc = new RemoteControl(characters, { maxMessageBytes: 64 });
    for (const x of [undefined, null, 5, {}, []])
      expect(JSON.parse(rc.handle(x as unknown as string).reply).ok).toBe(false);
    // 30 characters of 3 UTF-8 bytes each: 90 bytes, over 64 although 30 + 20 UTF-16 units are not
    const msg = JSON.stringify({ action: 'refresh', id: '\u20ac'.repeat(30) });
    expect(utf8Length(msg)).toBeGreaterThan(64);
    expect(msg.length).toBeLessThan(64);
    expect(JSON.parse(rc.handle(msg).reply).error.field).toBe('$');
    expect(utf8Length('a\u00e9\u20ac\ud83d\ude00')).toBe(1 + 2 + 3 + 4);
  });
});
