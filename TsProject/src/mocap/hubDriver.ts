/**
 * Webcam mocap through the live hub (issue 23 item 2): the solver's pose is a source like NatNet's.
 * {@link MocapHubDriver} owns a {@link RetargetHub} (src/rig) on the mocap source skeleton and an avatar,
 * and each {@link MocapHubDriver.step} (one solver frame) runs:
 *
 * 1. the hub's source stage (src/rig/sourceStage.ts: One-Euro on every bone, `settings.sourceFilter`,
 *    the hub's defaults) on the solver's local pose, with the frame's own interval;
 * 2. the causal foot contact (./causalContact.ts: src/contact's rule on past and current frames only) on
 *    the filtered ankle and toe-tip points (the Foot and Toes joints of the mocap skeleton; the points
 *    the hub's foot IK targets come from);
 * 3. per limb (left arm, right arm, left leg, right leg) a confidence weight: the limb's lowest bone
 *    confidence (upper, lower, end bone) mapped linearly from 0 at `confidenceLow` (0.3) to 1 at
 *    `confidenceHigh` (0.5, the solver's "seen" threshold), moved towards it at most `1 / limbRampSeconds`
 *    per second (default 0.3 s from 1 to 0: a limb that leaves the image goes to FK within 0.3 s of its
 *    confidence dropping, never in one frame; the same ramp back up when it is seen again). It scales the
 *    hub's own IK weight (the situational limb weights, src/rig/limbWeights.ts; 1 / 0 with IK forced on /
 *    off) and goes in through the hub's per-limb IK weight override (`ikWeightOverride`, position and
 *    rotation; the mechanism the Unity facade's LimbIK weights use). The hub's own weight is the previous
 *    frame's (it needs this frame's pose; LimbWeights limits its change to 4 per second, 0.13 a frame at 30
 *    fps); on the first frame 0. With IK weight 0 a limb is FK: the copied solver pose, which for an unseen
 *    limb is the solver's held, then filled (relaxed) pose, itself smooth (./solver.ts);
 * 4. foot pinning: while a foot is in contact its IK target's horizontal position (x, z) is held where the
 *    contact began (the foot's target of the frame before: no jump at the start), its height follows
 *    the hub's own target (a heel rising about a planted toe keeps the source's height; the floor is the
 *    solver's lowest-foot rule plus the hub's floor height); when the contact ends the pin blends out to the
 *    hub's own target over `pinReleaseSeconds` (0.1 s, linear in time). Through the hub's IK target override
 *    (`ikGoalOverride`, the original's `LimbIK.target`). A pinned leg is solved only where its IK weight is
 *    above 0;
 * 5. the hub's update (copy, hips, floor, IK, fingers...) on the filtered pose: together with step 1
 *    exactly `RetargetHub.updateLive` (split so the detector reads the filtered points first).
 *
 * Frames: the hub's world (DESIGN.md: Y up, metres, facing +Z); times in milliseconds from the recording
 * (any origin), intervals in seconds. `step` allocates nothing.
 */
import { HumanBodyBones as H, type Skeleton } from '../core';
import { decodeStateNumbers, encodeStateNumbers, type HubOptions, RetargetHub } from '../rig';
import { MB, MOCAP_BONE_COUNT, MOCAP_BONES } from './bones';
import { type MocapCalibration, mocapSkeleton } from './calibrate';
import { type CausalContactOptions, CausalFootContact } from './causalContact';

/**
 * Options of a {@link MocapHubDriver}: the hub's options, the confidence ramp of the limb weights, the foot
 * contact and the time steps (seconds).
 */
export interface MocapHubOptions {
  /** Hub options (default hipsMode 'room', ik 'auto'). */
  hub?: HubOptions;
  /** Confidence at or below which a limb's weight target is 0 (default 0.3). */
  confidenceLow?: number;
  /** Confidence at or above which it is 1 (default 0.5). */
  confidenceHigh?: number;
  /** Seconds a limb's confidence weight takes from 1 to 0 or back (default 0.3). */
  limbRampSeconds?: number;
  /** Foot contact pinning: false = off; else detector options over the calibration's (./causalContact.ts). */
  contact?: false | Partial<CausalContactOptions>;
  /** Seconds a pin takes to blend out after its contact ends (default 0.1). */
  pinReleaseSeconds?: number;
  /** The hub's smoothing interval is clamped to this, seconds (default 0.1; the source stage gets the real one). */
  maxHubStepSeconds?: number;
}

