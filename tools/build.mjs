#!/usr/bin/env node
// Builds the Node entry points of TsProject with esbuild into TsProject/dist (not committed):
//   dist/kind.cjs   the `kind` command line (src/cli/main.ts)
//   dist/bench.cjs  the benchmarks (bench/index.ts)
// Run from anywhere: `node tools/build.mjs` (also runs on `npm ci` through TsProject's "prepare").
import { existsSync } from 'node:fs';
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
];

for (const e of entries) {
  const input = path.join(ts, e.in);
  if (!existsSync(input)) continue;
  await esbuild.build({
    entryPoints: [input],
    outfile: path.join(ts, e.out),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: true,
    logLevel: 'warning',
    // gltf-validator is large and only used by tests and `kind validate`; keep it external.
    external: ['gltf-validator'],
    // prefer ES module builds (gl-matrix's CommonJS build puts a getter behind every quat./vec3. access)
    mainFields: ['module', 'main'],
  });
}
