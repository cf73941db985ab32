/**
 * The humanoid map's result, options, override and error types (src/io/humanoidMap.ts builds the map).
 */
import type { HumanBoneName } from '../core/humanBodyBones';

/**
 * How a humanoid bone was found: the file's own map (`vrm`: the VRM humanoid; `extras`: the
 * `extras.kindHumanoid` map of a GLB this project wrote), the user's override, a bone name, or the
 * hierarchy/rest pose.
 */
export type MapSource = 'vrm' | 'extras' | 'override' | 'name' | 'topology';

/** HumanBodyBones name -> skeleton bone name (`null` = force unmapped). */
export type HumanoidOverride = Partial<Record<HumanBoneName, string | null>>;

/** The humanoid map found for a skeleton, how each bone was found, what is missing and the warnings. */
export interface HumanoidMapResult {
  /** Length 55: skeleton bone index per HumanBodyBones value, -1 where missing. */
  humanoid: Int32Array;
  /** Length 55: how each bone was found, null where missing. */
  source: (MapSource | null)[];
  /** HumanBodyBones names of required bones (Unity `HumanTrait.RequiredBone`) not found. */
  missingRequired: string[];
  /** HumanBodyBones names of optional bones not found. */
  missingOptional: string[];
  /** Ambiguities and repairs worth telling the user about (no file name prefix). */
  warnings: string[];
  /**
   * Why a missing bone is missing, where known: the bone the automatic mapping would have used is
   * taken by an override or preset bone (`"'mixamorig:RightArm' is taken by the override LeftUpperArm"`),
   * or the override set it to null. Keyed by HumanBodyBones name; {@link requireHumanoid} prints these.
   */
  missingReasons: Partial<Record<HumanBoneName, string>>;
}

/**
 * Options of {@link autoMapHumanoid}: an override, a preset map (e.g. a VRM's) and the file name for
 * messages.
 */
export interface AutoMapOptions {
  /** Per-file override, applied last (wins over preset and automatic results). */
  override?: HumanoidOverride;
  /** A map to take as is (length 55, bone index or -1), e.g. a VRM file's humanoid; only gaps are filled. */
  preset?: Int32Array;
  /** Source recorded for preset bones; default `'vrm'`. */
  presetSource?: MapSource;
  /**
   * Fill the bones the override and preset leave missing from names and topology (default true).
   * False takes a complete map as is (a map this project wrote: the bones it lacks stay missing).
   */
  fillGaps?: boolean;
  /** Used in error messages. */
  fileName?: string;
}

/** Bad override or preset, or missing required bones ({@link requireHumanoid}). Messages name the file. */
export class HumanoidMapError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HumanoidMapError';
  }
}
