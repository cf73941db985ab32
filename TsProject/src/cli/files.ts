/**
 * File helpers for the command line: output folders and all-or-nothing writes of several files. Reading
 * inputs, readable file-system errors and the embedded default sample are in src/io/node.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeFsError } from '../io/node';
import { noteCommitted, onInterrupt } from '../io/node/interrupt';

/**
 * One output of {@link writeFilesAtomically}: a file with its bytes, a folder already written in full
 * under a temporary name by {@link stageFolder} (`stagedDir`), or an earlier output that the new set no
 * longer has (`remove`: moved aside with the others and deleted once the new set is in place, so a
 * folder never holds a mix of two runs' outputs).
 */
export type OutputFile =
  | { path: string; data: string | Uint8Array }
  | { path: string; stagedDir: string }
  | { path: string; remove: true };

/** A folder being filled under a temporary name before {@link writeFilesAtomically} moves it into place. */
export interface StagedFolder {
  /** The temporary folder to write into (`<path>.<pid>.tmp`, next to the final one). */
  dir: string;
  /** Remove the temporary folder and forget it (on an error before the commit). */
  discard(): void;
}

/**
 * Start a folder output: makes `<finalPath>.<pid>.tmp` (empty; one left by an earlier run of this pid is
 * removed first) and registers its removal with the interrupt handler until it is committed
 * ({@link writeFilesAtomically} with `{ path: finalPath, stagedDir: dir }`) or discarded. The parent
 * folder must exist ({@link ensureOutputDir}). For outputs too many or too large to hold in memory, such as
 * a render's frames.
 */
export function stageFolder(finalPath: string): StagedFolder {
  const dir = `${finalPath}.${process.pid}.tmp`;
  fs.rmSync(dir, { recursive: true, force: true });
  try {
    fs.mkdirSync(dir);
  } catch (e) {
    throw new Error(describeFsError(dir, e));
  }
  const forget = onInterrupt(() => fs.rmSync(dir, { recursive: true, force: true }));
  stagedForget.set(dir, forget);
  return {
    dir,
    discard: () => {
      fs.rmSync(dir, { recursive: true, force: true });
      forget();
      stagedForget.delete(dir);
    },
  };
}

/** The interrupt registrations of staged folders not yet committed, by temporary folder. */
const stagedForget = new Map<string, () => void>();

function forgetStaged(dirs: readonly string[]): void {
  for (const d of dirs) {
    stagedForget.get(d)?.();
    stagedForget.delete(d);
  }
}

/**
 * Walk up from `dir` to the nearest folder that exists. Returns that folder and the missing ones below
 * it (outermost first). Throws a readable error for an empty path, a file in the way, or a path that
 * cannot be examined.
 */
function walkToExisting(dir: string): { existing: string; missing: string[] } {
  if (dir.trim() === '') throw new Error('--out: empty path; name an output folder');
  const missing: string[] = [];
  let cur = path.resolve(dir);
  for (;;) {
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(cur);
    } catch (e) {
      // ENOTDIR: a file further up is in the way; keep walking up to name it
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw new Error(describeFsError(cur, e));
    }
    if (st) {
      if (!st.isDirectory()) throw new Error(`${cur}: is a file, not a folder (the output folder is ${dir})`);
      return { existing: cur, missing: missing.reverse() };
    }
    missing.push(cur);
    const up = path.dirname(cur);
    if (up === cur) return { existing: cur, missing: missing.reverse() };
    cur = up;
  }
}

/**
 * Check, without creating anything, that `dir` can become the output folder: not empty, nothing but
 * folders on its path, and the nearest existing one writable. Used before the work starts, so a bad
 * `-o` fails fast and an error later leaves no empty folder behind.
 */
export function checkOutputDir(dir: string): void {
  const { existing } = walkToExisting(dir);
  try {
    fs.accessSync(existing, fs.constants.W_OK);
  } catch (e) {
    throw new Error(describeFsError(existing, e));
  }
}

/**
 * Make `dir` and its missing parents, one level at a time (Node's recursive mkdir can spin on
 * special file systems such as /proc). Throws a readable error when something in the way is a file,
 * or the path is empty.
 */
export function ensureOutputDir(dir: string): void {
  for (const d of walkToExisting(dir).missing) {
    try {
      fs.mkdirSync(d);
    } catch (e) {
      throw new Error(`cannot create the output folder ${describeFsError(d, e)}`);
    }
  }
}

/** A file the command reads, for {@link refuseOverwritingInputs}: its role in words and its path. */
export interface InputFile {
  role: string;
  path: string;
}

/**
 * Refuse to write an output over one of the command's inputs (`-o` the source's own folder with a
 * clip named like the file, `--map summary.json -o .`): the all-or-nothing write would replace the
 * input without a word. Files are compared by device and inode, so symbolic links, hard links, `..`
 * and letter case on a case-insensitive file system are all seen. Inputs that cannot be examined (inline
 * JSON, a missing file) and outputs that do not exist yet are not in the way.
 * @throws Error `<output>: would overwrite the <role> <path>; choose another -o folder`.
 */
