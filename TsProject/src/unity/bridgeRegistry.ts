/**
 * The bridge's hub registry: one entry per handle (hub, skeletons, buffers, setup, pending offsets),
 * looked up by handle with an error naming the call. Handles are given out by src/unity/bridge.ts.
 */
import { HumanBodyBones as H, type Skeleton } from '../core';
import type { LiveFrame, RemoteControl } from '../live/remote';
import { MocapHubDriver, mocapSourceFigure } from '../mocap/hubDriver';
import type { RetargetHub, Settings } from '../rig';
import { BridgeError, type ParsedSetup, show } from './bridgeSetup';
import {
  H_COUNT,
  H_RESERVED,
  H_STATUS,
  H_VERSION,
  LAYOUT_VERSION,
  mirrorPositions,
  mirrorRotations,
  outputFloats,
  outputHipsPositionOffset,
  outputRotationsOffset,
  outputScalesOffset,
  STATUS_OK,
} from './layout';

// -----------------------------------------------------------------------------------------------
// Registry

export interface Entry {
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
  /**
   * A `source.mocap` setup's MocapHubDriver around `hub` (confidence limb weights, causal foot pins), else
   * null. Its memory crosses a hot reload (exportState's `mocap`, module doc of src/unity/bridge.ts).
   */
  driver: MocapHubDriver | null;
  /**
   * The driver's stream frame, made once: `rotations` / `translations` are `frame`'s arrays, `confidence`
   * the input's tail (`S`, copied per frame; all 1 for an input without it), `timeMs` the entry's clock
   * (the sum of the `dt`s given to `update`, ms, from 0 at creation; kept over a hot reload).
   */
  stream: { rotations: Float64Array; translations: Float64Array; confidence: Float64Array; timeMs: number };
}

export const hubs = new Map<number, Entry>();

export function newEntry(handle: number, setupJson: string, p: ParsedSetup, hub: RetargetHub): Entry {
  const S = p.source.boneCount;
  const T = p.target.boneCount;
  const frame = { rotations: new Float64Array(4 * S), translations: new Float64Array(3 * S) };
  const e: Entry = {
    handle,
    name: p.name,
    setupJson,
    hub,
    source: p.source,
    target: p.target,
    pendingOffsets: null,
    frame,
    hasFrame: false,
    worldRot: new Float64Array(4 * S),
    worldPos: new Float64Array(3 * S),
    out: new Float32Array(outputFloats(T)),
    hips: p.target.humanoid[H.Hips],
    lastInput: null,
    lastView: null,
    control: null,
    driver: p.mocap ? new MocapHubDriver(mocapSourceFigure(p.source), hub) : null,
    stream: {
      rotations: frame.rotations,
      translations: frame.translations,
      confidence: new Float64Array(p.mocap ? S : 0).fill(1),
      timeMs: 0.5, // a double from the start (its field keeps the double representation); 0 below
    },
  };
  e.stream.timeMs = 0;
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

export function entryOf(handle: unknown, call: string): Entry {
  const e = typeof handle === 'number' ? hubs.get(handle) : undefined;
  if (!e)
    throw new BridgeError(
      `${call}: handle ${show(handle)} is not a live hub (live: ${hubs.size > 0 ? [...hubs.keys()].join(', ') : 'none'})`,
    );
  return e;
}

export function checkNameFree(name: string, except = -1): void {
  for (const e of hubs.values())
    if (e.name === name && e.handle !== except)
      throw new BridgeError(
        `setup.name: "${name}" is already the name of hub ${e.handle} (names address hubs in the remote control)`,
      );
}