/** Thrown for bad mocap-hub input (wrong skeleton, buffer length, options); the message names the field. */
export class MocapHubError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MocapHubError';
  }
}

/** What {@link MocapHubDriver.stepFrame} reads of a solved frame (a MocapSolver after `step`). */
export interface MocapSolved {
  readonly localRotations: ArrayLike<number>;
  readonly localTranslations: ArrayLike<number>;
  readonly confidence: ArrayLike<number>;
}

/** The limbs' bones in solver order (upper, lower, end), in the hub's limb order. */
const LIMB_BONES = [
  [MB.LeftUpperArm, MB.LeftLowerArm, MB.LeftHand],
  [MB.RightUpperArm, MB.RightLowerArm, MB.RightHand],
  [MB.LeftUpperLeg, MB.LeftLowerLeg, MB.LeftFoot],
  [MB.RightUpperLeg, MB.RightLowerLeg, MB.RightFoot],
] as const;

/**
 * What the driver needs of a mocap source when it has no calibration (a skeleton received over the
 * stream, src/mocap/stream.ts): the skeleton itself (the 21 bones in MOCAP_BONES order) and the contact
 * detector's leg length and ankle level (metres). {@link mocapSourceFigure} derives them from the skeleton.
 */
export interface MocapSourceFigure {
  skeleton: Skeleton;
  legLength: number;
  ankleLevel: number;
}

/**
 * The {@link MocapSourceFigure} of a mocap skeleton (rest T-pose, as `mocapSkeleton` builds it): leg length =
 * the mean over the sides of thigh + shin (the LowerLeg's and the Foot's rest offsets), ankle level = the
 * toe tip's drop below the ankle (the Toes' rest offset; the heel's, not in a skeleton, is the calibration's
 * other candidate and by default the same 7 cm).
 * @throws MocapHubError when the skeleton's bones are not the mocap's 21 in MOCAP_BONES order.
 */
export function mocapSourceFigure(skeleton: Skeleton): MocapSourceFigure {
  const names = skeleton.names;
  if (names.length !== MOCAP_BONE_COUNT || MOCAP_BONES.some((n, i) => names[i] !== n))
    throw new MocapHubError(
      `mocap hub: the source skeleton's bones must be the mocap's ${MOCAP_BONE_COUNT} in order (${MOCAP_BONES.join(', ')}); got ${names.join(', ')}`,
    );
  const r = skeleton.restTranslations;
  const len = (b: number) => Math.hypot(r[3 * b], r[3 * b + 1], r[3 * b + 2]);
  const legLength =
    0.5 * (len(MB.LeftLowerLeg) + len(MB.LeftFoot) + len(MB.RightLowerLeg) + len(MB.RightFoot));
  const ankleLevel = Math.max(0, -Math.min(r[3 * MB.LeftToes + 1], r[3 * MB.RightToes + 1]));
  return { skeleton, legLength, ankleLevel };
}

/** A streamed pose as src/mocap/stream.ts's `MocapStreamFrame` holds it (what {@link MocapHubDriver.stepStream} reads). */
export interface MocapStreamed {
  readonly rotations: ArrayLike<number>;
  readonly translations: ArrayLike<number>;
  readonly confidence: ArrayLike<number>;
  /** The frame's time on the page's clock, ms. */
  readonly timeMs: number;
}

/**
 * A {@link MocapHubDriver}'s memory for a hot reload (src/unity/bridge.ts exportState): the limb ramps, the
 * pins, the clock, the own target heights and the contact detector's memory. JSON-safe: non-finite numbers
 * (the clock's NaN before the first frame) are `{"$num": "NaN"}` (src/rig/hubState.ts encodeStateNumbers).
 */
export interface MocapDriverState {
  version: 1;
  frames: number;
  limbTarget: number[];
  limbWeight: number[];
  ikWeight: number[];
  pinned: number[];
  pinPosition: number[];
  pinBlend: number[];
  contactPoints: number[];
  clock: number[];
  ownY: number[];
  ownSrcY: number[];
  /** CausalFootContact.exportState, or null with `contact: false`. */
  contact: number[] | null;
}

const DRIVER_ARRAYS = [
  'limbTarget',
  'limbWeight',
  'ikWeight',
  'pinned',
  'pinPosition',
  'pinBlend',
  'contactPoints',
  'clock',
  'ownY',
  'ownSrcY',
] as const;

