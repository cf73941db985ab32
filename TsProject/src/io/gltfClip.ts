/**
 * Sampling glTF animations into {@link Clip}s on an avatar's skeleton.
 *
 * Interpolation follows the glTF 2.0 spec, Appendix "Animation Sampler Interpolation Modes"
 * (https://registry.khronos.org/glTF/specs/2.0/glTF-2.0.html#appendix-c-interpolation):
 * STEP holds the key value; LINEAR lerps translations and slerps rotations (shortest path);
 * CUBICSPLINE is the cubic Hermite spline over `[in-tangent, value, out-tangent]` triples,
 * `p(s) = (2s³-3s²+1) v_k + Δt (s³-2s²+s) b_k + (-2s³+3s²) v_k+1 + Δt (s³-s²) a_k+1`
 * (Δt = t_k+1 - t_k, s = (t - t_k) / Δt), rotations normalised afterwards. Times outside the
 * keys clamp to the first/last key.
 */
import type { Accessor, AnimationSampler, Node as GltfNode } from '@gltf-transform/core';
import { quat, vec3 } from 'gl-matrix';
import { type Clip, createClip } from '../core/clip';
import { quat64, slerpShortest } from '../core/quat';
import { type Avatar, type BoneFrames, boneLocalFromNode, GltfError } from './gltfAvatar';
import { nameList } from './gltfCheck';

/** A clip read from a glTF file, with notes on what was skipped. */
export interface GltfClip extends Clip {
  /** Skipped channels (scale, morph weights, non-bone targets) and sampling notes. */
  readonly warnings: string[];
}

type Interp = 'LINEAR' | 'STEP' | 'CUBICSPLINE';

interface Track {
  /** Skeleton bone, or for root motion (a non-bone ancestor of a root bone) `-1 - node index`. */
  bone: number;
  path: 'translation' | 'rotation';
  times: Float64Array;
  /** Values, `size` per key (3 per key for CUBICSPLINE: in-tangent, value, out-tangent). */
  values: Float64Array;
  size: 3 | 4;
  interp: Interp;
}

function readAccessor(acc: Accessor, size: number): Float64Array {
  const count = acc.getCount();
  const array = acc.getArray();
  if (array && !acc.getNormalized() && array.length === count * size) return Float64Array.from(array);
  // normalized integers (KHR_mesh_quantization style rotations): getElement de-normalizes
  const out = new Float64Array(count * size);
  const el: number[] = [];
  for (let i = 0; i < count; i++) {
    acc.getElement(i, el);
    for (let k = 0; k < size; k++) out[i * size + k] = el[k];
  }
  return out;
}

function trackOf(
  sampler: AnimationSampler,
  bone: number,
  path: 'translation' | 'rotation',
  where: string,
  fileName: string,
): Track {
  const interp = sampler.getInterpolation() as string;
  if (interp !== 'LINEAR' && interp !== 'STEP' && interp !== 'CUBICSPLINE') {
    throw new GltfError(
      fileName,
      `${where}: sampler interpolation '${interp}' is not LINEAR, STEP or CUBICSPLINE`,
    );
  }
  const input = sampler.getInput();
  const output = sampler.getOutput();
  if (!input || !output) throw new GltfError(fileName, `${where}: sampler has no input or output accessor`);
  if (input.getType() !== 'SCALAR') {
    throw new GltfError(
      fileName,
      `${where}: sampler input accessor is ${input.getType()}, expected SCALAR times`,
    );
  }
  const size = path === 'rotation' ? 4 : 3;
  if (output.getElementSize() !== size) {
    throw new GltfError(
      fileName,
      `${where}: ${path} output accessor has ${output.getElementSize()} components, expected ${size}`,
    );
  }
  const times = readAccessor(input, 1);
  const keys = times.length;
  if (keys === 0) throw new GltfError(fileName, `${where}: sampler input has no keyframes`);
  for (let k = 0; k < keys; k++) {
    if (!Number.isFinite(times[k]) || (k > 0 && times[k] < times[k - 1])) {
      throw new GltfError(
        fileName,
        `${where}: sampler input time[${k}] = ${times[k]} is not finite and non-decreasing`,
      );
    }
  }
  const perKey = interp === 'CUBICSPLINE' ? 3 : 1;
  if (output.getCount() !== keys * perKey) {
    throw new GltfError(
      fileName,
      `${where}: output accessor has ${output.getCount()} elements, expected ${keys * perKey} for ${keys} ${interp} keys`,
    );
  }
  const values = readAccessor(output, size);
  for (let k = 0; k < values.length; k++) {
    if (!Number.isFinite(values[k])) {
      throw new GltfError(fileName, `${where}: output value ${Math.floor(k / size)} is not finite`);
    }
  }
  return { bone, path, times, values, size, interp };
}

