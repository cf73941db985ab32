/**
 * A remote autoCalibrateAll saves the character's settings (issue 21 part 2, the seed's remote table:
 * "CalibrateHeadToForward() + 저장"), as CustomRetargetingScript.AutoCalibrateAll() does:
 * - the shipped bundle's remote(text, clientId, scope) (Runtime/Resources/kind-retargeting/main.mjs in a
 *   bare vm context, as Unity loads it) names in `save` the character of an autoCalibrateAll that
 *   succeeded, and nobody for every other action of the table, an error reply (no frame yet, an unknown
 *   character, one outside the scope), a malformed scope or message; also after a hot reload;
 * - Runtime/Bridge/KindRemoteSaves.cs, compiled with mcs and run under Mono
 *   (test/fixtures/KindRemoteSavesHost.cs), on those very results: each character saved once per frame, in
 *   the order first asked, nothing in a frame without; a save that throws does not stop the others;
 * - the Unity-only wiring (RetargetingRemoteController collects in OnText and flushes after Pump; the save
 *   is CustomRetargetingScript.SaveAfterAutoCalibrateAll, the method AutoCalibrateAll() itself uses) is
 *   checked in the shells' source. Not run in Unity.
 * The Mono part is skipped with a printed reason without mcs/mono.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Clip, Skeleton } from '../src/core';
import { loadAvatar, loadSource } from '../src/io/node';
import { monoAvailable } from './helpers/mono';
import { InputPacker, loadShippedBundle, setupJson } from './unity.helpers';

const HAS = monoAvailable('Unity remote saves');

const repo = path.resolve(__dirname, '../..');
const PKG = path.join(repo, 'Packages/com.kind.retargeting');
const DEFAULT = path.resolve(__dirname, '../assets/default');

interface Api {
  createHub(setup: string): number;
  update(h: number, input: ArrayBuffer, dt: number): ArrayBuffer;
  command(h: number, json: string): string;
  remote(text: string, client: string, scope?: string | null): string;
  exportState(): string;
  importState(json: string): void;
}

const loadShipped = (): Api => loadShippedBundle<Api>();

let clip: Clip;
let target: Skeleton;
beforeAll(async () => {
  clip = (await loadSource(path.join(DEFAULT, 'default-walk.bvh'))).clip;
  target = (await loadAvatar(path.join(DEFAULT, 'default-avatar.glb'))).skeleton;
});

/** Alice and Bob with frames, Carol without. */
function withHubs(): Api {
  const api = loadShipped();
  const pack = new InputPacker(clip.skeleton);
  for (const n of ['Alice', 'Bob', 'Carol']) {
    const h = api.createHub(setupJson(n, clip.skeleton, target));
    if (n !== 'Carol') for (let f = 0; f < 5; f++) api.update(h, pack.packFrame(clip, f), clip.frameTime);
  }
  return api;
}

interface Result {
  reply: string;
  broadcast: string | null;
  save: string[];
}
const send = (api: Api, msg: unknown, scope?: string | null): { text: string; r: Result } => {
  const text = api.remote(typeof msg === 'string' ? msg : JSON.stringify(msg), 'c', scope);
  return { text, r: JSON.parse(text) };
};

describe("remote()'s save list (the shipped bundle)", () => {
  it('an autoCalibrateAll that succeeded names its character; it has calibrated (the scale changed)', () => {
    const api = withHubs();
    const scaleOf = (name: string) =>
      JSON.parse(send(api, { action: 'getCharacterData', characterName: name }).r.reply).parameters.find(
        (p: { name: string }) => p.name === 'avatarScale',
      ).value as number;
    expect(scaleOf('Alice')).toBe(1);
    const { r } = send(api, { action: 'autoCalibrateAll', characterName: 'Alice', id: 7 });
    expect(JSON.parse(r.reply)).toMatchObject({
      action: 'autoCalibrateAll',
      ok: true,
      id: 7,
      characterName: 'Alice',
    });
    expect(r.save).toEqual(['Alice']);
    expect(scaleOf('Alice')).not.toBe(1); // the neck-height ratio of two different skeletons
    expect(send(api, { action: 'autoCalibrateAll', characterName: 'Bob' }).r.save).toEqual(['Bob']);
  });

  it('every other action of the table, and every error, names nobody', () => {
    const api = withHubs();
    for (const msg of [
      { action: 'refresh' },
      { action: 'getCharacterData', characterName: 'Alice' },
      { action: 'updateValueRealtime', characterName: 'Alice', property: 'avatarScale', value: 1.2 },
      { action: 'setHandPosePreset', characterName: 'Alice', hand: 'both', preset: '바위' },
      { action: 'calibrateIPose', characterName: 'Alice' },
      { action: 'resetCalibration', characterName: 'Alice' },
      { action: 'calibrateHeadForward', characterName: 'Alice' },
    ]) {
      const { r } = send(api, msg);
      expect(JSON.parse(r.reply).ok).toBe(true);
      expect(r.save).toEqual([]);
    }
    const errors: [unknown, string | undefined][] = [
      [{ action: 'autoCalibrateAll', characterName: 'Carol' }, undefined], // no frame yet
      [{ action: 'autoCalibrateAll', characterName: 'Nobody' }, undefined],
      [{ action: 'autoCalibrateAll', characterName: 'Bob' }, '["Alice"]'], // outside the scope
      [{ action: 'autoCalibrateAll', characterName: 'Bob' }, 'not json'], // malformed scope
      [{ action: 'autoCalibrateAll', characterName: 'Bob', extra: 1 }, undefined],
      ['{"action":"autoCalibrateAll",', undefined],
    ];
    for (const [msg, scope] of errors) {
      const { r } = send(api, msg, scope);
      expect(JSON.parse(r.reply).ok).toBe(false);
      expect(r.save).toEqual([]);
    }
    // in the scope it saves
    expect(send(api, { action: 'autoCalibrateAll', characterName: 'Bob' }, '["Bob"]').r.save).toEqual([
      'Bob',
    ]);
  });

  it('after a hot reload (a fresh bundle context with the exported state) it still names the character', () => {
    const api = withHubs();
    const next = loadShipped();
    next.importState(api.exportState());
    expect(send(next, { action: 'autoCalibrateAll', characterName: 'Alice' }).r.save).toEqual(['Alice']);
    expect(send(next, { action: 'calibrateIPose', characterName: 'Alice' }).r.save).toEqual([]);
  });
});

