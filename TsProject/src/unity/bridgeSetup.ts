/**
 * The bridge's versions and error type, and reading a hub's setup JSON (src/unity/bridge.ts): the two
 * skeletons' rest data, options and settings, mirrored from Unity's left-handed frame at this boundary
 * (also the handed settings and remote messages: head rotation offset Y/Z, rotation offsets).
 */
import { createSkeleton, HumanBodyBones as H, HUMAN_BONE_COUNT, type Skeleton } from '../core';
import { mocapSourceFigure } from '../mocap/hubDriver';
import type { HipsMode } from '../retarget';
import { FINGER_COPY_MODES, type IKWeightMode, type Settings, validateSettings } from '../rig';
import { LAYOUT_VERSION, mirrorPositions, mirrorRotations } from './layout';

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

export function show(v: unknown): string {
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
  /**
   * Source only, optional: true when the source is the webcam mocap stream (the mocap's 21 bones in
   * MOCAP_BONES order, src/mocap/bones.ts): the hub then runs through a MocapHubDriver (confidence limb
   * weights from the input's confidence tail, causal foot contact pins; src/unity/layout.ts).
   */
  mocap?: boolean;
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
export function neg(v: number): number {
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
export function mirrorMessage(m: Record<string, unknown>): void {
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
export function mirrorText(text: string): string {
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

export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function numberArray(v: unknown, n: number, field: string, what: string, integer = false): number[] {
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

export interface ParsedSetup {
  name: string;
  source: Skeleton;
  target: Skeleton;
  ik?: IKWeightMode;
  hipsMode?: HipsMode;
  fingers?: (typeof FINGER_COPY_MODES)[number];
  settings?: Settings;
  /** The setup's `source.mocap` (true: the hub runs through a MocapHubDriver). */
  mocap: boolean;
}

export function parseSetup(text: unknown): ParsedSetup {
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
  const m = (v.source as Record<string, unknown>).mocap;
  if (m !== undefined && typeof m !== 'boolean')
    throw new BridgeError(`setup.source.mocap: need true or false, got ${show(m)}`);
  if (m === true)
    try {
      mocapSourceFigure(source); // the mocap's 21 bones in order
    } catch (e) {
      throw new BridgeError(`setup.source.mocap: ${(e as Error).message}`);
    }
  const out: ParsedSetup = { name: v.name, source, target, mocap: m === true };
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
