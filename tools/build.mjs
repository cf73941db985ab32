#!/usr/bin/env node
// Builds the Node entry points of TsProject with esbuild into TsProject/dist (not committed):
//   dist/kind.cjs   the `kind` command line (src/cli/main.ts)
//   dist/bench.cjs  the benchmarks (bench/index.ts)
//   dist/qaWorker.cjs  the worker thread of `kind qa --batch` (src/cli/qaWorker.ts), found next to kind.cjs
//   dist/cleanupWorker.cjs  the worker thread of `kind cleanup --batch` (src/cli/cleanupWorker.ts), next to kind.cjs
//   dist/draco_decoder_gltf.wasm  the Draco decoder's WebAssembly (draco3dgltf), found next to kind.cjs
//   dist/web/       the live viewer page (src/web/viewer/index.html) and its browser bundle viewer.js
//                   (src/web/viewer/main.ts, three.js + lil-gui), served by src/live/node/viewerServer.ts
//   dist/web/puppet/ the drawing puppet page (src/web/puppet/index.html) and its bundle puppet.js
//                   (src/web/puppet/main.ts, @mediapipe/tasks-vision bundled in), served by src/cli/puppetServe.ts
//   dist/web/mocap/ the live webcam mocap page (src/web/mocap/index.html) and its bundle mocap.js, served by
//                   src/cli/mocapServe.ts (`kind mocap` with no file)
//   dist/models/pose_landmarker_full_from_pose.task  a PoseLandmarker model bundle built from @mediapipe/pose's
//                   own models (tools/make-pose-task.mjs), the puppet page's offline tasks-vision model
//   Packages/com.kind.retargeting/Runtime/Resources/kind-retargeting/main.mjs
//                   the Unity bundle (src/unity/main.ts): one ES module for PuerTS (V8 or QuickJS), no Node
//                   API; committed so the package works without Node. Its size is printed.
// Run from anywhere: `node tools/build.mjs` (also runs on `npm ci` through TsProject's "prepare").
// `node tools/build.mjs web [<outDir>]` builds only the browser pages (viewer into <outDir>, default dist/web;
// the puppet page into <outDir>/puppet).
// `node tools/build.mjs unity [<outFile>]` builds only the Unity bundle (default path above).
// `node tools/build.mjs cli [<outDir>]` builds only dist/kind.cjs and dist/qaWorker.cjs (into <outDir>, default dist).
// tools/watch.mjs rebuilds the Unity bundle on every save (hot reload in the Editor).
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ts = path.join(root, 'TsProject');
const require = createRequire(path.join(ts, 'package.json'));
const esbuild = require('esbuild');

const entries = [
  { in: 'src/cli/main.ts', out: 'dist/kind.cjs' },
  { in: 'bench/index.ts', out: 'dist/bench.cjs' },
  { in: 'src/cli/qaWorker.ts', out: 'dist/qaWorker.cjs' },
  { in: 'src/cli/cleanupWorker.ts', out: 'dist/cleanupWorker.cjs' },
];

const webOnly = process.argv[2] === 'web';
const unityOnly = process.argv[2] === 'unity';
const cliOnly = process.argv[2] === 'cli';
const webOut = webOnly && process.argv[3] ? path.resolve(process.argv[3]) : path.join(ts, 'dist/web');
const cliOut = cliOnly && process.argv[3] ? path.resolve(process.argv[3]) : null;

for (const e of webOnly || unityOnly ? [] : entries.filter((x) => !cliOnly || x.in.startsWith('src/cli/'))) {
  const input = path.join(ts, e.in);
  if (!existsSync(input)) continue;
  await esbuild.build({
    entryPoints: [input],
    outfile: cliOut ? path.join(cliOut, path.basename(e.out)) : path.join(ts, e.out),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: true,
    logLevel: 'warning',
    // gltf-validator is large and only used by tests and `kind validate`; keep it external.
    // onnxruntime-web loads its .wasm and wasm glue from node_modules at run time: keep it external too.
    external: ['gltf-validator', 'onnxruntime-web'],
    // prefer ES module builds (gl-matrix's CommonJS build puts a getter behind every quat./vec3. access)
    mainFields: ['module', 'main'],
  });
}

