/**
 * Automatic reference poses: a canonical T-pose (or I-pose) for any humanoid skeleton, computed from
 * its geometry, so that skeletons whose rest pose is not a T-pose (many BVH files, A-pose avatars,
 * rigs facing -Z or lying Z-up) are calibrated without user action.
 *
 * Canonical frame (DESIGN.md): right-handed, Y up, the character faces +Z and its left is +X.
 * Canonical T-pose: the hips keep their orientation relative to the body frame; the torso bones from
 * the spine to the neck lie on one straight line leaning so that the neck is right above the hips
 * (vertical when the rig's first spine bone sits right above the hips), and the neck chain points
 * straight up (+Y); upper and lower legs point straight down (-Y); each
 * foot's foot->toes direction points straight forward (+Z, level); upper arms, lower arms and hands
 * point along the character's left/right axis (+X for the left side, -X for the right), and so do the
 * clavicles (shoulder -> upper arm) in both poses, since a rest pose may hold them anywhere (the Bandai
 * Namco BVH rest has them along the spine); each foot keeps
 * its base-pose world orientation (not the straightened leg's) before being aimed; the I-pose
 * has the arms and hands hanging down (-Y) instead. Everything else (head, toes, fingers,
 * helper bones) keeps its local rotation from the base pose. Each bone is moved by the smallest
 * rotation that gives it its direction, so its roll (twist about its own axis) is the base pose's:
 * from a natural standing pose this keeps anatomically matching rolls on both skeletons.
 *
 * Design note: this follows the usual humanoid-retargeting practice of calibrating both skeletons in
 * the same T-pose (Unity's Mecanim "Enforce T-Pose", MotionBuilder's characterization T-stance).
 */
import { type mat3, quat, vec3 } from 'gl-matrix';
import {
  forwardKinematics,
  fromTo,
  HumanBodyBones as H,
  quat64,
  readQuat,
  readVec3,
  type Skeleton,
  vec64,
  vectorAngle,
  worldToLocalRotations,
  writeQuat,
} from '../core';

/** Which canonical pose: T (arms out to the sides) or I (arms down). */
export type ReferencePoseKind = 'T' | 'I';

/** Thrown when a skeleton lacks what a reference pose needs; the message names the bone. */
export class ReferencePoseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReferencePoseError';
  }
}

/** Orthonormal body frame of a posed skeleton, world space, unit vectors. */
export interface BodyFrame {
  left: Float64Array;
  up: Float64Array;
  forward: Float64Array;
}

/**
 * World rotations and positions of a skeleton in one pose, with its body frame (as computed from hips, head
 * and limbs).
 */
export interface PoseGeometry {
  /** World rotations `4n`. */
  rotations: Float64Array;
  /** World positions `3n`, metres. */
  positions: Float64Array;
}

/** World rotations and positions of a local pose (allocates; set-up time). */
export function poseGeometry(
  skeleton: Skeleton,
  localRot: ArrayLike<number>,
  localPos: ArrayLike<number>,
): PoseGeometry {
  const rotations = new Float64Array(4 * skeleton.boneCount);
  const positions = new Float64Array(3 * skeleton.boneCount);
  forwardKinematics(skeleton, localRot as Float64Array, localPos as Float64Array, rotations, positions);
  return { rotations, positions };
}

function bonePos(g: PoseGeometry, skeleton: Skeleton, h: number): Float64Array {
  const b = skeleton.humanoid[h];
  return readVec3(vec64(), g.positions, b) as Float64Array;
}

function requireBones(skeleton: Skeleton, bones: number[], what: string): void {
  for (const h of bones) {
    if (skeleton.humanoid[h] < 0) {
      const name = Object.keys(H).find((k) => H[k as keyof typeof H] === h);
      throw new ReferencePoseError(
        `${what} needs the humanoid bone ${name}, which the skeleton does not map`,
      );
    }
  }
}

/**
 * Body frame of a posed skeleton: up = hips -> head; left = from the right limbs to the left limbs
 * (upper arms and upper legs), made perpendicular to up; forward = left x up.
 * @throws ReferencePoseError when required bones are missing or the frame is degenerate.
 */
