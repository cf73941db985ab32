/**
 * The skeleton of a glTF avatar (the rules are in src/io/gltfAvatar.ts): which nodes are bones, names,
 * the scale-free rest pose in the scene's world frame (ancestors' transforms and scales folded in),
 * the scale checks, and the node <-> bone local transform conversion the reader and writer share.
 */
import type { Document, Node as GltfNode } from '@gltf-transform/core';
import { quat, vec3 } from 'gl-matrix';
import { type NumArray, quat64, readQuat, vec64, writeQuat, writeVec3 } from '../core/quat';
import { createSkeleton, type Skeleton, SkeletonError } from '../core/skeleton';
import type { Avatar } from './gltfAvatarTypes';
import { GltfError } from './gltfError';
import { HUMANOID_EXTRAS_KEY } from './gltfHumanoidExtras';

// ---------------------------------------------------------------------------------------------
// Skeleton extraction.

/** Relative tolerance for "uniform" scale. */
const SCALE_TOLERANCE = 1e-4;

interface NodeGraph {
  nodes: GltfNode[];
  parent: Int32Array;
  children: number[][];
  roots: number[];
}

export function nodeGraph(document: Document, fileName: string): NodeGraph {
  const nodes = document.getRoot().listNodes();
  const index = new Map<GltfNode, number>(nodes.map((n, i) => [n, i]));
  const parent = new Int32Array(nodes.length).fill(-1);
  const children: number[][] = nodes.map(() => []);
  nodes.forEach((n, i) => {
    for (const c of n.listChildren()) {
      const ci = index.get(c);
      if (ci === undefined) continue;
      if (parent[ci] >= 0 && parent[ci] !== i) {
        throw new GltfError(fileName, `nodes[${ci}] is a child of both nodes[${parent[ci]}] and nodes[${i}]`);
      }
      parent[ci] = i;
      children[i].push(ci);
    }
  });
  const roots: number[] = [];
  for (let i = 0; i < nodes.length; i++) {
    let p = i;
    let steps = 0;
    while (parent[p] >= 0) {
      p = parent[p];
      if (++steps > nodes.length)
        throw new GltfError(fileName, `nodes[${i}]: the node hierarchy has a cycle`);
    }
    if (parent[i] < 0) roots.push(i);
  }
  return { nodes, parent, children, roots };
}

export function nodeLabel(graph: NodeGraph, i: number): string {
  const name = graph.nodes[i].getName();
  return name ? `nodes[${i}] '${name}'` : `nodes[${i}]`;
}

/** Node indices that are skeleton bones (unordered). */
export function selectBones(
  graph: NodeGraph,
  document: Document,
  fileMap: { nodeOfHuman: Int32Array; what: string } | null,
  overrideHips: string | null | undefined,
  fileName: string,
): boolean[] {
  const n = graph.nodes.length;
  const index = new Map<GltfNode, number>(graph.nodes.map((node, i) => [node, i]));
  const inSet = new Array<boolean>(n).fill(false);
  let jointCount = 0;
  for (const skin of document.getRoot().listSkins()) {
    for (const joint of skin.listJoints()) {
      const i = index.get(joint);
      if (i !== undefined && !inSet[i]) {
        inSet[i] = true;
        jointCount++;
      }
    }
  }
  const humanNodes = fileMap ? Array.from(fileMap.nodeOfHuman).filter((x) => x >= 0) : [];
  if (jointCount === 0) {
    let hips = fileMap ? fileMap.nodeOfHuman[0] : -1;
    if (hips < 0 && overrideHips) {
      hips = nodeByBoneName(graph, overrideHips);
      if (hips < 0) throw new GltfError(fileName, `mapOverride.Hips: no node named '${overrideHips}'`);
    }
    if (hips < 0) {
      throw new GltfError(
        fileName,
        fileMap
          ? `no skin joints and no hips in the ${fileMap.what}: no skeleton to read`
          : `no skin joints and no VRM humanoid map (extensions.VRM / extensions.VRMC_vrm), extras.${HUMANOID_EXTRAS_KEY} map or mapOverride.Hips: no skeleton to read`,
      );
    }
    const isHuman = new Set(humanNodes);
    const stack = [hips];
    while (stack.length > 0) {
      const i = stack.pop()!;
      const leafMesh = graph.children[i].length === 0 && graph.nodes[i].getMesh() !== null && !isHuman.has(i);
      if (!leafMesh) inSet[i] = true;
      for (const c of graph.children[i]) stack.push(c);
    }
  }
  for (const h of humanNodes) inSet[h] = true;
  // Connect: nodes between a bone and its nearest bone ancestor.
  const selected = inSet.map((v, i) => (v ? i : -1)).filter((i) => i >= 0);
  for (const i of selected) {
    const path: number[] = [];
    let p = graph.parent[i];
    while (p >= 0 && !inSet[p]) {
      path.push(p);
      p = graph.parent[p];
    }
    if (p >= 0) for (const q of path) inSet[q] = true;
  }
  // Several top bones: join them at their lowest common ancestor, when they have one.
  const tops = inSet.map((v, i) => (v && !hasMarkedAncestor(graph, inSet, i) ? i : -1)).filter((i) => i >= 0);
  if (tops.length > 1) {
    const chains = tops.map((t) => ancestorsFromRoot(graph, t));
    let depth = 0;
    while (chains.every((c) => depth < c.length && c[depth] === chains[0][depth])) depth++;
    if (depth > 0) {
      for (const c of chains) for (let k = depth - 1; k < c.length; k++) inSet[c[k]] = true;
    }
  }
  return inSet;
}

