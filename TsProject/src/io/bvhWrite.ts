/**
 * The BVH writer ({@link writeBvh}) and the layout it writes by default ({@link defaultBvhLayout}:
 * channels and End Sites for a skeleton; {@link animatedTranslations}: which bones get position
 * channels). Conventions (rest rotations baked out, units) in src/io/bvh.ts.
 */
import type { Clip } from '../core/clip';
import { qmul, qmulByConj, vrotate } from '../core/flat';
import { DEG2RAD, eulerFromQuat, quat64, RAD2DEG } from '../core/quat';
import { restWorld, type Skeleton } from '../core/skeleton';
import { buildPlan, channelLabel } from './bvhChannelPlan';
import {
  BVH_CHANNELS,
  type BvhChannel,
  type BvhJointLayout,
  type BvhLayout,
  BvhWriteError,
} from './bvhFormat';
import { AsciiFrameWriter } from './bvhScan';

// ---------------------------------------------------------------------------------------------
// Layout for writing

/** Fraction of the leaf bone's length used for a default End Site (see {@link defaultBvhLayout}). */
export const END_SITE_FRACTION = 0.5;

const ROOT_CHANNELS: readonly BvhChannel[] = [
  'Xposition',
  'Yposition',
  'Zposition',
  'Zrotation',
  'Xrotation',
  'Yrotation',
];
const JOINT_CHANNELS: readonly BvhChannel[] = ['Zrotation', 'Xrotation', 'Yrotation'];

/**
 * A BVH layout for writing `skeleton`: joints index-aligned with its bones; OFFSET = the rest translation
 * in the parent's rest-aligned frame (see {@link writeBvh}), `R_p * t / unitScale` with `R_p` the parent's
 * rest world rotation (just `t / unitScale` for a skeleton without rest rotations, e.g. one read from
 * BVH), in file units (metres per file unit `unitScale`, default 0.01 = centimetres); roots get 6 channels
 * `Xposition Yposition Zposition Zrotation Xrotation Yrotation`, other joints 3 channels
 * `Zrotation Xrotation Yrotation` (with `positions: 'all'`, every joint gets the 6 root channels, for
 * clips whose non-root translations are animated; with `positions` a per-bone mask, the roots and the
 * bones where it is nonzero, e.g. {@link animatedTranslations} of the clip to write).
 *
 * Names: the bone names, made writable: line breaks become spaces, edge whitespace is trimmed, an
 * empty name becomes `joint<i>`, and a repeated name gets `_2`, `_3`... (glTF rigs may repeat names).
 *
 * End Sites: every leaf bone (no children) gets one that continues the leaf bone's direction by
 * {@link END_SITE_FRACTION} (half) of its length, so viewers draw a visible last bone. The direction is
 * from the nearest ancestor at a different rest position to the leaf (world rest pose; the leaf's
 * written frame is parallel to the world at rest); when all ancestors coincide with the leaf the End
 * Site is `0 0 0`.
 * @throws BvhWriteError when unitScale is not a positive finite number.
 */
export function defaultBvhLayout(
  skeleton: Skeleton,
  unitScale = 0.01,
  options: { positions?: 'roots' | 'all' | ArrayLike<number> } = {},
): BvhLayout {
  if (!(unitScale > 0) || !Number.isFinite(unitScale)) {
    throw new BvhWriteError(`unitScale ${unitScale}: need a positive number of metres per file unit`);
  }
  const n = skeleton.boneCount;
  const hasChild = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (skeleton.parents[i] >= 0) hasChild[skeleton.parents[i]] = 1;
  const world = restWorld(skeleton);
  const joints: BvhJointLayout[] = [];
  const used = new Set<string>();
  for (let i = 0; i < n; i++) {
    const p = skeleton.parents[i];
    const t = skeleton.restTranslations;
    let endSite: [number, number, number] | null = null;
    if (!hasChild[i]) {
      endSite = [0, 0, 0];
      const wp = world.positions;
      for (let a = p; a >= 0; a = skeleton.parents[a]) {
        const dx = wp[3 * i] - wp[3 * a];
        const dy = wp[3 * i + 1] - wp[3 * a + 1];
        const dz = wp[3 * i + 2] - wp[3 * a + 2];
        if (Math.hypot(dx, dy, dz) > 1e-9) {
          const s = END_SITE_FRACTION / unitScale;
          endSite = [dx * s, dy * s, dz * s];
          break;
        }
      }
    }
    const pos = options.positions;
    const six = p < 0 || pos === 'all' || (typeof pos === 'object' && pos[i] !== 0);
    let name = skeleton.names[i].replace(/[\r\n]+/g, ' ').trim() || `joint${i}`;
    if (used.has(name)) {
      let k = 2;
      while (used.has(`${name}_${k}`)) k++;
      name = `${name}_${k}`;
    }
    used.add(name);
    const off = [t[3 * i], t[3 * i + 1], t[3 * i + 2]];
    if (p >= 0) vrotate(off, 0, world.rotations, 4 * p, off, 0);
    joints.push({
      name,
      parent: p,
      offset: [off[0] / unitScale, off[1] / unitScale, off[2] / unitScale],
      channels: [...(six ? ROOT_CHANNELS : JOINT_CHANNELS)],
      endSite,
      line: 0,
    });
  }
  return { joints };
}

