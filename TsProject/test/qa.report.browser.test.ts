/**
 * The QA HTML report in headless Chromium (playwright-core, Debian's /usr/bin/chromium): a real
 * report (the Bandai walk against copies with a forearm twist injected; the run against itself; a pair
 * that failed to load; and names carrying markup) opens with no page errors, draws its timelines,
 * heatmaps and uPlot curves (non-empty canvases), shows the injected names as text, and is saved as a
 * screenshot to test-output/qa-report.png. Skipped with a printed reason when Chromium is absent.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { quat, vec3 } from 'gl-matrix';
import { type Browser, chromium, type Page } from 'playwright-core';
import { loadChartAssets } from '../src/cli/qa';
import { type Clip, HumanBodyBones as H, quat64, readQuat, vec64, writeQuat } from '../src/core';
import { loadSource } from '../src/io/node';
import { evaluateClip, reportToJson, severityOf } from '../src/qa';
import { buildQaFile, type QaClipEntry, type QaFile, readClipJson } from '../src/qa-report';
import { renderQaHtml } from '../src/qa-report/html';
import { dataPath, HAS_SHARED_DATA } from './helpers/data';

const CHROMIUM = '/usr/bin/chromium';
const OUT = path.resolve(__dirname, '../test-output');
const EVIL = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';

const ready = fs.existsSync(CHROMIUM) && HAS_SHARED_DATA;
if (!fs.existsSync(CHROMIUM)) console.warn(`[skip] QA report browser test: ${CHROMIUM} not found`);
else if (!HAS_SHARED_DATA) console.warn('[skip] QA report browser test: shared data not found');
const describeBrowser = ready ? describe : describe.skip;

/** `clip` with `deg` of twist about the bone's own axis added to humanoid bone `human` on frames from..to. */
function injectTwist(clip: Clip, human: number, child: number, deg: number, from: number, to: number): Clip {
  const sk = clip.skeleton;
  const b = sk.humanoid[human];
  const c = sk.humanoid[child];
  const a = vec64(sk.restTranslations[3 * c], sk.restTranslations[3 * c + 1], sk.restTranslations[3 * c + 2]);
  vec3.normalize(a, a);
  const t = quat64();
  quat.setAxisAngle(t, a, (deg * Math.PI) / 180);
  const rotations = new Float32Array(clip.rotations);
  const q = quat64();
  for (let f = from; f <= to; f++) {
    readQuat(q, rotations, f * sk.boneCount + b);
    quat.multiply(q, q, t);
    writeQuat(rotations, f * sk.boneCount + b, q);
  }
  return { ...clip, rotations };
}

function entryOf(name: string, golden: Clip, observed: Clip): QaClipEntry {
  const r = evaluateClip(golden, observed, { name });
  return {
    name,
    golden: `golden/${name}.bvh`,
    retargeted: `retargeted/${name}.bvh`,
    result: r.result,
    severity: severityOf(r),
    report: readClipJson(reportToJson(r)),
  };
}

