#!/usr/bin/env node
// Compile check of the Unity package's C# without Unity: builds the hand-declared compile-check surface
// (tools/csharp-check/*.Surface.cs: the UnityEngine, UnityEditor and PuerTS members the package uses;
// NOT a runtime) into libraries with Mono's `mcs`, then compiles every .cs of
// Packages/com.kind.retargeting against them, the way Unity's asmdefs split it:
//   1. Runtime as a player build (no UNITY_EDITOR),
//   2. Runtime as the Editor compiles it (UNITY_EDITOR),
//   3. Editor assembly against 2 (UNITY_EDITOR),
//   4. Runtime + Editor again with -define:KIND_OPTITRACK against the OptiTrack plugin stub.
// Exits 1 with the compiler's messages on the first failure; warnings are errors (-warnaserror) except
// the ones listed in NOWARN. Usage: node tools/check-csharp.mjs  (needs `mcs`: Debian package mono-mcs).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = path.join(root, 'Packages/com.kind.retargeting');
const surface = path.join(root, 'tools/csharp-check');
const out = mkdtempSync(path.join(tmpdir(), 'kind-csharp-'));
// CS1591: missing XML doc (not asked); CS0618: obsolete (none expected, kept visible as warning off)
const NOWARN = ['1591'];

function csFiles(dir) {
  const found = [];
  for (const name of readdirSync(dir).sort()) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) found.push(...csFiles(p));
    else if (name.endsWith('.cs')) found.push(p);
  }
  return found;
}

function mcs(label, args) {
  const full = ['-nologo', '-langversion:7', '-warnaserror+', `-nowarn:${NOWARN.join(',')}`, ...args];
  try {
    execFileSync('mcs', full, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
    console.log(`ok   ${label}`);
  } catch (e) {
    if (e.code === 'ENOENT') {
      console.error('check-csharp: `mcs` not found (install the Debian package mono-mcs)');
      process.exit(2);
    }
    console.error(`FAIL ${label}\n${(e.stdout || '') + (e.stderr || '')}`);
    rmSync(out, { recursive: true, force: true });
    process.exit(1);
  }
}

const lib = (name) => path.join(out, name);
for (const d of ['player', 'opti/player']) mkdirSync(lib(d), { recursive: true });
const runtimeCs = csFiles(path.join(pkg, 'Runtime'));
const editorCs = csFiles(path.join(pkg, 'Editor'));
const sys = ['-r:System.dll', '-r:System.Core.dll'];

mcs('surface UnityEngine', ['-target:library', `-out:${lib('UnityEngine.dll')}`, path.join(surface, 'UnityEngine.Surface.cs')]);
mcs('surface UnityEditor', ['-target:library', `-out:${lib('UnityEditor.dll')}`, `-r:${lib('UnityEngine.dll')}`, path.join(surface, 'UnityEditor.Surface.cs')]);
mcs('surface Puerts', ['-target:library', `-out:${lib('com.tencent.puerts.core.dll')}`, path.join(surface, 'Puerts.Surface.cs')]);
mcs('stub OptiTrack plugin', ['-target:library', `-out:${lib('OptiTrack.dll')}`, `-r:${lib('UnityEngine.dll')}`, ...sys, path.join(surface, 'OptiTrack.Stub.cs')]);

const engineRefs = [`-r:${lib('UnityEngine.dll')}`, `-r:${lib('com.tencent.puerts.core.dll')}`, ...sys];
const editorRefs = [...engineRefs, `-r:${lib('UnityEditor.dll')}`];

mcs(`Runtime, player (${runtimeCs.length} files)`, ['-target:library', `-out:${lib('player/Kind.Retargeting.Runtime.dll')}`, ...engineRefs, ...runtimeCs]);
mcs('Runtime, Editor (UNITY_EDITOR)', ['-target:library', '-define:UNITY_EDITOR', `-out:${lib('Kind.Retargeting.Runtime.dll')}`, ...editorRefs, ...runtimeCs]);
mcs(`Editor (${editorCs.length} files)`, ['-target:library', '-define:UNITY_EDITOR', `-out:${lib('Kind.Retargeting.Editor.dll')}`, ...editorRefs, `-r:${lib('Kind.Retargeting.Runtime.dll')}`, ...editorCs]);
const opti = [`-r:${lib('OptiTrack.dll')}`];
mcs('Runtime, player, KIND_OPTITRACK', ['-target:library', '-define:KIND_OPTITRACK', `-out:${lib('opti/player/Kind.Retargeting.Runtime.dll')}`, ...engineRefs, ...opti, ...runtimeCs]);
mcs('Runtime + Editor, UNITY_EDITOR;KIND_OPTITRACK', ['-target:library', '-define:UNITY_EDITOR;KIND_OPTITRACK', `-out:${lib('opti/Kind.Retargeting.Runtime.dll')}`, ...editorRefs, ...opti, ...runtimeCs]);
mcs('Editor, KIND_OPTITRACK', ['-target:library', '-define:UNITY_EDITOR;KIND_OPTITRACK', `-out:${lib('opti/Kind.Retargeting.Editor.dll')}`, ...editorRefs, ...opti, `-r:${lib('opti/Kind.Retargeting.Runtime.dll')}`, ...editorCs]);

rmSync(out, { recursive: true, force: true });
console.log(`check-csharp: ${runtimeCs.length + editorCs.length} C# files compile against the surface (player, Editor, KIND_OPTITRACK)`);
