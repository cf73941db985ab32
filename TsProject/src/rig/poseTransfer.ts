/**
 * Multi-avatar sync: one driving avatar's pose copied onto N other avatars ({@link PoseTransfer}), and a
 * general 1:1 transfer between two skeletons by explicit bone pairs ({@link OffsetTransfer}).
 *
 * Frame: right-handed, Y up, metres, characters face +Z, their left is +X (DESIGN.md). Quaternions
 * `[x, y, z, w]`. Every avatar stands in the same world: its roots' local transforms are world transforms,
 * its rest pose stands on the floor y = 0.
 *
 * Scales follow the retargeter's convention (retargeter.ts): an avatar's overall scale `s` is a uniform
 * scale on its hips node and its head scale `h` a uniform scale on its head node, so the local
 * translations of the bones below them stay as authored and the host (Unity transform, glTF node) puts
 * `s` and `h` on those two nodes. World positions reported here include both.
 *
 * Per-frame methods (`update`) allocate nothing: every buffer is made when a target is added.
 */
import {
  forwardKinematics,
  HumanBodyBones as H,
  type NumArray,
  qcopy,
  qmul,
  qmulConj,
  qnormalize,
  restWorld,
  type Skeleton,
  vrotate,
  vrotateConj,
} from '../core';
import {
  type HipsMode,
  lowestFootJointHeight,
  type ReferencePoseKind,
  Retargeter,
  type RetargetOptions,
  virtualizeHumanoid,
} from '../retarget';

/** Thrown for bad arguments to {@link PoseTransfer} and {@link OffsetTransfer}; the message names the target, bone or field. */
export class PoseTransferError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PoseTransferError';
  }
}
/** A local pose: rotations `4n` (unit quaternions) and translations `3n` (metres, parent frame). */
export interface LocalPose {
  rotations: ArrayLike<number>;
  translations: ArrayLike<number>;
}

/**
 * How a target's overall scale follows the driving avatar's scale `sourceScale` (see {@link PoseTransfer}):
 * - `'off'`: `s = scale` (the target's own setting);
 * - `'follow'`: `s = scale * sourceScale` (the target grows and shrinks with the source by the same factor);
 * - `'height'`: `s = scale * sourceScale * Hs / Ht`, with `Hs`, `Ht` the standing hips heights above
 *   the floor of the source and target reference poses (legs straight; the rest-pose ankle height
 *   added to the hips-above-ankle height): with `scale = 1` the target stands exactly as tall at the
 *   hips as the source avatar does.
 */
export type RootScaleSync = 'off' | 'follow' | 'height';
const SYNC_MODES: readonly RootScaleSync[] = ['off', 'follow', 'height'];
const HIPS_MODES: readonly HipsMode[] = ['room', 'scaled'];

/** Per-target options of {@link PoseTransfer.addTarget}: hips offset and mode, scale, head scale and their sync. */
export interface PoseTransferTargetOptions {
  /**
   * Offset added to the target's hips world position, metres `(x, y, z)` in world space (not turned with
   * the avatar): `(1, 0, 0)` puts the avatar one metre to the source's +X side. Default `(0, 0, 0)`.
   */
  hipsOffset?: readonly [number, number, number];
  /**
   * Hips position from the source's hips, before the offset (the retargeter's two modes, with both
   * avatars' current scales; `s` the target's scale, `ss` the source's, `H` the hips height above the
   * ankles in the reference pose, `c` the ankle height in the rest pose, both at scale 1):
   * - `'room'` (default): the source hips' world position, raised by the difference of the standing
   *   hips heights `s (Ht + ct) - ss (Hs + cs)`: the avatar stands where the source stands;
   * - `'scaled'`: `x, z` times `k = s Ht / (ss Hs)`, `y = (y_src - ss cs) k + s ct`: strides fit the
   *   legs, and a source ankle on its floor level gives a target ankle on its own.
   */
  hipsMode?: HipsMode;
  /** The target's own scale factor (see {@link RootScaleSync}); positive, default 1. */
  scale?: number;
  /** Root scale sync mode; default `'off'`. */
  rootScaleSync?: RootScaleSync;
  /** Copy the source avatar's head scale (`sourceHeadScale`); default true. */
  headScaleSync?: boolean;
  /** Head scale used when `headScaleSync` is false; positive, default 1. */
  headScale?: number;
}

