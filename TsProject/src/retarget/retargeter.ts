/**
 * World-rotation offset retargeting from a source skeleton onto a target skeleton.
 *
 * Calibration (both skeletons in the same reference pose, see referencePose.ts):
 *   `offset_t = inverse(sourceWorld_s) * targetWorld_t` for each target bone t driven by source bone s.
 * Run time: `targetWorld_t = sourceWorld_s * offset_t`, then converted to local rotations
 * (`local_t = inverse(targetWorld_parent) * targetWorld_t`). Target bones without a driver keep their
 * reference-pose local rotation (so an optional bone missing on the source stays neutral, and a bone
 * missing on the target is folded into its nearest driven descendant, whose world rotation is exact).
 *
 * Drivers: humanoid bones drive the same humanoid bone; the spine chain (bones strictly between Hips
 * and Neck, or Head without a neck) and the neck chain (Neck up to Head) are distributed when their
 * lengths differ: target chain bone j of k is driven by source chain bone `ceil((j + 1) * m / k) - 1`
 * of m, i.e. the source chain is split into k groups and each target bone follows its group's last
 * bone, so the chain end (where the arms and head attach) always matches. Each such target bone is
 * then swung (keeping its twist) so its segment ends at the source chain's point of the same
 * arc-length fraction (carried to the target chain start and scaled by the chain length ratio): the
 * target spine follows the source spine's curve and the hips-to-neck direction is kept (`ChainFit`). Unmapped target bones whose
 * name and parent's name equal an unmapped source bone's follow that bone (helper bones, self copies).
 *
 * Hips position: `scaled` (offline default) multiplies the source hips path by the hips-height ratio
 * `k = avatarScale * H_target / H_source` (H = hips height above the ankles in the reference pose,
 * legs straight), so strides fit the legs; `room` (live default) keeps the source
 * hips position and adds the leg-length difference `avatarScale * H_target - H_source` to its height,
 * so the avatar stands where the performer stands. Both assume the floor of each skeleton at y = 0.
 *
 * IK-style rigs whose humanoid bones do not hang below their humanoid parents (an IK foot under the
 * armature root) are retargeted on a virtual hierarchy and converted back (virtualHierarchy.ts).
 *
 * Frames: all world quantities are in the canonical frame of DESIGN.md (Y up, metres). A source whose
 * up axis is not +Y (a Z-up BVH) is turned by a fixed rotation `A` at its roots before anything else.
 */
import { quat, vec3 } from 'gl-matrix';
import {
  type Clip,
  createClip,
  DEG2RAD,
  forwardKinematics,
  fromTo,
  HumanBodyBones as H,
  HUMAN_BONE_COUNT,
  type NumArray,
  qcopy,
  qmul,
  qmulByConj,
  qmulConj,
  qnormalize,
  quat64,
  quatFromEuler,
  readFrame,
  readQuat,
  type Skeleton,
  vec64,
  vrotate,
  writeFrame,
  writeQuat,
} from '../core';
import {
  bodyFrame,
  bodyToCanonical,
  canonicalPose,
  chainBetween,
  isStandingPose,
  poseGeometry,
  type ReferencePose,
  ReferencePoseError,
  type ReferencePoseKind,
} from './referencePose';
import { type VirtualHierarchy, virtualizeHumanoid } from './virtualHierarchy';

export type HipsMode = 'scaled' | 'room';
/** Up axis of the source data: 'auto' detects it from the reference base pose (hips -> head). */
export type UpAxis = 'auto' | '+x' | '-x' | '+y' | '-y' | '+z' | '-z';

export interface RetargetOptions {
  /** Hips position mode; default 'scaled'. */
  hipsMode?: HipsMode;
  /** Canonical pose both skeletons are calibrated in; default 'T'. */
  referencePose?: ReferencePoseKind;
  /**
   * Where the source reference pose comes from. 'auto' (default): the source rest pose when it looks
   * like a standing humanoid, otherwise the first frame given to `calibrate`, straightened into the
   * canonical pose. `{ frame }`: that frame of the source taken AS IS as the performer's T- or I-pose
   * (live-style calibration); the target is put in its canonical pose facing the same way.
   */
  sourceReference?: 'auto' | 'rest' | 'first-frame' | { asIs: true };
  /** Up axis of the source data; default 'auto'. */
  sourceUp?: UpAxis;
  /**
   * Uniform scale of the target avatar (1 = as authored), applied as a scale on the hips node: it scales
   * the hips height used by both modes and every world position below the hips. The output's local
   * translations stay unscaled (the writer puts the scale on the hips node; see `scaleSubtrees` for BVH).
   */
  avatarScale?: number;
  /** Uniform scale of the head (1 = as authored), applied as a scale on the head node. */
  headScale?: number;
  /**
   * The shoulders' (clavicles') twist about their own axis: 'keep' (default) copies the source's, so a
   * skeleton retargeted onto itself is unchanged; 'drop' keeps only their swing relative to the reference
   * pose, as Unity's Humanoid does (its shoulder has Down-Up and Front-Back muscles and no twist:
   * https://docs.unity3d.com/Manual/MuscleDefinitions.html). Mocap solvers often roll the clavicle tens of
   * degrees about its axis (the Bandai takes by about 90 degrees), which twists the shoulder's skin: with
   * 'drop' the clavicle's direction, every joint position and every other bone's world rotation stay the
   * same (the upper arm's local rotation takes the roll over).
   */
  shoulderTwist?: 'drop' | 'keep';
  /**
   * Height of the source's ankle (humanoid Foot joint) when the foot is on the floor, metres in the
   * up-aligned source world. When given, the hips height is measured from that level instead of y = 0,
   * and the target's own level (its lower ankle in its rest pose, which stands on y = 0) is added
   * back: a planted source foot gives a planted target foot whatever the rigs' ankle heights. `retargetClip` estimates it from the clip with `groundContact: true`. Default 0 (floors at
   * y = 0, joints at the floor: pure scaling of the hips path).
   */
  sourceContactHeight?: number;
  /**
   * Head rotation offset, degrees `(x, y, z)` as Unity's `Quaternion.Euler` (applied Z, then X, then Y),
   * about the head's reference-pose axes (X the character's left, Y up, Z forward).
   */
  headRotationOffset?: [number, number, number];
}

export class RetargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RetargetError';
  }
}

/** What calibration found; reported in summaries. */
export interface CalibrationInfo {
  sourceReference: 'rest' | 'first-frame' | 'frame-as-is';
  sourceUp: Exclude<UpAxis, 'auto'>;
  /** The up axis the calibration frame shows (hips -> head), whatever `sourceUp` was asked for. */
  detectedSourceUp: Exclude<UpAxis, 'auto'>;
  sourceHipsHeight: number;
  targetHipsHeight: number;
  /** Floor contact level of the source's ankles used for the hips height, metres (0 = floor at y 0). */
  sourceContactHeight: number;
  /** The target's lower ankle height in its rest pose when contact levels are used, else 0. */
  targetContactHeight: number;
  /** Scale on the source hips path in 'scaled' mode: avatarScale * H_target / H_source. */
  hipsScale: number;
  /** Height added to the source hips in 'room' mode, metres (leg-length difference, contact levels included). */
  roomLift: number;
  /** Driver source bone name per target bone name, for bones that have one. */
  drivers: Record<string, string>;
  /** Target humanoid bones re-parented for retargeting (IK-style rigs), see virtualHierarchy.ts. */
  detachedTargetBones: string[];
  /** Spine/neck chains fitted to the source chain's shape. */
  fittedChains: string[];
}

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

