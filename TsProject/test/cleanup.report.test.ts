/**
 * The report and messages of `kind cleanup` (issue 20, points 4 and 7), without a browser:
 * - a take on two ground levels (the embedded walk stepping onto a 20 cm platform, test/helpers/terrain.ts)
 *   says so in the terminal, in cleanup.json (`ground`) and in cleanup.html;
 * - cleanup.json keeps every field it had (readers of earlier files keep working) and adds `ground` and a
 *   `level` per segment;
 * - cleanup.html's ankle paths carry one view per contact segment, centred on it and scaled to it (every
 *   point of the segment's path inside its panel, at least 2 cm across), so a panel draws centimetres
 *   as tens of pixels where the whole-path view gives well under one;
 * - a folder given without --batch is a usage error that says how to clean it;
 * - cleanup.html's timeline (items 1, 6, 7) carries per foot a heel and a toe lane with cleanup.json's own
 *   channel values, segments and the frames each point is pinned, and a review lane with every review
 *   range and its reason; a version-1 cleanup.json (test/fixtures/cleanup-v1-default-slide.json, written
 *   by the issue-11 code at commit f0a12a3 from the embedded default, rule contacts; whitespace as biome
 *   formats JSON) still renders, without those lanes;
 * - `kind retarget --cleanup` gives the supporting point's slide with its heel and toe parts, in the
 *   terminal and in summary.json.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CleanupFile } from '../src/cleanup-report';
import { renderCleanupHtml } from '../src/cleanup-report/html';
import { MIN_VIEW_SPAN } from '../src/cleanup-report/paths';
import type { FootLanes } from '../src/cleanup-report/timeline';
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
  type Series = { u: number[]; v: number[]; h: number[]; speed: number[] };
  return JSON.parse(m![1]) as {
    timeline: Record<'left' | 'right', FootLanes>;
    feet: Record<'left' | 'right', { before: Series; after: Series; views: number[][] }>;
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
    // the rule detector: the counts below are its known answer on the default take (the default detector may change)
    expect((await runKind(['cleanup', '-o', out, '--model', 'rule', '-q'])).code).toBe(0);
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

/** The frames of `[start, end)` ranges. */
const framesOf = (ranges: readonly (readonly number[])[]) => {
  const out: number[] = [];
  for (const [s, e] of ranges) for (let f = s; f < e; f++) out.push(f);
  return out;
};