/** What {@link PoseTransfer.output} returns for a target; the same object, refilled by every `update`. */
export interface PoseTransferOutput {
  /** Target local rotations, `Float64Array(4n)`. */
  readonly rotations: Float64Array;
  /**
   * Target local translations, `Float64Array(3n)`, metres: the rest translations except the hips (and
   * re-parented IK-style bones, see virtualHierarchy.ts), which carry the world placement. Unscaled:
   * put `scale` on the hips node and `headScale` on the head node.
   */
  readonly translations: Float64Array;
  /** World rotations, `Float64Array(4n)`. */
  readonly worldRotations: Float64Array;
  /** World positions with `scale`, `headScale` and the hips offset applied, `Float64Array(3n)`, metres. */
  readonly worldPositions: Float64Array;
  /** The target's overall scale this frame (for its hips node). */
  scale: number;
  /** The target's head scale this frame (for its head node). */
  headScale: number;
}

/** Options of a {@link PoseTransfer}: the reference pose and where the source's comes from. */
export interface PoseTransferOptions {
  /** Reference pose both avatars are calibrated in (retargeter.ts); default 'T'. */
  referencePose?: ReferencePoseKind;
  /** Where the source's reference pose comes from (see `RetargetOptions.sourceReference`); default 'auto'. */
  sourceReference?: RetargetOptions['sourceReference'];
}

interface Target {
  id: string;
  skeleton: Skeleton;
  retargeter: Retargeter;
  out: PoseTransferOutput;
  hipsMode: HipsMode;
  offset: Float64Array;
  scale: number;
  sync: RootScaleSync;
  headSync: boolean;
  headScale: number;
  /** Standing ankle level (lower Foot joint in the rest pose), metres at scale 1. */
  contact: number;
  /** Hips height above the ankles in the reference pose (from calibration), metres at scale 1. */
  hipsHeight: number;
  hips: number;
  /** Virtual hierarchy (IK-style rigs): real index per virtual bone, virtual parents, flags. */
  realOf: Int32Array;
  vParents: Int32Array;
  /** 1 for virtual bones strictly below the hips (they follow the hips with scale). */
  body: Uint8Array;
  /** 1 for virtual bones strictly below the head (their segments also carry the head scale). */
  underHead: Uint8Array;
  /** Real bones whose local translation is output from world positions: the hips and re-parented bones. */
  placed: Int32Array;
  /** Per real bone: 1 when its frame carries the hips node's scale (hips or a real descendant). */
  scaledByHips: Uint8Array;
  /** Per real bone: 1 when its frame carries the head node's scale (head or a real descendant). */
  scaledByHead: Uint8Array;
}

function checkScale(value: number, what: string): number {
  if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value))
    throw new PoseTransferError(`${what}: ${String(value)} is not a positive finite number`);
  return value;
}

function checkOffset(v: readonly number[], what: string): Float64Array {
  if (!Array.isArray(v) || v.length !== 3 || !v.every((x) => typeof x === 'number' && Number.isFinite(x)))
    throw new PoseTransferError(`${what}: need three finite numbers (x, y, z) in metres`);
  return Float64Array.from(v);
}

const LO = Number.NEGATIVE_INFINITY;
const HI = Number.POSITIVE_INFINITY;

/**
 * Check a local pose's lengths and values (allocation-free unless it throws).
 * @throws PoseTransferError naming the field and bone.
 */
function checkPose(s: Skeleton, rot: NumArray, pos: NumArray, what: string): void {
  const n = s.boneCount;
  if (!rot || rot.length !== 4 * n)
    throw new PoseTransferError(`${what} rotations: length ${rot?.length}, expected ${4 * n} for ${n} bones`);
  if (!pos || pos.length !== 3 * n)
    throw new PoseTransferError(
      `${what} translations: length ${pos?.length}, expected ${3 * n} for ${n} bones`,
    );
  for (let k = 0; k < 4 * n; k++) {
    const x = rot[k];
    if (!(x > LO && x < HI))
      throw new PoseTransferError(`${what} rotation of bone '${s.names[k >> 2]}' is not finite (${x})`);
  }
  for (let k = 0; k < 3 * n; k++) {
    const x = pos[k];
    if (!(x > LO && x < HI))
      throw new PoseTransferError(
        `${what} translation of bone '${s.names[Math.floor(k / 3)]}' is not finite (${x})`,
      );
  }
}