/**
 * Retargets poses of `source` onto `target`. Create, call {@link Retargeter.calibrate} once, then
 * {@link Retargeter.retargetPose} per frame (allocation-free).
 */
export class Retargeter {
  readonly source: Skeleton;
  readonly target: Skeleton;
  readonly options: Required<Omit<RetargetOptions, 'headRotationOffset' | 'sourceContactHeight'>> & {
    headRotationOffset: [number, number, number];
    sourceContactHeight: number | undefined;
  };
  /** Source bone driving each target bone, -1 for none. */
  readonly drivers: Int32Array;
  /** Target reference-pose local rotations `4n` (undriven bones keep these). */
  targetReference: ReferencePose | null = null;
  sourceReference: ReferencePose | null = null;
  info: CalibrationInfo | null = null;

  /** Target and source with IK-style detached humanoid bones re-parented (see virtualHierarchy.ts). */
  private readonly vt: VirtualHierarchy;
  private readonly vs: VirtualHierarchy;
  /** Source bone (real index) driving each virtual target bone, -1 for none. */
  private readonly vDrivers: Int32Array;
  private readonly offsets: Float64Array;
  private readonly undrivenLocal: Float64Array;
  /** Chains fitted to the source chain's shape (spine/neck when bone counts differ). */
  private readonly fits: ChainFit[];
  /** Virtual target bone -> index into `fitOf` entries (-1 none). */
  private readonly fitOf: Int32Array;
  private readonly fitSegment: Int32Array;
  private readonly q2 = quat64();
  private readonly v3 = vec64();
  private readonly headOffset = quat64();
  /** Per shoulder (left, right): virtual bone index, or -1 when twist is kept or the bone is absent. */
  private readonly shoulderBones = new Int32Array([-1, -1]);
  /** Per shoulder: reference local rotation (4) and the unit bone axis in its own frame (3), 8 values. */
  private readonly shoulderData = new Float64Array(16);
  /** Scratch for dropShoulderTwist: D (4) and the twist (4). */
  private readonly twistScratch = new Float64Array(8);
  private readonly alignSource: Float64Array = new Float64Array([0, 0, 0, 1]);
  private hipsScale = 1;
  private roomLift = 0;
  private sourceContact = 0;
  private targetContact = 0;
  private srcHipsHeight = 1;
  private tgtHipsHeight = 1;
  private tgtRestContact = 0;
  private calibrated = false;
  // scratch (per frame)
  private readonly sRot: Float64Array;
  private readonly sWorldRot: Float64Array;
  private readonly sWorldPos: Float64Array;
  private readonly tWorldRot: Float64Array;
  private readonly tWorldPos: Float64Array;
  private readonly vWorldRot: Float64Array;
  private readonly vWorldPos: Float64Array;
  /** 1 for real target bones whose translation is output from world positions (re-parented IK bones). */
  private readonly movedReal: Uint8Array;
  /** Factor on each virtual bone's rest translation for world positions (avatar and head scale). */
  private readonly translationScale: Float64Array;
  /**
   * 1 for virtual bones whose world pose anything reads: driven bones, the body's humanoid bones
   * (hips, spine to head, limbs, hands, feet) and their ancestors. Undriven bones outside it (fingers
   * without a source, toe ends, helper leaves) keep a constant local rotation and are skipped by the
   * hub's per-frame passes.
   */
  readonly worldNeeded: Uint8Array;
  /** Incremented by every calibration (callers caching calibration-dependent values compare it). */
  calibrationSerial = 0;
  /** Bone indices in order: all, those with worldNeeded 1, those with 0 (loop lists, no per-bone test). */
  private readonly allBones: Int32Array;
  private readonly neededBones: Int32Array;
  private readonly unneededBones: Int32Array;
  private readonly q0 = quat64();
  private readonly q1 = quat64();
  private readonly v1 = vec64();

  constructor(source: Skeleton, target: Skeleton, options: RetargetOptions = {}) {
    for (const [sk, which] of [
      [source, 'source'],
      [target, 'target'],
    ] as const) {
      const missing = [H.Hips, H.Head, H.LeftUpperLeg, H.RightUpperLeg, H.LeftFoot, H.RightFoot].filter(
        (h) => sk.humanoid[h] < 0,
      );
      if (missing.length > 0) {
        const names = missing.map((h) => Object.keys(H).find((k) => H[k as keyof typeof H] === h));
        throw new RetargetError(`${which} skeleton has no ${names.join(', ')} in its humanoid map`);
      }
    }
    this.source = source;
    this.target = target;
    const avatarScale = options.avatarScale ?? 1;
    if (!(avatarScale > 0) || !Number.isFinite(avatarScale)) {
      throw new RetargetError(`avatarScale ${avatarScale}: need a positive number`);
    }
    const headScale = options.headScale ?? 1;
    if (!(headScale > 0) || !Number.isFinite(headScale))
      throw new RetargetError(`headScale ${headScale}: need a positive number`);
    const head = options.headRotationOffset ?? [0, 0, 0];
    if (head.length !== 3 || !head.every(Number.isFinite)) {
      throw new RetargetError('headRotationOffset: need three finite angles in degrees');
    }
    this.options = {
      hipsMode: options.hipsMode ?? 'scaled',
      referencePose: options.referencePose ?? 'T',
      sourceReference: options.sourceReference ?? 'auto',
      sourceUp: options.sourceUp ?? 'auto',
      avatarScale,
      headRotationOffset: [head[0], head[1], head[2]],
      headScale,
      sourceContactHeight: options.sourceContactHeight,
      shoulderTwist: options.shoulderTwist ?? 'keep',
    };
    if (this.options.shoulderTwist !== 'drop' && this.options.shoulderTwist !== 'keep')
      throw new RetargetError(`shoulderTwist: ${String(this.options.shoulderTwist)} is not 'drop' or 'keep'`);
    this.vt = virtualizeHumanoid(target);
    this.vs = virtualizeHumanoid(source);
    const vdrivers = computeDrivers(this.vs.skeleton, this.vt.skeleton);
    this.vDrivers = vdrivers.map((s) => (s >= 0 ? this.vs.realOf[s] : -1));
    this.drivers = new Int32Array(target.boneCount).fill(-1);
    this.vDrivers.forEach((s, v) => {
      this.drivers[this.vt.realOf[v]] = s;
    });
    const nt = target.boneCount;
    const ns = source.boneCount;
    this.fits = buildChainFits(this.vs, this.vt.skeleton);
    this.fitOf = new Int32Array(nt).fill(-1);
    this.fitSegment = new Int32Array(nt).fill(-1);
    this.fits.forEach((fit, k) => {
      fit.targetBones.forEach((b, j) => {
        this.fitOf[b] = k;
        this.fitSegment[b] = j;
      });
    });
    this.offsets = new Float64Array(4 * nt);
    this.undrivenLocal = new Float64Array(4 * nt);
    this.sRot = new Float64Array(4 * ns);
    this.sWorldRot = new Float64Array(4 * ns);
    this.sWorldPos = new Float64Array(3 * ns);
    this.vWorldRot = new Float64Array(4 * nt);
    this.vWorldPos = new Float64Array(3 * nt);
    // with no re-parented bones the virtual order is the real one: share the world arrays
    this.tWorldRot = this.vt.identity ? this.vWorldRot : new Float64Array(4 * nt);
    this.tWorldPos = this.vt.identity ? this.vWorldPos : new Float64Array(3 * nt);
    this.movedReal = new Uint8Array(nt);
    for (const b of this.vt.detached) this.movedReal[b] = 1;
    this.translationScale = new Float64Array(nt).fill(1);
    this.updateTranslationScale();
    const vtk = this.vt.skeleton;
    this.worldNeeded = new Uint8Array(nt);
    const body = [
      H.Hips,
      H.Spine,
      H.Chest,
      H.UpperChest,
      H.Neck,
      H.Head,
      H.LeftShoulder,
      H.RightShoulder,
      H.LeftUpperArm,
      H.RightUpperArm,
      H.LeftLowerArm,
      H.RightLowerArm,
      H.LeftHand,
      H.RightHand,
      H.LeftUpperLeg,
      H.RightUpperLeg,
      H.LeftLowerLeg,
      H.RightLowerLeg,
      H.LeftFoot,
      H.RightFoot,
      H.LeftToes,
      H.RightToes,
    ];
    const mark = (b: number) => {
      for (let a = b; a >= 0 && this.worldNeeded[a] === 0; a = vtk.parents[a]) this.worldNeeded[a] = 1;
    };
    for (const h of body) if (vtk.humanoid[h] >= 0) mark(vtk.humanoid[h]);
    this.vDrivers.forEach((src, t) => {
      if (src >= 0) mark(t);
    });
    for (const b of this.vt.detached) mark(this.vt.virtualOf[b]);
    const all = Array.from({ length: nt }, (_, t) => t);
    this.allBones = Int32Array.from(all);
    this.neededBones = Int32Array.from(all.filter((t) => this.worldNeeded[t] === 1));
    this.unneededBones = Int32Array.from(all.filter((t) => this.worldNeeded[t] === 0));
  }

