#!/usr/bin/env node
// Compile check of the Unity package's C# with Roslyn at Unity 2021.3's language level (C# 9), against the
// REAL PuerTS sources of both supported lines: 2.2.3 (LTS) and 3.x (3.0.2). Issue 27 item 3.
//
// tools/check-csharp.mjs does the same with Mono's `mcs` (C# 7) against 2.2.3 only: mcs cannot compile
// PuerTS 3.x (C# 7.3+ syntax). This builds with the compiler Unity 2021.3 itself uses (Roslyn), taken
// from the .NET SDK on the machine (`dotnet <sdk>/Roslyn/bincore/csc.dll`), at `-langversion:9`, in the
// same four flavours with the same defines (FLAVOURS, UNITY_2021_3 of check-csharp.mjs), following the
// asmdefs the same way (references, include/excludePlatforms, defineConstraints, versionDefines keyed on
// the PuerTS version built against), package code with warnings as errors except NOWARN.
//
// For each PuerTS version and flavour (a "build"):
//   1. the PuerTS runtime assemblies from their sources, with their asmdef's options:
//      - 2.2.3: com.tencent.puerts.core (Runtime/ of ../shared/reference/puerts-unity-2.2.3, or --puerts);
//      - 3.x: UPM splits it: com.tencent.puerts.core (upms/core/Runtime) plus the backend packages
//        com.tencent.puerts.v8 (upms/v8/Runtime) and com.tencent.puerts.quickjs (upms/quickjs/Runtime),
//        each built against core (their package.json depends on core; their asmdef's JSON has the key
//        "references" twice, ["com.tencent.puerts.core"] then [], so a strict JSON reader sees none).
//        Sources: --puerts3 <dir> or env KIND_PUERTS3_SRC, either a folder holding core/, v8/, quickjs/
//        (unity/upms of a Tencent/puerts checkout), a checkout itself, or a bare git repository of
//        Tencent/puerts (extracted at run time with `git archive HEAD unity/upms/...` into a temporary
//        folder); default /work/.mirror/Tencent+puerts/repo when present. Never copied into this repository;
//   2. every asmdef of the package (the asmdef's versionDefines see com.tencent.puerts.core at the version
//      its package.json gives: 2.2.3 or 3.0.2, so `PUERTS_3_OR_NEWER` is defined against 3.x only);
//   3. the probes (tools/csharp-check/ApiProbe.cs, SeedProbe.cs) as Assembly-CSharp, each on its own, and
//      each sample's loose scripts as Assembly-CSharp (+ -Editor), as check-csharp.mjs does.
// UnityEngine/UnityEditor are the hand-declared surface in tools/csharp-check, compiled by Roslyn too.
//
// Framework references: the .NET Standard 2.1 reference assemblies (NuGet NETStandard.Library.Ref 2.1.0,
// netstandard.dll, restored by `dotnet restore` of a temporary project into the NuGet global packages
// folder), in every flavour. That is the players' API level (2021.3's default, NET_STANDARD_2_1), and the
// part of the Editor's level (".NET Framework 4.8 + Unity additions", Unity's EditorAssembliesCompatibilityLevel
// docs; Unity 2021.2+ adds the .NET Standard 2.1 API to it) that the package may rely on everywhere. Plain
// .NET Framework 4.8 reference assemblies would be wrong for Unity: they lack .NET Standard 2.1 members
// Unity's profile has (KindWebSocketServer's WebSocket.CreateFromStream fails there, CS0117).
//
// The builds run `--jobs` at a time (default 2); each build's lines are printed when it ends, with its
// time. Exits 1 listing each failure with the compiler's messages, 2 when dotnet/csc, a PuerTS source or
// the reference assemblies are missing (with the reason), 0 when everything compiles.
//
// Usage: node tools/check-csharp-roslyn.mjs [--package <dir>] [--puerts <2.2.3 dir>] [--puerts3 <dir>]
//          [--versions 2,3] [--only editor,mono,il2cpp,il2cpp-reflect] [--probe <file.cs> ...] [--jobs N]
//        node tools/check-csharp-roslyn.mjs --restore   (restore the reference assemblies only)
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  collectAssemblies,
  constraintsMet,
  DEFAULT_PROBES,
  FLAVOURS,
  NOWARN,
  platformIncluded,
  readJson,
  SAMPLE_STUBS,
  UNITY_2021_3,
  unityIgnores,
  versionMatches,
  walk,
} from './check-csharp.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const surface = path.join(root, 'tools/csharp-check');
export const PUERTS3_MIRROR = '/work/.mirror/Tencent+puerts/repo';
export const LANGVERSION = '9'; // Unity 2021.2+ compiles C# 9 (Roslyn); 2021.3 LTS is the package's minimum.
/** The 3.x UPM packages built: core plus both JavaScript backends. */
export const PUERTS3_PACKAGES = ['core', 'v8', 'quickjs'];

