import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { writeFilesAtomically } from '../src/cli/files';
import {
  defaultSettings,
  parseSettings,
  SETTINGS_SCHEMA_VERSION,
  type Settings,
  SettingsError,
  SettingsStore,
  serializeSettings,
  validateSettings,
} from '../src/rig/settings';

const DEFAULT_TEXT = `{
  "schemaVersion": 1,
  "avatarScale": 1,
  "headScale": 1,
  "headRotationOffset": [0, 0, 0],
  "floorHeight": 0,
  "initialHipsHeight": null,
  "chairSeatOffset": 0,
  "footOffsets": {
    "left": { "frontBack": 0, "inOut": 0 },
    "right": { "frontBack": 0, "inOut": 0 }
  },
  "rotationOffsets": {},
  "sourceFilter": {
    "body": { "minCutoff": 4, "beta": 8, "dCutoff": 1 },
    "hands": { "minCutoff": 4, "beta": 8, "dCutoff": 1 },
    "feet": { "minCutoff": 2, "beta": 8, "dCutoff": 2 }
  }
}
`;

function sample(): Settings {
  const s = defaultSettings();
  s.avatarScale = 1.25;
  s.headScale = 0.9;
  s.headRotationOffset = [10, -20.5, 180];
  s.floorHeight = 0.02;
  s.initialHipsHeight = 0.93;
  s.chairSeatOffset = -0.04;
  s.footOffsets.left = { frontBack: 0.01, inOut: -0.005 };
  s.rotationOffsets['mixamorig:LeftArm'] = [0, 0, Math.SQRT1_2, Math.SQRT1_2];
  s.rotationOffsets.Hips = [0, 0, 0, 1];
  return s;
}

/** 1-based line:column of the first occurrence of `needle` in `text` (an independent way to find the spot). */
function where(text: string, needle: string, nth = 0, skip = 0): string {
  let at = -1;
  for (let i = 0; i <= nth; i++) at = text.indexOf(needle, at + 1);
  if (at < 0) throw new Error(`${needle} not in text`);
  at += skip;
  const before = text.slice(0, at).split('\n');
  return `${before.length}:${before[before.length - 1].length + 1}`;
}