const qa = quat64();
const qb = quat64();
const qo = quat64();

/** Value of key `k` (element k, or 3k + 1 for CUBICSPLINE's [in-tangent, value, out-tangent]). */
function keyValue(track: Track, k: number, out: Float64Array): void {
  const size = track.size;
  const o = (track.interp === 'CUBICSPLINE' ? 3 * k + 1 : k) * size;
  for (let c = 0; c < size; c++) out[c] = track.values[o + c];
}

/** Evaluate a track at time `t` into `out` (3 or 4 numbers). Allocates nothing. */
function evaluate(track: Track, t: number, out: Float64Array): void {
  const { times, values, size, interp } = track;
  const n = times.length;

  if (n === 1 || t <= times[0]) {
    keyValue(track, 0, out);
  } else if (t >= times[n - 1]) {
    keyValue(track, n - 1, out);
  } else {
    let lo = 0;
    let hi = n - 1;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (times[mid] <= t) lo = mid;
      else hi = mid;
    }
    const dt = times[hi] - times[lo];
    const s = dt > 0 ? (t - times[lo]) / dt : 1;
    if (interp === 'STEP') {
      keyValue(track, lo, out);
    } else if (interp === 'LINEAR') {
      if (size === 4) {
        for (let c = 0; c < 4; c++) {
          qa[c] = values[4 * lo + c];
          qb[c] = values[4 * hi + c];
        }
        slerpShortest(qo, qa, qb, s);
        for (let c = 0; c < 4; c++) out[c] = qo[c];
      } else {
        for (let c = 0; c < 3; c++) out[c] = values[3 * lo + c] * (1 - s) + values[3 * hi + c] * s;
      }
    } else {
      const s2 = s * s;
      const s3 = s2 * s;
      const h00 = 2 * s3 - 3 * s2 + 1;
      const h10 = dt * (s3 - 2 * s2 + s);
      const h01 = -2 * s3 + 3 * s2;
      const h11 = dt * (s3 - s2);
      const v0 = (3 * lo + 1) * size; // value k
      const b0 = (3 * lo + 2) * size; // out-tangent k
      const a1 = 3 * hi * size; // in-tangent k+1
      const v1 = (3 * hi + 1) * size; // value k+1
      for (let c = 0; c < size; c++) {
        out[c] = h00 * values[v0 + c] + h10 * values[b0 + c] + h01 * values[v1 + c] + h11 * values[a1 + c];
      }
    }
  }
  if (size === 4) {
    const len = Math.hypot(out[0], out[1], out[2], out[3]);
    if (len > 1e-12) for (let c = 0; c < 4; c++) out[c] /= len;
    else {
      out[0] = 0;
      out[1] = 0;
      out[2] = 0;
      out[3] = 1;
    }
  }
}

/**
 * For each root bone of the avatar's skeleton, the glTF nodes above it (scene root first, its parent
 * last); root bones at a scene root are left out.
 */
