/**
 * The PuerTS bridge: the hub registry and every function C# calls (src/unity/main.ts re-exports them;
 * the package README documents them). Engine-free: no Node API, no `CS`/`puer` globals; runs in a bare
 * V8 or QuickJS context.
 *
 * - `createHub(setupJson)`: a {@link RetargetHub} from the rest data of the source and target skeletons
 *   (Unity coordinates, mirrored here, {@link ./layout}); returns a handle >= 1.
 * - `update(handle, input, dt)`: one avatar-frame: source WORLD transforms in (Unity coordinates),
 *   converted to local rotations and translations on the source skeleton, the live source stage (raw
 *   pose kept, One-Euro filter per `settings.sourceFilter`, src/rig/sourceStage.ts) and the hub run
 *   (`RetargetHub.updateLive`), target LOCAL
 *   rotations, hips position and scales out (layouts: src/unity/layout.ts). The first frame calibrates
 *   (automatic T-pose reference, as `RetargetHub.calibrate(frame)`); the source world is Y up
 *   (`sourceUp` '+y'). Allocation-free per frame but for a Float32Array view when C# passes a new
 *   ArrayBuffer, as PuerTS does on every call. The returned ArrayBuffer is the hub's own output buffer,
 *   the same object every call: PuerTS copies it anyway as it crosses to C# (a new byte[] filled by
 *   Marshal.Copy in `Puerts.ArrayBuffer(IntPtr, int)`, Runtime/Src/ArrayBuffer.cs of PuerTS 2.2.3, reached
 *   from the reflection JsEnv's GetArrayBufferFromValue and from the IL2CPP bridge's get_value_binary).
 * - `command(handle, json)`: the shells' inspector actions, in the remote-control protocol's message
 *   shapes (src/live/remote) addressed to this hub, plus the bridge-only actions exportSettings,
 *   applySettings, attachProp, detachProp, listProps, sourcePose (the raw and the One-Euro-filtered
 *   world pose of a source bone, Unity coordinates).
 * - `remote(text, clientId, scope?)`: the remote-control protocol over every hub, or over the hubs named
 *   in `scope` (RetargetingRemoteController.registeredCharacters) (the C# WebSocket transport); its
 *   result also names the characters whose settings the host saves (`save`: a remote autoCalibrateAll).
 * - `exportState()` / `importState(json)`: every hub (setup, calibration, settings, props, weights,
 *   finger muscles, IK memory, last frame and output) for hot reload.
 * - Webcam mocap: a setup with `source.mocap: true` (the mocap stream's 21 bones, C#'s
 *   KindBrowserMocapSource) gets a MocapHubDriver (src/mocap/hubDriver.ts) around its hub; `update` then
 *   takes the input's confidence tail (layout.ts) and steps the driver (confidence limb IK weights, causal
 *   foot contact pins) on the clock of the summed `dt`s. A hot reload carries the driver: exportState
 *   writes its memory (limb ramps, pins, contact detector history, clock; MocapHubDriver.exportState) under
 *   the hub's `mocap`, and importState restores it, so the hub runs on as without the reload
 *   (test/unity.mocap.test.ts). A state without `mocap` (from a bundle before it) gives a new driver: the
 *   limb ramps restart at the next frame's confidences (a first frame: no ramp, the hub's own IK weight
 *   counts as 0 for that frame), the detector restarts with no history (pins released) and the clock at 0.
 *
 * Settings (setup `settings`, `applySettings`, `exportSettings`) are the project's settings format
 * (src/rig/settings.ts). Values with a handedness are mirrored at this boundary like poses, so the C#
 * side and its remotes speak Unity's terms: the head rotation offset's Y and Z Euler angles change sign
 * (a rotation (x, y, z, w) -> (x, -y, -z, w) is Euler (x, y, z) -> (x, -y, -z) in Unity's Z-X-Y order),
 * in `headRotationOffsetY/Z` parameter values, `getCharacterData` lists, `settings.headRotationOffset`,
 * and each `settings.rotationOffsets` quaternion. Distances (floor, foot offsets, scales) need nothing.
 *
 * Errors: `createHub`, `update`, `importState` throw an Error whose message names the field (and the
 * expected value); `command` and `remote` never throw, they reply `{"ok":false,"error":{"field","message"}}`.
 */

