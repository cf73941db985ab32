/** Build test/helpers/contactOrtProbe.ts once (esbuild, onnxruntime-web external) and run its commands in Node. */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
let built: string | null = null;

function build(): string {
  if (built) return built;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const esbuild = require('esbuild') as typeof import('esbuild');
  const dir = path.join(ROOT, 'dist/probes');
  fs.mkdirSync(dir, { recursive: true });
  const out = path.join(dir, `contact-ort-${process.pid}.cjs`);
  esbuild.buildSync({
    entryPoints: [path.join(ROOT, 'test/helpers/contactOrtProbe.ts')],
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['onnxruntime-web'],
    mainFields: ['module', 'main'],
    logLevel: 'error',
    absWorkingDir: ROOT,
  });
  built = out;
  return out;
}

/** Run a probe command; returns its printed JSON. */
export function runOrtProbe(...args: string[]): unknown {
  const text = execFileSync(process.execPath, [build(), ...args], {
    encoding: 'utf8',
    env: { ...process.env, KIND_TSPROJECT: ROOT },
    maxBuffer: 64 << 20,
  });
  return JSON.parse(text.trim().split('\n').pop() as string);
}

afterAll(() => {
  if (built) fs.rmSync(built, { force: true });
});