function rootBoneChains(avatar: Avatar, nodeIndex: Map<GltfNode, number>): Map<number, number[]> {
  const nodes = avatar.document.getRoot().listNodes();
  const chains = new Map<number, number[]>();
  const parents = avatar.skeleton.parents;
  for (let b = 0; b < avatar.skeleton.boneCount; b++) {
    if (parents[b] >= 0) continue;
    const chain: number[] = [];
    for (let p = nodes[avatar.nodeOfBone[b]].getParentNode(); p; p = p.getParentNode()) {
      const k = nodeIndex.get(p);
      if (k !== undefined) chain.push(k);
    }
    if (chain.length > 0) chains.set(b, chain.reverse());
  }
  return chains;
}

const pr = quat64();
const pq = quat64();
const pt = new Float64Array(3);
const pv = new Float64Array(4);

/**
 * World frame at time `t` of the node above root bone `b` (the product of the `chain` nodes' TRS, each
 * node's animated translation/rotation where `byNode` has a track, else its rest value; scales are the
 * rest scales, uniform as readAvatar checked), written into `frames` for bone `b`. Allocates nothing.
 */
function parentFrameAt(
  nodes: GltfNode[],
  chain: readonly number[],
  byNode: Map<number, (Track | undefined)[]>,
  t: number,
  frames: BoneFrames,
  b: number,
): void {
  quat.identity(pr);
  let x = 0;
  let y = 0;
  let z = 0;
  let s = 1;
  for (let k = 0; k < chain.length; k++) {
    const node = nodes[chain[k]];
    const tracks = byNode.get(chain[k]);
    if (tracks?.[0]) evaluate(tracks[0], t, pv);
    else {
      const rt = node.getTranslation();
      pv[0] = rt[0];
      pv[1] = rt[1];
      pv[2] = rt[2];
    }
    vec3.set(pt, pv[0] * s, pv[1] * s, pv[2] * s);
    vec3.transformQuat(pt, pt, pr);
    x += pt[0];
    y += pt[1];
    z += pt[2];
    if (tracks?.[1]) evaluate(tracks[1], t, pv);
    else {
      const rr = node.getRotation();
      const len = Math.hypot(rr[0], rr[1], rr[2], rr[3]);
      for (let c = 0; c < 4; c++) pv[c] = rr[c] / len;
    }
    quat.set(pq, pv[0], pv[1], pv[2], pv[3]);
    quat.multiply(pr, pr, pq);
    const sc = node.getScale();
    s *= (sc[0] + sc[1] + sc[2]) / 3;
  }
  frames.parentScale[b] = s;
  for (let c = 0; c < 4; c++) frames.parentRotation[4 * b + c] = pr[c];
  frames.parentTranslation[3 * b] = x;
  frames.parentTranslation[3 * b + 1] = y;
  frames.parentTranslation[3 * b + 2] = z;
}

/** Tolerance, as a fraction of the mean key spacing, for calling key times evenly spaced. */
const EVEN_TOLERANCE = 0.01;

/** Below this fraction of a frame, a clip's length counts as a whole number of frames (no note). */
const WHOLE_FRAME_TOLERANCE = 1e-3;

/**
 * Number of frames when a clip spanning `duration` seconds (last key time minus first) is resampled at
 * `fps` frames per second: `max(1, round(duration * fps)) + 1`, i.e. the frames `f / fps` for
 * `f = 0 .. n - 1` with the last one the frame nearest the last key (ties: the later frame). The
 * reader samples the last frame at the last key's time, so the first and last keys are always the
 * first and last frames. Rounding to the nearest frame rather than down keeps the last key of a
 * clip whose float32 key times fall a hair short of a whole number of frames (4.2 s is stored as
 * 4.19999981 s: 43 frames at 10 fps, not 42); for a length that is not a whole number of frames the
 * end moves by at most half a frame (earlier or later; a clip shorter than half a frame still gets
 * 2 frames, its end moved to the second), where rounding down would drop up to a whole
 * frame of motion and the last pose. (three.js keeps the last key by appending it at its own time,
 * mrdoob/three.js#25288; a {@link Clip} has evenly spaced frames, so here it takes the nearest frame.)
 * 0 for `duration` 0 gives 1 frame.
 */
export function resampledFrameCount(duration: number, fps: number): number {
  if (!(duration > 0)) return 1;
  return Math.max(1, Math.round(duration * fps)) + 1;
}

