/**
 * The live source stage: what runs on the performer's pose every frame before the hub. Engine-free;
 * every live host uses it through {@link RetargetHub.updateLive} (Node `kind live`, the Unity bridge).
 *
 * Each `update(localRotations, localTranslations, te)`:
 * 1. keeps the raw frame: local pose as given, and its world pose by forward kinematics
 *    ({@link SourceStage.rawWorldRotations}, {@link SourceStage.rawWorldPositions});
 * 2. filters every bone's world position (per axis) and world rotation (unit quaternion, hemisphere
 *    continuous, renormalised) with the One-Euro filter (src/core/oneEuro.ts; Casiez, Roussel, Vogel,
 *    CHI 2012), with the parameters of the bone's group: `hands` (HumanBodyBones LeftHand, RightHand
 *    and the 30 finger bones), `feet` (LeftFoot, RightFoot, LeftToes, RightToes) or `body` (all other
 *    bones, mapped or not) ({@link SourceStage.worldRotations}, {@link SourceStage.worldPositions});
 * 3. turns the filtered world pose back into a local pose ({@link SourceStage.localRotations},
 *    {@link SourceStage.localTranslations}): `inverse(parentWorld) * world` and the parent-frame
 *    offset, so forward kinematics of it gives the filtered world pose (bone lengths included). This is
 *    what the hub's copy step reads; its foot IK targets come from the filtered ankle positions (hung
 *    from the avatar's hips, which carry `floorHeight`).
 *
 * With a group off (`minCutoff` 0) its bones keep their raw world pose; a bone whose group is off and
 * whose parent is passed through too (or that is a root) gets its input local pose copied, so with
 * every group off the hub reads the raw stream bit for bit.
 *
 * `te` is the interval in seconds since the previous frame from the stream's own clock (NatNet
 * timestamps, Unity's `Time.deltaTime`), dropped frames included; see src/core/oneEuro.ts for repeated
 * frames, gaps and NaN. Everything per frame allocates nothing.
 */
import {
  forwardKinematics,
  HumanBodyBones as H,
  OneEuroBank,
  type OneEuroParams,
  qcopy,
  qmulConj,
  type Skeleton,
  vrotateConj,
} from '../core';
import {
  defaultSourceFilter,
  SOURCE_FILTER_GROUPS,
  type SourceFilterGroup,
  type SourceFilterSettings,
} from './settings';

/** Group index per bone: 0 body, 1 hands, 2 feet (the order of SOURCE_FILTER_GROUPS). */
export function sourceBoneGroups(skeleton: Skeleton): Uint8Array {
  const g = new Uint8Array(skeleton.boneCount);
  const set = (h: number, v: number) => {
    const b = skeleton.humanoid[h];
    if (b >= 0) g[b] = v;
  };
  set(H.LeftHand, 1);
  set(H.RightHand, 1);
  for (let h = H.LeftThumbProximal; h <= H.RightLittleDistal; h++) set(h, 1);
  for (const h of [H.LeftFoot, H.RightFoot, H.LeftToes, H.RightToes]) set(h, 2);
  return g;
}

/** The stage's memory for hot reload: the last raw frame and the filters' state. */
export interface SourceStageState {
  rawLocalRotations: number[];
  rawLocalTranslations: number[];
  rotations: { value: number[]; speed: number[]; ready: number[] };
  positions: { value: number[]; speed: number[]; ready: number[] };
  /** True once a frame went through. */
  hasFrame: boolean;
}

export class SourceStage {
  readonly skeleton: Skeleton;
  /** Group per bone (0 body, 1 hands, 2 feet). */
  readonly groups: Uint8Array;
  /** The last frame as given: local rotations `4n`, translations `3n` (metres, parent frame). */
  readonly rawLocalRotations: Float64Array;
  readonly rawLocalTranslations: Float64Array;
  /** The last frame's raw world pose: rotations `4n` `[x, y, z, w]`, positions `3n` metres. */
  readonly rawWorldRotations: Float64Array;
  readonly rawWorldPositions: Float64Array;
  /** The filtered world pose. */
  readonly worldRotations: Float64Array;
  readonly worldPositions: Float64Array;
  /** The filtered pose as local rotations `4n` and translations `3n`: the hub's input. */
  readonly localRotations: Float64Array;
  readonly localTranslations: Float64Array;
  /** True once a frame went through {@link SourceStage.update}. */
  hasFrame = false;

