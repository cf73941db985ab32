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
 * Any skeleton (issue 22 part 1): a character with its own joints (`character.skeleton`, skeleton.ts: six
 * arms, four legs) is posed by the same pass over ITS joints, each bone turned by its driver (a pose bone,
 * a girdle line, or rigid with its parent); transforms are then `Float64Array(M * 6)` for its M joints and
 * the posed joints an M-joint set. The standard 21-joint skeleton is the drivers above (standardSkeleton),
 * computed with the same arithmetic as before, so standard characters pose bit for bit as they did.
 *
 * Transform layout: `Float64Array(M * 6)` (M = 21 for a standard character), joint j at 6j: [a, b, c, d, tx, ty] column-major, mapping rest
 * drawing pixels to posed drawing pixels: x' = a x + c y + tx, y' = b x + d y + ty (the argument order of
 * canvas `setTransform(a, b, c, d, e, f)`). With the rest pose in (pose == rest joints) every transform is
 * exactly [1, 0, 0, 1, 0, 0] and every posed joint exactly its rest position.
 */
import type { Character } from './character';
import { type CharacterSkeleton, type JointDriver, standardSkeleton } from './skeleton';
import { type JointSet, PUPPET_JOINTS, PUPPET_PARENTS, PuppetInputError } from './types';

const HIPS = 0;

/** Options of a {@link DrawingRig}: whether it follows the hips' translation, and at what scale. */
export interface DrawingRigOptions {
  /** Follow the pose's hip translation (default true). */
  translate?: boolean;
  /** Drawing pixels per pose unit for the translation; default from the torso lengths (see the module doc). */
  scale?: number;
}

const STANDARD = standardSkeleton(PUPPET_PARENTS);

/**
 * Poses the drawing's rest skeleton from the pose-space joints, bone by bone, and gives one 2-D rigid
 * transform per joint for skinning (module doc). Allocation-free per frame.
 */
export class DrawingRig {
  /** The skeleton posed: the character's own, or the standard 21 joints. */
  readonly skeleton: CharacterSkeleton;
  /** Number of joints (and transforms): 21 for a standard character. */
  readonly jointCount: number;
  /** Rest joints, drawing pixels. */
  readonly restX: Float64Array;
  readonly restY: Float64Array;
  /** Rest bone vector parent -> j (0 for a root). */
  private readonly dx: Float64Array;
  private readonly dy: Float64Array;
  /** Rest angle of each bone (radians, atan2 in y-down pixels); for a `line` driver the drawn line's angle. */
  private readonly restAngle: Float64Array;
  /** Rotation of each transform in the last pose (radians). */
  readonly theta: Float64Array;
  /** Arm fans (skeleton.ts `sector`): each copy's drawn side angle minus the fan's mean (radians); 0 elsewhere. */
  private readonly fanOffset: Float64Array;
  /** Per arm fan member: the fan's least and largest offset. */
  private readonly fanMin: Float64Array;
  private readonly fanMax: Float64Array;
  /** The turn FAN_SECTOR added to each joint's rotation in the last pose (0 outside arm fans). */
  private readonly fanFix: Float64Array;
  private readonly parents: readonly number[];
  private readonly drivers: readonly JointDriver[];
  /** The drawn root-translation bones' mean length. */
  private readonly restTorso: number;
  private refX = 0;
  private refY = 0;
  private scale = 0;
  private hasRef = false;
  private readonly translate: boolean;
  private readonly fixedScale: number | undefined;

