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
import {
  createSkeleton,
  HumanBodyBones as H,
  HUMAN_BONE_COUNT,
  HUMAN_BONE_NAMES,
  humanBoneIndex,
  type Skeleton,
} from '../core';
import { type LiveCharacters, type LiveFrame, RemoteControl } from '../live/remote';
import type { HipsMode } from '../retarget';
import {
  FINGER_COPY_MODES,
  HipsOutput,
  type HubState,
  type IKWeightMode,
  LimbCondition as LC,
  PROP_TYPE_NAMES,
  type PropPointName,
  type PropTypeName,
  RetargetHub,
  type Settings,
  validateSettings,
} from '../rig';
import {
  H_COUNT,
  H_RESERVED,
  H_STATUS,
  H_VERSION,
  inputFloats,
  inputRotationsOffset,
  LAYOUT_VERSION,
  mirrorPositions,
  mirrorRotations,
  outputFloats,
  outputHipsPositionOffset,
  outputRotationsOffset,
  outputScalesOffset,
  STATUS_OK,
  STATUS_REJECTED,
} from './layout';

export { LAYOUT_VERSION } from './layout';

/** Package version reported by {@link apiVersion}. */
export const PACKAGE_VERSION = '0.1.0';

/** Version of the text {@link exportState} writes. */
export const BRIDGE_STATE_VERSION = 1;

/** `"kind-retargeting <version>; layout <n>"`. */
export function apiVersion(): string {
  return `kind-retargeting ${PACKAGE_VERSION}; layout ${LAYOUT_VERSION}`;
}

/** Thrown for bad calls from the host; the message names the field and the expected value. */
export class BridgeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BridgeError';
  }
}

