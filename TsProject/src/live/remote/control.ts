/**
 * The remote-control dispatcher: one JSON text message in, a reply for the sender and maybe a
 * broadcast for every other client out. Transport-free and engine-free (the socket is the host's:
 * src/live/node/remoteServer.ts in Node, C# in Unity).
 *
 * Protocol (JSON text, one message per WebSocket message; an optional `id`, string or number, in any
 * request is echoed in its reply):
 * - `{"action":"refresh"}` -> `{"action":"refresh","ok":true,"characters":[names],"handPosePresets":[names]}`
 *   (with a scope, {@link RemoteControl.setScope}, only the characters in it; others are unknown)
 * - `{"action":"getCharacterData","characterName":s}` -> `{..., "ok":true,"characterName":s,
 *   "parameters":[{"name","label","group","type":"number"|"boolean"|"enum","value","min"?,"max"?,
 *   "step"?,"unit"?,"options"?}],"aliases":[the same, plus "aliasOf":[names]]}` (the table of
 *   params.ts and the original KindRetargeting's names, PARAMETER_ALIASES, with current values)
 * - `{"action":"updateValueRealtime","characterName":s,"property":name,"value":v}` -> `{...,"ok":true,
 *   "characterName","property","value":applied}`; broadcast `{"action":"valueChanged","characterName",
 *   "property","value"}`. `property` may be an original name (PARAMETER_ALIASES); the reply and the
 *   broadcast then name it as sent and add `"values"`: the parameters it changed, by their own names.
 * - `{"action":"setHandPosePreset","characterName":s,"hand":"left"|"right"|"both","preset":name}`
 *   (presets of src/rig/fingersTable.ts, or the original's Korean names KOREAN_PRESET_NAMES: 가위, 바위, 보,
 *   브이, 검지, 초기화) -> `{...,"ok":true,"characterName","hand","preset":this project's name}`
 * - `{"action":"calibrateIPose"|"resetCalibration"|"calibrateHeadForward"|"autoCalibrateAll",
 *   "characterName":s}` -> `{...,"ok":true,"characterName"}`; calibrateIPose and autoCalibrateAll use
 *   the character's current source frame (an error before the first frame).
 * - setHandPosePreset and the calibrations broadcast `{"action":"characterDataChanged","characterName"}`
 *   (other clients re-fetch).
 * - Any error: `{"action":<the action when it is a known one, else null>,"ok":false,"id"?,"error":
 *   {"field":<JSON path of the bad field: action, characterName, property, value, hand, preset, id,
 *   an unknown field's name; "$" for the whole message>,"message":<one line>}}`, and nothing changes.
 *   A hub method that throws is an error too (field `characterName`); after a failed calibration the
 *   settings in force before it are put back (`applySettings` of what `exportSettings` gave before).
 */

import type { RetargetHub, Settings } from '../../rig';
import { FINGER_PRESET_NAMES, type FingerHand } from '../../rig/fingersTable';

/**
 * The original KindRetargeting's hand pose preset names (its design document: 가위, 바위, 보, 브이, 검지,
 * 초기화) -> this project's; setHandPosePreset accepts either.
 */
export const KOREAN_PRESET_NAMES: Readonly<Record<string, (typeof FINGER_PRESET_NAMES)[number]>> =
  Object.freeze({
    가위: 'scissors',
    바위: 'rock',
    보: 'paper',
    브이: 'v',
    검지: 'index-point',
    초기화: 'reset',
  });

/** A preset name as given, or this project's name for one of the original's Korean names. */
function presetName(name: string): string {
  // only the table's own entries are strings (inherited members such as 'toString' are functions)
  const mapped = (KOREAN_PRESET_NAMES as Readonly<Record<string, unknown>>)[name];
  return typeof mapped === 'string' ? mapped : name;
}

import type { LiveCharacters, LiveFrame } from './characters';
import {
  checkParameterValue,
  describeParameter,
  findAlias,
  findParameter,
  PARAMETER_ALIASES,
  PARAMETERS,
  setParameter,
} from './params';
import {
  ACTIONS,
  type ActionName,
  type CalibrationAction,
  issueToError,
  oneLine,
  type ProtocolError,
  REQUEST_SCHEMAS,
} from './schema';

