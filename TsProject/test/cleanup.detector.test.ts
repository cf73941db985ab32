/**
 * `kind cleanup` with the real contact detector (src/contact), not the test rule the other cleanup CLI
 * tests swap in: the default (the model card's choice by its detector table, the offline teacher:
 * src/contact/teacher.ts) in this process, `--model rule` and `--model teacher` on real takes, and the
 * learned model through onnxruntime-web in a built CLI (onnxruntime-web does not load inside Jest's VM).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEFAULT_CONTACT_MODEL } from '../src/cli/contactSource';
import { SHIPPED_MODEL_INFO } from '../src/contact';
import { parseBvh } from '../src/io';
import { buildCli, builtCliPaths, removeBuiltCli } from './helpers/builtCli';
import { dataPath, describeWithData } from './helpers/data';
import { runKind } from './helpers/runCli';

const ROOT = path.resolve(__dirname, '..');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-cleanup-detector-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

interface FootJson {
  probability: number[];
  contact: number[];
  segments: { start: number; end: number }[];
}
interface Metrics {
  contactFrames: number;
  pinnedSlide: number;
  pinnedSpeed: number;
}
interface CleanupJson {
  model: string;
  frames: number;
  feet: { left: FootJson; right: FootJson };
  metrics: { before: { left: Metrics; right: Metrics }; after: { left: Metrics; right: Metrics } };
}

function readJson(dir: string): CleanupJson {
  return JSON.parse(fs.readFileSync(path.join(dir, 'cleanup.json'), 'utf8')) as CleanupJson;
}

/** Contacts found on both feet, probabilities in [0, 1], slide during contact at most half of before. */
function expectCleaned(j: CleanupJson, frames: number, minSegments: number): void {
  expect(j.frames).toBe(frames);
  for (const side of ['left', 'right'] as const) {
    const f = j.feet[side];
    expect(f.probability).toHaveLength(frames);
    expect(f.probability.every((p) => p >= 0 && p <= 1)).toBe(true);
    expect(f.segments.length).toBeGreaterThanOrEqual(minSegments);
    // the supporting point (the ankle while the heel is down, the toe during heel-off: issue 20); the
    // ankle itself turns about the pinned toe in heel-off, so its own slide is not the foot's
    const before = j.metrics.before[side];
    const after = j.metrics.after[side];
    expect(before.pinnedSlide).toBeGreaterThan(0);
    expect(after.pinnedSlide).toBeLessThan(0.5 * before.pinnedSlide);
    expect(after.pinnedSpeed).toBeLessThan(0.5 * before.pinnedSpeed);
  }
}

describe('kind cleanup with the real contact detector', () => {
  it("uses the model card's default detector (the teacher) on the embedded default and halves the slide", async () => {
    // the model card's detector table (src/contact/model/MODEL_CARD.md) picks the teacher: best F1 against
    // the judge's reference on held-out clips, clean and degraded
    expect(SHIPPED_MODEL_INFO.defaultModel).toBe('teacher');
    expect(DEFAULT_CONTACT_MODEL).toBe('teacher');
    const out = path.join(work, 'default');
    const r = await runKind(['cleanup', '-o', out, '-q']);
    expect(r.code).toBe(0);
    const j = readJson(out);
    expect(j.model).toBe('teacher');
    const src = parseBvh(fs.readFileSync(path.join(ROOT, 'assets/default/default-slide.bvh'), 'utf8'));
    expectCleaned(j, src.clip.frameCount, 3);
    const back = parseBvh(fs.readFileSync(path.join(out, 'default-slide.bvh'), 'utf8'));
    expect(back.clip.frameCount).toBe(src.clip.frameCount);
    expect(back.clip.frameTime).toBe(src.clip.frameTime);
  });
});

