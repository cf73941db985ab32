/**
 * The live viewer's scene description and pose-message layout: the one place both the server
 * (src/live/node/viewerServer.ts, packing) and the browser viewer (decoding) take them from.
 * Engine-free: no Node or DOM API.
 *
 * ## Pose message (one binary WebSocket message per frame on `/pose`; layout versions 1 and 2)
 * A `Float32Array` in little-endian byte order (the byte order of every platform we run on; the
 * browser reads it with `new Float32Array(message)`). Offsets count floats.
 * ```
 * [0] layout version (1)       [1] frame number            [2] timestamp (s, as published)
 * [3] latency (ms)             [4] dropped packets (total)  [5] frames per second
 * [6] S = source bone count    [7] A = avatar count
 * [8 + 2a] n_a = bone count of avatar a, [9 + 2a] k_a = scale count of avatar a (2), for a < A
 * then, from offset 8 + 2A:
 *   source local rotations 4S (quaternions [x, y, z, w]), source local translations 3S (metres)
 *   for each avatar a: local rotations 4n_a, local translations 3n_a, scales k_a
 *   ([hips scale, head scale]: RetargetHub.outputScales, to multiply onto those nodes' rest scales)
 * ```
 * The source pose is the one the hubs read: after the live source stage's One-Euro filter
 * (src/rig/sourceStage.ts; the raw stream when the filter is off).
 *
 * Version 2 (sent only to a client that connects to `/pose?raw=1`; a plain `/pose` client keeps
 * getting version 1): version 1's message with float 0 = 2, followed by the RAW source pose (the
 * stream as it came in, before the filter): local rotations 4S, local translations 3S. A decoder
 * that knows only version 1 rejects it with its "layout version 2, expected 1" error.
 *
 * Frame: right-handed, Y up, metres, character faces +Z (DESIGN.md; the same as three.js). Local
 * transforms are each skeleton's own (scale-free) bone frames, in {@link ViewerSkeleton} bone order.
 * Float32 keeps 24 bits: frame numbers are exact below 2^24 and timestamps should be seconds from the
 * start of the stream (not epoch milliseconds).
 */

/** One skeleton as the viewer draws it. */
export interface ViewerSkeleton {
  /** Display name; for avatars, the character name the remote-control protocol uses. */
  name: string;
  /**
   * Bone names, length `n`. With `modelUrl`, the glTF node names as src/io/gltfAvatar.ts names bones
   * (`node<index>` for unnamed nodes, `<name>#<node index>` for a repeated name).
   */
  boneNames: string[];
  /** Parent bone index per bone, -1 for roots, `parents[i] < i`. Length `n`. */
  parents: number[];
  /** Rest local translations, metres, `3n`. */
  restTranslations: number[];
  /** Rest local rotations, quaternions `[x, y, z, w]`, `4n`. */
  restRotations: number[];
  /** Bone index per HumanBodyBones (length 55, -1 when missing); the viewer puts the scales on Hips and Head. */
  humanoid?: number[];
  /** URL path of a glTF/GLB/VRM model the viewer loads (one of the server's `files`); else a stick figure. */
  modelUrl?: string;
}

/** What `/scene.json` describes (the server adds `layout`: {@link PoseLayoutInfo}). */
export interface ViewerScene {
  source: ViewerSkeleton;
  avatars: ViewerSkeleton[];
  /** The remote-control WebSocket (`ws://host:port/retargeting`) the control panel connects to. */
  remote: { url: string; token?: string };
}

/** One frame to publish; array lengths as in the scene (extra entries are ignored). */
export interface ViewerFrame {
  frameNumber: number;
  /** Seconds from the start of the stream. */
  timestamp: number;
  latencyMs: number;
  /** Dropped packets so far. */
  dropped: number;
  fps: number;
  /** Source local rotations `4S` and translations `3S` (filtered: what the hubs read). */
  source: { rotations: ArrayLike<number>; translations: ArrayLike<number> };
  /**
   * The raw source pose (before the source filter), same shapes; sent to version-2 clients only. A
   * publisher without it sends `source` in its place; a decoded version-1 message has none.
   */
  rawSource?: { rotations: ArrayLike<number>; translations: ArrayLike<number> };
  /** Per avatar: local rotations `4n`, translations `3n`, scales `[hips, head]` (`RetargetHub.outputScales`). */
  avatars: { rotations: ArrayLike<number>; translations: ArrayLike<number>; scales: ArrayLike<number> }[];
}

export interface PoseLayoutInfo {
  version: number;
  headerFloats: number;
  scalesPerAvatar: number;
  /** Floats per message for this scene. */
  floats: number;
}