function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}...` : v);
  if (v === null) return 'null';
  if (Array.isArray(v)) return `an array of length ${v.length}`;
  if (typeof v === 'object') return 'an object';
  return `${typeof v} ${String(v)}`;
}

// -----------------------------------------------------------------------------------------------
// Setup

/** A skeleton as the setup JSON gives it (Unity coordinates). */
export interface SetupSkeleton {
  names: string[];
  parents: number[];
  humanoid: number[];
  restLocalPositions: number[];
  restLocalRotations: number[];
}

/** The setup JSON of {@link createHub} (see the module docs and the package README). */
export interface HubSetup {
  layout: number;
  name: string;
  source: SetupSkeleton;
  target: SetupSkeleton;
  options?: { ik?: IKWeightMode; hipsMode?: HipsMode; fingers?: (typeof FINGER_COPY_MODES)[number] };
  settings?: Settings;
}

const MIRRORED_PARAMETERS = new Set(['headRotationOffsetY', 'headRotationOffsetZ']);

/** Negate, without making -0. */
function neg(v: number): number {
  return v === 0 ? 0 : -v;
}

/** Mirror a settings object's handed values in place (see the module docs). */
function mirrorSettings(st: unknown): void {
  if (!isObject(st)) return;
  const h = st.headRotationOffset;
  if (Array.isArray(h) && h.length === 3 && typeof h[1] === 'number' && typeof h[2] === 'number')
    st.headRotationOffset = [h[0], neg(h[1]), neg(h[2])];
  const r = st.rotationOffsets;
  if (isObject(r))
    for (const k of Object.keys(r)) {
      const q = r[k];
      if (Array.isArray(q) && q.length === 4 && typeof q[1] === 'number' && typeof q[2] === 'number')
        r[k] = [q[0], neg(q[1]), neg(q[2]), q[3]];
    }
}

/** Mirror a protocol message's handed values in place (either way: the mirror is its own inverse). */
function mirrorMessage(m: Record<string, unknown>): void {
  if (typeof m.property === 'string' && MIRRORED_PARAMETERS.has(m.property) && typeof m.value === 'number')
    m.value = neg(m.value);
  if (Array.isArray(m.parameters))
    for (const p of m.parameters)
      if (
        isObject(p) &&
        typeof p.name === 'string' &&
        MIRRORED_PARAMETERS.has(p.name) &&
        typeof p.value === 'number'
      )
        p.value = neg(p.value);
  if (m.settings !== undefined) mirrorSettings(m.settings);
}

/** A protocol JSON text with its handed values mirrored; text that is not a JSON object as is. */
function mirrorText(text: string): string {
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    return text;
  }
  if (!isObject(m)) return text;
  mirrorMessage(m);
  return JSON.stringify(m);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function numberArray(v: unknown, n: number, field: string, what: string, integer = false): number[] {
  if (!Array.isArray(v)) throw new BridgeError(`${field}: need an array of ${n} ${what}, got ${show(v)}`);
  if (v.length !== n) throw new BridgeError(`${field}: length ${v.length}, expected ${n} (${what})`);
  for (let i = 0; i < n; i++) {
    const x = v[i];
    if (typeof x !== 'number' || !Number.isFinite(x) || (integer && !Number.isInteger(x)))
      throw new BridgeError(
        `${field}[${i}]: need ${integer ? 'an integer' : 'a finite number'}, got ${show(x)}`,
      );
  }
  return v as number[];
}

/** Check one setup skeleton and build it in our frame (mirrored). */
function setupSkeleton(v: unknown, field: string): Skeleton {
  if (!isObject(v))
    throw new BridgeError(
      `${field}: need an object { names, parents, humanoid, restLocalPositions, restLocalRotations }, got ${show(v)}`,
    );
  const names = v.names;
  if (!Array.isArray(names) || names.length === 0)
    throw new BridgeError(`${field}.names: need a non-empty array of transform names, got ${show(names)}`);
  names.forEach((nm, i) => {
    if (typeof nm !== 'string') throw new BridgeError(`${field}.names[${i}]: need a string, got ${show(nm)}`);
  });
  const n = names.length;
  const parents = numberArray(
    v.parents,
    n,
    `${field}.parents`,
    'parent index per transform, -1 for a root',
    true,
  );
  parents.forEach((p, i) => {
    if (p < -1 || p >= i)
      throw new BridgeError(
        `${field}.parents[${i}] (${names[i]}): ${p} is not -1 or an earlier transform (need parents[i] < i)`,
      );
  });
  const humanoid = numberArray(
    v.humanoid,
    HUMAN_BONE_COUNT,
    `${field}.humanoid`,
    'transform index per HumanBodyBones, -1 missing',
    true,
  );
  humanoid.forEach((b, h) => {
    if (b < -1 || b >= n)
      throw new BridgeError(`${field}.humanoid[${h}]: ${b} is not -1 or a transform index 0..${n - 1}`);
  });
  if (humanoid[H.Hips] < 0)
    throw new BridgeError(`${field}.humanoid[0] (Hips): the skeleton needs a Hips transform`);
  const pos = numberArray(v.restLocalPositions, 3 * n, `${field}.restLocalPositions`, `3 x ${n} metres`);
  const rot = numberArray(
    v.restLocalRotations,
    4 * n,
    `${field}.restLocalRotations`,
    `4 x ${n} quaternion values x y z w`,
  );
  for (let i = 0; i < n; i++) {
    const o = 4 * i;
    if (!(Math.hypot(rot[o], rot[o + 1], rot[o + 2], rot[o + 3]) > 1e-6))
      throw new BridgeError(
        `${field}.restLocalRotations[${o}..${o + 3}] (${names[i]}): not a rotation (zero length)`,
      );
  }
  const restTranslations = new Float64Array(3 * n);
  const restRotations = new Float64Array(4 * n);
  mirrorPositions(restTranslations, 0, pos, 0, n);
  mirrorRotations(restRotations, 0, rot, 0, n);
  try {
    return createSkeleton({ names: names as string[], parents, restTranslations, restRotations, humanoid });
  } catch (e) {
    throw new BridgeError(`${field}: ${(e as Error).message}`);
  }
}

function choice<T extends string>(v: unknown, field: string, choices: readonly T[]): T | undefined {
  if (v === undefined) return undefined;
  if (!(choices as readonly unknown[]).includes(v))
    throw new BridgeError(`${field}: ${show(v)} is not one of ${choices.map((c) => `"${c}"`).join(', ')}`);
  return v as T;
}

interface ParsedSetup {
  name: string;
  source: Skeleton;
  target: Skeleton;
  ik?: IKWeightMode;
  hipsMode?: HipsMode;
  fingers?: (typeof FINGER_COPY_MODES)[number];
  settings?: Settings;
}

function parseSetup(text: unknown): ParsedSetup {
  if (typeof text !== 'string') throw new BridgeError(`setup: need a JSON text, got ${show(text)}`);
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new BridgeError(`setup: not JSON: ${(e as Error).message}`);
  }
  if (!isObject(v)) throw new BridgeError(`setup: need a JSON object, got ${show(v)}`);
  const known = ['layout', 'name', 'source', 'target', 'options', 'settings'];
  for (const k of Object.keys(v))
    if (!known.includes(k)) throw new BridgeError(`setup.${k}: unknown field (known: ${known.join(', ')})`);
  if (v.layout !== LAYOUT_VERSION)
    throw new BridgeError(
      `setup.layout: ${show(v.layout)}, expected ${LAYOUT_VERSION} (this bundle's layout version)`,
    );
  if (typeof v.name !== 'string' || v.name.length === 0 || v.name.length > 256)
    throw new BridgeError(`setup.name: need a character name (1 to 256 characters), got ${show(v.name)}`);
  const source = setupSkeleton(v.source, 'setup.source');
  const target = setupSkeleton(v.target, 'setup.target');
  const out: ParsedSetup = { name: v.name, source, target };
  if (v.options !== undefined) {
    const o = v.options;
    if (!isObject(o)) throw new BridgeError(`setup.options: need an object, got ${show(o)}`);
    for (const k of Object.keys(o))
      if (!['ik', 'hipsMode', 'fingers'].includes(k))
        throw new BridgeError(`setup.options.${k}: unknown option (known: ik, hipsMode, fingers)`);
    out.ik = choice(o.ik, 'setup.options.ik', ['auto', 'on', 'off'] as const);
    out.hipsMode = choice(o.hipsMode, 'setup.options.hipsMode', ['room', 'scaled'] as const);
    out.fingers = choice(o.fingers, 'setup.options.fingers', FINGER_COPY_MODES);
  }
  if (v.settings !== undefined) {
    try {
      mirrorSettings(v.settings);
      out.settings = validateSettings(v.settings, 'setup.settings');
    } catch (e) {
      throw new BridgeError((e as Error).message);
    }
  }
  return out;
}