/**
 * Per bone 1 where the clip's local translation departs from the skeleton's rest translation on some
 * frame by more than `tolerance` metres in some component (default 1e-7 m), else 0. A BVH joint without
 * position channels keeps its OFFSET on every frame, so these bones need them: e.g. RobotExpressive's
 * IK-style feet (`Foot.L` hangs from the root bone and moves by translation).
 */
export function animatedTranslations(clip: Clip, tolerance = 1e-7): Uint8Array {
  const sk = clip.skeleton;
  const n = sk.boneCount;
  const out = new Uint8Array(n);
  const t = clip.translations;
  const rest = sk.restTranslations;
  for (let f = 0; f < clip.frameCount; f++) {
    for (let i = 0; i < n; i++) {
      if (out[i]) continue;
      const o = 3 * (f * n + i);
      if (
        !(Math.abs(t[o] - rest[3 * i]) <= tolerance) ||
        !(Math.abs(t[o + 1] - rest[3 * i + 1]) <= tolerance) ||
        !(Math.abs(t[o + 2] - rest[3 * i + 2]) <= tolerance)
      )
        out[i] = 1;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Writer

/** Header numbers (offsets): shortest round-trip decimal, or rounded to 1e-8 when that is long. */
function fmtOffset(v: number): string {
  const s = String(v);
  if (s.length <= 14) return s;
  const r = Math.round(v * 1e8) / 1e8;
  return r === 0 ? '0' : String(r);
}

function validateLayout(layout: BvhLayout, skeleton: Skeleton): void {
  const n = skeleton.boneCount;
  if (layout.joints.length !== n) {
    throw new BvhWriteError(`layout has ${layout.joints.length} joints, the clip skeleton ${n} bones`);
  }
  const seen = new Set<string>();
  for (let i = 0; i < n; i++) {
    const j = layout.joints[i];
    const where = `layout joint ${i} '${j.name}'`;
    if (j.parent !== skeleton.parents[i]) {
      throw new BvhWriteError(
        `${where}: parent ${j.parent} differs from the skeleton's ${skeleton.parents[i]}`,
      );
    }
    if (j.name === '' || j.name !== j.name.trim() || /[\r\n]/.test(j.name)) {
      throw new BvhWriteError(
        `${where}: a BVH joint name must be non-empty, one line, without edge whitespace`,
      );
    }
    if (seen.has(j.name)) throw new BvhWriteError(`${where}: duplicate joint name`);
    seen.add(j.name);
    const chans = new Set<string>();
    for (const c of j.channels) {
      if (!BVH_CHANNELS.includes(c)) throw new BvhWriteError(`${where}: unknown channel '${c}'`);
      if (chans.has(c)) throw new BvhWriteError(`${where}: channel '${c}' listed twice`);
      chans.add(c);
    }
    for (const [field, v] of [
      ['offset', j.offset],
      ['endSite', j.endSite],
    ] as const) {
      if (v && (v.length !== 3 || !v.every(Number.isFinite))) {
        throw new BvhWriteError(`${where}: ${field} must be 3 finite numbers`);
      }
    }
  }
}

/** Angle congruent to `a` (mod 2 pi) nearest to `ref`. */
function nearestCongruent(a: number, ref: number): number {
  return a + 2 * Math.PI * Math.round((ref - a) / (2 * Math.PI));
}

/** `a` wrapped to (-pi, pi]. */
function wrapPi(a: number): number {
  return a - 2 * Math.PI * Math.ceil((a - Math.PI) / (2 * Math.PI));
}

/**
 * Angles for a joint with fewer than 3 rotation channels, written to `e[0..nRot-1]` (radians, file
 * order; the rest set to 0): the rotation is taken as `Ri(a)` (one channel, axis `i`) or `Ri(a) * Rj(b)`
 * (two channels), which is exact for rotations of that form and a projection otherwise.
 *
 * One axis: `a = 2 atan2(q_i, w)`. Two axes, with `e_i x e_j = p e_k`: `q = Ri(a) Rj(b)` has
 * `(q_i, w) = cos(b/2) (sin(a/2), cos(a/2))` and `(p q_k, q_j) = sin(b/2) (sin(a/2), cos(a/2))`, so `a/2`
 * is the direction of the longer of the two; then `Ri(-a) q = Rj(b)` gives
 * `b = 2 atan2(c q_j + p s q_k, c w + s q_i)` with `s, c = sin, cos(a/2)`. Unlike a padded 3-angle
 * decomposition this is well conditioned for every `b`. Angles are moved by multiples of 2 pi next to `prev`.
 */
function decomposeFew(
  e: Float64Array,
  q: ArrayLike<number>,
  nRot: number,
  i: number,
  j: number,
  p: number,
  prev: ArrayLike<number> | undefined,
): void {
  const w = q[3];
  const qi = q[i];
  let a: number;
  let b = 0;
  if (nRot === 1) a = 2 * Math.atan2(qi, w);
  else {
    const qj = q[j];
    const qk = q[3 - i - j];
    const half = Math.hypot(qi, w) >= Math.hypot(qk, qj) ? Math.atan2(qi, w) : Math.atan2(p * qk, qj);
    a = 2 * half;
    const s = Math.sin(half);
    const c = Math.cos(half);
    b = 2 * Math.atan2(c * qj + p * s * qk, c * w + s * qi);
  }
  e[0] = prev ? nearestCongruent(a, prev[0]) : wrapPi(a);
  e[1] = nRot === 2 ? (prev ? nearestCongruent(b, prev[1]) : wrapPi(b)) : 0;
  e[2] = 0;
}

/** Options of the BVH writer: layout (joints, offsets, channels, End Sites), unit, reference channel values. */
export interface BvhWriteOptions {
  /**
   * Joints, offsets, channels and End Sites to write; default {@link defaultBvhLayout}(clip.skeleton,
   * unitScale, { positions: animatedTranslations(clip) }) (position channels on the roots and on every
   * bone whose translation is animated). Its joints must be index-aligned with the clip skeleton (same parents; the layout's
   * names are the ones written), as the layout returned by {@link parseBvh} is. Names must be unique,
   * non-empty, one line, without edge whitespace (what the reader would give back). Its OFFSETs are
   * written as given: for a skeleton with rest rotations they must be in the rest-aligned frames
   * ({@link defaultBvhLayout}'s are).
   */
  layout?: BvhLayout;
  /** Metres per file unit, default 0.01 (centimetres). */
  unitScale?: number;
  /**
   * Channel values (degrees, file order of the written file, `frameCount * channelCount`), e.g. the
   * `channelValues` of the parse that produced the clip. When given, each frame's Euler angles are the
   * equivalent solution nearest to the reference frame instead of to the previous written frame, so a
   * rewrite of an unchanged clip reproduces the original angles (same branch, same multiples of 360)
   * rather than merely the same rotations.
   */
  reference?: Float64Array;
}

const wq = quat64();
const we = new Float64Array(3);
const wp = new Float64Array(3);
const wt = new Float64Array(3);

/**
 * Write a clip as BVH text.
 *
 * Header: the layout's joints depth-first from each root (children in index order), OFFSETs and End
 * Sites written as given (file units), tab indentation, `\n` line ends. `Frame Time` is written as the
 * shortest decimal that reads back to the same double. Frames: per joint in its own channel order,
 * position channels = clip translation / `unitScale`, rotation channels = Euler angles in degrees from
 * {@link eulerFromQuat} in the joint's own order, given the previous frame's angles so tracks stay
 * continuous (no 360-degree jumps); values rounded to 1e-6.
 *
 * Rest rotations: BVH has none (its rest pose is every rotation channel at zero), so a skeleton's rest
 * rotations are baked out. With `R_i` bone i's rest world rotation (`R_-1` = identity), bone i is
 * written in its frame turned by `inverse(R_i)`, parallel to the world at rest: local rotation
 * `q'_i = R_p * q_i * inverse(R_i)`, translation `t'_i = R_p * t_i` (p = parent). Then the world pose
 * of every frame is unchanged (world rotation `W_i * inverse(R_i)`, the same joint positions) and the
 * rest pose (`q'_i` = identity) is the skeleton's. A skeleton without rest rotations (one read from
 * BVH) is written exactly as stored. A joint with fewer than 3 rotation channels
 * writes the angles of the rotation's projection on its axes (exact when the rotation is about those
 * axes only, see `decomposeFew`); a translation component with no channel is not written (the default layout gives position
 * channels to every bone whose translation is animated).
 *
 * Precision: rotations come from the clip's `Float32Array`, so near gimbal lock (middle angle near
 * +-90 degrees) the first and third angles carry an error of about 1e-7 rad / cos(middle angle); the
 * rotation itself is exact to float32.
 *
 * @throws BvhWriteError on a layout that does not match the skeleton, a bad channel, a bad unit scale,
 *   a reference of the wrong length, or a non-finite clip value (names the frame and bone).
 */
export function writeBvh(clip: Clip, options: BvhWriteOptions = {}): string {
  const sk = clip.skeleton;
  const unitScale = options.unitScale ?? 0.01;
  if (!(unitScale > 0) || !Number.isFinite(unitScale)) {
    throw new BvhWriteError(`unitScale ${unitScale}: need a positive number of metres per file unit`);
  }
  const n = sk.boneCount;
  const F = clip.frameCount;
  if (!Number.isInteger(F) || F < 1)
    throw new BvhWriteError(`clip '${clip.name}': frameCount ${F} is not a whole number >= 1`);
  if (!(clip.frameTime > 0) || !Number.isFinite(clip.frameTime)) {
    throw new BvhWriteError(
      `clip '${clip.name}': frameTime ${clip.frameTime} is not a positive number of seconds`,
    );
  }
  if (clip.rotations.length !== 4 * n * F || clip.translations.length !== 3 * n * F) {
    throw new BvhWriteError(
      `clip '${clip.name}': rotations/translations have ${clip.rotations.length}/${clip.translations.length} values, expected ${4 * n * F}/${3 * n * F} for ${F} frames x ${n} bones`,
    );
  }
  const layout = options.layout ?? defaultBvhLayout(sk, unitScale, { positions: animatedTranslations(clip) });
  validateLayout(layout, sk);
  // rest world rotations, and per bone whether its own or its parent's is not the identity
  const restRot = restWorld(sk).rotations;
  const turned = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    if (Math.abs(Math.abs(restRot[4 * i + 3]) - 1) > 1e-15) turned[i] = 1;
  }
  const bake = new Uint8Array(n);
  for (let i = 0; i < n; i++) bake[i] = turned[i] || (sk.parents[i] >= 0 && turned[sk.parents[i]]) ? 1 : 0;
  const children: number[][] = Array.from({ length: n }, () => []);
  for (let i = 0; i < n; i++) if (sk.parents[i] >= 0) children[sk.parents[i]].push(i);

  const out: string[] = ['HIERARCHY'];
  const order: number[] = [];
  const emit = (i: number, depth: number) => {
    const ind = '\t'.repeat(depth);
    const j = layout.joints[i];
    order.push(i);
    out.push(`${ind}${j.parent < 0 ? 'ROOT' : 'JOINT'} ${j.name}`, `${ind}{`);
    out.push(`${ind}\tOFFSET ${j.offset.map(fmtOffset).join(' ')}`);
    out.push(`${ind}\tCHANNELS ${j.channels.length}${j.channels.map((c) => ` ${c}`).join('')}`);
    for (const c of children[i]) emit(c, depth + 1);
    if (j.endSite) {
      out.push(
        `${ind}\tEnd Site`,
        `${ind}\t{`,
        `${ind}\t\tOFFSET ${j.endSite.map(fmtOffset).join(' ')}`,
        `${ind}\t}`,
      );
    }
    out.push(`${ind}}`);
  };
  for (let i = 0; i < n; i++) if (sk.parents[i] < 0) emit(i, 0);
  out.push('MOTION', `Frames: ${clip.frameCount}`, `Frame Time: ${String(clip.frameTime)}`);

  // per joint (in file order): channel kinds
  const sub = { layout: { joints: order.map((i) => layout.joints[i]) } };
  const plan = buildPlan(sub.layout);
  const inv = 1 / unitScale;
  const prev = new Float64Array(3 * n);
  const rot = clip.rotations;
  const tr = clip.translations;
  const C = plan.channelCount;
  const vals = new Float64Array(C);
  const ref = options.reference;
  if (ref && ref.length !== clip.frameCount * C) {
    throw new BvhWriteError(
      `reference has ${ref.length} values, expected ${clip.frameCount} frames x ${C} channels = ${clip.frameCount * C}`,
    );
  }
  const frameText = new AsciiFrameWriter();
  for (let f = 0; f < clip.frameCount; f++) {
    for (let o = 0; o < n; o++) {
      const i = order[o];
      const o3 = 3 * o;
      const t = 3 * (f * n + i);
      const p = sk.parents[i];
      wt[0] = tr[t];
      wt[1] = tr[t + 1];
      wt[2] = tr[t + 2];
      if (bake[i] && p >= 0) vrotate(wt, 0, restRot, 4 * p, wt, 0);
      for (let a = 0; a < 3; a++) {
        const s = plan.posSlot[o3 + a];
        if (s >= 0) vals[s] = wt[a] * inv;
      }
      if (plan.hasRot[o]) {
        const r = 4 * (f * n + i);
        wq[0] = rot[r];
        wq[1] = rot[r + 1];
        wq[2] = rot[r + 2];
        wq[3] = rot[r + 3];
        if (!(Math.hypot(wq[0], wq[1], wq[2], wq[3]) > 1e-6)) {
          throw new BvhWriteError(
            `frame ${f}: bone '${sk.names[i]}' rotation is not a unit quaternion (${Array.from(wq).join(', ')})`,
          );
        }
        if (bake[i]) {
          // q' = R_p * q * inverse(R_i)
          if (p >= 0) qmul(wq, 0, restRot, 4 * p, wq, 0);
          qmulByConj(wq, 0, wq, 0, restRot, 4 * i);
        }
        if (ref) {
          for (let k = 0; k < 3; k++) {
            const s = plan.rotSlot[o3 + k];
            wp[k] = s >= 0 ? ref[f * C + s] * DEG2RAD : 0;
          }
        } else {
          wp[0] = prev[o3];
          wp[1] = prev[o3 + 1];
          wp[2] = prev[o3 + 2];
        }
        const usePrev = f > 0 || ref !== undefined;
        const nRot = plan.rotSlot[o3 + 2] >= 0 ? 3 : plan.rotSlot[o3 + 1] >= 0 ? 2 : 1;
        if (nRot === 3) eulerFromQuat(we, wq, plan.orders[o], usePrev ? wp : undefined);
        else
          decomposeFew(
            we,
            wq,
            nRot,
            plan.axes[o3],
            plan.axes[o3 + 1],
            plan.parity[o],
            usePrev ? wp : undefined,
          );
        prev[o3] = we[0];
        prev[o3 + 1] = we[1];
        prev[o3 + 2] = we[2];
        for (let k = 0; k < 3; k++) {
          const s = plan.rotSlot[o3 + k];
          if (s >= 0) vals[s] = we[k] * RAD2DEG;
        }
      }
    }
    for (let k = 0; k < C; k++) {
      const v = vals[k];
      if (!Number.isFinite(v)) {
        throw new BvhWriteError(
          `frame ${f}: ${channelLabel(sub.layout, k)} is not finite (clip value NaN/Infinity)`,
        );
      }
      if (k > 0) frameText.char(32);
      frameText.number(v);
    }
    frameText.char(10);
  }
  out.push('');
  return out.join('\n') + frameText.finish();
}
