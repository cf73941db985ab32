/**
 * The QA report files without a browser: escaping of file texts, the JSON embedded in the page, the
 * review-queue order, the qa.json layout, and the check of clip reports read back from JSON.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { loadChartAssets, pairClips } from '../src/cli/qa';
import {
  buildQaFile,
  buildReviewQueue,
  prettyJson,
  type QaClipEntry,
  type QaClipJson,
  type QaRunJson,
  readClipJson,
  runSeverity,
} from '../src/qa-report';
import { escapeHtml, jsonForScript, renderQaHtml } from '../src/qa-report/html';

function run(bone: string, level: 'Warning' | 'Error', start: number, end: number, peak: number): QaRunJson {
  return {
    bone,
    measure: 'twist',
    startFrame: start,
    endFrame: end,
    startSeconds: start / 30,
    endSeconds: end / 30,
    peak,
    peakFrame: start,
    threshold: 22,
    level,
    cause: `cause of ${bone}`,
    action: `action for ${bone}`,
    message: `${bone} twist over threshold for frames ${start}-${end} -> check`,
  };
}

function clip(name: string, runs: QaRunJson[], frames = 50): QaClipJson {
  const sev = (bone: string) =>
    Array.from({ length: frames }, (_, f) =>
      runs
        .filter((r) => r.bone === bone && f >= r.startFrame && f <= r.endFrame)
        .reduce((m, r) => Math.max(m, r.peak / r.threshold - 1), 0),
    );
  const bones = [...new Set(runs.map((r) => r.bone))];
  return {
    name,
    frames,
    fps: 30,
    durationSeconds: (frames - 1) / 30,
    result: runs.some((r) => r.level === 'Error') ? 'Error' : runs.length > 0 ? 'Warning' : 'Pass',
    maxScore: 0,
    meanScore: 0,
    score: new Array(frames).fill(0),
    runs,
    series: bones.map((bone) => ({
      bone,
      rotDeg: new Array(frames).fill(1),
      twistDeg: new Array(frames).fill(1),
      swingDeg: new Array(frames).fill(0),
      severity: sev(bone),
      rotThresholdDeg: 20,
      twistThresholdDeg: 22,
    })),
    warnings: [],
  };
}

const entry = (report: QaClipJson): QaClipEntry => ({
  name: report.name,
  golden: `g/${report.name}.bvh`,
  retargeted: `r/${report.name}.bvh`,
  result: report.result,
  severity: 0,
  report,
});

describe('escaping', () => {
  it('escapeHtml leaves no markup characters and reads back as the same text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const e = escapeHtml(s);
        expect(e).not.toMatch(/[<>"']/);
        const back = e
          .replace(/&lt;/g, '<')
          .replace(/&gt;/g, '>')
          .replace(/&quot;/g, '"')
          .replace(/&#39;/g, "'")
          .replace(/&amp;/g, '&');
        expect(back).toBe(s);
      }),
    );
  });

  it('jsonForScript is the same JSON value and cannot end a script element', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: 'binary' }), (v, s) => {
        const value = { v, s: `${s}</script><!--<script>` };
        const t = jsonForScript(value);
        expect(t).not.toMatch(/[<>&\u2028\u2029]/);
        expect(JSON.parse(t)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  it('prettyJson is the same JSON value as JSON.stringify, number arrays on one line', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(JSON.parse(prettyJson(v))).toEqual(JSON.parse(JSON.stringify(v)));
      }),
    );
    expect(prettyJson({ a: [1, 2.5, -3], b: { c: 'x' }, d: undefined })).toBe(
      '{\n  "a": [1,2.5,-3],\n  "b": {\n    "c": "x"\n  }\n}',
    );
    expect(prettyJson({ t: new Float32Array([0.5, 1]) })).toBe('{\n  "t": [0.5,1]\n}');
    expect(prettyJson({ p: 1.234567, a: [1.234567, -0.00004, Number.NaN] }, '', 4)).toBe(
      '{\n  "p": 1.234567,\n  "a": [1.2346,0,null]\n}',
    );
  });

  it('names with markup in the HTML report are text, never elements', () => {
    const evil = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">';
    const rep = clip(`clip ${evil}`, [run(`Bone${evil}`, 'Error', 5, 20, 40)]);
    rep.warnings = [`note ${evil}`];
    rep.runs[0].cause = `cause ${evil}`;
    const file = buildQaFile({
      mode: 'batch',
      golden: `golden${evil}`,
      retargeted: 'r',
      options: { lambda: null, sampling: 'seconds', profile: `p${evil}.json` },
      clips: [
        entry(rep),
        {
          name: `failed${evil}`,
          golden: 'g',
          retargeted: 'r',
          result: 'Failed',
          severity: 0,
          error: `e${evil}`,
        },
      ],
      unpaired: { golden: [`u${evil}`], retargeted: [] },
    });
    const html = renderQaHtml(file, { js: '/* chart */', css: '' });
    expect(html).not.toContain('<script>window.__pwned');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('</script><img');
    expect(html).toContain('&lt;script&gt;window.__pwned=1&lt;/script&gt;');
    // exactly the page's own three script elements (data, chart library, page script)
    expect(html.match(/<script/g)).toHaveLength(3);
    expect(html.match(/<\/script>/g)).toHaveLength(3);
  });
});

