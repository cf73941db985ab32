/**
 * Writing a VRM Animation (`.vrma`): a GLB (glTF 2.0 binary) holding the humanoid node hierarchy in
 * the VRM T-pose, one animation, and the root extension `VRMC_vrm_animation` mapping VRM humanoid bone
 * names to those nodes.
 *
 * Spec: VRMC_vrm_animation-1.0 (https://github.com/vrm-c/vrm-specification/blob/master/specification/VRMC_vrm_animation-1.0/README.ja.md):
 * `specVersion` "1.0"; `humanoid.humanBones.<vrm bone>.node`; animation channels on humanoid nodes are
 * rotations, plus the translation of `hips` only; no scale. `expressions` and `lookAt` are optional in
 * the spec and not written (a take carries neither).
 */
import { Document, Extension, type Node as GltfNode, WebIO, type WriterContext } from '@gltf-transform/core';
import type { Clip } from '../core/clip';
import { HumanBodyBones as H, HUMAN_BONE_COUNT } from '../core/humanBodyBones';
import { GltfError } from './gltfError';
import { requireWritableFrames } from './gltfWrite';
import { vrm1BoneName } from './vrmaRest';

/** The extension's name (VRMC_vrm_animation-1.0 specification). */
export const VRMA_EXTENSION = 'VRMC_vrm_animation';
/** The `specVersion` this writer follows and writes. */
export const VRMA_SPEC_VERSION = '1.0';

/** Writes the root-level `VRMC_vrm_animation` object for the nodes given in {@link VrmaExtension.bones}. */
class VrmaExtension extends Extension {
  static override EXTENSION_NAME = VRMA_EXTENSION;
  override readonly extensionName = VRMA_EXTENSION;
  /** VRM bone name -> node, set before writing. */
  bones: [string, GltfNode][] = [];
  read(): this {
    return this;
  }
  write(context: WriterContext): this {
    const humanBones: Record<string, { node: number }> = {};
    for (const [name, node] of this.bones) {
      const index = context.nodeIndexMap.get(node);
      if (index === undefined) throw new Error(`${VRMA_EXTENSION}: node of '${name}' was not written`);
      humanBones[name] = { node: index };
    }
    const json = context.jsonDoc.json;
    json.extensions = {
      ...(json.extensions ?? {}),
      [VRMA_EXTENSION]: { specVersion: VRMA_SPEC_VERSION, humanoid: { humanBones } },
    };
    return this;
  }
}

/**
 * The `.vrma` bytes of `clip`, a clip on a `.vrma` rest skeleton (vrmaRest.ts `vrmaRestSkeleton`, or
 * any skeleton whose bone names are the VRM 1.0 names of its humanoid map and whose root is the hips):
 * - nodes: one per bone, named by its VRM bone name, rest TRS from the skeleton (metres, identity
 *   rest rotations for a `vrmaRestSkeleton`), the hips the scene's root;
 * - one animation named `options.animationName ?? clip.name`, input times `f * clip.frameTime`
 *   seconds, LINEAR; a rotation channel per bone (the clip's local rotations, consecutive keys kept in
 *   one hemisphere so slerp goes the short way) and a translation channel on the hips (the clip's hips
 *   local translation, metres);
 * - root extension `VRMC_vrm_animation` {specVersion "1.0", humanoid.humanBones}; no expressions, no lookAt.
 * @throws GltfError (file name `fileName`, default `<vrma>`) when the skeleton is not such a skeleton
 * (naming the bone), the clip lengths do not match, a value is not finite (naming frame and bone), or
 * the animation name is empty.
 */