export interface RemoteControlOptions {
  /**
   * The characters served (the original's RetargetingRemoteController.registeredCharacters): `refresh`
   * lists only these and an action naming another gets the unknown-character error. Absent or null:
   * every character of the registry. {@link RemoteControl.setScope} changes it.
   */
  scope?: Iterable<string> | null;
  /** Largest accepted message, UTF-8 bytes (default 16384); a longer one is an error reply. */
  maxMessageBytes?: number;
  /**
   * Called after every applied change (not for reads or errors), e.g. for a host's log. Must not
   * throw (a throw is caught and ignored).
   */
  onChange?: (event: {
    clientId?: string;
    action: ActionName;
    characterName: string;
    property?: string;
    value?: unknown;
  }) => void;
}

/** What one message gives: the reply for the sender and, for changes, a broadcast for the others. */
export interface RemoteResult {
  reply: string;
  broadcast?: string;
}

export const DEFAULT_MAX_MESSAGE_BYTES = 16384;

/** UTF-8 length of a string, counting at most up to `limit + 1` (enough to say "over the limit"). */
export function utf8Length(s: string, limit = Number.POSITIVE_INFINITY): number {
  let n = 0;
  for (let i = 0; i < s.length && n <= limit; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/** The error reply text: `{"action","ok":false,"id"?,"error":{"field","message"}}`. */
export function errorReply(action: string | null, error: ProtocolError, id?: string | number): string {
  const out: Record<string, unknown> = { action };
  if (id !== undefined) out.id = id;
  out.ok = false;
  out.error = { field: error.field, message: oneLine(error.message) };
  return JSON.stringify(out);
}

class Fail {
  constructor(readonly error: ProtocolError) {}
}

function fail(field: string, message: string): never {
  throw new Fail({ field, message });
}

function validId(v: unknown): string | number | undefined {
  if (typeof v === 'string' && v.length <= 256) return v;
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  return undefined;
}

function listNames(names: readonly string[], max = 10): string {
  const shown = names.slice(0, max).map((n) => `'${n}'`);
  if (names.length > max) shown.push(`and ${names.length - max} more`);
  return shown.length > 0 ? shown.join(', ') : '(none)';
}

/** What is wrong with a source frame for a skeleton of `n` bones (lengths `4n`/`3n`, finite), or null. */
function frameProblem(frame: LiveFrame, n: number): string | null {
  for (const [field, arr, k] of [
    ['rotations', frame.rotations, 4],
    ['translations', frame.translations, 3],
  ] as const) {
    if (!arr || arr.length !== k * n) return `has ${field} of length ${arr?.length}, expected ${k * n}`;
    for (let i = 0; i < arr.length; i++)
      if (!Number.isFinite(arr[i])) return `has a non-finite value at ${field}[${i}]`;
  }
  return null;
}

/** The dispatcher. `handle` never throws. */
export class RemoteControl {
  readonly characters: LiveCharacters;
  readonly maxMessageBytes: number;
  private readonly onChange: RemoteControlOptions['onChange'];
  private served: ReadonlySet<string> | null = null;

  constructor(characters: LiveCharacters, options: RemoteControlOptions = {}) {
    this.characters = characters;
    this.setScope(options.scope ?? null);
    const max = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    if (!(Number.isInteger(max) && max > 0))
      throw new RangeError(`RemoteControl: maxMessageBytes ${max}: need a positive integer`);
    this.maxMessageBytes = max;
    this.onChange = options.onChange;
  }

  /**
   * Serve only the named characters (null: every character). `refresh` lists the registry's names
   * that are in the scope, in the registry's order; an action naming a character outside it gets the
   * unknown-character error (field `characterName`), as for a name the registry does not know.
   */
  setScope(names: Iterable<string> | null): void {
    this.served = names === null ? null : new Set(names);
  }

  /** The served characters: null for every character, else their names. */
  get scope(): ReadonlySet<string> | null {
    return this.served;
  }

  /** The registry's names in the scope, in the registry's order. */
  private names(): string[] {
    const all = this.characters.names();
    const served = this.served;
    return served ? all.filter((n) => served.has(n)) : [...all];
  }

  /**
   * Handle one message. `text` is the JSON text of a request; `clientId` names the sender for
   * `onChange`. Returns the reply (JSON text) and, for a change, the broadcast for the other clients.
   * Never throws: a non-JSON, oversized or invalid message, or a hub that throws, is an error reply.
   */
  handle(text: string, clientId?: string): RemoteResult {
    let action: string | null = null;
    let id: string | number | undefined;
    try {
      if (typeof text !== 'string') fail('$', `need a JSON text message, got ${typeof text}`);
      if (text.length > this.maxMessageBytes || utf8Length(text, this.maxMessageBytes) > this.maxMessageBytes)
        fail('$', `message is over the limit of ${this.maxMessageBytes} bytes`);
      let msg: unknown;
      try {
        msg = JSON.parse(text);
      } catch (e) {
        fail('$', `not JSON: ${(e as Error).message}`);
      }
      if (msg === null || typeof msg !== 'object' || Array.isArray(msg))
        fail(
          '$',
          `need a JSON object with an "action", got ${Array.isArray(msg) ? 'an array' : JSON.stringify(msg)}`,
        );
      const m = msg as Record<string, unknown>;
      id = validId(m.id);
      const a = m.action;
      if (a === undefined) fail('action', `missing field action (one of ${ACTIONS.join(', ')})`);
      if (typeof a !== 'string' || !(ACTIONS as readonly string[]).includes(a))
        fail(
          'action',
          `unknown action ${typeof a === 'string' ? JSON.stringify(a.slice(0, 40)) : typeof a}: need one of ${ACTIONS.join(', ')}`,
        );
      action = a;
      const parsed = REQUEST_SCHEMAS[a as ActionName].safeParse(m);
      if (!parsed.success) throw new Fail(issueToError(parsed.error.issues, m));
      return this.dispatch(a as ActionName, parsed.data as Record<string, unknown>, id, clientId);
    } catch (e) {
      const error: ProtocolError =
        e instanceof Fail ? e.error : { field: '$', message: `internal error: ${String(e)}` };
      return { reply: errorReply(action, error, id) };
    }
  }

  private hubOf(name: string): RetargetHub {
    let hub: RetargetHub | undefined;
    try {
      hub = this.served && !this.served.has(name) ? undefined : this.characters.hub(name);
    } catch (e) {
      fail('characterName', `character registry failed: ${(e as Error)?.message ?? String(e)}`);
    }
    if (!hub)
      fail(
        'characterName',
        `unknown character ${JSON.stringify(name.slice(0, 60))}: known are ${listNames(this.names())}`,
      );
    return hub;
  }

  private dispatch(
    action: ActionName,
    req: Record<string, unknown>,
    id: string | number | undefined,
    clientId: string | undefined,
  ): RemoteResult {
    const reply = (fields: Record<string, unknown>): string => {
      const out: Record<string, unknown> = { action };
      if (id !== undefined) out.id = id;
      out.ok = true;
      return JSON.stringify(Object.assign(out, fields));
    };
    const changed = (characterName: string) =>
      JSON.stringify({ action: 'characterDataChanged', characterName });
    switch (action) {
      case 'refresh':
        return {
          reply: reply({
            characters: this.names(),
            handPosePresets: [...FINGER_PRESET_NAMES],
          }),
        };
      case 'getCharacterData': {
        const characterName = req.characterName as string;
        const hub = this.hubOf(characterName);
        return {
          reply: reply({
            characterName,
            parameters: PARAMETERS.map((p) => describeParameter(p, hub)),
            aliases: PARAMETER_ALIASES.map((a) => ({
              ...describeParameter(a, hub),
              aliasOf: [...a.aliasOf],
            })),
          }),
        };
      }
      case 'updateValueRealtime': {
        const characterName = req.characterName as string;
        const property = req.property as string;
        const hub = this.hubOf(characterName);
        const p = findParameter(property);
        if (!p)
          fail(
            'property',
            `unknown parameter ${JSON.stringify(property.slice(0, 60))} (getCharacterData lists the parameters)`,
          );
        const checked = checkParameterValue(p, req.value);
        if (!checked.ok) fail('value', checked.message);
        try {
          setParameter(p, hub, checked.value);
        } catch (e) {
          fail('value', `${p.name}: ${(e as Error)?.message ?? String(e)}`);
        }
        const value = p.get(hub);
        this.notify({ clientId, action, characterName, property, value });
        const alias = findAlias(property);
        if (alias) {
          // the original name goes back as sent; the parameters it changed, under their own names, too
          const values: Record<string, unknown> = {};
          for (const n of alias.aliasOf) values[n] = findParameter(n)!.get(hub);
          return {
            reply: reply({ characterName, property, value, values }),
            broadcast: JSON.stringify({ action: 'valueChanged', characterName, property, value, values }),
          };
        }
        return {
          reply: reply({ characterName, property, value }),
          broadcast: JSON.stringify({ action: 'valueChanged', characterName, property, value }),
        };
      }
      case 'setHandPosePreset': {
        const characterName = req.characterName as string;
        const hand = req.hand as FingerHand | 'both';
        const preset = presetName(req.preset as string);
        const hub = this.hubOf(characterName);
        if (!(FINGER_PRESET_NAMES as readonly string[]).includes(preset))
          fail(
            'preset',
            `unknown hand pose preset ${JSON.stringify(preset.slice(0, 60))}: need one of ${listNames(FINGER_PRESET_NAMES)}`,
          );
        const hands: FingerHand[] = hand === 'both' ? ['left', 'right'] : [hand];
        const before = Float64Array.from(hub.fingers.muscles);
        try {
          for (const h of hands) hub.fingers.applyPreset(h, preset);
        } catch (e) {
          hub.fingers.muscles.set(before);
          fail('preset', `${preset}: ${(e as Error)?.message ?? String(e)}`);
        }
        this.notify({ clientId, action, characterName, value: { hand, preset } });
        return { reply: reply({ characterName, hand, preset }), broadcast: changed(characterName) };
      }
      default: {
        const characterName = req.characterName as string;
        const hub = this.hubOf(characterName);
        this.calibrate(action as CalibrationAction, characterName, hub);
        this.notify({ clientId, action, characterName });
        return { reply: reply({ characterName }), broadcast: changed(characterName) };
      }
    }
  }

  private calibrate(action: CalibrationAction, characterName: string, hub: RetargetHub): void {
    let frame: ReturnType<LiveCharacters['currentFrame']>;
    if (action === 'calibrateIPose' || action === 'autoCalibrateAll') {
      try {
        frame = this.characters.currentFrame(characterName);
      } catch (e) {
        fail('characterName', `character registry failed: ${(e as Error)?.message ?? String(e)}`);
      }
      if (!frame) fail('characterName', `${action}: no source frame received yet for ${characterName}`);
      const bad = frameProblem(frame, hub.source.boneCount);
      if (bad) fail('characterName', `${action}: the current source frame of ${characterName} ${bad}`);
    }
    const saved: Settings = hub.exportSettings();
    const ikMode = hub.ikMode;
    try {
      switch (action) {
        case 'calibrateIPose':
          hub.calibrateIPose(frame!);
          break;
        case 'resetCalibration':
          hub.resetCalibration();
          break;
        case 'calibrateHeadForward':
          hub.calibrateHeadForward();
          break;
        case 'autoCalibrateAll':
          hub.autoCalibrateAll(frame!);
          break;
      }
    } catch (e) {
      // put the settings in force back (a failed calibration may have changed the scale or offsets)
      try {
        hub.applySettings(saved);
      } catch {
        // best effort: the saved settings were valid when exported
      }
      hub.ikMode = ikMode;
      fail('characterName', `${action} failed for ${characterName}: ${(e as Error)?.message ?? String(e)}`);
    }
  }

  private notify(event: Parameters<NonNullable<RemoteControlOptions['onChange']>>[0]): void {
    if (!this.onChange) return;
    try {
      this.onChange(event);
    } catch {
      // a host's log hook never breaks the protocol
    }
  }
}
