/**
 * The per-file humanoid override: reading its JSON (errors at line and column), resolving its bone
 * names, and the 'did you mean' suggestions for unknown keys and bones.
 */
import { HUMAN_BONE_NAMES, type HumanBoneName, humanBoneIndex } from '../core/humanBodyBones';
import { locateJsonError } from '../core/json';
import type { Skeleton } from '../core/skeleton';
import { HumanoidMapError, type HumanoidOverride } from './humanoidMapTypes';

/**
 * Normalised edit distance below which a name counts as similar: Levenshtein distance divided by the
 * longer length, compared case-insensitively and without a namespace prefix (`mixamorig:`, `rig|`).
 * 1/3 accepts a typo or two in a bone name (`LeftHandd`, `LeftUperArm`) but not a different bone
 * (`LeftHand`/`RightHand` is 0.44, `LeftArm`/`LeftForeArm` 0.36).
 */
export const SIMILAR_NAME_THRESHOLD = 1 / 3;

/** A name compared for similarity: lower case, without a namespace prefix such as `mixamorig:`. */
function similarityKey(name: string): string {
  return name.replace(/^.*[:|]/, '').toLowerCase();
}

/**
 * The candidates most similar to `word`: those at the smallest edit distance of their
 * `similarityKey`s (ties in candidate order, at most `max`), provided that distance divided by the
 * longer key length is at most {@link SIMILAR_NAME_THRESHOLD}. Empty when none is close: better no
 * suggestion than a misleading one.
 */
export function similarNames(word: string, candidates: readonly string[], max = 3): string[] {
  const w = similarityKey(word);
  let best = Number.POSITIVE_INFINITY;
  let out: string[] = [];
  for (const c of candidates) {
    const k = similarityKey(c);
    const len = Math.max(w.length, k.length);
    if (len === 0) continue;
    const d = editDistance(w, k);
    if (d / len > SIMILAR_NAME_THRESHOLD + 1e-12 || d > best) continue;
    if (d < best) {
      best = d;
      out = [];
    }
    if (out.length < max && !out.includes(c)) out.push(c);
  }
  return out;
}

/** `" (did you mean 'a' or 'b'?)"`, or `""`. */
function didYouMean(names: readonly string[]): string {
  if (names.length === 0) return '';
  const q = names.map((n) => `'${n}'`);
  return ` (did you mean ${q.length === 1 ? q[0] : `${q.slice(0, -1).join(', ')} or ${q[q.length - 1]}`}?)`;
}

const HUMAN_BODY_BONES_URL = 'https://docs.unity3d.com/ScriptReference/HumanBodyBones.html';

/**
 * Suggestion for an override key that is not a HumanBodyBones name: similar names, or Unity's name
 * for a VRM 1.0 thumb name (VRM `leftThumbMetacarpal` = Unity `LeftThumbProximal`), or the list's URL.
 */
export function keySuggestion(key: string): string {
  const vrmThumb = /^(left|right)thumbmetacarpal$/i.exec(key);
  if (vrmThumb) {
    const side = vrmThumb[1].toLowerCase() === 'left' ? 'Left' : 'Right';
    return ` (did you mean '${side}ThumbProximal'? Unity's thumb proximal is the VRM 1.0 thumb metacarpal)`;
  }
  const near = didYouMean(similarNames(key, HUMAN_BONE_NAMES));
  return near || ` (no similar name; the names are listed at ${HUMAN_BODY_BONES_URL})`;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

export function fileLabel(fileName: string | undefined): string {
  return fileName && fileName.length > 0 ? fileName : '<skeleton>';
}

/** Resolve an override bone name: exact, else a unique case-insensitive match; throws naming key, bone and file. */
export function resolveOverrideBone(skeleton: Skeleton, key: string, value: string, file: string): number {
  const exact = skeleton.names.indexOf(value);
  if (exact >= 0) return exact;
  const lower = value.toLowerCase();
  const ci = skeleton.names.flatMap((n, i) => (n.toLowerCase() === lower ? [i] : []));
  if (ci.length === 1) return ci[0];
  const near = similarNames(value, skeleton.names);
  const inspect = `kind inspect ${file === '<skeleton>' ? '<file>' : file}`;
  throw new HumanoidMapError(
    `${file}: humanoid override ${key}: no bone named '${value}' in the skeleton` +
      (near.length > 0 ? didYouMean(near) : `; no similar bone name ('${inspect}' lists the bones)`),
  );
}

/** 1-based line and column (UTF-16 code units) of offset `pos` in `text`; lines end at `\n` (`\r\n` too). */
export function lineColumnAt(text: string, pos: number): { line: number; column: number } {
  const end = Math.max(0, Math.min(pos, text.length));
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

/**
 * Where a `JSON.parse` error is, from its message (V8 formats, Node 18-22):
 * - `... in JSON at position N` -> the line/column of offset N;
 * - `... (line L column C)` (newer V8, after the position) -> L and C as given;
 * - `Unexpected end of JSON input` -> just after the last non-blank character;
 * - anything else (e.g. Node 20's `Unexpected token 'x', "..." is not valid JSON`) -> null.
 * `detail` is the message without the position part.
 */
export function jsonErrorLocation(
  text: string,
  message: string,
): { line: number; column: number; detail: string } | null {
  const lc = /\s*\(line (\d+) column (\d+)\)/.exec(message);
  const pos = /\s+at position (\d+)/.exec(message);
  const detail = message
    .replace(lc?.[0] ?? '', '')
    .replace(pos?.[0] ?? '', '')
    .trim();
  if (lc) return { line: Number(lc[1]), column: Number(lc[2]), detail };
  if (pos) return { ...lineColumnAt(text, Number(pos[1])), detail };
  if (/unexpected end of json input/i.test(message))
    return { ...lineColumnAt(text, text.trimEnd().length), detail };
  return null;
}

/**
 * Parse a humanoid override JSON object `{ "<HumanBodyBones name>": "<bone name>" | null, ... }`.
 * A leading byte order mark is skipped.
 * @throws HumanoidMapError naming the file: invalid JSON (`file:line:column: humanoid override is not
 * valid JSON: <JSON.parse message>` when the position is known, see {@link jsonErrorLocation}); not
 * an object; a key that is not a HumanBodyBones name (naming the key and suggesting similar names,
 * {@link similarNames}); a value that is neither a non-empty string nor null.
 */
export function parseHumanoidOverride(json: string, fileName: string): HumanoidOverride {
  const file = fileLabel(fileName);
  const text = json.charCodeAt(0) === 0xfeff ? json.slice(1) : json; // a byte order mark is not an error
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const at = jsonErrorLocation(text, message) ?? locateJsonError(text);
    const where = at ? `${file}:${at.line}:${at.column}` : file;
    throw new HumanoidMapError(`${where}: humanoid override is not valid JSON: ${at ? at.detail : message}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new HumanoidMapError(
      `${file}: humanoid override must be a JSON object {"LeftUpperArm": "boneName", ...}, got ${Array.isArray(data) ? 'an array' : data === null ? 'null' : typeof data}`,
    );
  }
  const out: HumanoidOverride = {};
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    if (humanBoneIndex(key) < 0) {
      throw new HumanoidMapError(
        `${file}: humanoid override key '${key}' is not a HumanBodyBones name${keySuggestion(key)}`,
      );
    }
    if (value !== null && (typeof value !== 'string' || value.length === 0)) {
      throw new HumanoidMapError(
        `${file}: humanoid override '${key}': value must be a bone name (non-empty string) or null, got ${JSON.stringify(value)}`,
      );
    }
    out[key as HumanBoneName] = value as string | null;
  }
  return out;
}