export async function writeVrma(
  clip: Clip,
  options: { animationName?: string; fileName?: string; generator?: string } = {},
): Promise<Uint8Array> {
  const fileName = options.fileName ?? '<vrma>';
  const sk = clip.skeleton;
  const n = sk.boneCount;
  const humanOf = new Int32Array(n).fill(-1);
  for (let h = 0; h < HUMAN_BONE_COUNT; h++) if (sk.humanoid[h] >= 0) humanOf[sk.humanoid[h]] = h;
  for (let b = 0; b < n; b++) {
    const h = humanOf[b];
    if (h < 0 || vrm1BoneName(h) !== sk.names[b]) {
      throw new GltfError(
        fileName,
        `bone '${sk.names[b]}' is not a humanoid bone named by its VRM 1.0 name: build the skeleton with vrmaRestSkeleton`,
      );
    }
    if (h === H.LeftEye || h === H.RightEye)
      throw new GltfError(fileName, `bone '${sk.names[b]}': a VRM Animation carries no eye bones (lookAt)`);
  }
  const hips = sk.humanoid[H.Hips];
  if (hips !== 0 || sk.parents.slice(1).some((p) => p < 0))
    throw new GltfError(fileName, 'the skeleton must have the hips as its one root');
  const name = options.animationName ?? clip.name;
  if (typeof name !== 'string' || name === '')
    throw new GltfError(fileName, 'animation name must be a non-empty string');
  const F = clip.frameCount;
  requireWritableFrames(clip, sk, fileName);

  const document = new Document();
  document.getRoot().getAsset().generator = options.generator ?? 'KindRetargeting';
  const buffer = document.createBuffer();
  const nodes: GltfNode[] = [];
  for (let b = 0; b < n; b++) {
    const node = document
      .createNode(sk.names[b])
      .setTranslation([
        sk.restTranslations[3 * b],
        sk.restTranslations[3 * b + 1],
        sk.restTranslations[3 * b + 2],
      ])
      .setRotation([
        sk.restRotations[4 * b],
        sk.restRotations[4 * b + 1],
        sk.restRotations[4 * b + 2],
        sk.restRotations[4 * b + 3],
      ]);
    nodes.push(node);
    if (sk.parents[b] >= 0) nodes[sk.parents[b]].addChild(node);
  }
  document.createScene(name).addChild(nodes[0]);
  const ext = document.createExtension(VrmaExtension);
  ext.bones = nodes.map((node, b) => [sk.names[b], node]);

  const times = new Float32Array(F);
  for (let f = 0; f < F; f++) times[f] = f * clip.frameTime;
  const input = document.createAccessor('time').setType('SCALAR').setArray(times).setBuffer(buffer);
  const animation = document.createAnimation(name);
  const channel = (node: GltfNode, path: 'rotation' | 'translation', values: Float32Array) => {
    const output = document
      .createAccessor(`${node.getName()}_${path}`)
      .setType(path === 'rotation' ? 'VEC4' : 'VEC3')
      .setArray(values)
      .setBuffer(buffer);
    const sampler = document
      .createAnimationSampler()
      .setInput(input)
      .setOutput(output)
      .setInterpolation('LINEAR');
    animation.addSampler(sampler);
    animation.addChannel(
      document.createAnimationChannel().setTargetNode(node).setTargetPath(path).setSampler(sampler),
    );
  };
  for (let b = 0; b < n; b++) {
    const rot = new Float32Array(4 * F);
    let sign = 1;
    for (let f = 0; f < F; f++) {
      const o = 4 * (f * n + b);
      const r = clip.rotations;
      const len = Math.hypot(r[o], r[o + 1], r[o + 2], r[o + 3]);
      if (f > 0) {
        const dot =
          r[o] * rot[4 * f - 4] +
          r[o + 1] * rot[4 * f - 3] +
          r[o + 2] * rot[4 * f - 2] +
          r[o + 3] * rot[4 * f - 1];
        sign = dot < 0 ? -1 : 1;
      }
      for (let c = 0; c < 4; c++) rot[4 * f + c] = (sign * r[o + c]) / len;
    }
    channel(nodes[b], 'rotation', rot);
  }
  const tra = new Float32Array(3 * F);
  for (let f = 0; f < F; f++)
    for (let c = 0; c < 3; c++) tra[3 * f + c] = clip.translations[3 * (f * n + hips) + c];
  channel(nodes[hips], 'translation', tra);
  try {
    return await new WebIO().registerExtensions([VrmaExtension]).writeBinary(document);
  } catch (e) {
    throw new GltfError(fileName, `could not write the VRM Animation: ${(e as Error)?.message ?? e}`, {
      cause: e,
    });
  }
}
