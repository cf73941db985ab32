/**
 * The Unity package's C# compiles (tools/check-csharp.mjs: Mono's mcs against the hand-declared
 * compile-check surface in tools/csharp-check, for the player, the Editor and the OptiTrack define).
 * Unity itself does not run here; this checks that every shell uses only the declared API surface.
 * Skipped with a printed reason when mcs is absent (CI installs Debian's mono-mcs).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as path from 'node:path';

function hasMcs(): boolean {
  try {
    execFileSync('mcs', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const HAS = hasMcs();
if (!HAS) console.warn('[skip] C# compile check: mcs not found (apt-get install mono-mcs)');
(HAS ? describe : describe.skip)('the Unity package C# compile check', () => {
  it('every C# file of the package compiles against the declared UnityEngine/UnityEditor/Puerts surface', () => {
    const r = spawnSync(process.execPath, [path.resolve(__dirname, '../../tools/check-csharp.mjs')], {
      encoding: 'utf8',
    });
    if (r.status !== 0) console.log(r.stdout, r.stderr);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/check-csharp: \d+ C# files compile against the surface/);
  });
});
