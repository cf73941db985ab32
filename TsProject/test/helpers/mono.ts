/**
 * Whether Mono's C# compiler and runtime are here (`mcs` and `mono` answer `--version`), for the tests
 * that compile the Unity package's Unity-free C# and run it under Mono. Without them a test file skips
 * and says why once (CI installs them: .ci/run).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

function has(cmd: string): boolean {
  try {
    execFileSync(cmd, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** True when mcs and mono run; else prints `[skip] <what> under Mono: ...` and returns false. */
export function monoAvailable(what: string): boolean {
  const ok = has('mcs') && has('mono');
  if (!ok) console.warn(`[skip] ${what} under Mono: mcs or mono not found (apt-get install mono-devel)`);
  return ok;
}

/**
 * Compiles `sources` (C# files) with mcs (-warnaserror+) into a temporary program, runs it under mono with
 * `args` and returns its stdout lines (trailing newline dropped). The temporary folder is removed.
 * @throws the compiler's or the program's error (execFileSync's, with its stdout/stderr).
 */
export function runMonoProgram(sources: string[], args: string[] = []): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-mono-'));
  try {
    const exe = path.join(dir, 'host.exe');
    execFileSync('mcs', ['-nologo', '-warnaserror+', `-out:${exe}`, ...sources]);
    return execFileSync('mono', [exe, ...args], { encoding: 'utf8' })
      .trimEnd()
      .split('\n');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
