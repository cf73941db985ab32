/**
 * The report and messages of `kind cleanup` (issue 20, points 4 and 7), without a browser:
 * - a take on two ground levels (the embedded walk stepping onto a 20 cm platform, test/helpers/terrain.ts)
 *   says so in the terminal, in cleanup.json (`ground`) and in cleanup.html;
 * - cleanup.json keeps every field it had (readers of earlier files keep working) and adds `ground` and a
 *   `level` per segment;
 * - cleanup.html's ankle paths carry one view per contact segment, centred on it and scaled to it (every
 *   point of the segment's path inside its panel, at least 2 cm across), so a panel draws centimetres
 *   as tens of pixels where the whole-path view gives well under one;
 * - a folder given without --batch is a usage error that says how to clean it.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CleanupFile } from '../src/cleanup-report';
import { MIN_VIEW_SPAN } from '../src/cleanup-report/paths';
import { parseBvh, writeBvh } from '../src/io/bvh';
import { defaultAssetsDir } from '../src/io/node';
import { DEFAULT_WALK, loadBvhClip } from './helpers/contact';
import { runKind } from './helpers/runCli';
import { terrainClip } from './helpers/terrain';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-cleanup-report-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** The page's data (the JSON script element of cleanup.html). */
function pageData(html: string) {
  const m = html.match(/<script type="application\/json" id="cleanup-data">([\s\S]*?)<\/script>/);
  expect(m).not.toBeNull();
  return JSON.parse(m![1]) as {
    feet: Record<
      string,
      { before: { u: number[]; v: number[] }; after: { u: number[]; v: number[] }; views: number[][] }
    >;
  };
}

describe('a take whose contacts stand on two ground levels', () => {
  const dir = path.join(tmp, 'platform');
  let run: { code: number; out: string; err: string };
  let json: CleanupFile;
  let html: string;
  beforeAll(async () => {
    const text = fs.readFileSync(DEFAULT_WALK, 'utf8');
    const parsed = parseBvh(text, { fileName: 'walk.bvh' });
    const warped = terrainClip(loadBvhClip(DEFAULT_WALK), (p) => (p[2] > 2.4 ? 0.2 : 0));
    fs.mkdirSync(dir);
    const input = path.join(dir, 'platform.bvh');
    fs.writeFileSync(input, writeBvh(warped.clip, { layout: parsed.layout, unitScale: parsed.unitScale }));
    run = await runKind(['cleanup', input, '-o', path.join(dir, 'out')]);
    json = JSON.parse(fs.readFileSync(path.join(dir, 'out', 'cleanup.json'), 'utf8'));
    html = fs.readFileSync(path.join(dir, 'out', 'cleanup.html'), 'utf8');
  });

  it('the terminal, cleanup.json and cleanup.html say "contacts on 2 ground levels, 20 cm apart"', () => {
    expect(run.code).toBe(0);
    expect(run.out).toMatch(
      /\n {2}ground: contacts on 2 ground levels, 20 cm apart \(levels 0\.0, 20\.0 cm above the floor\)/,
    );
    expect(json.ground.note).toBe('contacts on 2 ground levels, 20 cm apart');
    expect(json.ground.levels.map((l) => [Math.round(l.height * 100), l.tiltDeg, l.normal])).toEqual([
      [0, 0, [0, 1, 0]],
      [20, 0, [0, 1, 0]],
    ]);
    expect(json.ground.spread).toBeCloseTo(0.2, 2);
    expect(html).toContain('ground: contacts on 2 ground levels, 20 cm apart (levels 0.0 cm ×5, 20.0 cm ×4)');
    // each segment names its level, and stands on it
    for (const foot of ['left', 'right'] as const)
      for (const s of json.feet[foot].segments) {
        const l = json.ground.levels[s.level];
        expect(s.ground).toBeCloseTo(l.height, 2);
      }
    for (const foot of ['left', 'right'] as const)
      expect(json.metrics.after[foot].penetrationMax).toBeLessThan(0.005);
  });

  it('cleanup.json keeps every field of the earlier files and only adds', () => {
    const earlier = [
      'tool',
      'version',
      'input',
      'output',
      'clip',
      'model',
      'options',
      'frames',
      'frameTime',
      'fps',
      'legLength',
      'scale',
      'unitScale',
      'legs',
      'floor',
      'feet',
      'review',
      'short',
      'limits',
      'metrics',
      'ik',
      'root',
      'framesChanged',
      'warnings',
    ];
    for (const k of earlier) expect(Object.keys(json)).toContain(k);
    // version 2 (issue 20): fields added (review reasons, transitions, ground levels, heel and toe
    // channels), none renamed or removed
    expect(json.version).toBe(2);
    for (const r of json.review)
      expect(Object.keys(r)).toEqual(expect.arrayContaining(['foot', 'start', 'end']));
    expect(Object.keys(json.feet.left.segments[0]).sort()).toEqual(
      ['anchor', 'ankleHeight', 'end', 'ground', 'level', 'lift', 'start'].sort(),
    );
    expect(Object.keys(json.ground).sort()).toEqual(['levels', 'note', 'spread']);
  });
});

