/**
 * Skeleton structure for the humanoid auto-mapper: rest geometry, main paths, and the body found from
 * the hierarchy alone (hips where two similar leg chains and a trunk meet, chest where two similar
 * arm chains and a neck meet). Used when names are missing (CesiumMan.glb: every joint unnamed) and to
 * complete name-based results. Set-up time code: allocates freely, never per frame.
 *
 * Geometry is the rest pose in the skeleton's own frame ({@link restWorld}); the up axis is taken from
 * the skeleton itself (hips -> head), so Z-up files (FAIR BVH) work. Lengths are path lengths along
 * bones, which do not depend on how a BVH rest pose is oriented.
 */
import { restWorld, type Skeleton } from '../core/skeleton';
import { type BoneNameInfo, classifyBoneName } from './humanoidMapNames';

export type V3 = [number, number, number];

export interface MapContext {
  skeleton: Skeleton;
  n: number;
  info: BoneNameInfo[];
  children: number[][];
  /** Rest world positions, `3n`. */
  pos: Float64Array;
  depth: Int32Array;
  /** An ignored (helper/end/IK) bone whose whole subtree is ignored: invisible to structure search. */
  pruned: boolean[];
  /** Longest path length (sum of bone lengths) from the bone down to a leaf, over non-pruned bones. */
  reach: Float64Array;
  /** Number of non-pruned bones in the subtree (the bone included). */
  count: Int32Array;
  /** Longest leaf-to-leaf path length of the non-pruned tree (the body's "size"). */
  diameter: number;
}

export function buildContext(skeleton: Skeleton): MapContext {
  const n = skeleton.boneCount;
  const info = skeleton.names.map(classifyBoneName);
  const children: number[][] = Array.from({ length: n }, () => []);
  const depth = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const p = skeleton.parents[i];
    if (p >= 0) {
      children[p].push(i);
      depth[i] = depth[p] + 1;
    }
  }
  const pos = restWorld(skeleton).positions;
  const pruned = new Array<boolean>(n).fill(false);
  const reach = new Float64Array(n);
  const count = new Int32Array(n);
  let diameter = 0;
  for (let i = n - 1; i >= 0; i--) {
    let allPruned = true;
    let best = 0;
    let second = 0;
    let c = 1;
    for (const k of children[i]) {
      if (pruned[k]) continue;
      allPruned = false;
      c += count[k];
      const len = distance(pos, i, k) + reach[k];
      if (len > best) {
        second = best;
        best = len;
      } else if (len > second) second = len;
    }
    pruned[i] = info[i].kind === 'ignore' && allPruned;
    reach[i] = best;
    count[i] = c;
    if (!pruned[i]) diameter = Math.max(diameter, best + second);
  }
  return { skeleton, n, info, children, pos, depth, pruned, reach, count, diameter };
}

export function vecOf(pos: Float64Array, i: number): V3 {
  return [pos[3 * i], pos[3 * i + 1], pos[3 * i + 2]];
}

