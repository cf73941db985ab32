/**
 * Where `kind cleanup` gets its contact probabilities: a small interface in front of the contact
 * detector (src/contact), so the command, its worker threads and `kind retarget --cleanup` ask one
 * place. Node-side host code.
 */
import type { FloorEstimate } from '../cleanup';
import type { Clip } from '../core';

/** Contact probability per foot per frame and the floor they were measured against. */
export interface ContactEstimate {
  left: Float32Array;
  right: Float32Array;
  floor: FloorEstimate;
  /** 'rule' or 'learned'. */
  model: string;
}

export type ContactModelName = 'rule' | 'learned';

export interface ContactSourceOptions {
  model: ContactModelName;
  /** An ONNX model file to run with onnxruntime-web instead of the shipped weights (learned only). */
  modelFile?: string;
}

/** Computes the estimate for a clip whose skeleton carries its humanoid map. */
export type ContactSource = (clip: Clip) => Promise<ContactEstimate>;

export type ContactSourceFactory = (options: ContactSourceOptions) => ContactSource;

let override: ContactSourceFactory | null = null;

/** Replace the contact detector (tests; `null` restores the default). */
export function setContactSourceFactory(factory: ContactSourceFactory | null): void {
  override = factory;
}

/**
 * The contact source for `options`.
 * @throws Error when no detector is available in this build.
 */
export function contactSource(options: ContactSourceOptions): ContactSource {
  if (override) return override(options);
  return async () => {
    throw new Error(`--model ${options.model}: the contact detector (src/contact) is not in this build`);
  };
}