  /**
   * World positions below the hips scale with the avatar (the hips node carries the avatar scale),
   * and below the head also with the head scale (the head node carries it).
   */
  private updateTranslationScale(): void {
    const vtk = this.vt.skeleton;
    const vh = vtk.humanoid[H.Hips];
    const vhead = vtk.humanoid[H.Head];
    for (let t = 0; t < vtk.boneCount; t++) {
      let f = 1;
      for (let a = vtk.parents[t]; a >= 0; a = vtk.parents[a]) {
        if (a === vh) f *= this.options.avatarScale;
        if (a === vhead) f *= this.options.headScale;
      }
      this.translationScale[t] = f;
    }
  }

  /** Hips scale, room lift and target contact level from the calibrated heights and the current scale. */
  private updateScaleTerms(): void {
    const scale = this.options.avatarScale;
    this.hipsScale = (scale * this.tgtHipsHeight) / this.srcHipsHeight;
    this.targetContact = scale * this.tgtRestContact;
    this.roomLift =
      scale * this.tgtHipsHeight + this.targetContact - (this.srcHipsHeight + this.sourceContact);
    if (this.info) {
      this.info.hipsScale = this.hipsScale;
      this.info.roomLift = this.roomLift;
      this.info.targetHipsHeight = scale * this.tgtHipsHeight;
      this.info.targetContactHeight = this.targetContact;
    }
  }

  /**
   * Change the avatar scale (0.1..3 live; any positive value here) without recalibrating: the hips
   * height terms and world positions below the hips follow from the next pose on. Set-up cost, not
   * per frame.
   * @throws RetargetError on a non-positive or non-finite scale.
   */
  setAvatarScale(scale: number): void {
    if (!(scale > 0) || !Number.isFinite(scale))
      throw new RetargetError(`avatarScale ${scale}: need a positive number`);
    this.options.avatarScale = scale;
    this.updateTranslationScale();
    if (this.calibrated) this.updateScaleTerms();
  }

  /** Change the head scale (world positions below the head follow). @throws RetargetError on a bad value. */
  setHeadScale(scale: number): void {
    if (!(scale > 0) || !Number.isFinite(scale))
      throw new RetargetError(`headScale ${scale}: need a positive number`);
    this.options.headScale = scale;
    this.updateTranslationScale();
  }

  /**
   * Change the head rotation offset (degrees, as Unity's Quaternion.Euler, about the head's reference
   * axes) without recalibrating. @throws RetargetError on non-finite angles.
   */
  setHeadRotationOffset(x: number, y: number, z: number): void {
    if (![x, y, z].every(Number.isFinite))
      throw new RetargetError('headRotationOffset: need three finite angles in degrees');
    this.options.headRotationOffset = [x, y, z];
    if (this.calibrated) this.updateHeadOffset();
  }

  private updateHeadOffset(): void {
    const [hx, hy, hz] = this.options.headRotationOffset;
    quatFromEuler(this.headOffset, hy * DEG2RAD, hx * DEG2RAD, hz * DEG2RAD, 'YXZ');
    const ref = this.targetReference!;
    const refHead = readQuat(quat64(), ref.world.rotations, this.vt.skeleton.humanoid[H.Head]);
    const inv = quat.invert(quat64(), refHead);
    quat.multiply(this.headOffset, inv, quat.multiply(quat64(), this.headOffset, refHead));
  }

  /** The head rotation offset as a quaternion in the head's local frame (`W_head * q`), into `out`. */
  headOffsetQuat(out: NumArray): void {
    qcopy(out, 0, this.headOffset, 0);
  }

  /** Local rotations `4 * sourceBones` of the last source pose (normalised; roots as given, not turned upright). */
  get lastSourceLocalRotations(): Float64Array {
    return this.sRot;
  }

  /** Factor on each virtual bone's rest translation for world positions (avatar and head scale). */
  get translationScales(): Float64Array {
    return this.translationScale;
  }

  /** The calibrated offset (quaternion) of real target bone `bone` into `out`; identity for undriven bones. */
  getOffset(bone: number, out: NumArray): void {
    qcopy(out, 0, this.offsets, 4 * this.vt.virtualOf[bone]);
  }

  /**
   * Replace the calibrated offset of real target bone `bone` (e.g. from saved settings or a hot-reload
   * state). A quaternion already unit to rounding (`|q|^2` within 1e-12 of 1, as {@link getOffset}
   * gives) is kept bit for bit, so export -> import restores the offsets exactly (renormalising a
   * unit-to-rounding quaternion moves its last bits); any other is normalised.
   */
  setOffset(bone: number, q: ArrayLike<number>): void {
    const o = 4 * this.vt.virtualOf[bone];
    for (let k = 0; k < 4; k++) this.offsets[o + k] = q[k];
    const d = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (!(Math.abs(d - 1) <= 1e-12)) qnormalize(this.offsets, o);
  }

  /** True once calibrate() has run. */
  get isCalibrated(): boolean {
    return this.calibrated;
  }

  /** The skeleton the retargeter poses internally (IK-style bones re-parented), and its bone maps. */
  get virtual(): VirtualHierarchy {
    return this.vt;
  }

  /**
   * The internal world pose of the last `computeVirtualPose` / `retargetPose`: rotations `4n` and
   * positions `3n` in the virtual skeleton's bone order. Callers (the hub) may edit them and then call
   * {@link Retargeter.writeOutput}.
   */
  get virtualWorldRotations(): Float64Array {
    return this.vWorldRot;
  }
  get virtualWorldPositions(): Float64Array {
    return this.vWorldPos;
  }