describe('review queue', () => {
  it('Error runs before Warning runs, then by severity, across clips; ranks 1..n', () => {
    const a = clip('a', [run('LeftHand', 'Warning', 0, 10, 30), run('RightLowerArm', 'Error', 20, 30, 60)]);
    const b = clip('b', [run('LeftLowerArm', 'Error', 5, 9, 90), run('Head', 'Warning', 1, 40, 40)]);
    const q = buildReviewQueue([entry(a), entry(b)]);
    expect(q.map((e) => `${e.clip}:${e.bone}`)).toEqual([
      'b:LeftLowerArm',
      'a:RightLowerArm',
      'b:Head',
      'a:LeftHand',
    ]);
    expect(q.map((e) => e.rank)).toEqual([1, 2, 3, 4]);
    expect(q[0].clipIndex).toBe(1);
    expect(q[0].severity).toBeCloseTo(90 / 22 - 1, 6);
  });

  it('over random runs: every run appears once and the order is by level, then severity', () => {
    const arbRun = fc.record({
      bone: fc.constantFrom('LeftHand', 'RightLowerArm', 'Head', 'LeftUpperArm'),
      level: fc.constantFrom('Warning' as const, 'Error' as const),
      start: fc.integer({ min: 0, max: 40 }),
      len: fc.integer({ min: 0, max: 9 }),
      peak: fc.double({ min: 22.5, max: 180, noNaN: true }),
    });
    fc.assert(
      fc.property(fc.array(fc.array(arbRun, { maxLength: 6 }), { maxLength: 5 }), (clips) => {
        const entries = clips.map((runs, i) =>
          entry(
            clip(
              `c${i}`,
              runs.map((r) => run(r.bone, r.level, r.start, r.start + r.len, r.peak)),
            ),
          ),
        );
        const q = buildReviewQueue(entries);
        expect(q).toHaveLength(clips.reduce((n, c) => n + c.length, 0));
        for (let i = 1; i < q.length; i++) {
          if (q[i - 1].level === q[i].level) expect(q[i - 1].severity).toBeGreaterThanOrEqual(q[i].severity);
          else expect(q[i - 1].level).toBe('Error');
        }
        for (const e of q) {
          const c = entries[e.clipIndex].report!;
          expect(e.severity).toBe(runSeverity(c, e));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('qa.json counts and result: Failed pairs counted apart; any failed pair makes the result Failed unless a clip is Error', () => {
    const f = buildQaFile({
      mode: 'batch',
      golden: 'g',
      retargeted: 'r',
      options: { lambda: 0.6, sampling: 'normalized', profile: null },
      clips: [
        entry(clip('p', [])),
        entry(clip('w', [run('Head', 'Warning', 0, 5, 30)])),
        {
          name: 'x',
          golden: 'g/x.bvh',
          retargeted: 'r/x.bvh',
          result: 'Failed',
          severity: 0,
          error: 'r/x.bvh: bad',
        },
      ],
    });
    expect(f.result).toBe('Failed');
    expect(f.counts).toEqual({ clips: 3, pass: 1, warning: 1, error: 0, failed: 1 });
    expect(f.reviewQueue).toHaveLength(1);
  });
});

describe('readClipJson', () => {
  it('accepts typed arrays and JSON nulls, and returns plain arrays', () => {
    const c = clip('a', [run('Head', 'Error', 1, 5, 50)]) as unknown as Record<string, unknown>;
    c.score = new Float32Array([0, 1.5, Number.NaN]);
    const back = readClipJson(JSON.parse(JSON.stringify({ ...c, score: [0, 1.5, null] })));
    expect(back.score).toEqual([0, 1.5, 0]);
    expect(readClipJson(c).score).toHaveLength(3);
    expect(Array.isArray(readClipJson(c).score)).toBe(true);
  });

  it('names the bad field', () => {
    const c = clip('a', [run('Head', 'Error', 1, 5, 50)]);
    expect(() => readClipJson({ ...c, runs: [{ ...c.runs[0], startFrame: '1' }] })).toThrow(
      'report.runs[0].startFrame: expected a number, got string',
    );
    expect(() => readClipJson({ ...c, result: 'Maybe' })).toThrow(
      "report.result: 'Maybe' is not Pass, Warning or Error",
    );
    expect(() => readClipJson({ ...c, runs: [{ ...c.runs[0], measure: 'speed' }] })).toThrow(
      /report\.runs\[0\]\.measure/,
    );
    expect(() => readClipJson(null)).toThrow('report: expected an object');
  });
});

describe('pairing and assets', () => {
  it('pairs by relative path, then by unique file name; one clip in two formats uses the BVH', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-qa-pair-'));
    const g = path.join(root, 'g');
    const r = path.join(root, 'r');
    const touch = (dir: string, f: string) => {
      fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
      fs.writeFileSync(path.join(dir, f), '');
    };
    for (const f of ['a.bvh', 'sub/b.bvh', 'c.glb', 'moved.bvh', 'dup/x.bvh', 'dup2/x.bvh', 'notes.txt'])
      touch(g, f);
    for (const f of ['A.glb', 'a.bvh', 'sub/b.vrm', 'c.gltf', 'elsewhere/moved.bvh', 'x.bvh', 'lonely.bvh'])
      touch(r, f);
    const p = pairClips(g, r);
    expect(p.pairs.map((x) => [path.relative(g, x.golden), path.relative(r, x.retargeted)])).toEqual([
      ['a.bvh', 'a.bvh'],
      ['c.glb', 'c.gltf'],
      ['moved.bvh', path.join('elsewhere', 'moved.bvh')],
      [path.join('sub', 'b.bvh'), path.join('sub', 'b.vrm')],
    ]);
    expect(p.unpaired).toEqual({ golden: ['dup/x.bvh', 'dup2/x.bvh'], retargeted: ['lonely.bvh', 'x.bvh'] });
    expect(p.notes.join('\n')).toMatch(/retargeted A\.glb: same clip as a\.bvh/);
  });

  it('uPlot is found and inlined whole', () => {
    const a = loadChartAssets();
    expect(a.js.length).toBeGreaterThan(20000);
    expect(a.js).toMatch(/uPlot/);
    expect(a.css).toMatch(/\.uplot/);
  });
});