/** Version of the plain pose-message layout (module comment), float 0 of every `/pose` message. */
export const POSE_LAYOUT_VERSION = 1;
/** Version of the layout with the raw source appended (`/pose?raw=1`). */
export const POSE_LAYOUT_VERSION_RAW = 2;
/** Floats before the per-avatar counts. */
export const POSE_HEADER_FLOATS = 8;
/** Scale entries per avatar: `[hips scale, head scale]`. */
export const POSE_SCALES_PER_AVATAR = 2;

/** Float count of one pose message for `scene` (version 2, `raw` true: with the raw source block). */
export function poseMessageFloats(scene: Pick<ViewerScene, 'source' | 'avatars'>, raw = false): number {
  let n = POSE_HEADER_FLOATS + 2 * scene.avatars.length + 7 * scene.source.boneNames.length;
  for (const a of scene.avatars) n += 7 * a.boneNames.length + POSE_SCALES_PER_AVATAR;
  return raw ? n + 7 * scene.source.boneNames.length : n;
}

/** Where the parts of one message start (float offsets). */
export interface PoseOffsets {
  sourceRotations: number;
  sourceTranslations: number;
  avatars: { rotations: number; translations: number; scales: number; bones: number; scaleCount: number }[];
  /** Version 2: where the raw source rotations (4S) and translations (3S) start; else -1. */
  rawRotations: number;
  rawTranslations: number;
}

/**
 * Offsets of the parts of a pose message, read from its own counts.
 * @throws Error when the version is not {@link POSE_LAYOUT_VERSION}, a count is not a non-negative
 * integer, or the message is shorter than its counts say.
 */
export function poseOffsets(data: Float32Array): PoseOffsets {
  const version = data.length < POSE_HEADER_FLOATS ? Number.NaN : data[0];
  if (version !== POSE_LAYOUT_VERSION && version !== POSE_LAYOUT_VERSION_RAW) {
    throw new Error(
      `pose message: layout version ${data[0]}, expected ${POSE_LAYOUT_VERSION} or ${POSE_LAYOUT_VERSION_RAW}`,
    );
  }
  const count = (i: number, what: string) => {
    const v = data[i];
    if (!(Number.isInteger(v) && v >= 0)) throw new Error(`pose message: ${what} ${v} is not a count`);
    return v;
  };
  const S = count(6, 'source bone count');
  const A = count(7, 'avatar count');
  if (data.length < POSE_HEADER_FLOATS + 2 * A)
    throw new Error(`pose message: ${data.length} floats, too short`);
  let o = POSE_HEADER_FLOATS + 2 * A;
  const out: PoseOffsets = {
    sourceRotations: o,
    sourceTranslations: o + 4 * S,
    avatars: [],
    rawRotations: -1,
    rawTranslations: -1,
  };
  o += 7 * S;
  for (let a = 0; a < A; a++) {
    const n = count(POSE_HEADER_FLOATS + 2 * a, `avatar ${a} bone count`);
    const k = count(POSE_HEADER_FLOATS + 2 * a + 1, `avatar ${a} scale count`);
    out.avatars.push({ rotations: o, translations: o + 4 * n, scales: o + 7 * n, bones: n, scaleCount: k });
    o += 7 * n + k;
  }
  if (version === POSE_LAYOUT_VERSION_RAW) {
    out.rawRotations = o;
    out.rawTranslations = o + 4 * S;
    o += 7 * S;
  }
  if (o > data.length) throw new Error(`pose message: ${data.length} floats, its counts need ${o}`);
  return out;
}

/**
 * Decode one pose message (version 1 or 2) into a {@link ViewerFrame} whose arrays are views into
 * `data`; `rawSource` is set for version 2.
 */
export function decodePoseMessage(data: Float32Array): ViewerFrame {
  const off = poseOffsets(data);
  const S = data[6];
  const raw =
    off.rawRotations < 0
      ? undefined
      : {
          rotations: data.subarray(off.rawRotations, off.rawRotations + 4 * S),
          translations: data.subarray(off.rawTranslations, off.rawTranslations + 3 * S),
        };
  return {
    ...(raw ? { rawSource: raw } : {}),
    frameNumber: data[1],
    timestamp: data[2],
    latencyMs: data[3],
    dropped: data[4],
    fps: data[5],
    source: {
      rotations: data.subarray(off.sourceRotations, off.sourceRotations + 4 * S),
      translations: data.subarray(off.sourceTranslations, off.sourceTranslations + 3 * S),
    },
    avatars: off.avatars.map((a) => ({
      rotations: data.subarray(a.rotations, a.rotations + 4 * a.bones),
      translations: data.subarray(a.translations, a.translations + 3 * a.bones),
      scales: data.subarray(a.scales, a.scales + a.scaleCount),
    })),
  };
}
