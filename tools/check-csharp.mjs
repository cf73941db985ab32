#!/usr/bin/env node
// Compile check of the Unity package's C# without Unity, against the REAL PuerTS runtime sources.
//
// What it builds, with Mono's `mcs`, in each of the four flavours Unity compiles for (FLAVOURS below:
// the Editor; a Mono player; an IL2CPP player, where PuerTS >= 2.2.2 switches to its IL2CPP-optimised
// JsEnv (Runtime/Src/IL2Cpp/JsEnv.cs); an IL2CPP player with PUERTS_DISABLE_IL2CPP_OPTIMIZATION, the
// reflection JsEnv (Runtime/Src/Default/JsEnv.cs)):
//   1. UnityEngine / UnityEditor from the hand-declared surface in tools/csharp-check (NOT a runtime:
//      only the members the package and the PuerTS runtime use);
//   2. com.tencent.puerts.core from the PuerTS Unity_v2.2.3 runtime sources, read at run time from
//      ../shared/reference/puerts-unity-2.2.3 (test input; never copied into this repository), with the
//      options of its own asmdef (allowUnsafeCode -> -unsafe);
//   3. every asmdef of the package, following the asmdef exactly: `-r:` only for the assemblies its
//      "references" name (package asmdefs, or asmdefs of packages the package.json declares), skipped
//      in a flavour its includePlatforms/excludePlatforms leave out or whose defineConstraints are unmet,
//      with the symbols of its versionDefines. A reference no asmdef defines is an error;
//   4. the probes tools/csharp-check/ApiProbe.cs and SeedProbe.cs as user scripts (Assembly-CSharp), each
//      on its own: ApiProbe uses every public member of the drop-in API (issue 14) with its exact
//      signature; SeedProbe every public name the original's design document gives, with its type
//      (issue 21 part 2); a missing or retyped member fails the check;
//   5. each sample (Samples~/<name>) the way Unity compiles it once imported into Assets: loose scripts
//      land in Assembly-CSharp (Editor folders in Assembly-CSharp-Editor), which sees every
//      autoReferenced asmdef assembly; third-party loose scripts the sample needs (the OptiTrack plugin)
//      are compiled into the same Assembly-CSharp from the stubs in SAMPLE_STUBS.
// Package code is compiled with -warnaserror (except NOWARN); the PuerTS sources with warnings off.
// Every flavour is tried; exits 1 listing each failure with the compiler's messages, 2 when `mcs` or the
// PuerTS reference is missing (with the reason), 0 when all compile.
//
// Usage: node tools/check-csharp.mjs [--package <dir>] [--puerts <dir>] [--only editor,mono,il2cpp,il2cpp-reflect] [--probe <file.cs> ...]
//   (defaults: Packages/com.kind.retargeting, ../shared/reference/puerts-unity-2.2.3 next to the repo, all flavours)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const surface = path.join(root, 'tools/csharp-check');
export const NOWARN = ['1591']; // CS1591: missing XML doc comment
// Unity references the whole .NET profile; mcs needs the BCL assemblies named (System.Data: PuerTS's
// Default/Utils.cs). These are framework assemblies, not asmdef references.
export const BCL = ['-r:System.dll', '-r:System.Core.dll', '-r:System.Data.dll'];

/** Unity 2021.3's version and language symbols (every UNITY_X_Y_OR_NEWER up to 2021.3). */
export const UNITY_2021_3 = (() => {
  const d = ['UNITY_2021_3', 'UNITY_2021', 'CSHARP_7_3_OR_NEWER', 'UNITY_ASSERTIONS'];
  for (const m of [3, 4, 5, 6]) d.push(`UNITY_5_${m}_OR_NEWER`);
  for (const [y, last] of [[2017, 4], [2018, 4], [2019, 4], [2020, 3], [2021, 3]]) {
    for (let m = 1; m <= last; m++) d.push(`UNITY_${y}_${m}_OR_NEWER`);
  }
  return d;
})();
const PLAYER_NET = ['NET_STANDARD_2_0', 'NET_STANDARD_2_1', 'NET_STANDARD']; // API level .NET Standard 2.1 (2021.3 default)

