#!/usr/bin/env node
// Rebuild the Unity bundle on every save of TsProject's sources, for hot reload in the Unity Editor: the
// package's KindRuntime sees the file change and runs exportState -> new JsEnv -> importState.
//
//   node tools/watch.mjs                   -> Packages/com.kind.retargeting/Runtime/Resources/kind-retargeting/main.mjs
//                                             (the package in this repository: embedded or installed from disk)
//   node tools/watch.mjs --out <folder>    -> <folder>/kind-retargeting/main.mjs, for a project that installed the
//                                             package by git URL (its Library/PackageCache copy is read-only): choose
//                                             the same folder in Unity (Tools > Kind Retargeting > Hot Reload Bundle
//                                             Folder > Choose..., or KindRuntime.editorBundleFolder)
//   node tools/watch.mjs <outFile>         -> that file
//   --entry <file>                         the entry module (default TsProject/src/unity/main.ts; the tests use it)
//
// Every build is written atomically: the bytes go to a temporary file next to the bundle, which is then
// renamed over it, so Unity never reads half a bundle. A failed build leaves the previous bundle in place.
// Ctrl+C (SIGINT) or SIGTERM stops the watcher; a temporary file is never left behind. Each rebuild prints
// one line (time, size, milliseconds) or the number of errors.
import { accessSync, constants, existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { esbuild, UNITY_BUNDLE, UNITY_ENTRY, unityBuildOptions } from './unityBundle.mjs';

/** The bundle file for these command-line arguments (see the header). Throws on a bad argument. */
function parseWatchArgs(argv) {
  let out = UNITY_BUNDLE;
  let entry = UNITY_ENTRY;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--out' || a === '--entry') {
      const v = argv[++i];
      if (!v) throw new Error(`${a} needs a value`);
      if (a === '--out') out = path.join(path.resolve(v), 'kind-retargeting', 'main.mjs');
      else entry = path.resolve(v);
    } else if (a.startsWith('--')) throw new Error(`unknown option ${a} (expected --out <folder>, --entry <file>)`);
    else out = path.resolve(a);
  }
  return { out, entry };
}

let args;
try {
  args = parseWatchArgs(process.argv.slice(2));
} catch (e) {
  console.error(`watch: ${e.message}`);
  process.exit(2);
}
const { out, entry } = args;
// The output folder must be a folder we can write: say so once, before watching, instead of a stack trace
// or a watcher that never writes.
try {
  for (let d = path.dirname(out); ; d = path.dirname(d)) {
    if (existsSync(d)) {
      if (!statSync(d).isDirectory()) throw new Error(`${d} is a file, not a folder`);
      accessSync(d, constants.W_OK);
      break;
    }
    if (path.dirname(d) === d) break;
  }
  mkdirSync(path.dirname(out), { recursive: true });
  accessSync(path.dirname(out), constants.W_OK);
} catch (e) {
  console.error(`watch: cannot write the bundle to ${out}: ${e.code === 'EACCES' ? 'permission denied' : e.message}`);
  process.exit(2);
}
let hadBundle = existsSync(out);

let temp = null; // the temporary file being written, if any
let serial = 0;

/** Write `bytes` to `out` atomically: a temporary file in the same folder, then rename over the bundle. */
function writeAtomically(bytes) {
  temp = `${out}.tmp-${process.pid}-${++serial}`;
  try {
    writeFileSync(temp, bytes);
    renameSync(temp, out);
  } finally {
    rmSync(temp, { force: true }); // gone after the rename; removes it when the write or the rename failed
    temp = null;
  }
}

let started = 0;
const report = {
  name: 'kind-atomic-write',
  setup(build) {
    build.onStart(() => {
      started = Date.now();
    });
    build.onEnd((result) => {
      const when = new Date().toLocaleTimeString();
      if (result.errors.length > 0) {
        console.log(`[${when}] rebuild failed (${result.errors.length} errors); ${hadBundle ? 'the previous bundle stays' : 'no bundle written yet'}`);
        return;
      }
      const file = result.outputFiles.find((f) => path.resolve(f.path) === out) ?? result.outputFiles[0];
      try {
        writeAtomically(file.contents);
      } catch (e) {
        console.log(`[${when}] could not write ${out}: ${e.message}; ${hadBundle ? 'the previous bundle stays' : 'no bundle written yet'}`);
        return;
      }
      hadBundle = true;
      const kb = (file.contents.length / 1024).toFixed(1);
      console.log(`[${when}] rebuilt ${out} ${kb} KiB in ${Date.now() - started} ms`);
    });
  },
};

const options = unityBuildOptions(out);
const ctx = await esbuild.context({
  ...options,
  entryPoints: [entry],
  write: false,
  plugins: [...options.plugins, report],
});

let stopping = false;
async function stop(signal) {
  if (stopping) return;
  stopping = true;
  if (temp) rmSync(temp, { force: true });
  await ctx.dispose();
  console.log(`watch: stopped (${signal})`);
  process.exit(0);
}
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));

await ctx.watch();
console.log(`watching ${path.relative(process.cwd(), path.dirname(entry)) || '.'} for changes -> ${out} (Ctrl+C stops)`);