/** The mocap source driving one avatar through the hub (module doc). */
export class MocapHubDriver {
  readonly hub: RetargetHub;
  readonly source: Skeleton;
  /** The solver's calibration the driver was built on, or null when built on a {@link MocapSourceFigure}. */
  readonly calibration: MocapCalibration | null;
  /** The contact detector, or null with `contact: false`. */
  readonly contact: CausalFootContact | null;
  /** Per limb, this frame's confidence weight target and the smoothed weight, [0, 1] (hub limb order). */
  readonly limbTarget = new Float64Array(4);
  readonly limbWeight = new Float64Array(4);
  /** Per limb, the IK position weight given to the hub this frame (own x confidence weight). */
  readonly ikWeight = new Float64Array(4);
  /** Per foot (0 left, 1 right): 1 while pinned (in contact). */
  readonly pinned = new Uint8Array(2);
  /** Per foot the pin's world position (x, y, z; y unused), metres. */
  readonly pinPosition = new Float64Array(6);
  /** Per foot the pin's blend, 1 in contact, falling to 0 over the release. */
  readonly pinBlend = new Float64Array(2);
  /** The detector's points this frame: left ankle, left toe, right ankle, right toe (world, metres). */
  readonly contactPoints = new Float64Array(12);
  /** Frames stepped. */
  frames = 0;
  private readonly o: Required<Omit<MocapHubOptions, 'hub' | 'contact'>>;
  /** [last time ms, this frame's interval s, this frame's time ms]. */
  private readonly clock = new Float64Array(3);
  private readonly sAnkle: Int32Array;
  private readonly sToe: Int32Array;
  private readonly sHips: number;
  private readonly vHips: number;
  /** Per foot, the hub's own target height last frame, and its source part (hips x hips scale + k (ankle - hips)). */
  private readonly ownY = new Float64Array(2);
  private readonly ownSrcY = new Float64Array(2);

  /**
   * A hub on `mocapSkeleton(calibration)` and `target`, calibrated on the mocap rest T-pose (the hub's
   * `calibrate()`: the source's canonical T-pose, as `kind mocap <file> <avatar>` and the page do). Or, for a
   * streamed source (`kind live --source browser`), `source` a {@link MocapSourceFigure} and `target` an
   * existing hub on that skeleton, used as it is (its settings and calibration kept; `options.hub` ignored).
   * @throws MocapHubError for bad options or a hub on another source skeleton; HubError / RetargetError from the hub.
   */
  constructor(
    source: MocapCalibration | MocapSourceFigure,
    target: Skeleton | RetargetHub,
    options: MocapHubOptions = {},
  ) {
    const figure = 'skeleton' in source ? source : null;
    const calibration = figure ? null : (source as MocapCalibration);
    this.calibration = calibration;
    this.source = figure ? figure.skeleton : mocapSkeleton(calibration as MocapCalibration);
    if (figure) mocapSourceFigure(figure.skeleton); // the bone order check
    this.o = {
      confidenceLow: options.confidenceLow ?? 0.3,
      confidenceHigh: options.confidenceHigh ?? 0.5,
      limbRampSeconds: options.limbRampSeconds ?? 0.3,
      pinReleaseSeconds: options.pinReleaseSeconds ?? 0.1,
      maxHubStepSeconds: options.maxHubStepSeconds ?? 0.1,
    };
    const o = this.o;
    if (!(o.confidenceLow >= 0 && o.confidenceHigh > o.confidenceLow && o.confidenceHigh <= 1))
      throw new MocapHubError(
        `mocap hub options: confidenceLow ${o.confidenceLow} / confidenceHigh ${o.confidenceHigh}; need 0 <= low < high <= 1`,
      );
    for (const f of ['limbRampSeconds', 'pinReleaseSeconds', 'maxHubStepSeconds'] as const)
      if (!(o[f] > 0 && o[f] <= 10))
        throw new MocapHubError(`mocap hub options.${f}: ${o[f]}; need seconds in (0, 10]`);
    if (target instanceof RetargetHub) {
      if (target.source !== this.source)
        throw new MocapHubError(
          'mocap hub: the hub given runs on another source skeleton than the one given',
        );
      this.hub = target;
    } else {
      this.hub = new RetargetHub(this.source, target, { hipsMode: 'room', ik: 'auto', ...options.hub });
      this.hub.calibrate();
    }
    const s = this.source.humanoid;
    this.sAnkle = Int32Array.of(s[H.LeftFoot], s[H.RightFoot]);
    this.sToe = Int32Array.of(s[H.LeftToes], s[H.RightToes]);
    this.sHips = s[H.Hips];
    this.vHips = this.hub.retargeter.virtual.skeleton.humanoid[H.Hips];
    if (options.contact === false) this.contact = null;
    else {
      const L = calibration?.lengths;
      this.contact = new CausalFootContact({
        legLength: L ? 0.5 * (L.leftThigh + L.rightThigh + L.leftShin + L.rightShin) : figure!.legLength,
        ankleLevel: calibration ? ankleLevel(calibration) : figure!.ankleLevel,
        toeLevel: 0,
        ...options.contact,
      });
    }
    this.clock[0] = Number.NaN;
  }

