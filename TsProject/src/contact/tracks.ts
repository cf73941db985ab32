/**
 * World foot trajectories of a clip: hips, hip joints, knees, ankles and toes of both legs per frame,
 * in the clip's own world frame (metres, as the BVH reader gives it; not rotated to Y up), plus the
 * ankle pitch and roll of each foot and the clip's up axis.
 *
 * Bones come from the skeleton's humanoid map (`skeleton.humanoid`, Unity HumanBodyBones indices).
 * Positions by core {@link forwardKinematics}. The up axis is detected as the retargeter does
 * (src/retarget `nearestAxis` of the hips-to-head vector in the first frame).
 */

import { virtualToeTracks } from '../cleanup';
import { type Clip, forwardKinematics, HumanBodyBones as H, HUMAN_BONE_NAMES } from '../core';
import { nearestAxis } from '../retarget';

/** Thrown for unusable input (missing bones, too few frames, NaN, a model that is not the expected one). */
export class ContactError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ContactError';
  }
}

/** One leg's joints: `Float64Array(frameCount * 3)` world positions (metres) per joint. */
export interface LegTrack {
  ankle: Float64Array;
  /** Toe joint (HumanBodyBones Toes); null when the rig has none. */
  toe: Float64Array | null;
  /**
   * The toe point (issue 20): the toe joint (the same array as `toe`), or on a rig without one the
   * virtual toe of src/cleanup/toePoint.ts (a point fixed in the foot bone's frame, 0.15 leg lengths
   * ahead of the ankle along the foot's stance direction and 0.04 below it). Set by
   * {@link computeFootTracks}; tracks built elsewhere may leave it out (readers then use `toe`).
   */
  toePoint?: Float64Array;
  /** True when `toePoint` is the virtual toe. */
  toeVirtual?: boolean;
  knee: Float64Array;
  hip: Float64Array;
  /**
   * Ankle pitch per frame, radians, relative to the rest pose: the angle of the foot's forward axis
   * (ankle to toe, or the body's forward when there is no toe) above the horizontal plane, minus the
   * same angle in the rest pose. Positive: toes up. `Float64Array(frameCount)`.
   */
  pitch: Float64Array;
  /**
   * Ankle roll per frame, radians, relative to the rest pose: the angle of the foot's outward lateral
   * axis (the character's left for the left foot, its right for the right foot) above the horizontal
   * plane. Positive: the outer edge up (same meaning for both feet). `Float64Array(frameCount)`.
   */
  roll: Float64Array;
}

/**
 * The feet of a take as the detectors read them (world positions by forward kinematics): both legs' tracks,
 * the hips path, the leg length and the up axis.
 */
export interface FootTracks {
  frameCount: number;
  /** Seconds between frames. */
  frameTime: number;
  /** Metres: hip-to-knee plus knee-to-ankle length in the rest pose, mean of both legs. */
  legLength: number;
  left: LegTrack;
  right: LegTrack;
  /** Hips world position per frame, `Float64Array(frameCount * 3)`. */
  hips: Float64Array;
  /** Up axis of the clip's world (a unit world axis, e.g. `[0, 1, 0]` or `[0, 0, 1]`). */
  up: [number, number, number];
}

const REQUIRED = [
  H.Hips,
  H.LeftUpperLeg,
  H.LeftLowerLeg,
  H.LeftFoot,
  H.RightUpperLeg,
  H.RightLowerLeg,
  H.RightFoot,
];

const AXIS_VECTORS: Record<string, [number, number, number]> = {
  '+x': [1, 0, 0],
  '-x': [-1, 0, 0],
  '+y': [0, 1, 0],
  '-y': [0, -1, 0],
  '+z': [0, 0, 1],
  '-z': [0, 0, -1],
};

function dist(p: ArrayLike<number>, a: number, b: number): number {
  return Math.hypot(p[3 * a] - p[3 * b], p[3 * a + 1] - p[3 * b + 1], p[3 * a + 2] - p[3 * b + 2]);
}

function normalize(v: number[]): number[] {
  const l = Math.hypot(v[0], v[1], v[2]);
  return l > 1e-12 ? [v[0] / l, v[1] / l, v[2] / l] : [0, 0, 0];
}