/**
 * Copies the pose of one (already retargeted) avatar, the source, onto N other avatars, each through its
 * own {@link Retargeter} (world-rotation offsets between the two avatars' reference poses; retargeter.ts),
 * with on top: a hips offset in world space so the avatars stand side by side, an optional root scale
 * sync ({@link RootScaleSync}) and a head scale sync.
 *
 * The source pose is the source avatar's local rotations `4n` and translations `3n` (metres), e.g. the
 * output of a `Retargeter` or the hub; its scales (the scale on its hips node and on its head node, which
 * are not in those arrays) are given by {@link PoseTransfer.setSourceScale}.
 *
 * Hips: each target's hips world position comes from the source hips' world position by its hips mode
 * (see {@link PoseTransferTargetOptions.hipsMode}), computed here with both avatars' current scales
 * (so a scale change needs no recalibration), plus the target's `hipsOffset`. Positions of the bones
 * below the hips scale by the target's scale (and below the head also by its head scale); IK-style bones
 * the retargeter re-parents (virtualHierarchy.ts) get local translations that put them where their
 * virtual parent carries them.
 *
 * The source is an avatar in the internal frame (Y up; retargeters are built with `sourceUp: '+y'`),
 * standing on y = 0 in its rest pose.
 *
 * Use: `addTarget` per avatar, `calibrate()` once (targets added later are calibrated on adding), then
 * `update(rot, pos)` per frame and read `output(id)`.
 */
export class PoseTransfer {
  readonly source: Skeleton;
  private readonly options: {
    referencePose: ReferencePoseKind;
    sourceReference: RetargetOptions['sourceReference'];
  };
  private readonly targets: Target[] = [];
  private readonly byId = new Map<string, Target>();
  private calibrationFrame: LocalPose | null = null;
  private calibrated = false;
  private srcScale = 1;
  private srcHeadScale = 1;
  /** Source standing ankle level, metres at scale 1. */
  private readonly sourceContact: number;
  /** Source hips height above the ankles in the reference pose, metres at scale 1 (from calibration). */
  private sourceHipsHeight = 0;
  private readonly sourceHips: number;
  private readonly v = new Float64Array(3);

  /**
   * @param source the driving avatar's skeleton (needs Hips, Head, upper legs and feet mapped, as the retargeter).
   * @throws PoseTransferError on bad options.
   */
  constructor(source: Skeleton, options: PoseTransferOptions = {}) {
    const kind = options.referencePose ?? 'T';
    if (kind !== 'T' && kind !== 'I')
      throw new PoseTransferError(`referencePose: '${String(kind)}' is not 'T' or 'I'`);
    this.source = source;
    this.options = { referencePose: kind, sourceReference: options.sourceReference ?? 'auto' };
    this.sourceHips = source.humanoid[H.Hips];
    if (this.sourceHips < 0) throw new PoseTransferError('source skeleton: no Hips in its humanoid map');
    this.sourceContact = lowestFootJointHeight(source, restWorld(source));
  }

  /** Ids of the targets, in the order they were added. */
  get targetIds(): string[] {
    return this.targets.map((t) => t.id);
  }

  /** The driving avatar's overall scale (on its hips node) and head scale (on its head node). */
  get sourceScale(): number {
    return this.srcScale;
  }
  /** The source avatar's head scale as last given (1 = none); synced targets copy it. */
  get sourceHeadScale(): number {
    return this.srcHeadScale;
  }

  /**
   * Set the driving avatar's overall scale (the scale on its hips node) and head scale. Takes effect at
   * the next `update`; no recalibration. Allocates nothing unless it throws.
   * @throws PoseTransferError when a scale is not a positive finite number.
   */
  setSourceScale(scale: number, headScale = this.srcHeadScale): void {
    this.srcScale = checkScale(scale, 'source scale');
    this.srcHeadScale = checkScale(headScale, 'source head scale');
  }