// -----------------------------------------------------------------------------------------------
// Registry

interface Entry {
  handle: number;
  name: string;
  setupJson: string;
  hub: RetargetHub;
  source: Skeleton;
  target: Skeleton;
  /** Rotation offsets from the setup's settings, applied after the first calibration. */
  pendingOffsets: Settings | null;
  /** The latest accepted frame, source LOCAL rotations `4S` and translations `3S` (our frame). */
  frame: LiveFrame;
  hasFrame: boolean;
  /** Scratch: mirrored, normalised world rotations `4S` and positions `3S`. */
  worldRot: Float64Array;
  worldPos: Float64Array;
  /** The last output (a rest pose until the first frame). */
  out: Float32Array;
  hips: number;
  /** The last input buffer and its view (PuerTS passes a new buffer each call; tests may reuse one). */
  lastInput: ArrayBuffer | null;
  lastView: Float32Array | null;
  control: RemoteControl | null;
}

const hubs = new Map<number, Entry>();
let nextHandle = 1;

function newEntry(handle: number, setupJson: string, p: ParsedSetup, hub: RetargetHub): Entry {
  const S = p.source.boneCount;
  const T = p.target.boneCount;
  const e: Entry = {
    handle,
    name: p.name,
    setupJson,
    hub,
    source: p.source,
    target: p.target,
    pendingOffsets: null,
    frame: { rotations: new Float64Array(4 * S), translations: new Float64Array(3 * S) },
    hasFrame: false,
    worldRot: new Float64Array(4 * S),
    worldPos: new Float64Array(3 * S),
    out: new Float32Array(outputFloats(T)),
    hips: p.target.humanoid[H.Hips],
    lastInput: null,
    lastView: null,
    control: null,
  };
  // until the first frame: the rest pose
  const o = e.out;
  o[H_VERSION] = LAYOUT_VERSION;
  o[H_COUNT] = T;
  o[H_STATUS] = STATUS_OK;
  o[H_RESERVED] = 0;
  mirrorRotations(o, outputRotationsOffset(), p.target.restRotations, 0, T);
  mirrorPositions(o, outputHipsPositionOffset(T), p.target.restTranslations, 3 * e.hips, 1);
  const sc = outputScalesOffset(T);
  o[sc] = hub.outputScales[0];
  o[sc + 1] = hub.outputScales[1];
  return e;
}

function entryOf(handle: unknown, call: string): Entry {
  const e = typeof handle === 'number' ? hubs.get(handle) : undefined;
  if (!e)
    throw new BridgeError(
      `${call}: handle ${show(handle)} is not a live hub (live: ${hubs.size > 0 ? [...hubs.keys()].join(', ') : 'none'})`,
    );
  return e;
}

function checkNameFree(name: string, except = -1): void {
  for (const e of hubs.values())
    if (e.name === name && e.handle !== except)
      throw new BridgeError(
        `setup.name: "${name}" is already the name of hub ${e.handle} (names address hubs in the remote control)`,
      );
}

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

// -----------------------------------------------------------------------------------------------
// Per frame

const TO_STRING = Object.prototype.toString;

/**
 * One avatar-frame (layouts: src/unity/layout.ts). `input` an ArrayBuffer of `4 + 7S` float32, `dt`
 * seconds since the last frame (>= 0). Returns the hub's output ArrayBuffer of `4 + 4T + 5` float32:
 * the same buffer every call, overwritten by the next call of this hub (PuerTS copies it into a new C#
 * byte[]; a JavaScript caller that keeps a frame must copy it). A frame holding a non-finite value is
 * rejected: status 1 and the last pose.
 * @throws BridgeError for an unknown handle, a wrong input length, layout version or bone count, or a
 * bad `dt` (the message names the field and the expected value); HubError when the first frame's
 * calibration fails.
 */
