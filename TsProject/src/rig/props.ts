/**
 * Props: attachment points on the avatar (left hand, right hand, head) and a registry of the props in
 * the world (held objects, chairs, other avatars' hands) that the limb weights read (limbWeights.ts).
 *
 * Attachment points. Each point is a small hierarchy `point = boneWorld * offset`: a fixed local
 * transform under a target humanoid bone (LeftHand, RightHand, Head), built once from the avatar's
 * canonical T-pose (src/retarget/referencePose.ts). The offset is given in CHARACTER AXES AT THE
 * T-POSE, the project's internal frame (DESIGN.md): +X the character's left, +Y up, +Z forward
 * (the way the character faces), metres. At the T-pose the point sits at `bonePosition + offset` and its
 * axes are the character axes; as the bone moves, the point moves rigidly with it. So whatever the rig's
 * own bone axes (A-pose rest, rolled bones, a rig facing -Z), the same offset means the same place.
 *
 * Default offsets ({@link DEFAULT_PROP_POINT_OFFSETS}): the issue's values, left hand (-0.039, -0.022, 0),
 * right hand (0.039, -0.022, 0), head (0, 0.16, 0), are written in Unity's left-handed frame, where
 * +X is the character's RIGHT: -0.039 on the left hand points out past the wrist toward the fingers
 * (the palm), not back up the forearm. DESIGN.md's boundary rule (Unity <-> internal: x -> -x) gives
 * the internal values used here: left hand (+0.039, -0.022, 0), right hand (-0.039, -0.022, 0), head
 * (0, 0.16, 0): 3.9 cm out from the wrist along the arm and 2.2 cm down (the palm side of a T-pose hand,
 * palms down), and 16 cm above the head joint (the top of the head, for hats).
 *
 * Props. A registry of up to `capacity` props, each with an id (string), a type (None, Object, Chair,
 * Hand) and a world transform (position metres, rotation quaternion `[x, y, z, w]`), stored in flat
 * typed arrays by slot so the per-frame code (this `update`, LimbWeights) allocates nothing. A prop is
 * free (the host moves it by writing `positions`/`rotations` at its slot, see {@link PropSystem.slotOf})
 * or attached to a point, in which case `update` computes its world transform as
 * `pointWorld * local` (local offset in the point's axes, metres).
 *
 * Prop types: None (registered, ignored by the weights), Object (anything the hands may touch: the arms
 * turn to IK near it), Chair (its position is the seat point; near the hips it seats the avatar), Hand
 * (another avatar's hand, moved every frame by the host: hand-to-hand contact between avatars).
 */

import type { Skeleton } from '../core';
import { HumanBodyBones as H, HUMAN_BONE_NAMES, type NumArray, qmul, vrotate } from '../core';
import { canonicalPose, type ReferencePose } from '../retarget/referencePose';

/** Prop type names, indexed by their code ({@link PropType}). */
export const PROP_TYPE_NAMES = ['None', 'Object', 'Chair', 'Hand'] as const;
/** A prop type name ({@link PROP_TYPE_NAMES}). */
export type PropTypeName = (typeof PROP_TYPE_NAMES)[number];
/** Prop type codes as stored in {@link PropWorld.types}. */
export const PropType = { None: 0, Object: 1, Chair: 2, Hand: 3 } as const;

/** Attachment point names, indexed by their code ({@link PropPoint}). */
export const PROP_POINT_NAMES = ['LeftHand', 'RightHand', 'Head'] as const;
/** An attachment point name ({@link PROP_POINT_NAMES}). */
export type PropPointName = (typeof PROP_POINT_NAMES)[number];
/** Attachment point codes as stored in {@link PropWorld.attachedPoint} (-1: not attached). */
export const PropPoint = { LeftHand: 0, RightHand: 1, Head: 2 } as const;
/** The HumanBodyBones bone each point hangs under. */
export const PROP_POINT_BONES: readonly number[] = [H.LeftHand, H.RightHand, H.Head];

/**
 * Default point offsets in the internal frame (character axes at the T-pose: +X left, +Y up, +Z
 * forward; metres). The Unity-frame values mirrored at X; see the module docs.
 */