  /**
   * This driver's memory (not the hub's: RetargetHub.exportState has that), for a hot reload: a driver made
   * on the same figure and the hub restored from its state, given this by {@link MocapHubDriver.importState},
   * runs on as this one would. JSON-safe (see {@link MocapDriverState}).
   */
  exportState(): MocapDriverState {
    const st: Record<string, unknown> = { version: 1, frames: this.frames };
    for (const k of DRIVER_ARRAYS) st[k] = Array.from(this[k]);
    st.contact = this.contact ? this.contact.exportState() : null;
    return encodeStateNumbers(st) as unknown as MocapDriverState;
  }

  /**
   * Restore {@link MocapHubDriver.exportState}'s memory (options and contact options stay this driver's).
   * Checked in full before anything changes.
   * @throws MocapHubError naming the bad field.
   */
  importState(state: MocapDriverState): void {
    const st = decodeStateNumbers(state) as Record<string, unknown> | null;
    if (st === null || typeof st !== 'object' || st.version !== 1)
      throw new MocapHubError(
        `mocap driver state: need an object with version 1, got ${String(st?.version)}`,
      );
    if (!(Number.isInteger(st.frames) && (st.frames as number) >= 0))
      throw new MocapHubError(`mocap driver state.frames: need an integer >= 0, got ${String(st.frames)}`);
    for (const k of DRIVER_ARRAYS) {
      const a = st[k];
      const n = this[k].length;
      if (!Array.isArray(a) || a.length !== n || a.some((x) => typeof x !== 'number'))
        throw new MocapHubError(`mocap driver state.${k}: need ${n} numbers`);
    }
    if ((this.contact === null) !== (st.contact === null))
      throw new MocapHubError(
        `mocap driver state.contact: ${st.contact === null ? 'null' : 'given'}, but this driver has ${this.contact ? 'a' : 'no'} contact detector`,
      );
    if (this.contact) {
      const before = this.contact.exportState();
      try {
        this.contact.importState(st.contact as number[]);
      } catch (e) {
        this.contact.importState(before);
        throw new MocapHubError(`mocap driver state.contact: ${(e as Error).message}`);
      }
    }
    for (const k of DRIVER_ARRAYS) this[k].set(st[k] as number[]);
    this.frames = st.frames as number;
  }

  /** The avatar's local rotations `4n` and translations `3n` (metres) after the last step (the hub's). */
  get localRotations(): Float64Array {
    return this.hub.localRotations;
  }
  /**
   * The avatar's local translations after the last step, metres, `Float64Array(3 * bone count)` (the hub's).
   */
  get localTranslations(): Float64Array {
    return this.hub.localTranslations;
  }

  /**
   * One solver frame: `localRotations` `4 * 21`, `localTranslations` `3 * 21` (metres; the root's = the
   * hips position), `confidence` 21 in [0, 1] (MocapSolver's, bone order MOCAP_BONES), `timeMs` the
   * frame's timestamp. A time not after the previous one counts as a repeated frame (interval 0). Writes
   * the hub's outputs and this driver's read-outs. Allocates nothing itself; a fractional `timeMs`
   * computed per frame is boxed by V8 where it is passed (16 B at the call site): {@link
   * MocapHubDriver.stepFrame} takes it inside the frame object instead.
   * @throws MocapHubError for arrays of the wrong length.
   */
  step(
    localRotations: ArrayLike<number>,
    localTranslations: ArrayLike<number>,
    confidence: ArrayLike<number>,
    timeMs: number,
  ): void {
    this.clock[2] = timeMs;
    this.run(localRotations, localTranslations, confidence);
  }

