/**
 * DrawingRig: poses the drawing's rest skeleton from 21 pose-space joints, bone by bone, and gives one 2-D
 * rigid transform per joint for skinning. Engine-free, allocation-free per frame.
 *
 * Bones and transforms. Every joint j except Hips ends exactly one bone, parent(j) -> j (PUPPET_PARENTS), so
 * transform j is the motion of THE BONE THAT ENDS AT j: it maps a rest drawing pixel v to
 * `R(theta_j) (v - rest[parent]) + posed[parent]`. Transform 0 (Hips) is the root: the pelvis's motion,
 * `R(theta_pelvis) (v - rest[Hips]) + posed[Hips]`. Skinning weights (weights.ts) say which transforms a
 * vertex follows; a weight on "joint j" in the sense is bound to the bone that STARTS at j
 * (see JOINT_BONE in weights.ts).
 *
 * How a bone turns (as AnimatedDrawings retargets: each bone keeps its drawing length and takes the pose
 * bone's 2-D direction, Smith et al. 2023, ACM TOG 42(3), sec. "retargeting"):
 * - limbs, spine, neck and head bones: theta_j = angle(pose[j] - pose[p]) - angle(rest[j] - rest[p]), so the
 *   drawing's bone points where the person's does (absolute direction, y down in both spaces);
 * - the shoulder girdle (Neck -> Left/RightUpperArm) and the pelvis (Hips -> Left/RightUpperLeg) turn as
 *   one piece: theta = the angle between the line RightUpperArm -> LeftUpperArm (resp. RightUpperLeg ->
 *   LeftUpperLeg) in the pose and in the drawing. A drawn Neck need not sit on the shoulder line (a
 *   dragged or suggested joint, a hunched drawing), while the person's Neck is the shoulder midpoint, so
 *   taking the clavicle's own direction could lift the drawing's shoulders into its head.
 * - a pose bone shorter than 1e-9 (or a degenerate girdle line) keeps its parent bone's angle.
 * Root translation: posed[Hips] = rest[Hips] + s (pose[Hips] - ref[Hips]), where ref is the reference pose
 * (the first frame given to pose(), or setReference) and s = |rest Neck - rest Hips| / |ref Neck - ref Hips|
 * (drawing pixels per pose unit, from the torso length).
 *
 * Transform layout: `Float64Array(21 * 6)`, joint j at 6j: [a, b, c, d, tx, ty] column-major, mapping rest
 * drawing pixels to posed drawing pixels: x' = a x + c y + tx, y' = b x + d y + ty (the argument order of
 * canvas `setTransform(a, b, c, d, e, f)`). With the rest pose in (pose == rest joints) every transform is
 * exactly [1, 0, 0, 1, 0, 0] and every posed joint exactly its rest position.
 */
import type { Character } from './character';
import { type JointSet, PUPPET_JOINT_COUNT, PUPPET_JOINTS, PUPPET_PARENTS, PuppetInputError } from './types';

const N = PUPPET_JOINT_COUNT;
const HIPS = 0;
const NECK = PUPPET_JOINTS.indexOf('Neck');
const L_ARM = PUPPET_JOINTS.indexOf('LeftUpperArm');
const R_ARM = PUPPET_JOINTS.indexOf('RightUpperArm');
const L_LEG = PUPPET_JOINTS.indexOf('LeftUpperLeg');
const R_LEG = PUPPET_JOINTS.indexOf('RightUpperLeg');

export interface DrawingRigOptions {
  /** Follow the pose's hip translation (default true). */
  translate?: boolean;
  /** Drawing pixels per pose unit for the translation; default from the torso lengths (see the module doc). */
  scale?: number;
}

export class DrawingRig {
  /** Rest joints, drawing pixels. */
  readonly restX = new Float64Array(N);
  readonly restY = new Float64Array(N);
  /** Rest bone vector parent -> j (0 for Hips). */
  private readonly dx = new Float64Array(N);
  private readonly dy = new Float64Array(N);
  /** Rest angle of each bone (radians, atan2 in y-down pixels). */
  private readonly restAngle = new Float64Array(N);
  /** Rotation of each transform in the last pose (radians). */
  readonly theta = new Float64Array(N);
  private readonly restShoulder: number;
  private readonly restPelvis: number;
  private readonly restTorso: number;
  private refX = 0;
  private refY = 0;
  private scale = 0;
  private hasRef = false;
  private readonly translate: boolean;
  private readonly fixedScale: number | undefined;

  /** @param rest a Character or its rest joints (drawing pixels, y down). */
  constructor(rest: Character | JointSet, options: DrawingRigOptions = {}) {
    const j = 'restJoints' in rest ? rest.restJoints : rest;
    for (let i = 0; i < N; i++) {
      if (!Number.isFinite(j.x[i]) || !Number.isFinite(j.y[i]))
        throw new PuppetInputError(
          `rest position is not finite (${j.x[i]}, ${j.y[i]})`,
          `joint ${PUPPET_JOINTS[i]}`,
        );
      this.restX[i] = j.x[i];
      this.restY[i] = j.y[i];
    }
    for (let i = 1; i < N; i++) {
      const p = PUPPET_PARENTS[i];
      this.dx[i] = this.restX[i] - this.restX[p];
      this.dy[i] = this.restY[i] - this.restY[p];
      this.restAngle[i] = Math.atan2(this.dy[i], this.dx[i]);
    }
    this.restShoulder = Math.atan2(
      this.restY[L_ARM] - this.restY[R_ARM],
      this.restX[L_ARM] - this.restX[R_ARM],
    );
    this.restPelvis = Math.atan2(
      this.restY[L_LEG] - this.restY[R_LEG],
      this.restX[L_LEG] - this.restX[R_LEG],
    );
    this.restTorso = Math.hypot(this.restX[NECK] - this.restX[HIPS], this.restY[NECK] - this.restY[HIPS]);
    this.translate = options.translate ?? true;
    this.fixedScale = options.scale;
  }