export const DEFAULT_PROP_POINT_OFFSETS: Readonly<Record<PropPointName, readonly [number, number, number]>> =
  Object.freeze({
    LeftHand: [0.039, -0.022, 0] as const,
    RightHand: [-0.039, -0.022, 0] as const,
    Head: [0, 0.16, 0] as const,
  });

/** What the limb weights read from the prop registry each frame (PropSystem implements it). */
export interface PropWorld {
  /** Slots in use are `0 .. count-1`; an empty slot has type None. */
  readonly count: number;
  /** Type code per slot ({@link PropType}). */
  readonly types: Uint8Array;
  /** World positions, metres, `3 * capacity`. */
  readonly positions: Float64Array;
  /** Attachment point code per slot ({@link PropPoint}), -1 when free. */
  readonly attachedPoint: Int8Array;
}

/** Snapshot of one prop (from {@link PropSystem.get} / {@link PropSystem.list}). */
export interface PropInfo {
  id: string;
  type: PropTypeName;
  slot: number;
  attachedTo: PropPointName | null;
  /** World position, metres (as of the last update, or as set). */
  position: [number, number, number];
  /** World rotation `[x, y, z, w]`. */
  rotation: [number, number, number, number];
}

/** One registered prop in {@link PropSystemState}. */
export interface PropSlotState {
  id: string;
  type: PropTypeName;
  attachedTo: PropPointName | null;
  /** World position (metres) and rotation `[x, y, z, w]`. */
  position: number[];
  rotation: number[];
  /** Local transform relative to the point (attached props). */
  localPosition: number[];
  localRotation: number[];
}

/** What {@link PropSystem.exportState} gives. */
export interface PropSystemState {
  scale: number;
  slots: (PropSlotState | null)[];
  pointPositions: number[];
  pointRotations: number[];
}

/** Thrown for bad prop calls; the message names the call, the field and the bad value. */
export class PropError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PropError';
  }
}

/** Options of a {@link PropSystem}: the reference T-pose, the attachment offsets and the capacity. */
export interface PropSystemOptions {
  /**
   * The avatar's T-pose (kind 'T'), whose world rotations fix the character axes the offsets are given
   * in. Default `canonicalPose(skeleton)` (the automatic T-pose, computed here; set-up time).
   */
  reference?: ReferencePose;
  /** Point offsets, metres, character axes at the T-pose (default {@link DEFAULT_PROP_POINT_OFFSETS}). */
  offsets?: Partial<Record<PropPointName, ArrayLike<number>>>;
  /** Most props registered at once (default 32). */
  capacity?: number;
}

function show(v: unknown): string {
  if (typeof v === 'string') return `'${v}'`;
  if (v === null) return 'null';
  if (Array.isArray(v)) return `an array of length ${v.length}`;
  if (typeof v === 'object') return 'an object';
  return `${typeof v} ${String(v)}`;
}

/** Read `n` finite numbers from `v` (an array-like), or throw naming `field`. */
function finiteArray(v: unknown, n: number, field: string, what: string): number[] {
  const a = v as ArrayLike<unknown> | null | undefined;
  if (a === null || typeof a !== 'object' || typeof a.length !== 'number' || a.length !== n) {
    throw new PropError(`${field}: need ${n} finite numbers (${what}), got ${show(v)}`);
  }
  const out: number[] = [];
  for (let k = 0; k < n; k++) {
    const x = a[k];
    if (typeof x !== 'number' || !Number.isFinite(x)) {
      throw new PropError(`${field}[${k}]: need a finite number (${what}), got ${show(x)}`);
    }
    out.push(x);
  }
  return out;
}

function unitQuat(v: unknown, field: string): number[] {
  const q = finiteArray(v, 4, field, 'quaternion [x, y, z, w]');
  const l = Math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!(l > 1e-9)) throw new PropError(`${field}: the quaternion has zero length`);
  return q.map((x) => x / l);
}