  /** @param rest a Character (its own skeleton when it has one) or 21 rest joints (drawing pixels, y down). */
  constructor(rest: Character | JointSet, options: DrawingRigOptions = {}) {
    const j = 'restJoints' in rest ? rest.restJoints : rest;
    const sk = ('restJoints' in rest ? rest.skeleton : undefined) ?? STANDARD;
    const N = sk.names.length;
    this.skeleton = sk;
    this.jointCount = N;
    this.parents = sk.parents;
    this.drivers = sk.drivers;
    this.restX = new Float64Array(N);
    this.restY = new Float64Array(N);
    this.dx = new Float64Array(N);
    this.dy = new Float64Array(N);
    this.restAngle = new Float64Array(N);
    this.theta = new Float64Array(N);
    this.fanOffset = new Float64Array(N);
    this.fanMin = new Float64Array(N);
    this.fanMax = new Float64Array(N);
    this.fanFix = new Float64Array(N);
    if (j.x.length < N)
      throw new PuppetInputError(`${j.x.length} rest joints for a skeleton of ${N}`, 'DrawingRig');
    for (let i = 0; i < N; i++) {
      if (!Number.isFinite(j.x[i]) || !Number.isFinite(j.y[i]))
        throw new PuppetInputError(
          `rest position is not finite (${j.x[i]}, ${j.y[i]})`,
          `joint ${sk.names[i]}`,
        );
      this.restX[i] = j.x[i];
      this.restY[i] = j.y[i];
    }
    for (let i = 0; i < N; i++) {
      const p = this.parents[i];
      const d = this.drivers[i];
      if (p >= 0) {
        this.dx[i] = this.restX[i] - this.restX[p];
        this.dy[i] = this.restY[i] - this.restY[p];
        this.restAngle[i] = Math.atan2(this.dy[i], this.dx[i]);
      }
      if (d.kind === 'bone' && d.fan) {
        // the circular mean of the fan's drawn bone angles (skeleton.ts)
        let c = 0;
        let sn = 0;
        for (const k of d.fan) {
          const q = this.parents[k];
          const a = Math.atan2(j.y[k] - j.y[q], j.x[k] - j.x[q]);
          c += Math.cos(a);
          sn += Math.sin(a);
        }
        this.restAngle[i] = Math.atan2(sn, c);
      }
      if (d.kind === 'bone' && d.fan && d.sector) {
        const m = d.sector;
        const mean = sideAngle(m, this.restAngle[i], 0);
        let lo = 0;
        let hi = 0;
        for (const k of d.fan) {
          const q = this.parents[k];
          const o = wrapPi(sideAngle(m, Math.atan2(j.y[k] - j.y[q], j.x[k] - j.x[q]), 0) - mean);
          if (k === i) this.fanOffset[i] = o;
          if (o < lo) lo = o;
          if (o > hi) hi = o;
        }
        this.fanMin[i] = lo;
        this.fanMax[i] = hi;
      }
      if (d.kind === 'bone' && d.neutral !== undefined) this.restAngle[i] = d.neutral;
      if (d.kind === 'line')
        this.restAngle[i] = Math.atan2(
          this.restY[d.restLeft] - this.restY[d.restRight],
          this.restX[d.restLeft] - this.restX[d.restRight],
        );
    }
    this.restTorso = meanLength(sk.scaleFrom.drawing, this.restX, this.restY);
    this.translate = options.translate ?? true;
    this.fixedScale = options.scale;
  }

  /** Rest length of the bone ending at joint j (0 for a root), drawing pixels. */
  boneLength(j: number): number {
    return Math.hypot(this.dx[j], this.dy[j]);
  }

