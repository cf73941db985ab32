/**
 * The retargeter's calibration layer: its state, construction (drivers, virtual hierarchies, chain
 * fits), avatar/head scale, head offset and rotation offsets, and the calibration itself. The method and
 * the public class {@link Retargeter} (which adds the per-frame pose copy) are in src/retarget/retargeter.ts.
 */
import { quat, vec3 } from 'gl-matrix';
import {
  DEG2RAD,
  HumanBodyBones as H,
  type NumArray,
  qcopy,
  qnormalize,
  quat64,
  quatFromEuler,
  readQuat,
  type Skeleton,
  vec64,
  writeQuat,
} from '../core';
import { buildChainFits, type ChainFit, toVirtualPose } from './chainFit';
import {
  bodyFrame,
  bodyToCanonical,
  canonicalPose,
  isStandingPose,
  poseGeometry,
  type ReferencePose,
  ReferencePoseError,
} from './referencePose';
import { type CalibrationInfo, RetargetError, type RetargetOptions, type UpAxis } from './retargetOptions';
import {
  alignRoots,
  computeDrivers,
  lowestFootJointHeight,
  nearestAxis,
  upAxisRotation,
} from './retargetSetup';
import { type VirtualHierarchy, virtualizeHumanoid } from './virtualHierarchy';

/**
 * The retargeter's state and its calibration: construction (drivers, virtual hierarchies, chain fits),
 * avatar/head scale, head offset and rotation offsets, and {@link RetargeterCalibration.calibrate}.
 * The public class is {@link Retargeter} (src/retarget/retargeter.ts), which adds the per-frame pose copy.
 */
export abstract class RetargeterCalibration {
  readonly source: Skeleton;
  readonly target: Skeleton;
  readonly options: Required<
    Omit<RetargetOptions, 'headRotationOffset' | 'sourceContactHeight' | 'targetReference'>
  > & {
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
  protected readonly vt: VirtualHierarchy;
  private readonly vs: VirtualHierarchy;
  /** Source bone (real index) driving each virtual target bone, -1 for none. */
  protected readonly vDrivers: Int32Array;
  protected readonly offsets: Float64Array;
  protected readonly undrivenLocal: Float64Array;
  /** Chains fitted to the source chain's shape (spine/neck when bone counts differ). */
  protected readonly fits: ChainFit[];
  /** Virtual target bone -> index into `fitOf` entries (-1 none). */
  protected readonly fitOf: Int32Array;
  protected readonly fitSegment: Int32Array;
  protected readonly q2 = quat64();
  protected readonly v3 = vec64();
  protected readonly headOffset = quat64();
  /** Per shoulder (left, right): virtual bone index, or -1 when twist is kept or the bone is absent. */
  protected readonly shoulderBones = new Int32Array([-1, -1]);
  /** Per shoulder: reference local rotation (4) and the unit bone axis in its own frame (3), 8 values. */
  protected readonly shoulderData = new Float64Array(16);
  /** Scratch for dropShoulderTwist: D (4) and the twist (4). */
  protected readonly twistScratch = new Float64Array(8);
  protected readonly alignSource: Float64Array = new Float64Array([0, 0, 0, 1]);
  protected hipsScale = 1;
  protected roomLift = 0;
  protected sourceContact = 0;
  protected targetContact = 0;
  private srcHipsHeight = 1;
  private tgtHipsHeight = 1;
  private tgtRestContact = 0;
  protected calibrated = false;
  // scratch (per frame)
  protected readonly sRot: Float64Array;
  protected readonly sWorldRot: Float64Array;
  protected readonly sWorldPos: Float64Array;
  protected readonly tWorldRot: Float64Array;
  protected readonly tWorldPos: Float64Array;
  protected readonly vWorldRot: Float64Array;
  protected readonly vWorldPos: Float64Array;
  /** 1 for real target bones whose translation is output from world positions (re-parented IK bones). */
  protected readonly movedReal: Uint8Array;
  /** Factor on each virtual bone's rest translation for world positions (avatar and head scale). */
  protected readonly translationScale: Float64Array;
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
  protected readonly allBones: Int32Array;
  protected readonly neededBones: Int32Array;
  protected readonly unneededBones: Int32Array;
  private readonly q0 = quat64();
  private readonly q1 = quat64();
  protected readonly v1 = vec64();

  /** RetargetOptions.targetReference ('canonical' by default). */
  private readonly targetPoseMode: 'canonical' | 'rest';

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
    this.targetPoseMode = options.targetReference ?? 'canonical';
    if (this.targetPoseMode !== 'canonical' && this.targetPoseMode !== 'rest')
      throw new RetargetError(`targetReference: ${String(this.targetPoseMode)} is not 'canonical' or 'rest'`);
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
  /**
   * World positions of the virtual hierarchy's bones after the last pose, metres, `3 * virtual bone count`
   * (see {@link VirtualHierarchy}).
   */
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
      tgtRef = canonicalPose(vtk, { kind, straighten: this.targetPoseMode !== 'rest' });
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
  protected chainPoint(fit: ChainFit, joint: number, out: vec3): void {
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
}