import { type LiveFrame, RemoteControl } from '../live/remote';
import type { MocapDriverState } from '../mocap/hubDriver';
import { type HubState, RetargetHub, type Settings, validateSettings } from '../rig';
import { characters, Fail, failReply } from './bridgeCommand';
import { checkNameFree, type Entry, entryOf, hubs, newEntry } from './bridgeRegistry';
import {
  BRIDGE_STATE_VERSION,
  BridgeError,
  isObject,
  mirrorText,
  numberArray,
  type ParsedSetup,
  parseSetup,
  show,
} from './bridgeSetup';
import { LAYOUT_VERSION, outputFloats } from './layout';

export { command } from './bridgeCommand';
export { update } from './bridgeFrame';
export {
  apiVersion,
  BRIDGE_STATE_VERSION,
  BridgeError,
  type HubSetup,
  PACKAGE_VERSION,
  type SetupSkeleton,
} from './bridgeSetup';

export { LAYOUT_VERSION } from './layout';

let nextHandle = 1;
/**
 * Create a hub from the setup JSON (module docs; Unity coordinates). Returns its handle (>= 1).
 * @throws BridgeError naming the bad field (`setup.source.parents[3]: ...`).
 */
export function createHub(setupJson: string): number {
  const p = parseSetup(setupJson);
  checkNameFree(p.name);
  let hub: RetargetHub;
  let pending: Settings | null = null;
  try {
    let settings: Partial<Settings> | undefined;
    if (p.settings) {
      const { rotationOffsets, ...rest } = p.settings;
      settings = { ...rest, rotationOffsets: Object.create(null) };
      if (Object.keys(rotationOffsets).length > 0) pending = p.settings;
    }
    hub = new RetargetHub(p.source, p.target, {
      hipsMode: p.hipsMode,
      sourceUp: '+y',
      ik: p.ik,
      fingers: p.fingers,
      settings,
    });
  } catch (e) {
    throw new BridgeError(`setup: ${(e as Error).message}`);
  }
  if (pending) {
    const bad = Object.keys(pending.rotationOffsets).filter((nm) => !p.target.names.includes(nm));
    if (bad.length > 0)
      throw new BridgeError(
        `setup.settings.rotationOffsets: no target transform named ${bad.slice(0, 5).join(', ')}`,
      );
  }
  const handle = nextHandle++;
  const e = newEntry(handle, setupJson, p, hub);
  e.pendingOffsets = pending;
  hubs.set(handle, e);
  return handle;
}

/** Forget a hub (unknown handles are ignored: the C# side may dispose twice). */
export function destroyHub(handle: number): void {
  hubs.delete(handle);
}

let remoteControl: RemoteControl | null = null;

/**
 * The remote actions after which the host saves the character's settings file: the original's
 * RetargetingRemoteController ends autoCalibrateAll with "CalibrateHeadToForward() + 저장" (its design
 * document, the autoCalibrateAll sequence); its table gives no other action a save.
 */
const SAVING_ACTIONS: readonly string[] = ['autoCalibrateAll'];

/** The characters the current {@link remote} call asks the host to save (filled by onChange). */
let remoteSaves: string[] = [];

function newRemoteControl(): RemoteControl {
  return new RemoteControl(characters(null), {
    // called after an applied change only (never for an error reply)
    onChange: (ev) => {
      if (SAVING_ACTIONS.includes(ev.action) && !remoteSaves.includes(ev.characterName))
        remoteSaves.push(ev.characterName);
    },
  });
}

/** The scope text of the last {@link remote} call, as given (parsed once per change). */
let remoteScopeText: string | null = null;

/** The scope argument of {@link remote} -> the names served, or null for every hub. */
function parseScope(scope: unknown): string[] | null {
  if (scope === undefined || scope === null || scope === '') return null;
  if (typeof scope !== 'string')
    throw new Fail(
      '$',
      `remote(): scope must be a JSON array of character names or empty, got ${show(scope)}`,
    );
  let v: unknown;
  try {
    v = JSON.parse(scope);
  } catch (err) {
    throw new Fail('$', `remote(): scope is not JSON: ${(err as Error)?.message ?? String(err)}`);
  }
  if (!Array.isArray(v) || v.some((n) => typeof n !== 'string'))
    throw new Fail('$', `remote(): scope must be a JSON array of character names, got ${show(v)}`);
  return v as string[];
}

