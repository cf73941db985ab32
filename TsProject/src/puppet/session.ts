/**
 * PuppetSession: one drawing driven by one pose stream, the whole per-frame path of the drawing puppet in
 * one object (issue 12, items 2-7): landmarks -> PosePipeline (21 joints with confidence and state) ->
 * DrawingRig.pose (one 2-D affine per joint) -> Deformer (CPU LBS of the mesh, then by default the ARAP
 * refinement and fold-over guard of deform.ts). Used by `kind puppet render` and the bench; the page runs the
 * same calls. Engine-free; `step` allocates nothing.
 *
 * Before the first frame with a person the drawing stays at rest (skinned = rest vertices, drawing joints
 * = rest joints with the pipeline's states); from that frame on it is posed every frame, and the rig's
 * reference (the root translation's zero, DrawingRig) is that first frame's pose.
 */
import type { Character } from './character';
import { type ArapOptions, DEFAULT_DEFORM_MODE, Deformer, type DeformMode, drawOrder } from './deform';
import { DepthOrder, type DepthOrderOptions } from './depthOrder';
import { buildMesh, type MeshOptions, type PuppetMesh } from './mesh';
import type { PoseOptions } from './options';
import { type PoseFrameReport, PosePipeline } from './pipeline';
import { DrawingRig, type DrawingRigOptions } from './rig';
import { createJointSet, type JointSet, type PoseFrame, PUPPET_PARENTS } from './types';
import { computeWeights, DEFAULT_WEIGHT_MODE, type SkinWeights, type WeightMode } from './weights';

/**
 * Options of a {@link PuppetSession}: pose options, camera size, weights, mesh, rig, layers and deformation.
 */
export interface PuppetSessionOptions {
  /** Pose-side options (DEFAULT_POSE_OPTIONS where absent). */
  pose?: Partial<PoseOptions>;
  /** Camera image size in pixels (the recording's `image`); default 640 x 480. */
  image?: { width: number; height: number };
  /** Skinning weights (default segments-geodesic, DRAWING.md). */
  weights?: WeightMode;
  mesh?: MeshOptions;
  rig?: DrawingRigOptions;
  /**
   * Keep the mesh's triangles in grid order instead of limbs over the body (deform.ts drawOrder), and no
   * layers (drawOrder null).
   */
  gridOrder?: boolean;
  /**
   * Layers (depthOrder.ts): false draws the static order (limbs over the body) every frame; otherwise the
   * body-part groups are ordered each frame from the landmarks' depth with this hysteresis (default margin
   * DEPTH_MARGIN torso lengths).
   */
  layers?: false | DepthOrderOptions;
  /** 'arap' (default: LBS + as-rigid-as-possible + fold-over guard, deform.ts) or 'lbs' (LBS alone). */
  deform?: DeformMode;
  arap?: ArapOptions;
  /** The grid mesh and its weights, already built for this character and `weights` mode ({@link PuppetSession.create}). */
  built?: { mesh: PuppetMesh; weights: SkinWeights };
}

/**
 * One drawing driven by one pose stream: the whole per-frame path of the drawing puppet (module doc), used by
 * `kind puppet render` and the page.
 */
export class PuppetSession {
  readonly mesh: PuppetMesh;
  readonly weights: SkinWeights;
  readonly rig: DrawingRig;
  readonly pipeline: PosePipeline;
  readonly weightMode: WeightMode;
  /** LBS, or LBS + ARAP; its `lbs` holds the plain LBS vertices of the last step (for comparison). */
  readonly deformer: Deformer;
  /** Pose-space joints of the last step (y down; pixels of the camera image or metres). */
  readonly poseJoints: JointSet = createJointSet();
  /**
   * The drawing's joints of the last step, drawing pixels; confidence and state as the pose joints'. 21
   * joints, or the character's own skeleton's M (rig.jointCount, names in rig.skeleton.names).
   */
  readonly drawingJoints: JointSet;
  /** Float64Array(jointCount * 6): one rest -> posed affine per joint (DrawingRig layout). */
  readonly transforms: Float64Array;
  /** Float32Array(2 * vertexCount): deformed vertices of the last step (LBS or ARAP), drawing pixels. */
  readonly skinned: Float32Array;
  /** True once a frame with a person has posed the drawing. */
  posed = false;
  /**
   * Layers: the triangles' draw order by body-part group, back to front from the pose's depth with hysteresis
   * (depthOrder.ts: the retarget config's groups, else trunk, arms, legs; `drawOrder.order` for rasterize's
   * `order`), updated every frame with landmarks; null with `gridOrder` or `layers: false` (mesh order).
   */
  readonly drawOrder: DepthOrder | null;

