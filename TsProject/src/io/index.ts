/**
 * File formats: BVH read/write, glTF 2.0 / VRM avatars and clips, the retargeted GLB writer, and the
 * humanoid auto-mapping. Readers take strings or bytes (no file system access here).
 */
export * from './bvh';
export * from './gltf';
export * from './humanoidMap';
export * from './vrma';
