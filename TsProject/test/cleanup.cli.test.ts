/**
 * `kind cleanup` end to end (in-process): the embedded default and real takes; the output BVH reads
 * back with the input's frame count, Frame Time and channel layout, untouched frames are the input's
 * values exactly, cleanup.json has its fields and shapes, the slide drops; bad inputs fail with one
 * line naming the place and write nothing.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CleanupFile } from '../src/cleanup-report';
import { setContactSourceFactory } from '../src/cli/contactSource';
import { parseBvh } from '../src/io/bvh';
import { defaultAssetsDir } from '../src/io/node';
import { testRuleSource } from './helpers/cleanupSource';
import { dataPath, describeWithData } from './helpers/data';
import { runKind } from './helpers/runCli';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-cleanup-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
beforeAll(() => setContactSourceFactory(testRuleSource));
afterAll(() => setContactSourceFactory(null));

function readBack(file: string) {
  return parseBvh(fs.readFileSync(file, 'utf8'), { keepChannelValues: true });
}

function checkRun(input: string, out: string) {
  const stem = path.basename(input, '.bvh');
  const a = readBack(input);
  const b = readBack(path.join(out, `${stem}.bvh`));
  expect(b.clip.frameCount).toBe(a.clip.frameCount);
  expect(b.clip.frameTime).toBe(a.clip.frameTime);
  expect(b.layout.joints.map((j) => [j.name, j.parent, j.channels.join(' '), j.offset.join(' ')])).toEqual(
    a.layout.joints.map((j) => [j.name, j.parent, j.channels.join(' '), j.offset.join(' ')]),
  );
  const json = JSON.parse(fs.readFileSync(path.join(out, 'cleanup.json'), 'utf8')) as CleanupFile;
  const F = a.clip.frameCount;
  expect(json.frames).toBe(F);
  expect(json.frameTime).toBe(a.clip.frameTime);
  expect(json.floor.normal).toHaveLength(3);
  expect(Number.isFinite(json.floor.d)).toBe(true);
  const C = a.channelValues!.length / F;
  const weight = new Uint8Array(F);
  for (const foot of ['left', 'right'] as const) {
    const ft = json.feet[foot];
    expect(ft.probability).toHaveLength(F);
    expect(ft.contact).toHaveLength(F);
    expect(ft.probability.every((p) => p >= 0 && p <= 1)).toBe(true);
    // contact is exactly the union of the segments, end exclusive
    const c = new Array(F).fill(0);
    for (const s of ft.segments) {
      expect(s.end).toBeGreaterThan(s.start);
      expect(s.anchor).toHaveLength(3);
      c.fill(1, s.start, s.end);
      // the correction can reach a few frames around a segment (blend ramps): mark a wide margin
      weight.fill(1, Math.max(0, s.start - 10), Math.min(F, s.end + 10));
    }
    expect(ft.contact).toEqual(c);
    for (const k of ['before', 'after'] as const) {
      expect(json.metrics[k][foot].contactFrames).toBe(c.reduce((x, y) => x + y, 0));
    }
  }
  // frames far from every contact: the input's channel values exactly
  let far = 0;
  for (let f = 0; f < F; f++) {
    if (weight[f]) continue;
    far++;
    expect(Array.from(b.channelValues!.subarray(f * C, (f + 1) * C))).toEqual(
      Array.from(a.channelValues!.subarray(f * C, (f + 1) * C)),
    );
  }
  expect(fs.readFileSync(path.join(out, 'cleanup.html'), 'utf8')).toMatch(/^<!DOCTYPE html>/);
  return { json, far };
}

test('the embedded default: sliding feet are pinned, outputs read back in the same layout', async () => {
  const out = path.join(tmp, 'default');
  const r = await runKind(['cleanup', '-o', out]);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  expect(r.out).toMatch(/no take given: using the embedded default/);
  expect(r.out).toMatch(/cleaned 'default-slide' \(121 frames/);
  expect(fs.readdirSync(out).sort()).toEqual(['cleanup.html', 'cleanup.json', 'default-slide.bvh']);
  const { json } = checkRun(path.join(defaultAssetsDir(), 'default-slide.bvh'), out);
  for (const foot of ['left', 'right'] as const) {
    const b = json.metrics.before[foot];
    const a = json.metrics.after[foot];
    expect(json.feet[foot].segments.length).toBeGreaterThanOrEqual(3);
    // the injected slide (12% stretch of 1.2 m/s plus the sway) is there before and mostly gone after
    expect(b.meanContactSpeed).toBeGreaterThan(0.1);
    expect(a.meanContactSpeed).toBeLessThan(0.3 * b.meanContactSpeed);
    expect(a.slideTotal).toBeLessThan(0.3 * b.slideTotal);
  }
  // on every frame, the channels of the joints the cleanup does not move (all but the six leg bones) are
  // the input's values exactly: not passed through float32 rotations and back
  const input = readBack(path.join(defaultAssetsDir(), 'default-slide.bvh'));
  const output = readBack(path.join(out, 'default-slide.bvh'));
  const legs = /^(L|R)(Thigh|Shin|Foot)$/;
  const C = input.channelValues!.length / 121;
  let changedLegValues = 0;
  for (let f = 0; f < 121; f++)
    for (let j = 0, k = 0; j < input.layout.joints.length; j++) {
      const joint = input.layout.joints[j];
      for (let c = 0; c < joint.channels.length; c++, k++) {
        const a = input.channelValues![f * C + k];
        const b = output.channelValues![f * C + k];
        if (legs.test(joint.name)) changedLegValues += a === b ? 0 : 1;
        else expect({ f, joint: joint.name, b }).toEqual({ f, joint: joint.name, b: a });
      }
    }
  expect(changedLegValues).toBeGreaterThan(121 * 6);
  console.log(r.out);
});

describeWithData('kind cleanup on real takes', () => {
  const takes = [
    'bandai-namco-motiondataset/dataset-1_walk_normal_001.bvh',
    'bandai-namco-motiondataset/dataset-1_run_normal_001.bvh',
  ];
  test.each(takes)('%s', async (rel) => {
    const out = path.join(tmp, path.basename(rel, '.bvh'));
    const r = await runKind(['cleanup', dataPath(rel), '-o', out, '-q']);
    expect(r.err).toBe('');
    expect(r.out).toBe('');
    expect(r.code).toBe(0);
    const { json, far } = checkRun(dataPath(rel), out);
    const before = json.metrics.before.left.slideTotal + json.metrics.before.right.slideTotal;
    const after = json.metrics.after.left.slideTotal + json.metrics.after.right.slideTotal;
    expect(after).toBeLessThan(before);
    expect(far + json.framesChanged).toBeLessThanOrEqual(json.frames);
  });
});

describe('bad input: one line naming the place, nothing written', () => {
  const cases: [string, string, RegExp][] = [
    ['not-a-bvh.txt', 'HIERARCHY', /not-a-bvh\.txt: not a BVH file/],
    ['garbage.bvh', 'hello\n', /garbage\.bvh:1: expected HIERARCHY, found "hello"/],
    [
      'binary.bvh',
      'glTF\u0002\u0000\u0000\u0000\u00ff\u00fe binary',
      /binary\.bvh:1: expected HIERARCHY, found binary data \(not BVH text\)$/,
    ],
    [
      'one-frame.bvh',
      fs
        .readFileSync(path.join(defaultAssetsDir(), 'default-slide.bvh'), 'utf8')
        .replace(
          /Frames: 121\nFrame Time: 0.0333333\n([^\n]*\n)[\s\S]*$/,
          'Frames: 1\nFrame Time: 0.0333333\n$1',
        ),
      /one-frame\.bvh: 1 frame; foot cleanup needs at least 2 frames/,
    ],
    [
      'nan.bvh',
      fs
        .readFileSync(path.join(defaultAssetsDir(), 'default-slide.bvh'), 'utf8')
        .replace(/(Frame Time: 0.0333333\n[^\n]*\n)(\S+)/, '$1NaN'),
      /nan\.bvh:131: /,
    ],
    [
      'nofeet.bvh',
      'HIERARCHY\nROOT Hips\n{\n\tOFFSET 0 0 0\n\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n\tJOINT Spine\n\t{\n\t\tOFFSET 0 10 0\n\t\tCHANNELS 3 Zrotation Xrotation Yrotation\n\t\tEnd Site\n\t\t{\n\t\t\tOFFSET 0 10 0\n\t\t}\n\t}\n}\nMOTION\nFrames: 2\nFrame Time: 0.0333333\n0 90 0 0 0 0 0 0 0\n0 90 0 0 0 0 0 0 0\n',
      /nofeet\.bvh: no feet found: /,
    ],
  ];
  test.each(cases)('%s', async (name, text, msg) => {
    const file = path.join(tmp, name);
    fs.writeFileSync(file, text);
    const out = path.join(tmp, `bad-${name}`);
    const r = await runKind(['cleanup', file, '-o', out]);
    expect(r.code).toBe(1);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(msg);
    expect(fs.existsSync(out)).toBe(false);
  });

  test('a take whose root has no position channels (in place) is cleaned with a note saying why it cannot travel', async () => {
    const text = fs.readFileSync(path.join(defaultAssetsDir(), 'default-slide.bvh'), 'utf8');
    const [head, motion] = text.split('MOTION\n');
    const lines = motion.split('\n');
    const inPlace = `${head.replace(
      'CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation',
      'CHANNELS 3 Zrotation Xrotation Yrotation',
    )}MOTION\n${lines
      .map((l, i) => (i < 2 || l.trim() === '' ? l : l.trim().split(/\s+/).slice(3).join(' ')))
      .join('\n')}`;
    expect(inPlace).not.toEqual(text);
    const file = path.join(tmp, 'inplace.bvh');
    fs.writeFileSync(file, inPlace);
    const r = await runKind(['cleanup', file, '-o', path.join(tmp, 'inplace-out')]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/note: the root joint Hip has no position channels \(an in-place take\)/);
    const json = JSON.parse(fs.readFileSync(path.join(tmp, 'inplace-out', 'cleanup.json'), 'utf8'));
    expect(json.warnings.some((w: string) => /in-place take/.test(w))).toBe(true);
  });

  test('an output never replaces an input take: -o its own folder, or a link to it, single and --batch', async () => {
    const dir = path.join(tmp, 'own');
    fs.mkdirSync(dir);
    const take = path.join(dir, 'walk.bvh');
    const other = path.join(dir, 'walk2.bvh');
    fs.copyFileSync(path.join(defaultAssetsDir(), 'default-slide.bvh'), take);
    fs.copyFileSync(path.join(defaultAssetsDir(), 'default-slide.bvh'), other);
    const link = path.join(tmp, 'own-link');
    fs.symlinkSync(dir, link);
    const before = fs.readFileSync(take);
    for (const args of [
      [take, '-o', dir],
      [take, '-o', link],
      [path.join(link, 'walk.bvh'), '-o', dir],
      ['--batch', dir, '-o', dir, '--jobs', '1'],
      ['--batch', dir, '-o', link, '--jobs', '1'],
    ]) {
      const r = await runKind(['cleanup', ...args]);
      expect({ args, code: r.code }).toEqual({ args, code: 1 });
      expect(r.err).toMatch(/would overwrite the input( take)?|choose another/);
      expect(fs.readFileSync(take).equals(before)).toBe(true);
      expect(fs.readdirSync(dir).sort()).toEqual(['walk.bvh', 'walk2.bvh']);
    }
  });

  test('usage errors exit 2', async () => {
    expect((await runKind(['cleanup', '--review-band', '0.7,0.2', '-o', tmp])).code).toBe(2);
    expect((await runKind(['cleanup', '--model', 'magic', '-o', tmp])).code).toBe(2);
    expect((await runKind(['cleanup', '--jobs', '2', '-o', tmp])).code).toBe(2);
    // a detector for a cleanup that was not asked for
    const r = await runKind([
      'retarget',
      path.join(defaultAssetsDir(), 'default-slide.bvh'),
      path.join(defaultAssetsDir(), 'default-avatar.glb'),
      '--cleanup-model',
      'learned',
      '-o',
      path.join(tmp, 'no-cleanup'),
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--cleanup-model applies to --cleanup/);
    expect(fs.existsSync(path.join(tmp, 'no-cleanup'))).toBe(false);
  });
});

describeWithData('kind cleanup --batch and kind retarget --cleanup', () => {
  test('a folder of takes: every take written, a failed one listed, a summary table', async () => {
    const dir = path.join(tmp, 'batch-in');
    fs.mkdirSync(path.join(dir, 'sub'), { recursive: true });
    fs.copyFileSync(path.join(defaultAssetsDir(), 'default-slide.bvh'), path.join(dir, 'slide.bvh'));
    fs.copyFileSync(
      dataPath('bandai-namco-motiondataset/dataset-1_walk_normal_001.bvh'),
      path.join(dir, 'sub', 'walk.bvh'),
    );
    fs.writeFileSync(path.join(dir, 'broken.bvh'), 'HIERARCHY\n');
    const out = path.join(tmp, 'batch-out');
    const r = await runKind(['cleanup', '--batch', dir, '-o', out, '--jobs', '1']);
    expect(r.code).toBe(1); // one take failed
    expect(r.out).toMatch(/cleanup batch: 2 of 3 takes cleaned, 1 failed/);
    expect(r.out).toMatch(/^broken\.bvh\s+failed: .*broken\.bvh:\d+: /m);
    expect(r.out).toMatch(/^slide\.bvh\s+121\s/m);
    expect(fs.readdirSync(out).sort()).toEqual([
      'slide.bvh',
      'slide.cleanup.html',
      'slide.cleanup.json',
      'sub_walk.bvh',
      'sub_walk.cleanup.html',
      'sub_walk.cleanup.json',
      'summary.json',
    ]);
    const summary = JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8'));
    expect(summary.counts).toEqual({ takes: 3, cleaned: 2, failed: 1 });
    const slide = summary.takes.find((t: { name: string }) => t.name === 'slide.bvh');
    const single = JSON.parse(fs.readFileSync(path.join(out, 'slide.cleanup.json'), 'utf8'));
    // the table's figures are the take's own cleanup.json
    expect(slide.slideAfter).toBeCloseTo(
      single.metrics.after.left.slideTotal + single.metrics.after.right.slideTotal,
      12,
    );
    // ... and the supporting point's slide (the terminal's headline) with its heel and toe parts
    for (const [k, m] of [
      ['supportSlide', 'pinnedSlide'],
      ['heelSlide', 'slideHeel'],
      ['toeSlide', 'slideToe'],
    ] as const)
      for (const w of ['before', 'after'] as const)
        expect(slide[`${k}${w === 'before' ? 'Before' : 'After'}`]).toBeCloseTo(
          single.metrics[w].left[m] + single.metrics[w].right[m],
          12,
        );
    expect(slide.supportSlideBefore).toBeCloseTo(slide.heelSlideBefore + slide.toeSlideBefore, 12);
    expect(slide.supportSlideBefore).toBeGreaterThan(0.1);
    // the table prints it first, in cm: the row of slide.bvh carries the before figure
    const row = r.out.split('\n').find((l) => l.startsWith('slide.bvh'))!;
    expect(row.split(/\s{2,}|\s+/)).toContain((slide.supportSlideBefore * 100).toFixed(1));
    expect(r.out).toMatch(/support slide cm before/);
  });

  test('retarget --cleanup: the feet on the avatar slide less than without', async () => {
    const take = dataPath('bandai-namco-motiondataset/dataset-1_walk_normal_001.bvh');
    const avatar = path.join(defaultAssetsDir(), 'default-avatar.glb');
    const plain = path.join(tmp, 'rt-plain');
    const clean = path.join(tmp, 'rt-clean');
    const a = await runKind(['retarget', take, avatar, '-o', plain, '-q']);
    const b = await runKind(['retarget', take, avatar, '-o', clean, '--cleanup', '--cleanup-model', 'rule']);
    expect(a.code).toBe(0);
    expect(b.code).toBe(0);
    expect(b.out).toMatch(/cleanup \(rule contacts\): \d+ left and \d+ right segments/);
    const s = JSON.parse(fs.readFileSync(path.join(clean, 'summary.json'), 'utf8'));
    expect(JSON.parse(fs.readFileSync(path.join(plain, 'summary.json'), 'utf8')).cleanup).toBeUndefined();
    const m = s.cleanup.metrics;
    expect(s.cleanup.framesChanged).toBeGreaterThan(0);
    expect(m.after.left.slideTotal + m.after.right.slideTotal).toBeLessThan(
      0.5 * (m.before.left.slideTotal + m.before.right.slideTotal),
    );
    // the written BVH is the cleaned clip: it differs from the plain retarget's
    expect(fs.readFileSync(path.join(clean, 'dataset-1_walk_normal_001.bvh'), 'utf8')).not.toBe(
      fs.readFileSync(path.join(plain, 'dataset-1_walk_normal_001.bvh'), 'utf8'),
    );
  });
});
