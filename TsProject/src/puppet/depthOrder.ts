/**
 * Layers (issue 22 part 2): the puppet mesh split into body-part groups, drawn back to front in an order
 * taken every frame from the pose's depth, with hysteresis. Engine-free; {@link DepthOrder.update} allocates
 * nothing.
 *
 * Groups. AnimatedDrawings splits a character into body-part groups (`char_bodypart_groups` of its retarget
 * configs: the trunk, each arm, each leg) and draws each group at the depth of its `bvh_depth_drivers`
 * (retargeter.py _compute_depths; Smith et al. 2023, ACM TOG 42(3)), so an arm in front of the body covers it.
 * - A character with a retarget config's groups (retargetCfg.ts): those groups, each at the mean landmark z
 *   of its drivers (joints.ts JOINT_LANDMARKS; Spine and Chest: hips and shoulders); triangles of joints no
 *   group reaches are drawn first, behind every group.
 * - Every other character ({@link defaultBodyPartGroups}): trunk (hips, spine, chest, neck, head, the
 *   shoulder and pelvis girdles), left arm, right arm, left leg, right leg. A joint belongs to the limb its
 *   driver follows (skeleton.ts: a `bone` ending at an elbow, wrist or hand tip is its arm, at a knee, ankle or
 *   toe its leg; a girdle `line` the trunk; `rigid` its parent's group), so six arms make two arm groups and
 *   four legs two leg groups. Depth landmarks: trunk = shoulders and hips (11, 12, 23, 24), arm = its elbow
 *   and wrist (13, 15 / 14, 16), leg = its knee and ankle (25, 27 / 26, 28).
 * A triangle belongs to the group of the transform with the largest summed skinning weight over its three
 * corners (transform j = the bone ending at joint j, rig.ts), as AnimatedDrawings gives each mask region the
 * group of its bone. Within a group the mesh's own order is kept (deform.ts drawOrder: limbs over the body,
 * the hand over the forearm).
 *
 * Depth of a group (body-relative, torso lengths; smaller = nearer the camera, as MediaPipe's z): (mean z of
 * its landmarks - mean z of its reference) / torso length (shoulder centre to hip centre); the reference is
 * where a limb joins the body (its shoulder, its hip), else the trunk's four, so the trunk is always 0. Why
 * the limb's own shoulder and not the trunk's centre: a person turned a little away holds one side farther
 * than the centre, and with the centre the arm hanging on that side counted as behind the body (the real
 * squat's left arm and leg standing: +0.1 to +0.2 torso lengths; they swapped behind the trunk and back in
 * every squat). Trunk vs a limb is thus "is the limb in front of or behind where it joins". From the frame's
 * world landmarks (metres, 3-D torso length) when it has 33, else from its image landmarks (z in units of the
 * image width, torso length in the same units from x and y with the image's aspect, the z divided by
 * {@link IMAGE_Z_PER_WORLD_Z}: MediaPipe's image z runs 3.5 times the world z on the real squat).
 *
 * Order with hysteresis: group a must be drawn before group b when a is farther than b by more than
 * `margin` (depth[a] > depth[b] + margin). The last order is kept while it breaks no such pair; otherwise
 * the new order is a topological order of that relation near the last one: each step the group earliest in
 * the last order, unless a group farther than it by the margin is still to come, which then comes first (the
 * earliest such, recursively). So the order changes only in a frame where some pair's depth difference passes
 * the margin against it, and z jitter inside the margin never changes it (a group within the margin of the
 * ones it passes moves with a group that must move). The start (and
 * `reset`) order, kept while depth is unknown (no landmarks, a degenerate torso) and for every pair within
 * the margin: trunk, left leg, right leg, left arm, right arm (limbs over the body, as the static order), or
 * the retarget config's order.
 */
import { JOINT_LANDMARKS } from './joints';
import type { PuppetMesh } from './mesh';
import type { CharacterSkeleton } from './skeleton';
import { type Landmark, type PoseFrame, PUPPET_JOINTS } from './types';
import type { SkinWeights } from './weights';

const TRUNK = [11, 12, 23, 24];

/**
 * Default hysteresis margin, torso lengths of world z (0.05 m for a 0.5 m torso). Why 0.1: on the real squat
 * (pose_squats_3d, 65 frames) the limbs' body-relative depth moves a median 0.02 from one frame to the next,
 * so a margin of 0.1 needs five median steps the same way; a forearm across the chest is at least half a
 * chest's depth in front of the trunk's centre (~0.1 m, 0.2 torso lengths at the wrist, so ~0.1 for the
 * mean of elbow and wrist with the elbow at the side), so a real crossing still passes it. On the squat the
 * order changes 14 times in 65 frames with it (the arms coming forward past the legs and each other in each
 * of the 3 squats), 35 with no margin; an order came back within 2 frames once against 5 times
 * (test/puppet.layers.test.ts prints the counts; 0.05: 27, 0.2: 9, 0.3: 3).
 */
