/**
 * Whether Mono's C# compiler and runtime are here (`mcs` and `mono` answer `--version`), for the tests
 * that compile the Unity package's Unity-free C# and run it under Mono. Without them a test file skips
 * and says why once (CI installs them: .ci/run).
 */
import { execFileSync } from 'node:child_process';

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
