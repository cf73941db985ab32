/**
 * The bridge's per-frame call ({@link update}): source world transforms in Unity coordinates to the
 * source skeleton's local pose, the hub's live update, the target's local pose, hips and scales out.
 * Layouts: src/unity/layout.ts. Allocation-free per frame.
 */

import { type Entry, entryOf } from './bridgeRegistry';
import { BridgeError, show } from './bridgeSetup';
import {
  H_COUNT,
  H_RESERVED,
  H_STATUS,
  H_TAIL,
  H_VERSION,
  inputConfidenceOffset,
  inputFloats,
  inputFloatsWithConfidence,
  inputRotationsOffset,
  LAYOUT_VERSION,
  mirrorPositions,
  mirrorRotations,
  outputHipsPositionOffset,
  outputRotationsOffset,
  outputScalesOffset,
  STATUS_OK,
  STATUS_REJECTED,
  TAIL_CONFIDENCE,
  TAIL_NONE,
} from './layout';

// -----------------------------------------------------------------------------------------------
// Per frame

const TO_STRING = Object.prototype.toString;

/**
 * One avatar-frame (layouts: src/unity/layout.ts). `input` an ArrayBuffer of `4 + 7S` float32 (tail
 * flag input[3] = 0), or `4 + 8S` with the confidence tail (flag 1; only for a `source.mocap` hub), `dt`
 * seconds since the last frame (>= 0). Returns the hub's output ArrayBuffer of `4 + 4T + 5` float32:
 * the same buffer every call, overwritten by the next call of this hub (PuerTS copies it into a new C#
 * byte[]; a JavaScript caller that keeps a frame must copy it). A frame holding a non-finite value
 * (confidences included) is rejected: status 1 and the last pose.
 *
 * A `source.mocap` hub runs through its MocapHubDriver (src/mocap/hubDriver.ts) instead of
 * `RetargetHub.updateLive`: `stepStream` on the frame's local pose, the tail's confidences (all 1 without
 * a tail) and the hub's clock (the sum of the `dt`s, ms). Every other hub runs as before the tail existed.
 * @throws BridgeError for an unknown handle, a wrong input length, layout version, bone count or tail
 * flag, or a bad `dt` (the message names the field and the expected value); HubError when the first
 * frame's calibration fails.
 */
export function update(handle: number, input: ArrayBuffer, dt: number): ArrayBuffer {
  const e = entryOf(handle, 'update');
  if (TO_STRING.call(input) !== '[object ArrayBuffer]')
    throw new BridgeError(`update: input: need an ArrayBuffer of float32, got ${show(input)}`);
  const S = e.source.boneCount;
  const bytes = input.byteLength;
  let f = e.lastView;
  let tail = TAIL_NONE;
  if (bytes >= 16 && bytes % 4 === 0) {
    if (e.lastInput !== input || f === null) {
      f = new Float32Array(input);
      e.lastInput = input;
      e.lastView = f;
    }
    tail = f[H_TAIL];
  }
  if (tail !== TAIL_NONE && tail !== TAIL_CONFIDENCE)
    throw new BridgeError(
      `update: input[3] (tail flag) is ${tail}, expected ${TAIL_NONE} (no tail) or ${TAIL_CONFIDENCE} (${S} confidence floats follow the 4 + 7 x ${S})`,
    );
  if (tail === TAIL_CONFIDENCE && e.driver === null)
    throw new BridgeError(
      `update: input[3] (tail flag) is 1 (confidence tail), but hub ${e.handle} "${e.name}" has no source.mocap in its setup (expected 0)`,
    );
  const want = tail === TAIL_CONFIDENCE ? inputFloatsWithConfidence(S) : inputFloats(S);
  if (bytes !== 4 * want)
    throw new BridgeError(
      tail === TAIL_CONFIDENCE
        ? `update: input length ${bytes / 4} floats (${bytes} bytes), expected 4 + 8 x ${S} = ${want} floats for ${S} source bones with the confidence tail (input[3] = 1)`
        : `update: input length ${bytes / 4} floats (${bytes} bytes), expected 4 + 7 x ${S} = ${want} floats for ${S} source bones`,
    );
  f = f as Float32Array;
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
  const driver = e.driver;
  if (driver === null) {
    // the live source stage (raw pose kept, One-Euro filtered with settings.sourceFilter), then the hub
    hub.updateLive(e.frame.rotations, e.frame.translations, dt);
  } else {
    // the mocap driver: the same source stage, confidence limb weights, foot pins, the hub's update
    const st = e.stream;
    const conf = st.confidence;
    if (tail === TAIL_CONFIDENCE) {
      const c0 = inputConfidenceOffset(S);
      for (let i = 0; i < S; i++) conf[i] = f[c0 + i];
    } else conf.fill(1);
    st.timeMs += 1000 * dt;
    driver.stepStream(st);
  }
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
