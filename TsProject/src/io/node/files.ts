/**
 * Node file helpers shared by the hosts (the `kind` command line, `kind live`, benchmarks and tests):
 * reading an input file with an error naming it, file-system errors in words, and locating the embedded
 * default sample. Node only (`fs`); the readers in src/io take the bytes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** A file-system error in words, naming the path: `out/x.glb: permission denied`. */
export function describeFsError(file: string, e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  const why: Record<string, string> = {
    ENOENT: 'no such file or folder',
    EISDIR: 'is a folder, expected a file',
    ENOTDIR: 'a file is in the way where a folder is needed',
    EEXIST: 'a file is in the way where a folder is needed',
    EACCES: 'permission denied',
    EPERM: 'not permitted',
    EROFS: 'read-only file system',
    ENOSPC: 'no space left on the device',
    EMFILE: 'too many open files',
    ENAMETOOLONG: 'name too long',
  };
  const name = file === '' ? "'' (an empty path)" : file;
  return `${name}: ${code && why[code] ? why[code] : `cannot access (${code ?? (e as Error).message})`}`;
}

/**
 * Throw the error {@link readInput} would give for a folder or an empty path, before a check of the
 * file's extension can blame the extension (`out: is a folder, expected a file`, not `got 'no extension'`).
 * A path that does not exist passes (the read names it).
 */
export function requireNotFolder(file: string): void {
  if (file === '') throw new Error(describeFsError(file, Object.assign(new Error(), { code: 'ENOENT' })));
  let dir = false;
  try {
    dir = fs.statSync(file).isDirectory();
  } catch {
    return;
  }
  if (dir) throw new Error(describeFsError(file, Object.assign(new Error(), { code: 'EISDIR' })));
}

/** Read a file, with an error that names it. */
export function readInput(file: string): Uint8Array {
  try {
    return new Uint8Array(fs.readFileSync(file));
  } catch (e) {
    throw new Error(describeFsError(file, e));
  }
}

/** The folder holding the embedded default sample (`TsProject/assets/default`), searched upwards from this module. */
export function defaultAssetsDir(): string {
  let dir = __dirname;
  for (let i = 0; i < 6; i++) {
    const c = path.join(dir, 'assets', 'default');
    if (fs.existsSync(path.join(c, 'default-walk.bvh'))) return c;
    dir = path.dirname(dir);
  }
  throw new Error('the embedded default sample (assets/default) was not found next to the kind command');
}
