/**
 * The avatar the mocap page poses (browser only): the bytes of a .glb / .vrm read twice, once by
 * src/io `readAvatar` (the skeleton and humanoid map the retargeter needs, the same reader `kind retarget`
 * uses) and once by three.js `GLTFLoader` (the meshes drawn), joined by the viewer's `GltfFigure`
 * (src/web/viewer/figures.ts: skeleton-local transforms -> node transforms).
 *
 * Posing: through the live hub (issue 23 item 2; src/mocap `MocapHubDriver`): a `RetargetHub` with the
 * mocap skeleton (src/mocap `mocapSkeleton`: 21 HumanBodyBones, rest = a T-pose facing +Z, every rest
 * rotation the identity) as the source, calibrated on that rest T-pose (as `kind mocap <landmarks>
 * <avatar>` does through the BVH, whose rest is the same T-pose), hips mode `room` (the avatar stands where
 * the performer stands, the leg-length difference added to the height: the live default). Each frame: the
 * solver's pose, confidences and timestamp -> the hub's source stage (One-Euro), limb weights from the
 * confidences, foot pinning from the causal contact, IK -> the figure.
 */
import type * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { type Avatar, readAvatar } from '../../io/gltf';
import { type MocapCalibration, MocapHubDriver, type MocapSolved } from '../../mocap';
import { GltfFigure } from '../viewer/figures';

export class PosedAvatar {
  readonly figure: GltfFigure;
  readonly name: string;
  readonly format: string;
  /** The hub driver of the current calibration, null before one. */
  driver: MocapHubDriver | null = null;
  private readonly data: Float32Array;
  /** Bones posed at least once through the hub (false: the avatar stands in its rest pose). */
  posed = false;

  private constructor(
    readonly avatar: Avatar,
    gltf: Awaited<ReturnType<GLTFLoader['parseAsync']>>,
  ) {
    const s = avatar.skeleton;
    this.name = avatar.name;
    this.format = avatar.format;
    this.figure = new GltfFigure(
      {
        name: avatar.name,
        boneNames: [...s.names],
        parents: Array.from(s.parents),
        restTranslations: Array.from(s.restTranslations),
        restRotations: Array.from(s.restRotations),
        humanoid: Array.from(s.humanoid),
      },
      gltf,
    );
    const n = s.boneCount;
    this.data = new Float32Array(7 * n);
    this.rest();
  }

  /**
   * Read an avatar from its bytes (`fileName` names it in errors).
   * @throws (rejects) GltfError naming the file (malformed, no skeleton, missing humanoid bones), or an
   * Error from three.js's loader prefixed with the file name.
   */
  static async load(bytes: Uint8Array, fileName: string): Promise<PosedAvatar> {
    const avatar = await readAvatar(bytes, { fileName });
    const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    let gltf: Awaited<ReturnType<GLTFLoader['parseAsync']>>;
    try {
      gltf = await new GLTFLoader().parseAsync(buf, '');
    } catch (e) {
      throw new Error(
        `${fileName}: three.js could not load it (${e instanceof Error ? e.message : String(e)})`,
      );
    }
    return new PosedAvatar(avatar, gltf);
  }

  /**
   * A new mocap calibration: a new hub driver on its skeleton (calibrated on its rest T-pose).
   * @throws HubError / RetargetError from the hub.
   */
  setSource(calibration: MocapCalibration): void {
    this.driver = new MocapHubDriver(calibration, this.avatar.skeleton);
  }

  /** Pose the avatar from a solved frame (the solver after `step(frame)`) at the frame's timestamp. */
  pose(solved: MocapSolved, frame: { timestampMs: number }): void {
    const d = this.driver;
    if (!d) return;
    d.stepFrame(solved, frame);
    const n = this.avatar.skeleton.boneCount;
    this.data.set(d.localRotations, 0);
    this.data.set(d.localTranslations, 4 * n);
    this.figure.apply(this.data, 0, 4 * n, -1);
    this.posed = true;
  }

  /** The avatar's rest pose (as authored). */
  rest(): void {
    const s = this.avatar.skeleton;
    this.data.set(s.restRotations, 0);
    this.data.set(s.restTranslations, 4 * s.boneCount);
    this.figure.apply(this.data, 0, 4 * s.boneCount, -1);
    this.posed = false;
  }

  /** Local rotation `[x, y, z, w]` of a humanoid bone last applied (`HumanBodyBones` index), or null when missing. */
  localRotation(humanBone: number): number[] | null {
    const b = this.avatar.skeleton.humanoid[humanBone];
    return b < 0 ? null : Array.from(this.data.subarray(4 * b, 4 * b + 4));
  }

  /** World position (metres, the avatar's own frame: the scene minus its offset) of a humanoid bone as drawn. */
  worldPosition(humanBone: number, out: THREE.Vector3): THREE.Vector3 | null {
    const b = this.avatar.skeleton.humanoid[humanBone];
    if (b < 0) return null;
    this.figure.root.updateMatrixWorld(true);
    const v = this.figure.boneWorldPosition(b, out);
    return v ? v.sub(this.figure.root.position) : null;
  }
}