describeBrowser('QA report in headless Chromium', () => {
  let browser: Browser;
  let page: Page;
  let file: QaFile;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const walk = (await loadSource(dataPath('bandai-namco-motiondataset/dataset-1_walk_normal_001.bvh')))
      .clip;
    const runClip = (await loadSource(dataPath('bandai-namco-motiondataset/dataset-1_run_normal_001.bvh')))
      .clip;
    const twisted = injectTwist(walk, H.RightLowerArm, H.RightHand, 60, 60, 100);
    const mild = injectTwist(walk, H.LeftLowerArm, H.LeftHand, 30, 20, 150);
    const evil = entryOf(`walk ${EVIL}`, walk, mild);
    // a bone name with markup, as a malformed report could carry: shown as text in every view
    evil.report!.runs[0].bone = `LeftLowerArm${EVIL}`;
    evil.report!.series.find((s) => s.bone === 'LeftLowerArm')!.bone = `LeftLowerArm${EVIL}`;
    const clips: QaClipEntry[] = [
      entryOf('walk-forearm-twist', walk, twisted),
      entryOf('run-clean', runClip, runClip),
      evil,
      {
        name: 'broken',
        golden: 'g/broken.bvh',
        retargeted: 'r/broken.bvh',
        result: 'Failed',
        severity: 0,
        error: `r/broken.bvh:12: bad ${EVIL}`,
      },
    ];
    file = buildQaFile({
      mode: 'batch',
      golden: 'golden',
      retargeted: 'retargeted',
      options: { lambda: null, sampling: 'seconds', profile: null },
      clips,
      unpaired: { golden: [`only${EVIL}.bvh`], retargeted: [] },
    });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-qa-html-'));
    const html = path.join(dir, 'qa.html');
    fs.writeFileSync(html, renderQaHtml(file, loadChartAssets()));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(300_000); // actions wait as long as the waits do (a hang guard: a busy machine, not a speed check)
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error') pageErrors.push(m.text());
    });
    page.on('dialog', (d) => {
      pageErrors.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    // no network: any request but the file itself fails the test
    await page.route('**/*', (route) => {
      if (route.request().url().startsWith('file:')) return route.continue();
      pageErrors.push(`network request: ${route.request().url()}`);
      return route.abort();
    });
    await page.goto(`file://${html}`);
    await page.waitForFunction('window.__qa && window.__qa.done === true', undefined, { timeout: 300_000 });
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('the fixture has the expected results', () => {
    expect(file.clips.map((c) => c.result)).toEqual([
      'Error',
      'Pass',
      expect.stringMatching(/Warning|Error/),
      'Failed',
    ]);
    expect(file.reviewQueue[0].clip).toBe('walk-forearm-twist');
    expect(file.reviewQueue[0].bone).toBe('RightLowerArm');
  });

  it('opens with no page errors and draws a timeline and a heatmap per evaluated clip and the curves', async () => {
    const stats = await page.evaluate(() => (window as unknown as { __qa: Record<string, unknown> }).__qa);
    expect(pageErrors).toEqual([]);
    expect(stats.errors).toEqual([]);
    expect(stats.timelines).toBe(3);
    expect(stats.heatmaps).toBe(3);
    // flagged bones of the two faulty clips, and the two worst bones of the clean one
    expect(stats.charts as number).toBeGreaterThanOrEqual(3);
    expect(await page.locator('.uplot').count()).toBe(stats.charts);
  });

  it('every canvas has drawn pixels; the timeline of the twisted clip has red run bars', async () => {
    const r = await page.evaluate(() => {
      const painted = (c: HTMLCanvasElement) => {
        const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++;
        return n;
      };
      const red = (c: HTMLCanvasElement) => {
        const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 0; i < d.length; i += 4)
          if (d[i] === 0xd9 && d[i + 1] === 0x2d && d[i + 2] === 0x2d) n++;
        return n;
      };
      const all = (sel: string) => Array.from(document.querySelectorAll<HTMLCanvasElement>(sel));
      return {
        timelines: all('canvas.timeline').map(painted),
        heatmaps: all('canvas.heatmap').map(painted),
        curves: all('.uplot canvas').map(painted),
        redInFirstTimeline: red(all('canvas.timeline')[0]),
        redInCleanTimeline: red(all('canvas.timeline')[1]),
      };
    });
    expect(r.timelines).toHaveLength(3);
    for (const n of [...r.timelines, ...r.heatmaps, ...r.curves]) expect(n).toBeGreaterThan(1000);
    expect(r.redInFirstTimeline).toBeGreaterThan(100);
    expect(r.redInCleanTimeline).toBe(0);
  });

  it('the review queue is at the top and links to the clip sections', async () => {
    const links = await page.$$eval('#queue table a', (as) => as.map((a) => a.getAttribute('href')));
    expect(links[0]).toBe('#clip-1');
    for (const l of links) expect(await page.locator(l!).count()).toBe(1);
    const rows = await page.locator('#queue tbody tr').count();
    expect(rows).toBe(file.reviewQueue.length);
  });

  it('names with markup are shown as text and run nothing', async () => {
    const r = await page.evaluate(() => ({
      pwned: (window as unknown as { __pwned?: number }).__pwned,
      imgs: document.querySelectorAll('img').length,
      scripts: document.querySelectorAll('script').length,
      heading: document.querySelector('#clip-3 h2')!.textContent,
      titles: Array.from(document.querySelectorAll('#clip-3 .u-title')).map((t) => t.textContent),
      broken: document.querySelector('#clip-4 .error-entry')!.textContent,
    }));
    expect(r.pwned).toBeUndefined();
    expect(r.imgs).toBe(0);
    expect(r.scripts).toBe(3);
    expect(r.heading).toContain(EVIL);
    expect(r.titles).toContain(`LeftLowerArm${EVIL}`);
    expect(r.broken).toContain(EVIL);
  });

  it('a bone chosen in the selector gets its chart', async () => {
    const before = await page.locator('#clip-2 .uplot').count();
    await page.locator('#clip-2 select').selectOption({ label: 'Hips' });
    expect(await page.locator('#clip-2 .uplot').count()).toBe(before + 1);
    expect(pageErrors).toEqual([]);
  });

  it('screenshot saved to test-output/qa-report.png', async () => {
    fs.mkdirSync(OUT, { recursive: true });
    const png = path.join(OUT, 'qa-report.png');
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: png, fullPage: true });
    const bytes = fs.readFileSync(png);
    expect(bytes.subarray(1, 4).toString()).toBe('PNG');
    expect(bytes.length).toBeGreaterThan(20000);
  });
});