(HAS ? describe : describe.skip)('KindRemoteSaves.cs under Mono, on the bundle results', () => {
  let dir = '';
  let exe = '';
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-remote-saves-'));
    exe = path.join(dir, 'host.exe');
    execFileSync(
      'mcs',
      [
        '-nologo',
        '-warnaserror+',
        `-out:${exe}`,
        path.join(PKG, 'Runtime/Bridge/KindRemoteSaves.cs'),
        path.join(PKG, 'Runtime/Bridge/KindJson.cs'),
        path.join(__dirname, 'fixtures/KindRemoteSavesHost.cs'),
      ],
      { stdio: 'pipe' },
    );
  });
  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  function host(lines: string[]): string[] {
    const r = spawnSync('mono', [exe], { input: `${lines.join('\n')}\n`, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`mono exited ${r.status}: ${r.stderr}`);
    return r.stdout.trimEnd().split('\n');
  }

  it('saves each character once per frame, in the order first asked; nothing in a frame without', () => {
    const api = withHubs();
    const frame1 = [
      { action: 'autoCalibrateAll', characterName: 'Bob' },
      { action: 'autoCalibrateAll', characterName: 'Alice' },
      { action: 'calibrateIPose', characterName: 'Alice' },
      { action: 'autoCalibrateAll', characterName: 'Bob' },
      { action: 'autoCalibrateAll', characterName: 'Carol' }, // fails: no frame
    ].map((m) => send(api, m).text);
    const frame2 = [
      { action: 'updateValueRealtime', characterName: 'Bob', property: 'avatarScale', value: 1.1 },
    ].map((m) => send(api, m).text);
    const frame3 = [send(api, { action: 'autoCalibrateAll', characterName: 'Alice' }).text];
    const out = host([
      ...frame1.map((t) => `R ${t}`),
      'F',
      ...frame2.map((t) => `R ${t}`),
      'F',
      ...frame3.map((t) => `R ${t}`),
      'F',
    ]);
    expect(out).toEqual([
      'collected 1 1',
      'collected 1 2',
      'collected 0 2',
      'collected 0 2',
      'collected 0 2',
      'save Bob',
      'save Alice',
      'flushed 2',
      'collected 0 0',
      'flushed 0',
      'collected 1 1',
      'save Alice',
      'flushed 1',
    ]);
  });

  it('a save that throws is reported and the others still run; a result without "save" adds nothing', () => {
    const out = host([
      'R {"reply":"{}","broadcast":null,"save":["throw-A","Bob",3,""]}',
      'R {"reply":"{}","broadcast":null}',
      'F',
      'F',
    ]);
    expect(out).toEqual([
      'collected 2 2',
      'collected 0 2',
      'failed throw-A disk full for throw-A',
      'save Bob',
      'flushed 2',
      'flushed 0',
    ]);
  });
});

describe('the Unity wiring (source of the shells; Unity-only code, not run here)', () => {
  const read = (f: string) => fs.readFileSync(path.join(PKG, 'Runtime/Shells', f), 'utf8');
  const body = (src: string, signature: string) => {
    const i = src.indexOf(signature);
    expect(i).toBeGreaterThan(0);
    const open = src.indexOf('{', i);
    let depth = 0;
    for (let k = open; k < src.length; k++) {
      if (src[k] === '{') depth++;
      else if (src[k] === '}' && --depth === 0) return src.slice(open, k + 1);
    }
    throw new Error(`no body for ${signature}`);
  };

  it('RetargetingRemoteController collects every parsed remote() result and saves after the frame', () => {
    const src = read('RetargetingRemoteController.cs');
    expect(body(src, 'KindSocketResult IKindSocketHandler.OnText(')).toMatch(
      /parsed = KindJson\.Parse\(result\);[\s\S]*saves\.Collect\(parsed\);/,
    );
    expect(body(src, 'void Update()')).toMatch(
      /server\.Pump\(maxMessagesPerFrame, this\);\s*if \(saves\.Count > 0\) saves\.Flush\(SaveCharacter, SaveFailed\);/,
    );
    const save = body(src, 'void SaveCharacter(string characterName)');
    expect(save).toMatch(/c\.Driver\.Name != characterName/);
    expect(save).toMatch(/c\.SaveAfterAutoCalibrateAll\(\);/);
  });

  it('the save is the one CustomRetargetingScript.AutoCalibrateAll() uses: scales read back, then SaveSettings()', () => {
    const src = read('CustomRetargetingScript.cs');
    expect(body(src, 'public void AutoCalibrateAll()')).toMatch(/SaveAfterAutoCalibrateAll\(\);/);
    expect(body(src, 'internal void SaveAfterAutoCalibrateAll()')).toMatch(
      /PullLiveScales\(\);\s*SaveSettings\(\);/,
    );
  });
});
