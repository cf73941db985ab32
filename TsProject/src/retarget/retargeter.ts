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
 * bone, so the chain end (where the arms and head attach) always matches. Unmapped target bones whose
 * name and parent's name equal an unmapped source bone's follow that bone (helper bones, self copies).
 *
 * Hips position: `scaled` (offline default) multiplies the source hips path by the hips-height ratio
 * `k = avatarScale * H_target / H_source` (H = hips height above the lowest foot/toes joint in the
 * reference pose, legs straight), so strides fit the legs; `room` (live default) keeps the source
 * hips position and adds the leg-length difference `avatarScale * H_target - H_source` to its height,
 * so the avatar stands where the performer stands. Both assume the floor of each skeleton at y = 0.
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
  quat64,
  quatFromEuler,
  readFrame,
  readQuat,
  type Skeleton,
  vec64,
  writeFrame,
  writeQuat,
} from '../core';
import {
  bodyFrame,
  bodyToCanonical,
  canonicalPose,
  chainBetween,
  hipsHeightOf,
  isStandingPose,
  poseGeometry,
  type ReferencePose,
  ReferencePoseError,
  type ReferencePoseKind,
} from './referencePose';

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
  /** Uniform scale of the target avatar (1 = as authored). Scales the hips height used by both modes. */
  avatarScale?: number;
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
  sourceHipsHeight: number;
  targetHipsHeight: number;
  hipsScale: number;
  /** Driver source bone name per target bone name, for bones that have one. */
  drivers: Record<string, string>;
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
  readonly options: Required<Omit<RetargetOptions, 'headRotationOffset'>> & {
    headRotationOffset: [number, number, number];
  };
  /** Source bone driving each target bone, -1 for none. */
  readonly drivers: Int32Array;
  /** Target reference-pose local rotations `4n` (undriven bones keep these). */
  targetReference: ReferencePose | null = null;
  sourceReference: ReferencePose | null = null;
  info: CalibrationInfo | null = null;

  private readonly offsets: Float64Array;
  private readonly undrivenLocal: Float64Array;
  private readonly headOffset = quat64();
  private readonly alignSource: Float64Array = new Float64Array([0, 0, 0, 1]);
  private hipsScale = 1;
  private roomLift = 0;
  private calibrated = false;
  // scratch (per frame)
  private readonly sRot: Float64Array;
  private readonly sPos: Float64Array;
  private readonly sWorldRot: Float64Array;
  private readonly sWorldPos: Float64Array;
  private readonly tWorldRot: Float64Array;
  private readonly tWorldPos: Float64Array;
  private readonly q0 = quat64();
  private readonly q1 = quat64();
  private readonly v0 = vec64();
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
    };
    this.drivers = computeDrivers(source, target);
    const nt = target.boneCount;
    const ns = source.boneCount;
    this.offsets = new Float64Array(4 * nt);
    this.undrivenLocal = new Float64Array(4 * nt);
    this.sRot = new Float64Array(4 * ns);
    this.sPos = new Float64Array(3 * ns);
    this.sWorldRot = new Float64Array(4 * ns);
    this.sWorldPos = new Float64Array(3 * ns);
    this.tWorldRot = new Float64Array(4 * nt);
    this.tWorldPos = new Float64Array(3 * nt);
  }

  /**
   * Calibrate. `firstFrame` (source local rotations `4n` and translations `3n`, metres) is the
   * frame used when the source reference is 'first-frame', 'auto' with a non-standing rest pose,
   * or `{ asIs: true }` (then it is the performer's T/I-pose as is).
   * @throws RetargetError when no usable reference pose can be built (the message says why).
   */
  calibrate(firstFrame?: { rotations: ArrayLike<number>; translations: ArrayLike<number> }): CalibrationInfo {
    const src = this.source;
    const tgt = this.target;
    const kind = this.options.referencePose;
    const mode = this.options.sourceReference;
    const asIs = typeof mode === 'object';
    let which: CalibrationInfo['sourceReference'] = 'rest';
    let baseRot: ArrayLike<number> = src.restRotations;
    let baseTrans: ArrayLike<number> = src.restTranslations;
    const restStanding = isStandingPose(src, poseGeometry(src, src.restRotations, src.restTranslations));
    if (asIs || mode === 'first-frame' || (mode === 'auto' && !restStanding)) {
      if (!firstFrame) {
        throw new RetargetError(
          asIs
            ? 'calibration from a frame: no frame given'
            : 'the source rest pose is not a standing humanoid and no frame was given to calibrate on',
        );
      }
      baseRot = firstFrame.rotations;
      baseTrans = firstFrame.translations;
      which = asIs ? 'frame-as-is' : 'first-frame';
    }
    // Source up axis and alignment A.
    const baseGeo = poseGeometry(src, baseRot, baseTrans);
    let up: Exclude<UpAxis, 'auto'>;
    if (this.options.sourceUp === 'auto') {
      const hb = 3 * src.humanoid[H.Hips];
      const hd = 3 * src.humanoid[H.Head];
      const p = baseGeo.positions;
      up = nearestAxis([p[hd] - p[hb], p[hd + 1] - p[hb + 1], p[hd + 2] - p[hb + 2]]);
    } else {
      up = this.options.sourceUp;
    }
    this.alignSource.set(upAxisRotation(up));
    const alignedRot = Float64Array.from(baseRot);
    const alignedTrans = Float64Array.from(baseTrans);
    this.alignRoots(alignedRot, alignedTrans);

    let srcRefWorld: Float64Array;
    let srcHips: number;
    let tgtRef: ReferencePose;
    try {
      tgtRef = canonicalPose(tgt, { kind });
      if (asIs) {
        const g = poseGeometry(src, alignedRot, alignedTrans);
        srcRefWorld = g.rotations;
        srcHips = hipsHeightOf(
          src,
          canonicalPose(src, { kind, baseRotations: alignedRot, baseTranslations: alignedTrans }).world,
        );
        // Face the target the way the performer faces in that frame: rotate its canonical pose by inverse(G_src).
        const G = bodyToCanonical(bodyFrame(src, g));
        const Ginv = quat.invert(quat64(), G);
        const w = tgtRef.world.rotations;
        for (let i = 0; i < tgt.boneCount; i++) {
          readQuat(this.q0, w, i);
          quat.multiply(this.q0, Ginv, this.q0);
          writeQuat(w, i, this.q0);
        }
        this.sourceReference = null;
      } else {
        const sref = canonicalPose(src, { kind, baseRotations: alignedRot, baseTranslations: alignedTrans });
        this.sourceReference = sref;
        srcRefWorld = sref.world.rotations;
        srcHips = sref.hipsHeight;
      }
    } catch (e) {
      if (e instanceof ReferencePoseError) throw new RetargetError(`calibration: ${e.message}`);
      throw e;
    }
    this.targetReference = tgtRef;
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

    // Offsets and undriven locals.
    for (let t = 0; t < tgt.boneCount; t++) {
      const s = this.drivers[t];
      if (s >= 0) {
        readQuat(this.q0, srcRefWorld, s);
        quat.invert(this.q0, this.q0);
        readQuat(this.q1, tgtRef.world.rotations, t);
        quat.multiply(this.q0, this.q0, this.q1);
        quat.normalize(this.q0, this.q0);
        writeQuat(this.offsets, t, this.q0);
      }
      // Roots keep their authored rest rotation; other undriven bones their reference-pose local.
      const from = tgt.parents[t] < 0 ? tgt.restRotations : tgtRef.localRotations;
      for (let k = 0; k < 4; k++) this.undrivenLocal[4 * t + k] = from[4 * t + k];
    }
    // Head offset, in the head's reference frame: inverse(refW) * R * refW.
    const [hx, hy, hz] = this.options.headRotationOffset;
    // Unity's Quaternion.Euler(x, y, z) convention: q = Ry * Rx * Rz.
    quatFromEuler(this.headOffset, hy * DEG2RAD, hx * DEG2RAD, hz * DEG2RAD, 'YXZ');
    const headBone = tgt.humanoid[H.Head];
    const refHead = readQuat(quat64(), tgtRef.world.rotations, headBone);
    const inv = quat.invert(quat64(), refHead);
    quat.multiply(this.headOffset, inv, quat.multiply(quat64(), this.headOffset, refHead));

    const scale = this.options.avatarScale;
    this.hipsScale = (scale * tgtHips) / srcHips;
    this.roomLift = scale * tgtHips - srcHips;
    this.calibrated = true;
    const drivers: Record<string, string> = {};
    this.drivers.forEach((s, t) => {
      if (s >= 0) drivers[tgt.names[t]] = src.names[s];
    });
    this.info = {
      sourceReference: which,
      sourceUp: up,
      sourceHipsHeight: srcHips,
      targetHipsHeight: scale * tgtHips,
      hipsScale: this.hipsScale,
      drivers,
    };
    return this.info;
  }

  /** Rotate the source roots by the up-axis alignment (rotations and translations, in place). */
  private alignRoots(rot: Float64Array, pos: Float64Array): void {
    const A = this.alignSource;
    const p = this.source.parents;
    for (let i = 0; i < this.source.boneCount; i++) {
      if (p[i] >= 0) continue;
      readQuat(this.q0, rot, i);
      quat.multiply(this.q0, A, this.q0);
      writeQuat(rot, i, this.q0);
      this.v0[0] = pos[3 * i];
      this.v0[1] = pos[3 * i + 1];
      this.v0[2] = pos[3 * i + 2];
      vec3.transformQuat(this.v0, this.v0, A);
      pos[3 * i] = this.v0[0];
      pos[3 * i + 1] = this.v0[1];
      pos[3 * i + 2] = this.v0[2];
    }
  }

  /**
   * Retarget one pose. Inputs: source local rotations `4 * sourceBones` and translations
   * `3 * sourceBones` (metres, source file frame). Outputs: target local rotations `4 * targetBones`
   * and translations `3 * targetBones` (metres; rest translations except the hips). Allocates nothing.
   * @throws RetargetError when called before calibrate().
   */
  retargetPose(
    srcLocalRot: ArrayLike<number>,
    srcLocalPos: ArrayLike<number>,
    outLocalRot: NumArray,
    outLocalPos: NumArray,
  ): void {
    if (!this.calibrated) throw new RetargetError('retargetPose called before calibrate()');
    const src = this.source;
    const tgt = this.target;
    const sRot = this.sRot;
    const sPos = this.sPos;
    for (let k = 0; k < 4 * src.boneCount; k++) sRot[k] = srcLocalRot[k];
    for (let k = 0; k < 3 * src.boneCount; k++) sPos[k] = srcLocalPos[k];
    this.alignRoots(sRot, sPos);
    forwardKinematics(src, sRot, sPos, this.sWorldRot, this.sWorldPos);

    const W = this.tWorldRot;
    const P = this.tWorldPos;
    const parents = tgt.parents;
    const drivers = this.drivers;
    const hips = tgt.humanoid[H.Hips];
    const head = tgt.humanoid[H.Head];
    const q0 = this.q0;
    const q1 = this.q1;
    const v0 = this.v0;
    const v1 = this.v1;
    const rest = tgt.restTranslations;
    for (let t = 0; t < tgt.boneCount; t++) {
      const p = parents[t];
      const s = drivers[t];
      // world rotation
      if (s >= 0) {
        readQuat(q0, this.sWorldRot, s);
        readQuat(q1, this.offsets, t);
        quat.multiply(q0, q0, q1);
        if (t === head) quat.multiply(q0, q0, this.headOffset);
        quat.normalize(q0, q0);
        writeQuat(W, t, q0);
        // local = inverse(parent world) * world
        if (p >= 0) {
          readQuat(q1, W, p);
          quat.conjugate(q1, q1);
          quat.multiply(q1, q1, q0);
          writeQuat(outLocalRot, t, q1);
        } else {
          writeQuat(outLocalRot, t, q0);
        }
      } else {
        readQuat(q0, this.undrivenLocal, t);
        if (t === head) quat.multiply(q0, q0, this.headOffset);
        writeQuat(outLocalRot, t, q0);
        if (p >= 0) {
          readQuat(q1, W, p);
          quat.multiply(q1, q1, q0);
          writeQuat(W, t, q1);
        } else {
          writeQuat(W, t, q0);
        }
      }
      // translation and world position
      if (t === hips) {
        const sh = 3 * src.humanoid[H.Hips];
        v0[0] = this.sWorldPos[sh];
        v0[1] = this.sWorldPos[sh + 1];
        v0[2] = this.sWorldPos[sh + 2];
        if (this.options.hipsMode === 'scaled') {
          vec3.scale(v0, v0, this.hipsScale);
        } else {
          v0[1] += this.roomLift;
        }
        P[3 * t] = v0[0];
        P[3 * t + 1] = v0[1];
        P[3 * t + 2] = v0[2];
        if (p >= 0) {
          v1[0] = P[3 * p];
          v1[1] = P[3 * p + 1];
          v1[2] = P[3 * p + 2];
          vec3.sub(v0, v0, v1);
          readQuat(q1, W, p);
          quat.conjugate(q1, q1);
          vec3.transformQuat(v0, v0, q1);
        }
        outLocalPos[3 * t] = v0[0];
        outLocalPos[3 * t + 1] = v0[1];
        outLocalPos[3 * t + 2] = v0[2];
      } else {
        outLocalPos[3 * t] = rest[3 * t];
        outLocalPos[3 * t + 1] = rest[3 * t + 1];
        outLocalPos[3 * t + 2] = rest[3 * t + 2];
        v0[0] = rest[3 * t];
        v0[1] = rest[3 * t + 1];
        v0[2] = rest[3 * t + 2];
        if (p >= 0) {
          readQuat(q1, W, p);
          vec3.transformQuat(v0, v0, q1);
          P[3 * t] = P[3 * p] + v0[0];
          P[3 * t + 1] = P[3 * p + 1] + v0[1];
          P[3 * t + 2] = P[3 * p + 2] + v0[2];
        } else {
          P[3 * t] = v0[0];
          P[3 * t + 1] = v0[1];
          P[3 * t + 2] = v0[2];
        }
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
  /** World rotations `4 * targetBones` of the last output pose. */
  get lastTargetWorldRotations(): Float64Array {
    return this.tWorldRot;
  }
  /** World positions `3 * targetBones` of the last output pose, metres. */
  get lastTargetWorldPositions(): Float64Array {
    return this.tWorldPos;
  }
}

export interface RetargetClipOptions extends RetargetOptions {
  /** Frame of the source clip to calibrate on (used by 'first-frame', 'auto' fallback and as-is). Default 0. */
  calibrationFrame?: number;
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
  const r = new Retargeter(clip.skeleton, target, options);
  const cf = options.calibrationFrame ?? 0;
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
