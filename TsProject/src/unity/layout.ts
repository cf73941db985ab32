/**
 * The Unity bridge's buffer layouts and the mirror conversion: THE one place on the TypeScript side.
 * The C# side's one place is `Packages/com.kind.retargeting/Runtime/Bridge/KindBridgeLayout.cs`; the
 * two must agree value for value (change both, and {@link LAYOUT_VERSION}, together). Engine-free.
 *
 * All buffers are `ArrayBuffer`s of little-endian float32 (read here through `Float32Array`, which
 * uses the platform's byte order: little-endian on every platform Unity and PuerTS run on).
 *
 * Input (C# -> TS, once per avatar-frame), `4 + 7S` floats for S source bones, or `4 + 8S` with the
 * confidence tail:
 * | offset | count | content |
 * |---|---|---|
 * | 0 | 1 | layout version ({@link LAYOUT_VERSION}) |
 * | 1 | 1 | S, the number of source bones (the setup's `source.names.length`) |
 * | 2 | 1 | frame counter (free use; not read) |
 * | 3 | 1 | tail flag: 0 no tail (`4 + 7S` floats), 1 the confidence tail follows (`4 + 8S` floats); nothing else |
 * | 4 | 3S | source bone WORLD positions, x y z per bone, metres, Unity coordinates |
 * | 4 + 3S | 4S | source bone WORLD rotations, x y z w per bone, Unity coordinates |
 * | 4 + 7S | S | (flag 1 only) confidence per source bone, [0, 1] (the mocap stream's; setup `source.mocap`) |
 *
 * The tail is for a hub whose setup says `source.mocap: true` (the webcam mocap's 21 bones): its
 * confidences drive the MocapHubDriver's limb IK weights (src/mocap/hubDriver.ts). Slot 3 was "reserved,
 * 0" before the tail and every shell wrote 0 there, so every older input is a valid flag-0 input: the
 * layout version stays 1 (a flag-0 input means exactly what it meant; a mocap hub given one takes
 * confidence 1 for every bone).
 *
 * Output (TS -> C#), `4 + 4T + 3 + 2` floats for T target bones:
 * | offset | count | content |
 * |---|---|---|
 * | 0 | 1 | layout version |
 * | 1 | 1 | T, the number of target transforms (the setup's `target.names.length`) |
 * | 2 | 1 | status: {@link STATUS_OK} 0, or {@link STATUS_REJECTED} 1 (input rejected, pose not updated: the rest is the last good pose) |
 * | 3 | 1 | reserved, 0 |
 * | 4 | 4T | target LOCAL rotations, x y z w per transform of the setup's target list, Unity coordinates |
 * | 4 + 4T | 3 | the hips transform's local position, metres, Unity coordinates |
 * | 7 + 4T | 2 | hips scale (the avatar scale), head scale: factors for those transforms' localScale (times their rest scale) |
 *
 * Mirror (Unity is left-handed, Y up; ours right-handed, Y up, DESIGN.md): reflect X, done at this
 * boundary and nowhere else. A point `(x, y, z)` becomes `(-x, y, z)`; a rotation `(x, y, z, w)`
 * becomes `(x, -y, -z, w)` (conjugating a rotation by the reflection diag(-1, 1, 1) keeps the axis
 * component along the mirror normal and negates the two in the mirror plane). Each is its own inverse.
 */

/** Version of the buffer layouts and the setup JSON (`layout` field). */
export const LAYOUT_VERSION = 1;

/** Header length (floats) of both buffers. */
export const HEADER_FLOATS = 4;
/** Header slots. */
export const H_VERSION = 0;
export const H_COUNT = 1;
export const H_FRAME = 2;
export const H_STATUS = 2;
export const H_RESERVED = 3;
/** Input header slot 3: the tail flag ({@link TAIL_NONE} or {@link TAIL_CONFIDENCE}). */
export const H_TAIL = 3;
export const TAIL_NONE = 0;
export const TAIL_CONFIDENCE = 1;

export const STATUS_OK = 0;
export const STATUS_REJECTED = 1;

/** Input length in floats for `s` source bones: `4 + 7s`. */
export function inputFloats(s: number): number {
  return HEADER_FLOATS + 7 * s;
}
/** Input length in floats with the confidence tail: `4 + 8s`. */
export function inputFloatsWithConfidence(s: number): number {
  return HEADER_FLOATS + 8 * s;
}
/** Offset of the input's confidence tail (`s` floats, flag {@link TAIL_CONFIDENCE}): `4 + 7s`. */
export function inputConfidenceOffset(s: number): number {
  return HEADER_FLOATS + 7 * s;
}
/** Offset of the input's world positions (`3s` floats). */
export function inputPositionsOffset(): number {
  return HEADER_FLOATS;
}
/** Offset of the input's world rotations (`4s` floats). */
export function inputRotationsOffset(s: number): number {
  return HEADER_FLOATS + 3 * s;
}

/** Output length in floats for `t` target bones: `4 + 4t + 3 + 2`. */
export function outputFloats(t: number): number {
  return HEADER_FLOATS + 4 * t + 3 + 2;
}
/** Offset of the output's local rotations (`4t` floats). */
export function outputRotationsOffset(): number {
  return HEADER_FLOATS;
}
/** Offset of the output's hips local position (3 floats). */
export function outputHipsPositionOffset(t: number): number {
  return HEADER_FLOATS + 4 * t;
}
/** Offset of the output's scales (hips scale, head scale). */
export function outputScalesOffset(t: number): number {
  return HEADER_FLOATS + 4 * t + 3;
}

/** Mirror `count` points (x y z) from `src[so..]` into `dst[o..]` (may be the same array): `(-x, y, z)`. */
export function mirrorPositions(
  dst: { [i: number]: number },
  o: number,
  src: ArrayLike<number>,
  so: number,
  count: number,
): void {
  for (let i = 0; i < count; i++) {
    const a = so + 3 * i;
    const b = o + 3 * i;
    const x = src[a];
    const y = src[a + 1];
    const z = src[a + 2];
    dst[b] = -x;
    dst[b + 1] = y;
    dst[b + 2] = z;
  }
}

/** Mirror `count` rotations (x y z w) from `src[so..]` into `dst[o..]` (may be the same array): `(x, -y, -z, w)`. */
export function mirrorRotations(
  dst: { [i: number]: number },
  o: number,
  src: ArrayLike<number>,
  so: number,
  count: number,
): void {
  for (let i = 0; i < count; i++) {
    const a = so + 4 * i;
    const b = o + 4 * i;
    const x = src[a];
    const y = src[a + 1];
    const z = src[a + 2];
    const w = src[a + 3];
    dst[b] = x;
    dst[b + 1] = -y;
    dst[b + 2] = -z;
    dst[b + 3] = w;
  }
}
