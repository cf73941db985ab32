/**
 * Where `kind cleanup` gets its contact probabilities: a small interface in front of the contact
 * detector (src/contact), so the command, its worker threads and `kind retarget --cleanup` ask one
 * place. Node-side host code.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { FloorEstimate } from '../cleanup';
import {
  computeFootTracks,
  learnedContactProbabilities,
  loadShippedContactModel,
  ruleContactProbabilities,
  SHIPPED_MODEL_INFO,
  teacherContactProbabilities,
} from '../contact';
import type { onnxContactProbabilities } from '../contact/onnxRunner';
import type { Clip } from '../core';
import { describeFsError } from '../io/node';

/** Contact probability per foot per frame and the floor they were measured against. */
export interface ContactEstimate {
  left: Float32Array;
  right: Float32Array;
  floor: FloorEstimate;
  /** 'rule', 'learned' or 'teacher'. */
  model: string;
  /**
   * Heel and toe contact probability per foot per frame (src/contact `heelToeProbabilities`: the foot's
   * value split by the point rule). Absent: the cleanup pins the ankle on every contact frame.
   */
  points?: Record<'left' | 'right', { heel: Float32Array; toe: Float32Array }>;
}

export type ContactModelName = 'rule' | 'learned' | 'teacher';

/** The `--model` choices of `kind cleanup` (and `--cleanup-model` of `kind retarget`). */
export const CONTACT_MODEL_NAMES: readonly ContactModelName[] = ['rule', 'learned', 'teacher'];

/**
 * `--cleanup` and `--cleanup-model <kind>` for a command that retargets onto an avatar (`kind retarget`,
 * `kind mocap`): the feet cleaned on the avatar before writing, with this contact detector. Add both with
 * `.addOption`.
 */
export function cleanupOptions(): [Option, Option] {
  return [
    new Option('--cleanup', 'clean the feet on the avatar before writing (kind cleanup: contacts, leg IK)'),
    new Option('--cleanup-model <kind>', 'contact detector for --cleanup (default: as kind cleanup)')
      .choices([...CONTACT_MODEL_NAMES])
      .default(DEFAULT_CONTACT_MODEL),
  ];
}

/**
 * The cleanup choice of {@link cleanupOptions}: `{ model }` with `--cleanup`, else undefined.
 * @throws InvalidArgumentError for `--cleanup-model` given without `--cleanup`.
 */
export function cleanupChoice(
  opts: { cleanup?: boolean; cleanupModel: ContactModelName },
  cmd: Command,
): { model: ContactModelName } | undefined {
  if (cmd.getOptionValueSource('cleanupModel') === 'cli' && !opts.cleanup)
    throw new InvalidArgumentError('--cleanup-model applies to --cleanup (add --cleanup to clean the feet)');
  return opts.cleanup ? { model: opts.cleanupModel } : undefined;
}

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

/** The detector `kind cleanup` uses without `--model`: the model card's choice (src/contact/model). */
export const DEFAULT_CONTACT_MODEL: ContactModelName = SHIPPED_MODEL_INFO.defaultModel;

/**
 * Folder of onnxruntime-web's .wasm files (node_modules/onnxruntime-web/dist/), offline; null when the
 * package is not installed (it is an optional dependency of kind-retargeting: `npm install --omit=optional`
 * leaves it out).
 */
function ortWasmPaths(): string | null {
  try {
    return `${path.dirname(require.resolve('onnxruntime-web'))}${path.sep}`;
  } catch {
    return null;
  }
}

/** The error for `--model-file` without onnxruntime-web installed. */
export const ONNX_MISSING =
  '--model-file runs the model in onnxruntime-web, an optional dependency of kind-retargeting that is not installed (npm install onnxruntime-web)';

/** The shipped ONNX model (src/contact/model/contact.onnx beside the package), or null if absent. */
function shippedOnnxPath(): string | null {
  let dir = __dirname;
  for (let i = 0; i < 6; i++) {
    const c = path.join(dir, 'src', 'contact', 'model', 'contact.onnx');
    if (fs.existsSync(c)) return c;
    dir = path.dirname(dir);
  }
  return null;
}

function readModelFile(file: string): Uint8Array {
  try {
    return new Uint8Array(fs.readFileSync(file));
  } catch (e) {
    throw new Error(`--model-file ${describeFsError(file, e)}`);
  }
}

/**
 * The contact source for `options`: `rule` is the rule baseline; `teacher` the offline teacher
 * (src/contact/teacher.ts: the whole take at once, heel and toe, 0/1 labels); `learned` runs the ONNX model
 * (`modelFile`, else the shipped `contact.onnx`) in onnxruntime-web, or the same weights in the
 * pure-TS forward pass when the shipped file is not beside the package or onnxruntime-web (an optional
 * dependency) is not installed (equal within 1e-6, tested).
 * @throws Error naming the file when `modelFile` cannot be read, {@link ONNX_MISSING} when `modelFile` is
 * given without onnxruntime-web installed; ContactError (from src/contact) for a
 * clip without feet or a model that is not the expected one.
 */
export function contactSource(options: ContactSourceOptions): ContactSource {
  if (override) return override(options);
  if (options.model === 'rule') return async (clip) => ruleContactProbabilities(computeFootTracks(clip));
  if (options.model === 'teacher')
    return async (clip) => teacherContactProbabilities(computeFootTracks(clip));
  // without onnxruntime-web the shipped model runs as its pure-TS forward pass (same weights, equal within 1e-6)
  const wasmPaths = ortWasmPaths();
  if (options.modelFile !== undefined && wasmPaths === null) throw new Error(ONNX_MISSING);
  const file = options.modelFile ?? (wasmPaths === null ? null : shippedOnnxPath());
  if (file === null || wasmPaths === null) {
    const weights = loadShippedContactModel();
    return async (clip) => learnedContactProbabilities(computeFootTracks(clip), weights);
  }
  const bytes = readModelFile(file);
  return async (clip) => {
    const tracks = computeFootTracks(clip);
    let est: Awaited<ReturnType<typeof onnxContactProbabilities>>;
    try {
      // imported here, not at the top: onnxruntime-web is optional and only this path needs it
      const { onnxContactProbabilities } = await import('../contact/onnxRunner');
      est = await onnxContactProbabilities(tracks, bytes, undefined, { wasmPaths });
    } catch (e) {
      throw new Error(`${file}: ${(e as Error).message}`);
    }
    // a model whose output is not a probability (no final sigmoid, another task's model) is the model's
    // fault, named as such, not the take's
    for (const foot of ['left', 'right'] as const) {
      const p = est[foot];
      for (let t = 0; t < p.length; t++)
        if (!(p[t] >= 0 && p[t] <= 1))
          throw new Error(
            `${file}: the model's output ${p[t]} for the ${foot} foot at frame ${t} is not a probability in [0, 1] (a contact model ends in a sigmoid)`,
          );
    }
    return est;
  };
}
