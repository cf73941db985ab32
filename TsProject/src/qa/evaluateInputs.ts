/**
 * The QA evaluation's inputs (src/qa/evaluate.ts): the golden and observed clips checked to be the same
 * character and sound clips, the rig profile resolved for the skeleton, and the extent and pitch helpers.
 */
import {
  type Clip,
  HumanBodyBones as H,
  humanBoneIndex,
  restWorld,
  type Skeleton,
  withHumanoid,
} from '../core';
import { QaError } from './evaluateReport';
import { defaultRigProfile, type RigProfile } from './profile';

/**
 * QA compares two animations of one character: golden and retargeted on the same rig (or two exports of
 * it). Different proportions mean different characters, whose local rotations cannot be compared bone
 * by bone (every bone would be flagged): an error saying so. Segments: rest-pose lengths between mapped
 * humanoid joints, compared relative to the hips-to-head length (hips-to-neck unless both have a head);
 * the longer over 1.1 times the shorter on any is an error. The test is symmetric: swapping golden and
 * retargeted gives the same decision (a ratio taken one way only, `lo / lg - 1 > 0.1`, refused
 * Soldier-vs-Xbot and accepted Xbot-vs-Soldier, whose upper arms are 1.104 apart).
 * @throws QaError naming the segment and both lengths.
 */
export function checkSameCharacter(g: Skeleton, o: Skeleton): void {
  const gw = restWorld(g).positions;
  const ow = restWorld(o).positions;
  const len = (sk: Skeleton, w: Float64Array, a: number, b: number) => {
    const i = sk.humanoid[a];
    const j = sk.humanoid[b];
    if (i < 0 || j < 0) return Number.NaN;
    return Math.hypot(w[3 * j] - w[3 * i], w[3 * j + 1] - w[3 * i + 1], w[3 * j + 2] - w[3 * i + 2]);
  };
  const top = g.humanoid[H.Head] >= 0 && o.humanoid[H.Head] >= 0 ? H.Head : H.Neck;
  const ref = (sk: Skeleton, w: Float64Array) => len(sk, w, H.Hips, top);
  const gr = ref(g, gw);
  const or = ref(o, ow);
  if (!(gr > 0 && or > 0)) return;
  const segs: [string, number, number][] = [
    ['left upper arm', H.LeftUpperArm, H.LeftLowerArm],
    ['left forearm', H.LeftLowerArm, H.LeftHand],
    ['right upper arm', H.RightUpperArm, H.RightLowerArm],
    ['right forearm', H.RightLowerArm, H.RightHand],
    ['left thigh', H.LeftUpperLeg, H.LeftLowerLeg],
    ['left shin', H.LeftLowerLeg, H.LeftFoot],
    ['right thigh', H.RightUpperLeg, H.RightLowerLeg],
    ['right shin', H.RightLowerLeg, H.RightFoot],
  ];
  for (const [name, a, b] of segs) {
    const lg = len(g, gw, a, b) / gr;
    const lo = len(o, ow, a, b) / or;
    if (!(lg > 0 && lo > 0)) continue;
    if (Math.max(lg, lo) / Math.min(lg, lo) > 1.1)
      throw new QaError(
        `golden and retargeted are different characters: the ${name} is ${(100 * lg).toFixed(1)}% of the hips-to-${top === H.Head ? 'head' : 'neck'} length on the golden, ${(100 * lo).toFixed(1)}% on the retargeted; QA compares two animations of the same rig`,
      );
  }
}

export function checkClip(which: string, clip: Clip): void {
  if (!(clip.frameCount >= 1)) throw new QaError(`${which} clip '${clip.name}': no frames`);
  if (!(clip.frameTime > 0) || !Number.isFinite(clip.frameTime))
    throw new QaError(`${which} clip '${clip.name}': frameTime ${clip.frameTime} is not a positive number`);
  const n = clip.skeleton.boneCount;
  const r = clip.rotations;
  const t = clip.translations;
  if (r.length !== clip.frameCount * n * 4 || t.length !== clip.frameCount * n * 3)
    throw new QaError(
      `${which} clip '${clip.name}': rotations/translations length does not match ${clip.frameCount} frames x ${n} bones`,
    );
  const bad = firstBadQuaternion(r);
  if (bad >= 0)
    throw new QaError(
      `${which} clip '${clip.name}': frame ${Math.floor(bad / 4 / n)} bone '${clip.skeleton.names[(bad / 4) % n]}': rotation is not a valid quaternion`,
    );
  const badT = firstNonFinite(t);
  if (badT >= 0)
    throw new QaError(
      `${which} clip '${clip.name}': frame ${Math.floor(badT / 3 / n)} bone '${clip.skeleton.names[Math.floor(badT / 3) % n]}': translation is not finite`,
    );
}