export function update(handle: number, input: ArrayBuffer, dt: number): ArrayBuffer {
  const e = entryOf(handle, 'update');
  if (TO_STRING.call(input) !== '[object ArrayBuffer]')
    throw new BridgeError(`update: input: need an ArrayBuffer of float32, got ${show(input)}`);
  const S = e.source.boneCount;
  const want = inputFloats(S);
  if (input.byteLength !== 4 * want)
    throw new BridgeError(
      `update: input length ${input.byteLength / 4} floats (${input.byteLength} bytes), expected 4 + 7 x ${S} = ${want} floats for ${S} source bones`,
    );
  let f = e.lastView;
  if (e.lastInput !== input || f === null) {
    f = new Float32Array(input);
    e.lastInput = input;
    e.lastView = f;
  }
  if (f[H_VERSION] !== LAYOUT_VERSION)
    throw new BridgeError(`update: input[0] (layout version) is ${f[H_VERSION]}, expected ${LAYOUT_VERSION}`);
  if (f[H_COUNT] !== S)
    throw new BridgeError(`update: input[1] (source bone count) is ${f[H_COUNT]}, expected ${S}`);
  if (typeof dt !== 'number' || !(dt >= 0) || dt === Number.POSITIVE_INFINITY)
    throw new BridgeError(`update: dt: need a finite number of seconds >= 0, got ${show(dt)}`);
  const out = e.out;
  // reject a frame with a non-finite value: the last pose stays
  let finite = true;
  for (let i = 4; i < want; i++) {
    const v = f[i];
    if (v - v !== 0) {
      finite = false;
      break;
    }
  }
  if (!finite) {
    out[H_STATUS] = STATUS_REJECTED;
    return out.buffer as ArrayBuffer;
  }
  toLocal(e, f);
  const hub = e.hub;
  if (!hub.isCalibrated) {
    hub.calibrate(e.frame);
    if (e.pendingOffsets) {
      hub.applySettings(e.pendingOffsets);
      e.pendingOffsets = null;
    }
  }
  // the live source stage (raw pose kept, One-Euro filtered with settings.sourceFilter), then the hub
  hub.updateLive(e.frame.rotations, e.frame.translations, dt);
  e.hasFrame = true;
  writeOutput(e);
  return out.buffer as ArrayBuffer;
}

/** Input (Unity world) -> e.frame (our local rotations and translations on the source skeleton). */
function toLocal(e: Entry, f: Float32Array): void {
  const S = e.source.boneCount;
  const parents = e.source.parents;
  const W = e.worldRot;
  const P = e.worldPos;
  const R = e.frame.rotations;
  const T = e.frame.translations;
  mirrorPositions(P, 0, f, 4, S);
  mirrorRotations(W, 0, f, inputRotationsOffset(S), S);
  for (let i = 0; i < S; i++) {
    const o4 = 4 * i;
    const x = W[o4];
    const y = W[o4 + 1];
    const z = W[o4 + 2];
    const w = W[o4 + 3];
    const l = Math.sqrt(x * x + y * y + z * z + w * w);
    W[o4] = x / l;
    W[o4 + 1] = y / l;
    W[o4 + 2] = z / l;
    W[o4 + 3] = w / l;
  }
  for (let i = 0; i < S; i++) {
    const o4 = 4 * i;
    const o3 = 3 * i;
    const p = parents[i];
    if (p < 0) {
      R[o4] = W[o4];
      R[o4 + 1] = W[o4 + 1];
      R[o4 + 2] = W[o4 + 2];
      R[o4 + 3] = W[o4 + 3];
      T[o3] = P[o3];
      T[o3 + 1] = P[o3 + 1];
      T[o3 + 2] = P[o3 + 2];
      continue;
    }
    // local rotation = conj(parent world) * world
    const p4 = 4 * p;
    const p3 = 3 * p;
    const ax = -W[p4];
    const ay = -W[p4 + 1];
    const az = -W[p4 + 2];
    const aw = W[p4 + 3];
    const bx = W[o4];
    const by = W[o4 + 1];
    const bz = W[o4 + 2];
    const bw = W[o4 + 3];
    R[o4] = aw * bx + ax * bw + ay * bz - az * by;
    R[o4 + 1] = aw * by + ay * bw + az * bx - ax * bz;
    R[o4 + 2] = aw * bz + az * bw + ax * by - ay * bx;
    R[o4 + 3] = aw * bw - ax * bx - ay * by - az * bz;
    // local position = conj(parent world) rotating (world - parent world): v + 2w(u x v) + 2u x (u x v)
    const vx = P[o3] - P[p3];
    const vy = P[o3 + 1] - P[p3 + 1];
    const vz = P[o3 + 2] - P[p3 + 2];
    const cx = ay * vz - az * vy;
    const cy = az * vx - ax * vz;
    const cz = ax * vy - ay * vx;
    T[o3] = vx + 2 * (aw * cx + ay * cz - az * cy);
    T[o3 + 1] = vy + 2 * (aw * cy + az * cx - ax * cz);
    T[o3 + 2] = vz + 2 * (aw * cz + ax * cy - ay * cx);
  }
}

function writeOutput(e: Entry): void {
  const out = e.out;
  const T = e.target.boneCount;
  const hub = e.hub;
  out[H_VERSION] = LAYOUT_VERSION;
  out[H_COUNT] = T;
  out[H_STATUS] = STATUS_OK;
  out[H_RESERVED] = 0;
  mirrorRotations(out, outputRotationsOffset(), hub.localRotations, 0, T);
  mirrorPositions(out, outputHipsPositionOffset(T), hub.localTranslations, 3 * e.hips, 1);
  const sc = outputScalesOffset(T);
  out[sc] = hub.outputScales[0];
  out[sc + 1] = hub.outputScales[1];
}

