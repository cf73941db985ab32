/**
 * `tools/snapshot.mjs --cleanup` (issue 11's visual check): the original and the cleaned take of a
 * `kind cleanup` run side by side. The render needs Debian's chromium and is skipped with a printed
 * reason without it; usage errors and bad inputs are checked without a browser.
 *
 * Known answer: the page measures the slide in contact (the ankle's horizontal path over the contact
 * frames of cleanup.json) on the skeletons it draws (three.js BVHLoader, placed with cleanup.json's
 * unitScale and floor); it equals cleanup.json's own `slideTotal` (the project's BVH reader) to 0.1 cm
 * only when both takes are drawn where the reader puts them, frame for frame.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CleanupFile } from '../src/cleanup-report';
import { runKind } from './helpers/runCli';

const TS = path.resolve(__dirname, '..');
const SCRIPT = path.resolve(TS, '../tools/snapshot.mjs');
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((c) => fs.existsSync(c));

describe('snapshot --cleanup', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-snapshot-cleanup-'));
  const out = path.join(dir, 'cleanup-out');
  beforeAll(async () => {
    expect((await runKind(['cleanup', '-o', out, '-q'])).code).toBe(0);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('cleanup.json names the unit and the leg bones the viewer needs', () => {
    const j = JSON.parse(fs.readFileSync(path.join(out, 'cleanup.json'), 'utf8')) as CleanupFile;
    expect(j.unitScale).toBe(0.01);
    expect(j.legs.left).toEqual({
      upperLeg: 'LThigh',
      lowerLeg: 'LShin',
      foot: 'LFoot',
      toes: 'LToe',
      toePoint: 'joint',
      toeOffset: null,
    });
    expect(j.legs.right.foot).toBe('RFoot');
  });

  it('usage and input errors: one line, exit 2 for usage, 1 for a bad input', () => {
    const run = (args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });
    const both = run(['--cleanup', out, 'x.glb']);
    expect(both.status).toBe(2);
    expect(both.stderr).toMatch(/--cleanup draws two BVH takes; 'x\.glb' is not used with it/);
    expect(run([]).status).toBe(2);
    const none = run(['--cleanup', path.join(dir, 'nothing')]);
    expect(none.status).toBe(1);
    expect(none.stderr.trim()).toBe(
      `snapshot: ${path.join(dir, 'nothing')}: no such file (--cleanup takes a kind cleanup output folder or its cleanup.json)`,
    );
    const notReport = path.join(dir, 'other.json');
    fs.writeFileSync(notReport, '{"tool": "kind qa"}');
    expect(run(['--cleanup', notReport]).stderr).toMatch(/not a kind cleanup report/);
    const badBvh = path.join(dir, 'bad.bvh');
    fs.writeFileSync(badBvh, 'MOTION\n');
    expect(run(['--cleanup', out, '--before', badBvh]).stderr.trim()).toBe(
      `snapshot: ${badBvh}:1: not a BVH file (expected HIERARCHY)`,
    );
  });

  const withChromium = CHROMIUM ? it : it.skip;
  if (!CHROMIUM)
    console.warn(
      "[skip] the snapshot --cleanup render: Debian's chromium is not installed (apt-get install -y chromium)",
    );
  withChromium('renders original | cleaned; the slide measured on the drawing equals cleanup.json', () => {
    const png = path.join(dir, 'sheet.png');
    const printed = execFileSync(
      process.execPath,
      [SCRIPT, '--cleanup', out, '--count', '4', '--size', '128x160', '--out', png],
      { encoding: 'utf8' },
    )
      .trim()
      .split('\n');
    expect(printed[0]).toBe(png);
    const m =
      /left ([\d.]+) -> ([\d.]+) cm \(cleanup\.json ([\d.]+) -> ([\d.]+)\), right ([\d.]+) -> ([\d.]+) cm \(cleanup\.json ([\d.]+) -> ([\d.]+)\)/.exec(
        printed[1],
      );
    expect(m).not.toBeNull();
    const v = m!.slice(1).map(Number);
    expect([v[0], v[1], v[4], v[5]]).toEqual([v[2], v[3], v[6], v[7]]);
    // the default take slides and the cleanup takes much of the ankle's path out; the rest is the heel
    // turning about the pinned toe in heel-off (issue 20), and the supporting point (cleanup.json) is
    // all but still
    expect(v[0]).toBeGreaterThan(40);
    expect(v[1]).toBeLessThan(0.5 * v[0]);
    const j = JSON.parse(fs.readFileSync(path.join(out, 'cleanup.json'), 'utf8')) as CleanupFile;
    for (const foot of ['left', 'right'] as const)
      expect(j.metrics.after[foot].pinnedSlide).toBeLessThan(0.05 * j.metrics.before[foot].pinnedSlide);
    const bytes = fs.readFileSync(png);
    expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
    // tiles of two 128-pixel halves: 4 tiles, near-square sheet -> 1 or 2 tiles per row
    expect(bytes.readUInt32BE(16) % 256).toBe(0);
  });
});