  /**
   * Calibrate. `firstFrame` (source local rotations `4n` and translations `3n`, metres) is the frame
   * used to detect the source's up axis, and the base of the source reference pose when the source
   * reference is 'first-frame', 'auto' with a non-standing rest pose, or `{ asIs: true }` (then it is
   * the performer's T/I-pose as is). Without it, the rest pose stands in.
   * @throws RetargetError when no usable reference pose can be built (the message says why).
   */
  calibrate(firstFrame?: { rotations: ArrayLike<number>; translations: ArrayLike<number> }): CalibrationInfo {
    const src = this.source;
    const tgt = this.target;
    const vsk = this.vs.skeleton;
    const vtk = this.vt.skeleton;
    const kind = this.options.referencePose;
    const mode = this.options.sourceReference;
    const asIs = typeof mode === 'object';
    const frame = firstFrame ?? { rotations: src.restRotations, translations: src.restTranslations };
    if (frame.rotations.length !== 4 * src.boneCount || frame.translations.length !== 3 * src.boneCount) {
      throw new RetargetError(
        `calibration frame: expected ${4 * src.boneCount} rotations and ${3 * src.boneCount} translations for ${src.boneCount} source bones`,
      );
    }
    // Source up axis from the frame (how the data's world is oriented), not from the rest pose:
    // a BVH's rest pose may lie along another axis than its motion (Bandai Namco: rest along +X).
    const frameGeo = poseGeometry(src, frame.rotations, frame.translations);
    const hb = 3 * src.humanoid[H.Hips];
    const hd = 3 * src.humanoid[H.Head];
    const fp = frameGeo.positions;
    const detectedUp = nearestAxis([fp[hd] - fp[hb], fp[hd + 1] - fp[hb + 1], fp[hd + 2] - fp[hb + 2]]);
    const up: Exclude<UpAxis, 'auto'> = this.options.sourceUp === 'auto' ? detectedUp : this.options.sourceUp;
    this.alignSource.set(upAxisRotation(up));

    let which: CalibrationInfo['sourceReference'] = 'rest';
    let baseRot: ArrayLike<number> = src.restRotations;
    let baseTrans: ArrayLike<number> = src.restTranslations;
    const restStanding = isStandingPose(vsk, poseGeometry(vsk, vsk.restRotations, vsk.restTranslations));
    if (asIs || mode === 'first-frame' || (mode === 'auto' && !restStanding)) {
      if (!firstFrame && !restStanding) {
        throw new RetargetError(
          'the source rest pose is not a standing humanoid and no frame was given to calibrate on',
        );
      }
      baseRot = frame.rotations;
      baseTrans = frame.translations;
      which = asIs ? 'frame-as-is' : 'first-frame';
    }
    const alignedRot = Float64Array.from(baseRot);
    const alignedTrans = Float64Array.from(baseTrans);
    this.alignRoots(alignedRot, alignedTrans);
    const vbase = toVirtualPose(this.vs, src, alignedRot, alignedTrans);

    let srcRefWorldV: Float64Array;
    let srcHips: number;
    let tgtRef: ReferencePose;
    let failing: 'source' | 'target' = 'target';
    try {
      tgtRef = canonicalPose(vtk, { kind });
      failing = 'source';
      if (asIs) {
        const g = poseGeometry(vsk, vbase.rotations, vbase.translations);
        srcRefWorldV = g.rotations;
        srcHips = canonicalPose(vsk, {
          kind,
          baseRotations: vbase.rotations,
          baseTranslations: vbase.translations,
        }).hipsHeight;
        // Face the target the way the performer faces in that frame: rotate its canonical pose by inverse(G_src).
        const Ginv = quat.invert(quat64(), bodyToCanonical(bodyFrame(vsk, g)));
        const w = tgtRef.world.rotations;
        for (let i = 0; i < vtk.boneCount; i++) {
          readQuat(this.q0, w, i);
          quat.multiply(this.q0, Ginv, this.q0);
          writeQuat(w, i, this.q0);
        }
        this.sourceReference = null;
      } else {
        const sref = canonicalPose(vsk, {
          kind,
          baseRotations: vbase.rotations,
          baseTranslations: vbase.translations,
        });
        this.sourceReference = sref;
        srcRefWorldV = sref.world.rotations;
        srcHips = sref.hipsHeight;
      }
    } catch (e) {
      if (e instanceof ReferencePoseError)
        throw new RetargetError(`calibration of the ${failing} skeleton: ${e.message}`);
      throw e;
    }
    this.targetReference = tgtRef;
    this.setUpShoulderTwist(tgtRef);
    const tgtHips = tgtRef.hipsHeight;
    if (!(srcHips > 1e-6)) {
      throw new RetargetError(
        `calibration: the source hips are not above its feet in the reference pose (hips height ${srcHips} m); cannot scale the hips path`,
      );
    }
    if (!(tgtHips > 1e-6)) {
      throw new RetargetError(
        `calibration: the target hips are not above its feet (hips height ${tgtHips} m)`,
      );
    }

    // Offsets (virtual target index; the driver is a real source bone) and undriven locals.
    for (let t = 0; t < vtk.boneCount; t++) {
      const s = this.vDrivers[t];
      if (s >= 0) {
        readQuat(this.q0, srcRefWorldV, this.vs.virtualOf[s]);
        quat.invert(this.q0, this.q0);
        readQuat(this.q1, tgtRef.world.rotations, t);
        quat.multiply(this.q0, this.q0, this.q1);
        quat.normalize(this.q0, this.q0);
        writeQuat(this.offsets, t, this.q0);
      }
      // Roots keep their authored rest rotation; other undriven bones their reference-pose local.
      const from = vtk.parents[t] < 0 ? vtk.restRotations : tgtRef.localRotations;
      for (let k = 0; k < 4; k++) this.undrivenLocal[4 * t + k] = from[4 * t + k];
    }
    // Head offset, in the head's reference frame: inverse(refW) * R * refW, R as Unity's Quaternion.Euler.
    this.updateHeadOffset();

    this.srcHipsHeight = srcHips;
    this.tgtHipsHeight = tgtHips;
    this.tgtRestContact =
      this.options.sourceContactHeight !== undefined
        ? lowestFootJointHeight(tgt, poseGeometry(tgt, tgt.restRotations, tgt.restTranslations))
        : 0;
    this.sourceContact = this.options.sourceContactHeight ?? 0;
    this.updateScaleTerms();
    const scale = this.options.avatarScale;
    this.calibrated = true;
    this.calibrationSerial++;
    const drivers: Record<string, string> = {};
    this.drivers.forEach((s, t) => {
      if (s >= 0) drivers[tgt.names[t]] = src.names[s];
    });
    this.info = {
      sourceReference: which,
      sourceUp: up,
      detectedSourceUp: detectedUp,
      sourceHipsHeight: srcHips,
      targetHipsHeight: scale * tgtHips,
      sourceContactHeight: this.sourceContact,
      targetContactHeight: this.targetContact,
      hipsScale: this.hipsScale,
      roomLift: this.roomLift,
      drivers,
      detachedTargetBones: this.vt.detached.map((b) => tgt.names[b]),
      fittedChains: this.fits.map(
        (f) => `${f.targetBones.length} target bones on ${f.sourcePoints.length - 1} source segments`,
      ),
    };
    return this.info;
  }

  /** Rotate the source roots by the up-axis alignment (rotations and translations, in place). */
  private alignRoots(rot: Float64Array, pos: Float64Array): void {
    alignRoots(this.source, rot, pos, this.alignSource);
  }

