/**
 * The Unity package's settings file (issue 14), compiled with Mono's mcs and run under plain Mono:
 * Runtime/Bridge/KindSettingsFile.cs (Unity-free) with test/fixtures/KindSettingsFileHost.cs.
 * - the location per platform: %LocalAppData%\Unity\{company}\{product}\RetargetingSettings\
 *   {target}_settings.json on Windows, ~/Library/Application Support/Unity/... on macOS,
 *   $XDG_DATA_HOME (or ~/.local/share)/Unity/... on Linux, persistentDataPath/RetargetingSettings
 *   elsewhere; unsafe characters replaced;
 * - the save CustomRetargetingScript runs from its API and from Application.quitting
 *   (KindSettingsSaver): atomic (temp file, then rename), the previous file intact when the export or
 *   the write fails, no temp file left behind;
 * - the quit hook itself (Unity-only code) is checked in the shell's source: Application.quitting is
 *   subscribed in OnEnable and its handler calls SaveSettings(), which goes through KindSettingsSaver.
 * - issue 21 part 1, "a user's settings are never lost": files in the original KindRetargeting's shape
 *   (test/fixtures/original-settings, hand-written from the design document, see its README) are read
 *   (KindSettingsImport / KindSettingsLoader): the values arrive under our names, the members that do not
 *   map survive every save byte for byte, the report names what was imported and what was not; a file that
 *   cannot be read (cut off, wrong type, refused by the hub) is moved aside to
 *   {target}_settings.unreadable-<time>.json, never overwritten.
 * Skipped with a printed reason without mcs/mono.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadAvatar, loadSource } from '../src/io/node';
import { defaultSettings, validateSettings } from '../src/rig/settings';
import * as bridge from '../src/unity/bridge';
import { monoAvailable } from './helpers/mono';
import { InputPacker, setupJson } from './unity.helpers';

const HAS = monoAvailable('Unity settings file');

const repo = path.resolve(__dirname, '../..');
const PKG = path.join(repo, 'Packages/com.kind.retargeting');
const SETTINGS_CS = path.join(PKG, 'Runtime/Bridge/KindSettingsFile.cs');
const JSON_CS = path.join(PKG, 'Runtime/Bridge/KindJson.cs');
const HOST_CS = path.join(__dirname, 'fixtures/KindSettingsFileHost.cs');
const ORIGINAL = path.join(__dirname, 'fixtures/original-settings');

let dir = '';
let exe = '';

/** Runs commands (arrays of fields) through one Mono process; returns one line per command. */
function run(commands: string[][], env: NodeJS.ProcessEnv = process.env): string[] {
  const r = spawnSync('mono', [exe], {
    input: `${commands.map((c) => c.join('\t')).join('\n')}\n`,
    encoding: 'utf8',
    env,
  });
  if (r.status !== 0) throw new Error(`mono exited ${r.status}: ${r.stderr}`);
  return r.stdout.trimEnd().split('\n');
}