describe('cleanup.html: the timeline has heel and toe lanes and every review range with its reason', () => {
  let json: CleanupFile;
  let html: string;
  let data: ReturnType<typeof pageData>;
  beforeAll(async () => {
    const out = path.join(tmp, 'timeline');
    // the rule detector: the counts below are its known answer on the default take
    expect((await runKind(['cleanup', '-o', out, '--model', 'rule', '-q'])).code).toBe(0);
    html = fs.readFileSync(path.join(out, 'cleanup.html'), 'utf8');
    json = JSON.parse(fs.readFileSync(path.join(out, 'cleanup.json'), 'utf8'));
    data = pageData(html);
  });

  it("version 2: the heel and toe lanes are cleanup.json's channels; pinned frames are its pin codes", () => {
    expect(json.version).toBe(2);
    for (const foot of ['left', 'right'] as const) {
      const j = json.feet[foot];
      const t = data.timeline[foot];
      expect(t.probability).toEqual(j.probability);
      expect(t.segments).toEqual(j.segments.map((s) => [s.start, s.end]));
      expect(t.limits).toEqual(json.limits.filter((l) => l.foot === foot).map((l) => [l.start, l.end]));
      for (const [w, code] of [
        ['heel', 1],
        ['toe', 2],
      ] as const) {
        const lane = t[w]!;
        expect(lane.probability).toEqual(j[w].probability);
        expect(lane.probability).toHaveLength(json.frames);
        expect(lane.segments).toEqual(j[w].segments.map((s) => [s.start, s.end]));
        // the pinned strip covers exactly the frames whose pin is this point's code
        const pinned = new Set(framesOf(lane.pinned));
        for (let f = 0; f < json.frames; f++) expect([f, pinned.has(f)]).toEqual([f, j.pin[f] === code]);
        expect(lane.pinnedFrames).toBe(pinned.size);
        // ... which is the sum of the channel's per-segment `pinnedFrames`
        expect(lane.pinnedFrames).toBe(j[w].segments.reduce((a, s) => a + s.pinnedFrames, 0));
      }
      // both points' pinned frames are the foot's contact frames, without overlap
      expect(t.heel!.pinnedFrames + t.toe!.pinnedFrames).toBe(j.contact.filter((c) => c === 1).length);
    }
    // the header gives the counts the terminal gives (docs/cleanup.md, the rule's output: "toe pinned on 79 frames, heel on 42")
    expect(html).toContain('(heel 3/4, toe 4/5; toe pinned on 79 frames, heel on 42)');
    expect(data.timeline.left.heel!.pinnedFrames + data.timeline.right.heel!.pinnedFrames).toBe(42);
    expect(data.timeline.left.toe!.pinnedFrames + data.timeline.right.toe!.pinnedFrames).toBe(79);
  });

  it('the review lane holds every review range and short contact with its reason; the table names each', () => {
    for (const foot of ['left', 'right'] as const) {
      const j = json.feet[foot];
      const lane = data.timeline[foot].review;
      const want = [
        ...j.review.map((r) => [r.start, r.end, r.reason]),
        ...j.short.map((r) => [r.start, r.end, 'short']),
      ].sort((a, b) => (a[0] as number) - (b[0] as number));
      expect(lane.map((r) => r.slice(0, 3))).toEqual(want);
      // overlapping ranges sit on different rows
      for (const a of lane)
        for (const b of lane) if (a !== b && a[3] === b[3]) expect(a[1] <= b[0] || b[1] <= a[0]).toBe(true);
    }
    // the embedded default: the five review-band ranges of the terminal's review line
    expect(json.review.map((r) => [r.foot, r.start, r.end, r.reason])).toEqual([
      ['left', 1, 3, 'reviewBand'],
      ['right', 16, 18, 'reviewBand'],
      ['right', 76, 78, 'reviewBand'],
      ['left', 91, 93, 'reviewBand'],
      ['right', 106, 108, 'reviewBand'],
    ]);
    for (const r of json.review) expect(html).toContain(`${r.reason}: ${r.detail}`);
    // the legend names the reasons present
    expect(html).toContain('<b>reviewBand</b>: probability stayed in the review band: not fixed');
    expect(html).not.toContain('<b>jointShift</b>');
  });

  it('a version-1 cleanup.json still renders: foot and review lanes only, "–" for the figures it lacks', () => {
    const v1 = JSON.parse(
      fs.readFileSync(path.join(__dirname, 'fixtures', 'cleanup-v1-default-slide.json'), 'utf8'),
    ) as CleanupFile;
    expect(v1.version).toBe(1);
    expect(v1.feet.left).not.toHaveProperty('heel');
    expect(v1.feet.left).not.toHaveProperty('pin');
    expect(v1).not.toHaveProperty('transitions');
    // the same take and floor as the version-2 run above: its page's ankle series
    const series = {
      before: { left: data.feet.left.before, right: data.feet.right.before },
      after: { left: data.feet.left.after, right: data.feet.right.after },
    };
    const page = renderCleanupHtml(v1, series, { js: '', css: '' });
    const d = pageData(page);
    for (const foot of ['left', 'right'] as const) {
      expect(d.timeline[foot].heel).toBeNull();
      expect(d.timeline[foot].toe).toBeNull();
      expect(d.timeline[foot].probability).toEqual(v1.feet[foot].probability);
      expect(d.timeline[foot].segments).toEqual(v1.feet[foot].segments.map((s) => [s.start, s.end]));
    }
    // version 1's review ranges carry no reason: they were all the review band's
    expect(d.timeline.left.review).toEqual([
      [1, 3, 'reviewBand', 0],
      [91, 93, 'reviewBand', 0],
    ]);
    expect(d.timeline.right.review).toEqual([
      [16, 18, 'reviewBand', 0],
      [76, 78, 'reviewBand', 0],
      [106, 108, 'reviewBand', 0],
    ]);
    expect(page.split('reviewBand: probability stayed in the review band: not fixed')).toHaveLength(6);
    expect(page).toContain('segments left 4, right 5 (version-1 file: no heel and toe channels)');
    // the supporting-point rows are empty; the ankle's are version 1's figures
    const row = (label: string) => page.match(new RegExp(`<tr><td>${label}</td>(.*?)</tr>`))![1];
    expect(row('supporting point: cumulative slide in contact')).toBe('<td class="num">– m</td>'.repeat(4));
    const ankle = row('ankle: cumulative slide in contact');
    for (const foot of ['left', 'right'] as const)
      for (const w of ['before', 'after'] as const)
        expect(ankle).toContain(`${v1.metrics[w][foot].slideTotal.toFixed(4)} m`);
    expect(page).not.toContain('undefined');
    expect(page).not.toContain('NaN');
  });
});

describe('kind retarget --cleanup: the supporting point with its heel and toe parts', () => {
  it('terminal and summary.json: pooled over both feet, total = heel + toe, before and after', async () => {
    const out = path.join(tmp, 'retarget');
    const assets = defaultAssetsDir();
    const r = await runKind([
      'retarget',
      path.join(assets, 'default-slide.bvh'),
      path.join(assets, 'default-avatar.glb'),
      '--cleanup',
      '-o',
      out,
    ]);
    expect(r.code).toBe(0);
    const summary = JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8'));
    const c = summary.cleanup;
    for (const w of ['before', 'after'] as const) {
      const m = c.metrics[w];
      const s = c.supportingSlide[w];
      expect(s.total).toBeCloseTo(m.left.pinnedSlide + m.right.pinnedSlide, 12);
      expect(s.heel).toBeCloseTo(m.left.slideHeel + m.right.slideHeel, 12);
      expect(s.toe).toBeCloseTo(m.left.slideToe + m.right.slideToe, 12);
      expect(s.heel + s.toe).toBeCloseTo(s.total, 12);
    }
    const b = c.supportingSlide.before;
    const a = c.supportingSlide.after;
    // both points slide before on the sliding default; the cleanup removes most of either
    expect(b.heel).toBeGreaterThan(0.1);
    expect(b.toe).toBeGreaterThan(0.1);
    expect(a.heel).toBeLessThan(0.1 * b.heel);
    expect(a.toe).toBeLessThan(0.1 * b.toe);
    const cm = (v: number) => (v * 100).toFixed(1);
    const line = r.out.split('\n').find((l) => l.startsWith('  cleanup ('));
    expect(line).toContain(
      `supporting point's (heel or toe) slide in contact ${cm(b.total)} -> ${cm(a.total)} cm (${(100 * (1 - a.total / b.total)).toFixed(0)}% less; heel ${cm(b.heel)} -> ${cm(a.heel)}, toe ${cm(b.toe)} -> ${cm(a.toe)})`,
    );
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
