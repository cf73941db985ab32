/**
 * What a calibration works out before any frame (src/retarget/retargeter.ts): the source's up axis and
 * the rotation that turns it to +Y, the feet's contact heights, root alignment, and which source bone
 * drives each target bone (the spine and neck chains distributed when their lengths differ).
 */
import { quat } from 'gl-matrix';
import {
  type Clip,
  forwardKinematics,
  fromTo,
  HumanBodyBones as H,
  HUMAN_BONE_COUNT,
  type NumArray,
  qmul,
  quat64,
  readFrame,
  type Skeleton,
  vrotate,
} from '../core';
import { chainBetween } from './referencePose';
import type { UpAxis } from './retargetOptions';

const AXES: Record<Exclude<UpAxis, 'auto'>, [number, number, number]> = {
  '+x': [1, 0, 0],
  '-x': [-1, 0, 0],
  '+y': [0, 1, 0],
  '-y': [0, -1, 0],
  '+z': [0, 0, 1],
  '-z': [0, 0, -1],
};

/** The world axis nearest to `v`. */
export function nearestAxis(v: ArrayLike<number>): Exclude<UpAxis, 'auto'> {
  let best: Exclude<UpAxis, 'auto'> = '+y';
  let bestDot = Number.NEGATIVE_INFINITY;
  for (const [name, a] of Object.entries(AXES) as [Exclude<UpAxis, 'auto'>, number[]][]) {
    const d = a[0] * v[0] + a[1] * v[1] + a[2] * v[2];
    if (d > bestDot) {
      bestDot = d;
      best = name;
    }
  }
  return best;
}

/** Rotation taking the given up axis to +Y: the shortest arc (for -Y, half a turn about X). */
export function upAxisRotation(axis: Exclude<UpAxis, 'auto'>): Float64Array {
  const q = quat64();
  if (axis === '-y') return quat.setAxisAngle(q, [1, 0, 0], Math.PI) as Float64Array;
  return fromTo(q, AXES[axis], [0, 1, 0]) as Float64Array;
}

/**
 * Height (y) of the lower ankle (humanoid Foot joint) in a posed geometry, metres. Ankles, not toes:
 * every humanoid has them, and their height above the sole is comparable across rigs.
 */
export function lowestFootJointHeight(s: Skeleton, g: { positions: Float64Array }): number {
  let lowest = Number.POSITIVE_INFINITY;
  for (const h of [H.LeftFoot, H.RightFoot]) {
    const b = s.humanoid[h];
    if (b >= 0) lowest = Math.min(lowest, g.positions[3 * b + 1]);
  }
  return Number.isFinite(lowest) ? lowest : 0;
}

/**
 * Turn a pose's roots by `alignment` (a rotation, e.g. the source up-axis rotation): root local
 * rotations `rot` (4n) are premultiplied and root translations `pos` (3n) rotated, in place.
 * Allocates nothing.
 */
export function alignRoots(skeleton: Skeleton, rot: NumArray, pos: NumArray, alignment: NumArray): void {
  const p = skeleton.parents;
  for (let i = 0; i < skeleton.boneCount; i++) {
    if (p[i] >= 0) continue;
    qmul(rot, 4 * i, alignment, 0, rot, 4 * i);
    vrotate(pos, 3 * i, alignment, 0, pos, 3 * i);
  }
}

/**
 * Floor contact level of a clip: the 5th percentile over frames of the height of the lower ankle
 * (humanoid Foot joint), after rotating the roots by `alignment` (the up-axis rotation). Metres. The
 * percentile (not the minimum) ignores a few frames of a toe through the floor; a clip needs at least
 * 5% of its frames with a foot down for the figure to mean the floor.
 */
export function estimateContactHeight(clip: Clip, alignment: ArrayLike<number> = [0, 0, 0, 1]): number {
  const s = clip.skeleton;
  const n = s.boneCount;
  const lr = new Float64Array(4 * n);
  const lp = new Float64Array(3 * n);
  const wr = new Float64Array(4 * n);
  const wp = new Float64Array(3 * n);
  const A = Float64Array.from(alignment);
  const lows = new Float64Array(clip.frameCount);
  for (let f = 0; f < clip.frameCount; f++) {
    readFrame(clip, f, lr, lp);
    alignRoots(s, lr, lp, A);
    forwardKinematics(s, lr, lp, wr, wp);
    lows[f] = lowestFootJointHeight(s, { positions: wp });
  }
  lows.sort();
  return lows[Math.floor(0.05 * (lows.length - 1))];
}

/** Source bone chain strictly between hips and `end` (exclusive). */
function innerChain(s: Skeleton, end: number): number[] {
  const c = chainBetween(s, s.humanoid[H.Hips], end);
  return c.slice(1, -1);
}

/** Target/source bone pairs of a chain distributed as in the module docs. */
function distribute(target: number[], source: number[], out: Int32Array): void {
  const k = target.length;
  const m = source.length;
  if (m === 0) return;
  for (let j = 0; j < k; j++) out[target[j]] = source[Math.ceil(((j + 1) * m) / k) - 1];
}

const CHAIN_BONES = new Set([H.Spine, H.Chest, H.UpperChest, H.Neck]);

/**
 * Driver source bone for every target bone (-1 = none): humanoid pairs, distributed spine and neck
 * chains, and same-name helper bones (see module docs). Set-up time.
 */
export function computeDrivers(source: Skeleton, target: Skeleton): Int32Array {
  const drivers = new Int32Array(target.boneCount).fill(-1);
  const sm = source.humanoid;
  const tm = target.humanoid;
  for (let h = 0; h < HUMAN_BONE_COUNT; h++) {
    if (CHAIN_BONES.has(h)) continue;
    if (tm[h] >= 0 && sm[h] >= 0) drivers[tm[h]] = sm[h];
  }
  const tNeck = tm[H.Neck];
  const sNeck = sm[H.Neck];
  const tHead = tm[H.Head];
  const sHead = sm[H.Head];
  distribute(
    innerChain(target, tNeck >= 0 ? tNeck : tHead),
    innerChain(source, sNeck >= 0 ? sNeck : sHead),
    drivers,
  );
  if (tNeck >= 0 && sNeck >= 0) {
    distribute(
      chainBetween(target, tNeck, tHead).slice(0, -1),
      chainBetween(source, sNeck, sHead).slice(0, -1),
      drivers,
    );
  }
  // Same-name unmapped bones with same-name parents.
  const mappedT = new Set(Array.from(tm).filter((b) => b >= 0));
  const mappedS = new Set(Array.from(sm).filter((b) => b >= 0));
  const byName = new Map<string, number>();
  source.names.forEach((nm, i) => {
    if (!mappedS.has(i)) byName.set(nm, i);
  });
  for (let t = 0; t < target.boneCount; t++) {
    if (drivers[t] >= 0 || mappedT.has(t)) continue;
    const s = byName.get(target.names[t]);
    if (s === undefined) continue;
    const tp = target.parents[t];
    const sp = source.parents[s];
    const sameParent = (tp < 0 && sp < 0) || (tp >= 0 && sp >= 0 && target.names[tp] === source.names[sp]);
    if (sameParent) drivers[t] = s;
  }
  return drivers;
}