export function bodyFrame(skeleton: Skeleton, g: PoseGeometry): BodyFrame {
  requireBones(
    skeleton,
    [H.Hips, H.Head, H.LeftUpperArm, H.RightUpperArm, H.LeftUpperLeg, H.RightUpperLeg],
    'the body frame',
  );
  const up = vec3.sub(vec64(), bonePos(g, skeleton, H.Head), bonePos(g, skeleton, H.Hips)) as Float64Array;
  const lu = vec3.length(up);
  if (!(lu > 1e-9)) throw new ReferencePoseError('the body frame: head and hips are at the same place');
  vec3.scale(up, up, 1 / lu);
  const left = vec3.sub(vec64(), bonePos(g, skeleton, H.LeftUpperArm), bonePos(g, skeleton, H.RightUpperArm));
  const legs = vec3.sub(vec64(), bonePos(g, skeleton, H.LeftUpperLeg), bonePos(g, skeleton, H.RightUpperLeg));
  vec3.add(left, left, legs);
  vec3.scaleAndAdd(left, left, up, -vec3.dot(left, up));
  const ll = vec3.length(left);
  if (!(ll > 1e-9)) {
    throw new ReferencePoseError(
      'the body frame: left and right limbs coincide, so left/right cannot be told apart',
    );
  }
  vec3.scale(left, left, 1 / ll);
  const forward = vec3.cross(vec64(), left, up) as Float64Array;
  return { left: left as Float64Array, up, forward };
}

/**
 * Rotation taking the body frame to the canonical frame (left -> +X, up -> +Y, forward -> +Z).
 */
export function bodyToCanonical(frame: BodyFrame): Float64Array {
  // Rows of the matrix are the body axes: M * left = X, M * up = Y, M * forward = Z.
  // gl-matrix mat3 is column-major: element (row r, col c) at index 3c + r.
  const m = new Float64Array(9) as unknown as mat3;
  for (let c = 0; c < 3; c++) {
    m[3 * c + 0] = frame.left[c];
    m[3 * c + 1] = frame.up[c];
    m[3 * c + 2] = frame.forward[c];
  }
  const q = quat64();
  quat.fromMat3(q, m);
  return quat.normalize(q, q) as Float64Array;
}

/**
 * True when the pose looks like a standing humanoid: the legs hang below the hips on the other side
 * from the head (angle between hips->head and hips->feet above 120 degrees), each leg within 60 degrees
 * of straight down, left and right limbs apart, and the hips' left-right axis within 30 degrees of the
 * shoulders' (seen from above). A BVH rest pose with every bone along one axis (as in the Bandai Namco
 * set: legs along +X and -X, arms' left-right along Z, hips' along Y) is not.
 */
export function isStandingPose(skeleton: Skeleton, g: PoseGeometry): boolean {
  const m = skeleton.humanoid;
  if ([H.Hips, H.Head, H.LeftFoot, H.RightFoot, H.LeftUpperArm, H.RightUpperArm].some((h) => m[h] < 0))
    return false;
  const hips = bonePos(g, skeleton, H.Hips);
  const up = vec3.sub(vec64(), bonePos(g, skeleton, H.Head), hips);
  const feet = vec3.add(vec64(), bonePos(g, skeleton, H.LeftFoot), bonePos(g, skeleton, H.RightFoot));
  vec3.scale(feet, feet, 0.5);
  vec3.sub(feet, feet, hips);
  if (vec3.length(up) < 1e-9 || vec3.length(feet) < 1e-9) return false;
  if (vec3.angle(up, feet) < (120 * Math.PI) / 180) return false;
  try {
    bodyFrame(skeleton, g);
  } catch {
    return false;
  }
  const lr = vec3.dist(bonePos(g, skeleton, H.LeftUpperArm), bonePos(g, skeleton, H.RightUpperArm));
  if (!(lr > 0.05 * vec3.length(up))) return false;
  // Each leg hangs down (not only their mean: a rest with one leg along +X and the other along -X, as
  // Bandai Namco's BVH joint-frame rest, averages to "down")...
  const down = vec3.scale(vec64(), up, -1);
  for (const [u, f] of [
    [H.LeftUpperLeg, H.LeftFoot],
    [H.RightUpperLeg, H.RightFoot],
  ]) {
    if (m[u] < 0) continue;
    const leg = vec3.sub(vec64(), bonePos(g, skeleton, f), bonePos(g, skeleton, u));
    if (vec3.length(leg) < 1e-9 || vec3.angle(leg, down) > (60 * Math.PI) / 180) return false;
  }
  // ...and the hips' left-right axis agrees with the shoulders' (a rest twisted at the waist, whose
  // canonical pose would carry the twist into every calibration offset, is no reference).
  if (m[H.LeftUpperLeg] >= 0 && m[H.RightUpperLeg] >= 0) {
    const legs = vec3.sub(
      vec64(),
      bonePos(g, skeleton, H.LeftUpperLeg),
      bonePos(g, skeleton, H.RightUpperLeg),
    );
    const arms = vec3.sub(
      vec64(),
      bonePos(g, skeleton, H.LeftUpperArm),
      bonePos(g, skeleton, H.RightUpperArm),
    );
    const u = vec3.normalize(vec64(), up);
    vec3.scaleAndAdd(legs, legs, u, -vec3.dot(legs, u));
    vec3.scaleAndAdd(arms, arms, u, -vec3.dot(arms, u));
    if (vec3.length(legs) > 1e-9 && vec3.length(arms) > 1e-9 && vec3.angle(legs, arms) > (30 * Math.PI) / 180)
      return false;
  }
  return true;
}

