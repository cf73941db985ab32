/**
 * `kind mocap` (src/cli/mocap.ts): the real squat recording -> <dir>/pose_squats.bvh and mocap.json, read
 * back; bad input as one-line errors naming the file and field (exit 1, nothing written); usage errors
 * (exit 2); and SIGINT / SIGTERM on a private build leave the previous outputs or the complete new set.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseBvh } from '../src/io/bvh';
import { MOCAP_BONES } from '../src/mocap';
import { type BuiltCli, buildCli, removeBuiltCli } from './helpers/builtCli';
import { dataPath, describeWithData } from './helpers/data';
import { frameOf, IMAGE, tPosePoints } from './helpers/mocapPose';
import { runKind } from './helpers/runCli';

let work: string;
beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-mocap-'));
});
afterAll(() => {
  fs.rmSync(work, { recursive: true, force: true });
});

const squat = () => dataPath('pose-landmarks/pose_squats.full.json');

describeWithData('kind mocap on the real squat', () => {
  it('writes pose_squats.bvh (HumanBodyBones, cm, ZXY, 5 fps) and mocap.json; the summary names the figures', async () => {
    const out = path.join(work, 'squat');
    const r = await runKind(['mocap', squat(), '--image-size', '720x1280', '--fps', '5', '-o', out]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /^mocap: 65 frames at 5 fps \(12\.8 s\), calibrated on 30 frames, heading -32\.1 deg/,
    );
    expect(r.out).toMatch(/bones: measured 100\.0%, held 0\.0%, filled 0\.0%/);
    expect(r.out).toMatch(/knees: left 74-168 deg, right 69-166 deg/);
    expect(fs.readdirSync(out).sort()).toEqual(['mocap.json', 'pose_squats.bvh']);
    const text = fs.readFileSync(path.join(out, 'pose_squats.bvh'), 'utf8');
    const bvh = parseBvh(text, { fileName: 'pose_squats.bvh' });
    expect(bvh.unitGuess).toMatch(/centimetres/);
    expect(bvh.clip.skeleton.names).toEqual([...MOCAP_BONES]);
    expect(bvh.clip.frameCount).toBe(65);
    expect(bvh.clip.frameTime).toBeCloseTo(0.2, 9);
    expect(bvh.layout.joints[1].channels).toEqual(['Zrotation', 'Xrotation', 'Yrotation']);
    const json = JSON.parse(fs.readFileSync(path.join(out, 'mocap.json'), 'utf8'));
    expect(json.tool).toBe('kind mocap');
    expect(json.bones).toEqual([...MOCAP_BONES]);
    expect(json.frames).toHaveLength(65);
    expect(json.frames[0].state).toHaveLength(21);
    expect(json.frames[0].confidence[0]).toBeCloseTo(0.8, 6); // visibility unknown: 0.8
    expect(json.calibration.frames).toHaveLength(30);
    expect(json.options).toMatchObject({ visibilityThreshold: 0.5, fovDeg: 60, smoothMinCutoff: 0 });
    expect(json.summary.knees.left.min).toBeLessThan(90);
  });
});

describe('kind mocap on the embedded recording', () => {
  it("reports the rate as kind puppet does (30.0 Hz: frames over the span) and writes the BVH's Frame Time from it", async () => {
    const rec = path.join(__dirname, '..', 'assets', 'default', 'puppet', 'recording.json');
    const t = JSON.parse(fs.readFileSync(rec, 'utf8')).frames.map(
      (f: { timestampMs: number }) => f.timestampMs,
    );
    const out = path.join(work, 'embedded');
    const r = await runKind(['mocap', rec, '-o', out]);
    expect([r.code, r.err]).toEqual([0, '']);
    const span = (t[t.length - 1] - t[0]) / 1000;
    expect(((t.length - 1) / span).toFixed(1)).toBe('30.0'); // kind puppet's figure
    expect(r.out).toMatch(new RegExp(`^mocap: ${t.length} frames at 30 fps \\(${span.toFixed(3)} s\\)`));
    const bvh = parseBvh(fs.readFileSync(path.join(out, 'recording.bvh'), 'utf8'), {
      fileName: 'recording.bvh',
    });
    expect(bvh.clip.frameTime).toBeCloseTo(1 / 30, 6);
    expect(JSON.parse(fs.readFileSync(path.join(out, 'mocap.json'), 'utf8')).summary.fps).toBe(30);
  });
});

describeWithData('kind mocap with an avatar', () => {
  it('retargets the result onto Xbot through kind retarget (<dir>/retarget/: glb, bvh, summary.json)', async () => {
    const out = path.join(work, 'xbot');
    const r = await runKind([
      'mocap',
      squat(),
      dataPath('threejs/Xbot.glb'),
      '--image-size',
      '720x1280',
      '--fps',
      '5',
      '-o',
      out,
    ]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/retargeted 'pose_squats' \(bvh, 21 bones, centimetres \(auto\)\) onto Xbot\.glb/);
    expect(r.out).toMatch(/calibration: rest -> T-pose/);
    expect(fs.readdirSync(path.join(out, 'retarget')).sort()).toEqual([
      'pose_squats.bvh',
      'pose_squats.glb',
      'summary.json',
    ]);
    expect(fs.readdirSync(out).sort()).toEqual(['mocap.json', 'pose_squats.bvh', 'retarget']);
  });

  it('--cleanup cleans the feet on the avatar as kind retarget --cleanup does (summary.json cleanup, less slide); usage errors exit 2', async () => {
    const out = path.join(work, 'xbot-clean');
    const args = ['mocap', squat(), dataPath('threejs/Xbot.glb'), '--image-size', '720x1280', '--fps', '5'];
    const r = await runKind([...args, '-o', out, '--cleanup', '--cleanup-model', 'rule']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/cleanup \(rule contacts\): \d+ left and \d+ right segments/);
    const s = JSON.parse(fs.readFileSync(path.join(out, 'retarget', 'summary.json'), 'utf8'));
    expect(s.cleanup.model).toBe('rule');
    expect(s.cleanup.supportingSlide.after.total).toBeLessThan(s.cleanup.supportingSlide.before.total);
    // --cleanup-model without --cleanup, and --cleanup without an avatar: exit 2, nothing written
    const noClean = await runKind([
      ...args.slice(0, 2),
      '--cleanup-model',
      'rule',
      '-o',
      path.join(work, 'nc'),
    ]);
    expect([noClean.code, noClean.err.trim()]).toEqual([
      2,
      'kind: --cleanup-model applies to --cleanup (add --cleanup to clean the feet)',
    ]);
    const noAvatar = await runKind([...args.slice(0, 2), '--cleanup', '-o', path.join(work, 'na')]);
    expect(noAvatar.code).toBe(2);
    expect(noAvatar.err).toMatch(
      /--cleanup cleans the feet on an avatar: give a landmark file and an avatar/,
    );
    expect(fs.existsSync(path.join(work, 'nc')) || fs.existsSync(path.join(work, 'na'))).toBe(false);
  });

  const avatarArgs = (out: string, fps: string) => [
    'mocap',
    squat(),
    dataPath('threejs/Xbot.glb'),
    '--image-size',
    '720x1280',
    '--fps',
    fps,
    '-o',
    out,
    '-q',
  ];

  it('a retarget/ that cannot be replaced (a file there): exit 1 naming it, the previous BVH and mocap.json untouched', async () => {
    const out = path.join(work, 'xbot-file');
    fs.mkdirSync(out);
    fs.writeFileSync(path.join(out, 'pose_squats.bvh'), 'previous bvh');
    fs.writeFileSync(path.join(out, 'mocap.json'), 'previous json');
    fs.writeFileSync(path.join(out, 'retarget'), 'a file');
    const r = await runKind(avatarArgs(out, '5'));
    expect(r.code).toBe(1);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/retarget: is a file/);
    expect(fs.readdirSync(out).sort()).toEqual(['mocap.json', 'pose_squats.bvh', 'retarget']);
    expect(fs.readFileSync(path.join(out, 'pose_squats.bvh'), 'utf8')).toBe('previous bvh');
    expect(fs.readFileSync(path.join(out, 'mocap.json'), 'utf8')).toBe('previous json');
  });

  it('an avatar that fails to load: exit 1 naming it, nothing written (not even the output folder)', async () => {
    const bad = path.join(work, 'junk.glb');
    fs.writeFileSync(bad, 'not a glb');
    const out = path.join(work, 'xbot-junk');
    const r = await runKind(['mocap', squat(), bad, '--image-size', '720x1280', '--fps', '5', '-o', out]);
    expect(r.code).toBe(1);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/junk\.glb/);
    expect(fs.existsSync(out)).toBe(false);
  });

  // as root, permissions do not bite
  (process.getuid?.() === 0 ? it.skip : it)(
    'a read-only retarget/: exit 1 naming it, nothing of the previous run replaced',
    async () => {
      const out = path.join(work, 'xbot-ro');
      expect((await runKind(avatarArgs(out, '5'))).code).toBe(0);
      const before = snapshot(out);
      const ro = path.join(out, 'retarget');
      fs.chmodSync(ro, 0o555);
      try {
        const r = await runKind(avatarArgs(out, '10'));
        expect(r.code).toBe(1);
        expect(r.err.trim().split('\n')).toHaveLength(1);
        expect(r.err).toMatch(/retarget/);
        expect(snapshot(out)).toEqual(before);
      } finally {
        fs.chmodSync(ro, 0o755);
      }
    },
  );
});

/** Every file under `dir` (relative path -> text), to compare whole output folders. */
function snapshot(dir: string): Record<string, string> {
  const r: Record<string, string> = {};
  for (const f of fs.readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (f.isFile())
      r[path.relative(dir, path.join(f.parentPath, f.name))] = fs.readFileSync(
        path.join(f.parentPath, f.name),
        'latin1',
      );
  return r;
}

describeWithData('kind mocap into a folder holding an earlier run', () => {
  it("a different recording: a note names the earlier run's BVH and retarget/ left beside the new set (not deleted)", async () => {
    const out = path.join(work, 'stale');
    const first = await runKind([
      'mocap',
      squat(),
      dataPath('threejs/Xbot.glb'),
      ...['--image-size', '720x1280', '--fps', '5', '-o', out, '-q'],
    ]);
    expect(first.code).toBe(0);
    const f = path.join(work, 'take.json');
    fs.writeFileSync(
      f,
      JSON.stringify({ image: IMAGE, frames: [frameOf(tPosePoints(), { timestampMs: 0 })] }),
    );
    const r = await runKind(['mocap', f, '-o', out]);
    expect([r.code, r.err]).toEqual([0, '']);
    expect(r.out).toContain(
      `note: left from an earlier run, not written by this one: ${path.join(out, 'pose_squats.bvh')}, ${path.join(out, 'retarget')}${path.sep}`,
    );
    expect(fs.readdirSync(out).sort()).toEqual(['mocap.json', 'pose_squats.bvh', 'retarget', 'take.bvh']);
    // the same recording again: nothing stale but retarget/
    const again = await runKind(['mocap', f, '-o', out]);
    expect(again.out).toContain(
      `note: left from an earlier run, not written by this one: ${path.join(out, 'retarget')}${path.sep}`,
    );
  });
});

describe('kind mocap: bad input and usage', () => {
  const write = (name: string, value: unknown) => {
    const f = path.join(work, name);
    fs.writeFileSync(f, typeof value === 'string' ? value : JSON.stringify(value));
    return f;
  };

  it('one-line errors naming the file and field, exit 1, nothing written', async () => {
    const out = path.join(work, 'bad-out');
    const cases: [string, RegExp][] = [
      [path.join(work, 'missing.json'), /missing\.json/],
      [
        write('broken.json', '{ "image": { "width": 1280, "height": 720 }, "frames": [ }'),
        /broken\.json:1:\d+: not valid JSON/,
      ],
      [
        write('noworld.json', {
          image: IMAGE,
          frames: [0, 1].map((i) => ({
            ...frameOf(tPosePoints(), { timestampMs: i * 33 }),
            worldLandmarks: undefined,
          })),
        }),
        /noworld\.json: frames: no frame has 33 world landmarks/,
      ],
      [
        write('nan.json', {
          image: IMAGE,
          frames: [
            { ...frameOf(tPosePoints(), { timestampMs: 0 }), worldLandmarks: [{ x: 0, y: null, z: 0 }] },
          ],
        }),
        /nan\.json: frame 0, worldLandmarks: has 1 landmarks/,
      ],
      [
        write('nobody.json', {
          image: IMAGE,
          frames: [0, 1].map((i) => ({ ...frameOf(tPosePoints(), { timestampMs: i * 33 }), landmarks: [] })),
        }),
        /nobody\.json: frames: no person in any of the 2 frame\(s\)/,
      ],
    ];
    for (const [file, msg] of cases) {
      const r = await runKind(['mocap', file, '-o', out]);
      expect([file, r.code]).toEqual([file, 1]);
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(r.err).toMatch(msg);
    }
    expect(fs.existsSync(out)).toBe(false);
  });

  it('usage errors exit 2: a bad --port (no file: the page server), a bad --fov, -o that looks like an option; an unreadable avatar exits 1 first', async () => {
    const port = await runKind(['mocap', '--port', '70000']);
    expect(port.code).toBe(2);
    expect(port.err).toMatch(/--port: '70000' is not 0\.\.65535/);
    const f = write('ok.json', { image: IMAGE, frames: [frameOf(tPosePoints(), { timestampMs: 0 })] });
    const fov = await runKind(['mocap', f, '--fov', '0']);
    expect(fov.code).toBe(2);
    expect(fov.err).toMatch(/--fov: 0 is out of range/);
    expect((await runKind(['mocap', f, '-o', '-q'])).code).toBe(2);
    // an avatar that cannot be read: exit 1 before anything is written
    const out = path.join(work, 'no-avatar');
    const r = await runKind(['mocap', f, path.join(work, 'nothere.glb'), '-o', out]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/nothere\.glb/);
    expect(fs.existsSync(out)).toBe(false);
    // and the one frame of that file is enough to write a take
    const one = await runKind(['mocap', f, '-o', path.join(work, 'one'), '-q']);
    expect([one.code, one.err]).toEqual([0, '']);
    expect(fs.readdirSync(path.join(work, 'one')).sort()).toEqual(['mocap.json', 'ok.bvh']);
  });
});

describeWithData('kind mocap interrupted', () => {
  let cli: BuiltCli;
  beforeAll(() => {
    cli = buildCli('mocap-test');
  });
  afterAll(() => removeBuiltCli(cli));

  it('SIGINT / SIGTERM at several points: the previous outputs or the new ones, no .tmp or .bak; 130 / 143 or 0 (finished)', async () => {
    const out = path.join(work, 'interrupt');
    fs.mkdirSync(out);
    fs.writeFileSync(path.join(out, 'pose_squats.bvh'), 'previous bvh');
    fs.writeFileSync(path.join(out, 'mocap.json'), 'previous json');
    const args = [cli.bin, 'mocap', squat(), '--image-size', '720x1280', '--fps', '5', '-o', out, '-q'];
    const outcomes: string[] = [];
    for (const [sig, delay] of [
      ['SIGINT', 50],
      ['SIGTERM', 150],
      ['SIGINT', 300],
      ['SIGTERM', 600],
      ['SIGINT', 20000], // after the run: exit 0, the new set
    ] as const) {
      const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => {
        err += d;
      });
      const timer = setTimeout(() => child.kill(sig), delay);
      const code: number | null = await new Promise((resolve) => child.on('close', (c) => resolve(c)));
      clearTimeout(timer);
      const files = fs.readdirSync(out).sort();
      expect(files).toEqual(['mocap.json', 'pose_squats.bvh']);
      const bvh = fs.readFileSync(path.join(out, 'pose_squats.bvh'), 'utf8');
      const json = fs.readFileSync(path.join(out, 'mocap.json'), 'utf8');
      const old = bvh === 'previous bvh';
      expect(json === 'previous json').toBe(old); // never a mix
      if (code === 0) expect(err).toBe('');
      else if (code === null)
        expect(old).toBe(true); // killed before its handler was set up: nothing written
      else {
        expect(code).toBe(sig === 'SIGINT' ? 130 : 143);
        expect(err.trim().split('\n')).toHaveLength(1);
        expect(err).toMatch(/^kind mocap: interrupted/);
      }
      outcomes.push(`${sig}@${delay}ms: ${code} ${old ? 'previous' : 'new'}`);
      if (!old) {
        fs.writeFileSync(path.join(out, 'pose_squats.bvh'), 'previous bvh');
        fs.writeFileSync(path.join(out, 'mocap.json'), 'previous json');
      }
    }
    expect(outcomes).toHaveLength(5);
    expect(outcomes[4]).toMatch(/: 0 new$/);
    console.log(`kind mocap interrupted: ${outcomes.join('; ')}`);
  });

  it('with an avatar, SIGINT as each staged file appears: the folder is all the previous run or all the new one', async () => {
    const out = path.join(work, 'interrupt-avatar');
    const args = (fps: string) => [
      cli.bin,
      'mocap',
      squat(),
      dataPath('threejs/Xbot.glb'),
      '--image-size',
      '720x1280',
      '--fps',
      fps,
      '-o',
      out,
      '-q',
    ];
    const run = (fps: string, when?: (names: string[]) => boolean) =>
      new Promise<{ code: number | null; err: string }>((resolve) => {
        const child = spawn(process.execPath, args(fps), { stdio: ['ignore', 'ignore', 'pipe'] });
        let err = '';
        child.stderr.setEncoding('utf8').on('data', (d: string) => {
          err += d;
        });
        // the moment is chosen by what has appeared in the folder, not by time
        const poll = when
          ? setInterval(() => {
              let names: string[] = [];
              try {
                names = fs.readdirSync(out, { recursive: true }).map(String);
              } catch {}
              if (when(names)) {
                clearInterval(poll);
                child.kill('SIGINT');
              }
            }, 2)
          : undefined;
        child.on('close', (code) => {
          if (poll) clearInterval(poll);
          resolve({ code, err });
        });
      });
    expect((await run('5')).code).toBe(0);
    const previous = snapshot(out);
    expect(Object.keys(previous).sort()).toEqual([
      'mocap.json',
      'pose_squats.bvh',
      'retarget/pose_squats.bvh',
      'retarget/pose_squats.glb',
      'retarget/summary.json',
    ]);
    const topBvhIsNew = () => {
      try {
        return /Frame Time:\s+0\.1\s/.test(fs.readFileSync(path.join(out, 'pose_squats.bvh'), 'utf8'));
      } catch {
        return false;
      }
    };
    const triggers: [string, (n: string[]) => boolean][] = [
      ['source BVH staged', (n) => n.some((x) => /\.source\.\d+\.tmp\/pose_squats\.bvh$/.test(x))],
      ['retarget/ staged', (n) => n.some((x) => /^retarget\.\d+\.tmp$/.test(x))],
      ['the retarget writing its glb', (n) => n.some((x) => /pose_squats\.glb\.\d+\.tmp$/.test(x))],
      ['the top BVH replaced', () => topBvhIsNew()],
      ['a backup made', (n) => n.some((x) => /\.bak$/.test(x))],
    ];
    const outcomes: string[] = [];
    for (const [what, when] of triggers) {
      const r = await run('10', when);
      const now = snapshot(out);
      const old = JSON.stringify(now) === JSON.stringify(previous);
      if (!old) {
        // entirely the new run: 10 fps at the top and in retarget/
        expect(Object.keys(now).sort()).toEqual(Object.keys(previous).sort());
        expect(now['pose_squats.bvh']).toMatch(/Frame Time:\s+0\.1\s/);
        expect(now['retarget/pose_squats.bvh']).toMatch(/Frame Time:\s+0\.1\s/);
        expect(JSON.parse(now['retarget/summary.json']).fps).toBeCloseTo(10, 6);
        expect(JSON.parse(now['mocap.json']).summary.fps).toBeCloseTo(10, 6);
      }
      if (r.code !== 0) {
        expect(r.code).toBe(130);
        expect(r.err.trim().split('\n')).toHaveLength(1);
        expect(r.err).not.toMatch(/\.tmp/); // never names a staged file
      }
      outcomes.push(`${what}: ${r.code} ${old ? 'previous' : 'new'}`);
      if (!old) {
        fs.rmSync(out, { recursive: true });
        expect((await run('5')).code).toBe(0);
      }
    }
    console.log(`kind mocap with an avatar interrupted: ${outcomes.join('; ')}`);
  });
});
