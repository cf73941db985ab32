/**
 * VRM Animation (`.vrma`, VRMC_vrm_animation-1.0): the T-pose rest skeleton built from a take
 * ({@link vrmaRestSkeleton}) and the writer ({@link writeVrma}). Reading a `.vrma` is `readAvatar` +
 * `readGltfClip` (gltf.ts): its humanoid map comes from the extension (gltfVrm.ts `readVrmHumanoid`).
 */
export { VrmaError, vrm1BoneName, vrmaRestSkeleton } from './vrmaRest';
export { VRMA_EXTENSION, VRMA_SPEC_VERSION, writeVrma } from './vrmaWrite';
