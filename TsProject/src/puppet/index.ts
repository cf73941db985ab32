/**
 * The drawing puppet (issue 12): MediaPipe landmarks -> 21 joints with confidences -> a rig-less drawing
 * deformed by CPU linear blend skinning. Engine-free (no Node or DOM API). See types.ts for the pipeline
 * and DRAWING.md for the drawing side (character, rig, mesh, weights, skinning, rasteriser).
 */
export * from './character';
export * from './mask';
export * from './mesh';
export * from './raster';
export * from './rig';
export * from './skinning';
export * from './types';
export * from './weights';