  /**
   * {@link MocapHubDriver.step} on a solved frame: `solved` is the MocapSolver after its `step(frame)`
   * (its local rotations, translations and confidence), `frame` gives `timestampMs`. Allocates nothing.
   */
  stepFrame(solved: MocapSolved, frame: { timestampMs: number }): void {
    this.clock[2] = frame.timestampMs;
    this.run(solved.localRotations, solved.localTranslations, solved.confidence);
  }

  /**
   * {@link MocapHubDriver.step} on a streamed pose (src/mocap/stream.ts `MocapStreamFrame`: rotations,
   * translations, confidence, `timeMs`), as `kind live --source browser` drives it. Allocates nothing.
   */
  stepStream(frame: MocapStreamed): void {
    this.clock[2] = frame.timeMs;
    this.run(frame.rotations, frame.translations, frame.confidence);
  }

  private run(
    localRotations: ArrayLike<number>,
    localTranslations: ArrayLike<number>,
    confidence: ArrayLike<number>,
  ): void {
    const n = this.source.boneCount;
    if (localRotations?.length !== 4 * n || localTranslations?.length !== 3 * n || confidence?.length !== n)
      throw new MocapHubError(
        `MocapHubDriver.step: rotations / translations / confidence have lengths ${localRotations?.length} / ${localTranslations?.length} / ${confidence?.length}, expected ${4 * n} / ${3 * n} / ${n} (the mocap skeleton's ${n} bones)`,
      );
    const c = this.clock;
    const timeMs = c[2];
    let dt = (timeMs - c[0]) / 1000;
    if (!(dt > 0)) dt = 0; // the first frame (NaN), a repeated or an earlier time
    if (dt > 0 || Number.isNaN(c[0])) c[0] = timeMs;
    const first = this.frames === 0;
    const hub = this.hub;
    const o = this.o;
    // 1. the source stage (RetargetHub.updateLive's first half)
    const stage = hub.sourceStage;
    c[1] = dt;
    stage.update(localRotations, localTranslations, boxedSeconds(dt));
    // 2. contact on the filtered ankle and toe points
    const W = stage.worldPositions;
    const pts = this.contactPoints;
    for (let side = 0; side < 2; side++) {
      const a = 3 * this.sAnkle[side];
      const t = 3 * this.sToe[side];
      for (let k = 0; k < 3; k++) {
        pts[6 * side + k] = W[a + k];
        pts[6 * side + 3 + k] = W[t + k];
      }
    }
    const det = this.contact;
    if (det) {
      det.dtIn[0] = dt;
      det.stepStored(pts);
    }
    // 3. confidence weights -> the hub's IK weight override
    const span = o.confidenceHigh - o.confidenceLow;
    const rate = dt / o.limbRampSeconds;
    const own = hub.weights.weights;
    const ov = hub.ikWeightOverride;
    for (let l = 0; l < 4; l++) {
      const b = LIMB_BONES[l];
      const cl = Math.min(confidence[b[0]], confidence[b[1]], confidence[b[2]]);
      let target = (cl - o.confidenceLow) / span;
      target = target > 0 ? Math.min(target, 1) : 0; // NaN -> 0
      this.limbTarget[l] = target;
      const w0 = this.limbWeight[l];
      const d = target - w0;
      this.limbWeight[l] = first ? target : d > rate ? w0 + rate : d < -rate ? w0 - rate : target;
      const mode = hub.ikMode;
      const hubOwn = mode === 'on' ? 1 : mode === 'off' ? 0 : first ? 0 : own[l];
      const w = hubOwn * this.limbWeight[l];
      this.ikWeight[l] = w;
      ov[3 * l] = w;
      ov[3 * l + 1] = w;
    }
    // 4. pins -> the hub's IK target override (legs: limbs 2, 3)
    this.pinTargets(first);
    // 5. the hub's update on the filtered pose (updateLive's second half)
    hub.update(
      stage.localRotations,
      stage.localTranslations,
      boxedSeconds(Math.min(dt, o.maxHubStepSeconds)),
    );
    this.readOwnHeights();
    this.frames++;
  }

