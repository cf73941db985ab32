/**
 * The `kind` command line, in process: the embedded default job, its outputs, and bad input.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseBvh } from '../src/io/bvh';
import { runKind } from './helpers/runCli';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const validator = require('gltf-validator') as {
  validateBytes(
    data: Uint8Array,
  ): Promise<{ issues: { numErrors: number; messages: { code: string; message: string }[] } }>;
};

const ASSETS = path.resolve(__dirname, '../assets/default');

const run = runKind;

function tmpDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'kind-cli-'));
}

describe('kind retarget on the embedded default', () => {
  const dir = tmpDir();
  let result: { code: number; out: string; err: string };
  beforeAll(async () => {
    result = await run(['retarget', '-o', dir]);
  });

  it('exits 0 and prints a short summary', () => {
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    expect(result.out).toMatch(
      /retargeted 'default-walk' \(bvh, 21 bones, centimetres \(auto\)\) onto default-avatar.glb/,
    );
    expect(result.out).toMatch(/121 frames at 30\.000 fps/);
  });

  it('writes a GLB that passes the Khronos validator, a BVH that reads back, and summary.json', async () => {
    expect(fs.readdirSync(dir).sort()).toEqual(['default-walk.bvh', 'default-walk.glb', 'summary.json']);
    const report = await validator.validateBytes(
      new Uint8Array(fs.readFileSync(path.join(dir, 'default-walk.glb'))),
    );
    expect(report.issues.messages.filter((m) => (m as { severity?: number }).severity === 0)).toEqual([]);
    expect(report.issues.numErrors).toBe(0);
    const bvh = parseBvh(fs.readFileSync(path.join(dir, 'default-walk.bvh'), 'utf8'), {
      fileName: 'out.bvh',
    });
    expect(bvh.clip.frameCount).toBe(121);
    expect(Math.abs(bvh.clip.frameTime - 0.0333333)).toBeLessThan(1e-7);
    expect(bvh.clip.skeleton.boneCount).toBe(34);
  });

  it('summary.json holds frames, fps, bone counts, the humanoid maps and quality figures', () => {
    const s = JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8'));
    expect(s.frames).toBe(121);
    expect(s.fps).toBeCloseTo(30.00003, 5);
    expect(s.source.bones).toBe(21);
    expect(s.target.bones).toBe(34);
    expect(s.source.humanoid.Hips).toBe('Hip');
    expect(s.source.humanoid.LeftUpperArm).toBe('LUArm');
    expect(s.target.humanoid.LeftUpperArm).toBe('kind:LeftArm');
    const segs = Object.entries(s.quality.segments).filter(([, v]) => v !== null) as [
      string,
      { meanDeg: number; maxDeg: number },
    ][];
    expect(segs.map(([k]) => k).sort()).toEqual(
      [
        'hipsToNeck',
        'leftFoot',
        'leftForearm',
        'leftShin',
        'leftThigh',
        'leftUpperArm',
        'rightFoot',
        'rightForearm',
        'rightShin',
        'rightThigh',
        'rightUpperArm',
      ].sort(),
    );
    for (const [, v] of segs) {
      expect(v.meanDeg).toBeLessThan(2);
      expect(v.maxDeg).toBeLessThan(10);
    }
    // the walk plants each foot for about half of its cycle: contact frames found, and the avatar's
    // ankles stay within 2 cm of their standing height on them
    expect(s.quality.footHeight.left.contactFrames).toBeGreaterThan(30);
    expect(s.quality.footHeight.meanAbsM).toBeLessThan(0.02);
    expect(s.calibration.reference).toBe('rest');
    expect(s.calibration.hipsMode).toBe('scaled');
  });
});

describe('kind retarget options', () => {
  it('--scale puts the scale on the hips node and scales the hips path', async () => {
    const dir = tmpDir();
    const r = await run(['retarget', '-o', dir, '-q', '--scale', '1.25', '--hips', 'scaled']);
    expect(r.code).toBe(0);
    const s = JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8'));
    const base = JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8'));
    expect(s.calibration.avatarScale).toBe(1.25);
    expect(s.quality.footHeight.meanAbsM).toBeLessThan(0.02);
    expect(base.calibration.targetHipsHeightM).toBeGreaterThan(0);
  });

  it('--from-frame calibrates on a frame as is and rejects a frame outside the clip', async () => {
    const dir = tmpDir();
    const ok = await run(['retarget', '-o', dir, '-q', '--from-frame', '0']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8')).calibration.reference).toBe(
      'frame-as-is',
    );
    const bad = await run(['retarget', '-o', tmpDir(), '--from-frame', '999']);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/--from-frame 999: the clip has frames 0\.\.120/);
  });

  it('--help exits 0 and lists the options', async () => {
    const r = await run(['retarget', '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/--from-frame/);
    expect(r.out).toMatch(/--map <json>/);
  });
});

describe('kind retarget bad input', () => {
  it('a missing source: exit 1, one line naming the file, no output written', async () => {
    const dir = tmpDir();
    const r = await run([
      'retarget',
      path.join(dir, 'nope.bvh'),
      path.join(ASSETS, 'default-avatar.glb'),
      '-o',
      dir,
    ]);
    expect(r.code).toBe(1);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/nope\.bvh: no such file/);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('a truncated avatar and a malformed BVH: exit 1 with the place named; nothing half-written', async () => {
    const dir = tmpDir();
    const glb = fs.readFileSync(path.join(ASSETS, 'default-avatar.glb'));
    fs.writeFileSync(path.join(dir, 'cut.glb'), glb.subarray(0, 1000));
    const out = path.join(dir, 'out');
    const r = await run([
      'retarget',
      path.join(ASSETS, 'default-walk.bvh'),
      path.join(dir, 'cut.glb'),
      '-o',
      out,
    ]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/cut\.glb/);
    expect(fs.existsSync(out)).toBe(false);

    const text = fs
      .readFileSync(path.join(ASSETS, 'default-walk.bvh'), 'utf8')
      .replace('Frames: 121', 'Frames: 122');
    fs.writeFileSync(path.join(dir, 'bad.bvh'), text);
    const r2 = await run([
      'retarget',
      path.join(dir, 'bad.bvh'),
      path.join(ASSETS, 'default-avatar.glb'),
      '-o',
      out,
    ]);
    expect(r2.code).toBe(1);
    expect(r2.err).toMatch(/bad\.bvh:\d+: .*122.*121|bad\.bvh:\d+: .*121.*122/);
    expect(fs.existsSync(out)).toBe(false);
  });

  it('an existing output is replaced whole or left alone, never left half-written', async () => {
    const dir = tmpDir();
    fs.writeFileSync(path.join(dir, 'summary.json'), '{"old": true}\n');
    const r = await run([
      'retarget',
      path.join(dir, 'missing.bvh'),
      path.join(ASSETS, 'default-avatar.glb'),
      '-o',
      dir,
    ]);
    expect(r.code).toBe(1);
    expect(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8')).toBe('{"old": true}\n');
    expect(fs.readdirSync(dir)).toEqual(['summary.json']);
  });

  it('a source without a required bone lists what is missing', async () => {
    const dir = tmpDir();
    const text = [
      'HIERARCHY',
      'ROOT Hips',
      '{',
      '  OFFSET 0 90 0',
      '  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation',
      '  JOINT Spine',
      '  {',
      '    OFFSET 0 20 0',
      '    CHANNELS 3 Zrotation Xrotation Yrotation',
      '    JOINT Head',
      '    {',
      '      OFFSET 0 40 0',
      '      CHANNELS 3 Zrotation Xrotation Yrotation',
      '      End Site',
      '      {',
      '        OFFSET 0 10 0',
      '      }',
      '    }',
      '  }',
      '}',
      'MOTION',
      'Frames: 1',
      'Frame Time: 0.0333333',
      '0 90 0 0 0 0 0 0 0 0 0 0',
    ].join('\n');
    fs.writeFileSync(path.join(dir, 'noleg.bvh'), text);
    const r = await run([
      'retarget',
      path.join(dir, 'noleg.bvh'),
      path.join(ASSETS, 'default-avatar.glb'),
      '-o',
      dir,
    ]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/noleg\.bvh/);
    expect(r.err).toMatch(/LeftUpperLeg/);
    expect(r.err).toMatch(/RightHand/);
  });

  it('usage errors exit 2: one file only, an unknown option, a bad number', async () => {
    expect((await run(['retarget', path.join(ASSETS, 'default-walk.bvh')])).code).toBe(2);
    expect((await run(['retarget', '--bogus'])).code).toBe(2);
    expect((await run(['retarget', '--scale', 'abc'])).code).toBe(2);
    expect((await run(['retarget', '--scale', '-1'])).code).toBe(2);
  });
});

describe('kind retarget: outputs and options the trial run found wanting', () => {
  const walk = path.join(ASSETS, 'default-walk.bvh');
  const avatar = path.join(ASSETS, 'default-avatar.glb');

  it('--ground origin and --hips room are accepted and recorded', async () => {
    const dir = tmpDir();
    const r = await run(['retarget', walk, avatar, '-o', dir, '--hips', 'room', '--ground', 'origin']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/hips room, [+-]\d\.\d{3} m leg-length lift/);
    expect(
      JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8')).calibration.hipsScale,
    ).toBeNull();
    const s = JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8'));
    expect(s.calibration.ground).toBe('origin');
    expect(s.calibration.sourceContactHeightM).toBe(0);
    expect(s.source.missingOptional).toEqual(expect.arrayContaining(['LeftEye', 'Jaw']));
  });

  it('all or nothing: when one output cannot be written, earlier outputs are rolled back and no temp file stays', async () => {
    const dir = tmpDir();
    fs.writeFileSync(path.join(dir, 'default-walk.glb'), 'old glb');
    fs.mkdirSync(path.join(dir, 'summary.json'));
    const r = await run(['retarget', walk, avatar, '-o', dir]);
    expect(r.code).toBe(1);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/summary\.json: is a folder/);
    expect(fs.readdirSync(dir).sort()).toEqual(['default-walk.glb', 'summary.json']);
    expect(fs.readFileSync(path.join(dir, 'default-walk.glb'), 'utf8')).toBe('old glb');
  });

  it("never writes an output over an input: -o the source's own folder, the avatar's, a --map file named summary.json", async () => {
    // before: the all-or-nothing write moved the input aside as a "previous output" and replaced it
    const dir = tmpDir();
    const src = path.join(dir, 'default-walk.bvh');
    const av = path.join(dir, 'default-walk.glb');
    fs.copyFileSync(walk, src);
    fs.copyFileSync(avatar, av);
    const before = { src: fs.readFileSync(src), av: fs.readFileSync(av) };
    const a = await run(['retarget', src, avatar, '-o', dir]);
    expect(a.code).toBe(1);
    expect(a.err.trim().split('\n')).toHaveLength(1);
    expect(a.err).toMatch(
      /default-walk\.bvh: would overwrite the source .*default-walk\.bvh; choose another -o folder/,
    );
    // the avatar, through a path with `..` in it
    const b = await run(['retarget', walk, av, '-o', path.join(dir, '..', path.basename(dir))]);
    expect(b.code).toBe(1);
    expect(b.err).toMatch(/default-walk\.glb: would overwrite the avatar /);
    const map = path.join(dir, 'summary.json');
    fs.writeFileSync(map, '{"Jaw": null}');
    const c = await run(['retarget', walk, avatar, '--map', map, '-o', dir]);
    expect(c.code).toBe(1);
    expect(c.err).toMatch(/summary\.json: would overwrite the --map file /);
    expect(fs.readFileSync(src)).toEqual(before.src);
    expect(fs.readFileSync(av)).toEqual(before.av);
    expect(fs.readFileSync(map, 'utf8')).toBe('{"Jaw": null}');
    expect(fs.readdirSync(dir).sort()).toEqual(['default-walk.bvh', 'default-walk.glb', 'summary.json']);
    // an output of the same name elsewhere is fine: the run before is replaced as usual
    const d = await run(['retarget', src, av, '-o', path.join(dir, 'out'), '-q']);
    expect(d.code).toBe(0);
  });

  it('-o followed by an option (-o -q) is a usage error naming it, for every command that writes; nothing is made', async () => {
    const cwd = process.cwd();
    const dir = tmpDir();
    process.chdir(dir);
    try {
      for (const args of [
        ['retarget', walk, avatar, '-o', '-q'],
        ['qa', walk, walk, '-o', '-q'],
        ['cleanup', '-o', '-q'],
        ['puppet', 'render', '-o', '-q'],
      ]) {
        const r = await run(args);
        expect({ cmd: args[0], code: r.code }).toEqual({ cmd: args[0], code: 2 });
        expect(r.err).toMatch(
          /--out: '-q' looks like an option, not a folder \(write \.\/-q for a folder of that name\)/,
        );
      }
      expect(fs.readdirSync(dir)).toEqual([]);
    } finally {
      process.chdir(cwd);
    }
  });

  it('a bad output folder fails before any work, in words: empty, a file in the way', async () => {
    const e1 = await run(['retarget', walk, avatar, '-o', '']);
    expect(e1.code).toBe(2);
    expect(e1.err).toMatch(/--out: empty path/);
    const dir = tmpDir();
    fs.writeFileSync(path.join(dir, 'afile'), 'x');
    const e2 = await run(['retarget', walk, avatar, '-o', path.join(dir, 'afile', 'sub', 'deeper')]);
    expect(e2.code).toBe(1);
    expect(e2.err).toMatch(/afile: is a file, not a folder/);
    expect(e2.err).not.toMatch(/ENOTDIR|EEXIST/);
  });

  it('numbers out of range say so, apart from numbers that are not numbers', async () => {
    const a = await run(['retarget', '--scale', '0']);
    expect(a.code).toBe(2);
    expect(a.err).toMatch(/--scale: 0 is out of range/);
    const b = await run(['retarget', '--fps', 'fast']);
    expect(b.err).toMatch(/--fps: 'fast' is not a number/);
    // absurdly small rates are refused (0.0001 fps: two frames 10 000 s apart), by retarget and qa alike
    for (const cmd of [['retarget'], ['qa', 'golden.bvh', 'retargeted.glb']])
      for (const fps of ['0.0001', '0.5', '1001']) {
        const f = await run([...cmd, '--fps', fps]);
        expect([f.code, f.err]).toEqual([
          2,
          expect.stringContaining(
            `--fps: ${fps} is out of range (at least 1, at most 1000 frames per second)`,
          ),
        ]);
      }
    // the floor itself is a rate: qa goes on to the (missing) files
    const one = await run(['qa', 'nope-golden.bvh', 'nope.glb', '--fps', '1', '-o', tmpDir()]);
    expect([one.code, one.err]).toEqual([1, expect.stringMatching(/nope-golden\.bvh/)]);
    const c = await run(['retarget', '--head-offset', '10,,5']);
    expect(c.code).toBe(2);
  });

  it('source values out of range are blamed on the source, with the frame and bone', async () => {
    const dir = tmpDir();
    const lines = fs.readFileSync(walk, 'utf8').split('\n');
    const first = lines.findIndex((l) => l.startsWith('Frame Time')) + 1;
    const vals = lines[first + 5].split(' ');
    vals[1] = '1e300';
    lines[first + 5] = vals.join(' ');
    fs.writeFileSync(path.join(dir, 'far.bvh'), lines.join('\n'));
    const r = await run(['retarget', path.join(dir, 'far.bvh'), avatar, '-o', path.join(dir, 'out')]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /far\.bvh: frame index 5 \(0-based\) bone 'Hip': translation too large to represent .* out of range/,
    );
    expect(fs.existsSync(path.join(dir, 'out'))).toBe(false);
  });

  it('warns when --from-frame is not the pose it is said to be, and when --source-up disagrees with the data', async () => {
    const dir = tmpDir();
    const r = await run([
      'retarget',
      walk,
      avatar,
      '-o',
      dir,
      '--from-frame',
      '10',
      '--source-up',
      '+z',
      '--fps',
      '60',
    ]);
    expect(r.out).toMatch(/ignored: --fps applies to glTF\/VRM source clips/);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /--from-frame 10 is taken as the performer's T-pose, but its upper arms are \d+ and \d+ degrees/,
    );
    expect(r.out).toMatch(
      /--source-up \+z, but in the calibration frame the source's hips -> head points along \+y/,
    );
  });
});

describe('kind retarget --ik (the live hub over the clip)', () => {
  it('--ik alone is --ik auto: the walk keeps its arms in FK (hands apart) and its feet in IK', async () => {
    const dir = tmpDir();
    const r = await run(['retarget', '-o', dir, '--ik']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /IK auto: frames with IK weight > 0, end-effector error mean\/max over them, bend plane off the source's by >10 deg \(frames\/compared\): leftArm 0\/121 frames, no IK, 0\/121 flipped; rightArm 0\/121 frames, no IK, 0\/121 flipped; leftLeg 121\/121 frames, [0-9.]+\/[0-9.]+ mm, 0\/121 flipped/,
    );
    const s = JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8'));
    expect(s.ik.mode).toBe('auto');
    expect(s.ik.leftArm.ikFrames).toBe(0);
    expect(s.ik.leftArm.meanErrorMm).toBeNull();
    expect(s.ik.rightLeg.ikFrames).toBe(121);
    expect(s.ik.leftLeg.meanErrorMm).toBeLessThan(5);
    // the arms as the plain retarget has them
    expect(s.quality.segments.leftForearm.meanDeg).toBeLessThan(0.001);
  });

  it('--ik off is the plain retarget: the same files, no IK figures', async () => {
    const plain = tmpDir();
    const off = tmpDir();
    expect((await run(['retarget', '-o', plain, '-q'])).code).toBe(0);
    expect((await run(['retarget', '--ik', 'off', '-o', off, '-q'])).code).toBe(0);
    for (const f of ['default-walk.glb', 'default-walk.bvh'])
      expect(fs.readFileSync(path.join(off, f)).equals(fs.readFileSync(path.join(plain, f)))).toBe(true);
    const s = JSON.parse(fs.readFileSync(path.join(off, 'summary.json'), 'utf8'));
    expect(s.ik).toBeUndefined();
  });

  it('--ik on forces IK on all four limbs and adds per-limb IK figures to summary.json', async () => {
    const dir = tmpDir();
    const r = await run(['retarget', '-o', dir, '--ik', 'on']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/IK on: .*leftArm 121\/121 frames, [0-9.]+\/[0-9.]+ mm, \d+\/\d+ flipped/);
    const s = JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8'));
    expect(s.ik.mode).toBe('on');
    for (const limb of ['leftArm', 'rightArm', 'leftLeg', 'rightLeg']) {
      expect(s.ik[limb].ikFrames).toBe(121);
      expect(s.ik[limb].maxErrorMm).toBeGreaterThanOrEqual(s.ik[limb].meanErrorMm);
    }
    // the walk's planted feet are reached within a few millimetres (the knee construction with these
    // proportions); the avatar's arms are shorter than the performer's: its hands stop short
    expect(s.ik.leftLeg.meanErrorMm).toBeLessThan(5);
    expect(s.ik.rightLeg.bendPlaneFlips).toBe(0);
    expect(s.ik.leftArm.meanErrorMm).toBeGreaterThan(10);
    expect(s.quality.footHeight.meanAbsM).toBeLessThan(0.02);
  });
});

describe('usage errors', () => {
  it('bare kind prints the help on stderr and exits 2', async () => {
    const r = await run([]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/Usage: kind/);
  });

  it('with --ik the hub ranges are checked before anything loads', async () => {
    const dir = tmpDir();
    let r = await run(['retarget', '--ik', '--scale', '100', '-o', dir]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--scale: 100 is out of range with --ik \(0\.1\.\.3\)/);
    r = await run(['retarget', '--ik', 'on', '--head-offset', '200,0,0', '-o', dir]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--head-offset: 200,0,0 is out of range with --ik/);
    expect(fs.readdirSync(dir)).toEqual([]);
    // --ik off is the plain retarget: its ranges
    r = await run(['retarget', '--ik', 'off', '--scale', '100', '-o', dir, '-q']);
    expect(r.code).toBe(0);
    fs.rmSync(dir, { recursive: true });
  });

  it('--ik takes auto, on or off; anything else is a usage error naming the option and the values', async () => {
    const dir = tmpDir();
    let r = await run(['retarget', '--ik', 'maybe', '-o', dir]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--ik: 'maybe' is not one of auto, on, off/);
    // a bare --ik before the file names is --ik auto: the file stays a file (as before the modes existed)
    const before = tmpDir();
    r = await run([
      'retarget',
      '--ik',
      path.join(ASSETS, 'default-walk.bvh'),
      path.join(ASSETS, 'default-avatar.glb'),
      '-o',
      before,
      '-q',
    ]);
    expect(r.code).toBe(0);
    const summary = JSON.parse(fs.readFileSync(path.join(before, 'summary.json'), 'utf8'));
    expect(summary.ik.mode).toBe('auto');
    r = await run(['retarget', '--ik=On', '-o', dir]);
    expect(r.code).toBe(2);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

describe('kind retarget with a .gltf and its external .bin', () => {
  it('reads the .bin next to the .gltf (names with spaces), and names the missing file when it is not there', async () => {
    const dir = tmpDir();
    const glb = fs.readFileSync(path.join(ASSETS, 'default-avatar.glb'));
    const jsonLen = glb.readUInt32LE(12);
    const json = JSON.parse(glb.subarray(20, 20 + jsonLen).toString('utf8'));
    const binLen = glb.readUInt32LE(20 + jsonLen);
    const bin = glb.subarray(28 + jsonLen, 28 + jsonLen + binLen);
    json.buffers[0].uri = 'avatar%20data.bin';
    fs.writeFileSync(path.join(dir, 'avatar.gltf'), JSON.stringify(json));
    fs.writeFileSync(path.join(dir, 'avatar data.bin'), bin);
    const ok = await run([
      'retarget',
      path.join(ASSETS, 'default-walk.bvh'),
      path.join(dir, 'avatar.gltf'),
      '-o',
      path.join(dir, 'out'),
    ]);
    expect(ok.code).toBe(0);
    expect(fs.existsSync(path.join(dir, 'out', 'default-walk.glb'))).toBe(true);
    fs.rmSync(path.join(dir, 'avatar data.bin'));
    const bad = await run([
      'retarget',
      path.join(ASSETS, 'default-walk.bvh'),
      path.join(dir, 'avatar.gltf'),
      '-o',
      path.join(dir, 'out2'),
    ]);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/avatar\.gltf: buffer 0 'avatar%20data\.bin' not found/);
  });
});

describe('kind inspect', () => {
  it('prints the skeleton, the humanoid map and what is missing', async () => {
    const r = await run(['inspect', path.join(ASSETS, 'default-avatar.glb')]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/34 bones/);
    expect(r.out).toMatch(/kind:LeftArm\s+\[LeftUpperArm\]/);
    expect(r.out).toMatch(/all 15 required humanoid bones found/);
    expect(r.out).toMatch(/missing optional: .*LeftMiddleProximal/);
    const png = await run(['inspect', path.join(ASSETS, 'README.md')]);
    expect(png.code).toBe(1);
    expect(png.err).toMatch(/kind inspect reads \.bvh, \.glb, \.gltf or \.vrm files/);
    const b = await run(['inspect', path.join(ASSETS, 'default-walk.bvh')]);
    expect(b.out).toMatch(/21 joints, 121 frames/);
    expect(b.out).toMatch(/LUArm\s+\[LeftUpperArm\]/);
  });

  it('a folder or an empty path is called that, not a file with no extension', async () => {
    // before: `kind inspect <folder>` and an avatar folder said "(got 'no extension')", '' printed "kind: : ..."
    const dir = tmpDir();
    const walk = path.join(ASSETS, 'default-walk.bvh');
    for (const args of [
      ['inspect', dir],
      ['retarget', walk, dir, '-o', path.join(dir, 'o')],
    ]) {
      const r = await run(args);
      expect(r.code).toBe(1);
      expect(r.err.trim()).toBe(`kind: ${dir}: is a folder, expected a file`);
    }
    for (const args of [
      ['inspect', ''],
      ['retarget', '', path.join(ASSETS, 'default-avatar.glb'), '-o', path.join(dir, 'o')],
    ]) {
      const r = await run(args);
      expect(r.code).toBe(1);
      expect(r.err.trim()).toBe("kind: '' (an empty path): no such file or folder");
    }
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
