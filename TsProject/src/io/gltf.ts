/**
 * glTF 2.0 / VRM avatars and clips: {@link readAvatar}, {@link readGltfClip}, {@link writeRetargetedGlb}.
 * See gltfAvatar.ts for the skeleton, naming and clip rules.
 */
export {
  type Avatar,
  type AvatarFormat,
  type BoneFrames,
  baseName,
  boneLocalFromNode,
  type GltfClipSource,
  type GltfDecoders,
  GltfError,
  type GltfResources,
  KHR_DRACO,
  loadGltfDocument,
  nodeLocalFromBone,
  parseGltfJson,
  readAvatar,
  readVrmHumanoid,
  vrmBoneToHumanBone,
} from './gltfAvatar';
export {
  checkGltfDocument,
  checkGltfJson,
  decodeDataUri,
  EXT_MESHOPT,
  isMeshoptFallback,
  nameList,
  resolveGltfResources,
} from './gltfCheck';
export { type GltfClip, readGltfClip, resampledFrameCount } from './gltfClip';
export {
  type ExtrasHumanoid,
  HUMANOID_EXTRAS_KEY,
  humanoidExtras,
  readExtrasHumanoid,
} from './gltfHumanoidExtras';
export { normalizeSkinWeights, writeRetargetedGlb } from './gltfWrite';