  /**
   * Add a target avatar under `id`. Builds its retargeter (source = the driving avatar's skeleton) and,
   * when the transfer is already calibrated, calibrates it. Set-up time (allocates).
   * @throws PoseTransferError on a duplicate id, bad options, or a skeleton the retargeter cannot use
   * (the message names the target).
   */
  addTarget(id: string, target: Skeleton, options: PoseTransferTargetOptions = {}): void {
    if (typeof id !== 'string' || id.length === 0)
      throw new PoseTransferError('target id: need a non-empty string');
    if (this.byId.has(id)) throw new PoseTransferError(`target '${id}': already added`);
    const hipsMode = options.hipsMode ?? 'room';
    if (!HIPS_MODES.includes(hipsMode))
      throw new PoseTransferError(`target '${id}' hipsMode: '${String(hipsMode)}' is not 'room' or 'scaled'`);
    const sync = options.rootScaleSync ?? 'off';
    if (!SYNC_MODES.includes(sync))
      throw new PoseTransferError(
        `target '${id}' rootScaleSync: '${String(sync)}' is not one of ${SYNC_MODES.join(', ')}`,
      );
    const offset = checkOffset(options.hipsOffset ?? [0, 0, 0], `target '${id}' hipsOffset`);
    const scale = checkScale(options.scale ?? 1, `target '${id}' scale`);
    const headScale = checkScale(options.headScale ?? 1, `target '${id}' headScale`);
    let retargeter: Retargeter;
    try {
      retargeter = new Retargeter(this.source, target, {
        hipsMode,
        referencePose: this.options.referencePose,
        sourceReference: this.options.sourceReference,
        sourceUp: '+y',
      });
    } catch (e) {
      throw new PoseTransferError(`target '${id}': ${(e as Error).message}`);
    }
    const n = target.boneCount;
    const vh = virtualizeHumanoid(target);
    const vs = vh.skeleton;
    const vHips = vs.humanoid[H.Hips];
    const vHead = vs.humanoid[H.Head];
    const body = new Uint8Array(n);
    const underHead = new Uint8Array(n);
    for (let v = 0; v < n; v++) {
      const p = vs.parents[v];
      if (p < 0) continue;
      body[v] = p === vHips || body[p] === 1 ? 1 : 0;
      underHead[v] = p === vHead || underHead[p] === 1 ? 1 : 0;
    }
    const hips = target.humanoid[H.Hips];
    const head = target.humanoid[H.Head];
    const scaledByHips = new Uint8Array(n);
    const scaledByHead = new Uint8Array(n);
    for (let r = 0; r < n; r++) {
      const p = target.parents[r];
      scaledByHips[r] = r === hips || (p >= 0 && scaledByHips[p] === 1) ? 1 : 0;
      scaledByHead[r] = r === head || (p >= 0 && scaledByHead[p] === 1) ? 1 : 0;
    }
    const placed = Int32Array.from(new Set([hips, ...vh.detached]).values()).sort();
    const t: Target = {
      id,
      skeleton: target,
      retargeter,
      out: {
        rotations: new Float64Array(4 * n),
        translations: Float64Array.from(target.restTranslations),
        worldRotations: new Float64Array(4 * n),
        worldPositions: new Float64Array(3 * n),
        scale,
        headScale,
      },
      hipsMode,
      offset,
      scale,
      sync,
      headSync: options.headScaleSync ?? true,
      headScale,
      contact: lowestFootJointHeight(target, restWorld(target)),
      hipsHeight: 0,
      hips,
      realOf: vh.realOf,
      vParents: vs.parents,
      body,
      underHead,
      placed,
      scaledByHips,
      scaledByHead,
    };
    t.out.rotations.set(target.restRotations);
    if (this.calibrated) this.calibrateTarget(t);
    this.targets.push(t);
    this.byId.set(id, t);
  }

  /**
   * Change a target's hips offset, hips mode, scale, scale sync or head scale settings; takes effect at
   * the next `update`, no recalibration.
   * @throws PoseTransferError on an unknown id or a bad value (nothing is changed then).
   */
  setTargetOptions(id: string, options: PoseTransferTargetOptions): void {
    const t = this.get(id);
    const hipsMode = options.hipsMode ?? t.hipsMode;
    if (!HIPS_MODES.includes(hipsMode))
      throw new PoseTransferError(`target '${id}' hipsMode: '${String(hipsMode)}' is not 'room' or 'scaled'`);
    const sync = options.rootScaleSync ?? t.sync;
    if (!SYNC_MODES.includes(sync))
      throw new PoseTransferError(
        `target '${id}' rootScaleSync: '${String(sync)}' is not one of ${SYNC_MODES.join(', ')}`,
      );
    const offset = options.hipsOffset
      ? checkOffset(options.hipsOffset, `target '${id}' hipsOffset`)
      : t.offset;
    const scale = checkScale(options.scale ?? t.scale, `target '${id}' scale`);
    const headScale = checkScale(options.headScale ?? t.headScale, `target '${id}' headScale`);
    t.hipsMode = hipsMode;
    t.sync = sync;
    t.offset = offset;
    t.scale = scale;
    t.headScale = headScale;
    if (options.headScaleSync !== undefined) t.headSync = options.headScaleSync;
  }

  /** Remove a target. @throws PoseTransferError on an unknown id. */
  removeTarget(id: string): void {
    const t = this.get(id);
    this.byId.delete(id);
    this.targets.splice(this.targets.indexOf(t), 1);
  }

  /** The target's retargeter (its calibration info, drivers), e.g. for reports. @throws on an unknown id. */
  retargeter(id: string): Retargeter {
    return this.get(id).retargeter;
  }