function cross(a: number[], b: number[]): number[] {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

/** Rotate `v` by the conjugate (inverse) of the unit quaternion `q` at `o` of `arr`. */
function rotateConj(arr: ArrayLike<number>, o: number, v: number[]): number[] {
  return rotate([-arr[o], -arr[o + 1], -arr[o + 2], arr[o + 3]], 0, v);
}

function rotate(q: ArrayLike<number>, o: number, v: number[], out: number[] = [0, 0, 0]): number[] {
  const qx = q[o];
  const qy = q[o + 1];
  const qz = q[o + 2];
  const qw = q[o + 3];
  const uvx = qy * v[2] - qz * v[1];
  const uvy = qz * v[0] - qx * v[2];
  const uvz = qx * v[1] - qy * v[0];
  out[0] = v[0] + 2 * (qw * uvx + qy * uvz - qz * uvy);
  out[1] = v[1] + 2 * (qw * uvy + qz * uvx - qx * uvz);
  out[2] = v[2] + 2 * (qw * uvz + qx * uvy - qy * uvx);
  return out;
}

function put(dst: Float64Array, f: number, wp: Float64Array, b: number): void {
  dst[3 * f] = wp[3 * b];
  dst[3 * f + 1] = wp[3 * b + 1];
  dst[3 * f + 2] = wp[3 * b + 2];
}

/** Foot axes of one leg in the ankle bone's local frame, from the rest pose. */
interface FootAxes {
  fwdLocal: number[];
  latLocal: number[];
  restPitch: number;
  restRoll: number;
}

function footAxes(
  restRot: Float64Array,
  restPos: Float64Array,
  ankle: number,
  toe: number,
  bodyUp: number[],
  bodyFwd: number[],
  outward: number[],
): FootAxes {
  const fwdWorld =
    toe >= 0
      ? normalize([
          restPos[3 * toe] - restPos[3 * ankle],
          restPos[3 * toe + 1] - restPos[3 * ankle + 1],
          restPos[3 * toe + 2] - restPos[3 * ankle + 2],
        ])
      : bodyFwd;
  const dot = (a: number[], b: number[]) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  return {
    fwdLocal: rotateConj(restRot, 4 * ankle, fwdWorld),
    latLocal: rotateConj(restRot, 4 * ankle, outward),
    restPitch: Math.asin(Math.max(-1, Math.min(1, dot(fwdWorld, bodyUp)))),
    restRoll: Math.asin(Math.max(-1, Math.min(1, dot(outward, bodyUp)))),
  };
}

/**
 * Foot trajectories of `clip` (see {@link FootTracks}).
 * @throws ContactError when a leg bone is missing from the humanoid map (the message names the
 * HumanBodyBones), when the clip has fewer than 2 frames, or when a frame holds a NaN or infinite
 * value (the message names the frame and the bone).
 */
export function computeFootTracks(clip: Clip): FootTracks {
  const s = clip.skeleton;
  const hm = s.humanoid;
  const missing = REQUIRED.filter((h) => !(hm[h] >= 0)).map((h) => HUMAN_BONE_NAMES[h]);
  if (missing.length > 0) {
    throw new ContactError(
      `clip '${clip.name}': no foot tracks: the humanoid map is missing ${missing.join(', ')} (HumanBodyBones)`,
    );
  }
  if (clip.frameCount < 2) {
    throw new ContactError(
      `clip '${clip.name}': ${clip.frameCount} frame(s); contact detection needs at least 2`,
    );
  }
  const n = s.boneCount;
  const F = clip.frameCount;
  const hips = hm[H.Hips];
  const head = hm[H.Head];
  const legs = [
    { up: hm[H.LeftUpperLeg], knee: hm[H.LeftLowerLeg], ankle: hm[H.LeftFoot], toe: hm[H.LeftToes] },
    { up: hm[H.RightUpperLeg], knee: hm[H.RightLowerLeg], ankle: hm[H.RightFoot], toe: hm[H.RightToes] },
  ];
  // Rest pose: leg length and the foot axes.
  const restRot = new Float64Array(4 * n);
  const restPos = new Float64Array(3 * n);
  forwardKinematics(s, s.restRotations, s.restTranslations, restRot, restPos);
  let legLength = 0;
  for (const l of legs) legLength += 0.5 * (dist(restPos, l.up, l.knee) + dist(restPos, l.knee, l.ankle));
  if (!(legLength > 1e-6))
    throw new ContactError(`clip '${clip.name}': leg length ${legLength} m in the rest pose`);
  const ankleMid = [0, 1, 2].map(
    (c) => 0.5 * (restPos[3 * legs[0].ankle + c] + restPos[3 * legs[1].ankle + c]),
  );
  const bodyUp = normalize(
    [0, 1, 2].map((c) => (head >= 0 ? restPos[3 * head + c] : restPos[3 * hips + c]) - ankleMid[c]),
  );
  const leftDir = normalize([0, 1, 2].map((c) => restPos[3 * legs[0].up + c] - restPos[3 * legs[1].up + c]));
  // Character faces +Z with its left +X and up +Y: forward = left x up.
  const bodyFwd = normalize(cross(leftDir, bodyUp));
  const axes = [
    footAxes(restRot, restPos, legs[0].ankle, legs[0].toe, bodyUp, bodyFwd, leftDir),
    footAxes(restRot, restPos, legs[1].ankle, legs[1].toe, bodyUp, bodyFwd, [
      -leftDir[0],
      -leftDir[1],
      -leftDir[2],
    ]),
  ];

  const mk = () => new Float64Array(3 * F);
  const track = (l: (typeof legs)[number]): LegTrack => ({
    ankle: mk(),
    toe: l.toe >= 0 ? mk() : null,
    toeVirtual: l.toe < 0,
    knee: mk(),
    hip: mk(),
    pitch: new Float64Array(F),
    roll: new Float64Array(F),
  });
  const out: FootTracks = {
    frameCount: F,
    frameTime: clip.frameTime,
    legLength,
    left: track(legs[0]),
    right: track(legs[1]),
    hips: mk(),
    up: [0, 1, 0],
  };
  const lr = new Float64Array(4 * n);
  const lp = new Float64Array(3 * n);
  const wr = new Float64Array(4 * n);
  const wp = new Float64Array(3 * n);
  const R = clip.rotations;
  const T = clip.translations;
  let up: number[] = [0, 1, 0];
  const fwS = [0, 0, 0];
  const ltS = [0, 0, 0];
  for (let f = 0; f < F; f++) {
    const ro = 4 * n * f;
    const to = 3 * n * f;
    for (let k = 0; k < 4 * n; k++) lr[k] = R[ro + k];
    for (let k = 0; k < 3 * n; k++) lp[k] = T[to + k];
    for (let i = 0; i < n; i++) {
      if (
        !Number.isFinite(lr[4 * i] + lr[4 * i + 1] + lr[4 * i + 2] + lr[4 * i + 3]) ||
        !Number.isFinite(lp[3 * i] + lp[3 * i + 1] + lp[3 * i + 2])
      ) {
        throw new ContactError(
          `clip '${clip.name}': frame ${f}, bone '${s.names[i]}': NaN or infinite value`,
        );
      }
    }
    forwardKinematics(s, lr, lp, wr, wp);
    if (f === 0) {
      const top = head >= 0 ? head : hips;
      const v =
        head >= 0
          ? [0, 1, 2].map((c) => wp[3 * top + c] - wp[3 * hips + c])
          : [0, 1, 2].map(
              (c) => wp[3 * hips + c] - 0.5 * (wp[3 * legs[0].ankle + c] + wp[3 * legs[1].ankle + c]),
            );
      up = AXIS_VECTORS[nearestAxis(v)];
      out.up = [up[0], up[1], up[2]];
    }
    put(out.hips, f, wp, hips);
    for (let side = 0; side < 2; side++) {
      const l = legs[side];
      const t = side === 0 ? out.left : out.right;
      put(t.ankle, f, wp, l.ankle);
      put(t.knee, f, wp, l.knee);
      put(t.hip, f, wp, l.up);
      if (t.toe) put(t.toe, f, wp, l.toe);
      const a = axes[side];
      const fw = rotate(wr, 4 * l.ankle, a.fwdLocal, fwS);
      const lt = rotate(wr, 4 * l.ankle, a.latLocal, ltS);
      const fu = fw[0] * up[0] + fw[1] * up[1] + fw[2] * up[2];
      const lu = lt[0] * up[0] + lt[1] * up[1] + lt[2] * up[2];
      t.pitch[f] = Math.asin(Math.max(-1, Math.min(1, fu))) - a.restPitch;
      t.roll[f] = Math.asin(Math.max(-1, Math.min(1, lu))) - a.restRoll;
    }
  }
  const bones = (l: (typeof legs)[number]) => ({ upper: l.up, lower: l.knee, end: l.ankle, toe: l.toe });
  const virtual =
    out.left.toe && out.right.toe
      ? { left: null, right: null }
      : virtualToeTracks(clip, { left: bones(legs[0]), right: bones(legs[1]) }, legLength, out.up);
  out.left.toePoint = out.left.toe ?? (virtual.left as Float64Array);
  out.right.toePoint = out.right.toe ?? (virtual.right as Float64Array);
  return out;
}
