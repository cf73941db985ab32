#!/usr/bin/env node
// Builds the library of the npm package `kind-retargeting` into TsProject/lib (not committed; run by
// `npm pack` / `npm publish` through TsProject's "prepack", or `npm run build:lib`):
//   lib/esm/<entry>.mjs   ES modules, one per entry of package.json "exports", code shared between entries
//                         in lib/esm/chunks (esbuild code splitting: one copy of each class, so `instanceof`
//                         holds across entries); dependencies stay imports (not bundled); source maps
//   lib/cjs/**.js         CommonJS, one file per source file (the src tree under lib/cjs, same module
//                         identity across entries), source maps
//   lib/types/**.d.ts     declarations from tsc (the src tree under lib/types)
// The entries (ENTRIES below) are the package's public surface: the engine-free library (src/lib), the
// Node-only file loading (src/io/node), webcam mocap (src/mocap), the drawing puppet (src/puppet), and the
// contact model in onnxruntime-web (src/contact/onnxRunner.ts, an optional dependency).
// `node tools/build-lib.mjs [<outDir>]` (default TsProject/lib). Prints each part's size.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ts = path.join(root, 'TsProject');
const require = createRequire(path.join(ts, 'package.json'));
const esbuild = require('esbuild');
const out = path.resolve(process.argv[2] ?? path.join(ts, 'lib'));

/** Entry name (lib/esm/<name>.mjs) -> source; package.json "exports" maps the subpaths onto these. */
export const ENTRIES = {
  index: 'src/lib/index.ts',
  node: 'src/io/node/index.ts',
  mocap: 'src/mocap/index.ts',
  puppet: 'src/puppet/index.ts',
  onnx: 'src/contact/onnxRunner.ts',
};

// ES modules have no __dirname: the one library module that uses it (src/io/node/files.ts, to find the
// embedded default sample upwards from itself) gets it from import.meta.url in the ESM build only.
const dirnameShim = {
  name: 'esm-dirname',
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!/\b__dirname\b/.test(text)) return undefined;
      return {
        loader: 'ts',
        contents: `import { fileURLToPath as __kindFileURLToPath } from 'node:url';\nconst __dirname = __kindFileURLToPath(new URL('.', import.meta.url));\n${text}`,
      };
    });
  },
};

rmSync(out, { recursive: true, force: true });
const t0 = Date.now();
const esm = await esbuild.build({
  absWorkingDir: ts,
  entryPoints: Object.entries(ENTRIES).map(([name, file]) => ({ in: file, out: name })),
  outdir: path.join(out, 'esm'),
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'neutral',
  target: 'es2020',
  packages: 'external',
  sourcemap: true,
  metafile: true,
  logLevel: 'warning',
  plugins: [dirnameShim],
});

// CommonJS: the same sources one file each (every source the ESM build read), require() kept relative.
const sources = Object.keys(esm.metafile.inputs)
  .filter((f) => f.startsWith('src/') && f.endsWith('.ts'))
  .map((f) => path.join(ts, f));
await esbuild.build({
  absWorkingDir: ts,
  entryPoints: sources,
  outbase: path.join(ts, 'src'),
  outdir: path.join(out, 'cjs'),
  bundle: false,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
});
writeFileSync(path.join(out, 'cjs', 'package.json'), '{ "type": "commonjs" }\n');
writeFileSync(path.join(out, 'esm', 'package.json'), '{ "type": "module" }\n');
const t1 = Date.now();

// Declarations: tsc over the entries (it follows their imports), declarations only.
const tsconfig = path.join(out, 'tsconfig.types.json');
writeFileSync(
  tsconfig,
  JSON.stringify(
    {
      extends: path.join(ts, 'tsconfig.json'),
      compilerOptions: {
        noEmit: false,
        declaration: true,
        emitDeclarationOnly: true,
        rootDir: path.join(ts, 'src'),
        outDir: path.join(out, 'types'),
        types: ['node'],
        typeRoots: [path.join(ts, 'node_modules/@types')],
        incremental: false,
      },
      files: [
        ...Object.values(ENTRIES).map((f) => path.join(ts, f)),
        path.join(ts, 'src/io/node/draco3dgltf.d.ts'),
        path.join(ts, 'src/io/node/gifenc.d.ts'),
      ],
      include: [],
    },
    null,
    2,
  ),
);
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', tsconfig], { stdio: 'inherit' });
rmSync(tsconfig);
const t2 = Date.now();

function size(dir) {
  let bytes = 0;
  let files = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      const s = size(p);
      bytes += s.bytes;
      files += s.files;
    } else {
      bytes += statSync(p).size;
      files++;
    }
  }
  return { bytes, files };
}
mkdirSync(out, { recursive: true });
for (const part of ['esm', 'cjs', 'types']) {
  const s = size(path.join(out, part));
  console.log(`lib/${part}: ${s.files} files, ${(s.bytes / 1024).toFixed(0)} KiB`);
}
console.log(`library built in ${((t1 - t0) / 1000).toFixed(1)} s (esbuild) + ${((t2 - t1) / 1000).toFixed(1)} s (tsc declarations)`);
