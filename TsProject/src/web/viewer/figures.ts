/**
 * The figures the viewer draws: a stick figure built from a skeleton's rest pose, or a glTF model
 * whose bone nodes are driven by the stream. Both take local bone transforms in the skeleton's own
 * frames (scale-free, metres, Y up, faces +Z: the same as three.js) from a pose message.
 */
import * as THREE from 'three';
import type { GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import type { ViewerSkeleton } from '../../live/viewer/poseLayout';

/** HumanBodyBones indices of the bones the two scales go on (Unity's HumanBodyBones). */
const HIPS = 0;
const HEAD = 10;

/** A figure driven by local bone transforms. */
export interface Figure {
  /** Put into the scene (its position is the side-by-side offset). */
  readonly root: THREE.Group;
  readonly skeleton: ViewerSkeleton;
  /** Bones of the skeleton the model has no node for (glTF figures), by name. */
  readonly missing: string[];
  /**
   * Apply a pose: rotations `4n` from `ro`, translations `3n` from `to`, and optionally scales
   * `[hips, head]` from `so` (-1: none), all in `data`.
   */
  apply(data: Float32Array, ro: number, to: number, so: number): void;
  /** World position of a bone (after the last apply; the scene's matrices must be up to date). */
  boneWorldPosition(bone: number, out: THREE.Vector3): THREE.Vector3 | null;
}

const Y = new THREE.Vector3(0, 1, 0);
const tmpV = new THREE.Vector3();
const tmpQ = new THREE.Quaternion();
const tmpQ2 = new THREE.Quaternion();

/** A stick figure: one object per bone, a capsule from each bone to its parent and a ball per joint. */
export class StickFigure implements Figure {
  readonly root = new THREE.Group();
  readonly missing: string[] = [];
  private readonly bones: THREE.Object3D[];
  private readonly links: (THREE.Mesh | null)[];
  private readonly scaleBones: number[];

  constructor(
    readonly skeleton: ViewerSkeleton,
    color: number,
  ) {
    const s = skeleton;
    const n = s.boneNames.length;
    const linkMat = new THREE.MeshStandardMaterial({ color, roughness: 0.6 });
    const jointMat = new THREE.MeshStandardMaterial({ color: 0xffffff, roughness: 0.4 });
    // unit cylinder from y = 0 to y = 1
    const linkGeo = new THREE.CylinderGeometry(1, 1, 1, 8).translate(0, 0.5, 0);
    const jointGeo = new THREE.SphereGeometry(0.018, 10, 8);
    this.bones = [];
    this.links = [];
    for (let b = 0; b < n; b++) {
      const bone = new THREE.Object3D();
      bone.name = s.boneNames[b];
      bone.position.fromArray(s.restTranslations, 3 * b);
      bone.quaternion.fromArray(s.restRotations, 4 * b);
      bone.add(new THREE.Mesh(jointGeo, jointMat));
      this.bones.push(bone);
      const p = s.parents[b];
      if (p >= 0) {
        this.bones[p].add(bone);
        const link = new THREE.Mesh(linkGeo, linkMat);
        this.bones[p].add(link);
        this.links.push(link);
      } else {
        this.root.add(bone);
        this.links.push(null);
      }
    }
    this.scaleBones = [s.humanoid?.[HIPS] ?? -1, s.humanoid?.[HEAD] ?? -1];
    this.updateLinks();
  }

  private updateLinks(): void {
    for (let b = 0; b < this.bones.length; b++) {
      const link = this.links[b];
      if (!link) continue;
      tmpV.copy(this.bones[b].position);
      const len = tmpV.length();
      link.visible = len > 1e-6;
      if (!link.visible) continue;
      link.quaternion.setFromUnitVectors(Y, tmpV.divideScalar(len));
      const r = Math.min(0.02, 0.12 * len + 0.004);
      link.scale.set(r, len, r);
    }
  }

  apply(data: Float32Array, ro: number, to: number, so: number): void {
    const n = this.bones.length;
    for (let b = 0; b < n; b++) {
      const bone = this.bones[b];
      bone.quaternion.set(data[ro + 4 * b], data[ro + 4 * b + 1], data[ro + 4 * b + 2], data[ro + 4 * b + 3]);
      bone.position.set(data[to + 3 * b], data[to + 3 * b + 1], data[to + 3 * b + 2]);
    }
    if (so >= 0) {
      for (let k = 0; k < 2; k++) {
        const b = this.scaleBones[k];
        if (b >= 0) this.bones[b].scale.setScalar(data[so + k]);
      }
    }
    this.updateLinks();
  }

  boneWorldPosition(bone: number, out: THREE.Vector3): THREE.Vector3 | null {
    const o = this.bones[bone];
    return o ? o.getWorldPosition(out) : null;
  }
}

/**
 * The glTF node of each skeleton bone. Bone names are glTF node names (src/io/gltfAvatar.ts: unnamed
 * nodes are `node<index>`, a repeated name is `<name>#<node index>` after its first use); three.js
 * renames nodes (sanitised, made unique), so nodes are matched through the loader's node indices
 * (`parser.associations`) and the original names in `parser.json`.
 */
export function nodesByBoneName(gltf: GLTF): Map<string, THREE.Object3D> {
  const byIndex = new Map<number, THREE.Object3D>();
  gltf.scene.traverse((o) => {
    const ref = gltf.parser.associations.get(o);
    if (ref && ref.nodes !== undefined && !byIndex.has(ref.nodes)) byIndex.set(ref.nodes, o);
  });
  const nodes = (gltf.parser.json.nodes ?? []) as { name?: string }[];
  const out = new Map<string, THREE.Object3D>();
  const indices = [...byIndex.keys()].sort((a, b) => a - b);
  for (const i of indices) {
    const o = byIndex.get(i)!;
    const name = nodes[i]?.name;
    out.set(`node${i}`, o);
    if (name) {
      out.set(`${name}#${i}`, o);
      if (!out.has(name)) out.set(name, o);
    }
  }
  return out;
}

/**
 * A glTF model whose bone nodes follow the stream. Skeleton-local transforms become node-local ones
 * with the inverse of src/io/gltfAvatar.ts `boneLocalFromNode`: `nodeR = conj(parentR) * r`,
 * `nodeT = conj(parentR) * (t - parentT) / parentScale`, where parentScale is the uniform world scale of
 * the node's parent and parentR/parentT its world rotation/translation for root bones (identity/zero for
 * the others), read from the loaded scene at rest.
 */
export class GltfFigure implements Figure {
  readonly root = new THREE.Group();
  readonly missing: string[] = [];
  private readonly nodes: (THREE.Object3D | null)[];
  private readonly parentScale: Float64Array;
  private readonly parentR: Float64Array;
  private readonly parentT: Float64Array;
  private readonly restScale: THREE.Vector3[];
  private readonly scaleBones: number[];

  constructor(
    readonly skeleton: ViewerSkeleton,
    gltf: GLTF,
  ) {
    const s = skeleton;
    const n = s.boneNames.length;
    const byName = nodesByBoneName(gltf);
    gltf.scene.updateMatrixWorld(true);
    this.nodes = [];
    this.parentScale = new Float64Array(n).fill(1);
    this.parentR = new Float64Array(4 * n);
    this.parentT = new Float64Array(3 * n);
    this.restScale = [];
    const pos = new THREE.Vector3();
    const rot = new THREE.Quaternion();
    const scl = new THREE.Vector3();
    for (let b = 0; b < n; b++) {
      const node = byName.get(s.boneNames[b]) ?? null;
      this.nodes.push(node);
      this.parentR[4 * b + 3] = 1;
      this.restScale.push(node ? node.scale.clone() : new THREE.Vector3(1, 1, 1));
      if (!node) {
        this.missing.push(s.boneNames[b]);
        continue;
      }
      if (!node.parent) continue;
      node.parent.matrixWorld.decompose(pos, rot, scl);
      this.parentScale[b] = scl.x;
      if (s.parents[b] < 0) {
        rot.toArray(this.parentR, 4 * b);
        pos.toArray(this.parentT, 3 * b);
      }
    }
    this.scaleBones = [s.humanoid?.[HIPS] ?? -1, s.humanoid?.[HEAD] ?? -1];
    // skinned meshes keep their rest bounds: do not cull them when the character walks away
    gltf.scene.traverse((o) => {
      o.frustumCulled = false;
    });
    this.root.add(gltf.scene);
  }

  apply(data: Float32Array, ro: number, to: number, so: number): void {
    const n = this.nodes.length;
    for (let b = 0; b < n; b++) {
      const node = this.nodes[b];
      if (!node) continue;
      const pr = this.parentR;
      tmpQ2.set(pr[4 * b], pr[4 * b + 1], pr[4 * b + 2], pr[4 * b + 3]).invert();
      tmpQ.set(data[ro + 4 * b], data[ro + 4 * b + 1], data[ro + 4 * b + 2], data[ro + 4 * b + 3]);
      node.quaternion.multiplyQuaternions(tmpQ2, tmpQ);
      const pt = this.parentT;
      tmpV
        .set(
          data[to + 3 * b] - pt[3 * b],
          data[to + 3 * b + 1] - pt[3 * b + 1],
          data[to + 3 * b + 2] - pt[3 * b + 2],
        )
        .applyQuaternion(tmpQ2)
        .divideScalar(this.parentScale[b]);
      node.position.copy(tmpV);
    }
    if (so >= 0) {
      for (let k = 0; k < 2; k++) {
        const b = this.scaleBones[k];
        const node = b >= 0 ? this.nodes[b] : null;
        if (node) node.scale.copy(this.restScale[b]).multiplyScalar(data[so + k]);
      }
    }
  }

  boneWorldPosition(bone: number, out: THREE.Vector3): THREE.Vector3 | null {
    const o = this.nodes[bone];
    return o ? o.getWorldPosition(out) : null;
  }
}