  /** minCutoff, beta, dCutoff per group. */
  private readonly params = new Float64Array(9);
  private readonly rot: OneEuroBank;
  private readonly pos: OneEuroBank;
  private readonly passed: Uint8Array;
  private readonly v3 = new Float64Array(3);

  constructor(skeleton: Skeleton, filter: SourceFilterSettings = defaultSourceFilter()) {
    const n = skeleton.boneCount;
    this.skeleton = skeleton;
    this.groups = sourceBoneGroups(skeleton);
    this.rawLocalRotations = Float64Array.from(skeleton.restRotations);
    this.rawLocalTranslations = Float64Array.from(skeleton.restTranslations);
    this.rawWorldRotations = new Float64Array(4 * n);
    this.rawWorldPositions = new Float64Array(3 * n);
    forwardKinematics(
      skeleton,
      this.rawLocalRotations,
      this.rawLocalTranslations,
      this.rawWorldRotations,
      this.rawWorldPositions,
    );
    this.worldRotations = Float64Array.from(this.rawWorldRotations);
    this.worldPositions = Float64Array.from(this.rawWorldPositions);
    this.localRotations = Float64Array.from(this.rawLocalRotations);
    this.localTranslations = Float64Array.from(this.rawLocalTranslations);
    this.rot = new OneEuroBank(n, 'rotation');
    this.pos = new OneEuroBank(n, 'position');
    this.passed = new Uint8Array(n);
    this.configure(filter);
  }

  /** Set the filter parameters (already validated: settings.ts). Takes effect on the next frame. */
  configure(filter: SourceFilterSettings): void {
    SOURCE_FILTER_GROUPS.forEach((g, i) => {
      const p = filter[g];
      this.params[3 * i] = p.minCutoff;
      this.params[3 * i + 1] = p.beta;
      this.params[3 * i + 2] = p.dCutoff;
    });
  }

  /** The parameters of a group in force (a copy). */
  groupParams(group: SourceFilterGroup): OneEuroParams {
    const i = SOURCE_FILTER_GROUPS.indexOf(group);
    return { minCutoff: this.params[3 * i], beta: this.params[3 * i + 1], dCutoff: this.params[3 * i + 2] };
  }

  /** Forget the filters' memory: the next frame passes through and they start from it. */
  reset(): void {
    this.rot.reset();
    this.pos.reset();
  }

  /**
   * One frame: `localRot` `4n`, `localPos` `3n` (the source skeleton's local pose, metres), `te`
   * seconds since the previous frame. Writes the raw and filtered poses. Allocates nothing.
   * @throws RangeError for arrays of the wrong length.
   */
  update(localRot: ArrayLike<number>, localPos: ArrayLike<number>, te: number): void {
    const sk = this.skeleton;
    const n = sk.boneCount;
    if (localRot?.length !== 4 * n || localPos?.length !== 3 * n)
      throw new RangeError(
        `source stage: rotations/translations have lengths ${localRot?.length}/${localPos?.length}, expected ${4 * n}/${3 * n}`,
      );
    const RL = this.rawLocalRotations;
    const TL = this.rawLocalTranslations;
    for (let i = 0; i < 4 * n; i++) RL[i] = localRot[i];
    for (let i = 0; i < 3 * n; i++) TL[i] = localPos[i];
    const RW = this.rawWorldRotations;
    const PW = this.rawWorldPositions;
    forwardKinematics(sk, RL, TL, RW, PW);
    const W = this.worldRotations;
    const P = this.worldPositions;
    const prm = this.params;
    const groups = this.groups;
    const parents = sk.parents;
    const passed = this.passed;
    const L = this.localRotations;
    const T = this.localTranslations;
    const v = this.v3;
    for (let b = 0; b < n; b++) {
      const g3 = 3 * groups[b];
      const fc = prm[g3];
      const beta = prm[g3 + 1];
      const dc = prm[g3 + 2];
      const b4 = 4 * b;
      const b3 = 3 * b;
      this.rot.step(b, RW, b4, W, b4, te, fc, beta, dc);
      this.pos.step(b, PW, b3, P, b3, te, fc, beta, dc);
      const p = parents[b];
      if (!(fc > 0) && (p < 0 || passed[p] === 1)) {
        // off, under a parent passed through: the input as is
        passed[b] = 1;
        qcopy(L, b4, RL, b4);
        T[b3] = TL[b3];
        T[b3 + 1] = TL[b3 + 1];
        T[b3 + 2] = TL[b3 + 2];
        continue;
      }
      passed[b] = 0;
      if (p < 0) {
        qcopy(L, b4, W, b4);
        T[b3] = P[b3];
        T[b3 + 1] = P[b3 + 1];
        T[b3 + 2] = P[b3 + 2];
      } else {
        const p4 = 4 * p;
        const p3 = 3 * p;
        qmulConj(L, b4, W, p4, W, b4);
        v[0] = P[b3] - P[p3];
        v[1] = P[b3 + 1] - P[p3 + 1];
        v[2] = P[b3 + 2] - P[p3 + 2];
        vrotateConj(T, b3, W, p4, v, 0);
      }
    }
    this.hasFrame = true;
  }

