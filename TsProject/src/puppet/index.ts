/**
 * The drawing puppet (issue 12): MediaPipe landmarks -> 21 joints with confidences -> a rig-less drawing
 * deformed by CPU linear blend skinning. Engine-free (no Node or DOM API). See types.ts for the pipeline.
 * Pose side: landmarks.ts (readers), joints.ts (33 -> 21), filter.ts, occlusion.ts, pipeline.ts,
 * metrics.ts and tune.ts (item 8); POSE.md documents it.
 * Drawing side: character, mask, rig, mesh, weights, skinning, deform (ARAP refinement), quality (flipped
 * triangles, area stretch), rasteriser; DRAWING.md documents it.
 */
export * from './bvhNames';
export * from './character';
export * from './deform';
export * from './depthOrder';
export * from './filter';
export * from './imageSize';
export * from './joints';
export * from './keypoints';
export * from './landmarks';
export * from './mask';
export * from './mesh';
export * from './metrics';
export * from './occlusion';
export * from './options';
export * from './pipeline';
export * from './puppetFile';
export * from './quality';
export * from './raster';
export * from './retargetCfg';
export * from './rig';
export * from './session';
export * from './skeleton';
export * from './skinning';
export * from './tune';
export * from './types';
export * from './weights';