/**
 * Attachment points and the prop registry of one avatar. Set-up calls (add, attach, ...) allocate;
 * {@link PropSystem.update} does not.
 */
export class PropSystem implements PropWorld {
  readonly skeleton: Skeleton;
  readonly capacity: number;
  /** Skeleton bone index of each point's parent bone (LeftHand, RightHand, Head). */
  readonly pointBones: Int32Array;
  /** Each point's position in its bone's frame (metres, before `scale`), `Float64Array(9)`. */
  readonly pointLocalPositions = new Float64Array(9);
  /** Each point's rotation in its bone's frame, `Float64Array(12)`. */
  readonly pointLocalRotations = new Float64Array(12);
  /** Point world positions, metres, `Float64Array(9)` (LeftHand, RightHand, Head); set by `update`. */
  readonly pointPositions = new Float64Array(9);
  /** Point world rotations `Float64Array(12)`; identity at the T-pose (character axes). */
  readonly pointRotations = new Float64Array(12);
  /**
   * Uniform scale on point offsets and attached props' local positions (set it to the avatar scale:
   * a point is a child of its bone, so it scales with the avatar). Default 1.
   */
  scale = 1;

  count = 0;
  readonly types: Uint8Array;
  readonly positions: Float64Array;
  /** World rotations `[x, y, z, w]` per slot, `4 * capacity`. */
  readonly rotations: Float64Array;
  readonly attachedPoint: Int8Array;
  /** Attached props' local positions in their point's axes (metres, before `scale`), `3 * capacity`. */
  readonly localPositions: Float64Array;
  /** Attached props' local rotations relative to their point, `4 * capacity`. */
  readonly localRotations: Float64Array;

  private readonly ids: (string | null)[];
  private readonly slots = new Map<string, number>();

  /**
   * @throws PropError when the skeleton lacks a point's bone, the reference is not a T-pose, an offset is
   * not 3 finite numbers, or the capacity is not a positive integer; ReferencePoseError (from
   * canonicalPose) when no reference is given and the skeleton's T-pose cannot be computed.
   */
  constructor(skeleton: Skeleton, options: PropSystemOptions = {}) {
    this.skeleton = skeleton;
    const capacity = options.capacity ?? 32;
    if (!Number.isInteger(capacity) || capacity < 1 || capacity > 100000) {
      throw new PropError(`capacity: need an integer 1..100000, got ${show(capacity)}`);
    }
    this.capacity = capacity;
    this.types = new Uint8Array(capacity);
    this.positions = new Float64Array(3 * capacity);
    this.rotations = new Float64Array(4 * capacity);
    this.attachedPoint = new Int8Array(capacity).fill(-1);
    this.localPositions = new Float64Array(3 * capacity);
    this.localRotations = new Float64Array(4 * capacity);
    this.ids = new Array<string | null>(capacity).fill(null);
    for (let i = 0; i < capacity; i++) this.rotations[4 * i + 3] = 1;

    this.pointBones = new Int32Array(3);
    for (let k = 0; k < 3; k++) {
      const b = skeleton.humanoid[PROP_POINT_BONES[k]];
      if (b < 0) {
        throw new PropError(
          `attachment point ${PROP_POINT_NAMES[k]}: the skeleton does not map the humanoid bone ${HUMAN_BONE_NAMES[PROP_POINT_BONES[k]]}`,
        );
      }
      this.pointBones[k] = b;
    }
    if (options.offsets !== undefined && (options.offsets === null || typeof options.offsets !== 'object')) {
      throw new PropError(`offsets: need an object keyed by point name, got ${show(options.offsets)}`);
    }
    for (const key of Object.keys(options.offsets ?? {})) {
      if (!(PROP_POINT_NAMES as readonly string[]).includes(key)) {
        throw new PropError(`offsets.${key}: not an attachment point (${PROP_POINT_NAMES.join(', ')})`);
      }
    }
    const ref = options.reference ?? canonicalPose(skeleton, { kind: 'T' });
    if (ref.kind !== 'T') {
      throw new PropError(`reference: need the T-pose (kind 'T'), got kind '${ref.kind}'`);
    }
    if (ref.world.rotations.length !== 4 * skeleton.boneCount) {
      throw new PropError(
        `reference: ${ref.world.rotations.length / 4} bones, the skeleton has ${skeleton.boneCount}`,
      );
    }
    const R = ref.world.rotations;
    for (let k = 0; k < 3; k++) {
      const name = PROP_POINT_NAMES[k];
      const off = finiteArray(
        options.offsets?.[name] ?? DEFAULT_PROP_POINT_OFFSETS[name],
        3,
        `offsets.${name}`,
        'metres',
      );
      const b = this.pointBones[k];
      // local rotation = inverse(R_b) (so point world = identity at the T-pose);
      // local position = inverse(R_b) * offset.
      const lr = this.pointLocalRotations;
      lr[4 * k] = -R[4 * b];
      lr[4 * k + 1] = -R[4 * b + 1];
      lr[4 * k + 2] = -R[4 * b + 2];
      lr[4 * k + 3] = R[4 * b + 3];
      vrotate(this.pointLocalPositions, 3 * k, lr, 4 * k, off, 0);
    }
    this.update(ref.world.rotations, ref.world.positions);
  }

