#!/usr/bin/env node
// Rebuild the Unity bundle (Packages/com.kind.retargeting/Runtime/Resources/kind-retargeting/main.mjs)
// on every save of TsProject's sources, for hot reload in the Unity Editor: the package's Editor loader
// sees the file change and the host runs exportState -> new JsEnv -> importState.
// Run: `node tools/watch.mjs [<outFile>]`; Ctrl+C stops. Each rebuild prints its time, size and errors.
import { statSync } from 'node:fs';
import path from 'node:path';
import { esbuild, UNITY_BUNDLE, unityBuildOptions } from './unityBundle.mjs';

const out = process.argv[2] ? path.resolve(process.argv[2]) : UNITY_BUNDLE;
let started = 0;
const report = {
  name: 'kind-report',
  setup(build) {
    build.onStart(() => {
      started = Date.now();
    });
    build.onEnd((result) => {
      const when = new Date().toLocaleTimeString();
      if (result.errors.length > 0) {
        console.log(`[${when}] rebuild failed (${result.errors.length} errors); the previous bundle stays`);
        return;
      }
      const kb = (statSync(out).size / 1024).toFixed(1);
      console.log(`[${when}] rebuilt ${path.basename(out)} ${kb} KiB in ${Date.now() - started} ms`);
    });
  },
};

const options = unityBuildOptions(out);
const ctx = await esbuild.context({ ...options, plugins: [...options.plugins, report] });
await ctx.watch();
console.log(`watching TsProject/src for changes -> ${out} (Ctrl+C stops)`);
