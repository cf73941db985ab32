/**
 * Mocap calibration (issue 23 item 1): from the first confident frames of a recording, the heading that
 * makes the performer face +Z, the bone lengths (median of the 3-D world-landmark distances: lengths do not
 * change with the pose, so the frames need not be a T-pose) and the foot's toe and heel offsets in the
 * foot's frame. Engine-free; allocates (set-up time only).
 */

import { HUMAN_BONE_COUNT, humanBoneIndex } from '../core/humanBodyBones';
import { createSkeleton, type Skeleton } from '../core/skeleton';
import type { PoseFrame } from '../puppet';
import { MB, MOCAP_BONE_COUNT, MOCAP_BONES, MOCAP_PARENTS, P, POINT_COUNT } from './bones';
import { basisRotation, boneSpec, framePerson, pointDir, readWorldPoints } from './points';

/** Thrown when a recording cannot be calibrated or solved; `where` names the file / frame / field. */
export class MocapInputError extends Error {
  constructor(
    message: string,
    readonly where: string,
  ) {
    super(`${where}: ${message}`);
    this.name = 'MocapInputError';
  }
}

/** Options of {@link calibrateMocap}: when a landmark counts as seen and how many frames are used. */
export interface MocapCalibrationOptions {
  /** Landmark confidence at or above which a landmark counts as seen (default 0.5, MediaPipe's usual cut). */
  visibilityThreshold?: number;
  /** At most this many confident frames are used (default 30, 1 s at 30 fps). */
  maxFrames?: number;
  /** Name of the recording in errors. */
  source?: string;
}

/** `[cos, sin]` of a zero heading. */
const NO_TURN = Float64Array.of(1, 0);

/**
 * Landmarks that must all be seen for a frame to calibrate on: the torso (shoulders and hips). Each length
 * is the median over the calibration frames in which both its ends are seen; a length never seen (feet
 * cut off by the image, an arm out of frame) takes a proportion of the torso (`DEFAULT_PROPORTIONS`) and is
 * listed in `MocapCalibration.defaulted`.
 */
const BODY = [11, 12, 23, 24] as const;

/**
 * Lengths in torso lengths (hip midpoint -> shoulder midpoint) for lengths never seen in the calibration
 * frames: rounded from the T-pose of the known-answer tests and the real squat's calibration (torso 0.49 m,
 * upper arm 0.26, forearm 0.23, hand 0.07, thigh 0.37, shin 0.40, neck 0.20, hip width 0.17). Foot offsets
 * (foot frame, metres): toe tip 16 cm forward and 7 cm down from the ankle, heel 5 cm back and 7 cm down.
 */
export const DEFAULT_PROPORTIONS: Record<string, number> = {
  neck: 0.4,
  hipWidth: 0.36,
  shoulderWidth: 0.66,
  UpperArm: 0.53,
  Forearm: 0.47,
  Hand: 0.14,
  Thigh: 0.76,
  Shin: 0.81,
};
const DEFAULT_FOOT = [0, -0.07, 0.16, 0, -0.07, -0.05];

/**
 * What {@link calibrateMocap} measured on the first confident frames: heading (radians), bone lengths
 * (metres), rest translations, heel offsets and the hips height.
 */
export interface MocapCalibration {
  /** Frame indices (of the recording) used. */
  frames: number[];
  /** Rotation about +Y applied to the landmarks so the performer faces +Z at the start, radians. */
  heading: number;
  /**
   * Median lengths, metres: `torso` (hip midpoint -> shoulder midpoint), `neck` (shoulder midpoint -> ear
   * midpoint), `hipWidth`, `shoulderWidth`, and per side `upperArm`, `forearm`, `hand` (wrist -> mean of
   * index and pinky), `thigh`, `shin`.
   */
  lengths: Record<string, number>;
  /**
   * Rest local translation per bone (solver order, bones.ts), metres, parent frame = world axes at rest
   * (rest rotations are identity: the rest pose is the T-pose facing +Z). `Float64Array(3 * 21)`.
   * The root's is (0, hips height at rest, 0).
   */
  restTranslations: Float64Array;
  /**
   * Lengths never seen in the calibration frames (both ends below the threshold), set from the other side
   * or from `DEFAULT_PROPORTIONS` of the torso; `leftFoot` / `rightFoot` for the default foot offsets.
   */
  defaulted: string[];
  /** Heel (landmark 29 / 30) from the ankle in the foot's frame, metres: `[left xyz, right xyz]`. */
  heel: Float64Array;
  /** Hips height standing straight: thigh + shin + the ankle's height above the lowest of heel and toe. */
  hipsHeight: number;
}

function median(v: number[]): number {
  const s = [...v].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) >> 1] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

function confident(frame: PoseFrame, conf: Float64Array, pts: Float64Array, t: number): boolean {
  if (!readWorldPoints(frame, NO_TURN, pts, conf)) return false;
  for (const i of BODY) if (!(conf[i] >= t)) return false;
  return true;
}

/**
 * Calibrate on the first `maxFrames` frames with world landmarks in which the torso (both shoulders and
 * hips) is seen (confidence >= threshold); each length over those of the frames that see both its ends.
 * @throws MocapInputError when no frame qualifies (naming the source and how many frames have no world
 *   landmarks or no person).
 */