/**
 * The four flavours. `platform` is the asmdef platform name (includePlatforms/excludePlatforms).
 * The IL2CPP flavours target Android: PuerTS's IL2CPP optimisation is on by default there (and on every
 * platform but iOS) since 2.2.2: `(!PUERTS_DISABLE_IL2CPP_OPTIMIZATION && !UNITY_IPHONE ||
 * PUERTS_IL2CPP_OPTIMIZATION) && ENABLE_IL2CPP` in Runtime/Src/IL2Cpp/JsEnv.cs.
 */
export const FLAVOURS = [
  {
    id: 'editor',
    label: 'Editor',
    editor: true,
    platform: 'Editor',
    defines: ['UNITY_EDITOR', 'UNITY_EDITOR_WIN', 'UNITY_STANDALONE_WIN', 'UNITY_STANDALONE', 'ENABLE_MONO', 'NET_4_6'],
  },
  {
    id: 'mono',
    label: 'Mono player',
    platform: 'WindowsStandalone64',
    defines: ['UNITY_STANDALONE_WIN', 'UNITY_STANDALONE', 'ENABLE_MONO', ...PLAYER_NET],
  },
  {
    id: 'il2cpp',
    label: 'IL2CPP player (PuerTS IL2CPP optimisation, the default)',
    platform: 'Android',
    defines: ['UNITY_ANDROID', 'ENABLE_IL2CPP', ...PLAYER_NET],
  },
  {
    id: 'il2cpp-reflect',
    label: 'IL2CPP player with PUERTS_DISABLE_IL2CPP_OPTIMIZATION',
    platform: 'Android',
    defines: ['UNITY_ANDROID', 'ENABLE_IL2CPP', 'PUERTS_DISABLE_IL2CPP_OPTIMIZATION', ...PLAYER_NET],
  },
];

/**
 * The probes: user scripts compiled as Assembly-CSharp in every flavour, each on its own. ApiProbe.cs uses
 * every public member of the drop-in API with its signature (issue 14); SeedProbe.cs every public name the
 * original's design document (the seed) gives, with its type (issue 21 part 2). `--probe <file>` (may be
 * repeated) names the probes instead (tests).
 */
export const DEFAULT_PROBES = [path.join(surface, 'ApiProbe.cs'), path.join(surface, 'SeedProbe.cs')];
let API_PROBES = [...DEFAULT_PROBES];
let probesGiven = false;

/** Loose third-party scripts a sample needs in Assembly-CSharp (compile-check stubs of their API). */
export const SAMPLE_STUBS = { OptiTrack: ['OptiTrack.Stub.cs'] };

function parseArgs(argv) {
  const o = {
    pkg: path.join(root, 'Packages/com.kind.retargeting'),
    puerts: path.resolve(root, '../shared/reference/puerts-unity-2.2.3'),
  };
  // Missing inputs are exit 2 with the reason (the header's contract), never a stack trace or a silent skip.
  const need = (what, v) => {
    if (v === undefined || v === '' || v.startsWith('--')) {
      console.error(`check-csharp: ${what} needs a value`);
      process.exit(2);
    }
  };
  for (let i = 0; i < argv.length; i++) if (['--package', '--puerts', '--only', '--probe'].includes(argv[i])) need(argv[i], argv[i + 1]);
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--package') o.pkg = path.resolve(argv[++i]);
    else if (argv[i] === '--puerts') o.puerts = path.resolve(argv[++i]);
    else if (argv[i] === '--only') o.only = argv[++i].split(',');
    else if (argv[i] === '--probe') {
      if (!probesGiven) API_PROBES = [];
      probesGiven = true;
      API_PROBES.push(path.resolve(argv[++i]));
    }
    else {
      console.error(`check-csharp: unknown argument '${argv[i]}' (use --package <dir> / --puerts <dir> / --only <flavour ids>)`);
      process.exit(2);
    }
  }
  if (!existsSync(path.join(o.pkg, 'package.json'))) {
    console.error(`check-csharp: ${o.pkg}: not a Unity package (no package.json)`);
    process.exit(2);
  }
  if (probesGiven) {
    for (const p of API_PROBES) {
      if (!existsSync(p)) {
        console.error(`check-csharp: --probe ${p}: no such file`);
        process.exit(2);
      }
    }
  }
  return o;
}

