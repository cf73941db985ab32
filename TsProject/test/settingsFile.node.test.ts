/**
 * The Node side's settings files (src/io/node/settingsFile.ts, issue 21 part 1): the original
 * KindRetargeting's files (test/fixtures/original-settings, hand-written from the design document; see
 * its README) are imported by name and nothing they hold is dropped on save; a file that cannot be read is
 * moved aside to {name}.unreadable-<time>.json, never overwritten; saving is atomic.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  describeSettingsReport,
  loadSettingsFile,
  readSettingsText,
  saveSettingsFile,
  unreadableName,
} from '../src/io/node/settingsFile';
import { defaultSettings, parseSettings } from '../src/rig/settings';

const ORIGINAL = path.join(__dirname, 'fixtures/original-settings');
const NOW = new Date(Date.UTC(2026, 11, 2, 10, 30, 0));
const STAMP = 'unreadable-20261202-103000';

let dir = '';
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-settings-node-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});
const place = (name: string, as = name): string => {
  const f = path.join(dir, as);
  fs.copyFileSync(path.join(ORIGINAL, name), f);
  return f;
};

describe('settings files on the Node side', () => {
  it("imports the original's file by its field names; the report names what was and was not", () => {
    const file = place('Mia_settings.json');
    const r = loadSettingsFile(file, undefined, NOW);
    expect(r.format).toBe('original');
    const s = r.settings!;
    expect(s.footOffsets).toEqual({
      left: { frontBack: 0.03, inOut: -0.015 },
      right: { frontBack: 0.03, inOut: -0.015 },
    });
    expect([s.floorHeight, s.initialHipsHeight, s.avatarScale, s.headScale, s.chairSeatOffset]).toEqual([
      0.021, 0.93, 1.08, 0.95, -0.04,
    ]);
    expect(s.headRotationOffset).toEqual([5, -12.5, 0]);
    expect(r.imported).toHaveLength(10);
    expect(r.imported[0]).toBe('footFrontBackOffset = 0.03 -> footOffsets.left/right.frontBack');
    expect(r.notImported).toEqual(['rotationOffsetCache: no matching setting in this project']);
    expect(describeSettingsReport(file, r)).toMatch(
      /\(the original KindRetargeting's format\): imported footFrontBackOffset = 0\.03 .*Not imported \(kept in the file on save\): rotationOffsetCache/,
    );
    expect(r.movedTo).toBeNull();
    const k = readSettingsText(fs.readFileSync(path.join(ORIGINAL, 'Kai_settings.json'), 'utf8'));
    expect(k.settings!.floorHeight).toBe(0);
    expect(k.settings!.initialHipsHeight).toBeNull();
    expect(k.notImported[0]).toBe("floorHeight = 12: out of this project's range -10..10");
  });

  it('save over the original: ours written, the original members kept (mapped ones follow), readable by both', () => {
    const file = place('Mia_settings.json');
    const before = JSON.parse(fs.readFileSync(file, 'utf8'));
    const s = loadSettingsFile(file, undefined, NOW).settings!;
    s.footOffsets.left.frontBack = 0.05;
    s.footOffsets.right.frontBack = 0.05;
    expect(saveSettingsFile(file, s, NOW)).toEqual({ movedAside: null, reason: null });
    const after = JSON.parse(fs.readFileSync(file, 'utf8'));
    for (const key of Object.keys(before)) expect(Object.keys(after)).toContain(key);
    expect(after.rotationOffsetCache).toEqual(before.rotationOffsetCache);
    expect(after.footFrontBackOffset).toBe(0.05);
    expect(after.headRotationOffsetY).toBe(-12.5);
    expect(after.schemaVersion).toBe(1);
    const again = loadSettingsFile(file, undefined, NOW);
    expect(again.format).toBe('kind');
    expect(again.settings!.footOffsets.left.frontBack).toBe(0.05);
    expect(again.notImported).toContain('rotationOffsetCache: not a setting of this project');
    expect(fs.readdirSync(dir)).toEqual(['Mia_settings.json']);
    // a file without extras is exactly serializeSettings' text (parseSettings reads it)
    const plain = path.join(dir, 'Plain_settings.json');
    saveSettingsFile(plain, defaultSettings(), NOW);
    expect(parseSettings(fs.readFileSync(plain, 'utf8'), plain)).toEqual(defaultSettings());
  });

  it('an unreadable file is moved aside on load and on save, never overwritten', () => {
    const broken = place('Broken_settings.json', 'Mia_settings.json');
    const bytes = fs.readFileSync(broken);
    const r = loadSettingsFile(broken, undefined, NOW);
    expect(r.format).toBe('unreadable');
    expect(r.problem).toMatch(/^not valid JSON: /);
    expect(r.movedTo).toBe(path.join(dir, `Mia_settings.${STAMP}.json`));
    expect(fs.readFileSync(r.movedTo!).equals(bytes)).toBe(true);
    expect(fs.existsSync(broken)).toBe(false);
    // saved over without a load: moved aside first (the name taken: -2)
    const wrong = place('WrongType_settings.json', 'Mia_settings.json');
    const wrongText = fs.readFileSync(wrong, 'utf8');
    const saved = saveSettingsFile(wrong, defaultSettings(), NOW);
    expect(saved).toEqual({
      movedAside: path.join(dir, `Mia_settings.${STAMP}-2.json`),
      reason: 'avatarScale: need a number, got a string "1.08"',
    });
    expect(fs.readFileSync(saved.movedAside!, 'utf8')).toBe(wrongText);
    expect(parseSettings(fs.readFileSync(wrong, 'utf8'), wrong)).toEqual(defaultSettings());
    // our format with a value the validator refuses
    const ours = path.join(dir, 'Ours_settings.json');
    fs.writeFileSync(ours, JSON.stringify({ ...defaultSettings(), headScale: 9 }));
    const o = loadSettingsFile(ours, undefined, NOW);
    expect(o.problem).toMatch(/headScale: 9 is out of range/);
    expect(o.movedTo).toBe(path.join(dir, `Ours_settings.${STAMP}.json`));
    expect(unreadableName(ours, NOW)).toBe(path.join(dir, `Ours_settings.${STAMP}-2.json`));
  });

  it('a failed write leaves the previous file and no temporary file', () => {
    const file = place('Mia_settings.json');
    const text = fs.readFileSync(file, 'utf8');
    const bad = { ...defaultSettings(), avatarScale: 99 };
    expect(() => saveSettingsFile(file, bad, NOW)).toThrow(/avatarScale/);
    const blockedDir = path.join(dir, 'is-a-folder.json');
    fs.mkdirSync(blockedDir);
    expect(() => saveSettingsFile(blockedDir, defaultSettings(), NOW)).toThrow();
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
    expect(fs.readdirSync(dir).sort()).toEqual(['Mia_settings.json', 'is-a-folder.json']);
  });
});