  /**
   * The feet's IK target overrides this frame. The hub's own foot target is `avatarHips + k (sourceAnkle -
   * sourceHips)` (src/rig/hubRig.ts step 3); its x, z are known before the update from the filtered source
   * (room mode: the avatar's hips x, z are the source's; scaled: k times them), its height is the previous
   * frame's own moved by the source's change since (the hips height needs this frame's weights). Settings' foot offsets (default 0) are not
   * added while a pin holds or blends.
   */
  private pinTargets(first: boolean): void {
    const dt = this.clock[1];
    const hub = this.hub;
    const det = this.contact;
    const go = hub.ikGoalOverride;
    const targets = hub.ikTargets;
    const W = hub.sourceStage.worldPositions;
    const r = hub.retargeter;
    const k = r.info!.hipsScale;
    const hs = r.options.hipsMode === 'scaled' ? k : 1;
    const h3 = 3 * this.sHips;
    const release = dt / this.o.pinReleaseSeconds;
    for (let side = 0; side < 2; side++) {
      const li = 2 + side;
      const g = 6 * li;
      const p3 = 3 * side;
      const inContact = det !== null && det.contact[side] === 1;
      if (inContact && this.pinned[side] === 0 && !first) {
        // the pin starts where the foot's target was last frame (its final, possibly still blended, one)
        this.pinPosition[p3] = targets[3 * li];
        this.pinPosition[p3 + 1] = targets[3 * li + 1];
        this.pinPosition[p3 + 2] = targets[3 * li + 2];
        this.pinned[side] = 1;
        this.pinBlend[side] = 1;
      } else if (!inContact && this.pinned[side] === 1) this.pinned[side] = 0;
      if (this.pinned[side] === 0 && this.pinBlend[side] > 0) {
        const b = this.pinBlend[side] - release;
        this.pinBlend[side] = Math.max(b, 0);
      }
      const b = this.pinBlend[side];
      if (b <= 0) {
        go[g] = Number.NaN; // the hub's own target
        continue;
      }
      const a3 = 3 * this.sAnkle[side];
      const ox = hs * W[h3] + k * (W[a3] - W[h3]);
      const oz = hs * W[h3 + 2] + k * (W[a3 + 2] - W[h3 + 2]);
      go[g] = ox + b * (this.pinPosition[p3] - ox);
      // the height: last frame's own, moved by the source's change (exact while the hub's hips weight,
      // seat and floor height hold still)
      go[g + 1] = this.ownY[side] + hs * W[h3 + 1] + k * (W[a3 + 1] - W[h3 + 1]) - this.ownSrcY[side];
      go[g + 2] = oz + b * (this.pinPosition[p3 + 2] - oz);
    }
  }

  /** The hub's own foot target height this frame (for the next frame's pins): avatar hips + k (ankle - hips). */
  private readOwnHeights(): void {
    const r = this.hub.retargeter;
    const P = r.virtualWorldPositions;
    const SP = r.lastSourceWorldPositions;
    const k = r.info!.hipsScale;
    const vh = 3 * this.vHips + 1;
    const sh = 3 * this.sHips + 1;
    const hs = r.options.hipsMode === 'scaled' ? k : 1;
    for (let side = 0; side < 2; side++) {
      const term = k * (SP[3 * this.sAnkle[side] + 1] - SP[sh]);
      this.ownY[side] = P[vh] + term;
      this.ownSrcY[side] = hs * SP[sh] + term;
    }
  }
}

/**
 * Intervals for the hub's calls, rounded to 0.1 ms, from a table of numbers made once (0 to 1 s): a double
 * computed per frame and passed to a call V8 does not inline is boxed (16 B each), an element of a tagged
 * array is passed as it is. The null at the end keeps the array's elements tagged (not unboxed doubles).
 * Longer intervals (the source stage restarts after 0.5 s anyway) are passed as computed.
 */
const DT_STEPS = 10000;
const DT_TABLE: (number | null)[] = Array.from({ length: DT_STEPS + 1 }, (_, i) => i / DT_STEPS);
DT_TABLE.push(null);

function boxedSeconds(dt: number): number {
  const i = Math.round(dt * DT_STEPS);
  return i >= 0 && i <= DT_STEPS ? (DT_TABLE[i] as number) : dt;
}

/** The ankle's height above the floor with the foot flat: above the lower of heel and toe tip (calibrate.ts). */
export function ankleLevel(cal: MocapCalibration): number {
  const r = cal.restTranslations;
  const ly = r[3 * MB.LeftToes + 1];
  const ry = r[3 * MB.RightToes + 1];
  return Math.max(0, -Math.min(ly, ry, cal.heel[1], cal.heel[4]));
}