/**
 * Sample one of the avatar's clips ({@link Avatar.clipNames}; default the first) on
 * `avatar.skeleton`, in the skeleton's frame (metres, scene world frame, as the rest pose).
 *
 * - Channels used: `translation` and `rotation` of nodes that are skeleton bones. `scale` channels,
 *   morph `weights` channels and channels on other non-bone nodes are ignored, each noted in `warnings`.
 *   Bones without a channel keep their rest transform.
 * - Root motion: `translation`/`rotation` channels on non-bone nodes above a root bone (Blender
 *   exports walk cycles with the motion on the `Armature` object: Rokoko blender#118,
 *   KhronosGroup/glTF-Blender-IO#1506) are folded into that root bone's path, as a glTF player
 *   shows it: root bone = (animated parent-node world transform) * (its node transform), with the
 *   nodes' rest scales (uniform, checked by readAvatar). A note in `warnings` names the nodes.
 * - Frames: over `[first key time, last key time]` of all the clip's channels (frame 0 is the first
 *   key time). When the union of the key times is evenly spaced (within 1 % of the spacing) and no
 *   `fps` is given, one frame per key time; otherwise at `options.fps` (default 30) frames per second,
 *   {@link resampledFrameCount} frames: `max(1, round(duration * fps)) + 1`. Frame f samples the time
 *   `first key + f / fps`, except the last frame, which samples the last key time: the last key is
 *   always the last frame. When `duration * fps` is not a whole number (beyond 1e-3 of a frame: float32
 *   key times are not a reason), a note in `warnings` says where the last key went. A clip with a
 *   single key time has one frame and `frameTime = 1 / fps`.
 *
 * @throws GltfError on an unknown clip name (listing the available names), a file without
 * animations, a non-positive `fps`, or a malformed sampler (the message names animation, channel, field).
 */
export function readGltfClip(avatar: Avatar, clipName?: string, options?: { fps?: number }): GltfClip {
  try {
    return readGltfClipChecked(avatar, clipName, options);
  } catch (e) {
    if (e instanceof GltfError) throw e;
    // A failure no check foresaw: still name the file and the clip.
    throw new GltfError(
      avatar?.fileName ?? '<avatar>',
      `could not read clip '${clipName ?? avatar?.clipNames?.[0]}': ${(e as Error)?.message ?? e}`,
      { cause: e },
    );
  }
}