  /**
   * The last raw world position of a humanoid bone (metres, the source's frame) into `out[0..2]`.
   * @returns false (and `out` untouched) when the skeleton has no such bone or no frame came yet.
   */
  tryGetRawWorldPosition(bone: number, out: { [i: number]: number }): boolean {
    return this.read(this.rawWorldPositions, 3, bone, out);
  }

  /** The last raw world rotation `[x, y, z, w]` of a humanoid bone; false when missing. */
  tryGetRawWorldRotation(bone: number, out: { [i: number]: number }): boolean {
    return this.read(this.rawWorldRotations, 4, bone, out);
  }

  /** The last filtered world position of a humanoid bone; false when missing. */
  tryGetWorldPosition(bone: number, out: { [i: number]: number }): boolean {
    return this.read(this.worldPositions, 3, bone, out);
  }

  /** The last filtered world rotation of a humanoid bone; false when missing. */
  tryGetWorldRotation(bone: number, out: { [i: number]: number }): boolean {
    return this.read(this.worldRotations, 4, bone, out);
  }

  private read(a: Float64Array, k: number, bone: number, out: { [i: number]: number }): boolean {
    const b = bone >= 0 && bone < this.skeleton.humanoid.length ? this.skeleton.humanoid[bone] : -1;
    if (b < 0 || !this.hasFrame) return false;
    for (let c = 0; c < k; c++) out[c] = a[k * b + c];
    return true;
  }

  /** The stage's memory (raw frame, filter state) for hot reload. Allocates. */
  exportState(): SourceStageState {
    const bank = (x: OneEuroBank) => ({
      value: Array.from(x.value),
      speed: Array.from(x.speed),
      ready: Array.from(x.ready),
    });
    return {
      rawLocalRotations: Array.from(this.rawLocalRotations),
      rawLocalTranslations: Array.from(this.rawLocalTranslations),
      rotations: bank(this.rot),
      positions: bank(this.pos),
      hasFrame: this.hasFrame,
    };
  }

  /**
   * Restore {@link SourceStage.exportState}'s memory (same skeleton) and the raw world pose from it.
   * @throws RangeError naming the field of a wrong length or type.
   */
  importState(st: SourceStageState): void {
    const put = (name: string, dst: Float64Array | Uint8Array, src: unknown) => {
      if (!Array.isArray(src) || src.length !== dst.length || src.some((x) => typeof x !== 'number'))
        throw new RangeError(`source.${name}: need ${dst.length} numbers`);
      dst.set(src);
    };
    if (st === null || typeof st !== 'object') throw new RangeError('source: need an object');
    const rl = new Float64Array(this.rawLocalRotations.length);
    const tl = new Float64Array(this.rawLocalTranslations.length);
    put('rawLocalRotations', rl, st.rawLocalRotations);
    put('rawLocalTranslations', tl, st.rawLocalTranslations);
    for (const [name, bank] of [
      ['rotations', this.rot],
      ['positions', this.pos],
    ] as const) {
      const b = st[name];
      if (b === null || typeof b !== 'object') throw new RangeError(`source.${name}: need an object`);
      put(`${name}.value`, bank.value, b.value);
      put(`${name}.speed`, bank.speed, b.speed);
      put(`${name}.ready`, bank.ready, b.ready);
    }
    this.rawLocalRotations.set(rl);
    this.rawLocalTranslations.set(tl);
    forwardKinematics(this.skeleton, rl, tl, this.rawWorldRotations, this.rawWorldPositions);
    this.hasFrame = st.hasFrame === true;
  }
}
