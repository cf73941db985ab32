#!/usr/bin/env node
// Issue 27 items 1-2 (the bundle run by the real PuerTS runtime from a .NET host, tools/puerts-host, and
// its per-avatar-frame time/allocation per backend) need PuerTS's runtime for plain .NET, which PuerTS
// ships as NuGet packages (PACKAGES below). The NuGet source this project's machines and CI reach does
// not have them, so the host is not built. This script is the honest skip:
//
//   it asks NuGet for each package the ordinary way (`dotnet add package <name>` in a temporary project)
//   and, when every answer is "not there" (NU1101 / "There are no versions available"), prints one line
//   `check-puerts: skipped: ...` naming each package with NuGet's answer and exits 0;
//   when any package DOES restore, it fails (exit 1) saying the host is not built yet, so the skip can
//   never be mistaken for a pass once the packages are reachable;
//   when `dotnet` is missing it prints `check-puerts: skipped: ...` with that reason and exits 0;
//   any other answer (network, SDK error) is exit 2 with the answer.
//
// Usage: node tools/check-puerts.mjs [--dotnet <path>]   (npm run check:puerts in TsProject)
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** PuerTS's .NET runtime packages (V8, QuickJS, Node.js backends), as PuerTS's README names them. */
export const PACKAGES = ['Puerts.V8.Complete', 'Puerts.QuickJS.Complete', 'Puerts.NodeJS.Complete'];
const ABSENT = /NU1101|There are no versions available for the package/;

function addPackage(dotnet, project, name) {
  return new Promise((resolve) => {
    execFile(dotnet, ['add', project, 'package', name], { encoding: 'utf8', maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      const lines = `${stdout || ''}\n${stderr || ''}`.split('\n').map((l) => l.trim());
      // NuGet's answer: its error lines (the info lines name the source's addresses: not repeated here).
      const answer = lines.filter((l) => /^error\b/i.test(l)).join(' ') || lines.filter(Boolean).slice(-1)[0] || '';
      resolve({ name, ok: !err && !/^error\b/im.test(`${stdout}${stderr}`), answer });
    });
  });
}

async function main() {
  const argv = process.argv.slice(2);
  let dotnet = 'dotnet';
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--dotnet' && argv[i + 1]) dotnet = argv[++i];
    else {
      console.error(`check-puerts: unknown argument '${argv[i]}' (use --dotnet <path>)`);
      process.exit(2);
    }
  }
  if (spawnSync(dotnet, ['--version'], { encoding: 'utf8' }).status !== 0) {
    console.log(`check-puerts: skipped: \`${dotnet}\` (the .NET SDK) not found; the PuerTS .NET host (issue 27 items 1-2) needs it and the packages ${PACKAGES.join(', ')}`);
    return;
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'kind-puerts-host-'));
  try {
    const project = path.join(dir, 'probe.csproj');
    writeFileSync(project, '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>net8.0</TargetFramework></PropertyGroup></Project>\n');
    const answers = await Promise.all(PACKAGES.map((p) => addPackage(dotnet, project, p)));
    const restored = answers.filter((a) => a.ok);
    if (restored.length > 0) {
      console.error(
        `check-puerts: FAIL: ${restored.map((a) => a.name).join(', ')} now restore from NuGet, but the PuerTS .NET host (tools/puerts-host, issue 27 items 1-2) is not built yet: build it instead of this skip`,
      );
      process.exit(1);
    }
    const unknown = answers.filter((a) => !ABSENT.test(a.answer));
    if (unknown.length > 0) {
      console.error(`check-puerts: could not ask NuGet: ${unknown.map((a) => `${a.name}: ${a.answer}`).join('; ')}`);
      process.exit(2);
    }
    console.log(
      `check-puerts: skipped: the PuerTS .NET runtime packages are not in the NuGet source this machine reaches, so the PuerTS host (issue 27 items 1-2) is not built; \`dotnet add package\` answered: ${answers
        .map((a) => `${a.name}: "${a.answer}"`)
        .join('; ')}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