export const DEPTH_MARGIN = 0.1;

/**
 * Image-landmark z over world-landmark z, both in torso lengths: the least-squares slope over the four limbs'
 * relative depths in the 65 frames of the real squat (image and world landmarks of the same frames; 3.41
 * with an intercept, correlation 0.993). Image z is divided by it so one margin serves both.
 */
export const IMAGE_Z_PER_WORLD_Z = 3.5;

/** A body-part group: character joints (transform indices) drawn at the depth of some landmarks. */
export interface BodyPartGroup {
  /** `trunk`, `left arm`, ..., or the retarget config's drivers (`RightHand`). */
  name: string;
  /** Character joints whose bones (the bone ending at each) belong to the group. */
  joints: number[];
  /** MediaPipe landmark indices (0-32) whose mean z is the group's depth. */
  landmarks: number[];
  /** Landmarks whose mean z is subtracted (where the group joins the body): a limb's shoulder or hip, else the trunk's four. */
  reference: number[];
}

const LIMBS: readonly {
  name: string;
  joints: readonly string[];
  landmarks: number[];
  reference: number[];
}[] = [
  {
    name: 'left leg',
    joints: ['LeftLowerLeg', 'LeftFoot', 'LeftToes'],
    landmarks: [25, 27],
    reference: [23],
  },
  {
    name: 'right leg',
    joints: ['RightLowerLeg', 'RightFoot', 'RightToes'],
    landmarks: [26, 28],
    reference: [24],
  },
  {
    name: 'left arm',
    joints: ['LeftLowerArm', 'LeftHand', 'LeftHandTip'],
    landmarks: [13, 15],
    reference: [11],
  },
  {
    name: 'right arm',
    joints: ['RightLowerArm', 'RightHand', 'RightHandTip'],
    landmarks: [14, 16],
    reference: [12],
  },
];

/**
 * The five default groups of a skeleton (module doc), in the default drawing order: trunk, left leg, right
 * leg, left arm, right arm. A limb with no joint following it is an empty group (draws nothing).
 */
export function defaultBodyPartGroups(skeleton: CharacterSkeleton): BodyPartGroup[] {
  const groups: BodyPartGroup[] = [
    { name: 'trunk', joints: [], landmarks: [...TRUNK], reference: [...TRUNK] },
  ];
  const limbOf = new Int32Array(PUPPET_JOINTS.length); // pose joint -> group (0: trunk)
  LIMBS.forEach((l, g) => {
    groups.push({ name: l.name, joints: [], landmarks: [...l.landmarks], reference: [...l.reference] });
    for (const n of l.joints) limbOf[PUPPET_JOINTS.indexOf(n as (typeof PUPPET_JOINTS)[number])] = g + 1;
  });
  const { drivers, parents } = skeleton;
  const groupOf: number[] = [];
  for (let j = 0; j < drivers.length; j++) {
    const d = drivers[j];
    groupOf[j] =
      d.kind === 'bone' ? limbOf[d.to] : d.kind === 'rigid' && parents[j] >= 0 ? groupOf[parents[j]] : 0;
    groups[groupOf[j]].joints.push(j);
  }
  return groups;
}

/** The retarget config's `char_bodypart_groups` of a skeleton (empty without them), in the config's order. */
export function retargetBodyPartGroups(skeleton: CharacterSkeleton): BodyPartGroup[] {
  const groups = skeleton.mapping.depthGroups ?? [];
  const jointGroup = skeleton.names.map((n) => groups.findIndex((g) => g.charJoints.includes(n)));
  // a joint outside every group takes its nearest grouped ancestor's (parents come first)
  for (let j = 0; j < jointGroup.length; j++)
    if (jointGroup[j] < 0 && skeleton.parents[j] >= 0) jointGroup[j] = jointGroup[skeleton.parents[j]];
  return groups.map((g, k) => {
    const ids = new Set<number>();
    for (const p of g.poseDepthDrivers) {
      const l = JOINT_LANDMARKS[PUPPET_JOINTS.indexOf(p)];
      for (const i of l.length > 0 ? l : TRUNK) ids.add(i);
    }
    return {
      name: g.bvhDepthDrivers.join(', '),
      joints: jointGroup.flatMap((gr, j) => (gr === k ? [j] : [])),
      landmarks: [...ids],
      reference: [...TRUNK],
    };
  });
}