  /**
   * Calibrate every target (and targets added later) on `sourceFrame`, the source avatar's local pose
   * (rotations `4n`, translations `3n`; default its rest pose). As the retargeter's `calibrate`: with
   * `sourceReference` 'auto' a standing rest pose is the source's base pose and the frame is only used
   * when the rest pose is not a standing humanoid; with `{ asIs: true }` the frame is the source's
   * reference pose as is. Set-up time (allocates).
   * @throws PoseTransferError naming the target whose calibration fails, or on a malformed frame.
   */
  calibrate(sourceFrame?: LocalPose): void {
    const s = this.source;
    const frame: LocalPose = sourceFrame
      ? {
          rotations: Float64Array.from(sourceFrame.rotations),
          translations: Float64Array.from(sourceFrame.translations),
        }
      : { rotations: s.restRotations, translations: s.restTranslations };
    checkPose(s, frame.rotations, frame.translations, 'calibration frame');
    this.calibrationFrame = frame;
    for (const t of this.targets) this.calibrateTarget(t);
    this.calibrated = true;
  }

  private calibrateTarget(t: Target): void {
    try {
      const info = t.retargeter.calibrate(this.calibrationFrame ?? undefined);
      t.hipsHeight = info.targetHipsHeight;
      this.sourceHipsHeight = info.sourceHipsHeight;
    } catch (e) {
      throw new PoseTransferError(`target '${t.id}': ${(e as Error).message}`);
    }
  }

  private get(id: string): Target {
    const t = this.byId.get(id);
    if (!t)
      throw new PoseTransferError(
        `target '${id}': no such target (have: ${this.targetIds.join(', ') || 'none'})`,
      );
    return t;
  }

  /** The output of target `id` (refilled by every `update`). Allocates nothing. @throws on an unknown id. */
  output(id: string): PoseTransferOutput {
    return this.get(id).out;
  }

  /**
   * Transfer one source pose to every target: source local rotations `4n` and translations `3n` (metres).
   * Allocates nothing.
   * @throws PoseTransferError before `calibrate`, or on a wrong length or non-finite value (naming the bone).
   */
  update(sourceLocalRot: NumArray, sourceLocalPos: NumArray): void {
    if (!this.calibrated) throw new PoseTransferError('update called before calibrate()');
    checkPose(this.source, sourceLocalRot, sourceLocalPos, 'source pose');
    const targets = this.targets;
    for (let i = 0; i < targets.length; i++) this.updateTarget(targets[i], sourceLocalRot, sourceLocalPos);
  }

