/**
 * tools/watch.mjs, the hot-reload watcher (issue 21 part 6): `--out <folder>` writes
 * <folder>/kind-retargeting/main.mjs (the folder a project that installed the package by git URL points
 * KindRuntime at), the bundle written is the complete fresh build, every rebuild replaces the file
 * atomically (a reader polling it all the while only ever sees whole builds; no temporary file stays), and
 * SIGINT/SIGTERM stop it cleanly. Rebuilds are driven through `--entry` with a scratch module, so the test
 * never edits TsProject/src.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { freshBundle } from './unity.helpers';

const REPO = path.resolve(__dirname, '../..');
const WATCH = path.join(REPO, 'tools/watch.mjs');

interface Watcher {
  proc: ChildProcess;
  lines: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startWatcher(args: string[]): Watcher {
  const proc = spawn(process.execPath, [WATCH, ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let buf = '';
  const take = (d: Buffer) => {
    buf += d.toString('utf8');
    const parts = buf.split('\n');
    buf = parts.pop() ?? '';
    lines.push(...parts);
  };
  proc.stdout?.on('data', take);
  proc.stderr?.on('data', take);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { proc, lines, exited };
}

/** Resolves once `count` lines match `re` (polling every 10 ms, calling `each` meanwhile); rejects after 60 s. */
async function waitLines(w: Watcher, re: RegExp, count: number, each?: () => void): Promise<void> {
  const until = Date.now() + 60_000;
  while (w.lines.filter((l) => re.test(l)).length < count) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${re}; output:\n${w.lines.join('\n')}`);
    each?.();
    await new Promise((r) => setTimeout(r, 10));
  }
}

const dirs: string[] = [];
function scratch(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-watch-'));
  dirs.push(d);
  return d;
}
const running: Watcher[] = [];
afterAll(async () => {
  for (const w of running) if (w.proc.exitCode === null && w.proc.signalCode === null) w.proc.kill('SIGKILL');
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

test('--out <folder> writes <folder>/kind-retargeting/main.mjs: the complete fresh bundle, nothing else; SIGINT stops it', async () => {
  const dir = scratch();
  const w = startWatcher(['--out', dir]);
  running.push(w);
  await waitLines(w, /rebuilt .*main\.mjs/, 1);
  const out = path.join(dir, 'kind-retargeting', 'main.mjs');
  expect(fs.readFileSync(out, 'utf8') === freshBundle()).toBe(true);
  expect(fs.readdirSync(dir)).toEqual(['kind-retargeting']);
  expect(fs.readdirSync(path.join(dir, 'kind-retargeting'))).toEqual(['main.mjs']);
  w.proc.kill('SIGINT');
  const { code } = await w.exited;
  expect(code).toBe(0);
  expect(w.lines).toContain('watch: stopped (SIGINT)');
  expect(fs.readdirSync(path.join(dir, 'kind-retargeting'))).toEqual(['main.mjs']);
});

test('every rebuild replaces the bundle atomically: a reader polling it only ever sees whole builds; SIGTERM stops it', async () => {
  const dir = scratch();
  const entry = path.join(dir, 'entry.ts');
  const N = 2_000_000; // a 2 MB bundle: a write that is not atomic would be caught half-way
  const version = (i: number) => `export const v: string = "${i}:${'x'.repeat(N)}:${i}";\n`;
  fs.writeFileSync(entry, version(0));
  const outDir = path.join(dir, 'unity');
  const out = path.join(outDir, 'kind-retargeting', 'main.mjs');
  const w = startWatcher(['--out', outDir, '--entry', entry]);
  running.push(w);
  // esbuild's output for the entry: the banner, a path comment, `var v = "...";`, the export statement
  const whole = new RegExp(
    `^// kind-retargeting Unity bundle[^\\n]*\\n\\n// [^\\n]*entry\\.ts\\nvar v = "(\\d+):x{${N}}:\\1";\\nexport \\{\\n  v\\n\\};\\n$`,
  );
  const seen = new Set<string>();
  let reads = 0;
  const check = () => {
    let text: string;
    try {
      text = fs.readFileSync(out, 'utf8');
    } catch {
      return; // not written yet
    }
    reads++;
    const m = whole.exec(text);
    if (!m) throw new Error(`a partial or foreign bundle was read (${text.length} chars)`);
    seen.add(m[1]);
  };
  await waitLines(w, /rebuilt /, 1, check);
  for (let i = 1; i <= 5; i++) {
    fs.writeFileSync(entry, version(i));
    await waitLines(w, /rebuilt /, i + 1, check);
    check();
    expect(seen.has(String(i))).toBe(true);
  }
  expect(reads).toBeGreaterThan(10);
  // only the bundle in its folder: no temporary file left by any of the six writes
  expect(fs.readdirSync(path.join(outDir, 'kind-retargeting'))).toEqual(['main.mjs']);
  // a failed build leaves the last good bundle
  fs.writeFileSync(entry, 'export const v: string = ;\n');
  await waitLines(w, /rebuild failed/, 1, check);
  expect(whole.exec(fs.readFileSync(out, 'utf8'))?.[1]).toBe('5');
  w.proc.kill('SIGTERM');
  const { code } = await w.exited;
  expect(code).toBe(0);
  expect(w.lines).toContain('watch: stopped (SIGTERM)');
  expect(fs.readdirSync(path.join(outDir, 'kind-retargeting'))).toEqual(['main.mjs']);
});

test('a bad option is refused with exit code 2 and names the option', () => {
  const r = spawnSync(process.execPath, [WATCH, '--bogus'], { cwd: REPO, encoding: 'utf8' });
  expect(r.status).toBe(2);
  expect(r.stderr).toContain('unknown option --bogus (expected --out <folder>, --entry <file>)');
  const r2 = spawnSync(process.execPath, [WATCH, '--out'], { cwd: REPO, encoding: 'utf8' });
  expect(r2.status).toBe(2);
  expect(r2.stderr).toContain('--out needs a value');
});
