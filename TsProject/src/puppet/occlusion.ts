/**
 * Occlusion fill (issue 12, item 4): a joint with no value this frame (hidden, off-frame, below threshold and
 * no longer held: ConfidenceFilter.missing) is inferred by a chain, first that applies:
 * 1. parent: the parent is measured, held or itself parent-inferred -> parent + the joint's last seen offset
 *    from its parent (body-scale units, so it follows the body's size), or the rest pose's offset if never
 *    seen. Confidence parentFillConfidence x the parent's confidence.
 * 2. child: a child is measured, held or child-inferred -> child - the child's last seen offset (the most
 *    confident child). Confidence childFillConfidence x the child's confidence.
 * 3. torso: the joint was seen before and the torso (Hips, else Neck) is measured or held -> the torso joint +
 *    the joint's last seen offset from it (it moves rigidly with the torso). Confidence torsoFillConfidence x
 *    the torso joint's confidence.
 * 4. rest: the rest pose (`rest`, positioned at the current Hips). Confidence restConfidence.
 * The confidences are caps below the visibility threshold that drop at each step down the chain (and with
 * each hop, as they multiply), so the next real measurement replaces a guess at once (filter.ts).
 * Legs: an inferred knee, ankle or toe above its parent (y down: smaller y) is put at the parent + the rest
 * offset, so a guess never makes a shin point up (a chest-up framing's leg landmarks sit above the hips).
 * Hand tips never seen (a 17-keypoint MoveNet input has no hand points, keypoints.ts): the rest offset turned
 * with the forearm, i.e. the hand continues it, instead of the rest pose's fixed direction on the image (a
 * raised forearm would otherwise end in a hand pointing down). Toes never seen keep the fixed direction (a foot
 * stays on the floor).
 * Engine-free, allocation-free per frame.
 */
import type { PoseOptions } from './options';
import { type JointSet, JointStateCode, PUPPET_JOINT_COUNT, PUPPET_PARENTS } from './types';

const J = PUPPET_JOINT_COUNT;
const HIPS = 0;
const NECK = 3;
/** LeftLowerLeg, LeftFoot, LeftToes, RightLowerLeg, RightFoot, RightToes: never above their parent when inferred. */
const LEG_JOINTS = [14, 15, 16, 18, 19, 20];
/**
 * LeftHandTip, RightHandTip: never seen, they keep their rest angle to the forearm. Not the toes: a foot stays
 * on the floor while the shin tilts, and on the squat the rest pose's fixed direction is nearer the measured
 * toes (0.22 torso lengths on average) than one turned with the shin (0.25).
 */
const END_JOINTS = [0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0];

/**
 * Rest pose, offsets from Hips in torso lengths (|Neck - Hips| = 1), pose space (y down, the person's left at
 * +x as seen by a camera they face). An A-pose (arms 45 degrees down), proportions from the squat recording:
 * shoulder width 0.6, hip width 0.32, upper arm 0.5, forearm 0.45, thigh 0.8, shin 0.8, head 0.42.
 */
const C45 = Math.SQRT1_2;
/**
 * The rest pose of the 21 joints as offsets from the hips in torso lengths (image axes, y down): an A-pose,
 * used by the `rest` fill state.
 */
export const REST_OFFSETS: readonly (readonly [number, number])[] = [
  [0, 0], // Hips
  [0, -1 / 3], // Spine
  [0, -2 / 3], // Chest
  [0, -1], // Neck
  [0, -1.42], // Head
  [0.3, -1], // LeftUpperArm
  [0.3 + 0.5 * C45, -1 + 0.5 * C45], // LeftLowerArm
  [0.3 + 0.95 * C45, -1 + 0.95 * C45], // LeftHand
  [0.3 + 1.1 * C45, -1 + 1.1 * C45], // LeftHandTip
  [-0.3, -1],
  [-0.3 - 0.5 * C45, -1 + 0.5 * C45],
  [-0.3 - 0.95 * C45, -1 + 0.95 * C45],
  [-0.3 - 1.1 * C45, -1 + 1.1 * C45],
  [0.16, 0], // LeftUpperLeg
  [0.16, 0.8], // LeftLowerLeg
  [0.16, 1.6], // LeftFoot
  [0.2, 1.72], // LeftToes
  [-0.16, 0],
  [-0.16, 0.8],
  [-0.16, 1.6],
  [-0.2, 1.72],
];