(HAS ? describe : describe.skip)('Unity settings file (KindSettingsFile.cs under Mono)', () => {
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-settings-'));
    exe = path.join(dir, 'host.exe');
    execFileSync('mcs', ['-nologo', '-warnaserror+', `-out:${exe}`, SETTINGS_CS, JSON_CS, HOST_CS], {
      stdio: 'pipe',
    });
  });
  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const args = ['Kind Co', 'Live:Show', 'Avatar/A'];

  it('composes the path per platform, as the original puts it', () => {
    const out = run([
      ['compose', 'Windows', 'C:\\Users\\me\\AppData\\Local', '-', '-', 'C:/pdp', ...args],
      ['compose', 'MacOS', '-', '/Users/me', '-', '/pdp', ...args],
      ['compose', 'Linux', '-', '/home/me', '-', '/pdp', ...args],
      ['compose', 'Linux', '-', '/home/me', '/data/xdg/', '/pdp', ...args],
      ['compose', 'Other', '-', '-', '-', '/storage/emulated/0/Android/data/com.kind.show/files', ...args],
      ['compose', 'Windows', '-', '-', '-', 'C:/pdp', ...args],
      ['compose', 'Other', '-', '-', '-', '-', ...args],
      ['compose', 'Windows', 'C:\\L', '-', '-', '-', '', '..', 'Mia  '],
    ]);
    expect(out).toEqual([
      'path C:\\Users\\me\\AppData\\Local\\Unity\\Kind Co\\Live_Show\\RetargetingSettings\\Avatar_A_settings.json',
      'path /Users/me/Library/Application Support/Unity/Kind Co/Live_Show/RetargetingSettings/Avatar_A_settings.json',
      'path /home/me/.local/share/Unity/Kind Co/Live_Show/RetargetingSettings/Avatar_A_settings.json',
      'path /data/xdg/Unity/Kind Co/Live_Show/RetargetingSettings/Avatar_A_settings.json',
      'path /storage/emulated/0/Android/data/com.kind.show/files/RetargetingSettings/Avatar_A_settings.json',
      // no %LocalAppData%: the persistent data path
      'path C:/pdp/RetargetingSettings/Avatar_A_settings.json',
      expect.stringMatching(
        /^error ArgumentException: KindSettingsFile: no folder for the settings on Other/,
      ),
      // empty and dot-only names are never path segments
      'path C:\\L\\Unity\\_\\_\\RetargetingSettings\\Mia_settings.json',
    ]);
  });

  it("ForThisMachine reads this machine's folders (Linux: XDG_DATA_HOME, else HOME/.local/share)", () => {
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: '/home/tester' };
    delete env.XDG_DATA_HOME;
    expect(run([['machine', 'Linux', '/pdp', ...args]], env)).toEqual([
      'path /home/tester/.local/share/Unity/Kind Co/Live_Show/RetargetingSettings/Avatar_A_settings.json',
    ]);
    expect(run([['machine', 'Linux', '/pdp', ...args]], { ...env, XDG_DATA_HOME: '/x' })).toEqual([
      'path /x/Unity/Kind Co/Live_Show/RetargetingSettings/Avatar_A_settings.json',
    ]);
  });

  it('saves atomically: new folder, overwrite, and the previous file intact on every failure', () => {
    const file = path.join(dir, 'Unity', 'Co', 'Prod', 'RetargetingSettings', 'A_settings.json');
    const v1 = '{"schemaVersion":1,"avatarScale":1.1}';
    const v2 = '{"schemaVersion":1,"avatarScale":1.2}';
    const blocked = path.join(dir, 'blocked.json');
    fs.writeFileSync(blocked, 'previous');
    fs.mkdirSync(`${blocked}.tmp`); // the temp file cannot be written
    const out = run([
      ['save', file, v1],
      ['save', file, v2],
      ['save-null', file],
      ['save-throw', file, 'hub gone'],
      ['save', blocked, v1],
    ]);
    expect(out[0]).toBe('saved');
    expect(out[1]).toBe('saved');
    expect(out[2]).toBe('failed no settings to save (no hub)');
    expect(out[3]).toBe(`failed could not save settings to ${file}: hub gone`);
    expect(out[4]).toMatch(
      new RegExp(`^failed could not save settings to ${blocked.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `),
    );
    expect(fs.readFileSync(file, 'utf8')).toBe(v2);
    expect(fs.readFileSync(blocked, 'utf8')).toBe('previous');
    expect(fs.existsSync(`${file}.tmp`)).toBe(false);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['A_settings.json']);
  });

  it('the rename step failing leaves no temp file and the target untouched', () => {
    const target = path.join(dir, 'is-a-folder.json');
    fs.mkdirSync(target);
    expect(run([['save', target, '{}']])[0]).toMatch(/^failed could not save settings to /);
    expect(fs.statSync(target).isDirectory()).toBe(true);
    expect(fs.existsSync(`${target}.tmp`)).toBe(false);
  });

  // ---- issue 21 part 1: the original's files, nothing lost ------------------------------------------

  /** A fresh RetargetingSettings folder with fixture `name` copied in as `<as>`; returns its path. */
  let n = 0;
  const place = (name: string, as = name): string => {
    const folder = path.join(dir, `case${++n}`, 'Unity', 'Co', 'Prod', 'RetargetingSettings');
    fs.mkdirSync(folder, { recursive: true });
    const file = path.join(folder, as);
    fs.copyFileSync(path.join(ORIGINAL, name), file);
    return file;
  };
  /** The hub's settings now, as exportSettings gives them (no schemaVersion); a non-default filter. */
  const hubNow = () => {
    const s = defaultSettings();
    s.sourceFilter.body.minCutoff = 3;
    return s;
  };
  const writeTmp = (name: string, text: string): string => {
    const f = path.join(dir, name);
    fs.writeFileSync(f, text);
    return f;
  };
  const current = () => writeTmp('current.json', JSON.stringify(hubNow()));
  const one = (cmd: string[]) => JSON.parse(run([cmd])[0]);
  const STAMP = 'unreadable-20261202-103000';

  it("reads the original's file: every saved item arrives under our name, the report says what", () => {
    const r = one(['read', path.join(ORIGINAL, 'Mia_settings.json'), current()]);
    expect(r.format).toBe('original');
    expect(r.problem).toBeNull();
    const s = r.settings;
    expect(s.footOffsets).toEqual({
      left: { frontBack: 0.03, inOut: -0.015 },
      right: { frontBack: 0.03, inOut: -0.015 },
    });
    expect(s.floorHeight).toBe(0.021);
    expect(s.initialHipsHeight).toBe(0.93);
    expect(s.avatarScale).toBe(1.08);
    expect(s.headScale).toBe(0.95);
    expect(s.chairSeatOffset).toBe(-0.04);
    expect(s.headRotationOffset).toEqual([5, -12.5, 0]);
    // what the original has not: the hub's current value
    expect(s.sourceFilter.body).toEqual({ minCutoff: 3, beta: 8, dCutoff: 1 });
    expect(s.rotationOffsets).toEqual({});
    // the hub's own validator takes it as it is
    expect(validateSettings(s)).toEqual(s);
    expect(r.imported).toEqual([
      'footFrontBackOffset = 0.03 -> footOffsets.left/right.frontBack',
      'footInOutOffset = -0.015 -> footOffsets.left/right.inOut',
      'floorHeight = 0.021 -> floorHeight',
      'initialHipsHeight = 0.93 -> initialHipsHeight',
      'avatarScale = 1.08 -> avatarScale',
      'headScale = 0.95 -> headScale',
      'chairSeatHeightOffset = -0.04 -> chairSeatOffset',
      'headRotationOffsetX = 5 -> headRotationOffset[0]',
      'headRotationOffsetY = -12.5 -> headRotationOffset[1]',
      'headRotationOffsetZ = 0 -> headRotationOffset[2]',
    ]);
    expect(r.notImported).toEqual(['rotationOffsetCache: no matching setting in this package']);
  });

  it('a value out of our range is not imported but reported and kept; initialHipsHeight 0 is "not measured"', () => {
    const r = one(['read', path.join(ORIGINAL, 'Kai_settings.json'), current()]);
    expect(r.format).toBe('original');
    expect(r.settings.floorHeight).toBe(0); // the hub's
    expect(r.settings.initialHipsHeight).toBeNull();
    expect(r.imported).toContain('initialHipsHeight = 0 -> initialHipsHeight null (not measured)');
    expect(r.notImported).toEqual([
      "floorHeight = 12: out of this package's range -10..10",
      'rotationOffsetCache: no matching setting in this package',
    ]);
    expect(validateSettings(r.settings)).toEqual(r.settings);
    // and the saved file (load, then the hub's export saved on quit) still holds 12 and 0, not 0 and null
    const file = place('Kai_settings.json');
    const before = JSON.parse(fs.readFileSync(file, 'utf8'));
    const [loaded, saved] = run([
      ['load', file, current(), '-'],
      ['save-file', file, writeTmp('kai-export.json', JSON.stringify(r.settings, null, 2))],
    ]).map((l) => JSON.parse(l));
    expect(loaded.notImported).toContain("floorHeight = 12: out of this package's range -10..10");
    expect(saved).toMatchObject({ saved: true, error: null, backedUp: null });
    const after = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(after.floorHeight).toBe(12);
    expect(after.initialHipsHeight).toBe(0);
    for (const k of Object.keys(before)) expect(after[k]).toEqual(before[k]);
    // this package's own members are there too (the hub's values)
    expect(after.footOffsets).toEqual(r.settings.footOffsets);
    expect(after.sourceFilter).toEqual(r.settings.sourceFilter);
  });

  /** Loads fixture `name` and saves the hub's export of what it took, in one session; the file's values after. */
  const loadThenSave = (name: string, change?: (s: ReturnType<typeof hubNow>) => void) => {
    const file = place(name);
    const bytes = fs.readFileSync(file);
    const read = one(['read', file, current()]);
    const exported = JSON.parse(JSON.stringify(read.settings));
    if (change) change(exported);
    const out = run([
      ['load', file, current(), '-'],
      ['save-file', file, writeTmp('lts-export.json', JSON.stringify(exported, null, 2))],
      ['save-file', file, writeTmp('lts-export.json', JSON.stringify(exported, null, 2))],
    ]).map((l) => JSON.parse(l));
    return {
      file,
      bytes,
      loaded: out[0],
      saved: out[1],
      again: out[2],
      after: JSON.parse(fs.readFileSync(file, 'utf8')),
    };
  };
  const backup = (file: string) =>
    path.join(path.dirname(file), `${path.basename(file, '.json')}.original-20261202-103000.json`);

  it.each(['Mia_settings.json', 'Kai_settings.json', 'Rex_settings.json'])(
    "load, then save %s with nothing set here: every value of the original's file is still the same, no backup needed",
    (name) => {
      const { file, bytes, loaded, saved, again, after } = loadThenSave(name);
      const before = JSON.parse(bytes.toString('utf8'));
      expect(loaded.format).toBe('original');
      for (const k of Object.keys(before)) expect([k, after[k]]).toEqual([k, before[k]]);
      expect(saved).toMatchObject({ saved: true, backedUp: null });
      expect(again).toMatchObject({ saved: true, backedUp: null });
      expect(fs.readdirSync(path.dirname(file))).toEqual([name]);
    },
  );

  it('values out of our range (Rex: feet 0.8, floor 12, hips 20, scale 5) are not imported and survive every save as they were', () => {
    const { file, loaded, after } = loadThenSave('Rex_settings.json');
    expect(loaded.notImported).toEqual([
      "footFrontBackOffset = 0.8: out of this package's range -0.5..0.5",
      "floorHeight = 12: out of this package's range -10..10",
      'rotationOffsetCache: no matching setting in this package',
      "initialHipsHeight = 20: out of this package's range 0..10",
      "avatarScale = 5: out of this package's range 0.1..3",
    ]);
    expect(loaded.applied.avatarScale).toBe(1); // the hub's
    expect([
      after.footFrontBackOffset,
      after.floorHeight,
      after.initialHipsHeight,
      after.avatarScale,
    ]).toEqual([0.8, 12, 20, 5]);
    // the file is this package's format now: the next session reads it, the same values are again not
    // imported (the hub's stay), and are again kept
    const next = run([
      ['session-new'],
      ['load', file, current(), '-'],
      ['save-file', file, writeTmp('rex-export.json', JSON.stringify(loaded.applied))],
    ])
      .slice(1)
      .map((l) => JSON.parse(l));
    expect(next[0].format).toBe('kind');
    expect(next[0].movedTo).toBeNull();
    expect(next[0].notImported).toEqual(
      expect.arrayContaining([
        "floorHeight = 12: out of this package's range -10..10",
        "initialHipsHeight = 20: out of this package's range 0..10",
        "avatarScale = 5: out of this package's range 0.1..3",
      ]),
    );
    expect(next[0].applied.floorHeight).toBe(0);
    expect(next[0].applied.avatarScale).toBe(1);
    expect(next[1]).toMatchObject({ saved: true, backedUp: null });
    const third = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect([
      third.footFrontBackOffset,
      third.floorHeight,
      third.initialHipsHeight,
      third.avatarScale,
    ]).toEqual([0.8, 12, 20, 5]);
  });

  it('a value set here replaces the kept one; the original file is copied aside once, first', () => {
    const { file, bytes, saved, again, after } = loadThenSave('Rex_settings.json', (s) => {
      s.floorHeight = 0.5;
      s.avatarScale = 1.2;
    });
    expect([after.floorHeight, after.avatarScale]).toEqual([0.5, 1.2]);
    // not set here: kept
    expect([after.footFrontBackOffset, after.initialHipsHeight]).toEqual([0.8, 20]);
    expect(saved.backedUp).toBe(backup(file));
    expect(saved.backedUpReason).toBe('written by the original KindRetargeting');
    expect(fs.readFileSync(saved.backedUp).equals(bytes)).toBe(true);
    expect(again.backedUp).toBeNull(); // once
    expect(fs.readdirSync(path.dirname(file)).sort()).toEqual(
      ['Rex_settings.json', path.basename(backup(file))].sort(),
    );
  });

  it('a backup never overwrites an existing one', () => {
    const file = place('Mia_settings.json');
    fs.writeFileSync(backup(file), 'an earlier backup');
    const s = one(['save-file', file, writeTmp('export.json', JSON.stringify(hubNow()))]);
    expect(s.backedUp).toBe(backup(file).replace(/\.json$/, '-2.json'));
    expect(fs.readFileSync(backup(file), 'utf8')).toBe('an earlier backup');
    expect(fs.readFileSync(s.backedUp, 'utf8')).toBe(
      fs.readFileSync(path.join(ORIGINAL, 'Mia_settings.json'), 'utf8'),
    );
  });

  it('load, then save: the unmapped members survive byte for byte, the mapped ones follow our values', () => {
    const file = place('Mia_settings.json');
    const before = fs.readFileSync(file, 'utf8');
    const cache = before.slice(before.indexOf('['), before.indexOf(']', before.lastIndexOf('"w"')) + 1);
    expect(cache).toMatch(/^\[\s+\{\s+"boneIndex": 0,[\s\S]*"w": 0\.0153\s+\}\s+\}\s+\]$/);
    const loaded = one(['load', file, current(), '-']);
    fs.writeFileSync(file, before); // (a load changes nothing; the load below is the session's)
    expect(loaded.format).toBe('original');
    expect(loaded.movedTo).toBeNull();
    expect(loaded.applied.avatarScale).toBe(1.08);
    expect(loaded.summary).toBe(
      `settings file ${file} (the original KindRetargeting's format): imported ${loaded.imported.join('; ')}. ` +
        'Not imported (kept in the file as it is when saved, unless set here): rotationOffsetCache: no matching setting in this package',
    );
    // the hub gives back what it took, then the user moves the feet forward and saves (on quit)
    const exported = {
      ...loaded.applied,
      footOffsets: { left: { frontBack: 0.05, inOut: -0.015 }, right: { frontBack: 0.07, inOut: -0.015 } },
    };
    const exportText = JSON.stringify(exported, null, 2);
    const saved = JSON.parse(
      run([
        ['load', file, current(), '-'],
        ['save-file', file, writeTmp('export.json', exportText)],
      ])[1],
    );
    expect(saved).toEqual({
      saved: true,
      error: null,
      movedAside: null,
      reason: null,
      backedUp: backup(file),
      backedUpReason: 'written by the original KindRetargeting',
    });
    expect(fs.readFileSync(saved.backedUp, 'utf8')).toBe(before);
    const after = fs.readFileSync(file, 'utf8');
    expect(after).toContain(`"rotationOffsetCache": ${cache}`); // byte for byte
    const back = JSON.parse(after);
    expect(back.footOffsets).toEqual(exported.footOffsets);
    expect(back.avatarScale).toBe(1.08);
    // the original's own names follow our values, so the original component reads the same calibration
    expect(back.footFrontBackOffset).toBeCloseTo(0.06, 12); // the mean of the two feet (0.05, 0.07)
    expect(back.footInOutOffset).toBe(-0.015);
    expect(back.chairSeatHeightOffset).toBe(-0.04);
    expect([back.headRotationOffsetX, back.headRotationOffsetY, back.headRotationOffsetZ]).toEqual([
      5, -12.5, 0,
    ]);
    // every member of the original file is still there
    for (const k of Object.keys(JSON.parse(before))) expect(Object.keys(back)).toContain(k);
    expect(fs.readdirSync(path.dirname(file)).sort()).toEqual(
      ['Mia_settings.json', path.basename(backup(file))].sort(),
    );
    // read again: our format now; what we use arrives, the original's members are reported and kept
    const again = one(['load', file, current(), '-']);
    expect(again.format).toBe('kind');
    expect(again.applied).toEqual(exported);
    expect(again.notImported).toContain('rotationOffsetCache: not a setting of this package');
    expect(again.notImported).toContain('footFrontBackOffset: not a setting of this package');
    // and a second save keeps them again
    one(['save-file', file, writeTmp('export.json', exportText)]);
    expect(fs.readFileSync(file, 'utf8')).toContain(`"rotationOffsetCache": ${cache}`);
  });

  it("the whole chain with the real bridge: the C# import, applySettings in the hub, the hub's export saved by C#", async () => {
    const DEFAULT = path.resolve(__dirname, '../assets/default');
    const clip = (await loadSource(path.join(DEFAULT, 'default-walk.bvh'))).clip;
    const tgt = (await loadAvatar(path.join(DEFAULT, 'default-avatar.glb'))).skeleton;
    const h = bridge.createHub(setupJson('mia', clip.skeleton, tgt));
    const cmd = (m: object) => JSON.parse(bridge.command(h, JSON.stringify(m)));
    try {
      const file = place('Mia_settings.json');
      const cache = JSON.parse(fs.readFileSync(file, 'utf8')).rotationOffsetCache;
      // what CustomRetargetingScript.LoadSettings does, split at the process boundary
      const now = writeTmp('hub-now.json', JSON.stringify(cmd({ action: 'exportSettings' }).settings));
      const read = one(['read', file, now]);
      const applied = cmd({ action: 'applySettings', settings: read.settings });
      expect(applied.ok).toBe(true);
      // the hub took the original's values (in Unity's terms: the head offsets as the original had them)
      bridge.update(h, new InputPacker(clip.skeleton).packFrame(clip, 0), 0);
      const hub = cmd({ action: 'exportSettings' }).settings;
      expect(hub.footOffsets).toEqual({
        left: { frontBack: 0.03, inOut: -0.015 },
        right: { frontBack: 0.03, inOut: -0.015 },
      });
      expect([hub.floorHeight, hub.avatarScale, hub.headScale, hub.chairSeatOffset]).toEqual([
        0.021, 1.08, 0.95, -0.04,
      ]);
      expect(hub.headRotationOffset).toEqual([5, -12.5, 0]);
      const data = cmd({ action: 'getCharacterData' });
      const val = (n: string) => data.parameters.find((p: { name: string }) => p.name === n)?.value;
      expect([
        val('leftFootFrontBack'),
        val('rightFootInOut'),
        val('headRotationOffsetY'),
        val('avatarScale'),
      ]).toEqual([0.03, -0.015, -12.5, 1.08]);
      // quit: the hub's export saved by C#; the original's cache is still in the file
      const saved = one(['save-file', file, writeTmp('hub-export.json', JSON.stringify(hub))]);
      expect(saved.saved).toBe(true);
      const after = JSON.parse(fs.readFileSync(file, 'utf8'));
      expect(after.rotationOffsetCache).toEqual(cache);
      expect(Object.keys(after.rotationOffsets).length).toBeGreaterThan(10); // the hub's calibration
    } finally {
      bridge.destroyHub(h);
    }
  });

  it('a cut-off file is moved aside on load, not lost; the next save writes a new one', () => {
    const file = place('Broken_settings.json', 'Mia_settings.json');
    const bytes = fs.readFileSync(file);
    const r = one(['load', file, current(), '-']);
    expect(r.format).toBe('unreadable');
    expect(r.problem).toMatch(/^not valid JSON: JSON: /);
    expect(r.applied).toBeNull();
    const aside = path.join(path.dirname(file), `Mia_settings.${STAMP}.json`);
    expect(r.movedTo).toBe(aside);
    expect(r.summary).toContain(`moved aside to ${aside} (nothing is lost)`);
    expect(fs.readFileSync(aside).equals(bytes)).toBe(true);
    expect(fs.existsSync(file)).toBe(false);
    const text = JSON.stringify(hubNow());
    expect(one(['save-file', file, writeTmp('export.json', text)]).movedAside).toBeNull();
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
    expect(fs.readFileSync(aside).equals(bytes)).toBe(true);
  });

  it("a wrong type (the original's or ours) is unreadable: moved aside, the problem named", () => {
    const file = place('WrongType_settings.json', 'Mia_settings.json');
    const bytes = fs.readFileSync(file);
    const r = one(['load', file, current(), '-']);
    expect(r.problem).toBe('avatarScale: need a number, got a string "1.08"');
    expect(fs.readFileSync(r.movedTo).equals(bytes)).toBe(true);
    const ours = place('Mia_settings.json', 'Ours_settings.json');
    fs.writeFileSync(ours, JSON.stringify({ ...hubNow(), headRotationOffset: [1, 2] }));
    const o = one(['load', ours, current(), '-']);
    expect(o.format).toBe('unreadable');
    expect(o.problem).toBe('headRotationOffset: need [x, y, z] numbers, got an array');
    expect(o.movedTo).toBe(path.join(path.dirname(ours), `Ours_settings.${STAMP}.json`));
  });

  it('a file the hub refuses is moved aside too', () => {
    const file = place('Mia_settings.json');
    const reply = writeTmp(
      'reply.json',
      '{"ok":false,"error":{"field":"settings","message":"settings.rotationOffsets: no bone named Foo on this avatar"}}',
    );
    const r = one(['load', file, current(), reply]);
    expect(r.problem).toBe(
      'refused by the hub: error: settings: settings.rotationOffsets: no bone named Foo on this avatar',
    );
    expect(r.movedTo).toBe(path.join(path.dirname(file), `Mia_settings.${STAMP}.json`));
    expect(fs.readFileSync(r.movedTo, 'utf8')).toBe(
      fs.readFileSync(path.join(ORIGINAL, 'Mia_settings.json'), 'utf8'),
    );
  });

  it('saving over an unreadable file never loaded: moved aside first (a second one gets -2), then saved', () => {
    const file = place('Broken_settings.json', 'Mia_settings.json');
    const bytes = fs.readFileSync(file);
    const text = JSON.stringify(hubNow());
    const s1 = one(['save-file', file, writeTmp('export.json', text)]);
    const aside = path.join(path.dirname(file), `Mia_settings.${STAMP}.json`);
    expect(s1).toEqual({
      saved: true,
      error: null,
      movedAside: aside,
      reason: expect.stringMatching(/^not valid JSON: /),
      backedUp: null, // moved aside already, whole
      backedUpReason: null,
    });
    expect(fs.readFileSync(aside).equals(bytes)).toBe(true);
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
    fs.copyFileSync(path.join(ORIGINAL, 'WrongType_settings.json'), file);
    const s2 = one(['save-file', file, writeTmp('export.json', text)]);
    expect(s2.movedAside).toBe(path.join(path.dirname(file), `Mia_settings.${STAMP}-2.json`));
    expect(s2.reason).toBe('avatarScale: need a number, got a string "1.08"');
    expect(fs.readFileSync(s2.movedAside, 'utf8')).toBe(
      fs.readFileSync(path.join(ORIGINAL, 'WrongType_settings.json'), 'utf8'),
    );
    expect(fs.readdirSync(path.dirname(file)).sort()).toEqual(
      ['Mia_settings.json', `Mia_settings.${STAMP}-2.json`, `Mia_settings.${STAMP}.json`].sort(),
    );
  });

  it('an original file never loaded (loadSettingsOnStart off) keeps every member when saved over, and is backed up first', () => {
    const file = place('Mia_settings.json');
    const bytes = fs.readFileSync(file);
    const before = JSON.parse(bytes.toString('utf8'));
    const hub = hubNow();
    const [s1, s2] = run([
      ['save-file', file, writeTmp('export.json', JSON.stringify(hub))],
      ['save-file', file, writeTmp('export.json', JSON.stringify(hub))],
    ]).map((l) => JSON.parse(l));
    // the whole original file, byte for byte, before anything was written over it
    expect(s1.backedUp).toBe(backup(file));
    expect(s1.backedUpReason).toBe('written by the original KindRetargeting');
    expect(fs.readFileSync(backup(file)).equals(bytes)).toBe(true);
    expect(s2.backedUp).toBeNull(); // once
    const after = JSON.parse(fs.readFileSync(file, 'utf8'));
    for (const k of Object.keys(before)) expect(Object.keys(after)).toContain(k);
    expect(after.rotationOffsetCache).toEqual(before.rotationOffsetCache);
    // saving is saving: the values are the hub's now (what a save without a load means)
    expect([after.floorHeight, after.avatarScale, after.headScale, after.initialHipsHeight]).toEqual([
      0,
      1,
      1,
      null,
    ]);
    expect([after.footFrontBackOffset, after.footInOutOffset, after.chairSeatHeightOffset]).toEqual([
      0, 0, 0,
    ]);
    expect([after.headRotationOffsetX, after.headRotationOffsetY, after.headRotationOffsetZ]).toEqual([
      0, 0, 0,
    ]);
    expect(after.sourceFilter).toEqual(hub.sourceFilter);
    expect(fs.readdirSync(path.dirname(file)).sort()).toEqual(
      ['Mia_settings.json', path.basename(backup(file))].sort(),
    );
  });

  it('a file of this package not loaded in this session is backed up too before a save changes it', () => {
    const file = place('Mia_settings.json', 'Ours_settings.json');
    const mine = { ...hubNow(), floorHeight: 0.3 };
    fs.writeFileSync(file, JSON.stringify(mine));
    const s = one(['save-file', file, writeTmp('export.json', JSON.stringify(hubNow()))]);
    expect(s.backedUp).toBe(backup(file));
    expect(s.backedUpReason).toBe('not loaded in this session');
    expect(JSON.parse(fs.readFileSync(s.backedUp, 'utf8')).floorHeight).toBe(0.3);
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).floorHeight).toBe(0);
    // the same values again: nothing changes, no backup
    const s2 = one(['save-file', file, writeTmp('export.json', JSON.stringify(hubNow()))]);
    expect(s2.backedUp).toBeNull();
  });
});

