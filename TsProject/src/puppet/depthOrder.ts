/**
 * Draw order of the puppet mesh from a retarget config's depth groups (AnimatedDrawings
 * `char_bodypart_groups`: which character joints are drawn at the depth of which BVH joint; retargetCfg.ts).
 * Engine-free, allocation-free per frame.
 *
 * AnimatedDrawings draws each body-part group at the depth of its `bvh_depth_drivers` (the distance of those
 * BVH joints to the projection plane; retargeter.py _compute_depths), so an arm in front of the body covers
 * it. Here the depth of a group is the mean MediaPipe landmark `z` of its drivers' landmarks
 * (joints.ts JOINT_LANDMARKS; Spine and Chest: hips and shoulders), from the frame's image landmarks, or its
 * world landmarks when it has none. MediaPipe's z is smaller nearer the camera (Pose Landmarker model card),
 * so groups are drawn from the largest z to the smallest: the nearest last, on top.
 *
 * Which group a triangle belongs to: the transform with the largest summed skinning weight over its three
 * corners (a transform is the bone ending at a character joint, rig.ts) gives a joint; that joint's group, or
 * its nearest ancestor's (the first group listing it). Triangles of joints no group reaches are drawn first,
 * behind every group.
 */
import { JOINT_LANDMARKS } from './joints';
import type { PuppetMesh } from './mesh';
import type { CharacterSkeleton } from './skeleton';
import { type PoseFrame, PUPPET_JOINTS } from './types';
import type { SkinWeights } from './weights';

const TRUNK = [23, 24, 11, 12];

export class DepthOrder {
  /** Triangle indices in drawing order (back to front). Starts as the mesh order. */
  readonly order: Uint32Array;
  /** Group of each triangle (index into the skeleton's depthGroups), -1 for none. */
  readonly triangleGroup: Int32Array;
  /** Each group's depth in the last frame with landmarks (landmark z; smaller = nearer). */
  readonly groupDepth: Float64Array;
  private readonly landmarks: (readonly number[])[];
  private readonly rank: Int32Array;
  private readonly start: Int32Array;

  /** @param skeleton a character's own skeleton with `mapping.depthGroups` (an empty list draws in mesh order). */
  constructor(mesh: PuppetMesh, weights: SkinWeights, skeleton: CharacterSkeleton) {
    const groups = skeleton.mapping.depthGroups ?? [];
    const G = groups.length;
    const jointGroup = skeleton.names.map((n) => groups.findIndex((g) => g.charJoints.includes(n)));
    // a joint outside every group takes its nearest grouped ancestor's (parents come first)
    for (let j = 0; j < jointGroup.length; j++)
      if (jointGroup[j] < 0 && skeleton.parents[j] >= 0) jointGroup[j] = jointGroup[skeleton.parents[j]];
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
    this.landmarks = groups.map((g) => {
      const ids = new Set<number>();
      for (const p of g.poseDepthDrivers) {
        const l = JOINT_LANDMARKS[PUPPET_JOINTS.indexOf(p)];
        for (const i of l.length > 0 ? l : TRUNK) ids.add(i);
      }
      return [...ids];
    });
    this.groupDepth = new Float64Array(G);
    this.rank = new Int32Array(G + 1);
    this.start = new Int32Array(G + 2);
    this.order = new Uint32Array(T);
    for (let t = 0; t < T; t++) this.order[t] = t;
  }

  /**
   * Re-order for this frame. @returns false (order kept) when the frame has no 33 landmarks.
   */
  update(frame: PoseFrame): boolean {
    const lms =
      frame.landmarks && frame.landmarks.length === 33
        ? frame.landmarks
        : frame.worldLandmarks && frame.worldLandmarks.length === 33
          ? frame.worldLandmarks
          : null;
    if (lms === null) return false;
    const G = this.groupDepth.length;
    for (let g = 0; g < G; g++) {
      const ids = this.landmarks[g];
      let z = 0;
      for (let k = 0; k < ids.length; k++) z += lms[ids[k]].z;
      this.groupDepth[g] = ids.length > 0 ? z / ids.length : 0;
    }
    // rank[0] = ungrouped (drawn first); then groups far (large z) to near, ties in config order
    const r = this.rank;
    r[0] = -1;
    for (let g = 0; g < G; g++) {
      let k = g + 1;
      while (k > 1 && this.groupDepth[r[k - 1]] < this.groupDepth[g]) {
        r[k] = r[k - 1];
        k--;
      }
      r[k] = g;
    }
    // counting sort of the triangles by their group's rank (stable: mesh order within a group)
    const start = this.start;
    start.fill(0);
    const T = this.triangleGroup.length;
    for (let t = 0; t < T; t++) start[this.slot(this.triangleGroup[t]) + 1]++;
    for (let k = 1; k <= G + 1; k++) start[k] += start[k - 1];
    for (let t = 0; t < T; t++) this.order[start[this.slot(this.triangleGroup[t])]++] = t;
    return true;
  }

  /** Back to the mesh order. */
  reset(): void {
    for (let t = 0; t < this.order.length; t++) this.order[t] = t;
  }

  /** Position of group g (-1: ungrouped) in this frame's rank. */
  private slot(g: number): number {
    for (let k = 0; k < this.rank.length; k++) if (this.rank[k] === g) return k;
    return 0;
  }
}