  private updateTarget(t: Target, srcRot: NumArray, srcPos: NumArray): void {
    const out = t.out;
    const r = t.retargeter;
    r.retargetPose(srcRot, srcPos, out.rotations, out.translations);
    const W = r.lastTargetWorldRotations;
    const P = r.lastTargetWorldPositions;
    const SP = r.lastSourceWorldPositions;
    const ss = this.srcScale;
    // scales
    let s = t.scale;
    if (t.sync === 'follow') s *= ss;
    else if (t.sync === 'height')
      s *= (ss * (this.sourceHipsHeight + this.sourceContact)) / (t.hipsHeight + t.contact);
    const h = t.headSync ? this.srcHeadScale : t.headScale;
    out.scale = s;
    out.headScale = h;
    // hips world position
    const PW = out.worldPositions;
    const hips3 = 3 * t.hips;
    const sh = 3 * this.sourceHips;
    const off = t.offset;
    if (t.hipsMode === 'scaled') {
      const k = (s * t.hipsHeight) / (ss * this.sourceHipsHeight);
      PW[hips3] = SP[sh] * k + off[0];
      PW[hips3 + 1] = (SP[sh + 1] - ss * this.sourceContact) * k + s * t.contact + off[1];
      PW[hips3 + 2] = SP[sh + 2] * k + off[2];
    } else {
      const lift = s * (t.hipsHeight + t.contact) - ss * (this.sourceHipsHeight + this.sourceContact);
      PW[hips3] = SP[sh] + off[0];
      PW[hips3 + 1] = SP[sh + 1] + lift + off[1];
      PW[hips3 + 2] = SP[sh + 2] + off[2];
    }
    // world positions: body bones follow their virtual parent with the scaled segment; others as retargeted
    const realOf = t.realOf;
    const vParents = t.vParents;
    const body = t.body;
    const underHead = t.underHead;
    const n = t.skeleton.boneCount;
    const sh2 = s * h;
    for (let vi = 0; vi < n; vi++) {
      const b = realOf[vi];
      if (b === t.hips) continue;
      const o = 3 * b;
      if (body[vi] === 1) {
        const po = 3 * realOf[vParents[vi]];
        const f = underHead[vi] === 1 ? sh2 : s;
        PW[o] = PW[po] + (P[o] - P[po]) * f;
        PW[o + 1] = PW[po + 1] + (P[o + 1] - P[po + 1]) * f;
        PW[o + 2] = PW[po + 2] + (P[o + 2] - P[po + 2]) * f;
      } else {
        PW[o] = P[o];
        PW[o + 1] = P[o + 1];
        PW[o + 2] = P[o + 2];
      }
    }
    const WR = out.worldRotations;
    for (let k = 0; k < 4 * n; k++) WR[k] = W[k];
    // local translations of the bones placed from world positions (hips, re-parented IK-style bones):
    // inverse(parentWorld) * (P - parentP), divided by the node scales the parent's frame carries
    const parents = t.skeleton.parents;
    const placed = t.placed;
    const LT = out.translations;
    const v = this.v;
    for (let i = 0; i < placed.length; i++) {
      const b = placed[i];
      const p = parents[b];
      const o = 3 * b;
      if (p < 0) {
        LT[o] = PW[o];
        LT[o + 1] = PW[o + 1];
        LT[o + 2] = PW[o + 2];
        continue;
      }
      const po = 3 * p;
      v[0] = PW[o] - PW[po];
      v[1] = PW[o + 1] - PW[po + 1];
      v[2] = PW[o + 2] - PW[po + 2];
      vrotateConj(LT, o, W, 4 * p, v, 0);
      let c = 1;
      if (t.scaledByHips[p] === 1) c *= s;
      if (t.scaledByHead[p] === 1) c *= h;
      if (c !== 1) {
        LT[o] /= c;
        LT[o + 1] /= c;
        LT[o + 2] /= c;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// OffsetTransfer

/** One bone pair of an {@link OffsetTransfer}: bones by name (exact) or index. */
export interface BonePair {
  source: string | number;
  target: string | number;
  /** Also drive the target bone's world position (with a positional offset in the source bone's frame). Default false. */
  position?: boolean;
}

function resolveBone(s: Skeleton, ref: string | number, which: string, pair: number): number {
  if (typeof ref === 'number') {
    if (!Number.isInteger(ref) || ref < 0 || ref >= s.boneCount)
      throw new PoseTransferError(
        `bone pair ${pair}: ${which} bone index ${ref} is not a bone (the ${which} has bones 0..${s.boneCount - 1})`,
      );
    return ref;
  }
  if (typeof ref !== 'string')
    throw new PoseTransferError(
      `bone pair ${pair}: ${which} bone must be a name or an index, got ${typeof ref}`,
    );
  const i = s.names.indexOf(ref);
  if (i < 0) {
    const low = ref.toLowerCase();
    const like = s.names.find((n) => n.toLowerCase() === low || n.toLowerCase().endsWith(`:${low}`));
    throw new PoseTransferError(
      `bone pair ${pair}: ${which} bone '${ref}' is not in the ${which} skeleton${like ? ` (did you mean '${like}'?)` : ''}`,
    );
  }
  const j = s.names.lastIndexOf(ref);
  if (j !== i)
    throw new PoseTransferError(
      `bone pair ${pair}: ${which} bone name '${ref}' is ambiguous (bones ${i} and ${j} share it); give the index`,
    );
  return i;
}

/**
 * A general 1:1 transfer between two skeletons by explicit bone pairs.
 *
 * Calibration (both skeletons in their current poses): per pair, `offset = inverse(sourceWorld) *
 * targetWorld` and, for pairs with `position`, `positionOffset = inverse(sourceWorld) * (targetPos -
 * sourcePos)` (metres, in the source bone's frame). Per frame: `targetWorld = sourceWorld * offset`
 * (and `targetPos = sourcePos + sourceWorld * positionOffset`), converted to target local rotations
 * (`inverse(parentWorld) * world`) and translations. Unpaired target bones keep their local rotation
 * and translation (from the target pose given to `update`, else the calibration pose), so they ride on
 * their parents. Bones are processed in the target skeleton's order (parents first), whatever the
 * order of the pairs, so a pair's parent is always final before the pair is converted to locals.
 *
 * Source: the same world-rotation offset method as retargeter.ts, without reference poses.
 */
export class OffsetTransfer {
  readonly source: Skeleton;
  readonly target: Skeleton;
  /** Resolved pairs (bone indices), sorted by target bone. */
  readonly pairs: readonly { source: number; target: number; position: boolean }[];
  /** Target local rotations `4n` of the last `update` (or the calibration pose). */
  readonly rotations: Float64Array;
  /** Target local translations `3n`, metres. */
  readonly translations: Float64Array;
  /** Target world rotations `4n` and positions `3n` of the last `update`. */
  readonly worldRotations: Float64Array;
  readonly worldPositions: Float64Array;
  /** Rotation offset per pair (`4` per pair, pair order of {@link OffsetTransfer.pairs}). */
  readonly offsets: Float64Array;
  /** Position offset per pair in the source bone's frame (`3` per pair), metres. */
  readonly positionOffsets: Float64Array;
  private readonly pairOf: Int32Array;
  private readonly baseRot: Float64Array;
  private readonly basePos: Float64Array;
  private readonly sWorldRot: Float64Array;
  private readonly sWorldPos: Float64Array;
  private readonly v = new Float64Array(3);
  private calibrated = false;

  /**
   * @throws PoseTransferError on no pairs, an unknown or ambiguous bone name, an index out of range, or
   * two pairs driving the same target bone (the message names the pair and bone).
   */
  constructor(source: Skeleton, target: Skeleton, pairs: readonly BonePair[]) {
    this.source = source;
    this.target = target;
    if (!Array.isArray(pairs) || pairs.length === 0)
      throw new PoseTransferError('OffsetTransfer: no bone pairs given');
    const nt = target.boneCount;
    const ns = source.boneCount;
    this.pairOf = new Int32Array(nt).fill(-1);
    const resolved: { source: number; target: number; position: boolean; at: number }[] = [];
    pairs.forEach((p, at) => {
      if (!p || typeof p !== 'object') throw new PoseTransferError(`bone pair ${at}: not an object`);
      const s = resolveBone(source, p.source, 'source', at);
      const t = resolveBone(target, p.target, 'target', at);
      const prev = resolved.find((r) => r.target === t);
      if (prev)
        throw new PoseTransferError(
          `bone pairs ${prev.at} and ${at} both drive target bone '${target.names[t]}' (each target bone takes one pair)`,
        );
      resolved.push({ source: s, target: t, position: p.position === true, at });
    });
    resolved.sort((a, b) => a.target - b.target);
    this.pairs = resolved.map(({ source: s, target: t, position }) => ({ source: s, target: t, position }));
    this.pairs.forEach((p, k) => {
      this.pairOf[p.target] = k;
    });
    this.offsets = new Float64Array(4 * resolved.length);
    this.positionOffsets = new Float64Array(3 * resolved.length);
    this.rotations = Float64Array.from(target.restRotations);
    this.translations = Float64Array.from(target.restTranslations);
    this.worldRotations = new Float64Array(4 * nt);
    this.worldPositions = new Float64Array(3 * nt);
    this.baseRot = Float64Array.from(target.restRotations);
    this.basePos = Float64Array.from(target.restTranslations);
    this.sWorldRot = new Float64Array(4 * ns);
    this.sWorldPos = new Float64Array(3 * ns);
  }

  /**
   * Record the offsets with both skeletons in their current poses (default: their rest poses). The
   * target pose is also the pose unpaired bones keep when `update` gets none. Set-up time.
   * @throws PoseTransferError on a wrong length or non-finite value.
   */
  calibrate(sourcePose?: LocalPose, targetPose?: LocalPose): void {
    const S = this.source;
    const T = this.target;
    const sp = sourcePose ?? { rotations: S.restRotations, translations: S.restTranslations };
    const tp = targetPose ?? { rotations: T.restRotations, translations: T.restTranslations };
    checkPose(S, sp.rotations, sp.translations, 'source calibration pose');
    checkPose(T, tp.rotations, tp.translations, 'target calibration pose');
    const sr = Float64Array.from(sp.rotations);
    for (let i = 0; i < S.boneCount; i++) qnormalize(sr, 4 * i);
    forwardKinematics(S, sr, Float64Array.from(sp.translations), this.sWorldRot, this.sWorldPos);
    this.baseRot.set(tp.rotations);
    this.basePos.set(tp.translations);
    forwardKinematics(T, this.baseRot, this.basePos, this.worldRotations, this.worldPositions);
    this.rotations.set(this.baseRot);
    this.translations.set(this.basePos);
    const SW = this.sWorldRot;
    const SP = this.sWorldPos;
    const TW = this.worldRotations;
    const TP = this.worldPositions;
    const v = this.v;
    this.pairs.forEach((p, k) => {
      qmulConj(this.offsets, 4 * k, SW, 4 * p.source, TW, 4 * p.target);
      qnormalize(this.offsets, 4 * k);
      v[0] = TP[3 * p.target] - SP[3 * p.source];
      v[1] = TP[3 * p.target + 1] - SP[3 * p.source + 1];
      v[2] = TP[3 * p.target + 2] - SP[3 * p.source + 2];
      vrotateConj(this.positionOffsets, 3 * k, SW, 4 * p.source, v, 0);
    });
    this.calibrated = true;
  }

  /**
   * Transfer one pose. `sourceLocalRot` `4 * sourceBones`, `sourceLocalPos` `3 * sourceBones` (metres);
   * optional `targetLocalRot`/`targetLocalPos` (`4 * targetBones`, `3 * targetBones`): the target's own
   * current pose, whose unpaired bones are kept (default: the calibration pose). Results in
   * `rotations`, `translations`, `worldRotations`, `worldPositions`. Allocates nothing.
   * @throws PoseTransferError before `calibrate`, or on a wrong length or non-finite value.
   */
  update(
    sourceLocalRot: NumArray,
    sourceLocalPos: NumArray,
    targetLocalRot?: NumArray,
    targetLocalPos?: NumArray,
  ): void {
    if (!this.calibrated) throw new PoseTransferError('OffsetTransfer.update called before calibrate()');
    const S = this.source;
    const T = this.target;
    checkPose(S, sourceLocalRot, sourceLocalPos, 'source pose');
    const baseRot: NumArray = targetLocalRot ?? this.baseRot;
    const basePos: NumArray = targetLocalPos ?? this.basePos;
    if (targetLocalRot || targetLocalPos) checkPose(T, baseRot, basePos, 'target pose');
    const SW = this.sWorldRot;
    const SP = this.sWorldPos;
    forwardKinematics(S, sourceLocalRot, sourceLocalPos, SW, SP);
    const W = this.worldRotations;
    const P = this.worldPositions;
    const LR = this.rotations;
    const LT = this.translations;
    const parents = T.parents;
    const pairOf = this.pairOf;
    const pairs = this.pairs;
    const offsets = this.offsets;
    const posOffsets = this.positionOffsets;
    const v = this.v;
    for (let t = 0; t < T.boneCount; t++) {
      const p = parents[t];
      const k = pairOf[t];
      const o4 = 4 * t;
      const o3 = 3 * t;
      if (k < 0) {
        qcopy(LR, o4, baseRot, o4);
        LT[o3] = basePos[o3];
        LT[o3 + 1] = basePos[o3 + 1];
        LT[o3 + 2] = basePos[o3 + 2];
        if (p < 0) {
          qcopy(W, o4, baseRot, o4);
          P[o3] = basePos[o3];
          P[o3 + 1] = basePos[o3 + 1];
          P[o3 + 2] = basePos[o3 + 2];
        } else {
          qmul(W, o4, W, 4 * p, baseRot, o4);
          vrotate(P, o3, W, 4 * p, basePos, o3);
          P[o3] += P[3 * p];
          P[o3 + 1] += P[3 * p + 1];
          P[o3 + 2] += P[3 * p + 2];
        }
        continue;
      }
      const pair = pairs[k];
      const s4 = 4 * pair.source;
      qmul(W, o4, SW, s4, offsets, 4 * k);
      qnormalize(W, o4);
      if (p < 0) qcopy(LR, o4, W, o4);
      else qmulConj(LR, o4, W, 4 * p, W, o4);
      if (pair.position) {
        const s3 = 3 * pair.source;
        vrotate(P, o3, SW, s4, posOffsets, 3 * k);
        P[o3] += SP[s3];
        P[o3 + 1] += SP[s3 + 1];
        P[o3 + 2] += SP[s3 + 2];
        if (p < 0) {
          LT[o3] = P[o3];
          LT[o3 + 1] = P[o3 + 1];
          LT[o3 + 2] = P[o3 + 2];
        } else {
          v[0] = P[o3] - P[3 * p];
          v[1] = P[o3 + 1] - P[3 * p + 1];
          v[2] = P[o3 + 2] - P[3 * p + 2];
          vrotateConj(LT, o3, W, 4 * p, v, 0);
        }
      } else {
        LT[o3] = basePos[o3];
        LT[o3 + 1] = basePos[o3 + 1];
        LT[o3 + 2] = basePos[o3 + 2];
        if (p < 0) {
          P[o3] = basePos[o3];
          P[o3 + 1] = basePos[o3 + 1];
          P[o3 + 2] = basePos[o3 + 2];
        } else {
          vrotate(P, o3, W, 4 * p, basePos, o3);
          P[o3] += P[3 * p];
          P[o3 + 1] += P[3 * p + 1];
          P[o3 + 2] += P[3 * p + 2];
        }
      }
    }
  }
}