  /**
   * Compute each point's world transform from the avatar's current world pose, then each attached
   * prop's. `W`: world rotations `4n` (`[x, y, z, w]` per bone), `P`: world positions `3n` (metres), in
   * the frame the props' positions are in. Allocates nothing.
   * @throws PropError when `W` or `P` is shorter than the skeleton needs.
   */
  update(W: NumArray, P: NumArray): void {
    const n = this.skeleton.boneCount;
    if (W.length < 4 * n) throw new PropError(`update: W has length ${W.length}, need ${4 * n} (${n} bones)`);
    if (P.length < 3 * n) throw new PropError(`update: P has length ${P.length}, need ${3 * n} (${n} bones)`);
    const s = this.scale;
    const pp = this.pointPositions;
    const pr = this.pointRotations;
    for (let k = 0; k < 3; k++) {
      const b = this.pointBones[k];
      qmul(pr, 4 * k, W, 4 * b, this.pointLocalRotations, 4 * k);
      vrotate(pp, 3 * k, W, 4 * b, this.pointLocalPositions, 3 * k);
      pp[3 * k] = P[3 * b] + s * pp[3 * k];
      pp[3 * k + 1] = P[3 * b + 1] + s * pp[3 * k + 1];
      pp[3 * k + 2] = P[3 * b + 2] + s * pp[3 * k + 2];
    }
    const pos = this.positions;
    const att = this.attachedPoint;
    for (let i = 0; i < this.count; i++) {
      const k = att[i];
      if (k < 0) continue;
      qmul(this.rotations, 4 * i, pr, 4 * k, this.localRotations, 4 * i);
      vrotate(pos, 3 * i, pr, 4 * k, this.localPositions, 3 * i);
      pos[3 * i] = pp[3 * k] + s * pos[3 * i];
      pos[3 * i + 1] = pp[3 * k + 1] + s * pos[3 * i + 1];
      pos[3 * i + 2] = pp[3 * k + 2] + s * pos[3 * i + 2];
    }
  }

  /**
   * Register a prop. `position` (metres) and `rotation` (`[x, y, z, w]`, normalised here) are its world
   * transform (defaults: origin, identity). Returns its slot (stable until it is removed).
   * @throws PropError for an id that is not a non-empty string or is taken, an unknown type, a bad
   * position/rotation, or a full registry.
   */
  add(
    id: string,
    type: PropTypeName,
    position: ArrayLike<number> = [0, 0, 0],
    rotation: ArrayLike<number> = [0, 0, 0, 1],
  ): number {
    const key = this.checkId(id, 'add');
    if (this.slots.has(key)) throw new PropError(`add: prop id '${key}' is already registered`);
    const code = this.typeCode(type, `add '${key}': type`);
    const p = finiteArray(position, 3, `add '${key}': position`, 'metres');
    const q = unitQuat(rotation, `add '${key}': rotation`);
    const slot = this.ids.indexOf(null);
    if (slot < 0) {
      throw new PropError(`add '${key}': the registry is full (capacity ${this.capacity})`);
    }
    this.ids[slot] = key;
    this.slots.set(key, slot);
    this.types[slot] = code;
    this.attachedPoint[slot] = -1;
    this.positions.set(p, 3 * slot);
    this.rotations.set(q, 4 * slot);
    if (slot >= this.count) this.count = slot + 1;
    return slot;
  }

