/**
 * Run an allocation probe in a plain Node process, the way the code runs in production: the probe
 * (TypeScript importing from src/) is bundled with esbuild like the shipped bundles, run with
 * `node --expose-gc`, and prints a JSON object of measurements (use `bytesPerCall` from ./alloc).
 * Jest's module sandbox changes how V8 optimises global builtins (a `Math.round` call there may box
 * its result), so allocation-free code is measured outside it.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

export function runAllocProbe(body: string): Record<string, number> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const esbuild = require('esbuild') as typeof import('esbuild');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-alloc-'));
  try {
    const entry = path.join(dir, 'probe.ts');
    fs.writeFileSync(
      entry,
      `import { bytesPerCall } from ${JSON.stringify(path.join(ROOT, 'test/helpers/alloc'))};\nconst result: Record<string, number> = {};\n${body}\nconsole.log(JSON.stringify(result));\n`,
    );
    const out = path.join(dir, 'probe.cjs');
    esbuild.buildSync({
      entryPoints: [entry],
      outfile: out,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      mainFields: ['module', 'main'],
      logLevel: 'error',
      absWorkingDir: ROOT,
      nodePaths: [path.join(ROOT, 'node_modules')],
    });
    const text = execFileSync(process.execPath, ['--expose-gc', out], { encoding: 'utf8' });
    return JSON.parse(text.trim().split('\n').pop()!);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