// -----------------------------------------------------------------------------------------------
// Commands and remote control

/** The registry as the remote-control protocol sees it (every hub, or one). */
function characters(only: Entry | null): LiveCharacters {
  const list = () => (only ? [only] : [...hubs.values()]);
  return {
    names: () => list().map((e) => e.name),
    hub: (name) => list().find((e) => e.name === name)?.hub,
    currentFrame: (name) => {
      const e = list().find((x) => x.name === name);
      return e?.hasFrame ? e.frame : undefined;
    },
  };
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

function failReply(action: unknown, field: string, message: string): string {
  return JSON.stringify({
    action: typeof action === 'string' ? action : null,
    ok: false,
    error: { field, message: message.replace(/\s*\n\s*/g, ' ') },
  });
}

/** The limbs of `ikState`, in the hub's order. */
const IK_LIMBS = ['leftArm', 'rightArm', 'leftLeg', 'rightLeg'] as const;

const POINTS: Record<string, PropPointName> = { leftHand: 'LeftHand', rightHand: 'RightHand', head: 'Head' };

/**
 * `applySettings` on a hub that has not calibrated yet (no frame so far, e.g. a settings file loaded when
 * the Unity component starts): its rotation offsets cannot be applied before the calibration, so the
 * rest is applied now and the whole settings wait as the pending offsets, applied right after the first
 * frame's calibration (as setup's `settings` are). Bone names are checked now. Calibrated: applied at once.
 */
function applyOrDefer(e: Entry, s: Settings): void {
  const hub = e.hub;
  if (hub.isCalibrated || !isObject(s) || !isObject(s.rotationOffsets)) {
    hub.applySettings(s);
    return;
  }
  const names = Object.keys(s.rotationOffsets);
  if (names.length === 0) {
    hub.applySettings(s);
    e.pendingOffsets = null;
    return;
  }
  // checked in full before anything changes: on error nothing changes
  const valid = validateSettings(s, 'settings');
  const bad = names.filter((nm) => !e.target.names.includes(nm));
  if (bad.length > 0)
    throw new Error(`settings.rotationOffsets: no bone named ${bad.slice(0, 5).join(', ')} on this avatar`);
  hub.applySettings({ ...valid, rotationOffsets: Object.create(null) });
  e.pendingOffsets = valid;
}

/** exportSettings, with the pending rotation offsets (and hips height) while they wait for the first calibration. */
function exportWithPending(e: Entry): Settings {
  const s = e.hub.exportSettings();
  const p = e.pendingOffsets;
  if (p && !e.hub.isCalibrated) {
    s.rotationOffsets = p.rotationOffsets;
    s.initialHipsHeight = p.initialHipsHeight;
  }
  return s;
}

/**
 * An inspector action for one hub (module docs). Replies `{"ok":true,...}` or
 * `{"ok":false,"error":{"field","message"}}`; never throws. Bridge-only actions:
 * - `{"action":"exportSettings"}` -> `{"ok":true,"settings":{...}}` (the project's settings format);
 * - `{"action":"applySettings","settings":{...}}` (validated; nothing changes on error; before the first
 *   frame the rotation offsets wait for the first calibration, reply `"pendingOffsets":true`, and
 *   exportSettings gives them back meanwhile);
 * - `{"action":"attachProp","point":"leftHand"|"rightHand"|"head","name":s,"type":"Object"|"Chair"|"Hand"}`
 *   registers the prop when new and attaches it at the point (its origin on the point);
 * - `{"action":"detachProp","name":s}` detaches it and removes it from the registry;
 * - `{"action":"listProps"}` -> `{"ok":true,"props":[{id,type,slot,attachedTo,position,rotation}]}`;
 * - `{"action":"sourcePose","bone":"LeftHand"}` (a HumanBodyBones name) ->
 *   `{"ok":true,"bone":"LeftHand","raw":{"position":[x,y,z],"rotation":[x,y,z,w]},"filtered":{...}}`:
 *   the source bone's world pose of the last accepted frame as it came in (raw) and after the source
 *   stage's One-Euro filter (what the hub read), in Unity's coordinates (metres, left-handed; the raw
 *   one is the input's, normalised, to float32-to-double rounding); `ok:false` with field `bone` for
 *   an unknown name, a bone the source does not map, or no frame yet. Allocates (a JSON reply): for
 *   the inspector and tools, not per frame.
 * - `{"action":"ikState"}` -> `{"ok":true,"limbs":[{limb:"leftArm"|"rightArm"|"leftLeg"|"rightLeg",
 *   target,reached,bendGoal:[x,y,z]|null (legs: LegIK has none),weight}],"props":[{name,type,attachedTo,position}]}` for the
 *   IKTargetGizmo: the last frame's IK targets, where the end bones got to, the bend goals (metres,
 *   Unity's axes, in the frame of the output: the target root's) and the IK position weights (0..1).
 * - `{"action":"autoFloorHeight","comfortRatio":r}` (0 < r <= 1, default 0.98) -> `{"ok":true,
 *   "floorHeight":h}`: the hub's automatic floor height from the last frame's pose (RetargetHub.
 *   autoFloorHeight), set as its floorHeight (the original's TwoBoneIKSolver.CalculateAutoFloorHeight);
 * - `{"action":"ikWeights","limbs":[[position,rotation,bendGoal] | null, x4]}` (leftArm, rightArm,
 *   leftLeg, rightLeg; each weight a number in [0, 1] or null) -> `{"ok":true,"limbs":[...]}`: the
 *   IK weights the host sets (the original's TwoBoneIKSolver.LimbIK positionWeight, rotationWeight,
 *   bendGoalWeight), replacing the hub's own from the next update; null gives a weight back to the hub
 *   (RetargetHub.ikWeightOverride). Checked in full first: on error nothing changes;
 * - `{"action":"ikGoals","limbs":[{"target":[x,y,z]|null,"bendGoal":[x,y,z]|null,"rotation"?:[x,y,z,w]|null}
 *   | null, x4]}` -> `{"ok":true}`: IK targets and bend goals set by the host (the original's LimbIK.target
 *   and bendGoal Transforms; metres, Unity's axes, in the frame of the output as `ikState` gives them),
 *   replacing the hub's own from the next update; null or absent gives them back
 *   (RetargetHub.ikGoalOverride). `rotation`: the end bone's (hand/foot) world rotation in that frame,
 *   Unity's axes (LimbIK.target's rotation), normalised; the solver turns the end bone to it by the
 *   limb's rotation weight (RetargetHub.ikRotationOverride). Checked in full first: on error nothing
 *   changes;
 * - `{"action":"limbWeightState","footHeight":[near,far]?}` -> `{"ok":true,"leftArmEndWeights":[a,b],
 *   "rightArmEndWeights","leftLegEndWeights","rightLegEndWeights","hipsWeights","hipsWeightOffset",
 *   "footHeight":[near,far]}`: the limb weights' layers of the last frame in the original's table
 *   (arms [hand-to-hand, nearest prop], legs [seated foot distance, foot height], hips [chair,
 *   hips height]; each layer's target weight 0..1), the smoothed hips-correction weight, and the
 *   foot-height ramp (metres; `footHeight` given: set first, near < far, validated).
 * Everything else goes to the remote-control protocol (src/live/remote) with `characterName` set to
 * this hub's name.
 */
export function command(handle: number, json: string): string {
  let msg: unknown;
  try {
    msg = JSON.parse(json);
  } catch (err) {
    return failReply(null, '$', `not JSON: ${(err as Error)?.message ?? String(err)}`);
  }
  if (!isObject(msg)) return failReply(null, '$', `need a JSON object with an "action", got ${show(msg)}`);
  mirrorMessage(msg); // Unity's terms -> ours
  const action = msg.action;
  let e: Entry;
  try {
    e = entryOf(handle, 'command');
  } catch (err) {
    return failReply(action, 'handle', (err as Error).message);
  }
  const hub = e.hub;
  const ok = (fields: Record<string, unknown>) => mirrorText(JSON.stringify({ action, ok: true, ...fields }));
  const only = (fields: string[]) => {
    for (const k of Object.keys(msg as object))
      if (!['action', 'id', ...fields].includes(k)) throw new Fail(k, `unknown field for ${String(action)}`);
  };
  try {
    switch (action) {
      case 'exportSettings':
        only([]);
        return ok({ settings: exportWithPending(e) });
      case 'applySettings': {
        only(['settings']);
        try {
          applyOrDefer(e, msg.settings as Settings);
        } catch (err) {
          throw new Fail('settings', (err as Error).message);
        }
        return ok({ settings: exportWithPending(e), pendingOffsets: e.pendingOffsets !== null });
      }
      case 'attachProp': {
        only(['point', 'name', 'type']);
        const point = POINTS[msg.point as string];
        if (typeof msg.point !== 'string' || !point)
          throw new Fail('point', `${show(msg.point)} is not one of "leftHand", "rightHand", "head"`);
        if (typeof msg.name !== 'string' || msg.name.length === 0)
          throw new Fail('name', `need a non-empty prop name, got ${show(msg.name)}`);
        const type = msg.type === undefined ? 'Object' : msg.type;
        if (!(PROP_TYPE_NAMES as readonly unknown[]).includes(type))
          throw new Fail('type', `${show(type)} is not one of ${PROP_TYPE_NAMES.join(', ')}`);
        const props = hub.props;
        if (props.has(msg.name)) props.setType(msg.name, type as PropTypeName);
        else props.add(msg.name, type as PropTypeName);
        props.attach(msg.name, point);
        return ok({ prop: props.get(msg.name) });
      }
      case 'detachProp': {
        only(['name']);
        const name = msg.name;
        if (typeof name !== 'string' || !hub.props.has(name))
          throw new Fail(
            'name',
            `no prop named ${show(name)} (registered: ${
              hub.props
                .list()
                .map((p) => p.id)
                .join(', ') || 'none'
            })`,
          );
        if (hub.props.get(name).attachedTo !== null) hub.props.detach(name);
        hub.props.remove(name);
        return ok({ name });
      }
      case 'listProps':
        only([]);
        return ok({ props: hub.props.list() });
      case 'sourcePose': {
        only(['bone']);
        const b = typeof msg.bone === 'string' ? humanBoneIndex(msg.bone) : -1;
        if (b < 0) throw new Fail('bone', `${show(msg.bone)} is not a HumanBodyBones name`);
        const st = hub.sourceStage;
        const p = new Float64Array(3);
        const q = new Float64Array(4);
        const pose = (pos: boolean, rot: boolean) => {
          const up = new Float64Array(3);
          const uq = new Float64Array(4);
          if (!pos || !rot) return null;
          mirrorPositions(up, 0, p, 0, 1);
          mirrorRotations(uq, 0, q, 0, 1);
          return { position: Array.from(up), rotation: Array.from(uq) };
        };
        const raw = pose(st.tryGetRawWorldPosition(b, p), st.tryGetRawWorldRotation(b, q));
        const filtered = pose(st.tryGetWorldPosition(b, p), st.tryGetWorldRotation(b, q));
        if (!raw || !filtered)
          throw new Fail(
            'bone',
            st.hasFrame ? `the source has no ${HUMAN_BONE_NAMES[b]}` : 'no frame yet (update first)',
          );
        return ok({ bone: HUMAN_BONE_NAMES[b], raw, filtered });
      }
      case 'ikState': {
        only([]);
        // Unity's terms: positions mirrored (x -> -x), in the frame the output is in (the target root's)
        const m = (v: ArrayLike<number>): number[] => [neg(v[0]), v[1], v[2]];
        const limbs = [];
        const g = [0, 0, 0];
        for (let l = 0; l < 4; l++) {
          const t = hub.ikTargets.subarray(3 * l, 3 * l + 3);
          const r = hub.ikReached.subarray(3 * l, 3 * l + 3);
          const hasGoal = hub.ikBendGoal(l, g);
          limbs.push({
            limb: IK_LIMBS[l],
            target: m(t),
            reached: m(r),
            bendGoal: hasGoal ? m(g) : null,
            weight: hub.ikWeights[l],
          });
        }
        const props = hub.props.list().map((p) => ({
          name: p.id,
          type: p.type,
          attachedTo: p.attachedTo,
          position: m(p.position),
        }));
        return ok({ limbs, props });
      }
      case 'autoFloorHeight': {
        only(['comfortRatio']);
        const r = msg.comfortRatio === undefined ? 0.98 : msg.comfortRatio;
        if (typeof r !== 'number') throw new Fail('comfortRatio', `need a number in (0, 1], got ${show(r)}`);
        try {
          return ok({ floorHeight: hub.autoFloorHeight(r) });
        } catch (err) {
          throw new Fail('comfortRatio', (err as Error).message);
        }
      }
      case 'ikWeights': {
        only(['limbs']);
        const limbs = fourLimbs(msg.limbs);
        const next = Float64Array.from(hub.ikWeightOverride);
        for (let l = 0; l < 4; l++) {
          const e = limbs[l];
          if (e === null) {
            next.fill(Number.NaN, 3 * l, 3 * l + 3);
            continue;
          }
          if (!Array.isArray(e) || e.length !== 3)
            throw new Fail(`limbs[${l}]`, `need [position, rotation, bendGoal] or null, got ${show(e)}`);
          for (let k = 0; k < 3; k++) {
            const v = e[k];
            if (v === null) next[3 * l + k] = Number.NaN;
            else if (typeof v === 'number' && v >= 0 && v <= 1) next[3 * l + k] = v;
            else throw new Fail(`limbs[${l}][${k}]`, `need a weight in [0, 1] or null, got ${show(v)}`);
          }
        }
        hub.ikWeightOverride.set(next);
        const out = [];
        for (let l = 0; l < 4; l++)
          out.push(Array.from(next.subarray(3 * l, 3 * l + 3), (v) => (Number.isNaN(v) ? null : v)));
        return ok({ limbs: out });
      }
      case 'ikGoals': {
        only(['limbs']);
        const limbs = fourLimbs(msg.limbs);
        const next = Float64Array.from(hub.ikGoalOverride);
        const nextRot = Float64Array.from(hub.ikRotationOverride);
        const point = (v: unknown, f: string, at: number) => {
          if (v === null || v === undefined) {
            next.fill(Number.NaN, at, at + 3);
            return;
          }
          if (
            !Array.isArray(v) ||
            v.length !== 3 ||
            v.some((x) => typeof x !== 'number' || !Number.isFinite(x))
          )
            throw new Fail(f, `need [x, y, z] (metres) or null, got ${show(v)}`);
          // Unity's axes -> ours (x mirrored), as ikState's inverse
          next[at] = neg(v[0]);
          next[at + 1] = v[1];
          next[at + 2] = v[2];
        };
        const rotation = (v: unknown, f: string, at: number) => {
          if (v === null || v === undefined) {
            nextRot.fill(Number.NaN, at, at + 4);
            return;
          }
          const bad = () =>
            new Fail(f, `need a rotation [x, y, z, w] (a non-zero quaternion) or null, got ${show(v)}`);
          if (
            !Array.isArray(v) ||
            v.length !== 4 ||
            v.some((x) => typeof x !== 'number' || !Number.isFinite(x))
          )
            throw bad();
          const len = Math.hypot(v[0], v[1], v[2], v[3]);
          if (!(len > 1e-6)) throw bad();
          // Unity's axes -> ours: (x, y, z, w) -> (x, -y, -z, w), normalised
          nextRot[at] = v[0] / len;
          nextRot[at + 1] = neg(v[1] / len);
          nextRot[at + 2] = neg(v[2] / len);
          nextRot[at + 3] = v[3] / len;
        };
        for (let l = 0; l < 4; l++) {
          const e = limbs[l];
          if (e === null) {
            next.fill(Number.NaN, 6 * l, 6 * l + 6);
            nextRot.fill(Number.NaN, 4 * l, 4 * l + 4);
            continue;
          }
          if (!isObject(e))
            throw new Fail(`limbs[${l}]`, `need {"target", "bendGoal", "rotation"} or null, got ${show(e)}`);
          for (const k of Object.keys(e))
            if (k !== 'target' && k !== 'bendGoal' && k !== 'rotation')
              throw new Fail(`limbs[${l}].${k}`, 'unknown field');
          point(e.target, `limbs[${l}].target`, 6 * l);
          point(e.bendGoal, `limbs[${l}].bendGoal`, 6 * l + 3);
          rotation(e.rotation, `limbs[${l}].rotation`, 4 * l);
        }
        hub.ikGoalOverride.set(next);
        hub.ikRotationOverride.set(nextRot);
        return ok({});
      }
      case 'limbWeightState': {
        only(['footHeight']);
        const lw = hub.weights;
        if (msg.footHeight !== undefined) {
          const fh = msg.footHeight;
          if (!Array.isArray(fh) || fh.length !== 2 || fh.some((v) => typeof v !== 'number'))
            throw new Fail('footHeight', `need [near, far] in metres, got ${show(fh)}`);
          try {
            lw.configure({ footHeight: { near: fh[0], far: fh[1] } });
          } catch (err) {
            throw new Fail('footHeight', (err as Error).message);
          }
        }
        const c = lw.conditions;
        return ok({
          leftArmEndWeights: [c[LC.HandToHand], c[LC.LeftProp]],
          rightArmEndWeights: [c[LC.HandToHand], c[LC.RightProp]],
          leftLegEndWeights: [c[LC.LeftSeatedFoot], c[LC.LeftFootHeight]],
          rightLegEndWeights: [c[LC.RightSeatedFoot], c[LC.RightFootHeight]],
          hipsWeights: [c[LC.Chair], c[LC.HipsHeight]],
          hipsWeightOffset: lw.hips[HipsOutput.Correction],
          footHeight: [lw.settings.footHeight.near, lw.settings.footHeight.far],
        });
      }
      default: {
        if (msg.characterName !== undefined && msg.characterName !== e.name)
          throw new Fail('characterName', `this hub is "${e.name}", not ${show(msg.characterName)}`);
        if (!e.control) e.control = new RemoteControl(characters(e));
        const needsName = action !== 'refresh';
        const text = JSON.stringify(needsName ? { ...msg, characterName: e.name } : msg);
        return mirrorText(e.control.handle(text).reply);
      }
    }
  } catch (err) {
    if (err instanceof Fail) return failReply(action, err.field, err.message);
    return failReply(action, '$', (err as Error)?.message ?? String(err));
  }
}

class Fail {
  constructor(
    readonly field: string,
    readonly message: string,
  ) {}
}

/** The `limbs` of ikWeights / ikGoals: one entry per limb, leftArm, rightArm, leftLeg, rightLeg. */
function fourLimbs(limbs: unknown): unknown[] {
  if (!Array.isArray(limbs) || limbs.length !== 4)
    throw new Fail('limbs', `need 4 entries (leftArm, rightArm, leftLeg, rightLeg), got ${show(limbs)}`);
  return limbs;
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
 * The remote-control protocol (src/live/remote, README "Remote-control protocol") over every hub
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
}

/**
 * Every hub's state as JSON text (for hot reload): the setup text, the hub's state
 * (RetargetHub.exportState: calibration, settings, props, weights, finger muscles, IK memory), the
 * latest frame and output.
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