/**
 * The remote-control protocol (src/live/remote, docs/live.md "Remote-control protocol") over every hub
 * (characterName = the setup's name), for the C# WebSocket transport. Returns JSON
 * `{"reply": string, "broadcast": string | null, "save": [names]}`; never throws. `save` names the
 * characters whose settings file the host saves now, as the component's own method does: the
 * character of an autoCalibrateAll that succeeded (the original's "+ 저장"); empty otherwise (any other
 * action, or an error reply). Each name at most once.
 *
 * `scope` (optional; RetargetingRemoteController.registeredCharacters): a JSON array of the character
 * names served, e.g. `["Alice","Bob"]`; `refresh` then lists only those (that have a hub), and an action
 * naming another character gets the unknown-character error. Absent, null or "": every hub; "[]": none.
 * Given with every call (no state to carry over a hot reload); parsed again only when its text changes.
 * A malformed scope is an error reply (field "$") and serves nothing.
 */
export function remote(text: string, clientId: string, scope?: string | null): string {
  if (!remoteControl) remoteControl = newRemoteControl();
  remoteSaves = [];
  const key = typeof scope === 'string' ? scope : '';
  if (key !== remoteScopeText) {
    try {
      remoteControl.setScope(parseScope(scope));
    } catch (err) {
      remoteControl.setScope([]);
      remoteScopeText = null;
      const f = err instanceof Fail ? err : new Fail('$', String(err));
      return JSON.stringify({ reply: failReply(null, f.field, f.message), broadcast: null, save: [] });
    }
    remoteScopeText = key;
  }
  const r = remoteControl.handle(
    typeof text === 'string' ? mirrorText(text) : text,
    typeof clientId === 'string' ? clientId : undefined,
  );
  const save = remoteSaves;
  remoteSaves = [];
  return JSON.stringify({
    reply: mirrorText(r.reply),
    broadcast: r.broadcast ? mirrorText(r.broadcast) : null,
    save,
  });
}

// -----------------------------------------------------------------------------------------------
// Hot reload

interface HubRecord {
  handle: number;
  setup: string;
  state: HubState;
  frame: { rotations: number[]; translations: number[] } | null;
  output: number[];
  pendingOffsets: Settings | null;
  /** A mocap hub's MocapHubDriver memory and its clock (ms); absent for other hubs and in older states. */
  mocap?: { driver: MocapDriverState; clockMs: number };
}

/**
 * Every hub's state as JSON text (for hot reload): the setup text, the hub's state
 * (RetargetHub.exportState: calibration, settings, props, weights, finger muscles, IK memory), the
 * latest frame and output; for a mocap hub its MocapHubDriver's memory and clock (`mocap`).
 */
export function exportState(): string {
  const records: HubRecord[] = [...hubs.values()].map((e) => ({
    handle: e.handle,
    setup: e.setupJson,
    state: e.hub.exportState(),
    frame: e.hasFrame
      ? { rotations: Array.from(e.frame.rotations), translations: Array.from(e.frame.translations) }
      : null,
    output: Array.from(e.out),
    pendingOffsets: e.pendingOffsets,
    ...(e.driver ? { mocap: { driver: e.driver.exportState(), clockMs: e.stream.timeMs } } : {}),
  }));
  return JSON.stringify({ version: BRIDGE_STATE_VERSION, layout: LAYOUT_VERSION, nextHandle, hubs: records });
}

/**
 * Replace every hub by those of `json` (from {@link exportState}, possibly of an earlier bundle with
 * the same state version): each is recreated from its setup, keeps its handle, and runs on as it would
 * have. All are checked before the registry changes.
 * @throws BridgeError naming the bad field (`importState: hubs[1].state.version: ...`).
 */
