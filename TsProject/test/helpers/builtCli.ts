/**
 * A private build of the `kind` command for tests that run it in a child process (worker threads,
 * onnxruntime-web, signals): `tools/build.mjs cli <dir>/dist` plus a copy of `bin/kind.cjs`, under
 * `TsProject/dist/<tag>-<pid>`, so parallel jest workers never share or overwrite a build.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

export interface BuiltCli {
  /** The build folder (remove it with {@link removeBuiltCli}). */
  dir: string;
  /** Its `bin/kind.cjs`: run as `node <bin> ...`. */
  bin: string;
}

/** Where the build of `tag` goes (nothing is built yet): for paths needed before `beforeAll`. */
export function builtCliPaths(tag: string): BuiltCli {
  const dir = path.join(ROOT, 'dist', `${tag}-${process.pid}`);
  return { dir, bin: path.join(dir, 'bin', 'kind.cjs') };
}

/** Build the command into {@link builtCliPaths}`(tag)`; `stdio` of the build (default 'ignore'). */
export function buildCli(tag: string, stdio: 'ignore' | 'inherit' = 'ignore'): BuiltCli {
  const b = builtCliPaths(tag);
  execFileSync(process.execPath, [path.join(ROOT, '../tools/build.mjs'), 'cli', path.join(b.dir, 'dist')], {
    stdio,
  });
  fs.mkdirSync(path.dirname(b.bin), { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'bin', 'kind.cjs'), b.bin);
  return b;
}

/** Remove a build made by {@link buildCli}. */
export function removeBuiltCli(b: BuiltCli): void {
  fs.rmSync(b.dir, { recursive: true, force: true });
}