export function sub(a: V3, b: V3): V3 {
  return [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
}

export function add(a: V3, b: V3): V3 {
  return [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
}

export function scale(a: V3, s: number): V3 {
  return [a[0] * s, a[1] * s, a[2] * s];
}

export function dot(a: V3, b: V3): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

export function cross(a: V3, b: V3): V3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

export function norm(a: V3): number {
  return Math.hypot(a[0], a[1], a[2]);
}

export function normalize(a: V3): V3 {
  const l = norm(a);
  return l > 0 ? [a[0] / l, a[1] / l, a[2] / l] : [0, 0, 0];
}

/** `a` without its component along the unit vector `u`. */
export function reject(a: V3, u: V3): V3 {
  return sub(a, scale(u, dot(a, u)));
}

export function distance(pos: Float64Array, a: number, b: number): number {
  return Math.hypot(
    pos[3 * a] - pos[3 * b],
    pos[3 * a + 1] - pos[3 * b + 1],
    pos[3 * a + 2] - pos[3 * b + 2],
  );
}

/** True when `anc` is `b` or one of its ancestors. */
export function isAncestorOf(ctx: MapContext, anc: number, b: number): boolean {
  for (let x = b; x >= 0; x = ctx.skeleton.parents[x]) if (x === anc) return true;
  return false;
}

/** Bones from `anc` (exclusive) down to `desc` (inclusive); `desc` must be a descendant of `anc`. */
export function pathDown(ctx: MapContext, anc: number, desc: number): number[] {
  const out: number[] = [];
  for (let x = desc; x >= 0 && x !== anc; x = ctx.skeleton.parents[x]) out.push(x);
  return out.reverse();
}

/** Length of a child branch seen from its parent: bone length plus the child's reach. */
export function branchLength(ctx: MapContext, parent: number, child: number): number {
  return distance(ctx.pos, parent, child) + ctx.reach[child];
}

/** Similarity in [0, 1] of two branches (path length and bone count), for pairing left/right limbs. */
export function branchSimilarity(ctx: MapContext, pa: number, a: number, pb: number, b: number): number {
  const la = branchLength(ctx, pa, a);
  const lb = branchLength(ctx, pb, b);
  const ls = Math.max(la, lb) > 0 ? Math.min(la, lb) / Math.max(la, lb) : 1;
  const cs = Math.min(ctx.count[a], ctx.count[b]) / Math.max(ctx.count[a], ctx.count[b]);
  return ls * Math.sqrt(cs);
}

const CONTINUE_KINDS = new Set([
  'hand',
  'foot',
  'toes',
  'lowerarm',
  'lowerleg',
  'leg',
  'upperleg',
  'upperarm',
]);

function subtreeHasFinger(ctx: MapContext, b: number, finger: number): boolean {
  const stack = [b];
  while (stack.length > 0) {
    const x = stack.pop()!;
    const inf = ctx.info[x];
    if (inf.kind === 'finger' && inf.finger === finger) return true;
    stack.push(...ctx.children[x]);
  }
  return false;
}

/**
 * Continue a chain from `b` down its main path: at each step the non-pruned child whose name continues
 * a limb (hand, foot, toes...), else a palm leading to the middle finger, else the longest branch.
 */
export function extendMainPath(ctx: MapContext, b: number, excluded: ReadonlySet<number>): number[] {
  const out: number[] = [];
  for (;;) {
    let best = -1;
    let bestKey = [-Infinity, -Infinity];
    for (const c of ctx.children[b]) {
      if (ctx.pruned[c] || excluded.has(c)) continue;
      const inf = ctx.info[c];
      let pri = 0;
      if (inf.kind === 'ignore') pri = -1;
      else if (CONTINUE_KINDS.has(inf.kind)) pri = 3;
      else if (inf.kind === 'palm') pri = subtreeHasFinger(ctx, c, 2) ? 2 : 1;
      const key = [pri, branchLength(ctx, b, c)];
      if (key[0] > bestKey[0] || (key[0] === bestKey[0] && key[1] > bestKey[1])) {
        best = c;
        bestKey = key;
      }
    }
    if (best < 0) return out;
    out.push(best);
    b = best;
  }
}

export interface TopoBody {
  hips: number;
  head: number;
  /** Leg chains (first bone = child of the branch point), at most 2, sides unknown. */
  legs: number[][];
  /** Arm chains, at most 2, sides unknown. */
  arms: number[][];
}

interface ChestFound {
  chest: number;
  arms: [number, number];
  neck: number;
}

/** Walk a trunk from `start` up to the first bone where two similar long branches (arms) leave. */
function findChest(ctx: MapContext, start: number, mustContain: number): ChestFound | null {
  const armMin = 0.15 * ctx.diameter;
  let cur = start;
  for (let guard = 0; guard < ctx.n; guard++) {
    const kids = ctx.children[cur].filter((c) => !ctx.pruned[c]);
    const long = kids.filter((c) => branchLength(ctx, cur, c) >= armMin);
    if (long.length >= 2 && kids.length >= 3) {
      let bestPair: [number, number] | null = null;
      let bestSim = 0.5;
      for (let i = 0; i < long.length; i++) {
        for (let j = i + 1; j < long.length; j++) {
          if (
            mustContain >= 0 &&
            (isAncestorOf(ctx, long[i], mustContain) || isAncestorOf(ctx, long[j], mustContain))
          )
            continue;
          const s = branchSimilarity(ctx, cur, long[i], cur, long[j]);
          if (s > bestSim) {
            bestSim = s;
            bestPair = [long[i], long[j]];
          }
        }
      }
      if (bestPair) {
        const pair = bestPair;
        const rest = kids.filter((c) => c !== pair[0] && c !== pair[1]);
        let neck = -1;
        for (const c of rest) {
          if (mustContain >= 0 && isAncestorOf(ctx, c, mustContain)) {
            neck = c;
            break;
          }
          if (neck < 0 || branchLength(ctx, cur, c) > branchLength(ctx, cur, neck)) neck = c;
        }
        if (mustContain < 0 || neck >= 0) return { chest: cur, arms: pair, neck };
      }
    }
    if (long.length === 0) return null;
    let next = long[0];
    for (const c of long) {
      if (mustContain >= 0 && isAncestorOf(ctx, c, mustContain)) {
        next = c;
        break;
      }
      if (ctx.count[c] > ctx.count[next]) next = c;
    }
    cur = next;
  }
  return null;
}

/** Head along a neck chain (first bone = child of the chest): see {@link findBodyByTopology}. */
function headOfNeckChain(ctx: MapContext, chest: number, chain: number[]): number {
  if (chain.length === 0) return -1;
  for (let i = 0; i < chain.length - 1; i++) {
    if (ctx.children[chain[i]].filter((c) => !ctx.pruned[c]).length >= 3) return chain[i]; // eyes/jaw branch off the head
  }
  if (chain.length >= 2) {
    const last = chain[chain.length - 1];
    const prev = chain[chain.length - 2];
    const before = chain.length >= 3 ? chain[chain.length - 3] : chest;
    // A last segment much longer than the one before is a head-top end joint: the head is its parent.
    if (distance(ctx.pos, prev, last) > 1.5 * distance(ctx.pos, before, prev)) return prev;
  }
  return chain[chain.length - 1];
}

/**
 * The body from the hierarchy alone. Hips: a bone with three long branches (>= 20 % of the tree
 * diameter), two of them similar (legs: path length and bone count) and the third holding a chest (a
 * bone where two similar branches >= 15 % of the diameter leave, plus at least one more: the neck).
 * Head: along the neck's main path, the bone that branches (eyes, jaw), else the last bone unless the
 * last segment looks like a head-top end joint (1.5 times longer than the previous one).
 * `fixedHips`/`fixedHead` (or -1) constrain the search to what names already found.
 * Returns null when no such structure exists.
 */
export function findBodyByTopology(ctx: MapContext, fixedHips: number, fixedHead: number): TopoBody | null {
  const legMin = 0.2 * ctx.diameter;
  let best: { score: number; body: TopoBody } | null = null;
  const candidates =
    fixedHips >= 0 ? [fixedHips] : Array.from({ length: ctx.n }, (_, i) => i).filter((i) => !ctx.pruned[i]);
  for (const h of candidates) {
    if (fixedHead >= 0 && !isAncestorOf(ctx, h, fixedHead)) continue;
    const branches = ctx.children[h].filter((c) => !ctx.pruned[c] && branchLength(ctx, h, c) >= legMin);
    if (branches.length < 3 && fixedHips < 0) continue;
    for (const t of ctx.children[h]) {
      if (ctx.pruned[t]) continue;
      if (fixedHead >= 0 && !isAncestorOf(ctx, t, fixedHead)) continue;
      const chest = findChest(ctx, t, fixedHead);
      if (!chest) continue;
      const others = branches.filter((c) => c !== t);
      let legPair: [number, number] | null = null;
      let legSim = 0;
      for (let i = 0; i < others.length; i++) {
        for (let j = i + 1; j < others.length; j++) {
          const s = branchSimilarity(ctx, h, others[i], h, others[j]);
          if (s > legSim) {
            legSim = s;
            legPair = [others[i], others[j]];
          }
        }
      }
      if (!legPair && fixedHips < 0) continue;
      const armSim = branchSimilarity(ctx, chest.chest, chest.arms[0], chest.chest, chest.arms[1]);
      const score = legSim + armSim;
      if (best && score <= best.score) continue;
      let head = fixedHead;
      if (head < 0) {
        const neckChain = chest.neck >= 0 ? [chest.neck, ...extendMainPath(ctx, chest.neck, new Set())] : [];
        head = headOfNeckChain(ctx, chest.chest, neckChain);
      }
      if (head < 0) continue;
      const chainOf = (first: number) => [first, ...extendMainPath(ctx, first, new Set())];
      best = {
        score,
        body: {
          hips: h,
          head,
          legs: legPair ? legPair.map(chainOf) : [],
          arms: chest.arms.map(chainOf),
        },
      };
    }
  }
  return best ? best.body : null;
}