/**
 * The node a bone name refers to (the naming rule of the module comment: `node<index>` for an unnamed
 * node, `<name>#<index>` for a repeated name), or -1 when none or when the plain name is not unique.
 */
function nodeByBoneName(graph: NodeGraph, boneName: string): number {
  const suffixed = /^(.*)#(\d+)$/.exec(boneName);
  if (suffixed) {
    const i = Number(suffixed[2]);
    if (i < graph.nodes.length && graph.nodes[i].getName() === suffixed[1]) return i;
  }
  const unnamed = /^node(\d+)$/.exec(boneName);
  if (unnamed) {
    const i = Number(unnamed[1]);
    if (i < graph.nodes.length && graph.nodes[i].getName() === '') return i;
  }
  const hits = graph.nodes.map((n, i) => (n.getName() === boneName ? i : -1)).filter((i) => i >= 0);
  return hits.length === 1 ? hits[0] : -1;
}

function hasMarkedAncestor(graph: NodeGraph, marked: boolean[], i: number): boolean {
  for (let p = graph.parent[i]; p >= 0; p = graph.parent[p]) if (marked[p]) return true;
  return false;
}

/** Chain of node indices from the scene root down to `i` (inclusive). */
function ancestorsFromRoot(graph: NodeGraph, i: number): number[] {
  const chain: number[] = [];
  for (let p = i; p >= 0; p = graph.parent[p]) chain.push(p);
  return chain.reverse();
}

/**
 * Uniform scale of a node, or throw naming the node. With `nonUniform`, a positive non-uniform scale
 * does not throw: the node is added to the list and its mean scale returned.
 */
function uniformScale(graph: NodeGraph, i: number, fileName: string, nonUniform?: Set<number>): number {
  const s = graph.nodes[i].getScale();
  const lo = Math.min(s[0], s[1], s[2]);
  const hi = Math.max(s[0], s[1], s[2]);
  if (!(lo > 0) || !Number.isFinite(hi)) {
    throw new GltfError(
      fileName,
      `${nodeLabel(graph, i)}: scale [${s.join(', ')}] is not positive (mirrored or zero scale is not supported on the skeleton chain)`,
    );
  }
  if (hi - lo > SCALE_TOLERANCE * hi) {
    if (nonUniform) {
      nonUniform.add(i);
      return (s[0] + s[1] + s[2]) / 3;
    }
    throw new GltfError(
      fileName,
      `${nodeLabel(graph, i)}: non-uniform scale [${s.join(', ')}] on the skeleton chain is not supported`,
    );
  }
  return (s[0] + s[1] + s[2]) / 3;
}