function readGltfClipChecked(avatar: Avatar, clipName?: string, options?: { fps?: number }): GltfClip {
  const fileName = avatar.fileName;
  if (avatar.clipSources.length === 0) throw new GltfError(fileName, 'the file has no animations');
  const source =
    clipName === undefined ? avatar.clipSources[0] : avatar.clipSources.find((s) => s.name === clipName);
  if (!source) {
    throw new GltfError(
      fileName,
      `no clip named '${clipName}'; available: ${avatar.clipNames.map((n) => `'${n}'`).join(', ')}`,
    );
  }
  const fps = options?.fps;
  if (fps !== undefined && (!(fps > 0) || !Number.isFinite(fps))) {
    throw new GltfError(fileName, `readGltfClip: fps ${fps} must be a positive number`);
  }
  const warnings: string[] = [];
  const animations = avatar.document.getRoot().listAnimations();
  const nodes = avatar.document.getRoot().listNodes();
  const nodeIndex = new Map(nodes.map((n, i) => [n, i]));
  const tracks: Track[] = [];
  const seen = new Map<string, string>();
  const skipped = { scale: new Set<string>(), weights: 0, nonBone: new Set<string>() };
  // Root motion: non-bone ancestors of root bones (Blender's `Armature`) animate the whole skeleton.
  const rootChains = rootBoneChains(avatar, nodeIndex);
  const aboveRoot = new Set<number>();
  for (const chain of rootChains.values()) for (const k of chain) aboveRoot.add(k);
  const folded = new Set<string>();
  for (const a of source.animationIndices) {
    const anim = animations[a];
    anim.listChannels().forEach((channel, c) => {
      const where = `animations[${a}]${anim.getName() ? ` '${anim.getName()}'` : ''}.channels[${c}]`;
      const node = channel.getTargetNode();
      const path = channel.getTargetPath();
      const sampler = channel.getSampler();
      if (!node || !sampler) {
        warnings.push(`${where}: no target node or sampler, ignored`);
        return;
      }
      const ni = nodeIndex.get(node) ?? -1;
      const bone = ni >= 0 ? avatar.boneOfNode[ni] : -1;
      if (path === 'weights') {
        skipped.weights++;
        return;
      }
      if (bone < 0 && aboveRoot.has(ni) && (path === 'translation' || path === 'rotation')) {
        const key = `${-1 - ni}/${path}`;
        if (seen.has(key)) {
          warnings.push(
            `${where}: node '${node.getName() || `node${ni}`}' ${path} already animated by ${seen.get(key)}; the later channel wins`,
          );
          tracks.splice(
            tracks.findIndex((t) => t.bone === -1 - ni && t.path === path),
            1,
          );
        }
        seen.set(key, where);
        tracks.push(trackOf(sampler, -1 - ni, path, where, fileName));
        folded.add(node.getName() || `node${ni}`);
        return;
      }
      if (bone < 0) {
        skipped.nonBone.add(node.getName() || `node${ni}`);
        return;
      }
      if (path === 'scale') {
        skipped.scale.add(avatar.skeleton.names[bone]);
        return;
      }
      if (path !== 'translation' && path !== 'rotation') {
        warnings.push(`${where}: target path '${path}' ignored`);
        return;
      }
      const key = `${bone}/${path}`;
      if (seen.has(key)) {
        warnings.push(
          `${where}: bone '${avatar.skeleton.names[bone]}' ${path} already animated by ${seen.get(key)}; the later channel wins`,
        );
        const k = tracks.findIndex((t) => t.bone === bone && t.path === path);
        tracks.splice(k, 1);
      }
      seen.set(key, where);
      tracks.push(trackOf(sampler, bone, path, where, fileName));
    });
  }
  if (skipped.scale.size > 0) {
    warnings.push(
      `scale channels ignored (the skeleton is scale-free) on ${skipped.scale.size} bones: ${nameList(skipped.scale)}`,
    );
  }
  if (skipped.weights > 0) warnings.push(`${skipped.weights} morph target weights channels ignored`);
  if (folded.size > 0) {
    const roots = [...rootChains.keys()].map((b) => avatar.skeleton.names[b]);
    warnings.push(
      `root motion: the animated transform of ${nameList(folded)} (not skeleton bones) folded into ${nameList(roots)}`,
    );
  }
  if (skipped.nonBone.size > 0) {
    warnings.push(
      `channels on nodes that are not skeleton bones ignored (${skipped.nonBone.size}): ${nameList(skipped.nonBone)}`,
    );
  }

  // Frame times.
  const all: number[] = [];
  for (const t of tracks) for (const x of t.times) all.push(x);
  all.sort((x, y) => x - y);
  const t0 = all.length > 0 ? all[0] : 0;
  const t1 = all.length > 0 ? all[all.length - 1] : 0;
  const duration = t1 - t0;
  const keyTimes: number[] = [];
  const mergeGap = Math.max(1e-5, duration * 1e-7);
  for (const x of all)
    if (keyTimes.length === 0 || x - keyTimes[keyTimes.length - 1] > mergeGap) keyTimes.push(x);
  let frameCount: number;
  let frameTime: number;
  const rate = fps ?? 30;
  if (keyTimes.length <= 1) {
    frameCount = 1;
    frameTime = 1 / rate;
  } else {
    const step = duration / (keyTimes.length - 1);
    let even = fps === undefined;
    for (let k = 0; even && k < keyTimes.length; k++) {
      if (Math.abs(keyTimes[k] - (t0 + k * step)) > EVEN_TOLERANCE * step) even = false;
    }
    if (even) {
      frameCount = keyTimes.length;
      frameTime = step;
    } else {
      if (fps === undefined) warnings.push(`key times are not evenly spaced: resampled at ${rate} fps`);
      frameCount = resampledFrameCount(duration, rate);
      frameTime = 1 / rate;
      const frames = duration * rate;
      // against the frame the last key went to (not round(frames)): a clip under half a frame long
      // still has 2 frames, its end moved by more than half a frame
      if (Math.abs(frames - (frameCount - 1)) > WHOLE_FRAME_TOLERANCE) {
        warnings.push(
          `the clip lasts ${duration.toFixed(4)} s, ${frames.toFixed(3)} frames at ${rate} fps: its last key is the last frame, ${frameCount - 1} (${((frameCount - 1) * frameTime).toFixed(4)} s)`,
        );
      }
    }
  }

  const skeleton = avatar.skeleton;
  const n = skeleton.boneCount;
  const clip = createClip(skeleton, frameCount, frameTime, source.name);
  const nodeT = new Float64Array(3);
  const nodeR = new Float64Array(4);
  const value = new Float64Array(4);
  const byBone: (Track | undefined)[][] = Array.from({ length: n }, () => [undefined, undefined]);
  const byNode = new Map<number, (Track | undefined)[]>();
  for (const t of tracks) {
    if (t.bone >= 0) byBone[t.bone][t.path === 'translation' ? 0 : 1] = t;
    else {
      const list = byNode.get(-1 - t.bone) ?? [undefined, undefined];
      list[t.path === 'translation' ? 0 : 1] = t;
      byNode.set(-1 - t.bone, list);
    }
  }
  // Root bones below animated non-bone nodes: their parent frame is evaluated per frame.
  const moving = new Map<number, number[]>();
  for (const [b, chain] of rootChains) if (chain.some((k) => byNode.has(k))) moving.set(b, chain);
  const frames: BoneFrames =
    moving.size > 0
      ? {
          parentScale: Float64Array.from(avatar.parentScale),
          parentRotation: Float64Array.from(avatar.parentRotation),
          parentTranslation: Float64Array.from(avatar.parentTranslation),
        }
      : avatar;
  // createClip filled every frame with the rest pose; overwrite the animated bones. A bone animated on
  // one path only takes the other from its node rest TRS.
  for (let b = 0; b < n; b++) {
    const [tt, tr] = byBone[b];
    const chain = moving.get(b);
    if (!tt && !tr && !chain) continue;
    const node = nodes[avatar.nodeOfBone[b]];
    const restNodeT = node.getTranslation();
    const restNodeR = node.getRotation();
    const len = Math.hypot(restNodeR[0], restNodeR[1], restNodeR[2], restNodeR[3]);
    for (let f = 0; f < frameCount; f++) {
      // the last frame is the last key, at its own time (see resampledFrameCount)
      const t = f === frameCount - 1 ? t1 : t0 + f * frameTime;
      if (tt) {
        evaluate(tt, t, value);
        nodeT[0] = value[0];
        nodeT[1] = value[1];
        nodeT[2] = value[2];
      } else {
        nodeT[0] = restNodeT[0];
        nodeT[1] = restNodeT[1];
        nodeT[2] = restNodeT[2];
      }
      if (tr) {
        evaluate(tr, t, value);
        for (let c = 0; c < 4; c++) nodeR[c] = value[c];
      } else {
        for (let c = 0; c < 4; c++) nodeR[c] = restNodeR[c] / len;
      }
      if (chain) parentFrameAt(nodes, chain, byNode, t, frames, b);
      boneLocalFromNode(frames, b, nodeT, nodeR, nodeT, nodeR);
      const o = f * n + b;
      if (tt || chain) for (let c = 0; c < 3; c++) clip.translations[3 * o + c] = nodeT[c];
      if (tr || chain) for (let c = 0; c < 4; c++) clip.rotations[4 * o + c] = nodeR[c];
    }
  }
  return Object.assign(clip, { warnings });
}
