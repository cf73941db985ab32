/**
 * File helpers for the command line: atomic writes (temp file + rename, so an error never leaves a
 * half-written output) and locating the embedded default sample.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface OutputFile {
  path: string;
  data: string | Uint8Array;
}

/**
 * Write every file to `<path>.<pid>.tmp` first, then rename them all into place. If any write fails,
 * the temporary files are removed and no output file is touched.
 */
export function writeFilesAtomically(files: OutputFile[]): void {
  const temps: string[] = [];
  try {
    for (const f of files) {
      fs.mkdirSync(path.dirname(f.path), { recursive: true });
      const tmp = `${f.path}.${process.pid}.tmp`;
      temps.push(tmp);
      fs.writeFileSync(tmp, f.data);
    }
  } catch (e) {
    for (const t of temps) fs.rmSync(t, { force: true });
    throw e;
  }
  files.forEach((f, i) => {
    fs.renameSync(temps[i], f.path);
  });
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

/** Read a file, with an error that names it. */
export function readInput(file: string): Uint8Array {
  try {
    return new Uint8Array(fs.readFileSync(file));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new Error(`${file}: no such file`);
    if (code === 'EISDIR') throw new Error(`${file}: is a directory, expected a file`);
    throw new Error(`${file}: cannot read (${code ?? (e as Error).message})`);
  }
}