/** The reference assemblies compiled against (NuGet id, version, folder inside the package, files). */
export const PROFILES = {
  netstandard21: {
    label: '.NET Standard 2.1 reference assemblies',
    id: 'NETStandard.Library.Ref',
    version: '2.1.0',
    dir: 'ref/netstandard2.1',
    files: ['netstandard.dll'],
  },
};
/** The profile a flavour compiles against (every flavour: see the header). */
export const profileOf = (_fl) => 'netstandard21';

function fail2(msg) {
  console.error(`check-csharp-roslyn: ${msg}`);
  process.exit(2);
}

function parseArgs(argv) {
  const o = {
    pkg: path.join(root, 'Packages/com.kind.retargeting'),
    puerts: path.resolve(root, '../shared/reference/puerts-unity-2.2.3'),
    puerts3: process.env.KIND_PUERTS3_SRC || (existsSync(PUERTS3_MIRROR) ? PUERTS3_MIRROR : null),
    versions: ['2', '3'],
    probes: null,
    jobs: 2,
    restoreOnly: false,
  };
  const valued = ['--package', '--puerts', '--puerts3', '--versions', '--only', '--probe', '--jobs'];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--restore') {
      o.restoreOnly = true;
      continue;
    }
    if (!valued.includes(a)) fail2(`unknown argument '${a}' (see the usage in ${path.relative(process.cwd(), fileURLToPath(import.meta.url))})`);
    const v = argv[++i];
    if (v === undefined || v === '' || v.startsWith('--')) fail2(`${a} needs a value`);
    if (a === '--package') o.pkg = path.resolve(v);
    else if (a === '--puerts') o.puerts = path.resolve(v);
    else if (a === '--puerts3') o.puerts3 = path.resolve(v);
    else if (a === '--versions') o.versions = v.split(',');
    else if (a === '--only') o.only = v.split(',');
    else if (a === '--probe') (o.probes ??= []).push(path.resolve(v));
    else if (a === '--jobs') o.jobs = Math.max(1, Number.parseInt(v, 10) || 1);
  }
  for (const v of o.versions) if (v !== '2' && v !== '3') fail2(`--versions takes 2 (PuerTS 2.2.3) and/or 3 (PuerTS 3.x), not '${v}'`);
  for (const p of o.probes ?? []) if (!existsSync(p)) fail2(`--probe ${p}: no such file`);
  o.probes ??= DEFAULT_PROBES;
  return o;
}

