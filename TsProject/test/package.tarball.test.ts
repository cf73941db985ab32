/**
 * The npm package from outside (issue 25 item 2). A staging copy of the package is built in a temporary
 * folder (the `kind` command, its workers and pages by tools/build.mjs, the library by tools/build-lib.mjs;
 * never the repository's own dist/, which other suites rebuild), packed with `npm pack`, and installed
 * into an empty temporary folder outside the repository with `npm install --omit=optional --prefer-offline`
 * (dependencies from npm's cache when it has them, else the registry: CI has it). There:
 * - `npx kind retarget` on the embedded default writes a real GLB and BVH;
 * - the commands that need an optional dependency that is not installed say which one;
 * - `require('kind-retargeting')` (CommonJS) works;
 * - a TypeScript program importing `kind-retargeting` and `kind-retargeting/node` type-checks (tsc of this
 *   repository, strict, library .d.ts checked too) and runs: retarget a clip, run the hub a few frames;
 * - esbuild bundles a browser entry importing the browser-safe entries with no Node builtin from our code,
 *   and the bundle runs in a bare V8 context (no require, process, Buffer).
 * Skipped with a printed reason when npm cannot reach the registry for dependencies missing from its
 * cache. Measured 105 s (190 s with four other suites' builds on the same 2 cores): building the stage
 * (56-80 s, about 50 s of it tsc emitting the declarations), npm install (5-8 s), the rest under a minute.
 */
import { execFileSync, type SpawnSyncReturns, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vm from 'node:vm';
import { ONNX_MISSING } from '../src/cli/contactSource';
import { parseBvh } from '../src/io';

const TS = path.resolve(__dirname, '..');
const ROOT = path.resolve(TS, '..');
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-pkg-'));
const STAGE = path.join(TMP, 'stage');
const APP = path.join(TMP, 'app');

/** The environment for child npm/node runs: none of the `npm_*` variables of the `npm test` around us. */
const ENV: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) && k !== 'INIT_CWD'),
);

function run(cmd: string, args: string[], cwd: string, timeout = 300_000): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, { cwd, env: ENV, encoding: 'utf8', timeout, maxBuffer: 64 << 20 });
}

function ok(r: SpawnSyncReturns<string>, what: string): string {
  if (r.status !== 0) throw new Error(`${what} failed (${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

function dirSize(dir: string): number {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) n += dirSize(p);
    else if (e.isFile()) n += fs.statSync(p).size;
  }
  return n;
}

const MB = (n: number) => `${(n / 1e6).toFixed(2)} MB`;

interface PackFile {
  path: string;
  size: number;
}
let packed: { filename: string; size: number; unpackedSize: number; files: PackFile[] };
let skipReason: string | null = null;
const log: string[] = [];
const t0 = Date.now();

beforeAll(() => {
  // the staging package: what package.json "files" names, built fresh
  fs.mkdirSync(STAGE, { recursive: true });
  const pkg = JSON.parse(fs.readFileSync(path.join(TS, 'package.json'), 'utf8'));
  fs.writeFileSync(path.join(STAGE, 'package.json'), JSON.stringify(pkg, null, 2));
  for (const f of [
    'bin/kind.cjs',
    'CHANGELOG.md',
    'README.md',
    'LICENSE',
    'src/contact/model/contact.onnx',
    'src/contact/model/MODEL_CARD.md',
  ]) {
    fs.mkdirSync(path.dirname(path.join(STAGE, f)), { recursive: true });
    fs.copyFileSync(path.join(TS, f), path.join(STAGE, f));
  }
  fs.cpSync(path.join(TS, 'assets/default'), path.join(STAGE, 'assets/default'), { recursive: true });
  const build = path.join(ROOT, 'tools/build.mjs');
  execFileSync(process.execPath, [build, 'cli', path.join(STAGE, 'dist')], { stdio: 'ignore' });
  execFileSync(process.execPath, [build, 'web', path.join(STAGE, 'dist/web')], { stdio: 'ignore' });
  execFileSync(process.execPath, [path.join(ROOT, 'tools/build-lib.mjs'), path.join(STAGE, 'lib')], {
    stdio: 'ignore',
  });
  log.push(`staged and built in ${((Date.now() - t0) / 1000).toFixed(0)} s`);

  const out = ok(
    run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', TMP], STAGE),
    'npm pack',
  );
  packed = JSON.parse(out)[0];

  fs.mkdirSync(APP);
  fs.writeFileSync(
    path.join(APP, 'package.json'),
    JSON.stringify({ name: 'outside-app', version: '1.0.0', private: true, type: 'module' }),
  );
  const t1 = Date.now();
  const inst = run(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--omit=optional',
      '--no-audit',
      '--no-fund',
      path.join(TMP, packed.filename),
    ],
    APP,
  );
  if (inst.status !== 0) {
    if (/ENOTFOUND|EAI_AGAIN|ENOTCACHED|ECONNREFUSED|ETIMEDOUT|network/i.test(inst.stderr)) {
      skipReason = `npm could not reach the registry for dependencies missing from its cache:\n${inst.stderr.slice(0, 400)}`;
      console.warn(`[skip] package tarball test: ${skipReason}`);
      return;
    }
    ok(inst, 'npm install of the tarball');
  }
  log.push(`npm install ${((Date.now() - t1) / 1000).toFixed(0)} s`);
}, 900_000);

afterAll(() => {
  if (log.length)
    console.log(`package tarball test: ${log.join('; ')}; total ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  fs.rmSync(TMP, { recursive: true, force: true });
});