/** World rotation, translation and uniform scale of node `i` (scales checked uniform). */
function nodeWorld(graph: NodeGraph, i: number, fileName: string, outR: quat, outT: vec3): number {
  quat.identity(outR);
  vec3.set(outT, 0, 0, 0);
  let s = 1;
  const r = quat64();
  const t = vec64();
  for (const k of ancestorsFromRoot(graph, i)) {
    const node = graph.nodes[k];
    const nt = node.getTranslation();
    const nr = node.getRotation();
    vec3.set(t, nt[0] * s, nt[1] * s, nt[2] * s);
    vec3.transformQuat(t, t, outR);
    vec3.add(outT, outT, t);
    quat.set(r, nr[0], nr[1], nr[2], nr[3]);
    quat.normalize(r, r);
    quat.multiply(outR, outR, r);
    s *= uniformScale(graph, k, fileName);
  }
  return s;
}

export interface SkeletonParts {
  nodeOfBone: Int32Array;
  boneOfNode: Int32Array;
  skeleton: Skeleton;
  parentScale: Float64Array;
  parentRotation: Float64Array;
  parentTranslation: Float64Array;
}

/**
 * The skeleton of the bones `inSet`. A bone with bone children and a non-uniform scale throws, unless
 * `nonUniform` is given: then it is added to that set and its children's translations are scaled by its
 * mean scale (the caller rebuilds without them, see readAvatarChecked).
 */
export function buildSkeleton(
  graph: NodeGraph,
  inSet: boolean[],
  fileName: string,
  nonUniform?: Set<number>,
): SkeletonParts {
  const order: number[] = [];
  const stack = [...graph.roots].reverse();
  while (stack.length > 0) {
    const i = stack.pop()!;
    if (inSet[i]) order.push(i);
    const ch = graph.children[i];
    for (let k = ch.length - 1; k >= 0; k--) stack.push(ch[k]);
  }
  const n = order.length;
  const boneOfNode = new Int32Array(graph.nodes.length).fill(-1);
  order.forEach((node, b) => {
    boneOfNode[node] = b;
  });
  const parents = new Int32Array(n);
  const names: string[] = [];
  const taken = new Set<string>();
  const parentScale = new Float64Array(n);
  const parentRotation = new Float64Array(4 * n);
  const parentTranslation = new Float64Array(3 * n);
  const restT = new Float64Array(3 * n);
  const restR = new Float64Array(4 * n);
  const wr = quat64();
  const wt = vec64();
  const t = vec64();
  const r = quat64();
  const scaleOf = new Map<number, number>();
  for (let b = 0; b < n; b++) {
    const node = order[b];
    const p = graph.parent[node];
    parents[b] = p >= 0 ? boneOfNode[p] : -1;
    let name = graph.nodes[node].getName() || `node${node}`;
    while (taken.has(name)) name = `${name}#${node}`;
    taken.add(name);
    names.push(name);
    if (parents[b] < 0) {
      // Root bone: the parent's world transform is folded in.
      parentScale[b] = nodeWorld(graph, p, fileName, wr, wt); // identity for a scene root (p = -1)
      writeQuat(parentRotation, b, wr);
      writeVec3(parentTranslation, b, wt);
    } else {
      const pb = parents[b];
      let ps = scaleOf.get(pb);
      if (ps === undefined) {
        ps = parentScale[pb] * uniformScale(graph, order[pb], fileName, nonUniform);
        scaleOf.set(pb, ps);
      }
      parentScale[b] = ps;
      writeQuat(parentRotation, b, quat.identity(wr));
      writeVec3(parentTranslation, b, vec3.set(wt, 0, 0, 0));
    }
    const nt = graph.nodes[node].getTranslation();
    const nr = graph.nodes[node].getRotation();
    vec3.set(t, nt[0], nt[1], nt[2]);
    quat.set(r, nr[0], nr[1], nr[2], nr[3]);
    const len = quat.length(r);
    if (!(len > 1e-12) || !Number.isFinite(len) || !Number.isFinite(t[0] + t[1] + t[2])) {
      throw new GltfError(
        fileName,
        `${nodeLabel(graph, node)}: rest translation/rotation is not a finite TRS`,
      );
    }
    quat.scale(r, r, 1 / len);
    boneLocalFromNodeParts(parentScale, parentRotation, parentTranslation, b, t, r, t, r);
    writeVec3(restT, b, t);
    writeQuat(restR, b, r);
  }
  let skeleton: Skeleton;
  try {
    skeleton = createSkeleton({ names, parents, restTranslations: restT, restRotations: restR });
  } catch (e) {
    if (e instanceof SkeletonError) throw new GltfError(fileName, e.message, { cause: e });
    throw e;
  }
  return {
    nodeOfBone: Int32Array.from(order),
    boneOfNode,
    skeleton,
    parentScale,
    parentRotation,
    parentTranslation,
  };
}