/** Bones of the chain from `top` down to `bottom` (both inclusive), root-first; [] if `bottom` is not below `top`. */
export function chainBetween(skeleton: Skeleton, top: number, bottom: number): number[] {
  const out: number[] = [];
  for (let b = bottom; b >= 0; b = skeleton.parents[b]) {
    out.push(b);
    if (b === top) return out.reverse();
  }
  return [];
}

/**
 * A skeleton's canonical reference pose (T or I) as computed from its geometry: local and world rotations,
 * world positions.
 */
export interface ReferencePose {
  kind: ReferencePoseKind;
  /** Local rotations of the reference pose, `Float64Array(4n)`. */
  localRotations: Float64Array;
  /** World rotations `4n` and positions `3n` of the reference pose, in the canonical frame. */
  world: PoseGeometry;
  /** Rotation that took the base pose's body frame to the canonical frame. */
  bodyToCanonical: Float64Array;
  /** Hips height above the ankles in the reference pose, metres (legs straight). */
  hipsHeight: number;
}

const X = vec64(1, 0, 0);
const Y = vec64(0, 1, 0);
const Z = vec64(0, 0, 1);

/**
 * The turn about +Y by a multiple of 90 degrees that brings `frame.forward` (projected on the floor)
 * nearest +Z, as a quaternion `[x, y, z, w]` (`Float64Array(4)`).
 */
function snappedFacing(frame: BodyFrame): Float64Array {
  const yaw = Math.atan2(frame.forward[0], frame.forward[2]);
  const turn = -Math.round(yaw / (Math.PI / 2)) * (Math.PI / 2);
  return Float64Array.of(0, Math.sin(turn / 2), 0, Math.cos(turn / 2));
}

/**
 * Canonical reference pose of `skeleton`, computed from a base pose (local rotations `4n`, local
 * translations `3n`; default: the rest pose). See the module docs for the pose definition.
 * @throws ReferencePoseError when a required humanoid bone is missing or the base pose is degenerate.
 */
