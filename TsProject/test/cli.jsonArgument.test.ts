/**
 * Options that take JSON (`--map`, `--source-map`, `kind inspect --map`, `kind qa --profile`) accept
 * inline JSON (an argument starting with `{`) or a file path (issue 10, item 8): the same result
 * either way, and errors naming `--map (inline)` or the file with line:column.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readJsonArgument } from '../src/cli/jsonArgument';
import { runKind } from './helpers/runCli';

const ASSETS = path.resolve(__dirname, '../assets/default');
const WALK = path.join(ASSETS, 'default-walk.bvh');
const AVATAR = path.join(ASSETS, 'default-avatar.glb');

describe('JSON options: inline or a file', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-json-arg-'));
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
  const summary = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8'));

  it('readJsonArgument: `{` after white space is inline, anything else a path; empty is an error', () => {
    expect(readJsonArgument('--map', '  \n{"Jaw": null}')).toEqual({
      text: '  \n{"Jaw": null}',
      where: '--map (inline)',
    });
    const f = path.join(work, 'm.json');
    fs.writeFileSync(f, '{"Jaw": null}\n');
    expect(readJsonArgument('--map', f)).toEqual({ text: '{"Jaw": null}\n', where: f });
    expect(() => readJsonArgument('--map', path.join(work, 'none.json'))).toThrow(
      `${path.join(work, 'none.json')}: no such file or folder`,
    );
    expect(() => readJsonArgument('--map', '  ')).toThrow('--map: empty');
    // not JSON an object starts with: read as a path, and the error says what the option takes
    // (before: "[]: no such file or folder", not naming --map)
    expect(() => readJsonArgument('--map', '[]')).toThrow(
      '--map: []: no such file or folder (--map takes a JSON file, or inline JSON starting with {)',
    );
    expect(() => readJsonArgument('--profile', 'Jaw: null')).toThrow(/^--profile: Jaw: null: no such file/);
  });

  it('kind retarget --map and --source-map inline: the same outputs as from files', async () => {
    const avatarMap = '{"LeftToes": null, "RightToes": null}';
    const sourceMap = ' {"LeftToes": null}';
    const inline = path.join(work, 'inline');
    const r1 = await runKind([
      'retarget',
      WALK,
      AVATAR,
      '-o',
      inline,
      '-q',
      '--map',
      avatarMap,
      '--source-map',
      sourceMap,
    ]);
    expect(r1.err).toBe('');
    expect(r1.code).toBe(0);
    const mapFile = path.join(work, 'avatar-map.json');
    const srcFile = path.join(work, 'source-map.json');
    fs.writeFileSync(mapFile, avatarMap);
    fs.writeFileSync(srcFile, sourceMap);
    const files = path.join(work, 'files');
    const r2 = await runKind([
      'retarget',
      WALK,
      AVATAR,
      '-o',
      files,
      '-q',
      '--map',
      mapFile,
      '--source-map',
      srcFile,
    ]);
    expect(r2.code).toBe(0);
    const a = summary(inline);
    const b = summary(files);
    expect(a.target.humanoid.LeftToes).toBeUndefined();
    expect(a.target.humanoid.RightToes).toBeUndefined();
    expect(a.source.humanoid.LeftToes).toBeUndefined();
    expect(a.source.humanoid.RightToes).toBe('RToe');
    expect(a.target.humanoid).toEqual(b.target.humanoid);
    expect(a.source.humanoid).toEqual(b.source.humanoid);
    expect(a.quality).toEqual(b.quality);
    // without the overrides the toes are mapped
    const plain = path.join(work, 'plain');
    expect((await runKind(['retarget', WALK, AVATAR, '-o', plain, '-q'])).code).toBe(0);
    expect(summary(plain).target.humanoid.LeftToes).toBe('kind:LeftToeBase');
  });

  it('errors name "--map (inline)" or the file, with line:column for bad JSON; nothing written', async () => {
    const out = path.join(work, 'bad');
    const inline = await runKind(['retarget', WALK, AVATAR, '-o', out, '--map', '{"Jaw": nul}']);
    expect(inline.code).toBe(1);
    expect(inline.err).toBe(
      'kind: --map (inline):1:9: humanoid override is not valid JSON: unexpected character "n"; expected a value (object, array, string, number, true, false or null)',
    );
    const src = await runKind(['retarget', WALK, AVATAR, '-o', out, '--source-map', '{"Hipz": "Hip"}']);
    expect(src.code).toBe(1);
    expect(src.err).toMatch(
      /^kind: --source-map \(inline\): humanoid override key 'Hipz' is not a HumanBodyBones name/,
    );
    const file = path.join(work, 'bad.json');
    fs.writeFileSync(file, '{\n  "Jaw": nul\n}\n');
    const fromFile = await runKind(['retarget', WALK, AVATAR, '-o', out, '--map', file]);
    expect(fromFile.code).toBe(1);
    expect(fromFile.err).toMatch(
      new RegExp(
        `^kind: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2:10: humanoid override is not valid JSON`,
      ),
    );
    expect(fs.existsSync(out)).toBe(false);
  });

  it('kind inspect --map inline', async () => {
    const r = await runKind(['inspect', AVATAR, '--map', '{"LeftToes": null}']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/missing optional: .*LeftToes/);
    expect(r.out).not.toMatch(/missing optional: .*RightToes/);
  });

  it('kind qa --profile inline: the same report as the file; an inline error names --profile (inline) and line:column', async () => {
    const rt = path.join(work, 'plain');
    const glb = path.join(rt, 'default-walk.glb');
    const bvh = path.join(rt, 'default-walk.bvh');
    const profile = '{"name": "inline-test"}';
    const pf = path.join(work, 'profile.json');
    fs.writeFileSync(pf, profile);
    const a = await runKind(['qa', bvh, glb, '-o', path.join(work, 'qa-inline'), '-q', '--profile', profile]);
    const b = await runKind(['qa', bvh, glb, '-o', path.join(work, 'qa-file'), '-q', '--profile', pf]);
    expect(a.err).toBe('');
    expect([a.code, b.code]).toEqual([0, 0]);
    const ja = JSON.parse(fs.readFileSync(path.join(work, 'qa-inline', 'qa.json'), 'utf8'));
    const jb = JSON.parse(fs.readFileSync(path.join(work, 'qa-file', 'qa.json'), 'utf8'));
    expect(ja.options.profile).toBe(profile);
    expect(jb.options.profile).toBe(pf);
    expect(ja.clips).toEqual(jb.clips);
    const bad = await runKind(['qa', bvh, glb, '-o', path.join(work, 'qa-bad'), '--profile', '{"name": 3}']);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/^kind: --profile \(inline\):1:10: name: /);
  });
});