describe('settings file format', () => {
  it('defaults serialize to the documented text, which parses back to the defaults', () => {
    expect(serializeSettings(defaultSettings())).toBe(DEFAULT_TEXT);
    expect(parseSettings(DEFAULT_TEXT, 'default.json')).toEqual(defaultSettings());
    expect(SETTINGS_SCHEMA_VERSION).toBe(1);
  });

  it('is stable: rotation offsets sorted by bone name whatever the insertion order', () => {
    const a = sample();
    const b = sample();
    b.rotationOffsets = Object.create(null);
    b.rotationOffsets.Hips = [0, 0, 0, 1];
    b.rotationOffsets['mixamorig:LeftArm'] = [0, 0, Math.SQRT1_2, Math.SQRT1_2];
    const text = serializeSettings(a);
    expect(serializeSettings(b)).toBe(text);
    expect(text).toContain(
      '"Hips": [0, 0, 0, 1],\n    "mixamorig:LeftArm": [0, 0, 0.7071067811865476, 0.7071067811865476]',
    );
    expect(JSON.parse(text)).toEqual({ schemaVersion: 1, ...JSON.parse(JSON.stringify(a)) });
  });

  it('round-trips: parse(serialize(s)) equals s, and serialize(parse(text)) equals text (property)', () => {
    const inRange = (lo: number, hi: number) =>
      fc.oneof(fc.double({ min: lo, max: hi, noNaN: true }), fc.constantFrom(lo, hi, 0, -0));
    const unitQuat = fc
      .tuple(inRange(-1, 1), inRange(-1, 1), inRange(-1, 1), inRange(-1, 1))
      .filter(([x, y, z, w]) => x * x + y * y + z * z + w * w > 1e-6)
      .map(([x, y, z, w]) => {
        const l = Math.sqrt(x * x + y * y + z * z + w * w);
        return [x / l, y / l, z / l, w / l] as [number, number, number, number];
      });
    const foot = fc.record({ frontBack: inRange(-0.5, 0.5), inOut: inRange(-0.5, 0.5) });
    const filter = fc.record({
      minCutoff: inRange(0, 60),
      beta: inRange(0, 100),
      dCutoff: inRange(0.01, 60).filter((v) => v !== 0),
    });
    const settings = fc.record({
      avatarScale: inRange(0.1, 3).filter((v) => v !== 0),
      headScale: inRange(0.1, 3).filter((v) => v !== 0),
      headRotationOffset: fc.tuple(inRange(-180, 180), inRange(-180, 180), inRange(-180, 180)),
      floorHeight: inRange(-10, 10),
      initialHipsHeight: fc.option(inRange(1e-9, 10).filter((v) => v > 0)),
      chairSeatOffset: inRange(-1, 1),
      footOffsets: fc.record({ left: foot, right: foot }),
      rotationOffsets: fc
        .dictionary(fc.string({ unit: 'binary', minLength: 1 }), unitQuat, { maxKeys: 6 })
        .map((d) => Object.assign(Object.create(null), d)),
      sourceFilter: fc.record({ body: filter, hands: filter, feet: filter }),
    });
    fc.assert(
      fc.property(settings, (s) => {
        const text = serializeSettings(s as Settings);
        const back = parseSettings(text, 'prop.json');
        expect(back).toEqual(s);
        for (const k of ['avatarScale', 'floorHeight', 'chairSeatOffset'] as const) {
          expect(Object.is(back[k], s[k])).toBe(true); // -0 stays -0
        }
        for (const g of ['body', 'hands', 'feet'] as const)
          for (const k of ['minCutoff', 'beta'] as const)
            expect(Object.is(back.sourceFilter[g][k], s.sourceFilter[g][k])).toBe(true);
        expect(serializeSettings(back)).toBe(text);
      }),
      { numRuns: 400 },
    );
  });

  it('bone names that are JavaScript specials or need escapes survive', () => {
    const s = defaultSettings();
    for (const name of [
      '__proto__',
      'constructor',
      'toString',
      'a"b\\c',
      'tab\there',
      'line\nbreak',
      '\u0000',
      '\ud800',
      '骨',
    ]) {
      s.rotationOffsets[name] = [1, 0, 0, 0];
    }
    const back = parseSettings(serializeSettings(s), 'names.json');
    expect(Object.keys(back.rotationOffsets).sort()).toEqual(Object.keys(s.rotationOffsets).sort());
    const proto = ['__', 'proto', '__'].join('');
    expect(Object.getOwnPropertyDescriptor(back.rotationOffsets, proto)?.value).toEqual([1, 0, 0, 0]);
    expect(Object.getPrototypeOf(back.rotationOffsets)).toBeNull();
  });

  it('accepts any valid JSON layout and a byte-order mark', () => {
    const text = `\ufeff {"rotationOffsets":{"Hips":[0,0,0,1.0]},"footOffsets":{"right":{"inOut":0,"frontBack":1e-2},"left":{"frontBack":-0.0,"inOut":0}},
      "chairSeatOffset":0,"initialHipsHeight":9.5E-1,"floorHeight":0,"headRotationOffset":[0,0,0],"headScale":1,"avatarScale":1,"schemaVersion":1}`;
    const s = parseSettings(text, 'minified.json');
    expect(s.footOffsets.right.frontBack).toBe(0.01);
    expect(s.initialHipsHeight).toBe(0.95);
    expect(Object.is(s.footOffsets.left.frontBack, -0)).toBe(true);
  });
});