export function canonicalPose(
  skeleton: Skeleton,
  options: {
    kind?: ReferencePoseKind;
    baseRotations?: ArrayLike<number>;
    baseTranslations?: ArrayLike<number>;
    /**
     * false: the base pose kept as it is, only turned about +Y by the multiple of 90 degrees that
     * brings its facing nearest +Z (`bodyToCanonical` is then that turn): a rig whose rest is its
     * T-pose by definition (VRM: facing +Z in 1.0, -Z in 0.x, upright in the file's frame) taken as
     * authored, no tilt corrected, nothing straightened. Default true.
     */
    straighten?: boolean;
  } = {},
): ReferencePose {
  const kind = options.kind ?? 'T';
  const n = skeleton.boneCount;
  const local = Float64Array.from(options.baseRotations ?? skeleton.restRotations);
  const trans = Float64Array.from(options.baseTranslations ?? skeleton.restTranslations);
  if (local.length !== 4 * n || trans.length !== 3 * n) {
    throw new ReferencePoseError(`base pose: expected ${4 * n} rotations and ${3 * n} translations`);
  }
  const m = skeleton.humanoid;
  const g = poseGeometry(skeleton, local, trans);
  const frame = bodyFrame(skeleton, g);
  const G = options.straighten === false ? snappedFacing(frame) : bodyToCanonical(frame);

  // Rotate every root by G (rotations and positions).
  const tmp = quat64();
  for (let i = 0; i < n; i++) {
    if (skeleton.parents[i] >= 0) continue;
    readQuat(tmp, local, i);
    quat.multiply(tmp, G, tmp);
    writeQuat(local, i, tmp);
    const p = readVec3(vec64(), trans, i);
    vec3.transformQuat(p, p, G);
    trans.set(p, 3 * i);
  }

  const geo = poseGeometry(skeleton, local, trans);
  if (options.straighten === false)
    return {
      kind,
      localRotations: local,
      world: geo,
      bodyToCanonical: G,
      hipsHeight: hipsHeightOf(skeleton, geo),
    };
  const refresh = () => forwardKinematics(skeleton, local, trans, geo.rotations, geo.positions);
  const cur = vec64();
  const delta = quat64();
  const w = quat64();
  /** Swing bone `b` (world) by the shortest arc so that (child - b) points along `dir`. */
  const aim = (b: number, child: number, dir: ArrayLike<number>) => {
    if (b < 0 || child < 0) return;
    vec3.sub(cur, readVec3(vec64(), geo.positions, child), readVec3(vec64(), geo.positions, b));
    const len = vec3.length(cur);
    if (len < 1e-9) return;
    vec3.scale(cur, cur, 1 / len);
    fromTo(delta, cur, dir);
    readQuat(w, geo.rotations, b);
    quat.multiply(w, delta, w);
    setWorldRotation(b, w);
  };
  const setWorldRotation = (b: number, world: quat) => {
    const p = skeleton.parents[b];
    if (p < 0) {
      writeQuat(local, b, world);
    } else {
      const pw = readQuat(quat64(), geo.rotations, p);
      quat.invert(pw, pw);
      quat.multiply(pw, pw, world);
      quat.normalize(pw, pw);
      writeQuat(local, b, pw);
    }
    refresh();
  };

  // Torso: the bones from the spine to the neck in one straight line, leaning so that the neck is
  // right above the hips (the hips -> first spine bone offset of many rigs is not vertical; keeping
  // the neck above the hips keeps the rest pose's overall uprightness). Neck chain straight up.
  const neckOrHead = m[H.Neck] >= 0 ? m[H.Neck] : m[H.Head];
  const torso = chainBetween(skeleton, m[H.Hips], neckOrHead);
  if (torso.length >= 3) {
    const p0 = readVec3(vec64(), geo.positions, torso[0]);
    const p1 = readVec3(vec64(), geo.positions, torso[1]);
    const o = vec3.sub(vec64(), p1, p0);
    let L = 0;
    for (let k = 2; k < torso.length; k++) {
      const b = torso[k];
      L += Math.hypot(trans[3 * b], trans[3 * b + 1], trans[3 * b + 2]);
    }
    const horiz = o[0] * o[0] + o[2] * o[2];
    const u = L * L > horiz ? vec64(-o[0] / L, Math.sqrt(L * L - horiz) / L, -o[2] / L) : Y;
    for (let k = 1; k + 1 < torso.length; k++) aim(torso[k], torso[k + 1], u);
  }
  if (m[H.Neck] >= 0) {
    const neckChain = chainBetween(skeleton, m[H.Neck], m[H.Head]);
    for (let k = 0; k + 1 < neckChain.length; k++) aim(neckChain[k], neckChain[k + 1], Y);
  }

  const downY = vec64(0, -1, 0);
  for (const side of ['Left', 'Right'] as const) {
    const upper = m[H[`${side}UpperLeg`]];
    const lower = m[H[`${side}LowerLeg`]];
    const foot = m[H[`${side}Foot`]];
    const toes = m[H[`${side}Toes`]];
    // The foot keeps its world orientation from the base pose (flat on the floor in a standing
    // pose) instead of turning with the straightened leg: rigs whose rest knees are bent (IK rigs such
    // as RobotExpressive) would otherwise get a reference foot pitched by the knee angle.
    const footWorld = foot >= 0 ? readQuat(quat64(), geo.rotations, foot) : null;
    aim(upper, lower, downY);
    aim(lower, foot, downY);
    if (footWorld) setWorldRotation(foot, footWorld);
    if (toes >= 0) aim(foot, toes, Z);
  }
  for (const side of ['Left', 'Right'] as const) {
    const lateral = side === 'Left' ? X : vec64(-1, 0, 0);
    const out = kind === 'I' ? downY : lateral;
    const upper = m[H[`${side}UpperArm`]];
    const lower = m[H[`${side}LowerArm`]];
    const hand = m[H[`${side}Hand`]];
    // the clavicle points out to the side in both poses (a BVH rest pose may have it along the spine)
    const shoulder = m[H[`${side}Shoulder`]];
    if (shoulder >= 0) aim(shoulder, upper, lateral);
    aim(upper, lower, out);
    aim(lower, hand, out);
    const finger = [
      H[`${side}MiddleProximal`],
      H[`${side}IndexProximal`],
      H[`${side}RingProximal`],
      H[`${side}LittleProximal`],
    ]
      .map((h) => m[h])
      .find((b) => b >= 0);
    if (finger !== undefined) aim(hand, finger, out);
  }

  refresh();
  return {
    kind,
    localRotations: local,
    world: geo,
    bodyToCanonical: G,
    hipsHeight: hipsHeightOf(skeleton, geo),
  };
}

