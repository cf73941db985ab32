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
  ONE_EURO_RESET_GAP,
  OneEuroBank,
  type OneEuroParams,
  oneEuroAlpha,
  type Skeleton,
} from '../core';

const TWO_PI = 2 * Math.PI;

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

/**
 * The live source stage of one hub (module doc): keeps the raw frame and runs every bone's world pose through
 * a One-Euro filter.
 */
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
  /** The derivative's One-Euro smoothing factor per group for this frame's te. */
  private readonly aD = new Float64Array(3);

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
    // Written for interpreters as well as JITs (PuerTS on phones runs without a JIT): one flat loop, the
    // filters' common case (channel started, 0 < te <= the reset gap, a good sample) written out with the
    // same expressions as OneEuroBank's steps, every other case through OneEuroBank.step itself; the
    // derivative's smoothing factor folded per group per frame (the same value oneEuroAlpha gives).
    const rot = this.rot;
    const pos = this.pos;
    const rv = rot.value;
    const rs = rot.speed;
    const rr = rot.ready;
    const pv = pos.value;
    const ps = pos.speed;
    const pr = pos.ready;
    const teOk = te > 0 && te <= ONE_EURO_RESET_GAP;
    const aD = this.aD;
    for (let g = 0; g < 3; g++) aD[g] = teOk ? oneEuroAlpha(prm[3 * g + 2], te) : 0;
    const k2pi = TWO_PI;
    for (let b = 0; b < n; b++) {
      const g = groups[b];
      const g3 = 3 * g;
      const fc = prm[g3];
      const b4 = 4 * b;
      const b3 = 3 * b;
      const on = fc > 0;
      // rotation channel
      let qx = RW[b4];
      let qy = RW[b4 + 1];
      let qz = RW[b4 + 2];
      let qw = RW[b4 + 3];
      const len = on && teOk && rr[b] === 1 ? Math.sqrt(qx * qx + qy * qy + qz * qz + qw * qw) : 0;
      if (len > 1e-9 && len < Number.POSITIVE_INFINITY) {
        const beta = prm[g3 + 1];
        qx /= len;
        qy /= len;
        qz /= len;
        qw /= len;
        const px = rv[b4];
        const py = rv[b4 + 1];
        const pz = rv[b4 + 2];
        const pw = rv[b4 + 3];
        let d = qx * px + qy * py + qz * pz + qw * pw;
        if (d < 0) {
          qx = -qx;
          qy = -qy;
          qz = -qz;
          qw = -qw;
          d = -d;
        }
        const rate = (2 * Math.acos(Math.min(d, 1))) / te;
        const e = rs[b] + aD[g] * (rate - rs[b]);
        rs[b] = e;
        const a = 1 / (1 + 1 / (k2pi * (fc + beta * e) * te));
        const rx = px + a * (qx - px);
        const ry = py + a * (qy - py);
        const rz = pz + a * (qz - pz);
        const rw = pw + a * (qw - pw);
        const rl = Math.sqrt(rx * rx + ry * ry + rz * rz + rw * rw);
        const ox = rx / rl;
        const oy = ry / rl;
        const oz = rz / rl;
        const ow = rw / rl;
        rv[b4] = ox;
        rv[b4 + 1] = oy;
        rv[b4 + 2] = oz;
        rv[b4 + 3] = ow;
        W[b4] = ox;
        W[b4 + 1] = oy;
        W[b4 + 2] = oz;
        W[b4 + 3] = ow;
      } else rot.step(b, RW, b4, W, b4, te, fc, prm[g3 + 1], prm[g3 + 2]);
      // position channel
      const x0 = PW[b3];
      const x1 = PW[b3 + 1];
      const x2 = PW[b3 + 2];
      if (on && teOk && pr[b] === 1 && x0 - x0 === 0 && x1 - x1 === 0 && x2 - x2 === 0) {
        const beta = prm[g3 + 1];
        const ad = aD[g];
        let prev = pv[b3];
        let dx = (x0 - prev) / te;
        let edx = ps[b3] + ad * (dx - ps[b3]);
        ps[b3] = edx;
        let a = 1 / (1 + 1 / (k2pi * (fc + beta * (edx < 0 ? -edx : edx)) * te));
        const o0 = prev + a * (x0 - prev);
        pv[b3] = o0;
        P[b3] = o0;
        prev = pv[b3 + 1];
        dx = (x1 - prev) / te;
        edx = ps[b3 + 1] + ad * (dx - ps[b3 + 1]);
        ps[b3 + 1] = edx;
        a = 1 / (1 + 1 / (k2pi * (fc + beta * (edx < 0 ? -edx : edx)) * te));
        const o1 = prev + a * (x1 - prev);
        pv[b3 + 1] = o1;
        P[b3 + 1] = o1;
        prev = pv[b3 + 2];
        dx = (x2 - prev) / te;
        edx = ps[b3 + 2] + ad * (dx - ps[b3 + 2]);
        ps[b3 + 2] = edx;
        a = 1 / (1 + 1 / (k2pi * (fc + beta * (edx < 0 ? -edx : edx)) * te));
        const o2 = prev + a * (x2 - prev);
        pv[b3 + 2] = o2;
        P[b3 + 2] = o2;
      } else pos.step(b, PW, b3, P, b3, te, fc, prm[g3 + 1], prm[g3 + 2]);
      const p = parents[b];
      if (!on && (p < 0 || passed[p] === 1)) {
        // off, under a parent passed through: the input as is
        passed[b] = 1;
        L[b4] = RL[b4];
        L[b4 + 1] = RL[b4 + 1];
        L[b4 + 2] = RL[b4 + 2];
        L[b4 + 3] = RL[b4 + 3];
        T[b3] = TL[b3];
        T[b3 + 1] = TL[b3 + 1];
        T[b3 + 2] = TL[b3 + 2];
        continue;
      }
      passed[b] = 0;
      if (p < 0) {
        L[b4] = W[b4];
        L[b4 + 1] = W[b4 + 1];
        L[b4 + 2] = W[b4 + 2];
        L[b4 + 3] = W[b4 + 3];
        T[b3] = P[b3];
        T[b3 + 1] = P[b3 + 1];
        T[b3 + 2] = P[b3 + 2];
      } else {
        const p4 = 4 * p;
        const p3 = 3 * p;
        // L = conj(W[p]) * W[b] (flat qmulConj written out)
        const ax = -W[p4];
        const ay = -W[p4 + 1];
        const az = -W[p4 + 2];
        const aw = W[p4 + 3];
        const bx = W[b4];
        const by = W[b4 + 1];
        const bz = W[b4 + 2];
        const bw = W[b4 + 3];
        L[b4] = ax * bw + aw * bx + ay * bz - az * by;
        L[b4 + 1] = ay * bw + aw * by + az * bx - ax * bz;
        L[b4 + 2] = az * bw + aw * bz + ax * by - ay * bx;
        L[b4 + 3] = aw * bw - ax * bx - ay * by - az * bz;
        // T = rotate(conj(W[p]), P[b] - P[p]) (flat vrotateConj written out)
        const x = P[b3] - P[p3];
        const y = P[b3 + 1] - P[p3 + 1];
        const z = P[b3 + 2] - P[p3 + 2];
        let uvx = ay * z - az * y;
        let uvy = az * x - ax * z;
        let uvz = ax * y - ay * x;
        let uuvx = ay * uvz - az * uvy;
        let uuvy = az * uvx - ax * uvz;
        let uuvz = ax * uvy - ay * uvx;
        const w2 = aw * 2;
        uvx *= w2;
        uvy *= w2;
        uvz *= w2;
        uuvx *= 2;
        uuvy *= 2;
        uuvz *= 2;
        T[b3] = x + uvx + uuvx;
        T[b3 + 1] = y + uvy + uuvy;
        T[b3 + 2] = z + uvz + uuvz;
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