// The Draco decoder (draco3dgltf, bundled into kind.cjs) reads its WebAssembly from the folder of the
// script that runs it: put it next to dist/kind.cjs, or the `cli <outDir>` build's (src/io/node/gltfDecoders.ts).
if (!webOnly && !unityOnly) {
  const wasm = require.resolve('draco3dgltf/draco_decoder_gltf.wasm');
  copyFileSync(wasm, path.join(cliOut ?? path.join(ts, 'dist'), path.basename(wasm)));
}

// The live viewer (browser, ES module): bundle and page.
const viewerMain = path.join(ts, 'src/web/viewer/main.ts');
if (existsSync(viewerMain) && !unityOnly && !cliOnly) {
  mkdirSync(webOut, { recursive: true });
  await esbuild.build({
    entryPoints: [viewerMain],
    outfile: path.join(webOut, 'viewer.js'),
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2020',
    sourcemap: true,
    logLevel: 'warning',
    mainFields: ['module', 'browser', 'main'],
  });
  copyFileSync(path.join(ts, 'src/web/viewer/index.html'), path.join(webOut, 'index.html'));
}

// The drawing puppet page (browser, ES module): bundle and page, in dist/web/puppet.
const puppetMain = path.join(ts, 'src/web/puppet/main.ts');
if (existsSync(puppetMain) && !unityOnly && !cliOnly) {
  const out = path.join(webOut, 'puppet');
  mkdirSync(out, { recursive: true });
  await esbuild.build({
    entryPoints: [puppetMain],
    outfile: path.join(out, 'puppet.js'),
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2020',
    sourcemap: true,
    logLevel: 'warning',
    mainFields: ['module', 'browser', 'main'],
  });
  copyFileSync(path.join(ts, 'src/web/puppet/index.html'), path.join(out, 'index.html'));
  // The tasks-vision backend's offline model: a PoseLandmarker .task built from @mediapipe/pose's own
  // models (tools/make-pose-task.mjs), where the puppet server looks for it (BUILT_POSE_TASK in
  // src/cli/puppetServe.ts: ../../models from the page). Skipped with a note when @mediapipe/pose is absent.
  const { writePoseTask } = await import('./make-pose-task.mjs');
  try {
    writePoseTask(path.resolve(out, '../../models/pose_landmarker_full_from_pose.task'), path.join(ts, 'node_modules'), 'full');
  } catch (e) {
    console.warn(`build: no offline PoseLandmarker .task (${e.message}); the puppet page's tasks backend uses MediaPipe's URL`);
  }
}

// The live webcam mocap page (browser, ES module): bundle and page, in dist/web/mocap (served by
// src/cli/mocapServe.ts; it uses the puppet page's MediaPipe files and .task, built above).
const mocapMain = path.join(ts, 'src/web/mocap/main.ts');
if (existsSync(mocapMain) && !unityOnly && !cliOnly) {
  const out = path.join(webOut, 'mocap');
  mkdirSync(out, { recursive: true });
  await esbuild.build({
    entryPoints: [mocapMain],
    outfile: path.join(out, 'mocap.js'),
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2020',
    sourcemap: true,
    logLevel: 'warning',
    // glTF Transform's NodeIO imports these lazily, only when constructed (the page uses WebIO)
    external: ['node:fs', 'node:path'],
    mainFields: ['module', 'browser', 'main'],
  });
  copyFileSync(path.join(ts, 'src/web/mocap/index.html'), path.join(out, 'index.html'));
}

// The Unity bundle (see unityBuildOptions in tools/unityBundle.mjs).
if (!webOnly && !cliOnly) {
  const { buildUnityBundle, UNITY_BUNDLE } = await import('./unityBundle.mjs');
  const out = unityOnly && process.argv[3] ? path.resolve(process.argv[3]) : UNITY_BUNDLE;
  const bytes = await buildUnityBundle(out);
  console.log(`unity bundle: ${path.relative(root, out)} ${(bytes / 1024).toFixed(1)} KiB`);
}
