#!/usr/bin/env node
// `npm run train:contact [-- --seed N --epochs N --out DIR --no-write]`: bundles train/contact/main.ts with
// esbuild into dist/train-contact.cjs and runs it (plain Node, no Python).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ts = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(ts, 'package.json'));
const esbuild = require('esbuild');
const out = path.join(ts, 'dist/train-contact.cjs');
await esbuild.build({
  entryPoints: [path.join(ts, 'train/contact/main.ts')],
  outfile: out,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  logLevel: 'warning',
  external: ['onnxruntime-web'],
  mainFields: ['module', 'main'],
});
const r = spawnSync(process.execPath, [out, '--out', path.join(ts, 'src/contact/model'), ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(r.status ?? 1);
