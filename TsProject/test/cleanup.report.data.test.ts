/**
 * Issue 20 item 6, checked from outside on a real take: "the review list carries every frame where the
 * cleanup moves a joint more than a stated amount, with the reason, and cleanup.html shows them".
 *
 * CMU 02_03 (MocapNET export, 25 fps) cleaned with the learned contacts, through a built CLI
 * (`kind cleanup ... --model learned`; onnxruntime does not load inside jest's VM): its cleanup moves leg joints more than the stated review
 * distance (cleanup.json `transitions.reviewJointShift`, 15 cm at a 0.9 m leg, scaled). The judge
 * (test/helpers/judge: its own BVH reader, forward kinematics and leg table, nothing from src) measures
 * on the input and the written output, per frame and leg, how far the hip, knee and ankle joints moved;
 * every frame over the stated distance (plus 1 mm for the file's text precision) must lie in a
 * `jointShift` review range of that foot in cleanup.json, in cleanup.html's timeline (review lane) and
 * in its review table with the sentence. (The judge's toe of a MocapNET take is the mean of the toe
 * joints, not the cleanup's toe joint, so the toe is left to the cleanup's own figures.)
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CleanupFile } from '../src/cleanup-report';
import type { FootLanes } from '../src/cleanup-report/timeline';
import { buildCli, builtCliPaths, removeBuiltCli } from './helpers/builtCli';
import { dataPath, describeWithData } from './helpers/data';
import { legTrack, readBvhText } from './helpers/judge';

const TAKE = 'cmu-locomotion/mocapnet-25fps/02_03.bvh';

describeWithData(
  'item 6 on a real take: every frame a leg joint moved over the review distance is listed',
  () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-cleanup-review-'));
    const built = builtCliPaths('cleanup-review-test');
    const { bin } = built;
    beforeAll(() => {
      buildCli('cleanup-review-test');
    });
    afterAll(() => {
      removeBuiltCli(built);
      fs.rmSync(tmp, { recursive: true, force: true });
    });

    test('CMU 02_03, learned contacts: judge FK of input and output vs the jointShift ranges', () => {
      if (!fs.existsSync(dataPath(TAKE))) return;
      const out = path.join(tmp, 'out');
      const r = spawnSync(
        process.execPath,
        [bin, 'cleanup', dataPath(TAKE), '--model', 'learned', '-o', out, '-q'],
        {
          encoding: 'utf8',
        },
      );
      expect([r.status, r.stderr]).toEqual([0, '']);
      const json = JSON.parse(fs.readFileSync(path.join(out, 'cleanup.json'), 'utf8')) as CleanupFile;
      const html = fs.readFileSync(path.join(out, 'cleanup.html'), 'utf8');
      const page = JSON.parse(html.match(/id="cleanup-data">([\s\S]*?)<\/script>/)![1]) as {
        timeline: Record<'left' | 'right', FootLanes>;
      };
      const src = legTrack(readBvhText(fs.readFileSync(dataPath(TAKE), 'utf8'), '02_03.bvh'));
      const cleaned = legTrack(readBvhText(fs.readFileSync(path.join(out, '02_03.bvh'), 'utf8')), src.frame);
      const limit = json.transitions.reviewJointShift;
      expect(limit).toBeGreaterThan(0.1);
      expect(html).toContain(`joints moved over ${(limit * 100).toFixed(1)} cm are listed for review`);
      let over = 0;
      for (const side of ['left', 'right'] as const) {
        const listed = json.feet[side].review.filter((x) => x.reason === 'jointShift');
        const lane = page.timeline[side].review.filter((x) => x[2] === 'jointShift');
        expect(lane.map((x) => [x[0], x[1]])).toEqual(listed.map((x) => [x.start, x.end]));
        for (const x of listed) {
          expect(x.detail).toMatch(
            /^the cleanup moves the (left|right) (hip|knee|ankle|toe) up to [\d.]+ cm from the source/,
          );
          expect(html).toContain(`jointShift: ${x.detail}`);
        }
        for (let f = 0; f < json.frames; f++) {
          let shift = 0;
          for (const j of ['hip', 'knee', 'ankle'] as const) {
            const a = src.track.points[side][j];
            const b = cleaned.track.points[side][j];
            shift = Math.max(
              shift,
              Math.hypot(a[3 * f] - b[3 * f], a[3 * f + 1] - b[3 * f + 1], a[3 * f + 2] - b[3 * f + 2]),
            );
          }
          if (shift <= limit + 0.001) continue;
          over++;
          const inRange = listed.some((x) => f >= x.start && f < x.end);
          expect({ side, f, shift, inRange }).toEqual({ side, f, shift, inRange: true });
        }
      }
      // the take has such frames (the right ankle, 14.8 cm at frames 89-90)
      expect(over).toBeGreaterThan(0);
    });
  },
);
