/**
 * The argument parsers of `kind puppet` (./puppet.ts) and `kind mocap`: image size, background colour,
 * `--set` / `--grid` pose options, recording load options. Moved as is from ./puppet.ts.
 */
import { InvalidArgumentError } from 'commander';
import type { RecordingLoadOptions } from '../io/node';
import { DEFAULT_POSE_OPTIONS, type PoseOptions, resolvePoseOptions, type TuneGrid } from '../puppet';
import { numberArg } from './args';

/** `--image-size 720x1280`. */
export function imageSizeArg(value: string): { width: number; height: number } {
  const m = /^\s*(\d+)\s*[xX]\s*(\d+)\s*$/.exec(value);
  const w = m ? Number(m[1]) : Number.NaN;
  const h = m ? Number(m[2]) : Number.NaN;
  if (!m || !(w > 0 && h > 0 && w <= 65536 && h <= 65536))
    throw new InvalidArgumentError(`--image-size: '${value}' is not WIDTHxHEIGHT in pixels (e.g. 720x1280)`);
  return { width: w, height: h };
}

/** `--background white|transparent|#rrggbb`. */
export function backgroundArg(value: string): [number, number, number, number] {
  const v = value.trim().toLowerCase();
  if (v === 'white') return [255, 255, 255, 255];
  if (v === 'black') return [0, 0, 0, 255];
  if (v === 'transparent') return [0, 0, 0, 0];
  const m = /^#([0-9a-f]{6})$/.exec(v);
  if (!m)
    throw new InvalidArgumentError(`--background: '${value}' is not white, black, transparent or #rrggbb`);
  const n = Number.parseInt(m[1], 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255, 255];
}

/** A number above 0 and at most `max`. */
export const positive = (name: string, max: number) =>
  numberArg(name, `above 0, at most ${max}`, (v) => v > 0 && v <= max);

/** The numeric pose options a command line may set (`--set smoothingMs=60`) or sweep (`--grid smoothingMs=0,30,60`). */
const NUMERIC_POSE_OPTIONS = Object.keys(DEFAULT_POSE_OPTIONS).filter(
  (k) => typeof DEFAULT_POSE_OPTIONS[k as keyof PoseOptions] === 'number',
);

function optionName(name: string, key: string): keyof PoseOptions {
  if (!NUMERIC_POSE_OPTIONS.includes(key))
    throw new InvalidArgumentError(
      `${name}: unknown pose option '${key}' (one of ${NUMERIC_POSE_OPTIONS.join(', ')}${name === '--set' ? ', space' : ''})`,
    );
  return key as keyof PoseOptions;
}

function parseNumberList(name: string, key: string, text: string): number[] {
  const vals = text
    .split(',')
    .map((t) => (t.trim().toLowerCase() === 'inf' ? Number.POSITIVE_INFINITY : Number(t)));
  if (text.trim() === '' || vals.some((v) => Number.isNaN(v) || text.split(',').some((t) => t.trim() === '')))
    throw new InvalidArgumentError(`${name}: ${key}=${text} is not a list of numbers`);
  return vals;
}

/** `--grid key=v1,v2` (repeatable) into a TuneGrid. */
export function gridArg(value: string, prev: TuneGrid = {}): TuneGrid {
  const i = value.indexOf('=');
  if (i <= 0)
    throw new InvalidArgumentError(`--grid: '${value}' is not option=v1,v2,... (e.g. smoothingMs=0,30,60)`);
  const key = optionName('--grid', value.slice(0, i).trim());
  const vals = parseNumberList('--grid', key, value.slice(i + 1));
  for (const v of vals) {
    try {
      resolvePoseOptions({ [key]: v });
    } catch (e) {
      throw new InvalidArgumentError(`--grid: ${(e as Error).message}`);
    }
  }
  return { ...prev, [key]: vals };
}

/** `--set key=value` (repeatable) into pose options: a numeric option, or `space=auto|image|world`. */
export function setArg(value: string, prev: Partial<PoseOptions> = {}): Partial<PoseOptions> {
  const i = value.indexOf('=');
  if (i <= 0) throw new InvalidArgumentError(`--set: '${value}' is not option=value (e.g. smoothingMs=60)`);
  const name = value.slice(0, i).trim();
  const text = value.slice(i + 1).trim();
  let next: Partial<PoseOptions>;
  if (name === 'space') {
    if (text !== 'auto' && text !== 'image' && text !== 'world')
      throw new InvalidArgumentError(`--set: space=${text}: expected auto, image or world`);
    next = { ...prev, space: text };
  } else {
    const key = optionName('--set', name);
    const v = text.toLowerCase() === 'inf' ? Number.POSITIVE_INFINITY : Number(text);
    if (text === '' || Number.isNaN(v))
      throw new InvalidArgumentError(`--set: ${key}=${text} is not a number`);
    next = { ...prev, [key]: v };
  }
  try {
    resolvePoseOptions(next);
  } catch (e) {
    throw new InvalidArgumentError(`--set: ${(e as Error).message}`);
  }
  return next;
}

export function recordingOptions(opts: {
  imageSize?: { width: number; height: number };
  fps?: number;
  world?: string;
}): RecordingLoadOptions {
  return { imageSize: opts.imageSize, fps: opts.fps, world: opts.world };
}
