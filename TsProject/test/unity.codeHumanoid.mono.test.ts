/**
 * Issue 21 part 6, "a first scene without bringing assets": the Unity-free C# behind the sample scene's
 * code-made humanoids (Runtime/Humanoid/KindHumanoidProportions.cs) and its default-walk source
 * (Runtime/Sources/KindTake.cs, fed by the bundle's defaultTake()), compiled with Mono's mcs and run under
 * plain Mono with test/fixtures/KindCodeHumanoidHost.cs:
 * - every sample proportion set (adult, tall, child) is a valid Unity humanoid skeleton: HumanBodyBones
 *   names, every bone Unity requires (HumanTrait.RequiredBone), parents first and consistent with the
 *   humanoid hierarchy (HumanTrait.GetParentBone), positive lengths, left/right mirror images, standing on
 *   the floor (the hips at the leg length, the ankles at the ankle height, the toes at or above y = 0);
 *   the three differ as their names say;
 * - KindTake parses the real bundle's defaultTake() JSON into the take the TypeScript loader reads
 *   (frame count, bones, humanoid map), loops frames by time, walks on the spot after RemoveTravel, and
 *   names the field of a malformed take.
 * - KindBundleFolder (where the Editor reads the bundle) picks the scene's folder, then the project's, then
 *   the package's Resources, and finds the file `node tools/watch.mjs --out <folder>` writes.
 * The Unity half (transforms, AvatarBuilder.BuildHumanAvatar, Animator, capsules) needs Unity: it is
 * compiled by tools/check-csharp.mjs only, never run here.
 * Skipped with a printed reason without mcs/mono.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vm from 'node:vm';
import { HUMAN_BONE_NAMES, nearestMappedAncestor, REQUIRED_HUMAN_BONES } from '../src/core';
import { defaultAssetsDir, loadSource } from '../src/io/node';
import { monoAvailable } from './helpers/mono';
import { bundleAsScript, freshBundle } from './unity.helpers';

const HAS = monoAvailable('code-made humanoids');
const PKG = path.resolve(__dirname, '../../Packages/com.kind.retargeting');
const SOURCES = [
  'Runtime/Humanoid/KindHumanoidProportions.cs',
  'Runtime/Sources/KindTake.cs',
  'Runtime/Bridge/KindJson.cs',
  'Runtime/Bridge/KindBundleFolder.cs',
].map((p) => path.join(PKG, p));
const HOST = path.join(__dirname, 'fixtures/KindCodeHumanoidHost.cs');

interface Bone {
  name: string;
  hbb: number;
  parent: number;
  offset: number[];
  tip: number[];
  radius: number;
  length: number;
}
interface ProportionSet {
  name: string;
  hipsHeight: number;
  height: number;
  ankleHeight: number;
  toeHeight: number;
  bones: Bone[];
  world: number[];
}

let dir = '';
let exe = '';
const run = (...args: string[]) => execFileSync('mono', [exe, ...args], { encoding: 'utf8' }).trim();

(HAS ? describe : describe.skip)('code-made humanoids and the default take (C# under Mono)', () => {
  let sets: ProportionSet[] = [];
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-code-humanoid-'));
    exe = path.join(dir, 'host.exe');
    execFileSync('mcs', ['-nologo', '-warnaserror+', `-out:${exe}`, ...SOURCES, HOST], { stdio: 'pipe' });
    sets = JSON.parse(run('proportions')) as ProportionSet[];
  });
  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('three sets: adult, tall, child', () => {
    expect(sets.map((s) => s.name)).toEqual(['Adult', 'Tall', 'Child']);
  });

  it('each set is a Unity humanoid: HumanBodyBones names, the required bones, parents consistent with the humanoid hierarchy', () => {
    for (const s of sets) {
      const hbbs = s.bones.map((b) => b.hbb);
      expect(new Set(hbbs).size).toBe(hbbs.length); // one transform per human bone
      for (const b of s.bones) expect(b.name).toBe(HUMAN_BONE_NAMES[b.hbb]);
      for (const r of REQUIRED_HUMAN_BONES) expect(hbbs).toContain(r);
      expect(s.bones).toHaveLength(21); // body, shoulders, neck, chest and toes; no fingers (optional)
      const mapped = (h: number) => hbbs.includes(h);
      s.bones.forEach((b, i) => {
        expect(b.parent).toBeLessThan(i);
        if (i === 0) {
          expect(b.name).toBe('Hips');
          expect(b.parent).toBe(-1);
        } else {
          // the transform parent is the nearest human ancestor Unity's hierarchy gives
          expect(s.bones[b.parent].hbb).toBe(nearestMappedAncestor(b.hbb, mapped));
          expect(b.length).toBeGreaterThan(0.01);
        }
        expect(b.radius).toBeGreaterThan(0);
      });
    }
  });

  it('each set stands on the floor: hips at the leg length, ankles at the ankle height, toes at or above y = 0', () => {
    for (const s of sets) {
      const w = (name: string) => {
        const i = s.bones.findIndex((b) => b.name === name);
        return s.world.slice(3 * i, 3 * i + 3);
      };
      const legs =
        -s.bones[s.bones.findIndex((b) => b.name === 'LeftUpperLeg')].offset[1] +
        s.bones[s.bones.findIndex((b) => b.name === 'LeftLowerLeg')].length +
        s.bones[s.bones.findIndex((b) => b.name === 'LeftFoot')].length +
        s.ankleHeight;
      expect(w('Hips')[1]).toBeCloseTo(s.hipsHeight, 5);
      expect(s.hipsHeight).toBeCloseTo(legs, 5);
      for (const side of ['Left', 'Right']) {
        expect(w(`${side}Foot`)[1]).toBeCloseTo(s.ankleHeight, 5);
        expect(w(`${side}Toes`)[1]).toBeCloseTo(s.toeHeight, 5);
        expect(w(`${side}Toes`)[1]).toBeGreaterThanOrEqual(0);
        expect(w(`${side}Toes`)[2]).toBeGreaterThan(w(`${side}Foot`)[2]); // toes forward (+Z)
        // legs straight down: the ankle under the hip joint
        expect(w(`${side}Foot`)[0]).toBeCloseTo(w(`${side}UpperLeg`)[0], 5);
      }
      // the lowest joint is the toes; nothing below the floor
      expect(Math.min(...s.world.filter((_, i) => i % 3 === 1))).toBeCloseTo(s.toeHeight, 5);
      // the character's left is -X in Unity; right is the mirror image of left
      expect(w('LeftHand')[0]).toBeLessThan(0);
      for (const b of s.bones.filter((x) => x.name.startsWith('Left'))) {
        const r = w(`Right${b.name.slice(4)}`);
        const l = w(b.name);
        expect(r[0]).toBeCloseTo(-l[0], 5);
        expect(r[1]).toBeCloseTo(l[1], 5);
        expect(r[2]).toBeCloseTo(l[2], 5);
      }
      // T-pose: hands level with the upper arms, head above the neck
      expect(w('LeftHand')[1]).toBeCloseTo(w('LeftUpperArm')[1], 5);
      expect(w('Head')[1]).toBeGreaterThan(w('Neck')[1]);
      const head = s.bones.find((b) => b.name === 'Head')!;
      expect(w('Head')[1] + head.tip[1]).toBeCloseTo(s.height, 5);
    }
  });

  it('the three sets differ as named: heights, leg share and head share', () => {
    const [adult, tall, child] = sets;
    expect(adult.height).toBeGreaterThan(1.7);
    expect(adult.height).toBeLessThan(1.9);
    expect(tall.height).toBeGreaterThan(1.95);
    expect(child.height).toBeGreaterThan(1.0);
    expect(child.height).toBeLessThan(1.25);
    const legShare = (s: ProportionSet) => s.hipsHeight / s.height;
    expect(legShare(tall)).toBeGreaterThan(legShare(adult) + 0.02);
    expect(legShare(child)).toBeLessThan(legShare(adult) - 0.02);
    const headShare = (s: ProportionSet) => s.bones.find((b) => b.name === 'Head')!.tip[1] / s.height;
    expect(headShare(child)).toBeGreaterThan(headShare(adult) * 1.4);
  });

  it('Bones() names the field of a bad length', () => {
    expect(run('bad', 'UpperLeg', '-0.1')).toBe(
      "KindHumanoidProportions 'Adult': UpperLeg must be a positive length in metres, got -0.1",
    );
    expect(run('bad', 'Hand', '0')).toContain('Hand must be a positive length');
    expect(run('bad', 'ToeHeight', '0.5')).toBe(
      "KindHumanoidProportions 'Adult': ToeHeight must be in [0, AnkleHeight), got 0.5",
    );
    expect(run('bad', 'ToeHeight', '0')).toBe('built');
  });

  it('KindTake parses the real bundle defaultTake() into the take the TypeScript loader reads', async () => {
    const ctx = vm.createContext({});
    new vm.Script(bundleAsScript(freshBundle()), { filename: 'main.mjs' }).runInContext(ctx);
    const json = (ctx as { __kind: { defaultTake(): string } }).__kind.defaultTake();
    const file = path.join(dir, 'take.json');
    fs.writeFileSync(file, json);
    const t = JSON.parse(run('take', file));
    const clip = (await loadSource(path.join(defaultAssetsDir(), 'default-walk.bvh'))).clip;
    const n = clip.skeleton.boneCount;
    expect(t.name).toBe('default-walk');
    expect(t.frameCount).toBe(clip.frameCount);
    expect(t.boneCount).toBe(n);
    expect(t.frameTime).toBeCloseTo(clip.frameTime, 6);
    expect(t.duration).toBeCloseTo(clip.frameCount * clip.frameTime, 5);
    expect(t.names).toEqual([...clip.skeleton.names]);
    expect(t.parents).toEqual(Array.from(clip.skeleton.parents));
    expect(t.humanoid).toEqual(Array.from(clip.skeleton.humanoid));
    expect(t.rotations).toBe(clip.frameCount * n * 4);
    // rest offsets: Unity's mirror of ours (x negated), float precision
    const rest = clip.skeleton.restTranslations;
    for (let i = 0; i < t.rest.length; i++)
      expect(t.rest[i]).toBeCloseTo(i % 3 === 0 ? -rest[i] : rest[i], 5);
    // the last quaternion of the last frame: (x, -y, -z, w) of ours
    const q = clip.rotations.slice(clip.rotations.length - 4);
    expect(t.lastRotation[0]).toBeCloseTo(q[0], 5);
    expect(t.lastRotation[1]).toBeCloseTo(-q[1], 5);
    expect(t.lastRotation[2]).toBeCloseTo(-q[2], 5);
    expect(t.lastRotation[3]).toBeCloseTo(q[3], 5);
    // frames by time, looping: 0, half a frame, 1.5 frames, the last half frame, a quarter frame past the
    // end, half a frame before the start, 3 loops + 10 frames
    expect(t.framesAt).toEqual([0, 0, 1, clip.frameCount - 1, 0, clip.frameCount - 1, 10]);
    // RemoveTravel: the last frame's hips stand over the first frame's; the height is untouched
    const F = clip.frameCount;
    const before = t.hipsBefore as number[];
    const after = t.hipsAfter as number[];
    expect(Math.hypot(before[3 * (F - 1)] - before[0], before[3 * (F - 1) + 2] - before[2])).toBeGreaterThan(
      0.5,
    );
    expect(after[3 * (F - 1)]).toBeCloseTo(after[0], 5);
    expect(after[3 * (F - 1) + 2]).toBeCloseTo(after[2], 5);
    for (let f = 0; f < F; f++) expect(after[3 * f + 1]).toBe(before[3 * f + 1]);
  });

  it('KindTake names the field of a malformed take', () => {
    const good = JSON.parse(
      (() => {
        const ctx = vm.createContext({});
        new vm.Script(bundleAsScript(freshBundle()), { filename: 'main.mjs' }).runInContext(ctx);
        return (ctx as { __kind: { defaultTake(): string } }).__kind.defaultTake();
      })(),
    );
    const bad = (change: (t: Record<string, unknown>) => void) => {
      const t = structuredClone(good);
      change(t);
      const file = path.join(dir, 'bad.json');
      fs.writeFileSync(file, JSON.stringify(t));
      return run('badtake', file);
    };
    expect(bad(() => {})).toBe('parsed');
    expect(bad((t) => (t.rotations as number[]).pop())).toBe(
      `take: rotations has ${good.rotations.length - 1} entries, expected ${good.rotations.length}`,
    );
    expect(bad((t) => ((t.parents as number[])[3] = 5))).toBe(
      'take: parents[3] = 5 (parents must come first, -1 for the root)',
    );
    expect(bad((t) => ((t.humanoid as number[])[0] = -1))).toBe('take: no Hips bone (humanoid[0] = -1)');
    expect(bad((t) => (t.frameTime = 0))).toBe('take: frameTime must be positive, got 0');
    expect(bad((t) => delete t.hipsPositions)).toBe('take: hipsPositions is not an array');
  });

  it('KindBundleFolder: the scene folder, else the project folder, else the package Resources; the file watch.mjs --out writes', () => {
    const project = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-project-'));
    try {
      const at = (component: string, proj: string) =>
        execFileSync('mono', [exe, 'folder', component, proj], { encoding: 'utf8', cwd: project })
          .trim()
          .split('\n');
      const real = fs.realpathSync(project);
      const abs = (p: string) => [path.join(project, p), path.join(real, p)];
      // nothing chosen: the package's Resources, relative to the project folder (Unity's current directory)
      expect(abs('Packages/com.kind.retargeting/Runtime/Resources')).toContain(at('-', '-')[0]);
      // the project's folder, relative or absolute
      expect(abs('KindBundle')).toContain(at('-', 'KindBundle')[0]);
      expect(at('-', '/srv/kind/bundle')[0]).toBe('/srv/kind/bundle');
      // a scene's KindRuntime.editorBundleFolder wins
      expect(abs('SceneBundle')).toContain(at('SceneBundle', '/srv/kind/bundle')[0]);
      // the bundle file in the chosen folder: absent until the watcher writes it, then there
      const chosen = path.join(project, 'KindBundle');
      const before = at('-', chosen);
      expect(before[1]).toBe(path.join(chosen, 'kind-retargeting', 'main.mjs'));
      expect(before[2]).toBe('absent');
      const w = spawnSync(
        process.execPath,
        ['-e', WATCH_ONCE, path.resolve(__dirname, '../../tools/watch.mjs'), chosen],
        { encoding: 'utf8', timeout: 120_000 },
      );
      expect(w.stdout).toContain('rebuilt');
      const after = at('-', chosen);
      expect(after[2]).toBe('exists');
      expect(fs.readFileSync(after[1], 'utf8') === freshBundle()).toBe(true);
    } finally {
      fs.rmSync(project, { recursive: true, force: true });
    }
  });
});

/** Runs tools/watch.mjs --out <folder> (argv 1, 2) until its first build is written, then stops it with SIGINT. */
const WATCH_ONCE = `
const { spawn } = require('node:child_process');
const [watch, folder] = process.argv.slice(1);
const p = spawn(process.execPath, [watch, '--out', folder], { stdio: ['ignore', 'pipe', 'inherit'] });
let out = '';
p.stdout.on('data', (d) => {
  out += d;
  process.stdout.write(d);
  if (/rebuilt /.test(out)) p.kill('SIGINT');
});
`;