function isGood(s: number): boolean {
  return s === JointStateCode.Measured || s === JointStateCode.Held;
}

/**
 * The occlusion fill (module doc): infers every joint with no value this frame from its parent, child, the
 * torso or the rest pose, with a low confidence. Allocation-free per frame.
 */
export class OcclusionFill {
  // last seen offsets in body-scale units: from the parent, from Hips, from Neck
  private readonly offPx = new Float64Array(J);
  private readonly offPy = new Float64Array(J);
  private readonly offHx = new Float64Array(J);
  private readonly offHy = new Float64Array(J);
  private readonly offNx = new Float64Array(J);
  private readonly offNy = new Float64Array(J);
  /** 1 once the joint's offset from its parent was learned from a measured or held pair. */
  private readonly seenP = new Uint8Array(J);
  private readonly seenH = new Uint8Array(J);
  private readonly seenN = new Uint8Array(J);
  private readonly todo = new Uint8Array(J);
  private readonly scaleBox = new Float64Array(1);

  constructor(readonly options: PoseOptions) {
    this.reset();
  }

  /** Forget every seen offset (back to the rest pose's). */
  reset(): void {
    for (let j = 0; j < J; j++) {
      const p = PUPPET_PARENTS[j];
      this.offPx[j] = p < 0 ? 0 : REST_OFFSETS[j][0] - REST_OFFSETS[p][0];
      this.offPy[j] = p < 0 ? 0 : REST_OFFSETS[j][1] - REST_OFFSETS[p][1];
    }
    this.seenP.fill(0);
    this.seenH.fill(0);
    this.seenN.fill(0);
  }

  /**
   * Fill the joints marked in `missing` (in place) and learn offsets from the good ones.
   * @param j joints after ConfidenceFilter.step (pose space).
   * @param missing 1 per joint with no value (ConfidenceFilter.missing).
   * @param rest the rest pose in pose space (PosePipeline.restPose), used by step 4 and the leg rule.
   * @param bodyScale pose-space units per torso length (> 0; the caller's running body scale).
   */
  fill(j: JointSet, missing: Uint8Array, rest: JointSet, bodyScale: number): void {
    this.scaleBox[0] = bodyScale; // through a typed array: no boxed double per frame
    this.run(j, missing, rest);
  }