/**
 * Options of {@link DepthOrder}: the hysteresis margin (torso lengths), the camera size and the body-part
 * groups.
 */
export interface DepthOrderOptions {
  /** Hysteresis margin in torso lengths (default {@link DEPTH_MARGIN}; 0: plain depth order every frame). */
  margin?: number;
  /** Camera image size in pixels, for the torso length from image landmarks (default 640 x 480). */
  image?: { width: number; height: number };
  /** The groups (default: the retarget config's when the skeleton has them, else defaultBodyPartGroups). */
  groups?: BodyPartGroup[];
}

/**
 * The layers of a puppet mesh (module doc): body-part groups drawn back to front in an order taken every
 * frame from the pose's depth, with hysteresis. `update` allocates nothing.
 */
export class DepthOrder {
  /** The groups, in their default order (index = group number). */
  readonly groups: readonly BodyPartGroup[];
  /** Triangle indices in drawing order (back to front): rasterize's `order`, the page's drawMesh. */
  readonly order: Uint32Array;
  /** Group of each triangle (index into `groups`), -1 for none (drawn first). */
  readonly triangleGroup: Int32Array;
  /** Each group's body-relative depth in the last frame with a usable pose (torso lengths; smaller = nearer). */
  readonly groupDepth: Float64Array;
  /** Group numbers in drawing order (back to front) after the last update. */
  readonly groupOrder: Int32Array;
  /** Updates whose group order differed from the one before (since construction or `reset`). */
  orderChanges = 0;
  readonly margin: number;
  private aspect: number;
  private readonly lmStart: Int32Array;
  private readonly lmIds: Int32Array;
  private readonly refStart: Int32Array;
  private readonly refIds: Int32Array;
  private readonly next: Int32Array;
  private readonly placed: Uint8Array;
  private readonly rank: Int32Array;
  private readonly start: Int32Array;

  /**
   * @param mesh the mesh as drawn (its triangle order kept within each group).
   * @param weights its skinning weights (4 transforms per vertex, indexed like the skeleton's joints).
   * @param skeleton the skeleton the rig poses (rig.skeleton: the character's own, or the standard 21).
   */
  constructor(
    mesh: PuppetMesh,
    weights: SkinWeights,
    skeleton: CharacterSkeleton,
    options: DepthOrderOptions = {},
  ) {
    this.margin = options.margin ?? DEPTH_MARGIN;
    if (!(this.margin >= 0)) throw new RangeError(`depth margin ${this.margin}: must be >= 0`);
    this.aspect = 0;
    this.setImage(options.image ?? { width: 640, height: 480 });
    const groups =
      options.groups ??
      (skeleton.mapping.depthGroups?.length
        ? retargetBodyPartGroups(skeleton)
        : defaultBodyPartGroups(skeleton));
    this.groups = groups;
    const G = groups.length;
    const jointGroup = new Int32Array(skeleton.names.length).fill(-1);
    groups.forEach((g, k) => {
      for (const j of g.joints) jointGroup[j] = k;
    });
    const T = mesh.triangleCount;
    this.triangleGroup = new Int32Array(T);
    const sum = new Float64Array(skeleton.names.length);
    for (let t = 0; t < T; t++) {
      sum.fill(0);
      for (let c = 0; c < 3; c++) {
        const v = mesh.triangles[3 * t + c];
        for (let k = 4 * v; k < 4 * v + 4; k++) sum[weights.joints[k]] += weights.weights[k];
      }
      let best = 0;
      for (let j = 1; j < sum.length; j++) if (sum[j] > sum[best]) best = j;
      this.triangleGroup[t] = jointGroup[best];
    }
    this.lmStart = new Int32Array(G + 1);
    for (let g = 0; g < G; g++) this.lmStart[g + 1] = this.lmStart[g] + groups[g].landmarks.length;
    this.lmIds = Int32Array.from(groups.flatMap((g) => g.landmarks));
    this.refStart = new Int32Array(G + 1);
    for (let g = 0; g < G; g++) this.refStart[g + 1] = this.refStart[g] + groups[g].reference.length;
    this.refIds = Int32Array.from(groups.flatMap((g) => g.reference));
    this.groupDepth = new Float64Array(G);
    this.groupOrder = new Int32Array(G);
    this.next = new Int32Array(G);
    this.placed = new Uint8Array(G);
    this.rank = new Int32Array(G + 1);
    this.start = new Int32Array(G + 2);
    this.order = new Uint32Array(T);
    this.reset();
  }