  /** Unregister a prop (detaching it first). @throws PropError for an unknown id. */
  remove(id: string): void {
    const slot = this.slotOf(id, 'remove');
    this.slots.delete(id);
    this.ids[slot] = null;
    this.types[slot] = PropType.None;
    this.attachedPoint[slot] = -1;
    while (this.count > 0 && this.ids[this.count - 1] === null) this.count--;
  }

  /** True when a prop with this id is registered. */
  has(id: string): boolean {
    return typeof id === 'string' && this.slots.has(id);
  }

  /**
   * Slot of a registered prop: its position is `positions[3*slot ..]`, its rotation
   * `rotations[4*slot ..]`; a host moving a free prop every frame (another avatar's hand) writes there.
   * @throws PropError for an id that is not registered (naming it and the registered ids).
   */
  slotOf(id: string, call = 'slotOf'): number {
    const key = this.checkId(id, call);
    const slot = this.slots.get(key);
    if (slot === undefined) {
      const known = [...this.slots.keys()];
      throw new PropError(
        `${call}: no prop with id '${key}' (registered: ${known.length ? known.join(', ') : 'none'})`,
      );
    }
    return slot;
  }

  /** Change a prop's type. @throws PropError for an unknown id or type. */
  setType(id: string, type: PropTypeName): void {
    const slot = this.slotOf(id, 'setType');
    this.types[slot] = this.typeCode(type, `setType '${id}': type`);
  }

  /**
   * Set a FREE prop's world transform (set-up time; per frame, write `positions`/`rotations` at the
   * slot). For an attached prop use {@link PropSystem.attach} with a local offset instead.
   * @throws PropError for an unknown id, an attached prop, or a bad position/rotation.
   */
  setTransform(id: string, position: ArrayLike<number>, rotation?: ArrayLike<number>): void {
    const slot = this.slotOf(id, 'setTransform');
    const k = this.attachedPoint[slot];
    if (k >= 0) {
      throw new PropError(
        `setTransform '${id}': the prop is attached to ${PROP_POINT_NAMES[k]}; detach it first or attach with a local offset`,
      );
    }
    this.positions.set(finiteArray(position, 3, `setTransform '${id}': position`, 'metres'), 3 * slot);
    if (rotation !== undefined)
      this.rotations.set(unitQuat(rotation, `setTransform '${id}': rotation`), 4 * slot);
  }