export function importState(json: string): void {
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch (e) {
    throw new BridgeError(`importState: not JSON: ${(e as Error).message}`);
  }
  if (!isObject(v)) throw new BridgeError(`importState: need a JSON object, got ${show(v)}`);
  if (v.version !== BRIDGE_STATE_VERSION)
    throw new BridgeError(`importState: version ${show(v.version)}, expected ${BRIDGE_STATE_VERSION}`);
  if (!Array.isArray(v.hubs)) throw new BridgeError(`importState: hubs: need an array, got ${show(v.hubs)}`);
  const built = new Map<number, Entry>();
  const names = new Set<string>();
  (v.hubs as unknown[]).forEach((r, i) => {
    const field = `importState: hubs[${i}]`;
    if (!isObject(r)) throw new BridgeError(`${field}: need an object, got ${show(r)}`);
    const rec = r as unknown as HubRecord;
    if (!Number.isInteger(rec.handle) || rec.handle < 1 || built.has(rec.handle))
      throw new BridgeError(`${field}.handle: need a new integer >= 1, got ${show(rec.handle)}`);
    let p: ParsedSetup;
    let hub: RetargetHub;
    try {
      p = parseSetup(rec.setup);
    } catch (e) {
      throw new BridgeError(`${field}.${(e as Error).message}`);
    }
    if (names.has(p.name)) throw new BridgeError(`${field}.setup.name: "${p.name}" appears twice`);
    names.add(p.name);
    try {
      hub = RetargetHub.fromState(p.source, p.target, rec.state);
    } catch (e) {
      throw new BridgeError(`${field}.state: ${(e as Error).message}`);
    }
    const e = newEntry(rec.handle, rec.setup, p, hub);
    const T = p.target.boneCount;
    const S = p.source.boneCount;
    if (rec.frame !== null) {
      const fr = rec.frame;
      numberArray(fr?.rotations, 4 * S, `${field}.frame.rotations`, 'source local rotations');
      numberArray(fr?.translations, 3 * S, `${field}.frame.translations`, 'source local translations');
      e.frame.rotations.set(fr.rotations);
      e.frame.translations.set(fr.translations);
      e.hasFrame = true;
    }
    e.out.set(numberArray(rec.output, outputFloats(T), `${field}.output`, 'output floats'));
    if (rec.pendingOffsets !== null && rec.pendingOffsets !== undefined) {
      try {
        e.pendingOffsets = validateSettings(rec.pendingOffsets, `${field}.pendingOffsets`);
      } catch (err) {
        throw new BridgeError((err as Error).message);
      }
    }
    if (e.driver && rec.mocap !== undefined) {
      const m = rec.mocap;
      if (!isObject(m) || typeof m.clockMs !== 'number' || !Number.isFinite(m.clockMs))
        throw new BridgeError(`${field}.mocap: need { driver, clockMs (finite ms) }, got ${show(m)}`);
      try {
        e.driver.importState(m.driver);
      } catch (err) {
        throw new BridgeError(`${field}.mocap.driver: ${(err as Error).message}`);
      }
      e.stream.timeMs = m.clockMs;
    }
    built.set(rec.handle, e);
  });
  hubs.clear();
  for (const [h, e] of built) hubs.set(h, e);
  const maxHandle = Math.max(0, ...built.keys());
  nextHandle = Math.max(
    typeof v.nextHandle === 'number' && Number.isInteger(v.nextHandle) ? v.nextHandle : 1,
    maxHandle + 1,
  );
  remoteControl = null;
}

/**
 * The last accepted source frame of hub `handle` as the hub's source stage got it (our frame: local
 * rotations `4S`, translations `3S` metres; copies), or null before the first frame. For tests and
 * diagnostics (not part of the Unity API in main.ts).
 * @throws BridgeError for an unknown handle.
 */
export function sourceFrame(handle: number): LiveFrame | null {
  const e = entryOf(handle, 'sourceFrame');
  if (!e.hasFrame) return null;
  return {
    rotations: Float64Array.from(e.frame.rotations),
    translations: Float64Array.from(e.frame.translations),
  };
}

/** Handles of the live hubs (tests, the control window). */
export function hubHandles(): number[] {
  return [...hubs.keys()];
}
