/**
 * Run an allocation probe in a plain Node process, the way the code runs in production: the probe
 * (TypeScript importing from src/) is bundled with esbuild like the shipped bundles, run with
 * `node` and `ALLOC_PROBE_FLAGS` (V8 optimises on the main thread, so the reading does not depend on how
 * busy the machine is: see ./alloc), and prints a JSON object of measurements (use `bytesPerCall` from
 * ./alloc). Jest's module sandbox changes how V8 optimises global builtins (a `Math.round` call there
 * may box its result), so allocation-free code is measured outside it.
 *
 * `options.plant` inserts code into a source file as it is bundled (the file on disk is untouched): the
 * tests that show a probe catches a real allocation plant one in the per-frame path this way.
 * `options.nodeFlags` are added after the probe's own flags (e.g. V8's
 * `--concurrent-recompilation-delay=N`, which stands in for a machine too busy to compile).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ALLOC_PROBE_FLAGS } from './alloc';

const ROOT = path.resolve(__dirname, '../..');

/** Code inserted into a source file at bundling: right after the first match of `after` in `file`. */
export interface Plant {
  /** Path of the source file (absolute, or relative to TsProject). */
  file: string;
  /** Text or pattern in that file; the first match must exist. */
  after: string | RegExp;
  /** The code inserted after it. */
  code: string;
}

export interface AllocProbeOptions {
  plant?: Plant[];
  nodeFlags?: string[];
  /**
   * The probe kills itself (SIGKILL) once it has printed its result: a process whose background
   * compiler is asleep (`--concurrent-recompilation-delay`) cannot exit until every queued job wakes.
   */
  killAfterResult?: boolean;
}

export function runAllocProbe(body: string, options: AllocProbeOptions = {}): Record<string, number> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const esbuild = require('esbuild') as typeof import('esbuild');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-alloc-'));
  try {
    const entry = path.join(dir, 'probe.ts');
    fs.writeFileSync(
      entry,
      `import { bytesPerCall } from ${JSON.stringify(path.join(ROOT, 'test/helpers/alloc'))};\nconst result: Record<string, number> = {};\n${body}\nconsole.log(JSON.stringify(result));\n${
        options.killAfterResult ? "process.kill(process.pid, 'SIGKILL');\n" : ''
      }`,
    );
    const out = path.join(dir, 'probe.cjs');
    const buildOptions = {
      entryPoints: [entry],
      outfile: out,
      bundle: true,
      platform: 'node' as const,
      format: 'cjs' as const,
      mainFields: ['module', 'main'],
      logLevel: 'error' as const,
      absWorkingDir: ROOT,
      nodePaths: [path.join(ROOT, 'node_modules')],
    };
    if (options.plant?.length) buildPlanted(buildOptions, options.plant, dir);
    else esbuild.buildSync(buildOptions);
    const flags = [...ALLOC_PROBE_FLAGS, ...(options.nodeFlags ?? [])];
    let text: string;
    try {
      text = execFileSync(process.execPath, [...flags, out], { encoding: 'utf8' });
    } catch (e) {
      const err = e as { signal?: string; stdout?: string };
      if (!options.killAfterResult || err.signal !== 'SIGKILL' || !err.stdout?.trim()) throw e;
      text = err.stdout; // pipes are written synchronously on Linux: the result line is complete
    }
    return JSON.parse(text.trim().split('\n').pop()!);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * esbuild's synchronous API takes no plugins, so a planted bundle is built by a child Node process that
 * runs `build` with an onLoad plugin (the plants are passed as JSON, patterns as source and flags).
 */
function buildPlanted(buildOptions: Record<string, unknown>, plants: Plant[], dir: string): void {
  const spec = plants.map((p) => ({
    file: path.resolve(ROOT, p.file),
    after: typeof p.after === 'string' ? { text: p.after } : { source: p.after.source, flags: p.after.flags },
    code: p.code,
  }));
  const script = path.join(dir, 'build.cjs');
  fs.writeFileSync(
    script,
    `const esbuild = require(${JSON.stringify(path.join(ROOT, 'node_modules/esbuild'))});
const fs = require('node:fs');
const plants = ${JSON.stringify(spec)};
const planted = new Set();
const plugin = { name: 'plant', setup(build) {
  build.onLoad({ filter: /\\.ts$/ }, (args) => {
    const list = plants.filter((p) => p.file === args.path);
    if (list.length === 0) return undefined;
    let text = fs.readFileSync(args.path, 'utf8');
    for (const p of list) {
      let index = -1, length = 0;
      if (p.after.text !== undefined) { index = text.indexOf(p.after.text); length = p.after.text.length; }
      else { const m = new RegExp(p.after.source, p.after.flags).exec(text); if (m) { index = m.index; length = m[0].length; } }
      if (index < 0) throw new Error('plant: ' + JSON.stringify(p.after) + ' not found in ' + args.path);
      text = text.slice(0, index + length) + p.code + text.slice(index + length);
      planted.add(p.file);
    }
    return { contents: text, loader: 'ts' };
  });
} };
esbuild.build({ ...${JSON.stringify(buildOptions)}, plugins: [plugin] }).then(() => {
  for (const p of plants) if (!planted.has(p.file)) throw new Error('plant: ' + p.file + ' is not in the probe bundle');
}).catch((e) => { console.error(e.message); process.exit(1); });
`,
  );
  execFileSync(process.execPath, [script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}