describe('kind retarget --cleanup with the real contact detector', () => {
  const slide = path.join(ROOT, 'assets/default/default-slide.bvh');
  const avatar = path.join(ROOT, 'assets/default/default-avatar.glb');
  it.each([
    ['the default (the teacher)', [], 'teacher'],
    ['--cleanup-model teacher', ['--cleanup-model', 'teacher'], 'teacher'],
    ['--cleanup-model rule', ['--cleanup-model', 'rule'], 'rule'],
  ])('%s', async (_name, extra, model) => {
    const out = path.join(work, `retarget-${model}-${extra.length}`);
    const r = await runKind(['retarget', slide, avatar, '-o', out, '--cleanup', ...extra]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(new RegExp(`cleanup \\(${model} contacts\\): \\d+ left and \\d+ right segments`));
  });
});

describeWithData('kind cleanup with the real detector on real takes', () => {
  const walk = dataPath('bandai-namco-motiondataset/dataset-1_walk_normal_001.bvh');
  const cmu = dataPath('cmu-locomotion/cgspeed-mb/02_01.bvh');

  it.each([
    ['Bandai walk', 'rule', walk],
    ['CMU 02_01 walk', 'rule', cmu],
    ['Bandai walk', 'teacher', walk],
    ['CMU 02_01 walk', 'teacher', cmu],
  ])('%s: --model %s finds contacts on both feet and the slide drops', async (_name, model, file) => {
    const out = path.join(work, `${path.basename(file, '.bvh')}-${model}`);
    const r = await runKind(['cleanup', file, '-o', out, '-q', '--model', model]);
    expect(r.code).toBe(0);
    const frames = parseBvh(fs.readFileSync(file, 'utf8')).clip.frameCount;
    const j = readJson(out);
    expect(j.model).toBe(model);
    expectCleaned(j, frames, 2);
    if (model === 'teacher')
      // the teacher's values are its 0/1 labels
      for (const side of ['left', 'right'] as const)
        expect(j.feet[side].probability.every((p) => p === 0 || p === 1)).toBe(true);
  });

  it('--model-file with --model teacher is a usage error (exit 2)', async () => {
    const r = await runKind([
      'cleanup',
      walk,
      '-o',
      path.join(work, 'x'),
      '--model',
      'teacher',
      '--model-file',
      'm.onnx',
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--model-file applies to --model learned/);
  });

  describe('the learned model through onnxruntime-web (a built CLI in a child process)', () => {
    const built = builtCliPaths('cleanup-detector-test');
    const { bin } = built;
    beforeAll(() => {
      buildCli('cleanup-detector-test');
    });
    afterAll(() => removeBuiltCli(built));

    it('--model learned runs the shipped contact.onnx and cleans the walk', () => {
      const out = path.join(work, 'learned');
      const r = spawnSync(process.execPath, [bin, 'cleanup', walk, '-o', out, '-q', '--model', 'learned'], {
        encoding: 'utf8',
      });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      const j = readJson(out);
      expect(j.model).toBe('learned');
      expectCleaned(j, parseBvh(fs.readFileSync(walk, 'utf8')).clip.frameCount, 2);
    });

    it('--model-file whose output is not a probability (its final sigmoid removed): the error names the model, not the take', () => {
      const { onnx } = require('onnx-proto') as typeof import('onnx-proto');
      const model = onnx.ModelProto.decode(
        fs.readFileSync(path.join(ROOT, 'src/contact/model/contact.onnx')),
      );
      const sig = model.graph!.node!.find((n) => n.opType === 'Sigmoid')!;
      expect(sig).toBeDefined();
      sig.opType = 'Identity';
      const logits = path.join(work, 'no-sigmoid.onnx');
      fs.writeFileSync(logits, onnx.ModelProto.encode(model).finish());
      const out = path.join(work, 'logits');
      const r = spawnSync(process.execPath, [bin, 'cleanup', walk, '-o', out, '--model-file', logits], {
        encoding: 'utf8',
      });
      expect(r.status).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(
        /no-sigmoid\.onnx: the model's output -?[\d.e+-]+ for the (left|right) foot at frame \d+ is not a probability in \[0, 1\]/,
      );
      expect(fs.existsSync(out)).toBe(false);
    });

    it('--model-file that is not an ONNX model: one line naming the file, exit 1, nothing written', () => {
      const out = path.join(work, 'badmodel');
      const bad = path.join(work, 'not-a-model.onnx');
      fs.writeFileSync(bad, 'this is not ONNX');
      const r = spawnSync(process.execPath, [bin, 'cleanup', walk, '-o', out, '--model-file', bad], {
        encoding: 'utf8',
      });
      expect(r.status).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(`${bad}: contact model: not a loadable ONNX model`);
      expect(fs.existsSync(path.join(out, 'cleanup.json'))).toBe(false);
    });
  });
});