/** Unity skips these names in the asset database: hidden, trailing '~', 'cvs', '.tmp'. */
export function unityIgnores(name) {
  return name.startsWith('.') || name.endsWith('~') || name.toLowerCase() === 'cvs' || name.endsWith('.tmp');
}

/** Files below `dir` (sorted, depth first) for which keep(path, name) holds; folders skipDir(path, name) names are not entered. */
export function walk(dir, keep, skipDir = () => false) {
  const found = [];
  for (const name of readdirSync(dir).sort()) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) {
      if (!skipDir(p, name)) found.push(...walk(p, keep, skipDir));
    } else if (keep(p, name)) found.push(p);
  }
  return found;
}

export function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`${file}: ${e.message}`);
  }
}

/**
 * The asmdefs under `dir` (Unity's rules: a script belongs to the asmdef of its nearest enclosing folder
 * that has one; folders Unity ignores are skipped). Returns [{ file, dir, def, sources }], plus the
 * scripts under no asmdef (`loose`).
 */
export function collectAssemblies(dir) {
  const asmdefFiles = walk(dir, (_p, n) => n.endsWith('.asmdef'), (_p, n) => unityIgnores(n));
  const assemblies = asmdefFiles.map((file) => ({ file, dir: path.dirname(file), def: readJson(file), sources: [] }));
  const byDirDepth = [...assemblies].sort((a, b) => b.dir.length - a.dir.length);
  const loose = [];
  for (const cs of walk(dir, (_p, n) => n.endsWith('.cs'), (_p, n) => unityIgnores(n))) {
    const owner = byDirDepth.find((a) => cs.startsWith(a.dir + path.sep));
    if (owner) owner.sources.push(cs);
    else loose.push(cs);
  }
  return { assemblies, loose };
}

export function platformIncluded(def, flavour) {
  const inc = def.includePlatforms ?? [];
  const exc = def.excludePlatforms ?? [];
  if (inc.length > 0) return inc.includes(flavour.platform);
  return !exc.includes(flavour.platform);
}

/** Unity's defineConstraints: every entry must hold; "!SYM" holds when SYM is not defined; "A || B" any. */
export function constraintsMet(def, defines) {
  return (def.defineConstraints ?? []).every((c) =>
    c.split('||').some((term) => {
      const t = term.trim();
      return t.startsWith('!') ? !defines.has(t.slice(1)) : defines.has(t);
    }),
  );
}

function cmpVersion(a, b) {
  const pa = a.split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0);
  const pb = b.split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/** Unity's versionDefines expression: "x" means x <= v; "[a,b]", "(a,b)", "[a,b)", "(a,]"... intervals. */
export function versionMatches(expression, version) {
  const e = expression.trim();
  if (e === '') return true;
  const m = /^([[(])\s*([^,\s]*)\s*,\s*([^\])\s]*)\s*([\])])$/.exec(e);
  if (!m) {
    if (/^\[\s*([^,\]]+)\s*\]$/.test(e)) return cmpVersion(version, e.slice(1, -1).trim()) === 0;
    return cmpVersion(version, e) >= 0;
  }
  const [, lo, a, b, hi] = m;
  if (a && (lo === '[' ? cmpVersion(version, a) < 0 : cmpVersion(version, a) <= 0)) return false;
  if (b && (hi === ']' ? cmpVersion(version, b) > 0 : cmpVersion(version, b) >= 0)) return false;
  return true;
}

