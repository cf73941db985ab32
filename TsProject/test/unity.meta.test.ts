/**
 * Unity .meta files of Packages/com.kind.retargeting (tools/unity-meta.mjs). Unity ignores every asset
 * of an immutable package (git URL, tarball, registry) that has no .meta, so every file and folder
 * Unity imports must have one, with a unique 32-hex-digit GUID and the importer Unity uses for it; no
 * .meta may be left without its asset; folders Unity ignores (Samples~) carry none.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const TOOL = path.join(ROOT, 'tools/unity-meta.mjs');
const PKG = path.join(ROOT, 'Packages/com.kind.retargeting');

function run(args: string[]): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [TOOL, ...args], { encoding: 'utf8' });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** Every path under `dir` (relative, '/'), files and folders. */
function walk(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const name of fs.readdirSync(path.join(dir, rel)).sort()) {
    const r = rel ? `${rel}/${name}` : name;
    out.push(r);
    if (fs.statSync(path.join(dir, r)).isDirectory()) out.push(...walk(dir, r));
  }
  return out;
}

const guidOf = (file: string) => /^guid: (\S+)$/m.exec(fs.readFileSync(file, 'utf8'))?.[1];

/** A copy of the package without its .meta files (and without the large bundle's text). */
function bareCopy(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-meta-'));
  fs.cpSync(PKG, dir, { recursive: true, filter: (src) => !src.endsWith('.meta') });
  return dir;
}

describe('the package .meta files', () => {
  const all = walk(PKG);
  const isIgnored = (rel: string) =>
    rel.split('/').some((part) => part.startsWith('.') || part.endsWith('~'));
  const assets = all.filter((r) => !r.endsWith('.meta') && !isIgnored(r));

  it('the committed package passes the check (every asset has one, no orphan, GUIDs unique)', () => {
    const r = run(['--check']);
    if (r.status !== 0) console.log(r.out);
    expect(r.status).toBe(0);
    expect(r.out).toMatch(
      new RegExp(`unity-meta: ${assets.length} assets, each with one .meta and a unique GUID`),
    );
  });

  it('every file and folder Unity imports has a .meta with a 32-hex-digit GUID, all distinct', () => {
    expect(assets.length).toBeGreaterThan(30);
    const guids = new Set<string>();
    for (const a of assets) {
      const meta = path.join(PKG, `${a}.meta`);
      expect([a, fs.existsSync(meta)]).toEqual([a, true]);
      const g = guidOf(meta);
      expect(g).toMatch(/^[0-9a-f]{32}$/);
      guids.add(g as string);
    }
    expect(guids.size).toBe(assets.length);
  });

  it('no orphan .meta, and none inside Samples~ (Unity ignores tilde folders; imported samples get theirs in Assets)', () => {
    for (const m of all.filter((r) => r.endsWith('.meta'))) {
      expect([m, isIgnored(m)]).toEqual([m, false]);
      expect([m, fs.existsSync(path.join(PKG, m.slice(0, -5)))]).toEqual([m, true]);
    }
    expect(fs.existsSync(path.join(PKG, 'Samples~.meta'))).toBe(false);
    expect(all.some((r) => r.startsWith('Samples~/') && r.endsWith('.cs'))).toBe(true); // the OptiTrack sample is there
  });

  it('each asset has the importer Unity uses for its type', () => {
    const meta = (rel: string) => fs.readFileSync(path.join(PKG, `${rel}.meta`), 'utf8');
    for (const a of assets) {
      const text = meta(a);
      if (fs.statSync(path.join(PKG, a)).isDirectory())
        expect(text).toMatch(/^folderAsset: yes\nDefaultImporter:$/m);
      else if (a.endsWith('.cs'))
        expect(text).toMatch(/^MonoImporter:\n {2}externalObjects: \{\}\n {2}serializedVersion: 2$/m);
      else if (a.endsWith('.asmdef')) expect(text).toMatch(/^AssemblyDefinitionImporter:$/m);
      else if (a.endsWith('.md')) expect(text).toMatch(/^TextScriptImporter:$/m);
    }
    expect(meta('package.json')).toMatch(/^PackageManifestImporter:$/m);
    expect(meta('LICENSE')).toMatch(/^DefaultImporter:$/m);
    // The bundle is imported by PuerTS's MJSImporter (a TextAsset, which DefaultLoader reads via Resources.Load).
    expect(meta('Runtime/Resources/kind-retargeting/main.mjs')).toMatch(
      /^ScriptedImporter:\n[\s\S]*^ {2}script: \{fileID: 11500000, guid: 8d43858c69c697345882dca6cd2254d1, type: 3\}$/m,
    );
  });

  it('the tool writes every missing .meta, with the same GUIDs in every clone, and never rewrites an existing one', () => {
    const a = bareCopy();
    const b = bareCopy();
    try {
      expect(run(['--package', a, '--check']).status).toBe(1);
      // A hand-made .meta with its own GUID stays as it is.
      const kept = 'fileFormatVersion: 2\nguid: 0123456789abcdef0123456789abcdef\nDefaultImporter:\n';
      fs.writeFileSync(path.join(a, 'LICENSE.meta'), kept);
      const r = run(['--package', a]);
      expect(r.status).toBe(0);
      expect(r.out).toContain(`unity-meta: ${assets.length - 1} .meta file(s) written`);
      expect(fs.readFileSync(path.join(a, 'LICENSE.meta'), 'utf8')).toBe(kept);
      expect(run(['--package', b]).status).toBe(0);
      for (const x of assets.filter((r) => r !== 'LICENSE')) {
        expect([x, guidOf(path.join(a, `${x}.meta`))]).toEqual([x, guidOf(path.join(b, `${x}.meta`))]);
      }
      // Running again writes nothing.
      expect(run(['--package', b]).out).toContain('unity-meta: 0 .meta file(s) written');
    } finally {
      fs.rmSync(a, { recursive: true, force: true });
      fs.rmSync(b, { recursive: true, force: true });
    }
  });

  it('the check names an orphan, a duplicate GUID, a malformed GUID and a .meta inside Samples~', () => {
    const d = bareCopy();
    try {
      expect(run(['--package', d]).status).toBe(0);
      fs.writeFileSync(
        path.join(d, 'Runtime/Gone.cs.meta'),
        'fileFormatVersion: 2\nguid: 11111111111111111111111111111111\n',
      );
      fs.copyFileSync(path.join(d, 'README.md.meta'), path.join(d, 'CHANGELOG.md.meta'));
      fs.writeFileSync(path.join(d, 'LICENSE.meta'), 'fileFormatVersion: 2\nguid: XYZ\nDefaultImporter:\n');
      fs.writeFileSync(
        path.join(d, 'Samples~/OptiTrack/KindOptitrackSource.cs.meta'),
        'fileFormatVersion: 2\nguid: 22222222222222222222222222222222\n',
      );
      const r = run(['--package', d, '--check']);
      expect(r.status).toBe(1);
      expect(r.out).toContain(
        'Runtime/Gone.cs.meta: orphan .meta (no asset Runtime/Gone.cs that Unity imports)',
      );
      expect(r.out).toMatch(
        /(CHANGELOG|README)\.md\.meta: guid [0-9a-f]{32} already used by (README|CHANGELOG)\.md\.meta/,
      );
      expect(r.out).toContain("LICENSE.meta: guid 'XYZ' is not 32 lowercase hex digits");
      expect(r.out).toContain('Samples~/OptiTrack/KindOptitrackSource.cs.meta: orphan .meta');
    } finally {
      fs.rmSync(d, { recursive: true, force: true });
    }
  });
});