  /**
   * Point along a fitted chain's source polyline (source world) at the arc fraction of target chain
   * segment end `joint` (`fit.targetCum[joint]`), into `out`. Takes an index, not the fraction: a double
   * argument to a call V8 does not inline is boxed (allocates). A call rather than inline code: without
   * a JIT the inline version measured about 10% slower per hub frame.
   */
  private chainPoint(fit: ChainFit, joint: number, out: vec3): void {
    const u = fit.targetCum[joint];
    const pts = fit.sourcePoints;
    const cum = fit.sourceCum;
    const P = this.sWorldPos;
    let i = 0;
    while (i < pts.length - 2 && cum[i + 1] < u) i++;
    const span = cum[i + 1] - cum[i];
    const f = span > 0 ? (u - cum[i]) / span : 0;
    const a = 3 * pts[i];
    const b = 3 * pts[i + 1];
    out[0] = P[a] + (P[b] - P[a]) * f;
    out[1] = P[a + 1] + (P[b + 1] - P[a + 1]) * f;
    out[2] = P[a + 2] + (P[b + 2] - P[a + 2]) * f;
  }

  /**
   * Retarget one pose. Inputs: source local rotations `4 * sourceBones` and translations
   * `3 * sourceBones` (metres, source file frame). Outputs: target local rotations `4 * targetBones`
   * and translations `3 * targetBones` (metres; rest translations except the hips and re-parented IK
   * bones). Allocates nothing.
   * @throws RetargetError when called before calibrate().
   */
  retargetPose(
    srcLocalRot: ArrayLike<number>,
    srcLocalPos: ArrayLike<number>,
    outLocalRot: NumArray,
    outLocalPos: NumArray,
  ): void {
    this.computeVirtualPose(srcLocalRot, srcLocalPos);
    this.writeRealPose(outLocalRot, outLocalPos);
  }

  /**
   * The shoulders whose twist is dropped (RetargetOptions.shoulderTwist): reference local rotation and
   * the unit direction to the upper arm in the shoulder's own frame, from the target reference pose.
   */
  private setUpShoulderTwist(ref: ReferencePose): void {
    const vtk = this.vt.skeleton;
    this.shoulderBones.fill(-1);
    if (this.options.shoulderTwist !== 'drop') return;
    const pairs = [
      [H.LeftShoulder, H.LeftUpperArm],
      [H.RightShoulder, H.RightUpperArm],
    ];
    const W = ref.world.rotations;
    const P = ref.world.positions;
    for (let k = 0; k < 2; k++) {
      const t = vtk.humanoid[pairs[k][0]];
      const u = vtk.humanoid[pairs[k][1]];
      if (t < 0 || u < 0 || vtk.parents[t] < 0) continue;
      const d = vec64();
      d[0] = P[3 * u] - P[3 * t];
      d[1] = P[3 * u + 1] - P[3 * t + 1];
      d[2] = P[3 * u + 2] - P[3 * t + 2];
      const q = readQuat(quat64(), W, t);
      vec3.transformQuat(d, d, quat.invert(quat64(), q));
      const l = Math.hypot(d[0], d[1], d[2]);
      if (!(l > 1e-9)) continue;
      const o = 8 * k;
      for (let c = 0; c < 4; c++) this.shoulderData[o + c] = ref.localRotations[4 * t + c];
      this.shoulderData[o + 4] = d[0] / l;
      this.shoulderData[o + 5] = d[1] / l;
      this.shoulderData[o + 6] = d[2] / l;
      this.shoulderBones[k] = t;
    }
  }

  /**
   * Drop shoulder `k`'s twist in place on world rotation `W[4t]` (parent `p`): with the local rotation
   * relative to the reference `D = inverse(R) * inverse(W_p) * W = swing * twist` (twist about the bone
   * axis a, swing-twist decomposition as in core/quat.ts), `W <- W * inverse(twist)`. The bone's
   * direction is unchanged (a twist about a leaves a fixed). Allocates nothing.
   */
  private dropShoulderTwist(W: Float64Array, t: number, p: number, k: number): void {
    const S = this.shoulderData;
    const o = 8 * k;
    const D = this.twistScratch;
    qmulConj(D, 0, W, 4 * p, W, 4 * t); // local L = conj(W_p) * W
    qmulConj(D, 0, S, o, D, 0); // D = conj(R) * L
    // twist = normalize((v.a) a, w)
    const pr = D[0] * S[o + 4] + D[1] * S[o + 5] + D[2] * S[o + 6];
    const n = Math.sqrt(pr * pr + D[3] * D[3]);
    if (!(n > 1e-12)) return; // a half-turn swing: no defined twist
    D[4] = (pr * S[o + 4]) / n;
    D[5] = (pr * S[o + 5]) / n;
    D[6] = (pr * S[o + 6]) / n;
    D[7] = D[3] / n;
    qmulByConj(W, 4 * t, W, 4 * t, D, 4); // W <- W * conj(twist)
  }

  /**
   * Write the local rotations of the bones outside {@link Retargeter.worldNeeded} (undriven and unread
   * by IK: their reference local rotations, constant between calibrations) into `outLocal`
   * (`Float64Array(4n)`, virtual order); other bones are left alone. For callers of
   * `computeVirtualPose(..., outLocal, true)`. Allocates nothing.
   * @throws RetargetError when called before calibrate().
   */
  writeUnneededLocal(outLocal: Float64Array): void {
    if (!this.calibrated) throw new RetargetError('writeUnneededLocal called before calibrate()');
    const un = this.unneededBones;
    const undriven = this.undrivenLocal;
    for (let i = 0; i < un.length; i++) {
      const o4 = 4 * un[i];
      outLocal[o4] = undriven[o4];
      outLocal[o4 + 1] = undriven[o4 + 1];
      outLocal[o4 + 2] = undriven[o4 + 2];
      outLocal[o4 + 3] = undriven[o4 + 3];
    }
  }

  /**
   * Source forward kinematics for computeVirtualPose: normalised local rotations into sRot, world
   * rotations and positions into sWorldRot/sWorldPos. A separate method: without a JIT the split
   * measured a few percent faster than one long function. Allocates nothing.
   */
  private sourceForward(srcLocalRot: ArrayLike<number>, srcLocalPos: ArrayLike<number>): void {
    const src = this.source;
    const sRot = this.sRot;
    // Source forward kinematics in one inline pass: each local quaternion is normalised once (float32
    // clips are unit only to 1e-7; every world rotation below is a product of these and unit offsets,
    // so it stays unit) and kept in sRot; roots are turned by the up-axis alignment A.
    const SW = this.sWorldRot;
    const SP = this.sWorldPos;
    const sParents = src.parents;
    const A = this.alignSource;
    const Ax = A[0];
    const Ay = A[1];
    const Az = A[2];
    const Aw = A[3];
    for (let i = 0; i < src.boneCount; i++) {
      const o4 = 4 * i;
      const o3 = 3 * i;
      let bx = srcLocalRot[o4];
      let by = srcLocalRot[o4 + 1];
      let bz = srcLocalRot[o4 + 2];
      let bw = srcLocalRot[o4 + 3];
      const l = Math.sqrt(bx * bx + by * by + bz * bz + bw * bw);
      bx /= l;
      by /= l;
      bz /= l;
      bw /= l;
      sRot[o4] = bx;
      sRot[o4 + 1] = by;
      sRot[o4 + 2] = bz;
      sRot[o4 + 3] = bw;
      const x = srcLocalPos[o3];
      const y = srcLocalPos[o3 + 1];
      const z = srcLocalPos[o3 + 2];
      const p = sParents[i];
      let qx: number;
      let qy: number;
      let qz: number;
      let qw: number;
      let ox: number;
      let oy: number;
      let oz: number;
      if (p < 0) {
        qx = Ax;
        qy = Ay;
        qz = Az;
        qw = Aw;
        ox = 0;
        oy = 0;
        oz = 0;
      } else {
        const p4 = 4 * p;
        const p3 = 3 * p;
        qx = SW[p4];
        qy = SW[p4 + 1];
        qz = SW[p4 + 2];
        qw = SW[p4 + 3];
        ox = SP[p3];
        oy = SP[p3 + 1];
        oz = SP[p3 + 2];
      }
      // position: origin + rotate(local translation) as v + 2w(u x v) + 2u x (u x v)
      const uvx = qy * z - qz * y;
      const uvy = qz * x - qx * z;
      const uvz = qx * y - qy * x;
      SP[o3] = ox + x + 2 * (qw * uvx + qy * uvz - qz * uvy);
      SP[o3 + 1] = oy + y + 2 * (qw * uvy + qz * uvx - qx * uvz);
      SP[o3 + 2] = oz + z + 2 * (qw * uvz + qx * uvy - qy * uvx);
      // rotation: parent (or A) * local
      SW[o4] = qx * bw + qw * bx + qy * bz - qz * by;
      SW[o4 + 1] = qy * bw + qw * by + qz * bx - qx * bz;
      SW[o4 + 2] = qz * bw + qw * bz + qx * by - qy * bx;
      SW[o4 + 3] = qw * bw - qx * bx - qy * by - qz * bz;
    }
  }