export function calibrateMocap(
  frames: readonly PoseFrame[],
  o: MocapCalibrationOptions = {},
): MocapCalibration {
  const t = o.visibilityThreshold ?? 0.5;
  const maxFrames = o.maxFrames ?? 30;
  const source = o.source ?? 'recording';
  const pts = new Float64Array(3 * POINT_COUNT);
  const conf = new Float64Array(POINT_COUNT);
  const used: number[] = [];
  let noWorld = 0;
  let noPerson = 0; // no world landmarks, or "landmarks": [] (framePerson)
  for (let f = 0; f < frames.length && used.length < maxFrames; f++) {
    if (frames[f].worldLandmarks?.length !== 33) noWorld++;
    if (!framePerson(frames[f])) noPerson++;
    else if (confident(frames[f], conf, pts, t)) used.push(f);
  }
  if (used.length === 0 && noPerson === frames.length && noWorld < frames.length)
    throw new MocapInputError(
      `no person in any of the ${frames.length} frame(s) (every frame has "landmarks": [] or no world landmarks); nothing to solve`,
      `${source}: frames`,
    );
  if (used.length === 0)
    throw new MocapInputError(
      noWorld === frames.length
        ? `no frame has 33 world landmarks ("worldLandmarks", metres); the mocap needs MediaPipe's world landmarks (a tfjs reference file needs its _3d sibling or --world)`
        : `no frame shows the torso (both shoulders and both hips with visibility >= ${t}); ${noPerson} of ${frames.length} frames have no person (no world landmarks or "landmarks": [])`,
      `${source}: frames`,
    );
  // heading: the mean hip and shoulder lines (right -> left) lie along +X
  let hx = 0;
  let hz = 0;
  for (const f of used) {
    readWorldPoints(frames[f], NO_TURN, pts, conf);
    for (const [r, l] of [
      [24, 23],
      [12, 11],
    ]) {
      const dx = pts[3 * l] - pts[3 * r];
      const dz = pts[3 * l + 2] - pts[3 * r + 2];
      const n = Math.sqrt(dx * dx + dz * dz) || 1;
      hx += dx / n;
      hz += dz / n;
    }
  }
  const heading = Math.atan2(hz, hx);
  const turn = Float64Array.of(Math.cos(heading), Math.sin(heading));
  const samples: Record<string, number[]> = {};
  const add = (k: string, a: number, b: number) => {
    if (!(conf[a] >= t && conf[b] >= t)) return;
    if (!samples[k]) samples[k] = [];
    samples[k].push(dist(a, b));
  };
  const dist = (a: number, b: number) =>
    Math.sqrt(
      (pts[3 * a] - pts[3 * b]) ** 2 +
        (pts[3 * a + 1] - pts[3 * b + 1]) ** 2 +
        (pts[3 * a + 2] - pts[3 * b + 2]) ** 2,
    );
  const dir = new Float64Array(3);
  const sec = new Float64Array(3);
  const q = new Float64Array(4);
  const foot: number[][] = [[], [], [], [], [], [], [], [], [], [], [], []]; // toe xyz, heel xyz per side
  for (const f of used) {
    readWorldPoints(frames[f], turn, pts, conf);
    add('torso', P.MidHip, P.MidShoulder);
    add('neck', P.MidShoulder, P.MidEar);
    add('hipWidth', 23, 24);
    add('shoulderWidth', 11, 12);
    for (const [side, sh, el, wr, tip, hip, kn, an] of [
      ['left', 11, 13, 15, P.LeftHandTip, 23, 25, 27],
      ['right', 12, 14, 16, P.RightHandTip, 24, 26, 28],
    ] as const) {
      add(`${side}UpperArm`, sh, el);
      add(`${side}Forearm`, el, wr);
      add(`${side}Hand`, wr, tip);
      add(`${side}Thigh`, hip, kn);
      add(`${side}Shin`, kn, an);
    }
    // toe and heel offsets in the foot's own frame (the foot's measured rotation, inverse applied)
    for (let s = 0; s < 2; s++) {
      const b = s === 0 ? MB.LeftFoot : MB.RightFoot;
      const sp = boneSpec(b);
      const seen = (i: number) => conf[i] >= t;
      if (!(seen(sp.from) && seen(sp.to) && seen(sp.s0) && seen(sp.s1))) continue;
      pointDir(pts, sp.from, sp.to, dir, 0);
      pointDir(pts, sp.s0, sp.s1, sec, 0);
      if (!basisRotation(dir, 0, sec, 0, sp.restPrimary, sp.restSecondary, q, 0)) continue;
      const ankle = s === 0 ? 27 : 28;
      for (let k = 0; k < 2; k++) {
        const p = k === 0 ? (s === 0 ? 31 : 32) : s === 0 ? 29 : 30;
        const v = [
          pts[3 * p] - pts[3 * ankle],
          pts[3 * p + 1] - pts[3 * ankle + 1],
          pts[3 * p + 2] - pts[3 * ankle + 2],
        ];
        const local = rotateConj(q, v);
        for (let c = 0; c < 3; c++) foot[6 * s + 3 * k + c].push(local[c]);
      }
    }
  }
  const lengths: Record<string, number> = {};
  for (const k of Object.keys(samples)) lengths[k] = median(samples[k]);
  const T = lengths.torso;
  const defaulted: string[] = [];
  for (const k of ['neck', 'hipWidth', 'shoulderWidth']) {
    if (lengths[k] === undefined) {
      lengths[k] = DEFAULT_PROPORTIONS[k] * T;
      defaulted.push(k);
    }
  }
  for (const side of ['left', 'right'])
    for (const part of ['UpperArm', 'Forearm', 'Hand', 'Thigh', 'Shin']) {
      const k = `${side}${part}`;
      if (lengths[k] === undefined) {
        // the other side's when seen, else the proportion
        const other = lengths[`${side === 'left' ? 'right' : 'left'}${part}`];
        lengths[k] = other ?? DEFAULT_PROPORTIONS[part] * T;
        defaulted.push(k);
      }
    }
  const fm = foot.map((v, i) => (v.length ? median(v) : DEFAULT_FOOT[i % 6]));
  if (foot[0].length === 0) defaulted.push('leftFoot');
  if (foot[6].length === 0) defaulted.push('rightFoot');
  const rt = new Float64Array(3 * MOCAP_BONE_COUNT);
  const set = (b: number, x: number, y: number, z: number) => {
    rt[3 * b] = x;
    rt[3 * b + 1] = y;
    rt[3 * b + 2] = z;
  };
  // ankle height: above the lower of heel and toe tip (foot frame y is up at rest)
  const ankleH = Math.max(0, -Math.min(fm[1], fm[4], fm[7], fm[10]));
  const hipsHeight =
    0.5 * (lengths.leftThigh + lengths.rightThigh + lengths.leftShin + lengths.rightShin) + ankleH;
  set(MB.Hips, 0, hipsHeight, 0);
  set(MB.Spine, 0, 0.1 * T, 0);
  set(MB.Chest, 0, 0.35 * T, 0);
  set(MB.Neck, 0, 0.55 * T, 0);
  set(MB.Head, 0, lengths.neck, 0);
  for (const [s, sign] of [
    ['left', 1],
    ['right', -1],
  ] as const) {
    const L = s === 'left';
    set(L ? MB.LeftShoulder : MB.RightShoulder, 0, 0.55 * T, 0);
    set(L ? MB.LeftUpperArm : MB.RightUpperArm, (sign * lengths.shoulderWidth) / 2, 0, 0);
    set(L ? MB.LeftLowerArm : MB.RightLowerArm, sign * lengths[`${s}UpperArm`], 0, 0);
    set(L ? MB.LeftHand : MB.RightHand, sign * lengths[`${s}Forearm`], 0, 0);
    set(L ? MB.LeftUpperLeg : MB.RightUpperLeg, (sign * lengths.hipWidth) / 2, 0, 0);
    set(L ? MB.LeftLowerLeg : MB.RightLowerLeg, 0, -lengths[`${s}Thigh`], 0);
    set(L ? MB.LeftFoot : MB.RightFoot, 0, -lengths[`${s}Shin`], 0);
    const o = L ? 0 : 6;
    set(L ? MB.LeftToes : MB.RightToes, fm[o], fm[o + 1], fm[o + 2]);
  }
  return {
    frames: used,
    heading,
    lengths,
    defaulted,
    restTranslations: rt,
    heel: Float64Array.from([fm[3], fm[4], fm[5], fm[9], fm[10], fm[11]]),
    hipsHeight,
  };
}