  /** The camera image size (pixels) for image landmarks' torso length; the page sets it per run. */
  setImage(image: { width: number; height: number }): void {
    this.aspect = image.width > 0 && image.height > 0 ? image.height / image.width : 0.75;
  }

  /** Back to the default group order (the groups' order), the triangles sorted by it. */
  reset(): void {
    for (let g = 0; g < this.groupOrder.length; g++) this.groupOrder[g] = g;
    this.groupDepth.fill(0);
    this.orderChanges = 0;
    this.sortTriangles();
  }

  /**
   * This frame's depths and order (module doc).
   * @returns false (order and depths kept) when the frame has no 33 landmarks or a degenerate torso.
   */
  update(frame: PoseFrame): boolean {
    const world = frame.worldLandmarks !== undefined && frame.worldLandmarks.length === 33;
    const lms = world ? frame.worldLandmarks : frame.landmarks;
    if (lms === undefined || lms.length !== 33) return false;
    const a = world ? 1 : this.aspect;
    const dx = mid(lms, 11, 12, 0) - mid(lms, 23, 24, 0);
    const dy = (mid(lms, 11, 12, 1) - mid(lms, 23, 24, 1)) * a;
    const dz = world ? mid(lms, 11, 12, 2) - mid(lms, 23, 24, 2) : 0;
    const torso = Math.sqrt(dx * dx + dy * dy + dz * dz) * (world ? 1 : IMAGE_Z_PER_WORLD_Z);
    if (!(torso > 1e-9)) return false;
    const G = this.groupDepth.length;
    for (let g = 0; g < G; g++) {
      const d =
        (this.meanZ(lms, this.lmIds, this.lmStart, g) - this.meanZ(lms, this.refIds, this.refStart, g)) /
        torso;
      this.groupDepth[g] = Number.isFinite(d) ? d : 0;
    }
    // a topological order of "farther by more than the margin goes first", near the last order
    const depth = this.groupDepth;
    const m = this.margin;
    const last = this.groupOrder;
    const next = this.next;
    const placed = this.placed;
    placed.fill(0);
    let changed = false;
    for (let k = 0; k < G; k++) {
      // the earliest unplaced group in the last order; while a group farther than it by the margin is still
      // unplaced, that one (the earliest such) comes first: only what must move ahead does
      let pick = -1;
      for (let i = 0; i < G && pick < 0; i++) if (!placed[last[i]]) pick = last[i];
      for (let steps = 0; steps < G; steps++) {
        let blocker = -1;
        for (let i = 0; i < G && blocker < 0; i++) {
          const o = last[i];
          if (!placed[o] && o !== pick && depth[o] > depth[pick] + m) blocker = o;
        }
        if (blocker < 0) break;
        pick = blocker;
      }
      next[k] = pick;
      placed[pick] = 1;
      if (pick !== last[k]) changed = true;
    }
    if (changed) {
      last.set(next);
      this.orderChanges++;
      this.sortTriangles();
    }
    return true;
  }

  /** Mean z of group g's landmarks in `ids` (0 for none). */
  private meanZ(lms: readonly Landmark[], ids: Int32Array, start: Int32Array, g: number): number {
    let z = 0;
    for (let k = start[g]; k < start[g + 1]; k++) z += lms[ids[k]].z;
    return start[g + 1] > start[g] ? z / (start[g + 1] - start[g]) : 0;
  }

  /** Counting sort of the triangles by their group's place in groupOrder (ungrouped first; stable). */
  private sortTriangles(): void {
    const G = this.groupOrder.length;
    const r = this.rank; // group g + 1 -> slot; slot 0 = ungrouped
    r[0] = 0;
    for (let k = 0; k < G; k++) r[this.groupOrder[k] + 1] = k + 1;
    const start = this.start;
    start.fill(0);
    const T = this.triangleGroup.length;
    for (let t = 0; t < T; t++) start[r[this.triangleGroup[t] + 1] + 1]++;
    for (let k = 1; k <= G + 1; k++) start[k] += start[k - 1];
    for (let t = 0; t < T; t++) this.order[start[r[this.triangleGroup[t] + 1]]++] = t;
  }
}

/** Mean of one coordinate (0 x, 1 y, 2 z) of two landmarks. */
function mid(l: readonly Landmark[], a: number, b: number, c: 0 | 1 | 2): number {
  return c === 0 ? (l[a].x + l[b].x) / 2 : c === 1 ? (l[a].y + l[b].y) / 2 : (l[a].z + l[b].z) / 2;
}
