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
  GltfError,
  loadGltfDocument,
  nodeLocalFromBone,
  parseGltfJson,
  readAvatar,
  readVrmHumanoid,
  vrmBoneToHumanBone,
} from './gltfAvatar';
export { type GltfClip, readGltfClip } from './gltfClip';
export { normalizeSkinWeights, writeRetargetedGlb } from './gltfWrite';