/**
 * Height of the hips joint above the lower ankle (humanoid Foot joint), measured along +Y, metres.
 * Ankles, not toes or end joints: every humanoid has them, so the figure compares across rigs.
 */
export function hipsHeightOf(skeleton: Skeleton, g: PoseGeometry): number {
  const m = skeleton.humanoid;
  const hipsY = g.positions[3 * m[H.Hips] + 1];
  let lowest = Number.POSITIVE_INFINITY;
  for (const h of [H.LeftFoot, H.RightFoot]) {
    if (m[h] >= 0) lowest = Math.min(lowest, g.positions[3 * m[h] + 1]);
  }
  return hipsY - lowest;
}

/** Local rotations `4n` of world rotations `4n` (allocates; set-up time). */
export function localFromWorld(skeleton: Skeleton, world: ArrayLike<number>): Float64Array {
  const out = new Float64Array(4 * skeleton.boneCount);
  worldToLocalRotations(skeleton, world as Float64Array, out);
  return out;
}

/**
 * How far a posed skeleton's arms are from a reference pose kind, degrees per arm: the angle between
 * the upper arm's direction (UpperArm -> LowerArm) and where that pose puts it (T: along the body's
 * left/right axis; I: straight down the body), in the pose's own body frame. Used to warn when a frame
 * given as the performer's T- or I-pose is not one.
 */
export function armDeviationFromPose(
  skeleton: Skeleton,
  g: PoseGeometry,
  kind: ReferencePoseKind,
): { left: number; right: number } {
  const f = bodyFrame(skeleton, g);
  const m = skeleton.humanoid;
  const dev = (side: 'Left' | 'Right') => {
    const a = bonePos(g, skeleton, H[`${side}UpperArm`]);
    const b = bonePos(g, skeleton, H[`${side}LowerArm`]);
    const d = vec3.sub(vec64(), b, a);
    const want =
      kind === 'I' ? vec3.scale(vec64(), f.up, -1) : vec3.scale(vec64(), f.left, side === 'Left' ? 1 : -1);
    return (vectorAngle(d, want) * 180) / Math.PI;
  };
  if (m[H.LeftLowerArm] < 0 || m[H.RightLowerArm] < 0) return { left: 0, right: 0 };
  return { left: dev('Left'), right: dev('Right') };
}