const itInstalled = (name: string, fn: () => void | Promise<void>) =>
  it(name, async () => {
    if (skipReason) return;
    await fn();
  });

it('the tarball holds the library, the command and its assets, and nothing else', () => {
  const files = packed.files.map((f) => f.path).sort();
  for (const f of [
    'package.json',
    'CHANGELOG.md',
    'README.md',
    'LICENSE',
    'bin/kind.cjs',
    'dist/kind.cjs',
    'dist/qaWorker.cjs',
    'dist/cleanupWorker.cjs',
    'dist/draco_decoder_gltf.wasm',
    'dist/web/index.html',
    'dist/web/viewer.js',
    'dist/web/puppet/puppet.js',
    'dist/web/mocap/mocap.js',
    'assets/default/default-walk.bvh',
    'assets/default/default-avatar.glb',
    'src/contact/model/contact.onnx',
    'src/contact/model/MODEL_CARD.md',
    'lib/esm/index.mjs',
    'lib/esm/index.mjs.map',
    'lib/esm/node.mjs',
    'lib/cjs/lib/index.js',
    'lib/cjs/lib/index.js.map',
    'lib/types/lib/index.d.ts',
    'lib/types/io/node/index.d.ts',
  ])
    expect(files).toContain(f);
  // no tests, benchmarks, training, data, TypeScript sources, CLI source maps or the 9 MB pose model
  const stray = files.filter(
    (f) =>
      /^(test|bench|train|tools|data|node_modules)\//.test(f) ||
      /^src\/.*\.ts$/.test(f) ||
      /^dist\/.*\.map$/.test(f) ||
      f.startsWith('dist/models/') ||
      f === 'dist/bench.cjs',
  );
  expect(stray).toEqual([]);
  const pkg = JSON.parse(fs.readFileSync(path.join(TS, 'package.json'), 'utf8'));
  for (const [sub, target] of Object.entries(
    pkg.exports as Record<string, string | Record<string, string>>,
  )) {
    const targets = typeof target === 'string' ? [target] : Object.values(target);
    for (const t of targets) expect([sub, files.includes(t.replace(/^\.\//, ''))]).toEqual([sub, true]);
  }
  log.push(`tarball ${MB(packed.size)}, unpacked ${MB(packed.unpackedSize)}, ${files.length} files`);
  expect(packed.size).toBeLessThan(10e6);
});

itInstalled('installs without the optional dependencies, outside the repository', () => {
  expect(path.relative(ROOT, APP).startsWith('..')).toBe(true);
  const nm = path.join(APP, 'node_modules');
  expect(fs.existsSync(path.join(nm, 'kind-retargeting/package.json'))).toBe(true);
  for (const opt of [
    'onnxruntime-web',
    '@mediapipe/pose',
    '@mediapipe/tasks-vision',
    'draco3dgltf',
    'meshoptimizer',
  ])
    expect([opt, fs.existsSync(path.join(nm, opt))]).toEqual([opt, false]);
  const size = dirSize(nm);
  log.push(
    `installed node_modules ${MB(size)} (kind-retargeting ${MB(dirSize(path.join(nm, 'kind-retargeting')))})`,
  );
  expect(size).toBeLessThan(60e6);
});

itInstalled('npx kind retarget on the embedded default writes a real GLB and BVH', () => {
  const r = ok(run('npx', ['--no-install', 'kind', 'retarget', '-o', 'out'], APP), 'npx kind retarget');
  expect(r).toContain("retargeted 'default-walk'");
  const glb = fs.readFileSync(path.join(APP, 'out/default-walk.glb'));
  expect(glb.subarray(0, 4).toString('latin1')).toBe('glTF');
  expect(glb.readUInt32LE(4)).toBe(2);
  expect(glb.readUInt32LE(8)).toBe(glb.length);
  const jsonLength = glb.readUInt32LE(12);
  expect(glb.readUInt32LE(16)).toBe(0x4e4f534a); // 'JSON'
  const gltf = JSON.parse(glb.subarray(20, 20 + jsonLength).toString('utf8'));
  expect(gltf.animations).toHaveLength(1);
  expect(gltf.animations[0].channels.length).toBeGreaterThan(20);
  expect(gltf.skins[0].joints).toHaveLength(34);
  const { clip } = parseBvh(fs.readFileSync(path.join(APP, 'out/default-walk.bvh'), 'utf8'), {
    fileName: 'out.bvh',
  });
  expect(clip.frameCount).toBe(121);
  expect(clip.skeleton.boneCount).toBe(34);
  for (const v of clip.rotations) expect(Number.isFinite(v)).toBe(true);
  const summary = JSON.parse(fs.readFileSync(path.join(APP, 'out/summary.json'), 'utf8'));
  expect(summary).toBeTruthy();
});

itInstalled('a command that needs a missing optional dependency names it; the rest falls back', () => {
  const model = 'node_modules/kind-retargeting/src/contact/model/contact.onnx';
  const take = 'node_modules/kind-retargeting/assets/default/default-slide.bvh';
  const onnx = run('npx', ['--no-install', 'kind', 'cleanup', take, '-o', 'c1', '--model-file', model], APP);
  expect(onnx.status).toBe(1);
  expect(onnx.stderr).toContain(ONNX_MISSING);
  expect(fs.existsSync(path.join(APP, 'c1'))).toBe(false);
  // the shipped model without onnxruntime-web: its pure-TS forward pass
  const learned = ok(
    run('npx', ['--no-install', 'kind', 'cleanup', take, '-o', 'c2', '--model', 'learned'], APP),
    'cleanup',
  );
  expect(learned).toContain('wrote c2/default-slide.bvh');
  // the library's glTF decoders (the command has both bundled)
  fs.writeFileSync(
    path.join(APP, 'decoders.mjs'),
    `import { NODE_GLTF_DECODERS } from 'kind-retargeting/node';
const why = (p) => p.then(() => 'loaded', (e) => e.message);
console.log(JSON.stringify({ draco: await why(NODE_GLTF_DECODERS.draco()), meshopt: await why(NODE_GLTF_DECODERS.meshopt()) }));`,
  );
  expect(JSON.parse(ok(run(process.execPath, ['decoders.mjs'], APP), 'decoders'))).toEqual({
    draco:
      'this glTF uses Draco mesh compression (KHR_draco_mesh_compression); decoding it needs the optional package draco3dgltf, which is not installed (npm install draco3dgltf)',
    meshopt:
      'this glTF uses meshopt compression (EXT_meshopt_compression); decoding it needs the optional package meshoptimizer, which is not installed (npm install meshoptimizer)',
  });
  const mocap = run('npx', ['--no-install', 'kind', 'mocap', '--port', '0'], APP, 60_000);
  expect(mocap.status).not.toBe(0);
  expect(mocap.stderr).toContain(
    'the puppet and mocap pages need @mediapipe/pose and @mediapipe/tasks-vision, optional dependencies of kind-retargeting (npm install @mediapipe/pose @mediapipe/tasks-vision)',
  );
});

itInstalled('CommonJS: require("kind-retargeting") and require("kind-retargeting/node")', () => {
  const code = `const k = require('kind-retargeting'); const n = require('kind-retargeting/node');
const fs = require('node:fs'); const path = require('node:path');
const { clip } = k.parseBvh(fs.readFileSync(path.join(n.defaultAssetsDir(), 'default-walk.bvh'), 'utf8'), { fileName: 'walk.bvh' });
console.log(JSON.stringify({ frames: clip.frameCount, bones: clip.skeleton.boneCount, hips: k.HumanBodyBones.Hips, dir: n.defaultAssetsDir() }));`;
  fs.writeFileSync(path.join(APP, 'cjs.cjs'), code);
  const r = JSON.parse(ok(run(process.execPath, ['cjs.cjs'], APP), 'CommonJS program'));
  expect(r).toEqual({
    frames: 121,
    bones: 21,
    hips: 0,
    dir: path.join(fs.realpathSync(APP), 'node_modules/kind-retargeting/assets/default'),
  });
});

const PROGRAM = `import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Clip, HumanBodyBones, autoMapHumanoid, measureQuality, parseBvh, readFrame, requireHumanoid,
  RetargetHub, retargetClip, upAxisRotation, withHumanoid,
} from 'kind-retargeting';
import { defaultAssetsDir, loadAvatar } from 'kind-retargeting/node';

const dir: string = defaultAssetsDir();
const { clip } = parseBvh(readFileSync(join(dir, 'default-walk.bvh'), 'utf8'), { fileName: 'walk.bvh' });
const map = autoMapHumanoid(clip.skeleton, { fileName: 'walk.bvh' });
requireHumanoid(map, 'walk.bvh');
const source: Clip = { ...clip, skeleton: withHumanoid(clip.skeleton, map.humanoid) };
const avatar = await loadAvatar(join(dir, 'default-avatar.glb'));
const { clip: out, retargeter } = retargetClip(source, avatar.skeleton, { groundContact: true });
const quality = measureQuality(source, out, { sourceAlignment: upAxisRotation(retargeter.info!.sourceUp) });

const hub = new RetargetHub(source.skeleton, avatar.skeleton, { ik: 'auto', fingers: 'none' });
const n = source.skeleton.boneCount;
const rot = new Float64Array(4 * n);
const pos = new Float64Array(3 * n);
readFrame(source, 0, rot, pos);
hub.calibrate({ rotations: rot, translations: pos });
let worstNorm = 0;
let finite = true;
for (let f = 0; f < 10; f++) {
  readFrame(source, f, rot, pos);
  hub.update(rot, pos, source.frameTime);
  const q = hub.localRotations;
  for (let b = 0; b < q.length / 4; b++) {
    const len = Math.hypot(q[4 * b], q[4 * b + 1], q[4 * b + 2], q[4 * b + 3]);
    worstNorm = Math.max(worstNorm, Math.abs(len - 1));
  }
  for (const v of hub.localTranslations) finite &&= Number.isFinite(v);
}
console.log(JSON.stringify({
  sourceBones: n,
  avatarBones: avatar.skeleton.boneCount,
  frames: out.frameCount,
  hipsMapped: avatar.skeleton.humanoid[HumanBodyBones.Hips] >= 0,
  thighMaxDeg: quality.segments.leftThigh!.maxDeg,
  hubRotations: hub.localRotations.length,
  worstNorm,
  finite,
}));
`;

itInstalled(
  'a TypeScript program importing kind-retargeting type-checks against the installed types and runs',
  () => {
    fs.writeFileSync(path.join(APP, 'app.ts'), PROGRAM);
    fs.writeFileSync(
      path.join(APP, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          // glTF Transform's declarations name Float16Array (TypeScript's esnext.float16 lib)
          lib: ['ES2022', 'ESNext.Float16'],
          strict: true,
          skipLibCheck: false,
          typeRoots: [path.join(TS, 'node_modules/@types')],
          types: ['node'],
          outDir: 'build',
        },
        files: ['app.ts'],
      }),
    );
    ok(
      run(process.execPath, [path.join(TS, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], APP),
      'tsc',
    );
    const r = JSON.parse(ok(run(process.execPath, ['build/app.js'], APP), 'the compiled program'));
    expect(r.sourceBones).toBe(21);
    expect(r.avatarBones).toBe(34);
    expect(r.frames).toBe(121);
    expect(r.hipsMapped).toBe(true);
    expect(r.thighMaxDeg).toBeLessThan(1);
    expect(r.hubRotations).toBe(4 * 34);
    expect(r.worstNorm).toBeLessThan(1e-6);
    expect(r.finite).toBe(true);
    // a type error in a consumer is caught through the installed declarations
    fs.writeFileSync(path.join(APP, 'app.ts'), `${PROGRAM}\nconst wrong: string = HumanBodyBones.Hips;\n`);
    const bad = run(
      process.execPath,
      [path.join(TS, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'],
      APP,
    );
    expect(bad.status).not.toBe(0);
    // (HumanBodyBones.Hips is typed, not `any`: the one error is the consumer's)
    expect(bad.stdout.trim()).toMatch(
      /^app\.ts\(\d+,7\): error TS2322: Type 'number' is not assignable to type 'string'\.$/,
    );
  },
);

const BROWSER = `import { autoMapHumanoid, parseBvh, readFrame, RetargetHub, retargetClip, withHumanoid } from 'kind-retargeting';
import { MocapHubDriver } from 'kind-retargeting/mocap';
import { POSE_LANDMARK_COUNT } from 'kind-retargeting/puppet';
const text = globalThis.bvhText;
const { clip } = parseBvh(text, { fileName: 'walk.bvh' });
const map = autoMapHumanoid(clip.skeleton, { fileName: 'walk.bvh' });
const source = { ...clip, skeleton: withHumanoid(clip.skeleton, map.humanoid) };
const { clip: out } = retargetClip(source, source.skeleton);
const hub = new RetargetHub(source.skeleton, source.skeleton, {});
const rot = new Float64Array(4 * clip.skeleton.boneCount);
const pos = new Float64Array(3 * clip.skeleton.boneCount);
readFrame(source, 0, rot, pos);
hub.calibrate({ rotations: rot, translations: pos });
for (let f = 0; f < 5; f++) { readFrame(source, f, rot, pos); hub.update(rot, pos, 1 / 30); }
globalThis.result = { frames: out.frameCount, hub: Array.from(hub.localRotations.subarray(0, 4)), driver: typeof MocapHubDriver, landmarks: POSE_LANDMARK_COUNT };
`;

itInstalled(
  'a browser bundle of the browser-safe entries pulls in no Node builtin of ours and runs in a bare V8 context',
  async () => {
    const esbuild = require('esbuild') as typeof import('esbuild');
    fs.writeFileSync(path.join(APP, 'browser.js'), BROWSER);
    const nodeImports: string[] = [];
    const r = await esbuild.build({
      absWorkingDir: APP,
      entryPoints: ['browser.js'],
      bundle: true,
      platform: 'browser',
      format: 'iife',
      write: false,
      metafile: true,
      logLevel: 'silent',
      plugins: [
        {
          // every Node builtin asked for, by whom; glTF Transform's NodeIO (never constructed by our
          // browser-safe code) imports node:fs and node:path lazily: those become empty modules
          name: 'node-builtins',
          setup(b) {
            b.onResolve({ filter: /^(node:|fs$|path$|os$|url$|worker_threads$|child_process$)/ }, (a) => {
              nodeImports.push(`${path.relative(APP, a.importer)} -> ${a.path}`);
              return { path: a.path, namespace: 'stub' };
            });
            b.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({
              contents: 'export default {}',
              loader: 'js',
            }));
          },
        },
      ],
    });
    expect(nodeImports.filter((i) => !i.startsWith('node_modules/@gltf-transform/core/'))).toEqual([]);
    expect(Object.keys(r.metafile.inputs).some((f) => f.includes('kind-retargeting/lib/esm/'))).toBe(true);
    expect(Object.keys(r.metafile.inputs).filter((f) => f.includes('kind-retargeting/lib/cjs/'))).toEqual([]);
    const code = r.outputFiles[0].text;
    const context = vm.createContext({
      bvhText: fs.readFileSync(path.join(TS, 'assets/default/default-walk.bvh'), 'utf8'),
    });
    vm.runInContext(code, context);
    const result = vm.runInContext('globalThis.result', context);
    expect(result.frames).toBe(121);
    expect(Math.hypot(...result.hub)).toBeCloseTo(1, 6);
    expect(result.driver).toBe('function');
    expect(result.landmarks).toBe(33);
    log.push(`browser bundle ${MB(code.length)}`);
  },
);