  /**
   * Attach a prop to a point (re-attaching moves it from its current point). Its transform relative to
   * the point (position metres in the point's axes, before `scale`; rotation `[x, y, z, w]`):
   * - default: `options.position`/`options.rotation`, each defaulting to zero/identity (the prop's origin
   *   on the point, its axes the point's);
   * - `keepWorld: true`: whatever keeps its current world transform (no jump), from the point's
   *   transform of the last `update` (the T-pose before the first).
   * The prop's world transform is updated at once from the current point transform.
   * @throws PropError for an unknown id or point, a bad offset, or `keepWorld` with an offset.
   */
  attach(
    id: string,
    point: PropPointName,
    options: { position?: ArrayLike<number>; rotation?: ArrayLike<number>; keepWorld?: boolean } = {},
  ): void {
    const slot = this.slotOf(id, 'attach');
    const k = this.pointCode(point, `attach '${id}': point`);
    const lp = this.localPositions;
    const lr = this.localRotations;
    const pr = this.pointRotations;
    const pp = this.pointPositions;
    if (options.keepWorld) {
      if (options.position !== undefined || options.rotation !== undefined) {
        throw new PropError(`attach '${id}': give either keepWorld or a local position/rotation, not both`);
      }
      const s = this.scale;
      // local = inverse(point) * world: rotation conj(pr) * r; position conj(pr) * (p - pp) / scale.
      const d = [0, 0, 0];
      for (let c = 0; c < 3; c++) d[c] = (this.positions[3 * slot + c] - pp[3 * k + c]) / s;
      const inv = [-pr[4 * k], -pr[4 * k + 1], -pr[4 * k + 2], pr[4 * k + 3]];
      vrotate(lp, 3 * slot, inv, 0, d, 0);
      qmul(lr, 4 * slot, inv, 0, this.rotations, 4 * slot);
    } else {
      const p = finiteArray(options.position ?? [0, 0, 0], 3, `attach '${id}': position`, 'metres');
      const q = unitQuat(options.rotation ?? [0, 0, 0, 1], `attach '${id}': rotation`);
      lp.set(p, 3 * slot);
      lr.set(q, 4 * slot);
    }
    this.attachedPoint[slot] = k;
    // world = point * local, now
    const s = this.scale;
    qmul(this.rotations, 4 * slot, pr, 4 * k, lr, 4 * slot);
    vrotate(this.positions, 3 * slot, pr, 4 * k, lp, 3 * slot);
    for (let c = 0; c < 3; c++)
      this.positions[3 * slot + c] = pp[3 * k + c] + s * this.positions[3 * slot + c];
  }

  /**
   * Detach a prop: it becomes free and stays where it was (its last world transform).
   * @throws PropError for an unknown id or a prop that is not attached.
   */
  detach(id: string): void {
    const slot = this.slotOf(id, 'detach');
    if (this.attachedPoint[slot] < 0) throw new PropError(`detach: prop '${id}' is not attached`);
    this.attachedPoint[slot] = -1;
  }

  /** Ids of the props attached to a point, in slot order. @throws PropError for an unknown point. */
  propsAt(point: PropPointName): string[] {
    const k = this.pointCode(point, 'propsAt: point');
    const out: string[] = [];
    for (let i = 0; i < this.count; i++)
      if (this.ids[i] !== null && this.attachedPoint[i] === k) out.push(this.ids[i]!);
    return out;
  }

  /** Snapshot of one prop. @throws PropError for an unknown id. */
  get(id: string): PropInfo {
    return this.info(this.slotOf(id, 'get'));
  }

  /** Snapshots of every registered prop, in slot order. */
  list(): PropInfo[] {
    const out: PropInfo[] = [];
    for (let i = 0; i < this.count; i++) if (this.ids[i] !== null) out.push(this.info(i));
    return out;
  }

  /**
   * Everything `update` and the limb weights read from the past (for hot reload): scale, every slot
   * (null when empty; id, type, attachment, world and local transforms) and the points' last world
   * transforms (attach with keepWorld reads them). Slots are kept as they are.
   */
  exportState(): PropSystemState {
    const slots: (PropSlotState | null)[] = [];
    for (let i = 0; i < this.count; i++) {
      const id = this.ids[i];
      if (id === null) {
        slots.push(null);
        continue;
      }
      slots.push({
        id,
        type: PROP_TYPE_NAMES[this.types[i]],
        attachedTo: this.attachedPoint[i] >= 0 ? PROP_POINT_NAMES[this.attachedPoint[i]] : null,
        position: Array.from(this.positions.subarray(3 * i, 3 * i + 3)),
        rotation: Array.from(this.rotations.subarray(4 * i, 4 * i + 4)),
        localPosition: Array.from(this.localPositions.subarray(3 * i, 3 * i + 3)),
        localRotation: Array.from(this.localRotations.subarray(4 * i, 4 * i + 4)),
      });
    }
    return {
      scale: this.scale,
      slots,
      pointPositions: Array.from(this.pointPositions),
      pointRotations: Array.from(this.pointRotations),
    };
  }