describe('settings errors name the file, the line:column and the field', () => {
  const good = serializeSettings(sample());
  const bad = (from: string, to: string) => {
    expect(good).toContain(from);
    return good.replace(from, to);
  };

  it.each([
    [
      'headRotationOffset[1] out of range',
      '[10, -20.5, 180]',
      '[10, 200, 180]',
      '200',
      'headRotationOffset[1]: 200 is out of range -180..180 degrees',
    ],
    [
      'avatarScale too small',
      '"avatarScale": 1.25',
      '"avatarScale": 0.05',
      '0.05',
      'avatarScale: 0.05 is out of range 0.1..3 (scale)',
    ],
    [
      'headScale a string',
      '"headScale": 0.9',
      '"headScale": "0.9"',
      '"0.9"',
      'headScale: need a number (scale), got the string "0.9"',
    ],
    [
      'floor in centimetres',
      '"floorHeight": 0.02',
      '"floorHeight": 20',
      '20',
      'floorHeight: 20 is out of range -10..10 metres',
    ],
    [
      'hips height zero',
      '"initialHipsHeight": 0.93',
      '"initialHipsHeight": 0',
      '0',
      'initialHipsHeight: 0 is out of range above 0 up to 10 metres (or null)',
    ],
    [
      'foot offset too big',
      '"inOut": -0.005',
      '"inOut": 3',
      '3',
      'footOffsets.left.inOut: 3 is out of range -0.5..0.5 metres',
    ],
    [
      'quaternion too short',
      '"Hips": [0, 0, 0, 1]',
      '"Hips": [0, 0, 1]',
      '[0, 0, 1]',
      'rotationOffsets.Hips: need an array of 4 numbers (quaternion [x, y, z, w]), got an array of 3',
    ],
    [
      'quaternion not unit',
      '"Hips": [0, 0, 0, 1]',
      '"Hips": [0, 0, 0, 0.5]',
      '[0, 0, 0, 0.5]',
      'rotationOffsets.Hips: not a unit quaternion (length 0.5',
    ],
    [
      'quaternion component null',
      '"Hips": [0, 0, 0, 1]',
      '"Hips": [0, null, 0, 1]',
      'null, 0, 1',
      'rotationOffsets.Hips[1]: need a number',
    ],
    [
      'bone name needing quotes',
      '"mixamorig:LeftArm": [0, 0, 0.7071067811865476, 0.7071067811865476]',
      '"mixamorig:LeftArm": true',
      'true',
      'rotationOffsets["mixamorig:LeftArm"]: need an array of 4 numbers',
    ],
    [
      'unknown field with a suggestion',
      '"headScale": 0.9',
      '"headScal": 0.9',
      '0.9',
      'headScal: unknown field (known: schemaVersion, avatarScale, ',
    ],
    [
      'newer schema version',
      '"schemaVersion": 1',
      '"schemaVersion": 2',
      '2',
      'schemaVersion: version 2 is newer than this build reads (1); update KindRetargeting',
    ],
    [
      'unknown schema version',
      '"schemaVersion": 1',
      '"schemaVersion": 0',
      '0',
      'schemaVersion: unknown version 0 (this build reads 1)',
    ],
    [
      'fractional schema version',
      '"schemaVersion": 1',
      '"schemaVersion": 1.5',
      '1.5',
      'schemaVersion: need an integer, got 1.5',
    ],
  ])('%s', (_name, from, to, token, message) => {
    const text = bad(from, to);
    // the value's place, found independently: the token inside the replaced text
    expect(to).toContain(token);
    const at = where(text, to, 0, to.indexOf(token));
    let err: unknown;
    try {
      parseSettings(text, 'alice.json');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SettingsError);
    expect((err as Error).message).toContain(`alice.json:${at}: ${message}`);
  });

  it('an unknown field suggests the nearest known one', () => {
    expect(() => parseSettings(bad('"headScale"', '"headScal"'), 'a.json')).toThrow(
      /did you mean 'headScale'\?/,
    );
  });

  it.each([
    [
      'missing schema version',
      (t: string) => t.replace('  "schemaVersion": 1,\n', ''),
      'a.json:1:1: schemaVersion: missing: not a settings file of a known version (this build reads 1)',
    ],
    [
      'missing field',
      (t: string) => t.replace('  "chairSeatOffset": -0.04,\n', ''),
      'a.json:1:1: chairSeatOffset: missing',
    ],
    ['missing foot', (t: string) => t.replace(/,\n\s*"right": \{[^}]*\}/, ''), 'footOffsets.right: missing'],
    ['not an object', () => '[1, 2]', 'a.json:1:1: need a JSON object of settings, got an array of 2'],
  ])('%s', (_name, edit, message) => {
    expect(() => parseSettings(edit(good), 'a.json')).toThrow(message);
  });

  it.each([
    [
      'truncated file (a crash mid-save)',
      (t: string) => t.slice(0, 120),
      /^a\.json:\d+:\d+: not valid JSON: /,
    ],
    ['empty file', () => '', 'a.json:1:1: not valid JSON: the file is empty; expected a JSON object'],
    ['blank file', () => '  \n ', 'a.json:2:2: not valid JSON: the file is empty'],
    [
      'trailing comma',
      (t: string) => t.replace('"chairSeatOffset": -0.04,', '"chairSeatOffset": -0.04,,'),
      /a\.json:8:28: not valid JSON: unexpected character ","; expected a "key" string/,
    ],
    [
      'single quotes',
      (t: string) => t.replace('"headScale"', "'headScale'"),
      /a\.json:4:3: not valid JSON: unexpected character "'"; expected a "key" string/,
    ],
    [
      'NaN literal',
      (t: string) => t.replace('0.9', 'NaN'),
      /a\.json:4:16: not valid JSON: unexpected character "N"; expected a value/,
    ],
    [
      'leading zero',
      (t: string) => t.replace('0.9', '00.9'),
      /a\.json:4:16: not valid JSON: malformed number '00/,
    ],
    [
      'huge number',
      (t: string) => t.replace('0.9', '1e999'),
      /a\.json:4:16: not valid JSON: number 1e999 is out of the double range/,
    ],
    [
      'duplicate key',
      (t: string) => t.replace('"headScale": 0.9,', '"headScale": 0.9, "headScale": 1,'),
      /a\.json:4:21: not valid JSON: duplicate key "headScale"/,
    ],
    [
      'garbage after',
      (t: string) => `${t}}`,
      /a\.json:23:1: not valid JSON: unexpected character "}" after the JSON value/,
    ],
    [
      'raw control character in a string',
      (t: string) => t.replace('Hips', 'Hi\u0001ps'),
      /not valid JSON: control character in a string/,
    ],
    ['bad escape', (t: string) => t.replace('Hips', 'Hi\\qps'), /not valid JSON: bad escape \\q/],
    ['unterminated string', () => '{"schemaVersion', /a\.json:1:2: not valid JSON: unterminated string/],
    ['deep nesting', () => '['.repeat(100000), /not valid JSON: nested deeper than 64 levels/],
  ])('corrupt JSON: %s', (_name, edit, message) => {
    expect(() => parseSettings(edit(good), 'a.json')).toThrow(message);
  });

  it('agrees with JSON.parse on what is JSON (property: never "not valid JSON" for JSON, always for non-JSON)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.json(), fc.string()), (text) => {
        let jsonOk = true;
        try {
          JSON.parse(text);
        } catch {
          jsonOk = false;
        }
        try {
          parseSettings(text, 'x.json');
          return jsonOk; // only a settings file parses
        } catch (e) {
          expect(e).toBeInstanceOf(SettingsError);
          return (e as Error).message.includes('not valid JSON') !== jsonOk;
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('serialize refuses invalid settings (a bad value is never written)', () => {
    const s = sample();
    s.headRotationOffset[2] = Number.NaN;
    expect(() => serializeSettings(s)).toThrow(
      'serializeSettings: headRotationOffset[2]: need a number (degrees), got NaN',
    );
    const t = sample() as Settings & { extra?: number };
    t.extra = 1;
    expect(() => serializeSettings(t)).toThrow('serializeSettings: extra: unknown field');
  });

  it('validateSettings checks in-memory objects (typed arrays accepted) and copies them', () => {
    const s = sample();
    (s.rotationOffsets as Record<string, unknown>).Hips = new Float64Array([0, 0, 0, 1]);
    const v = validateSettings(s, 'state');
    expect(v.rotationOffsets.Hips).toEqual([0, 0, 0, 1]);
    expect(v.footOffsets).not.toBe(s.footOffsets);
    expect(() => validateSettings({ ...s, schemaVersion: 3 }, 'state')).toThrow(
      'state: schemaVersion: version 3 is newer',
    );
    expect(() => validateSettings({ ...s, avatarScale: undefined }, 'state')).toThrow(
      'state: avatarScale: missing',
    );
    expect(() => validateSettings({ ...s, floorHeight: () => 0 }, 'state')).toThrow(
      'state: floorHeight: need a number (metres), got function',
    );
    expect(() => validateSettings(null, 'state')).toThrow('state: need a JSON object of settings, got null');
  });
});

describe('SettingsStore keeps the previous settings in force when a load fails', () => {
  it('load, failed loads, failed updates', () => {
    const store = new SettingsStore();
    const first = store.load(serializeSettings(sample()), 'alice.json');
    expect(first).toEqual(sample());
    const before = store.current;
    expect(() => store.load('{"schemaVersion": 1, "avatarScale": ', 'alice.json')).toThrow(SettingsError);
    expect(store.current).toBe(before);
    expect(store.lastError?.message).toMatch(/^alice\.json:1:37: not valid JSON: unexpected end of file/);
    const err = store.tryLoad(
      serializeSettings(sample()).replace('"schemaVersion": 1', '"schemaVersion": 7'),
      'alice.json',
    );
    expect(err?.path).toBe('schemaVersion');
    expect(err?.line).toBe(2);
    expect(store.current).toBe(before);
    expect(() => store.update({ avatarScale: 5 })).toThrow('settings: avatarScale: 5 is out of range 0.1..3');
    expect(store.current).toBe(before);
    expect(store.current).toEqual(sample());
    // current is frozen: changes go through set/update/load
    expect(() => {
      (store.current as Settings).avatarScale = 2;
    }).toThrow(TypeError);
    expect(() => {
      (store.current.headRotationOffset as number[])[0] = 2;
    }).toThrow(TypeError);
    expect(store.update({ avatarScale: 2 }).avatarScale).toBe(2);
    expect(store.current.headScale).toBe(0.9);
    expect(store.lastError).toBeNull();
    expect(store.tryLoad(DEFAULT_TEXT, 'alice.json')).toBeNull();
    expect(store.current).toEqual(defaultSettings());
    expect(store.serialize()).toBe(DEFAULT_TEXT);
  });

  it('the intended file flow: atomic save, a corrupt or newer file on disk, the last good settings stay', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-settings-'));
    try {
      const file = path.join(dir, 'alice.settings.json');
      const store = new SettingsStore();
      // save (the host's job: temp file then rename) and load back
      writeFilesAtomically([{ path: file, data: serializeSettings(sample()) }]);
      store.load(fs.readFileSync(file, 'utf8'), file);
      const good = store.current;
      // a crash mid-save by a non-atomic writer leaves half a file: the load fails, nothing changes
      fs.writeFileSync(file, serializeSettings(sample()).slice(0, 200));
      expect(store.tryLoad(fs.readFileSync(file, 'utf8'), file)?.message).toContain(`${file}:`);
      expect(store.current).toBe(good);
      // a file from a newer build
      fs.writeFileSync(file, serializeSettings(sample()).replace('"schemaVersion": 1', '"schemaVersion": 2'));
      const text = fs.readFileSync(file, 'utf8');
      expect(() => store.load(text, file)).toThrow(
        `${file}:${where(text, '2,')}: schemaVersion: version 2 is newer`,
      );
      expect(store.current).toBe(good);
      // saving the settings in force repairs the file
      writeFilesAtomically([{ path: file, data: store.serialize() }]);
      expect(parseSettings(fs.readFileSync(file, 'utf8'), file)).toEqual(sample());
      expect(fs.readdirSync(dir)).toEqual(['alice.settings.json']); // no temp file left
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects invalid initial settings', () => {
    expect(() => new SettingsStore({ ...defaultSettings(), headScale: 0 })).toThrow(
      'initial settings: headScale: 0 is out of range 0.1..3',
    );
  });
});
