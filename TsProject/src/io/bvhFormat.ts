/**
 * The BVH format's vocabulary, shared by the reader and the writer: channel names, the hierarchy layout
 * (joints, channels, End Sites), the reader's options and result, and the two error types. The
 * conventions (channel order, position channels replacing OFFSETs, units) are in src/io/bvh.ts.
 */
import type { Clip } from '../core/clip';

export type BvhChannel = 'Xposition' | 'Yposition' | 'Zposition' | 'Xrotation' | 'Yrotation' | 'Zrotation';

/** The six BVH channel names. */
export const BVH_CHANNELS: readonly BvhChannel[] = [
  'Xposition',
  'Yposition',
  'Zposition',
  'Xrotation',
  'Yrotation',
  'Zrotation',
];

/** One `ROOT`/`JOINT` of a BVH hierarchy, index-aligned with the clip skeleton's bones. */
export interface BvhJointLayout {
  name: string;
  /** Index of the parent joint in {@link BvhLayout.joints}, -1 for a root. */
  parent: number;
  /** OFFSET, file units, parent frame. */
  offset: [number, number, number];
  /** The joint's channels in file order, e.g. `['Xposition', ..., 'Zrotation', 'Xrotation', 'Yrotation']`. */
  channels: BvhChannel[];
  /** End Site OFFSET (file units, this joint's frame), or null when the joint has no End Site. */
  endSite: [number, number, number] | null;
  /** 1-based line of the `ROOT`/`JOINT` keyword in the source file; 0 for layouts not read from a file. */
  line: number;
}

/** The hierarchy part of a BVH file: joints in file (depth-first) order. */
export interface BvhLayout {
  joints: BvhJointLayout[];
}

export interface BvhParseResult {
  clip: Clip;
  layout: BvhLayout;
  /** Metres per file unit used for the clip's translations. */
  unitScale: number;
  /** How `unitScale` was chosen, e.g. `'centimetres (auto)'`, `'0.05 m per unit (given)'`. */
  unitGuess: string;
  /**
   * Raw channel values as read (file units, degrees), `Float64Array(frameCount * channelCount)`,
   * frame-major, channels in file order. Only when `keepChannelValues` was asked for.
   */
  channelValues?: Float64Array;
}

export interface BvhParseOptions {
  /** Used in error messages (`walk.bvh:17: ...`) and as the default clip name. */
  fileName?: string;
  /** Metres per file unit, or `'auto'` (default) to guess from the rest skeleton's size ({@link guessBvhUnitScale}). */
  unitScale?: number | 'auto';
  /** Clip name; default the file name without `.bvh`, else `'bvh'`. */
  name?: string;
  /** Also return the raw channel values (`channelValues`); costs `8 * channelCount` bytes per frame. */
  keepChannelValues?: boolean;
}

/** A malformed BVH file. `message` is `fileName:line: detail`; `line` is 1-based (0 when no line applies). */
export class BvhParseError extends Error {
  readonly fileName: string;
  readonly line: number;
  readonly detail: string;
  constructor(fileName: string, line: number, detail: string) {
    super(`${fileName}:${line}: ${detail}`);
    this.name = 'BvhParseError';
    this.fileName = fileName;
    this.line = line;
    this.detail = detail;
  }
}

/** Invalid arguments to {@link writeBvh} or {@link defaultBvhLayout}; the message names the joint/frame/field. */
export class BvhWriteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BvhWriteError';
  }
}

export const CHANNEL_BY_LOWER: Record<string, BvhChannel> = {};
for (const c of BVH_CHANNELS) CHANNEL_BY_LOWER[c.toLowerCase()] = c;

/** Axis (0 X, 1 Y, 2 Z) of a channel. */
export function channelAxis(c: BvhChannel): number {
  return c.charCodeAt(0) - 88;
}
export function isRotation(c: BvhChannel): boolean {
  return c.endsWith('rotation');
}
