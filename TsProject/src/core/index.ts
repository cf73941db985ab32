/** Core: HumanBodyBones, skeletons, clips, forward kinematics and quaternion helpers. Engine-free. */
export * from './clip';
export * from './flat';
export * from './humanBodyBones';
export * from './json';
export * from './oneEuro';
export * from './quat';
export * from './skeleton';