describe('the package dependencies', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(PKG, 'package.json'), 'utf8'));
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'Packages/manifest.json'), 'utf8'));

  it('declares the animation module the runtime uses (Animator, HumanBodyBones)', () => {
    const usesAnimator = walk(path.join(PKG, 'Runtime')).some(
      (r) => r.endsWith('.cs') && /\bAnimator\b/.test(fs.readFileSync(path.join(PKG, 'Runtime', r), 'utf8')),
    );
    expect(usesAnimator).toBe(true);
    expect(pkg.dependencies['com.unity.modules.animation']).toBe('1.0.0');
  });

  it("declares the physics module KindCodeHumanoid uses (Collider: the primitives' colliders are removed)", () => {
    const src = fs.readFileSync(path.join(PKG, 'Runtime/Humanoid/KindCodeHumanoid.cs'), 'utf8');
    expect(src).toMatch(/\bCollider\b/);
    expect(pkg.dependencies['com.unity.modules.physics']).toBe('1.0.0');
  });

  it('pins the PuerTS version OpenUPM publishes (2.2.2, V8 build), the same in the project manifest', () => {
    // OpenUPM builds com.tencent.puerts.core from github.com/chexiongsheng/puerts_unity_demo tags upm/*;
    // the newest is upm/2.2.2. 2.2.3 exists only as GitHub release tarballs (README: install).
    expect(pkg.dependencies['com.tencent.puerts.core']).toBe('2.2.2');
    expect(manifest.dependencies['com.tencent.puerts.core']).toBe(
      pkg.dependencies['com.tencent.puerts.core'],
    );
    expect(manifest.scopedRegistries).toEqual([
      { name: 'package.openupm.com', url: 'https://package.openupm.com', scopes: ['com.tencent.puerts'] },
    ]);
  });
});
