/**
 * Options that take JSON (`--map`, `--source-map`, `kind qa --profile`): the argument is the JSON
 * itself when it starts with `{` (after leading white space), else the path of a file holding it.
 */
import * as fs from 'node:fs';
import type { HumanoidOverride } from '../io/humanoidMap';
import { parseHumanoidOverride } from '../io/humanoidMap';
import { describeFsError } from '../io/node';

export interface JsonArgument {
  /** The JSON text (a file's byte order mark is kept: the parsers skip it). */
  text: string;
  /**
   * The name errors use for it: `--map (inline)` for inline JSON, else the file path; the parsers add
   * `:line:column`.
   */
  where: string;
}

/**
 * Read a JSON option's argument: inline JSON when it starts with `{` after trimming, else a file.
 * @param option the option's name as typed, for the inline case (`--map`).
 * @throws Error naming the option and the file when it cannot be read (`--map: map.json: no such file or
 * folder (--map takes a JSON file, or inline JSON starting with {)`), or the
 * option when the argument is empty.
 */
export function readJsonArgument(option: string, value: string): JsonArgument {
  if (value.trim() === '') throw new Error(`${option}: empty; give inline JSON {...} or a JSON file`);
  if (value.trimStart().startsWith('{')) return { text: value, where: `${option} (inline)` };
  try {
    return { text: new TextDecoder().decode(fs.readFileSync(value)), where: value };
  } catch (e) {
    // `--map '[]'` or `--map 'Jaw: null'` is read as a path: say what the option takes
    const hint =
      (e as NodeJS.ErrnoException).code === 'ENOENT'
        ? ` (${option} takes a JSON file, or inline JSON starting with {)`
        : '';
    throw new Error(`${option}: ${describeFsError(value, e)}${hint}`);
  }
}

/**
 * A humanoid map override from `--map` / `--source-map` (inline JSON or a file; src/io/humanoidMap
 * `parseHumanoidOverride`); undefined when the option is not given.
 * @throws HumanoidMapError naming `--map (inline)` or the file, with line:column for bad JSON.
 */
export function overrideArgument(option: string, value: string | undefined): HumanoidOverride | undefined {
  if (value === undefined) return undefined;
  const { text, where } = readJsonArgument(option, value);
  return parseHumanoidOverride(text, where);
}