const cq = quat64();
const cv = vec64();

function boneLocalFromNodeParts(
  parentScale: Float64Array,
  parentRotation: Float64Array,
  parentTranslation: Float64Array,
  bone: number,
  nodeT: ArrayLike<number>,
  nodeR: ArrayLike<number>,
  outT: NumArray,
  outR: NumArray,
): void {
  const s = parentScale[bone];
  readQuat(cq, parentRotation, bone);
  vec3.set(cv, nodeT[0] * s, nodeT[1] * s, nodeT[2] * s);
  vec3.transformQuat(cv, cv, cq);
  const o = 3 * bone;
  outT[0] = cv[0] + parentTranslation[o];
  outT[1] = cv[1] + parentTranslation[o + 1];
  outT[2] = cv[2] + parentTranslation[o + 2];
  // outR = parentRotation * nodeR (outR may alias nodeR: compute into scratch first)
  const ax = cq[0];
  const ay = cq[1];
  const az = cq[2];
  const aw = cq[3];
  const bx = nodeR[0];
  const by = nodeR[1];
  const bz = nodeR[2];
  const bw = nodeR[3];
  outR[0] = ax * bw + aw * bx + ay * bz - az * by;
  outR[1] = ay * bw + aw * by + az * bx - ax * bz;
  outR[2] = az * bw + aw * bz + ax * by - ay * bx;
  outR[3] = aw * bw - ax * bx - ay * by - az * bz;
}

/** The per-bone frames of an {@link Avatar} used by the node <-> skeleton conversions. */
export type BoneFrames = Pick<Avatar, 'parentScale' | 'parentRotation' | 'parentTranslation'>;

/**
 * Skeleton-local transform of `bone` from its glTF node-local translation/rotation:
 * `t = parentRotation * (parentScale * nodeT) + parentTranslation`, `r = parentRotation * nodeR`
 * (the parent frame is identity for non-root bones). Outputs may alias the inputs. Allocates nothing.
 */
export function boneLocalFromNode(
  frames: BoneFrames,
  bone: number,
  nodeT: ArrayLike<number>,
  nodeR: ArrayLike<number>,
  outT: NumArray,
  outR: NumArray,
): void {
  boneLocalFromNodeParts(
    frames.parentScale,
    frames.parentRotation,
    frames.parentTranslation,
    bone,
    nodeT,
    nodeR,
    outT,
    outR,
  );
}

/**
 * Inverse of {@link boneLocalFromNode}: glTF node-local translation/rotation of `bone` from its
 * skeleton-local transform. Outputs may alias the inputs. Allocates nothing.
 */
export function nodeLocalFromBone(
  frames: BoneFrames,
  bone: number,
  boneT: ArrayLike<number>,
  boneR: ArrayLike<number>,
  outT: NumArray,
  outR: NumArray,
): void {
  readQuat(cq, frames.parentRotation, bone);
  quat.conjugate(cq, cq);
  const o = 3 * bone;
  const pt = frames.parentTranslation;
  vec3.set(cv, boneT[0] - pt[o], boneT[1] - pt[o + 1], boneT[2] - pt[o + 2]);
  vec3.transformQuat(cv, cv, cq);
  const s = frames.parentScale[bone];
  outT[0] = cv[0] / s;
  outT[1] = cv[1] / s;
  outT[2] = cv[2] / s;
  const ax = cq[0];
  const ay = cq[1];
  const az = cq[2];
  const aw = cq[3];
  const bx = boneR[0];
  const by = boneR[1];
  const bz = boneR[2];
  const bw = boneR[3];
  outR[0] = ax * bw + aw * bx + ay * bz - az * by;
  outR[1] = ay * bw + aw * by + az * bx - ax * bz;
  outR[2] = az * bw + aw * bz + ax * by - ay * bx;
  outR[3] = aw * bw - ax * bx - ay * by - az * bz;
}