  /**
   * The first half of {@link Retargeter.retargetPose}: pose the internal (virtual) skeleton's world
   * rotations and positions from a source pose, without writing outputs; with `outLocal`
   * (`Float64Array(4n)`, virtual order) also its local rotations. With `skipUnneeded` (only with
   * `outLocal`), bones outside {@link Retargeter.worldNeeded} are not touched at all: their world pose
   * is left as it was and their local rotation, a constant per calibration, is the caller's to write
   * with {@link Retargeter.writeUnneededLocal} (after each calibration, and whenever the caller itself
   * overwrote them); for callers that output the local rotations (the hub), not for
   * {@link Retargeter.writeOutput}. Allocates nothing.
   * @throws RetargetError when called before calibrate().
   */
  computeVirtualPose(
    srcLocalRot: ArrayLike<number>,
    srcLocalPos: ArrayLike<number>,
    outLocal?: Float64Array,
    skipUnneeded = false,
  ): void {
    if (!this.calibrated) throw new RetargetError('retargetPose called before calibrate()');
    this.sourceForward(srcLocalRot, srcLocalPos);
    const src = this.source;
    const vtk = this.vt.skeleton;
    const SW = this.sWorldRot;
    const SP = this.sWorldPos;
    const W = this.vWorldRot;
    const P = this.vWorldPos;
    const parents = vtk.parents;
    const drivers = this.vDrivers;
    const offsets = this.offsets;
    const undriven = this.undrivenLocal;
    const tscale = this.translationScale;
    const hips = vtk.humanoid[H.Hips];
    const head = vtk.humanoid[H.Head];
    const headOffset = this.headOffset;
    const shoulderL = this.shoulderBones[0];
    const shoulderR = this.shoulderBones[1];
    const rest = vtk.restTranslations;
    const d = this.v1;
    const c = this.v3;
    const q2 = this.q2;
    const fitOf = this.fitOf;
    const scaled = this.options.hipsMode === 'scaled';
    const sh = 3 * src.humanoid[H.Hips];
    // Quaternion products and rotations are written out inline (formulas as in core/flat.ts): without
    // a JIT (PuerTS on phones, node --jitless) each call costs more than the arithmetic it does.
    // skip mode: bones outside worldNeeded (undriven, unread) keep what outLocal holds; their local
    // rotation is the constant reference one, written by writeUnneededLocal when it changes
    const order = skipUnneeded && outLocal !== undefined ? this.neededBones : this.allBones;
    for (let i = 0; i < order.length; i++) {
      const t = order[i];
      const p = parents[t];
      const s = drivers[t];
      const o4 = 4 * t;
      const o3 = 3 * t;
      // world rotation: source world * offset, or parent world * reference local
      let ax: number;
      let ay: number;
      let az: number;
      let aw: number;
      let bo: number;
      let B: Float64Array;
      if (s >= 0) {
        const s4 = 4 * s;
        ax = SW[s4];
        ay = SW[s4 + 1];
        az = SW[s4 + 2];
        aw = SW[s4 + 3];
        B = offsets;
        bo = o4;
      } else if (p >= 0) {
        const p4 = 4 * p;
        ax = W[p4];
        ay = W[p4 + 1];
        az = W[p4 + 2];
        aw = W[p4 + 3];
        B = undriven;
        bo = o4;
      } else {
        ax = 0;
        ay = 0;
        az = 0;
        aw = 1;
        B = undriven;
        bo = o4;
      }
      const bx = B[bo];
      const by = B[bo + 1];
      const bz = B[bo + 2];
      const bw = B[bo + 3];
      W[o4] = ax * bw + aw * bx + ay * bz - az * by;
      W[o4 + 1] = ay * bw + aw * by + az * bx - ax * bz;
      W[o4 + 2] = az * bw + aw * bz + ax * by - ay * bx;
      W[o4 + 3] = aw * bw - ax * bx - ay * by - az * bz;
      // (no per-bone normalisation: products of unit quaternions stay unit to rounding)
      if (t === head) {
        qmul(W, o4, W, o4, headOffset, 0);
        qnormalize(W, o4);
      } else if (p >= 0 && (t === shoulderL || t === shoulderR)) {
        this.dropShoulderTwist(W, t, p, t === shoulderL ? 0 : 1);
      }
      // world position
      if (t === hips) {
        if (scaled) {
          const k = this.hipsScale;
          P[o3] = SP[sh] * k;
          P[o3 + 1] = (SP[sh + 1] - this.sourceContact) * k + this.targetContact;
          P[o3 + 2] = SP[sh + 2] * k;
        } else {
          P[o3] = SP[sh];
          P[o3 + 1] = SP[sh + 1] + this.roomLift;
          P[o3 + 2] = SP[sh + 2];
        }
      } else if (p >= 0) {
        const p4 = 4 * p;
        const p3 = 3 * p;
        const qx = W[p4];
        const qy = W[p4 + 1];
        const qz = W[p4 + 2];
        const qw = W[p4 + 3];
        const f = tscale[t];
        const x = rest[o3] * f;
        const y = rest[o3 + 1] * f;
        const z = rest[o3 + 2] * f;
        const uvx = qy * z - qz * y;
        const uvy = qz * x - qx * z;
        const uvz = qx * y - qy * x;
        P[o3] = P[p3] + x + 2 * (qw * uvx + qy * uvz - qz * uvy);
        P[o3 + 1] = P[p3 + 1] + y + 2 * (qw * uvy + qz * uvx - qx * uvz);
        P[o3 + 2] = P[p3 + 2] + z + 2 * (qw * uvz + qx * uvy - qy * uvx);
      } else {
        P[o3] = rest[o3];
        P[o3 + 1] = rest[o3 + 1];
        P[o3 + 2] = rest[o3 + 2];
      }
      // chain fitting: swing this chain bone so the chain follows the source chain's shape
      const k = fitOf[t];
      if (k >= 0) {
        const fit = this.fits[k];
        const j = this.fitSegment[t];
        this.chainPoint(fit, j + 1, d);
        const s0 = 3 * fit.sourcePoints[0];
        const t0 = 3 * fit.targetStart;
        // (the chain length ratio is of unscaled lengths; world positions here carry the avatar and head
        // scale of this bone, so the source chain is scaled by both)
        const fs = fit.scale * tscale[fit.targetNext[j]];
        d[0] = P[t0] + (d[0] - SP[s0]) * fs - P[o3];
        d[1] = P[t0 + 1] + (d[1] - SP[s0 + 1]) * fs - P[o3 + 1];
        d[2] = P[t0 + 2] + (d[2] - SP[s0 + 2]) * fs - P[o3 + 2];
        vrotate(c, 0, W, o4, rest, 3 * fit.targetNext[j]); // current direction
        const l1 = Math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        const l3 = Math.sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
        if (l1 > 1e-12 && l3 > 1e-12) {
          d[0] /= l1;
          d[1] /= l1;
          d[2] /= l1;
          c[0] /= l3;
          c[1] /= l3;
          c[2] /= l3;
          fromTo(q2, c, d);
          qmul(W, o4, q2, 0, W, o4);
          qnormalize(W, o4);
        }
      }
      if (outLocal) {
        // virtual local rotation: conjugate(parent world) * world (inline)
        if (p < 0) {
          outLocal[o4] = W[o4];
          outLocal[o4 + 1] = W[o4 + 1];
          outLocal[o4 + 2] = W[o4 + 2];
          outLocal[o4 + 3] = W[o4 + 3];
        } else if (s < 0 && t !== head && k < 0) {
          outLocal[o4] = undriven[o4];
          outLocal[o4 + 1] = undriven[o4 + 1];
          outLocal[o4 + 2] = undriven[o4 + 2];
          outLocal[o4 + 3] = undriven[o4 + 3];
        } else {
          const p4 = 4 * p;
          const ax = -W[p4];
          const ay = -W[p4 + 1];
          const az = -W[p4 + 2];
          const aw = W[p4 + 3];
          const bx = W[o4];
          const by = W[o4 + 1];
          const bz = W[o4 + 2];
          const bw = W[o4 + 3];
          outLocal[o4] = ax * bw + aw * bx + ay * bz - az * by;
          outLocal[o4 + 1] = ay * bw + aw * by + az * bx - ax * bz;
          outLocal[o4 + 2] = az * bw + aw * bz + ax * by - ay * bx;
          outLocal[o4 + 3] = aw * bw - ax * bx - ay * by - az * bz;
        }
      }
    }
  }

