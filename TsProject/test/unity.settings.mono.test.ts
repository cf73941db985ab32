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
 * Skipped with a printed reason without mcs/mono.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

function has(cmd: string): boolean {
  try {
    execFileSync(cmd, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const HAS = has('mcs') && has('mono');
if (!HAS)
  console.warn('[skip] Unity settings file under Mono: mcs or mono not found (apt-get install mono-devel)');

const repo = path.resolve(__dirname, '../..');
const PKG = path.join(repo, 'Packages/com.kind.retargeting');
const SETTINGS_CS = path.join(PKG, 'Runtime/Bridge/KindSettingsFile.cs');
const HOST_CS = path.join(__dirname, 'fixtures/KindSettingsFileHost.cs');

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
    execFileSync('mcs', ['-nologo', '-warnaserror+', `-out:${exe}`, SETTINGS_CS, HOST_CS], { stdio: 'pipe' });
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
      /new KindSettingsSaver\(ExportSettingsJson, \(\) => path\)/,
    );
    // the default file is the standard location
    expect(body(/public string SettingsFile\s*/)).toMatch(
      /KindSettingsFile\.ForThisMachine\(SettingsPlatform, Application\.persistentDataPath, Application\.companyName, Application\.productName, target\)/,
    );
  });
});