  /**
   * Replace the registry with a state from {@link PropSystem.exportState} (same slots). Checked before
   * anything changes. @throws PropError naming the bad field.
   */
  importState(state: PropSystemState): void {
    if (state === null || typeof state !== 'object') throw new PropError('props state: need an object');
    const nums = (v: unknown, n: number, field: string) => {
      if (!Array.isArray(v) || v.length !== n || v.some((x) => typeof x !== 'number'))
        throw new PropError(`props state.${field}: need ${n} numbers`);
    };
    if (typeof state.scale !== 'number' || !(state.scale > 0))
      throw new PropError('props state.scale: need a positive number');
    if (!Array.isArray(state.slots) || state.slots.length > this.capacity)
      throw new PropError(`props state.slots: need an array of at most ${this.capacity} slots`);
    nums(state.pointPositions, 9, 'pointPositions');
    nums(state.pointRotations, 12, 'pointRotations');
    const seen = new Set<string>();
    state.slots.forEach((sl, i) => {
      if (sl === null) return;
      const f = `slots[${i}]`;
      if (typeof sl !== 'object') throw new PropError(`props state.${f}: need an object or null`);
      this.checkId(sl.id, `props state.${f}.id`);
      if (seen.has(sl.id)) throw new PropError(`props state.${f}.id: '${sl.id}' appears twice`);
      seen.add(sl.id);
      this.typeCode(sl.type, `props state.${f}.type`);
      if (sl.attachedTo !== null) this.pointCode(sl.attachedTo, `props state.${f}.attachedTo`);
      nums(sl.position, 3, `${f}.position`);
      nums(sl.rotation, 4, `${f}.rotation`);
      nums(sl.localPosition, 3, `${f}.localPosition`);
      nums(sl.localRotation, 4, `${f}.localRotation`);
    });
    this.slots.clear();
    this.ids.fill(null);
    this.types.fill(PropType.None);
    this.attachedPoint.fill(-1);
    this.count = state.slots.length;
    state.slots.forEach((sl, i) => {
      if (sl === null) return;
      this.ids[i] = sl.id;
      this.slots.set(sl.id, i);
      this.types[i] = this.typeCode(sl.type, 'type');
      this.attachedPoint[i] = sl.attachedTo === null ? -1 : this.pointCode(sl.attachedTo, 'attachedTo');
      this.positions.set(sl.position, 3 * i);
      this.rotations.set(sl.rotation, 4 * i);
      this.localPositions.set(sl.localPosition, 3 * i);
      this.localRotations.set(sl.localRotation, 4 * i);
    });
    while (this.count > 0 && this.ids[this.count - 1] === null) this.count--;
    this.scale = state.scale;
    this.pointPositions.set(state.pointPositions);
    this.pointRotations.set(state.pointRotations);
  }

  private info(slot: number): PropInfo {
    const k = this.attachedPoint[slot];
    const p = this.positions;
    const r = this.rotations;
    return {
      id: this.ids[slot]!,
      type: PROP_TYPE_NAMES[this.types[slot]],
      slot,
      attachedTo: k >= 0 ? PROP_POINT_NAMES[k] : null,
      position: [p[3 * slot], p[3 * slot + 1], p[3 * slot + 2]],
      rotation: [r[4 * slot], r[4 * slot + 1], r[4 * slot + 2], r[4 * slot + 3]],
    };
  }

  private checkId(id: unknown, call: string): string {
    if (typeof id !== 'string' || id.length === 0) {
      throw new PropError(
        `${call}: id: need a non-empty string, got ${id === '' ? 'an empty string' : show(id)}`,
      );
    }
    return id;
  }

  private typeCode(type: unknown, field: string): number {
    const i = (PROP_TYPE_NAMES as readonly unknown[]).indexOf(type);
    if (i < 0)
      throw new PropError(`${field}: ${show(type)} is not a prop type (${PROP_TYPE_NAMES.join(', ')})`);
    return i;
  }

  private pointCode(point: unknown, field: string): number {
    const i = (PROP_POINT_NAMES as readonly unknown[]).indexOf(point);
    if (i < 0) {
      throw new PropError(
        `${field}: ${show(point)} is not an attachment point (${PROP_POINT_NAMES.join(', ')})`,
      );
    }
    return i;
  }
}