describe('cleanup.html: ankle paths at centimetre scale, one panel per contact segment', () => {
  let data: ReturnType<typeof pageData>;
  let json: CleanupFile;
  let html: string;
  beforeAll(async () => {
    const out = path.join(tmp, 'default');
    expect((await runKind(['cleanup', '-o', out, '-q'])).code).toBe(0);
    html = fs.readFileSync(path.join(out, 'cleanup.html'), 'utf8');
    json = JSON.parse(fs.readFileSync(path.join(out, 'cleanup.json'), 'utf8'));
    data = pageData(html);
  });

  it('one view per segment, centred on it and scaled to it; the path inside; tens of px per cm', () => {
    for (const foot of ['left', 'right'] as const) {
      const segs = json.feet[foot].segments;
      const views = data.feet[foot].views;
      expect(views.map((v) => [v[0], v[1], v[2]])).toEqual(segs.map((s, i) => [i, s.start, s.end]));
      const d = data.feet[foot];
      const ext = (a: number[]) => Math.max(...a) - Math.min(...a);
      const overview = Math.max(ext(d.before.u.concat(d.after.u)), ext(d.before.v.concat(d.after.v)));
      for (const [, start, end, cu, cv, span, barCm] of views) {
        let extent = 0;
        for (let f = start; f < end; f++)
          for (const p of [data.feet[foot].before, data.feet[foot].after]) {
            expect(Math.abs(p.u[f] - cu)).toBeLessThanOrEqual(span / 2 + 1e-5);
            expect(Math.abs(p.v[f] - cv)).toBeLessThanOrEqual(span / 2 + 1e-5);
            extent = Math.max(extent, 2 * Math.abs(p.u[f] - cu), 2 * Math.abs(p.v[f] - cv));
          }
        // fitted: the path fills the panel (15 % margin) unless it is under the 2 cm minimum
        expect(span).toBeCloseTo(Math.max(MIN_VIEW_SPAN, 1.15 * extent), 4);
        // a 150 px panel: px per cm, against the whole-path overview's on a 600 px canvas
        expect(150 / (span * 100)).toBeGreaterThan(5);
        expect(150 / (span * 100)).toBeGreaterThan(10 * (600 / (overview * 100)));
        expect([0.5, 1, 2, 5, 10, 20]).toContain(barCm);
        expect(barCm).toBeLessThanOrEqual((span * 100) / 3);
      }
    }
    // the page draws each panel from its view (the browser test counts them and reads their scale)
    expect(html).toContain('class="seg-grid" data-foot="left"');
    expect(html).toContain('state.paths.push({ foot: foot, index: s[0], pxPerCm: pxPerCm })');
  });
});

describe('kind cleanup <folder> without --batch', () => {
  it('is a usage error (exit 2) that counts the takes and gives the --batch command; nothing written', async () => {
    const dir = path.join(tmp, 'takes here');
    fs.mkdirSync(path.join(dir, 'sub'), { recursive: true });
    fs.copyFileSync(path.join(defaultAssetsDir(), 'default-walk.bvh'), path.join(dir, 'a.bvh'));
    fs.copyFileSync(path.join(defaultAssetsDir(), 'default-slide.bvh'), path.join(dir, 'sub', 'b.bvh'));
    const out = path.join(tmp, 'folder-out');
    const r = await runKind(['cleanup', dir, '-o', out]);
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')[0]).toBe(
      `kind: ${dir}: is a folder of 2 .bvh takes; to clean every take in it, add --batch: kind cleanup --batch '${dir}' -o ${out}`,
    );
    expect(fs.existsSync(out)).toBe(false);
    const empty = path.join(tmp, 'empty');
    fs.mkdirSync(empty);
    const e = await runKind(['cleanup', empty, '-o', out]);
    expect(e.code).toBe(2);
    expect(e.err).toMatch(
      /is a folder with no \.bvh takes in it; kind cleanup takes a \.bvh file, or with --batch a folder of them/,
    );
  });
});
