/**
 * Request schemas of the remote-control protocol (zod, https://zod.dev), and the conversion of a
 * failed parse into the protocol's error (`field`: a JSON path, `message`: one line). Engine-free.
 *
 * Every request is a strict object: a field the action does not take is an error naming it. `id`
 * (string of at most 256 characters, or a finite number) is optional in every request and echoed.
 */
import { z } from 'zod';

/** The actions, in the protocol's order. */
export const ACTIONS = [
  'refresh',
  'getCharacterData',
  'updateValueRealtime',
  'setHandPosePreset',
  'calibrateIPose',
  'resetCalibration',
  'calibrateHeadForward',
  'autoCalibrateAll',
] as const;
export type ActionName = (typeof ACTIONS)[number];

/** Calibration actions (same shape: characterName only). */
export const CALIBRATION_ACTIONS = [
  'calibrateIPose',
  'resetCalibration',
  'calibrateHeadForward',
  'autoCalibrateAll',
] as const;
export type CalibrationAction = (typeof CALIBRATION_ACTIONS)[number];

export const idSchema = z.union([z.string().max(256), z.number()]);
const characterName = z.string().min(1).max(256);

export const refreshRequest = z.strictObject({ action: z.literal('refresh'), id: idSchema.optional() });

export const getCharacterDataRequest = z.strictObject({
  action: z.literal('getCharacterData'),
  id: idSchema.optional(),
  characterName,
});

export const updateValueRealtimeRequest = z.strictObject({
  action: z.literal('updateValueRealtime'),
  id: idSchema.optional(),
  characterName,
  property: z.string().min(1).max(256),
  // typed and ranged per parameter by the dispatcher (params.ts), so the message names the range
  value: z.unknown(),
});

export const setHandPosePresetRequest = z.strictObject({
  action: z.literal('setHandPosePreset'),
  id: idSchema.optional(),
  characterName,
  hand: z.enum(['left', 'right', 'both']),
  // checked against the preset names by the dispatcher (the message lists them)
  preset: z.string().min(1).max(256),
});

function calibrationRequest<A extends CalibrationAction>(action: A) {
  return z.strictObject({ action: z.literal(action), id: idSchema.optional(), characterName });
}

export const REQUEST_SCHEMAS = {
  refresh: refreshRequest,
  getCharacterData: getCharacterDataRequest,
  updateValueRealtime: updateValueRealtimeRequest,
  setHandPosePreset: setHandPosePresetRequest,
  calibrateIPose: calibrationRequest('calibrateIPose'),
  resetCalibration: calibrationRequest('resetCalibration'),
  calibrateHeadForward: calibrationRequest('calibrateHeadForward'),
  autoCalibrateAll: calibrationRequest('autoCalibrateAll'),
} as const;

export type RefreshRequest = z.infer<typeof refreshRequest>;
export type GetCharacterDataRequest = z.infer<typeof getCharacterDataRequest>;
export type UpdateValueRealtimeRequest = z.infer<typeof updateValueRealtimeRequest>;
export type SetHandPosePresetRequest = z.infer<typeof setHandPosePresetRequest>;
export type CalibrationRequest = { action: CalibrationAction; id?: string | number; characterName: string };

/** A protocol error: the JSON path of the bad field (`$` for the whole message) and a one-line message. */
export interface ProtocolError {
  field: string;
  message: string;
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A JSON path from a zod issue path: `value`, `a.b`, `a[0]`, `["odd key"]`; `$` for the root. */
export function jsonPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const k of path) {
    if (typeof k === 'number') out += `[${k}]`;
    else if (typeof k === 'string' && IDENT.test(k)) out += out ? `.${k}` : k;
    else out += `[${JSON.stringify(String(k))}]`;
  }
  return out || '$';
}

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : typeof v;
}

function get(obj: unknown, path: readonly PropertyKey[]): unknown {
  let v = obj;
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

/** One line, at most 300 characters. */
export function oneLine(s: string): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > 300 ? `${t.slice(0, 297)}...` : t;
}

/**
 * The protocol error for a failed parse of `input`: an unknown field first (the one a typo makes),
 * then the first issue in field order. Messages say what was expected and what came.
 */
export function issueToError(issues: readonly z.core.$ZodIssue[], input: unknown): ProtocolError {
  const extra = issues.find((i) => i.code === 'unrecognized_keys');
  if (extra && extra.code === 'unrecognized_keys') {
    const key = extra.keys[0];
    const field = jsonPath([...extra.path, key]);
    return { field, message: oneLine(`unknown field ${JSON.stringify(key)} for this action`) };
  }
  const issue = issues[0];
  if (!issue) return { field: '$', message: 'invalid message' };
  const field = jsonPath(issue.path);
  const got = get(input, issue.path);
  if (got === undefined) return { field, message: `missing field ${field}` };
  switch (issue.code) {
    case 'invalid_type':
      return { field, message: oneLine(`need ${issue.expected}, got ${typeOf(got)}`) };
    case 'invalid_union':
      return { field, message: oneLine(`need a string or a number, got ${typeOf(got)}`) };
    case 'invalid_value':
      return {
        field,
        message: oneLine(
          `${JSON.stringify(typeof got === 'string' ? got.slice(0, 40) : got) ?? typeOf(got)} is not one of ${issue.values
            .map((v) => JSON.stringify(v))
            .join(', ')}`,
        ),
      };
    case 'too_small':
      return { field, message: oneLine(`too short: need at least ${String(issue.minimum)}`) };
    case 'too_big':
      return { field, message: oneLine(`too long: at most ${String(issue.maximum)}`) };
    default:
      return { field, message: oneLine(issue.message) };
  }
}
