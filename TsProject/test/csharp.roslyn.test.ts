/**
 * The Unity package's C# compiles with Roslyn at Unity 2021.3's language level (C# 9) against PuerTS 2.2.3
 * AND 3.x (core + v8 + quickjs) in the four flavours (tools/check-csharp-roslyn.mjs, issue 27 item 3).
 * The negative cases prove the check can fail: C# 10 syntax is refused at -langversion:9, and without the
 * asmdef's versionDefines (PUERTS_3_OR_NEWER) the package fails against 3.x only (JsEnv is obsolete there,
 * and package code builds with warnings as errors).
 * Skipped with a printed reason when the .NET SDK or a PuerTS source is absent.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const TOOL = path.join(ROOT, 'tools/check-csharp-roslyn.mjs');
const PKG = path.join(ROOT, 'Packages/com.kind.retargeting');
const PUERTS2 = path.resolve(ROOT, '../shared/reference/puerts-unity-2.2.3');
const PUERTS3 = process.env.KIND_PUERTS3_SRC || '/work/.mirror/Tencent+puerts/repo';
const FLAVOURS = [
  'Editor',
  'Mono player',
  'IL2CPP player (PuerTS IL2CPP optimisation, the default)',
  'IL2CPP player with PUERTS_DISABLE_IL2CPP_OPTIMIZATION',
];

const DOTNET = spawnSync('dotnet', ['--version'], { encoding: 'utf8' }).status === 0;
const HAS2 = fs.existsSync(path.join(PUERTS2, 'Runtime/com.tencent.puerts.core.asmdef'));
const HAS3 = fs.existsSync(PUERTS3);
if (!DOTNET) console.warn('[skip] Roslyn C# check: `dotnet` (the .NET SDK) not found');
else {
  if (!HAS2) console.warn(`[skip] Roslyn C# check against PuerTS 2.2.3: sources absent at ${PUERTS2}`);
  if (!HAS3)
    console.warn(
      `[skip] Roslyn C# check against PuerTS 3.x: no sources at ${PUERTS3} (set KIND_PUERTS3_SRC)`,
    );
}
const VERSIONS = [...(HAS2 ? ['2'] : []), ...(HAS3 ? ['3'] : [])];

function check(args: string[]): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [TOOL, ...args], {
    encoding: 'utf8',
    env: { ...process.env, KIND_PUERTS3_SRC: PUERTS3 },
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

(DOTNET && VERSIONS.length > 0 ? describe : describe.skip)(
  'the Unity package C# compiled by Roslyn at C# 9',
  () => {
    it(`every C# file compiles in the four flavours against PuerTS ${VERSIONS.map((v) => (v === '2' ? '2.2.3' : '3.x')).join(' and ')}`, () => {
      const r = check(['--versions', VERSIONS.join(',')]);
      if (r.status !== 0) console.log(r.out);
      expect(r.status).toBe(0);
      expect(r.out).toMatch(
        /check-csharp-roslyn: \d+ C# files compile with Roslyn [^\n]* at -langversion:9 against /,
      );
      for (const flavour of FLAVOURS) {
        if (HAS2) {
          expect(r.out).toContain(
            `ok   [PuerTS 2.2.3 ${flavour}] com.tencent.puerts.core (com.tencent.puerts.core 2.2.2, `,
          );
          // 2.2.3 builds the package without the 3.x define.
          expect(r.out).toMatch(
            new RegExp(
              `ok   \\[PuerTS 2\\.2\\.3 ${reEscape(flavour)}\\] Kind\\.Retargeting\\.Runtime \\(\\d+ files\\)`,
            ),
          );
          expect(r.out).toContain(`ok   [PuerTS 2.2.3 ${flavour}] probe ApiProbe.cs as Assembly-CSharp`);
          expect(r.out).toContain(`ok   [PuerTS 2.2.3 ${flavour}] sample OptiTrack as Assembly-CSharp`);
        }
        if (HAS3) {
          for (const asm of ['core', 'v8', 'quickjs']) {
            expect(r.out).toMatch(
              new RegExp(
                `ok   \\[PuerTS 3\\.\\d+\\.\\d+ ${reEscape(flavour)}\\] com\\.tencent\\.puerts\\.${asm} \\(com\\.tencent\\.puerts\\.${asm} 3\\.`,
              ),
            );
          }
          expect(r.out).toMatch(
            new RegExp(
              `ok   \\[PuerTS 3\\.\\d+\\.\\d+ ${reEscape(flavour)}\\] Kind\\.Retargeting\\.Runtime \\(\\d+ files, PUERTS_3_OR_NEWER\\)`,
            ),
          );
          expect(r.out).toMatch(
            new RegExp(
              `ok   \\[PuerTS 3\\.\\d+\\.\\d+ ${reEscape(flavour)}\\] probe SeedProbe\\.cs as Assembly-CSharp`,
            ),
          );
        }
      }
      expect(r.out).toContain('Kind.Retargeting.Editor (');
      expect(r.out).not.toMatch(/^FAIL/m);
    }, 300_000);

    it('refuses C# 10 at -langversion:9 (a file-scoped namespace, as Unity 2021.3 would)', () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-probe-'));
      try {
        const probe = path.join(dir, 'FileScoped.cs');
        fs.writeFileSync(
          probe,
          'namespace KindProbe;\npublic static class FileScoped { public static int Two() { return 2; } }\n',
        );
        const r = check(['--versions', VERSIONS[0], '--only', 'editor', '--probe', probe]);
        expect(r.status).toBe(1);
        expect(r.out).toMatch(/ok {3}\[PuerTS [\d.]+ Editor\] Kind\.Retargeting\.Runtime/);
        expect(r.out).toContain(
          "FileScoped.cs(1,1): error CS8773: Feature 'file-scoped namespace' is not available in C# 9.0. Please use language version 10.0 or greater.",
        );
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }, 120_000);

    (HAS3 ? it : it.skip)(
      "without the asmdef's versionDefines the package fails against PuerTS 3.x alone (its JsEnv is obsolete)",
      () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-pkg-'));
        try {
          fs.cpSync(PKG, dir, { recursive: true, filter: (src) => !src.endsWith('.mjs') });
          const asmdef = path.join(dir, 'Runtime/Kind.Retargeting.Runtime.asmdef');
          const j = JSON.parse(fs.readFileSync(asmdef, 'utf8'));
          expect(j.versionDefines).toEqual([
            { name: 'com.tencent.puerts.core', expression: '3.0.0', define: 'PUERTS_3_OR_NEWER' },
          ]);
          j.versionDefines = [];
          fs.writeFileSync(asmdef, JSON.stringify(j, null, 2));
          const r = check(['--package', dir, '--versions', VERSIONS.join(','), '--only', 'mono']);
          expect(r.status).toBe(1);
          if (HAS2)
            expect(r.out).toMatch(
              /ok {3}\[PuerTS 2\.2\.3 Mono player\] Kind\.Retargeting\.Runtime \(\d+ files\)/,
            );
          expect(r.out).toMatch(
            /FAIL \[PuerTS 3\.\d+\.\d+ Mono player\] Kind\.Retargeting\.Runtime \(\d+ files\)\n[^\n]*KindBridge\.cs\(\d+,\d+\): error CS0618: 'JsEnv' is obsolete: 'use ScriptEnv instead'/,
          );
        } finally {
          fs.rmSync(dir, { recursive: true, force: true });
        }
      },
      120_000,
    );
  },
);

function reEscape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