  /** Use these pose joints as the reference for the root translation (their hips map to the drawing's rest hips). */
  setReference(pose: JointSet): void {
    this.refX = pose.x[HIPS];
    this.refY = pose.y[HIPS];
    const torso = meanLength(this.skeleton.scaleFrom.pose, pose.x, pose.y);
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
   * @param out receives the posed joints in drawing pixels (jointCount of them); confidence and state are
   *   copied from `pose` (a joint of the character's own skeleton: from the pose joint it reports,
   *   CharacterSkeleton.reports, or its parent).
   * @param transforms Float64Array(jointCount * 6) receiving one rest->posed affine per joint (module doc).
   */
  pose(pose: JointSet, out: JointSet, transforms: Float64Array): void {
    const N = this.jointCount;
    if (transforms.length < N * 6)
      throw new PuppetInputError(
        `needs ${N * 6} numbers, got ${transforms.length}`,
        'DrawingRig.pose transforms',
      );
    if (out.x.length < N)
      throw new PuppetInputError(`needs ${N} joints, got ${out.x.length}`, 'DrawingRig.pose out');
    if (!this.hasRef) this.setReference(pose);
    const { x, y } = pose;
    const th = this.theta;
    const tX = this.translate ? this.scale * (x[HIPS] - this.refX) : 0;
    const tY = this.translate ? this.scale * (y[HIPS] - this.refY) : 0;
    // parents come before children, so one pass poses the chain.
    for (let j = 0; j < N; j++) {
      const p = this.parents[j];
      const d = this.drivers[j];
      const fallback = p < 0 ? 0 : th[p];
      let a: number;
      if (d.kind === 'line') a = lineAngle(pose, d.left, d.right, this.restAngle[j], fallback);
      else if (d.kind === 'rigid') a = fallback;
      else {
        const vx = x[d.to] - x[d.from];
        const vy = y[d.to] - y[d.from];
        a = vx * vx + vy * vy > 1e-18 ? Math.atan2(vy, vx) - this.restAngle[j] : fallback;
        if (d.fan) {
          // arm fans keep to their side (FAN_SECTOR); a copy further down the arm (the hands) turns with its own
          if (d.sector) {
            // FAN_SECTOR (inlined: doubles passed to or returned from a call V8 does not inline are boxed, and
            // this runs every frame). Side angle sigma (sideAngle): 0 hanging along the body, pi/2 level, pi
            // straight up, in the girdle's frame (the parent's turn). The copies sit at psi + s o_k (psi the
            // person's arm: rest angle + a, as the fan's mean takes the person's direction; o_k the drawn
            // offsets from the mean); when that leaves [FAN_LOW, FAN_HIGH] the spread s shrinks (not below
            // FAN_MIN_SPREAD), then the fan's centre moves inside: no copy crosses the body below or the head
            // above, and the copies keep their drawn order without meeting.
            const m = d.sector;
            const o = this.fanOffset[j];
            const oMin = this.fanMin[j];
            const oMax = this.fanMax[j];
            let psi = m * (this.restAngle[j] + a - (Math.PI / 2 + (p < 0 ? 0 : th[p])));
            while (psi >= 1.5 * Math.PI) psi -= 2 * Math.PI;
            while (psi < -0.5 * Math.PI) psi += 2 * Math.PI;
            let sp = 1;
            if (oMax > 0 && psi + oMax > FAN_HIGH)
              sp = Math.max(FAN_MIN_SPREAD, Math.min(1, (FAN_HIGH - psi) / oMax));
            if (oMin < 0 && psi + sp * oMin < FAN_LOW)
              sp = Math.min(sp, Math.max(FAN_MIN_SPREAD, (psi - FAN_LOW) / -oMin));
            const cen = Math.min(Math.max(psi, FAN_LOW - sp * oMin), FAN_HIGH - sp * oMax);
            // sigma = m (angle - down): a change d sigma is a turn m d sigma
            this.fanFix[j] = m * (cen + sp * o - (psi + o));
          } else this.fanFix[j] = p < 0 ? 0 : this.fanFix[p];
          a += this.fanFix[j];
        }
      }
      th[j] = a;
      if (p < 0) {
        out.x[j] = this.restX[j] + tX;
        out.y[j] = this.restY[j] + tY;
        this.write(transforms, j, a, j, out);
        continue;
      }
      const c = Math.cos(a);
      const s = Math.sin(a);
      // posed[j] = posed[p] + R d = rest[j] + (posed[p] - rest[p]) + (R - I) d: exact at the rest pose.
      const ox = out.x[p] - this.restX[p];
      const oy = out.y[p] - this.restY[p];
      out.x[j] = this.restX[j] + ox + ((c - 1) * this.dx[j] - s * this.dy[j]);
      out.y[j] = this.restY[j] + oy + (s * this.dx[j] + (c - 1) * this.dy[j]);
      this.write(transforms, j, a, p, out);
    }
    if (this.skeleton === STANDARD) {
      out.confidence.set(pose.confidence);
      out.state.set(pose.state);
      return;
    }
    const reports = this.skeleton.reports;
    for (let j = 0; j < N; j++) {
      const r = reports[j];
      const p = this.parents[j];
      const k = r >= 0 || p < 0 ? Math.max(r, 0) : -1;
      out.confidence[j] = k >= 0 ? pose.confidence[k] : out.confidence[p];
      out.state[j] = k >= 0 ? pose.state[k] : out.state[p];
    }
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

/**
 * An arm fan's sector (DrawingRig.pose), side angles: from hanging along the body (0) to 60 degrees above
 * level (150 degrees). Above it the six-armed child's top arm crossed its face in the wave (frame 15 of the
 * default recording); below 0 the lowest arms crossed over the shorts while the person's arms hung (frames 0,
 * 75, 172). FAN_MIN_SPREAD: the fan may close to half its drawn spread against a bound, so the copies stay
 * apart.
 */
const FAN_LOW = 0;
const FAN_HIGH = (5 * Math.PI) / 6;
const FAN_MIN_SPREAD = 0.5;

/** (-pi, pi]. */
function wrapPi(a: number): number {
  let r = a;
  while (r > Math.PI) r -= 2 * Math.PI;
  while (r <= -Math.PI) r += 2 * Math.PI;
  return r;
}

/**
 * Side angle of a bone at image angle `a` (y down) on side m (1 the character's right, image left; -1 its
 * left) of a body turned by `turn`: m (a - (pi/2 + turn)) wrapped to [-pi/2, 3 pi/2): 0 along the body
 * downwards, pi/2 level outwards, pi straight up, negative across the body below.
 */
function sideAngle(m: 1 | -1, a: number, turn: number): number {
  let r = m * (a - (Math.PI / 2 + turn));
  while (r >= 1.5 * Math.PI) r -= 2 * Math.PI;
  while (r < -0.5 * Math.PI) r += 2 * Math.PI;
  return r;
}

/** Angle of the line b -> a in the pose minus `rest`; `fallback` when a and b coincide. */
function lineAngle(pose: JointSet, a: number, b: number, rest: number, fallback: number): number {
  const vx = pose.x[a] - pose.x[b];
  const vy = pose.y[a] - pose.y[b];
  return vx * vx + vy * vy > 1e-18 ? Math.atan2(vy, vx) - rest : fallback;
}

/** Mean length of the segments (index pairs) over x, y; 0 for none. One segment: its length exactly. */
function meanLength(
  pairs: readonly (readonly [number, number])[],
  x: ArrayLike<number>,
  y: ArrayLike<number>,
): number {
  if (pairs.length === 0) return 0;
  let sum = 0;
  for (const [a, b] of pairs) sum += Math.hypot(x[b] - x[a], y[b] - y[a]);
  return sum / pairs.length;
}

/** The joint names of a rig's skeleton (PUPPET_JOINTS for a standard character). */
export function rigJointNames(rig: DrawingRig): readonly string[] {
  return rig.skeleton === STANDARD ? PUPPET_JOINTS : rig.skeleton.names;
}
