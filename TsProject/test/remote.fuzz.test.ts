/**
 * Fuzz of the remote-control protocol (fast-check): 100k random JSON, mutated valid messages and
 * random strings/bytes through RemoteControl.handle on real hubs. No throw; every reply is JSON with
 * `ok` true or false (and a field and message when false); every hub parameter stays within its
 * declared range; the hubs still update to finite poses. Prints the counts.
 */
import fc from 'fast-check';
import { type ActionName, type NumberParameter, PARAMETERS, RemoteControl } from '../src/live/remote';
import { FINGER_PRESET_NAMES, type RetargetHub, validateSettings } from '../src/rig';
import { makeFixture, randomFrame } from './remote.fixture';

const RUNS = 100_000;
const KNOWN_FIELDS = ['$', 'action', 'id', 'characterName', 'property', 'value', 'hand', 'preset'];
const NAMES = ['Alice', 'Bob', 'Carol', 'Zed', ''];

type Msg = Record<string, unknown>;

const paramValue = (p: (typeof PARAMETERS)[number]): fc.Arbitrary<unknown> => {
  if (p.type === 'number') {
    const q = p as NumberParameter;
    return fc.oneof(
      fc.double({ min: q.min, max: q.max, noNaN: true }),
      fc.double({ min: q.min - (q.max - q.min), max: q.max + (q.max - q.min), noNaN: true }),
      fc.constantFrom(q.min, q.max, q.min - 1e-9, q.max + 1e-9, 0, -0),
      fc.double(), // NaN and infinities become null in JSON
    );
  }
  if (p.type === 'boolean') return fc.oneof(fc.boolean(), fc.constantFrom(0, 1, 'true', null));
  return fc.oneof(fc.constantFrom(...p.options), fc.string({ maxLength: 12 }));
};

const validMessage: fc.Arbitrary<Msg> = fc.oneof(
  fc.constant<Msg>({ action: 'refresh' }),
  fc.constantFrom(...NAMES).map((characterName): Msg => ({ action: 'getCharacterData', characterName })),
  fc
    .tuple(fc.constantFrom(...NAMES.slice(0, 3)), fc.constantFrom(...PARAMETERS))
    .chain(([characterName, p]) =>
      paramValue(p).map(
        (value): Msg => ({ action: 'updateValueRealtime', characterName, property: p.name, value }),
      ),
    ),
  fc
    .tuple(
      fc.constantFrom(...NAMES.slice(0, 3)),
      fc.constantFrom('left', 'right', 'both', 'up'),
      fc.constantFrom(...FINGER_PRESET_NAMES, 'spock'),
    )
    .map(
      ([characterName, hand, preset]): Msg => ({ action: 'setHandPosePreset', characterName, hand, preset }),
    ),
  fc
    .tuple(
      fc.constantFrom<ActionName>(
        'calibrateIPose',
        'resetCalibration',
        'calibrateHeadForward',
        'autoCalibrateAll',
      ),
      fc.constantFrom(...NAMES.slice(0, 3)),
    )
    .map(([action, characterName]): Msg => ({ action, characterName })),
);

/** A mutation of a valid message, as text. */
const mutated: fc.Arbitrary<string> = fc
  .tuple(
    validMessage,
    fc.nat(7),
    fc.string({ maxLength: 10 }),
    fc.jsonValue({ maxDepth: 3 }),
    fc.nat(),
    fc.oneof(fc.string({ maxLength: 8 }), fc.integer()),
  )
  .map(([m, op, key, junk, pos, id]) => {
    const msg: Msg = { ...m };
    const keys = Object.keys(msg);
    const k = keys[pos % keys.length];
    switch (op) {
      case 0:
        break;
      case 1:
        delete msg[k];
        break;
      case 2:
        msg[key] = junk;
        break;
      case 3:
        msg[k] = junk;
        break;
      case 4:
        msg.id = id;
        break;
      case 5:
        msg.id = junk;
        break;
    }
    const text = JSON.stringify(msg);
    if (op === 6) return text.slice(0, pos % (text.length + 1)); // truncated
    if (op === 7) {
      const i = pos % text.length;
      return text.slice(0, i) + String.fromCharCode(pos % 128) + text.slice(i + 1); // one character changed
    }
    return text;
  });

