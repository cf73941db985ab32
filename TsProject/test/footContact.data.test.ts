/**
 * Source foot contacts for the foot-height quality figures (issue 10, section 8): Rokoko's
 * `jesse_dance.bvh` counted 0 contact frames for the right foot over 10 s of dancing. Its capture drifts
 * vertically: the right foot stands 13-15 cm above the level both feet start and end at (frames 40-135)
 * while the left leg is raised; one floor level for the whole take missed all of it. Contacts are now the
 * supporting foot (within 3 cm of the lower ankle) held still (horizontally and vertically), speeds
 * measured over 1/30 s whatever the frame rate.
 */
import * as fs from 'node:fs';
import { forwardKinematics, HumanBodyBones as H, readFrame, withHumanoid } from '../src/core';
import { autoMapHumanoid, parseBvh, readAvatar } from '../src/io';
import { measureQuality, retargetClip, sourceContacts, upAxisRotation } from '../src/retarget';
import { dataPath, describeWithData } from './helpers/data';

function loadTake(rel: string) {
  const { clip } = parseBvh(fs.readFileSync(dataPath(rel), 'utf8'), { fileName: rel });
  return { ...clip, skeleton: withHumanoid(clip.skeleton, autoMapHumanoid(clip.skeleton, {}).humanoid) };
}

/** Per foot (left, right): contact flags per frame, from the ankles' world positions (Y up). */
function contacts(clip: ReturnType<typeof loadTake>): Uint8Array[] {
  const sk = clip.skeleton;
  const n = sk.boneCount;
  const F = clip.frameCount;
  const r = new Float64Array(4 * n);
  const p = new Float64Array(3 * n);
  const wr = new Float64Array(4 * n);
  const wp = new Float64Array(3 * n);
  const feet = [H.LeftFoot, H.RightFoot].map((h) => ({
    b: sk.humanoid[h],
    y: new Float64Array(F),
    xz: new Float64Array(2 * F),
    c: new Uint8Array(F),
  }));
  for (let f = 0; f < F; f++) {
    readFrame(clip, f, r, p);
    forwardKinematics(sk, r, p, wr, wp);
    for (const ft of feet) {
      ft.y[f] = wp[3 * ft.b + 1];
      ft.xz[2 * f] = wp[3 * ft.b];
      ft.xz[2 * f + 1] = wp[3 * ft.b + 2];
    }
  }
  const lower = feet[0].y.map((v, f) => Math.min(v, feet[1].y[f]));
  for (const ft of feet) sourceContacts(ft.y, ft.xz, lower, clip.frameTime, ft.c);
  return feet.map((ft) => ft.c);
}

const count = (c: Uint8Array, from = 0, to = c.length - 1) =>
  c.slice(from, to + 1).reduce((a, b) => a + b, 0);