/** `q^-1 v` (q unit `[x, y, z, w]`), allocating: set-up time only. */
function rotateConj(q: Float64Array, v: number[]): number[] {
  const x = -q[0];
  const y = -q[1];
  const z = -q[2];
  const w = q[3];
  const uvx = y * v[2] - z * v[1];
  const uvy = z * v[0] - x * v[2];
  const uvz = x * v[1] - y * v[0];
  return [
    v[0] + 2 * (w * uvx + y * uvz - z * uvy),
    v[1] + 2 * (w * uvy + z * uvx - x * uvz),
    v[2] + 2 * (w * uvz + x * uvy - y * uvx),
  ];
}

/**
 * The source skeleton of a calibration: the 21 bones (bones.ts names = HumanBodyBones names), rest
 * rotations identity, rest translations from the calibration, the humanoid map filled by name.
 */
export function mocapSkeleton(cal: MocapCalibration): Skeleton {
  const humanoid = new Int32Array(HUMAN_BONE_COUNT).fill(-1);
  MOCAP_BONES.forEach((n, i) => {
    humanoid[humanBoneIndex(n)] = i;
  });
  const rr = new Float64Array(4 * MOCAP_BONE_COUNT);
  for (let i = 0; i < MOCAP_BONE_COUNT; i++) rr[4 * i + 3] = 1;
  return createSkeleton({
    names: MOCAP_BONES,
    parents: MOCAP_PARENTS,
    restTranslations: cal.restTranslations,
    restRotations: rr,
    humanoid,
  });
}