describe('CustomRetargetingScript: auto-save on quit is wired to the atomic save', () => {
  const src = fs.readFileSync(path.join(PKG, 'Runtime/Shells/CustomRetargetingScript.cs'), 'utf8');
  const body = (signature: RegExp): string => {
    const m = signature.exec(src);
    expect(m).not.toBeNull();
    const open = src.indexOf('{', m!.index + m![0].length - 1);
    let depth = 0;
    for (let i = open; i < src.length; i++) {
      if (src[i] === '{') depth++;
      else if (src[i] === '}' && --depth === 0) return src.slice(open, i + 1);
    }
    throw new Error('unbalanced braces');
  };
  it('OnEnable subscribes Application.quitting, OnDisable unsubscribes, the handler saves', () => {
    expect(body(/void OnEnable\(\)\s*/)).toMatch(/Application\.quitting \+= OnApplicationQuitting;/);
    expect(body(/void OnDisable\(\)\s*/)).toMatch(/Application\.quitting -= OnApplicationQuitting;/);
    expect(body(/void OnApplicationQuitting\(\)\s*/)).toMatch(
      /if \(autoSaveOnQuit && driver != null\) SaveSettings\(\);/,
    );
    expect(src).toMatch(/public bool autoSaveOnQuit = true;/);
    expect(body(/public void SaveSettings\(\)\s*/)).toMatch(/SaveSettings\(SettingsFile\)/);
    expect(body(/public bool SaveSettings\(string path\)\s*/)).toMatch(
      /new KindSettingsSaver\(ExportSettingsJson, \(\) => path, settingsSession\)/,
    );
    // the load goes through KindSettingsLoader (tested above under Mono) and logs its report once
    const load = body(/public bool LoadSettings\(string path\)\s*/);
    expect(load).toMatch(/KindSettingsLoader\.Load\(path, ExportSettingsJson,/);
    expect(load).toContain(
      String.raw`Command("{\"action\":\"applySettings\",\"settings\":" + settings + "}")`,
    );
    expect(load.match(/report\.Summary\(path\)/g)).toHaveLength(2); // the success line or the warning
    expect(load).toMatch(/LastSettingsReport = report;/);
    // the default file is the standard location
    expect(body(/public string SettingsFile\s*/)).toMatch(
      /KindSettingsFile\.ForThisMachine\(SettingsPlatform, Application\.persistentDataPath, Application\.companyName, Application\.productName, target\)/,
    );
  });
});
