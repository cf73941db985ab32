/** Core: HumanBodyBones, skeletons, clips, forward kinematics, quaternion helpers and ground patches. Engine-free. */
export * from './clip';
export * from './flat';
export * from './groundPatches';
export * from './humanBodyBones';
export * from './json';
export * from './oneEuro';
export * from './quat';
export * from './runs';
export * from './skeleton';