export function refuseOverwritingInputs(
  outputs: string[],
  inputs: InputFile[],
  hint = 'choose another -o folder',
): void {
  const id = (p: string): string | null => {
    try {
      const st = fs.statSync(p);
      return st.isFile() ? `${st.dev}:${st.ino}` : null;
    } catch {
      return null;
    }
  };
  const byId = new Map<string, InputFile>();
  for (const i of inputs) {
    const k = id(i.path);
    if (k !== null && !byId.has(k)) byId.set(k, i);
  }
  for (const o of outputs) {
    const k = id(o);
    const hit = k === null ? undefined : byId.get(k);
    if (hit) throw new Error(`${o}: would overwrite the ${hit.role} ${hit.path}; ${hint}`);
  }
}

/**
 * Write several files all or nothing: each goes to `<path>.<pid>.tmp` first (a staged folder is
 * already there); existing outputs are
 * moved aside to `<path>.<pid>.bak`; the temporary files are renamed into place; the backups are
 * deleted. If anything fails, the temporary files are removed and the backups put back, so every
 * output is either the complete new file (or folder) or the one that was there before, and no stray files stay.
 * A file output whose path is a folder, or a folder output whose path is a file, is refused before
 * anything is moved. A `remove` entry is moved aside with the others and deleted with the backups.
 * Returns the moved-aside previous outputs that could not be deleted afterwards (named, with the reason):
 * the new set is complete then, so that is a note for the user, not a failure.
 * The same rollback is registered with the interrupt handler (src/io/node/interrupt.ts) while the files
 * are being placed, so an interrupted command leaves no temporary file and the previous outputs.
 * Throws a readable error naming the file.
 */
export function writeFilesAtomically(files: OutputFile[]): { leftovers: string[] } {
  for (const f of files) {
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(f.path);
    } catch {
      st = undefined;
    }
    if ('data' in f && st?.isDirectory())
      throw new Error(`${f.path}: is a folder, cannot write the output file there`);
    if ('stagedDir' in f && st && !st.isDirectory())
      throw new Error(`${f.path}: is a file, cannot put the output folder there`);
  }
  const writes = files.filter((f) => !('remove' in f));
  const temps: string[] = [];
  const backups: { from: string; to: string }[] = [];
  const placed: string[] = [];
  const rm = (p: string) => fs.rmSync(p, { recursive: true, force: true });
  const staged = files.flatMap((f) => ('stagedDir' in f ? [f.stagedDir] : []));
  const cleanUp = () => {
    for (const t of temps) rm(t);
    for (const p of placed) rm(p);
    for (const b of backups) {
      try {
        fs.renameSync(b.to, b.from);
      } catch {
        // leave the backup in place rather than lose it
      }
    }
  };
  let current = '';
  const forget = onInterrupt(cleanUp);
  try {
    for (const f of writes) {
      current = f.path;
      if ('stagedDir' in f) {
        temps.push(f.stagedDir);
        continue;
      }
      if (!('data' in f)) continue;
      const tmp = `${f.path}.${process.pid}.tmp`;
      temps.push(tmp);
      fs.writeFileSync(tmp, f.data);
    }
    for (const f of files) {
      current = f.path;
      if (fs.existsSync(f.path)) {
        const bak = `${f.path}.${process.pid}.bak`;
        fs.renameSync(f.path, bak);
        backups.push({ from: f.path, to: bak });
      }
    }
    writes.forEach((f, i) => {
      current = f.path;
      fs.renameSync(temps[i], f.path);
      placed.push(f.path);
    });
  } catch (e) {
    cleanUp();
    forget();
    forgetStaged(staged);
    throw new Error(describeFsError(current, e));
  }
  forget();
  forgetStaged(staged);
  // files written into a folder still staged are not in place yet: the interrupt message does not name them
  const inStaged = (p: string) => [...stagedForget.keys()].some((d) => p.startsWith(d + path.sep));
  noteCommitted(writes.map((f) => f.path).filter((p) => !inStaged(p)));
  // the new set is in place: the moved-aside previous outputs go; one that cannot be deleted (a folder
  // without write permission) is left and named, not an error: nothing of the new set is undone
  const leftovers: string[] = [];
  for (const b of backups) {
    try {
      rm(b.to);
    } catch (e) {
      leftovers.push(describeFsError(b.to, e));
    }
  }
  return { leftovers };
}

/**
 * Make the output folder (ensureOutputDir) and, for the folders this made, register their removal (when
 * still empty) with the interrupt handler. Call the returned `done(wrote)` when the run ends: with true once
 * the outputs are in place (the folders stay), with false on an error (they go, when empty).
 */
export function createOutputDirUndoable(outDir: string): (wrote: boolean) => void {
  const made: string[] = [];
  for (let d = path.resolve(outDir); !fs.existsSync(d); d = path.dirname(d)) {
    made.push(d);
    if (path.dirname(d) === d) break;
  }
  ensureOutputDir(outDir);
  // a note for the interrupt message when the new folders are all gone again
  const undo = (): string | undefined => {
    // deepest first; rmdir refuses a folder that is not empty, which then stays
    for (const d of made) {
      try {
        fs.rmdirSync(d);
      } catch {
        return undefined;
      }
    }
    return made.length > 0 ? `the new folder ${made[made.length - 1]} was removed` : undefined;
  };
  const forget = onInterrupt(undo);
  return (wrote) => {
    forget();
    if (!wrote) undo();
  };
}