  /**
   * The second half of {@link Retargeter.retargetPose}: real local rotations `4n` and translations `3n`
   * from the internal world pose (as left by computeVirtualPose and any edits). Allocates nothing.
   */
  writeOutput(outLocalRot: NumArray, outLocalPos: NumArray): void {
    this.writeRealPose(outLocalRot, outLocalPos);
  }

  /** Convert the virtual world pose to real local rotations/translations (and real-order world arrays). */
  private writeRealPose(outLocalRot: NumArray, outLocalPos: NumArray): void {
    const tgt = this.target;
    const virtualOf = this.vt.virtualOf;
    const W = this.vWorldRot;
    const P = this.vWorldPos;
    const RW = this.tWorldRot;
    const RP = this.tWorldPos;
    const hipsReal = tgt.humanoid[H.Hips];
    const moved = this.movedReal;
    const restT = tgt.restTranslations;
    const parents = tgt.parents;
    const n = tgt.boneCount;
    if (RW !== W) {
      for (let r = 0; r < n; r++) {
        const v4 = 4 * virtualOf[r];
        const v3 = 3 * virtualOf[r];
        RW[4 * r] = W[v4];
        RW[4 * r + 1] = W[v4 + 1];
        RW[4 * r + 2] = W[v4 + 2];
        RW[4 * r + 3] = W[v4 + 3];
        RP[3 * r] = P[v3];
        RP[3 * r + 1] = P[v3 + 1];
        RP[3 * r + 2] = P[v3 + 2];
      }
    }
    // inline conjugate products and rotations (see computeVirtualPose on why)
    for (let r = 0; r < n; r++) {
      const p = parents[r];
      const r4 = 4 * r;
      const o3 = 3 * r;
      const bx = RW[r4];
      const by = RW[r4 + 1];
      const bz = RW[r4 + 2];
      const bw = RW[r4 + 3];
      if (p < 0) {
        outLocalRot[r4] = bx;
        outLocalRot[r4 + 1] = by;
        outLocalRot[r4 + 2] = bz;
        outLocalRot[r4 + 3] = bw;
      } else {
        // local = conjugate(parent world) * world
        const p4 = 4 * p;
        const ax = -RW[p4];
        const ay = -RW[p4 + 1];
        const az = -RW[p4 + 2];
        const aw = RW[p4 + 3];
        outLocalRot[r4] = ax * bw + aw * bx + ay * bz - az * by;
        outLocalRot[r4 + 1] = ay * bw + aw * by + az * bx - ax * bz;
        outLocalRot[r4 + 2] = az * bw + aw * bz + ax * by - ay * bx;
        outLocalRot[r4 + 3] = aw * bw - ax * bx - ay * by - az * bz;
      }
      if (r === hipsReal || moved[r] === 1) {
        if (p >= 0) {
          // local translation = rotate(world offset) by conjugate(parent world)
          const p4 = 4 * p;
          const p3 = 3 * p;
          const qx = -RW[p4];
          const qy = -RW[p4 + 1];
          const qz = -RW[p4 + 2];
          const qw = RW[p4 + 3];
          const x = RP[o3] - RP[p3];
          const y = RP[o3 + 1] - RP[p3 + 1];
          const z = RP[o3 + 2] - RP[p3 + 2];
          const uvx = qy * z - qz * y;
          const uvy = qz * x - qx * z;
          const uvz = qx * y - qy * x;
          outLocalPos[o3] = x + 2 * (qw * uvx + qy * uvz - qz * uvy);
          outLocalPos[o3 + 1] = y + 2 * (qw * uvy + qz * uvx - qx * uvz);
          outLocalPos[o3 + 2] = z + 2 * (qw * uvz + qx * uvy - qy * uvx);
        } else {
          outLocalPos[o3] = RP[o3];
          outLocalPos[o3 + 1] = RP[o3 + 1];
          outLocalPos[o3 + 2] = RP[o3 + 2];
        }
      } else {
        outLocalPos[o3] = restT[o3];
        outLocalPos[o3 + 1] = restT[o3 + 1];
        outLocalPos[o3 + 2] = restT[o3 + 2];
      }
    }
  }

  /** World rotations `4 * sourceBones` of the last source pose (after up-axis alignment). */
  get lastSourceWorldRotations(): Float64Array {
    return this.sWorldRot;
  }
  /** World positions `3 * sourceBones` of the last source pose (after up-axis alignment), metres. */
  get lastSourceWorldPositions(): Float64Array {
    return this.sWorldPos;
  }
  /** World rotations `4 * targetBones` of the last output pose (real bone order). */
  get lastTargetWorldRotations(): Float64Array {
    return this.tWorldRot;
  }
  /** World positions `3 * targetBones` of the last output pose, metres (real bone order). */
  get lastTargetWorldPositions(): Float64Array {
    return this.tWorldPos;
  }
}

