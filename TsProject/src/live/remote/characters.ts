/**
 * The character registry the remote-control protocol works on. Engine-free.
 *
 * The host (src/live/node/live.ts in Node, the C# shell in Unity) implements it: one entry per avatar
 * driven live, each with its {@link RetargetHub} and the latest source frame it was fed.
 */
import type { RetargetHub } from '../../rig/hub';

/**
 * One source frame as the hub takes it: local rotations `Float64Array(4 * sourceBones)` (quaternions
 * `[x, y, z, w]`) and local translations `Float64Array(3 * sourceBones)` (metres), source frame.
 */
export interface LiveFrame {
  rotations: Float64Array;
  translations: Float64Array;
}

/** The characters a {@link RemoteControl} can address, by name. */
export interface LiveCharacters {
  /** Registered character names, in display order. */
  names(): readonly string[];
  /** The hub of a character, or undefined for an unknown name. */
  hub(name: string): RetargetHub | undefined;
  /** The latest source frame fed to that character's hub, or undefined before the first one. */
  currentFrame(name: string): LiveFrame | undefined;
}