function main() {
  const opt = parseArgs(process.argv.slice(2));
  try {
    execFileSync('mcs', ['--version'], { stdio: 'ignore' });
  } catch {
    console.error('check-csharp: skipped: `mcs` not found (install the Debian package mono-mcs)');
    process.exit(2);
  }
  const puertsAsmdef = path.join(opt.puerts, 'Runtime/com.tencent.puerts.core.asmdef');
  if (!existsSync(puertsAsmdef)) {
    console.error(`check-csharp: skipped: the PuerTS reference sources are not at ${opt.puerts} (expected Runtime/com.tencent.puerts.core.asmdef)`);
    process.exit(2);
  }
  const pkgJson = readJson(path.join(opt.pkg, 'package.json'));
  const puertsPkg = readJson(path.join(opt.puerts, 'package.json'));
  const out = mkdtempSync(path.join(tmpdir(), 'kind-csharp-'));
  const failures = [];
  let packageFiles = 0;

  function mcs(label, args, { strict = true } = {}) {
    const flags = strict ? ['-langversion:7', '-warnaserror+', `-nowarn:${NOWARN.join(',')}`] : ['-warn:0'];
    try {
      execFileSync('mcs', ['-nologo', ...flags, ...args], { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
      console.log(`ok   ${label}`);
      return true;
    } catch (e) {
      const text = ((e.stdout || '') + (e.stderr || '')).trim();
      console.log(`FAIL ${label}\n${text}`);
      failures.push({ label, text });
      return false;
    }
  }

  // The surface (shared by every flavour; it has no conditional code).
  const engine = path.join(out, 'UnityEngine.dll');
  const editorDll = path.join(out, 'UnityEditor.dll');
  const surfaceOk =
    mcs('surface UnityEngine', ['-target:library', `-out:${engine}`, path.join(surface, 'UnityEngine.Surface.cs')]) &&
    mcs('surface UnityEditor', ['-target:library', `-out:${editorDll}`, `-r:${engine}`, path.join(surface, 'UnityEditor.Surface.cs')]);

  // External asmdefs: the packages package.json declares (PuerTS core is the only one with an asmdef).
  const puertsDef = readJson(puertsAsmdef);
  const external = new Map();
  if (pkgJson.dependencies && 'com.tencent.puerts.core' in pkgJson.dependencies) {
    external.set(puertsDef.name, {
      def: puertsDef,
      sources: walk(path.dirname(puertsAsmdef), (_p, n) => n.endsWith('.cs')),
      version: puertsPkg.version,
      packageName: 'com.tencent.puerts.core',
    });
  }
  const { assemblies, loose } = collectAssemblies(opt.pkg);
  if (loose.length > 0) {
    failures.push({ label: 'package layout', text: `scripts under no asmdef (Unity would put them nowhere in a package): ${loose.map((f) => path.relative(opt.pkg, f)).join(', ')}` });
  }
  const byName = new Map(assemblies.map((a) => [a.def.name, a]));
  const packageVersions = new Map([[pkgJson.name, pkgJson.version]]);
  for (const [name, v] of Object.entries(pkgJson.dependencies ?? {})) packageVersions.set(name, v);
  for (const ext of external.values()) packageVersions.set(ext.packageName, ext.version);

  // Dependency order of the package asmdefs; every reference must name an asmdef that exists.
  const order = [];
  const state = new Map();
  const visit = (a, chain) => {
    if (state.get(a) === 'done') return;
    if (state.get(a) === 'visiting') throw new Error(`asmdef reference cycle: ${[...chain, a.def.name].join(' -> ')}`);
    state.set(a, 'visiting');
    for (const ref of a.def.references ?? []) {
      if (byName.has(ref)) visit(byName.get(ref), [...chain, a.def.name]);
      else if (!external.has(ref)) {
        failures.push({
          label: `asmdef ${path.relative(opt.pkg, a.file)}`,
          text: `references '${ref}', which no asmdef of the package or of the packages its package.json declares defines` +
            (ref.startsWith('GUID:') ? ' (GUID references are not resolved by this check: use the assembly name)' : ''),
        });
      }
    }
    state.set(a, 'done');
    order.push(a);
  };
  try {
    for (const a of assemblies) visit(a, []);
  } catch (e) {
    failures.push({ label: 'asmdef references', text: e.message });
  }

  const samples = existsSync(path.join(opt.pkg, 'Samples~'))
    ? readdirSync(path.join(opt.pkg, 'Samples~')).filter((n) => statSync(path.join(opt.pkg, 'Samples~', n)).isDirectory()).sort()
    : [];

  const flavours = opt.only ? FLAVOURS.filter((f) => opt.only.includes(f.id)) : FLAVOURS;
  if (flavours.length === 0) {
    console.error(`check-csharp: --only names no flavour (ids: ${FLAVOURS.map((f) => f.id).join(', ')})`);
    process.exit(2);
  }
  const puertsLabel = `PuerTS reference sources ${path.basename(opt.puerts)}, package.json ${puertsPkg.version}`;
  if (surfaceOk && failures.length === 0) {
    for (const fl of flavours) {
      const dir = path.join(out, fl.id);
      mkdirSync(dir, { recursive: true });
      const base = new Set([...UNITY_2021_3, ...fl.defines]);
      const engineRefs = [`-r:${engine}`, ...(fl.editor ? [`-r:${editorDll}`] : []), ...BCL];
      const built = new Map(); // assembly name -> { dll, autoReferenced }
      const failed = new Set(); // assemblies that failed to compile in this flavour
      const tag = `[${fl.label}]`;

      const definesFor = (def) => {
        const d = new Set(base);
        for (const vd of def.versionDefines ?? []) {
          const v = packageVersions.get(vd.name);
          if (v && versionMatches(vd.expression ?? '', v)) d.add(vd.define);
        }
        return [...d];
      };

      // PuerTS core, from the reference sources.
      for (const [name, ext] of external) {
        const dll = path.join(dir, `${name}.dll`);
        const ok = mcs(`${tag} ${name} (${puertsLabel}, ${ext.sources.length} files)`, [
          '-target:library',
          ...(ext.def.allowUnsafeCode ? ['-unsafe'] : []),
          `-define:${definesFor(ext.def).join(';')}`,
          `-out:${dll}`,
          ...engineRefs,
          ...ext.sources,
        ], { strict: false });
        if (ok) built.set(name, { dll, autoReferenced: ext.def.autoReferenced !== false });
        else failed.add(name);
      }

      for (const a of order) {
        const def = a.def;
        const defines = definesFor(def);
        if (!platformIncluded(def, fl)) {
          console.log(`skip ${tag} ${def.name} (not built for ${fl.platform}: includePlatforms/excludePlatforms)`);
          continue;
        }
        if (!constraintsMet(def, new Set(defines))) {
          console.log(`skip ${tag} ${def.name} (defineConstraints ${JSON.stringify(def.defineConstraints)} unmet)`);
          continue;
        }
        const refs = [];
        let missing = null;
        for (const ref of def.references ?? []) {
          const b = built.get(ref);
          if (!b) missing = ref;
          else refs.push(`-r:${b.dll}`);
        }
        const label = `${tag} ${def.name} (${a.sources.length} files)`;
        if (missing && failed.has(missing)) {
          console.log(`skip ${label}: its reference '${missing}' failed above`);
          failed.add(def.name);
          continue;
        }
        if (missing) {
          failures.push({ label, text: `references '${missing}', which is not built in this flavour` });
          console.log(`FAIL ${label}: references '${missing}', which is not built in this flavour`);
          continue;
        }
        const dll = path.join(dir, `${def.name}.dll`);
        const ok = mcs(label, [
          '-target:library',
          ...(def.allowUnsafeCode ? ['-unsafe'] : []),
          `-define:${defines.join(';')}`,
          `-out:${dll}`,
          ...engineRefs,
          ...refs,
          ...a.sources,
        ]);
        if (ok) built.set(def.name, { dll, autoReferenced: def.autoReferenced !== false });
        else failed.add(def.name);
      }

      // The probes (tools/csharp-check/ApiProbe.cs, SeedProbe.cs): user scripts calling the public
      // members the original KindRetargeting's users call, each compiled on its own as Assembly-CSharp.
      for (const probe of API_PROBES) {
        if (!existsSync(probe)) continue;
        if (failed.size > 0) {
          console.log(`skip ${tag} API probe ${path.basename(probe)}: ${[...failed].join(', ')} failed above`);
          continue;
        }
        const auto = [...built.values()].filter((b) => b.autoReferenced).map((b) => `-r:${b.dll}`);
        mcs(`${tag} API probe ${path.basename(probe)} as Assembly-CSharp`, [
          '-target:library',
          `-define:${[...base].join(';')}`,
          `-out:${path.join(dir, `Assembly-CSharp.${path.basename(probe, '.cs')}.dll`)}`,
          ...engineRefs,
          ...auto,
          probe,
        ]);
      }

      // Samples, as Unity compiles them once imported into Assets.
      for (const name of samples) {
        const sdir = path.join(opt.pkg, 'Samples~', name);
        const { assemblies: sAsm, loose: sLoose } = collectAssemblies(sdir);
        if (sAsm.length > 0) {
          failures.push({ label: `sample ${name}`, text: 'asmdefs inside samples are not handled by this check' });
          continue;
        }
        if (sLoose.length === 0) continue;
        if (failed.size > 0) {
          console.log(`skip ${tag} sample ${name}: ${[...failed].join(', ')} failed above`);
          continue;
        }
        const isEditor = (f) => path.relative(sdir, f).split(path.sep).slice(0, -1).includes('Editor');
        const stubs = (SAMPLE_STUBS[name] ?? []).map((s) => path.join(surface, s));
        const auto = [...built.values()].filter((b) => b.autoReferenced).map((b) => `-r:${b.dll}`);
        const defines = `-define:${[...base].join(';')}`;
        const csharpDll = path.join(dir, `Assembly-CSharp.${name}.dll`);
        const runtimeFiles = sLoose.filter((f) => !isEditor(f));
        const ok = mcs(`${tag} sample ${name} as Assembly-CSharp (${runtimeFiles.length} files${stubs.length ? ` + plugin stub ${SAMPLE_STUBS[name].join(', ')}` : ''})`, [
          '-target:library',
          defines,
          `-out:${csharpDll}`,
          ...engineRefs,
          ...auto,
          ...stubs,
          ...runtimeFiles,
        ]);
        const editorFiles = sLoose.filter(isEditor);
        if (ok && fl.editor && editorFiles.length > 0) {
          mcs(`${tag} sample ${name} as Assembly-CSharp-Editor (${editorFiles.length} files)`, [
            '-target:library',
            defines,
            `-out:${path.join(dir, `Assembly-CSharp-Editor.${name}.dll`)}`,
            ...engineRefs,
            ...auto,
            `-r:${csharpDll}`,
            ...editorFiles,
          ]);
        }
      }
    }
  }

  rmSync(out, { recursive: true, force: true });
  packageFiles =
    assemblies.reduce((n, a) => n + a.sources.length, 0) +
    samples.reduce((n, s) => n + collectAssemblies(path.join(opt.pkg, 'Samples~', s)).loose.length, 0);
  if (failures.length > 0) {
    console.error(`check-csharp: ${failures.length} failure(s):`);
    for (const f of failures) console.error(`- ${f.label}: ${f.text.split('\n')[0]}`);
    process.exit(1);
  }
  console.log(
    `check-csharp: ${packageFiles} C# files compile against the real PuerTS (${puertsLabel}) in ${flavours.length} flavour(s): ${flavours.map((f) => f.label).join('; ')}`,
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