/** `dotnet` and the SDK's Roslyn: { dotnet, csc, version } or throws with the reason. */
export function findRoslyn() {
  let dotnet;
  try {
    dotnet = realpathSync(execFileSync('sh', ['-c', 'command -v dotnet'], { encoding: 'utf8' }).trim());
  } catch {
    throw new Error('`dotnet` not found (install the .NET SDK)');
  }
  const sdkRoot = path.join(path.dirname(dotnet), 'sdk');
  const sdks = existsSync(sdkRoot)
    ? readdirSync(sdkRoot).filter((d) => existsSync(path.join(sdkRoot, d, 'Roslyn/bincore/csc.dll')))
    : [];
  if (sdks.length === 0) throw new Error(`no <sdk>/Roslyn/bincore/csc.dll under ${sdkRoot} (a .NET runtime without the SDK?)`);
  sdks.sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  const csc = path.join(sdkRoot, sdks[sdks.length - 1], 'Roslyn/bincore/csc.dll');
  const r = spawnSync(dotnet, [csc, '-version'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${dotnet} ${csc} -version failed: ${(r.stderr || r.stdout).trim()}`);
  return { dotnet, csc, version: r.stdout.trim(), sdk: sdks[sdks.length - 1] };
}

function nugetPackages() {
  return process.env.NUGET_PACKAGES || path.join(homedir(), '.nuget/packages');
}

/** Paths of a profile's reference assemblies, restoring its NuGet package first when absent. */
export function ensureProfiles(dotnet) {
  const missing = Object.values(PROFILES).filter(
    (p) => !p.files.every((f) => existsSync(path.join(nugetPackages(), p.id.toLowerCase(), p.version, p.dir, f))),
  );
  if (missing.length > 0) {
    const dir = mkdtempSync(path.join(tmpdir(), 'kind-refs-'));
    try {
      const items = missing.map((p) => `    <PackageDownload Include="${p.id}" Version="[${p.version}]" />`).join('\n');
      writeFileSync(
        path.join(dir, 'refs.csproj'),
        `<Project Sdk="Microsoft.NET.Sdk">\n  <PropertyGroup><TargetFramework>netstandard2.0</TargetFramework></PropertyGroup>\n  <ItemGroup>\n${items}\n  </ItemGroup>\n</Project>\n`,
      );
      const r = spawnSync(dotnet, ['restore', path.join(dir, 'refs.csproj'), '--nologo'], { encoding: 'utf8' });
      if (r.status !== 0) {
        throw new Error(
          `dotnet restore of ${missing.map((p) => `${p.id} ${p.version}`).join(', ')} failed: ${`${r.stdout}${r.stderr}`.trim().split('\n').filter((l) => /error/i.test(l)).join(' | ') || r.status}`,
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const out = {};
  for (const [key, p] of Object.entries(PROFILES)) {
    const files = p.files.map((f) => path.join(nugetPackages(), p.id.toLowerCase(), p.version, p.dir, f));
    for (const f of files) if (!existsSync(f)) throw new Error(`${f} missing after restoring ${p.id} ${p.version}`);
    out[key] = { ...p, paths: files };
  }
  return out;
}

/**
 * The PuerTS 3.x UPM folder (holding core/, v8/, quickjs/) for `src`: that folder itself, a checkout's
 * unity/upms, or extracted from a (bare) git repository's HEAD into `scratch`. Throws with the reason.
 */
export function resolvePuerts3(src, scratch) {
  if (!src) throw new Error(`no PuerTS 3.x sources: give --puerts3 <dir> or KIND_PUERTS3_SRC (none at ${PUERTS3_MIRROR})`);
  if (!existsSync(src)) throw new Error(`PuerTS 3.x sources: ${src} does not exist`);
  const has = (d) => PUERTS3_PACKAGES.every((p) => existsSync(path.join(d, p, 'package.json')));
  if (has(src)) return { dir: src, from: src };
  if (has(path.join(src, 'unity/upms'))) return { dir: path.join(src, 'unity/upms'), from: src };
  const paths = PUERTS3_PACKAGES.map((p) => `unity/upms/${p}`);
  const git = spawnSync('git', ['-C', src, 'rev-parse', 'HEAD'], { encoding: 'utf8' });
  if (git.status !== 0) throw new Error(`PuerTS 3.x sources: ${src} holds neither ${PUERTS3_PACKAGES.join('/, ')}/ nor a git repository`);
  const archive = spawnSync('git', ['-C', src, 'archive', '--format=tar', 'HEAD', ...paths], { maxBuffer: 1 << 30 });
  if (archive.status !== 0) throw new Error(`PuerTS 3.x sources: git archive HEAD ${paths.join(' ')} in ${src} failed: ${String(archive.stderr).trim()}`);
  const dest = path.join(scratch, 'puerts3');
  mkdirSync(dest, { recursive: true });
  const tar = spawnSync('tar', ['-x', '-C', dest], { input: archive.stdout });
  if (tar.status !== 0) throw new Error(`PuerTS 3.x sources: tar -x failed: ${String(tar.stderr).trim()}`);
  return { dir: path.join(dest, 'unity/upms'), from: `${src} @ ${git.stdout.trim().slice(0, 12)}` };
}

/** An external (PuerTS) asmdef assembly: { name, def, sources, refs, packageName, version }. */
function externalAssembly(asmdef, packageJson, refs) {
  const pkg = readJson(packageJson);
  return {
    name: readJson(asmdef).name,
    def: readJson(asmdef),
    sources: walk(path.dirname(asmdef), (_p, n) => n.endsWith('.cs'), (_p, n) => unityIgnores(n)),
    refs,
    packageName: pkg.name,
    version: pkg.version,
  };
}

/** The PuerTS assemblies of one version, in dependency order. */
function puertsAssemblies(version, opt, scratch) {
  if (version === '2') {
    const asmdef = path.join(opt.puerts, 'Runtime/com.tencent.puerts.core.asmdef');
    if (!existsSync(asmdef)) throw new Error(`the PuerTS 2.2.3 reference sources are not at ${opt.puerts} (expected Runtime/com.tencent.puerts.core.asmdef)`);
    const core = externalAssembly(asmdef, path.join(opt.puerts, 'package.json'), []);
    // The Unity_v2.2.3 tag's package.json still says 2.2.2: the folder name (puerts-unity-2.2.3) says which.
    const named = /(\d+\.\d+\.\d+)$/.exec(path.basename(opt.puerts));
    const label = named && named[1] !== core.version ? `PuerTS ${named[1]}` : `PuerTS ${core.version}`;
    return { label, from: `${opt.puerts}, package.json ${core.version}`, list: [core] };
  }
  const { dir, from } = resolvePuerts3(opt.puerts3, scratch);
  const list = PUERTS3_PACKAGES.map((p) => {
    const asmdefs = readdirSync(path.join(dir, p, 'Runtime')).filter((n) => n.endsWith('.asmdef'));
    if (asmdefs.length !== 1) throw new Error(`PuerTS 3.x ${p}/Runtime: expected one asmdef, found ${asmdefs.length}`);
    const pkg = readJson(path.join(dir, p, 'package.json'));
    return externalAssembly(path.join(dir, p, 'Runtime', asmdefs[0]), path.join(dir, p, 'package.json'), Object.keys(pkg.dependencies ?? {}));
  });
  const core = list[0];
  if (!/^3\./.test(core.version)) throw new Error(`PuerTS 3.x sources at ${from}: core/package.json says ${core.version}`);
  return { label: `PuerTS ${core.version}`, from, list };
}

function run(cmd, args) {
  return new Promise((resolve) => {
    execFile(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      resolve({ ok: !err, text: `${stdout || ''}${stderr || ''}`.trim() });
    });
  });
}

async function pool(tasks, n) {
  const results = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, tasks.length) }, worker));
  return results;
}

async function main() {
  const opt = parseArgs(process.argv.slice(2));
  let roslyn;
  let profiles;
  try {
    roslyn = findRoslyn();
    profiles = ensureProfiles(roslyn.dotnet);
  } catch (e) {
    fail2(`skipped: ${e.message}`);
  }
  if (opt.restoreOnly) {
    for (const p of Object.values(profiles)) console.log(`check-csharp-roslyn: ${p.label}: ${p.id} ${p.version} in ${path.dirname(p.paths[0])}`);
    return;
  }
  if (!existsSync(path.join(opt.pkg, 'package.json'))) fail2(`${opt.pkg}: not a Unity package (no package.json)`);
  const flavours = opt.only ? FLAVOURS.filter((f) => opt.only.includes(f.id)) : FLAVOURS;
  if (flavours.length === 0) fail2(`--only names no flavour (ids: ${FLAVOURS.map((f) => f.id).join(', ')})`);

  const out = mkdtempSync(path.join(tmpdir(), 'kind-roslyn-'));
  const versions = [];
  try {
    for (const v of opt.versions) versions.push(puertsAssemblies(v, opt, out));
  } catch (e) {
    rmSync(out, { recursive: true, force: true });
    fail2(`skipped: ${e.message}`);
  }
  const started = Date.now();
  // Roslyn's compiler server (VBCSCompiler) for this run only: a pipe named after this process, ending by
  // itself 10 s after the last compile (-keepalive), so the ~50 compiles share one warm compiler.
  const sharedFlags = process.env.KIND_ROSLYN_NO_SERVER ? [] : [`-shared:kind-roslyn-${process.pid}`, '-keepalive:10'];
  const failures = [];

  /** One Roslyn compile; appends its line to `log`. */
  async function csc(log, label, args, { strict = true, profile } = {}) {
    const flags = strict ? ['-warnaserror+', `-nowarn:${NOWARN.join(',')}`] : ['-warn:0'];
    const t0 = Date.now();
    const r = await run(roslyn.dotnet, [
      roslyn.csc,
      '-nologo',
      '-noconfig',
      '-nostdlib+',
      `-langversion:${LANGVERSION}`,
      '-target:library',
      '-debug-',
      ...sharedFlags,
      ...flags,
      ...profiles[profile].paths.map((p) => `-r:${p}`),
      ...args,
    ]);
    const secs = ((Date.now() - t0) / 1000).toFixed(1);
    if (r.ok) log.push(`ok   ${label} ${secs} s`);
    else {
      log.push(`FAIL ${label}\n${r.text}`);
      failures.push({ label, text: r.text });
    }
    return r.ok;
  }

  // The UnityEngine/UnityEditor surface, once per framework profile.
  const surfaces = {};
  {
    const log = [];
    await pool(
      [...new Set(flavours.map(profileOf))].map((profile) => async () => {
        const engine = path.join(out, `UnityEngine.${profile}.dll`);
        const editor = path.join(out, `UnityEditor.${profile}.dll`);
        const ok =
          (await csc(log, `surface UnityEngine (${profiles[profile].label})`, [`-out:${engine}`, path.join(surface, 'UnityEngine.Surface.cs')], { profile })) &&
          (await csc(log, `surface UnityEditor (${profiles[profile].label})`, [`-out:${editor}`, `-r:${engine}`, path.join(surface, 'UnityEditor.Surface.cs')], { profile }));
        surfaces[profile] = ok ? { engine, editor } : null;
      }),
      opt.jobs,
    );
    console.log(log.join('\n'));
  }

  const pkgJson = readJson(path.join(opt.pkg, 'package.json'));
  const { assemblies, loose } = collectAssemblies(opt.pkg);
  if (loose.length > 0) failures.push({ label: 'package layout', text: `scripts under no asmdef: ${loose.map((f) => path.relative(opt.pkg, f)).join(', ')}` });
  const byName = new Map(assemblies.map((a) => [a.def.name, a]));
  const samples = existsSync(path.join(opt.pkg, 'Samples~'))
    ? readdirSync(path.join(opt.pkg, 'Samples~')).filter((n) => statSync(path.join(opt.pkg, 'Samples~', n)).isDirectory()).sort()
    : [];
  const declared = new Set(Object.keys(pkgJson.dependencies ?? {}));

  // Package asmdefs in dependency order (a reference cycle or an unknown reference is a failure).
  const order = [];
  const state = new Map();
  const visit = (a, chain) => {
    if (state.get(a) === 'done') return;
    if (state.get(a) === 'visiting') throw new Error(`asmdef reference cycle: ${[...chain, a.def.name].join(' -> ')}`);
    state.set(a, 'visiting');
    for (const ref of a.def.references ?? []) if (byName.has(ref)) visit(byName.get(ref), [...chain, a.def.name]);
    state.set(a, 'done');
    order.push(a);
  };
  try {
    for (const a of assemblies) visit(a, []);
  } catch (e) {
    failures.push({ label: 'asmdef references', text: e.message });
  }

  /** One build: the PuerTS assemblies of `ver`, then the package, probes and samples, in flavour `fl`. */
  async function build(ver, fl) {
    const log = [];
    const t0 = Date.now();
    const tag = `[${ver.label} ${fl.label}]`;
    const profile = profileOf(fl);
    const sf = surfaces[profile];
    const dir = path.join(out, `${ver.label.replace(/\W+/g, '_')}-${fl.id}`);
    mkdirSync(dir, { recursive: true });
    const base = new Set([...UNITY_2021_3, ...fl.defines]);
    const engineRefs = [`-r:${sf.engine}`, ...(fl.editor ? [`-r:${sf.editor}`] : [])];
    const versionsOf = new Map([[pkgJson.name, pkgJson.version]]);
    for (const [n, v] of Object.entries(pkgJson.dependencies ?? {})) versionsOf.set(n, v);
    for (const ext of ver.list) versionsOf.set(ext.packageName, ext.version);
    const definesFor = (def) => {
      const d = new Set(base);
      for (const vd of def.versionDefines ?? []) {
        const v = versionsOf.get(vd.name);
        if (v && versionMatches(vd.expression ?? '', v)) d.add(vd.define);
      }
      return [...d];
    };
    const built = new Map(); // assembly name -> { dll, autoReferenced }
    const failed = new Set();
    const byPackage = new Map(ver.list.map((e) => [e.packageName, e.name]));

    for (const ext of ver.list) {
      const dll = path.join(dir, `${ext.name}.dll`);
      const refs = ext.refs.map((p) => byPackage.get(p)).filter(Boolean);
      if (refs.some((r) => !built.has(r))) {
        log.push(`skip ${tag} ${ext.name}: a PuerTS assembly it needs failed above`);
        failed.add(ext.name);
        continue;
      }
      const ok = await csc(
        log,
        `${tag} ${ext.name} (${ext.packageName} ${ext.version}, ${ext.sources.length} files)`,
        [
          ...(ext.def.allowUnsafeCode ? ['-unsafe'] : []),
          `-define:${definesFor(ext.def).join(';')}`,
          `-out:${dll}`,
          ...engineRefs,
          ...refs.map((r) => `-r:${built.get(r).dll}`),
          ...ext.sources,
        ],
        { strict: false, profile },
      );
      if (ok) built.set(ext.name, { dll, autoReferenced: ext.def.autoReferenced !== false });
      else failed.add(ext.name);
    }
    // Only the PuerTS assemblies of packages the package.json declares are visible to the package's asmdefs.
    const visibleExternal = new Set(ver.list.filter((e) => declared.has(e.packageName)).map((e) => e.name));

    for (const a of order) {
      const def = a.def;
      const defines = definesFor(def);
      if (!platformIncluded(def, fl)) {
        log.push(`skip ${tag} ${def.name} (not built for ${fl.platform}: includePlatforms/excludePlatforms)`);
        continue;
      }
      if (!constraintsMet(def, new Set(defines))) {
        log.push(`skip ${tag} ${def.name} (defineConstraints ${JSON.stringify(def.defineConstraints)} unmet)`);
        continue;
      }
      const label = `${tag} ${def.name} (${a.sources.length} files${defines.includes('PUERTS_3_OR_NEWER') ? ', PUERTS_3_OR_NEWER' : ''})`;
      const refs = [];
      let problem = null;
      for (const ref of def.references ?? []) {
        if (!byName.has(ref) && !visibleExternal.has(ref)) {
          problem = `references '${ref}', which no asmdef of the package or of the packages its package.json declares defines`;
          break;
        }
        if (failed.has(ref)) {
          problem = `skip: its reference '${ref}' failed above`;
          break;
        }
        if (!built.has(ref)) {
          problem = `references '${ref}', which is not built in this flavour`;
          break;
        }
        refs.push(`-r:${built.get(ref).dll}`);
      }
      if (problem?.startsWith('skip')) {
        log.push(`skip ${label}: ${problem.slice(6)}`);
        failed.add(def.name);
        continue;
      }
      if (problem) {
        log.push(`FAIL ${label}: ${problem}`);
        failures.push({ label, text: problem });
        failed.add(def.name);
        continue;
      }
      const dll = path.join(dir, `${def.name}.dll`);
      const ok = await csc(
        log,
        label,
        [...(def.allowUnsafeCode ? ['-unsafe'] : []), `-define:${defines.join(';')}`, `-out:${dll}`, ...engineRefs, ...refs, ...a.sources],
        { profile },
      );
      if (ok) built.set(def.name, { dll, autoReferenced: def.autoReferenced !== false });
      else failed.add(def.name);
    }

    const auto = () => [...built.values()].filter((b) => b.autoReferenced).map((b) => `-r:${b.dll}`);
    const defines = `-define:${[...base].join(';')}`;
    for (const probe of opt.probes) {
      if (failed.size > 0) {
        log.push(`skip ${tag} probe ${path.basename(probe)}: ${[...failed].join(', ')} failed above`);
        continue;
      }
      await csc(log, `${tag} probe ${path.basename(probe)} as Assembly-CSharp`, [
        defines,
        `-out:${path.join(dir, `Assembly-CSharp.${path.basename(probe, '.cs')}.dll`)}`,
        ...engineRefs,
        ...auto(),
        probe,
      ], { profile });
    }
    for (const name of samples) {
      const sdir = path.join(opt.pkg, 'Samples~', name);
      const { assemblies: sAsm, loose: sLoose } = collectAssemblies(sdir);
      if (sAsm.length > 0) {
        failures.push({ label: `sample ${name}`, text: 'asmdefs inside samples are not handled by this check' });
        continue;
      }
      if (sLoose.length === 0) continue;
      if (failed.size > 0) {
        log.push(`skip ${tag} sample ${name}: ${[...failed].join(', ')} failed above`);
        continue;
      }
      const isEditor = (f) => path.relative(sdir, f).split(path.sep).slice(0, -1).includes('Editor');
      const stubs = (SAMPLE_STUBS[name] ?? []).map((s) => path.join(surface, s));
      const csharpDll = path.join(dir, `Assembly-CSharp.${name}.dll`);
      const runtimeFiles = sLoose.filter((f) => !isEditor(f));
      const ok = await csc(log, `${tag} sample ${name} as Assembly-CSharp (${runtimeFiles.length} files)`, [
        defines,
        `-out:${csharpDll}`,
        ...engineRefs,
        ...auto(),
        ...stubs,
        ...runtimeFiles,
      ], { profile });
      const editorFiles = sLoose.filter(isEditor);
      if (ok && fl.editor && editorFiles.length > 0) {
        await csc(log, `${tag} sample ${name} as Assembly-CSharp-Editor (${editorFiles.length} files)`, [
          defines,
          `-out:${path.join(dir, `Assembly-CSharp-Editor.${name}.dll`)}`,
          ...engineRefs,
          ...auto(),
          `-r:${csharpDll}`,
          ...editorFiles,
        ], { profile });
      }
    }
    const secs = (Date.now() - t0) / 1000;
    log.push(`time ${tag} ${secs.toFixed(1)} s`);
    console.log(log.join('\n'));
    return { tag, secs };
  }

  const tasks = [];
  if (failures.length === 0) {
    for (const ver of versions) {
      for (const fl of flavours) {
        if (!surfaces[profileOf(fl)]) continue;
        tasks.push(() => build(ver, fl));
      }
    }
  }
  await pool(tasks, opt.jobs);
  rmSync(out, { recursive: true, force: true });

  const wall = ((Date.now() - started) / 1000).toFixed(1);
  if (failures.length > 0) {
    console.error(`check-csharp-roslyn: ${failures.length} failure(s):`);
    for (const f of failures) console.error(`- ${f.label}: ${f.text.split('\n')[0]}`);
    process.exit(1);
  }
  const files =
    assemblies.reduce((n, a) => n + a.sources.length, 0) +
    samples.reduce((n, s) => n + collectAssemblies(path.join(opt.pkg, 'Samples~', s)).loose.length, 0);
  console.log(
    `check-csharp-roslyn: ${files} C# files compile with Roslyn ${roslyn.version} (SDK ${roslyn.sdk}) at -langversion:${LANGVERSION} against ${versions
      .map((v) => `${v.label} (${v.list.map((e) => e.name).join(' + ')}; ${v.from})`)
      .join(' and ')} in ${flavours.length} flavour(s) each: ${tasks.length} builds, ${opt.jobs} at a time, ${wall} s`,
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