describeWithData('foot contacts on real takes', () => {
  it('jesse_dance.bvh: both feet get contact frames; the right foot planted at frames 40-66 counts', () => {
    const clip = loadTake('animated-drawings/rokoko/jesse_dance.bvh');
    const report = measureQuality(clip, clip).footHeight;
    expect(report.left.contactFrames).toBeGreaterThanOrEqual(50);
    expect(report.right.contactFrames).toBeGreaterThanOrEqual(50);
    const [left, right] = contacts(clip);
    expect(count(right)).toBe(report.right.contactFrames);
    // hand-checked: frames 40-66 the right ankle stays at 0.278-0.290 m, moving under 0.2 m/s, while
    // the left ankle rises from 0.8 to 1.0 m; frames 960-1006 the performer stands on the left foot
    expect(count(right, 40, 66)).toBe(27);
    expect(count(left, 960, 1006)).toBe(47);
    // and the right foot kicked up (ankle 0.5 -> 1.0 m at 2-5 m/s) and the left leg held up: none
    expect(count(right, 172, 200)).toBe(0);
    expect(count(left, 40, 140)).toBe(0);
  });

  it('a level-floor walk keeps its counts (Bandai walk: 81 and 80 frames)', () => {
    const q = measureQuality(
      loadTake('bandai-namco-motiondataset/dataset-1_walk_normal_001.bvh'),
      loadTake('bandai-namco-motiondataset/dataset-1_walk_normal_001.bvh'),
    ).footHeight;
    expect([q.left.contactFrames, q.right.contactFrames]).toEqual([81, 80]);
  });

  it("jesse_dance onto Xbot: the source's drift is not counted as foot height error", async () => {
    const clip = loadTake('animated-drawings/rokoko/jesse_dance.bvh');
    const avatar = await readAvatar(new Uint8Array(fs.readFileSync(dataPath('threejs/Xbot.glb'))), {
      fileName: 'Xbot.glb',
    });
    const { clip: out, retargeter } = retargetClip(clip, avatar.skeleton, { groundContact: true });
    const info = retargeter.info!;
    const options = { sourceAlignment: upAxisRotation(info.sourceUp), standingSkeleton: avatar.skeleton };
    const q = measureQuality(clip, out, { ...options, verticalScale: info.hipsScale }).footHeight;
    const noAllowance = measureQuality(clip, out, { ...options, verticalScale: 0 }).footHeight;
    expect(q.meanAbsM!).toBeLessThan(0.01);
    // the right foot stands 13-15 cm above the start level in the source, and so does the avatar's
    expect(noAllowance.right.meanAbsM!).toBeGreaterThan(0.08);
    expect(q.right.meanAbsM!).toBeLessThan(0.01);
  });
});

describe('sourceContacts (synthetic feet)', () => {
  /** A foot at height y(t) and x(t) sampled at `fps` for `seconds`. */
  const track = (fps: number, seconds: number, y: (t: number) => number, x: (t: number) => number) => {
    const F = Math.round(seconds * fps) + 1;
    const ys = new Float64Array(F);
    const xz = new Float64Array(2 * F);
    for (let f = 0; f < F; f++) {
      ys[f] = y(f / fps);
      xz[2 * f] = x(f / fps);
    }
    return { ys, xz, F };
  };

  it('a still supporting foot counts at any level; sliding, sinking or raised feet do not', () => {
    const run = (y: (t: number) => number, x: (t: number) => number, lowerBy = 0) => {
      const { ys, xz, F } = track(30, 1, y, x);
      const lower = ys.map((v) => v - lowerBy);
      const out = new Uint8Array(F);
      sourceContacts(ys, xz, lower, 1 / 30, out);
      return count(out);
    };
    expect(
      run(
        () => 0.25,
        () => 0,
      ),
    ).toBe(31); // still, 25 cm up (a drifted floor)
    expect(
      run(
        () => 0.1,
        (t) => 0.5 * t,
      ),
    ).toBe(0); // sliding at 0.5 m/s
    expect(
      run(
        (t) => 0.1 - 0.5 * t,
        () => 0,
      ),
    ).toBe(0); // sinking at 0.5 m/s
    expect(
      run(
        () => 0.1,
        () => 0,
        0.05,
      ),
    ).toBe(0); // 5 cm above the other foot
    expect(
      run(
        () => 0.1,
        (t) => 0.3 * t,
        0.02,
      ),
    ).toBe(31); // 2 cm above, creeping at 0.3 m/s
  });

  it('speeds are measured over 1/30 s: +-2 mm of jitter at 120 fps (0.48 m/s frame to frame) is still a planted foot', () => {
    for (const fps of [30, 60, 100, 120]) {
      const jitter = (t: number) => 0.002 * Math.sin(2.3 * Math.round(t * fps));
      const { ys, xz, F } = track(fps, 2, () => 0.1, jitter);
      const out = new Uint8Array(F);
      sourceContacts(ys, xz, ys, 1 / fps, out);
      expect({ fps, n: count(out) }).toEqual({ fps, n: F });
    }
  });
});