/**
 * Index (a multiple of 4) of the first quaternion of `r` whose squared length is not a finite number
 * over 1e-12, or -1. (A sum of squares is >= 0 or NaN, so `l > 1e-12 && l < Infinity` is
 * `l > 1e-12 && isFinite(l)`.)
 */
function firstBadQuaternion(r: Float32Array | Float64Array): number {
  const len = r.length;
  for (let i = 0; i < len; i += 4) {
    const a = r[i];
    const b = r[i + 1];
    const c = r[i + 2];
    const d = r[i + 3];
    const l = a * a + b * b + c * c + d * d;
    if (!(l > 1e-12 && l < Number.POSITIVE_INFINITY)) return i;
  }
  return -1;
}

/**
 * Index of the first element of `t` that is not finite, or -1. Scans blocks of 64 with `x * 0` summed
 * (0 for a finite x, NaN for NaN or an infinity), then the failing block one by one.
 */
function firstNonFinite(t: Float32Array | Float64Array): number {
  const len = t.length;
  for (let i0 = 0; i0 < len; i0 += 64) {
    const e = Math.min(i0 + 64, len);
    let z = 0;
    for (let i = i0; i < e; i++) z += t[i] * 0;
    if (z === 0) continue;
    for (let i = i0; i < e; i++) if (!Number.isFinite(t[i])) return i;
  }
  return -1;
}

export function extent(positions: Float64Array): number {
  let best = 0;
  for (let c = 0; c < 3; c++) {
    let lo = Number.POSITIVE_INFINITY;
    let hi = Number.NEGATIVE_INFINITY;
    for (let i = c; i < positions.length; i += 3) {
      if (positions[i] < lo) lo = positions[i];
      if (positions[i] > hi) hi = positions[i];
    }
    if (hi - lo > best) best = hi - lo;
  }
  return best;
}

export function pitchDeg(P: ArrayLike<number>, a: number, b: number): number {
  const dx = P[3 * b] - P[3 * a];
  const dy = P[3 * b + 1] - P[3 * a + 1];
  const dz = P[3 * b + 2] - P[3 * a + 2];
  return (Math.atan2(dy, Math.sqrt(dx * dx + dz * dz)) * 180) / Math.PI;
}

/** Merge `profile` over the rig's defaults; apply its bone map to the observed skeleton. */
export function resolveProfile(
  observed: Skeleton,
  profile: RigProfile | undefined,
): { skeleton: Skeleton; p: RigProfile } {
  let skeleton = observed;
  if (profile && Object.keys(profile.boneMap).length > 0) {
    const map = Array.from(observed.humanoid);
    for (const [bone, name] of Object.entries(profile.boneMap)) {
      const h = humanBoneIndex(bone);
      if (h < 0) throw new QaError(`rig profile boneMap: '${bone}' is not a HumanBodyBones name`);
      const b = observed.names.indexOf(name);
      if (b < 0)
        throw new QaError(
          `${profile.boneMapAt?.[bone] ?? 'rig profile'}: boneMap.${bone}: no bone named '${name}' in the retargeted skeleton`,
        );
      map[h] = b;
    }
    skeleton = withHumanoid(observed, map);
  }
  const p = defaultRigProfile(skeleton);
  if (!profile) return { skeleton, p };
  for (const [bone, t] of Object.entries(profile.thresholds))
    p.thresholds[bone] = { ...p.thresholds[bone], ...t };
  Object.assign(p.weights, profile.weights);
  Object.assign(p.twistAxes, profile.twistAxes);
  p.wrist = { ...profile.wrist };
  p.shoulderPitchDeg = profile.shoulderPitchDeg;
  p.minRun = { ...profile.minRun };
  p.flags.mirrored = profile.flags.mirrored;
  if (profile.flags.noShoulderBones !== null) p.flags.noShoulderBones = profile.flags.noShoulderBones;
  if (profile.name !== undefined) p.name = profile.name;
  return { skeleton, p };
}