  /** Rest length of the bone ending at joint j (0 for Hips), drawing pixels. */
  boneLength(j: number): number {
    return Math.hypot(this.dx[j], this.dy[j]);
  }

  /** Use these pose joints as the reference for the root translation (their hips map to the drawing's rest hips). */
  setReference(pose: JointSet): void {
    this.refX = pose.x[HIPS];
    this.refY = pose.y[HIPS];
    const torso = Math.hypot(pose.x[NECK] - pose.x[HIPS], pose.y[NECK] - pose.y[HIPS]);
    this.scale = this.fixedScale ?? (torso > 1e-12 ? this.restTorso / torso : 0);
    this.hasRef = true;
  }

  /** Forget the reference; the next pose() call sets it. */
  clearReference(): void {
    this.hasRef = false;
  }

  /**
   * Pose the drawing.
   * @param pose 21 joints in pose space (y down, aspect-correct: pixels of the camera image or metres).
   * @param out receives the posed joints in drawing pixels; confidence and state are copied from `pose`.
   * @param transforms Float64Array(21 * 6) receiving one rest->posed affine per joint (layout in the module doc).
   */
  pose(pose: JointSet, out: JointSet, transforms: Float64Array): void {
    if (transforms.length < N * 6)
      throw new PuppetInputError(
        `needs ${N * 6} numbers, got ${transforms.length}`,
        'DrawingRig.pose transforms',
      );
    if (!this.hasRef) this.setReference(pose);
    const { x, y } = pose;
    const th = this.theta;
    // root: pelvis line
    th[HIPS] = lineAngle(pose, L_LEG, R_LEG, this.restPelvis, 0);
    const tX = this.translate ? this.scale * (x[HIPS] - this.refX) : 0;
    const tY = this.translate ? this.scale * (y[HIPS] - this.refY) : 0;
    out.x[HIPS] = this.restX[HIPS] + tX;
    out.y[HIPS] = this.restY[HIPS] + tY;
    this.write(transforms, HIPS, th[HIPS], HIPS, out);
    // PUPPET_PARENTS lists parents before children, so one pass poses the chain.
    for (let j = 1; j < N; j++) {
      const p = PUPPET_PARENTS[j];
      const fallback = p === HIPS ? th[HIPS] : th[p];
      let a: number;
      if (j === L_ARM || j === R_ARM) a = lineAngle(pose, L_ARM, R_ARM, this.restShoulder, fallback);
      else if (j === L_LEG || j === R_LEG) a = th[HIPS];
      else {
        const vx = x[j] - x[p];
        const vy = y[j] - y[p];
        a = vx * vx + vy * vy > 1e-18 ? Math.atan2(vy, vx) - this.restAngle[j] : fallback;
      }
      th[j] = a;
      const c = Math.cos(a);
      const s = Math.sin(a);
      // posed[j] = posed[p] + R d = rest[j] + (posed[p] - rest[p]) + (R - I) d: exact at the rest pose.
      const ox = out.x[p] - this.restX[p];
      const oy = out.y[p] - this.restY[p];
      out.x[j] = this.restX[j] + ox + ((c - 1) * this.dx[j] - s * this.dy[j]);
      out.y[j] = this.restY[j] + oy + (s * this.dx[j] + (c - 1) * this.dy[j]);
      this.write(transforms, j, a, p, out);
    }
    out.confidence.set(pose.confidence);
    out.state.set(pose.state);
  }

  /** transforms[6j..] = rotation by `a` about rest[pivot], then the pivot moved to out[pivot]. */
  private write(t: Float64Array, j: number, a: number, pivot: number, out: JointSet): void {
    const c = Math.cos(a);
    const s = Math.sin(a);
    const px = this.restX[pivot];
    const py = this.restY[pivot];
    const o = 6 * j;
    t[o] = c;
    t[o + 1] = s;
    t[o + 2] = -s;
    t[o + 3] = c;
    // t = posed_p - R rest_p = (posed_p - rest_p) - (R - I) rest_p
    t[o + 4] = out.x[pivot] - px - ((c - 1) * px - s * py);
    t[o + 5] = out.y[pivot] - py - (s * px + (c - 1) * py);
  }
}

/** Angle of the line b -> a in the pose minus `rest`; `fallback` when a and b coincide. */
function lineAngle(pose: JointSet, a: number, b: number, rest: number, fallback: number): number {
  const vx = pose.x[a] - pose.x[b];
  const vy = pose.y[a] - pose.y[b];
  return vx * vx + vy * vy > 1e-18 ? Math.atan2(vy, vx) - rest : fallback;
}