const anyText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: mutated },
  { weight: 2, arbitrary: validMessage.map((m) => JSON.stringify(m)) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? 'null') },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 64 }) },
  {
    weight: 1,
    arbitrary: fc
      .uint8Array({ maxLength: 64 })
      .map((b) => new TextDecoder('utf-8', { fatal: false }).decode(b)),
  },
  {
    weight: 1,
    arbitrary: fc.string({ maxLength: 30 }).map((s) => `{"action":"refresh","id":"${s.repeat(800)}"}`),
  },
);

function checkRanges(hub: RetargetHub, where: string): void {
  for (const p of PARAMETERS) {
    const v = p.get(hub);
    if (p.type === 'number') {
      const q = p as NumberParameter;
      // curls and spreads may read past +-1 only in muscleData mode (measured, unclamped)
      const measured = hub.fingers.mode === 'muscleData' && q.min === -1 && q.max === 1;
      if (typeof v !== 'number' || !Number.isFinite(v) || (!measured && (v < q.min || v > q.max)))
        throw new Error(`${where}: ${p.name} = ${v} outside ${q.min}..${q.max}`);
    } else if (p.type === 'boolean') {
      if (typeof v !== 'boolean') throw new Error(`${where}: ${p.name} = ${v}`);
    } else if (!p.options.includes(v as string)) throw new Error(`${where}: ${p.name} = ${v}`);
  }
  validateSettings(hub.exportSettings(), where);
}

describe('remote control fuzz', () => {
  it(`${RUNS} random and mutated messages: no throw, JSON replies, settings within range`, () => {
    const fx = makeFixture();
    const rc = new RemoteControl(fx.characters);
    const counts = { ok: new Map<string, number>(), error: new Map<string, number>() };
    const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
    let n = 0;
    const frames = [0, 1, 2, 3].map((s) => randomFrame(fx.source, 100 + s, 0.3));
    fc.assert(
      fc.property(anyText, (text) => {
        const out = rc.handle(text);
        const reply = JSON.parse(out.reply);
        if (reply.ok === true) {
          bump(counts.ok, reply.action);
          if (out.broadcast !== undefined) JSON.parse(out.broadcast);
        } else if (reply.ok === false) {
          if (typeof reply.error?.field !== 'string' || typeof reply.error?.message !== 'string')
            throw new Error(`bad error reply ${out.reply}`);
          if (out.broadcast !== undefined) throw new Error('an error was broadcast');
          const f = reply.error.field;
          bump(counts.error, KNOWN_FIELDS.includes(f) ? f : '(an unknown field)');
        } else throw new Error(`reply without ok: ${out.reply}`);
        const name = reply.characterName;
        if (reply.ok && typeof name === 'string') checkRanges(fx.hubs.get(name)!, text);
        n++;
        if (n % 1000 === 0) {
          // the hubs still run: feed a new frame, all outputs finite
          const f = frames[(n / 1000) % frames.length];
          for (const [name, hub] of fx.hubs) {
            checkRanges(hub, `after ${n}`);
            if (!hub.isCalibrated) continue;
            fx.frames.set(name, f);
            hub.update(f.rotations, f.translations, 1 / 120);
            if (!hub.localRotations.every(Number.isFinite) || !hub.localTranslations.every(Number.isFinite))
              throw new Error(`${name}: non-finite pose after ${n} messages`);
          }
        }
      }),
      { numRuns: RUNS, seed: 4242 },
    );
    const fmt = (m: Map<string, number>) =>
      [...m.entries()]
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
    const okTotal = [...counts.ok.values()].reduce((a, b) => a + b, 0);
    const errTotal = [...counts.error.values()].reduce((a, b) => a + b, 0);
    console.log(
      `remote fuzz: ${n} messages, ok ${okTotal} (${fmt(counts.ok)}); errors ${errTotal} by field (${fmt(counts.error)})`,
    );
    expect(okTotal + errTotal).toBe(RUNS);
    // the mix reaches every action and every error class
    for (const a of [
      'refresh',
      'getCharacterData',
      'updateValueRealtime',
      'setHandPosePreset',
      'resetCalibration',
    ])
      expect(counts.ok.get(a)).toBeGreaterThan(100);
    for (const f of [...KNOWN_FIELDS, '(an unknown field)']) expect(counts.error.get(f)).toBeGreaterThan(100);
  });
});