/**
 * A target chain (spine or neck) fitted to the shape of the source chain: each target chain bone keeps
 * the rotation of its group's last source bone (see module docs) but is swung so its segment ends at
 * the source chain point of the same arc-length fraction, carried to the target chain's start joint
 * and scaled by the chain length ratio (so the hips-to-neck direction is kept).
 */
interface ChainFit {
  /** Virtual target chain bones whose segments are fitted. */
  targetBones: number[];
  /** The next chain bone (the segment's end) of each, virtual index. */
  targetNext: number[];
  /** Arc fractions of the target chain joints: bone j's segment runs from targetCum[j] to targetCum[j + 1]. */
  targetCum: Float64Array;
  /** Source chain joints (real indices), from the start joint to the end joint. */
  sourcePoints: number[];
  /** Arc fractions of the source joints. */
  sourceCum: Float64Array;
  /** Virtual target index of the chain's start joint (hips or neck). */
  targetStart: number;
  /** Target chain length / source chain length (rest lengths). */
  scale: number;
}

/** Arc fractions of the joints of `chain` (rest lengths) and the chain's total length. */
function cumulative(s: Skeleton, chain: number[]): { fractions: Float64Array; length: number } {
  const out = new Float64Array(chain.length);
  let total = 0;
  for (let i = 1; i < chain.length; i++) {
    const b = chain[i];
    total += Math.hypot(
      s.restTranslations[3 * b],
      s.restTranslations[3 * b + 1],
      s.restTranslations[3 * b + 2],
    );
    out[i] = total;
  }
  if (total > 0) for (let i = 0; i < out.length; i++) out[i] /= total;
  return { fractions: out, length: total };
}

/** Chain fits for the spine (Hips..Neck/Head) and neck (Neck..Head). */
function buildChainFits(vs: VirtualHierarchy, vt: Skeleton): ChainFit[] {
  const S = vs.skeleton;
  const fits: ChainFit[] = [];
  const sm = S.humanoid;
  const tm = vt.humanoid;
  const make = (tChain: number[], sChain: number[]) => {
    // chains include both end joints: [start, bones..., end]
    if (tChain.length < 3 || sChain.length < 2) return;
    const tCum = cumulative(vt, tChain);
    const sCum = cumulative(S, sChain);
    const scale = sCum.length > 0 ? tCum.length / sCum.length : 1;
    fits.push({
      targetBones: tChain.slice(1, -1),
      targetNext: tChain.slice(2),
      targetCum: tCum.fractions.slice(1),
      sourcePoints: sChain.map((b) => vs.realOf[b]),
      sourceCum: sCum.fractions,
      targetStart: tChain[0],
      scale,
    });
  };
  const tEnd = tm[H.Neck] >= 0 ? tm[H.Neck] : tm[H.Head];
  const sEnd = sm[H.Neck] >= 0 ? sm[H.Neck] : sm[H.Head];
  make(chainBetween(vt, tm[H.Hips], tEnd), chainBetween(S, sm[H.Hips], sEnd));
  if (tm[H.Neck] >= 0 && sm[H.Neck] >= 0) {
    make(chainBetween(vt, tm[H.Neck], tm[H.Head]), chainBetween(S, sm[H.Neck], sm[H.Head]));
  }
  return fits;
}

/** A real-order local pose of `real` expressed on its virtual hierarchy (set-up time). */
function toVirtualPose(
  vh: VirtualHierarchy,
  real: Skeleton,
  rot: Float64Array,
  pos: Float64Array,
): { rotations: Float64Array; translations: Float64Array } {
  if (vh.identity) return { rotations: rot, translations: pos };
  const g = poseGeometry(real, rot, pos);
  const vs = vh.skeleton;
  const n = vs.boneCount;
  const rotations = new Float64Array(4 * n);
  const translations = new Float64Array(3 * n);
  const q = quat64();
  const pq = quat64();
  const v = vec64();
  for (let i = 0; i < n; i++) {
    const r = vh.realOf[i];
    const p = vs.parents[i];
    readQuat(q, g.rotations, r);
    v[0] = g.positions[3 * r];
    v[1] = g.positions[3 * r + 1];
    v[2] = g.positions[3 * r + 2];
    if (p >= 0) {
      const pr = vh.realOf[p];
      readQuat(pq, g.rotations, pr);
      quat.invert(pq, pq);
      quat.multiply(q, pq, q);
      v[0] -= g.positions[3 * pr];
      v[1] -= g.positions[3 * pr + 1];
      v[2] -= g.positions[3 * pr + 2];
      vec3.transformQuat(v, v, pq);
    }
    writeQuat(rotations, i, q);
    translations.set(v, 3 * i);
  }
  return { rotations, translations };
}

export interface RetargetClipOptions extends RetargetOptions {
  /** Frame of the source clip to calibrate on (used by 'first-frame', 'auto' fallback and as-is). Default 0. */
  calibrationFrame?: number;
  /**
   * Estimate `sourceContactHeight` from the clip (the 5th percentile over frames of the lower foot
   * joint's height; see {@link estimateContactHeight}) unless it is given. Default false.
   */
  groundContact?: boolean;
  /** Called every `progressEvery` frames with (framesDone, frameCount). */
  onProgress?: (done: number, total: number) => void;
  progressEvery?: number;
}

/**
 * Retarget a whole clip onto `target`. Returns the clip on the target skeleton (same frame count and
 * frame time) and the calibrated retargeter.
 * @throws RetargetError on a bad calibration frame or calibration failure.
 */
export function retargetClip(
  clip: Clip,
  target: Skeleton,
  options: RetargetClipOptions = {},
): { clip: Clip; retargeter: Retargeter } {
  const cf = options.calibrationFrame ?? 0;
  let opts = options;
  if (options.groundContact && options.sourceContactHeight === undefined) {
    const probe = new Retargeter(clip.skeleton, target, options);
    const pr = new Float64Array(4 * clip.skeleton.boneCount);
    const pp = new Float64Array(3 * clip.skeleton.boneCount);
    readFrame(clip, Math.min(Math.max(0, Math.floor(cf)), clip.frameCount - 1), pr, pp);
    probe.calibrate({ rotations: pr, translations: pp });
    opts = {
      ...options,
      sourceContactHeight: estimateContactHeight(clip, upAxisRotation(probe.info!.sourceUp)),
    };
  }
  const r = new Retargeter(clip.skeleton, target, opts);
  if (!Number.isInteger(cf) || cf < 0 || cf >= clip.frameCount) {
    throw new RetargetError(`calibration frame ${cf}: the clip has frames 0..${clip.frameCount - 1}`);
  }
  const ns = clip.skeleton.boneCount;
  const sr = new Float64Array(4 * ns);
  const sp = new Float64Array(3 * ns);
  readFrame(clip, cf, sr, sp);
  r.calibrate({ rotations: sr, translations: sp });
  const out = createClip(target, clip.frameCount, clip.frameTime, clip.name);
  const tr = new Float64Array(4 * target.boneCount);
  const tp = new Float64Array(3 * target.boneCount);
  const every = options.progressEvery ?? 100;
  for (let f = 0; f < clip.frameCount; f++) {
    readFrame(clip, f, sr, sp);
    r.retargetPose(sr, sp, tr, tp);
    writeFrame(out, f, tr, tp);
    if (options.onProgress && (f % every === every - 1 || f === clip.frameCount - 1))
      options.onProgress(f + 1, clip.frameCount);
  }
  return { clip: out, retargeter: r };
}
