/**
 * cleanup.html in headless Chromium (playwright-core, Debian's /usr/bin/chromium): the page of a real
 * `kind cleanup` run opens offline without errors, draws its timeline, both ankle path overviews (which
 * zoom with the wheel), one panel per contact segment at that segment's own scale, and the four uPlot
 * charts, and shows a clip name with markup as text (nothing runs). The timeline draws per foot the
 * foot, heel, toe and review lanes (a version-1 cleanup.json, without heel and toe: foot and review only)
 * and reads a frame's figures under the pointer.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { renderCleanupHtml } from '../src/cleanup-report/html';
import { setContactSourceFactory } from '../src/cli/contactSource';
import { loadChartAssets } from '../src/cli/qa';
import { defaultAssetsDir } from '../src/io/node';
import { testRuleSource } from './helpers/cleanupSource';
import { runKind } from './helpers/runCli';

const CHROMIUM = '/usr/bin/chromium';
const EVIL = '<img src=x onerror="window.__pwned=1">';
const describeBrowser = fs.existsSync(CHROMIUM) ? describe : describe.skip;
if (!fs.existsSync(CHROMIUM)) console.warn(`[skip] cleanup report browser test: ${CHROMIUM} not found`);

describeBrowser('cleanup.html in headless Chromium', () => {
  let browser: Browser;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-cleanup-html-'));
  beforeAll(async () => {
    setContactSourceFactory(testRuleSource);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    setContactSourceFactory(null);
    await browser?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  test('opens offline, draws everything, escapes names', async () => {
    // a take whose file name (and so clip name) carries markup
    const input = path.join(tmp, `walk${EVIL}.bvh`);
    fs.copyFileSync(path.join(defaultAssetsDir(), 'default-slide.bvh'), input);
    const out = path.join(tmp, 'out');
    const r = await runKind(['cleanup', input, '-o', out, '-q']);
    expect(r.err).toBe('');
    const html = fs.readFileSync(path.join(out, 'cleanup.html'), 'utf8');
    expect(html).not.toContain(EVIL);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(300_000); // actions wait as long as the waits do (a hang guard: a busy machine, not a speed check)
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    const requests: string[] = [];
    page.on('request', (q) => {
      if (!q.url().startsWith('file:')) requests.push(q.url());
    });
    await page.goto(`file://${path.join(out, 'cleanup.html')}`);
    await page.waitForFunction(
      () => (window as unknown as { __cleanup?: { done?: boolean } }).__cleanup?.done,
    );
    const state = await page.evaluate(
      () =>
        (
          window as unknown as {
            __cleanup: { paths: { foot: string; index: number; pxPerCm: number }[]; canvases: number };
          }
        ).__cleanup,
    );
    // the timeline, an overview per foot and one panel per contact segment, each on its own scale
    const json = JSON.parse(fs.readFileSync(path.join(out, 'cleanup.json'), 'utf8'));
    const segs = json.feet.left.segments.length + json.feet.right.segments.length;
    expect(state).toEqual({
      charts: 4,
      canvases: 3 + segs,
      errors: [],
      done: true,
      paths: expect.any(Array),
      overview: { left: expect.any(Number), right: expect.any(Number) },
      timeline: {
        lanes: [
          'left foot',
          'left heel',
          'left toe',
          'left review',
          'right foot',
          'right heel',
          'right toe',
          'right review',
        ],
        height: expect.any(Number),
      },
    });
    // the canvas is as tall as its lanes
    const tl = page.locator('#timeline');
    const tlBox = (await tl.boundingBox())!;
    expect(tlBox.height).toBeCloseTo(
      (state as unknown as { timeline: { height: number } }).timeline.height,
      0,
    );
    // under the pointer: the frame, each foot's probabilities and the point pinned there
    await tl.scrollIntoViewIfNeeded();
    const box0 = (await tl.boundingBox())!;
    const W = box0.width - 104 - 10;
    const pin: number[] = json.feet.left.pin;
    const frame = pin.indexOf(2) >= 0 ? pin.indexOf(2) : pin.indexOf(1); // a frame with a pinned point
    expect(frame).toBeGreaterThanOrEqual(0);
    const point = pin[frame] === 2 ? 'toe' : 'heel';
    await page.mouse.move(box0.x + 104 + ((frame + 0.5) / json.frames) * W, box0.y + 30);
    const readout = (await page.textContent('#timeline-readout')) ?? '';
    expect(readout).toContain(`frame ${frame} (`);
    expect(readout).toContain(
      `left p ${json.feet.left.probability[frame].toFixed(2)}, heel ${json.feet.left.heel.probability[frame].toFixed(2)}, toe ${json.feet.left.toe.probability[frame].toFixed(2)} [${point} pinned]`,
    );
    const data = JSON.parse((await page.textContent('#cleanup-data')) ?? '{}') as {
      feet: Record<string, { views: number[][] }>;
    };
    expect(state.paths).toHaveLength(segs);
    for (const p of state.paths) {
      const span = data.feet[p.foot].views[p.index][5];
      expect(p.pxPerCm).toBeCloseTo(150 / (span * 100), 6);
      expect(p.pxPerCm).toBeGreaterThan(5);
    }
    // the overview zooms with the wheel about the pointer (and back on a double click)
    const zoom = () =>
      page.evaluate(
        () => (window as unknown as { __cleanup: { overview: { left: number } } }).__cleanup.overview.left,
      );
    const before = await zoom();
    await page.locator('canvas.path').first().scrollIntoViewIfNeeded();
    const box = (await page.locator('canvas.path').first().boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, -300);
    await page.waitForFunction(
      (b) => (window as unknown as { __cleanup: { overview: { left: number } } }).__cleanup.overview.left > b,
      before,
    );
    expect((await zoom()) / before).toBeGreaterThan(2);
    await page.mouse.dblclick(box.x + box.width / 2, box.y + box.height / 2);
    expect(await zoom()).toBeCloseTo(before, 6);
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.textContent('h1')).toContain(`walk${EVIL}`);
    expect(await page.locator('table.metrics tbody tr').count()).toBeGreaterThanOrEqual(10);
    await page.screenshot({ path: path.join(tmp, 'page.png'), fullPage: true });
    await page.close();

    // a version-1 cleanup.json (issue 11's, no heel, toe or pin) renders: foot and review lanes only
    const v1 = JSON.parse(
      fs.readFileSync(path.join(__dirname, 'fixtures', 'cleanup-v1-default-slide.json'), 'utf8'),
    );
    const pageData = JSON.parse(html.match(/id="cleanup-data">([\s\S]*?)<\/script>/)![1]);
    const series = {
      before: { left: pageData.feet.left.before, right: pageData.feet.right.before },
      after: { left: pageData.feet.left.after, right: pageData.feet.right.after },
    };
    const v1Html = path.join(tmp, 'v1.html');
    fs.writeFileSync(v1Html, renderCleanupHtml(v1, series, loadChartAssets()));
    const p1 = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    p1.setDefaultTimeout(300_000); // actions wait as long as the waits do (a hang guard: a busy machine, not a speed check)
    const errors1: string[] = [];
    p1.on('pageerror', (e) => errors1.push(String(e)));
    await p1.goto(`file://${v1Html}`);
    await p1.waitForFunction(() => (window as unknown as { __cleanup?: { done?: boolean } }).__cleanup?.done);
    const s1 = await p1.evaluate(
      () =>
        (window as unknown as { __cleanup: { errors: string[]; timeline: { lanes: string[] } } }).__cleanup,
    );
    expect(errors1).toEqual([]);
    expect(s1.errors).toEqual([]);
    expect(s1.timeline.lanes).toEqual(['left foot', 'left review', 'right foot', 'right review']);
    await p1.close();
  });
});
