/**
 * The docs' snapshot command (tools/snapshot.mjs; docs/layout.md, moved there from the README by issue 25)
 * works as written, from TsProject where the README's commands run, and from the repository root (issue 10, item 8): the render needs Debian's
 * chromium and is skipped with a printed reason without it; finding the input from both folders is
 * checked without a browser.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runKind } from './helpers/runCli';

const TS = path.resolve(__dirname, '..');
const ROOT = path.resolve(TS, '..');
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((c) => fs.existsSync(c));
/** Under TsProject (test-output/ is ignored by git), so that a path relative to TsProject reaches it. */
const REL = path.join('test-output', `snapshot-${process.pid}`);
const DIR = path.join(TS, REL);

/** The snapshot command of docs/layout.md (the one after "needs Debian's chromium"), split into words. */
function readmeCommand(): string[] {
  const readme = fs.readFileSync(path.join(ROOT, 'docs', 'layout.md'), 'utf8');
  const m = /`(node [^`]*snapshot\.mjs [^`]*)`/.exec(readme);
  if (!m) throw new Error('docs/layout.md: no `node ... snapshot.mjs ...` command');
  return m[1].split(/\s+/);
}

describe("the docs' snapshot command (docs/layout.md)", () => {
  beforeAll(async () => {
    // what the README's first command (`npx kind retarget`) writes to out/, here in a folder of our own
    const r = await runKind(['retarget', '-o', DIR, '-q']);
    expect(r.code).toBe(0);
  });
  afterAll(() => fs.rmSync(DIR, { recursive: true, force: true }));

  it('names the script by a path that exists from TsProject, and the input as `kind retarget` writes it', () => {
    const [node, script, input] = readmeCommand();
    expect(node).toBe('node');
    expect(fs.existsSync(path.resolve(TS, script))).toBe(true);
    expect(path.resolve(TS, script)).toBe(path.join(ROOT, 'tools', 'snapshot.mjs'));
    expect(input).toBe('out/default-walk.glb');
  });

  it('from the repository root, `node tools/snapshot.mjs <path relative to TsProject>` finds the file', () => {
    const glb = path.join(REL, 'default-walk.glb');
    // a Chromium that does not exist: the input was found when that is the error
    const found = spawnSync(
      process.execPath,
      ['tools/snapshot.mjs', glb, '--chromium', '/nonexistent/chromium'],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(found.stderr.trim()).toBe('snapshot: /nonexistent/chromium: no such Chromium binary');
    expect(found.status).toBe(1);
    const missing = spawnSync(process.execPath, ['tools/snapshot.mjs', path.join(REL, 'none.glb')], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(missing.stderr.trim()).toBe(`snapshot: ${path.join(REL, 'none.glb')}: no such file`);
  });

  const withChromium = CHROMIUM ? it : it.skip;
  if (!CHROMIUM)
    console.warn(
      "[skip] the README's snapshot render: Debian's chromium is not installed (apt-get install -y chromium)",
    );
  withChromium('from TsProject, as written (input and output in our folder): a PNG contact sheet', () => {
    const [, script, , ...rest] = readmeCommand();
    const png = path.join(DIR, 'sheet.png');
    const printed = execFileSync(
      process.execPath,
      [script, path.join(REL, 'default-walk.glb'), ...rest, '--size', '128x192', '--out', png],
      { cwd: TS, encoding: 'utf8' },
    );
    expect(printed.trim()).toBe(png);
    const bytes = fs.readFileSync(png);
    expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
    // IHDR: 6 tiles of 128 x 192 (--count 6) under a caption
    const width = bytes.readUInt32BE(16);
    expect(width).toBeGreaterThanOrEqual(3 * 128);
  });
});