  /**
   * Builds the mesh, the weights (once: milliseconds to a second for the geodesic weights) and the deformer
   * (the ARAP factorisation: milliseconds).
   * @throws PuppetInputError from buildMesh (empty mask) or DrawingRig (non-finite rest joints);
   *   RangeError from the pose options or the deformation's.
   */
  constructor(
    readonly character: Character,
    options: PuppetSessionOptions = {},
  ) {
    this.pipeline = new PosePipeline(options.pose ?? {}, options.image);
    const built = options.built?.mesh ?? buildMesh(character, options.mesh);
    this.weightMode = options.weights ?? DEFAULT_WEIGHT_MODE;
    this.weights = options.built?.weights ?? computeWeights(built, character, this.weightMode);
    // limbs drawn over the body (deform.ts drawOrder); the grid's order when asked
    this.mesh = options.gridOrder
      ? built
      : drawOrder(built, this.weights, character.skeleton?.parents ?? PUPPET_PARENTS);
    this.rig = new DrawingRig(character, options.rig);
    this.drawingJoints = createJointSet(this.rig.jointCount);
    this.transforms = new Float64Array(this.rig.jointCount * 6);
    this.deformer = new Deformer(
      this.mesh,
      this.weights,
      options.deform ?? DEFAULT_DEFORM_MODE,
      options.arap,
    );
    this.skinned = new Float32Array(2 * this.mesh.vertexCount);
    this.drawOrder =
      options.gridOrder || options.layers === false
        ? null
        : new DepthOrder(this.mesh, this.weights, this.rig.skeleton, {
            image: options.image,
            ...(options.layers || {}),
          });
    this.reset();
  }

  /**
   * The same session, built in steps with `pause()` awaited between them (mesh, weights, the rest): a host
   * whose signals run between turns of its event loop (Node) passes one turn there, so an interrupt during a
   * big drawing's set-up takes effect after the step it arrived in, not after the whole set-up.
   */
  static async create(
    character: Character,
    options: PuppetSessionOptions,
    pause: () => Promise<void>,
  ): Promise<PuppetSession> {
    if (options.built) return new PuppetSession(character, options);
    const mesh = buildMesh(character, options.mesh);
    await pause();
    const weights = computeWeights(mesh, character, options.weights ?? DEFAULT_WEIGHT_MODE);
    await pause();
    return new PuppetSession(character, { ...options, built: { mesh, weights } });
  }

  /** Back to the state before the first frame (pipeline, rig reference, rest drawing). */
  reset(): void {
    this.pipeline.reset();
    this.rig.clearReference();
    this.drawOrder?.reset();
    this.posed = false;
    this.skinned.set(this.mesh.vertices);
    this.deformer.lbs.set(this.mesh.vertices);
    const r = this.character.restJoints;
    this.drawingJoints.x.set(r.x);
    this.drawingJoints.y.set(r.y);
    this.drawingJoints.confidence.fill(0);
    this.drawingJoints.state.set(r.state);
    this.transforms.fill(0);
    for (let j = 0; j < this.rig.jointCount; j++) {
      this.transforms[6 * j] = 1;
      this.transforms[6 * j + 3] = 1;
    }
  }

  /**
   * One frame: pose side, rig, deformation. Results in poseJoints, drawingJoints, transforms and skinned.
   * @param frame timestamps non-decreasing across calls (PosePipeline).
   * @returns the pipeline's report (a reused object).
   */
  step(frame: PoseFrame): PoseFrameReport {
    const report = this.pipeline.step(frame, this.poseJoints);
    if (report.personFound || this.posed) {
      this.rig.pose(this.poseJoints, this.drawingJoints, this.transforms);
      this.deformer.deform(this.transforms, this.skinned);
      this.drawOrder?.update(frame);
      this.posed = true;
    } else if (this.character.skeleton === undefined) {
      this.drawingJoints.confidence.set(this.poseJoints.confidence);
      this.drawingJoints.state.set(this.poseJoints.state);
    } else {
      // a character's own joints report the pose joint their driver reads (CharacterSkeleton.reports)
      const { reports, parents } = this.character.skeleton;
      const d = this.drawingJoints;
      for (let j = 0; j < reports.length; j++) {
        const k = reports[j] >= 0 || parents[j] < 0 ? Math.max(reports[j], 0) : -1;
        d.confidence[j] = k >= 0 ? this.poseJoints.confidence[k] : d.confidence[parents[j]];
        d.state[j] = k >= 0 ? this.poseJoints.state[k] : d.state[parents[j]];
      }
    }
    return report;
  }
}