  private run(j: JointSet, missing: Uint8Array, rest: JointSet): void {
    const o = this.options;
    const s = this.scaleBox[0] > 0 ? this.scaleBox[0] : 1;
    const x = j.x;
    const y = j.y;
    const st = j.state;
    const conf = j.confidence;
    // learn offsets from this frame's measured or held joints
    const hipsGood = missing[HIPS] === 0 && isGood(st[HIPS]);
    const neckGood = missing[NECK] === 0 && isGood(st[NECK]);
    for (let k = 0; k < J; k++) {
      this.todo[k] = missing[k];
      if (missing[k] === 1 || !isGood(st[k])) continue;
      const p = PUPPET_PARENTS[k];
      if (p >= 0 && missing[p] === 0 && isGood(st[p])) {
        this.offPx[k] = (x[k] - x[p]) / s;
        this.offPy[k] = (y[k] - y[p]) / s;
        this.seenP[k] = 1;
      }
      if (hipsGood) {
        this.offHx[k] = (x[k] - x[HIPS]) / s;
        this.offHy[k] = (y[k] - y[HIPS]) / s;
        this.seenH[k] = 1;
      }
      if (neckGood) {
        this.offNx[k] = (x[k] - x[NECK]) / s;
        this.offNy[k] = (y[k] - y[NECK]) / s;
        this.seenN[k] = 1;
      }
    }
    const todo = this.todo;
    // 1. parent (parents come before children in PUPPET_JOINTS)
    for (let k = 1; k < J; k++) {
      if (todo[k] === 0) continue;
      const p = PUPPET_PARENTS[k];
      if (todo[p] === 1 || !(isGood(st[p]) || st[p] === JointStateCode.Parent)) continue;
      const g = PUPPET_PARENTS[p];
      if (END_JOINTS[k] === 1 && this.seenP[k] === 0 && g >= 0 && todo[g] === 0) {
        // the rest offset turned by the angle between the parent bone now and at rest
        const bx = x[p] - x[g];
        const by = y[p] - y[g];
        const rx = REST_OFFSETS[p][0] - REST_OFFSETS[g][0];
        const ry = REST_OFFSETS[p][1] - REST_OFFSETS[g][1];
        const n = Math.sqrt((bx * bx + by * by) * (rx * rx + ry * ry));
        if (n > 0) {
          const c = (rx * bx + ry * by) / n;
          const sn = (rx * by - ry * bx) / n;
          const ox = this.offPx[k];
          const oy = this.offPy[k];
          x[k] = x[p] + (c * ox - sn * oy) * s;
          y[k] = y[p] + (sn * ox + c * oy) * s;
          conf[k] = o.parentFillConfidence * conf[p];
          st[k] = JointStateCode.Parent;
          todo[k] = 0;
          continue;
        }
      }
      x[k] = x[p] + this.offPx[k] * s;
      y[k] = y[p] + this.offPy[k] * s;
      conf[k] = o.parentFillConfidence * conf[p];
      st[k] = JointStateCode.Parent;
      todo[k] = 0;
    }
    // 2. child (children first)
    for (let k = J - 1; k >= 0; k--) {
      if (todo[k] === 0) continue;
      let best = -1;
      for (let c = k + 1; c < J; c++) {
        if (PUPPET_PARENTS[c] !== k || todo[c] === 1) continue;
        if (!(isGood(st[c]) || st[c] === JointStateCode.Child)) continue;
        if (best < 0 || conf[c] > conf[best]) best = c;
      }
      if (best < 0) continue;
      x[k] = x[best] - this.offPx[best] * s;
      y[k] = y[best] - this.offPy[best] * s;
      conf[k] = o.childFillConfidence * conf[best];
      st[k] = JointStateCode.Child;
      todo[k] = 0;
    }
    // 3. torso motion
    for (let k = 0; k < J; k++) {
      if (todo[k] === 0) continue;
      if (hipsGood && k !== HIPS && this.seenH[k] === 1) {
        x[k] = x[HIPS] + this.offHx[k] * s;
        y[k] = y[HIPS] + this.offHy[k] * s;
        conf[k] = o.torsoFillConfidence * conf[HIPS];
      } else if (neckGood && k !== NECK && this.seenN[k] === 1) {
        x[k] = x[NECK] + this.offNx[k] * s;
        y[k] = y[NECK] + this.offNy[k] * s;
        conf[k] = o.torsoFillConfidence * conf[NECK];
      } else continue;
      st[k] = JointStateCode.Torso;
      todo[k] = 0;
    }
    // 4. rest pose, placed at the current Hips (Hips itself: where it is, i.e. held or the rest's)
    for (let k = 0; k < J; k++) {
      if (todo[k] === 0) continue;
      if (k === HIPS) {
        x[k] = rest.x[HIPS];
        y[k] = rest.y[HIPS];
      } else {
        x[k] = x[HIPS] + (rest.x[k] - rest.x[HIPS]);
        y[k] = y[HIPS] + (rest.y[k] - rest.y[HIPS]);
      }
      conf[k] = o.restConfidence;
      st[k] = JointStateCode.Rest;
      todo[k] = 0;
    }
    // legs: a guess never points a shin (or foot) up
    for (let i = 0; i < LEG_JOINTS.length; i++) {
      const k = LEG_JOINTS[i];
      if (isGood(st[k])) continue;
      const p = PUPPET_PARENTS[k];
      if (y[k] < y[p]) {
        x[k] = x[p] + (rest.x[k] - rest.x[p]);
        y[k] = y[p] + (rest.y[k] - rest.y[p]);
      }
    }
  }
}
