/**
 * The Unity package's C# compiles against the REAL PuerTS runtime (tools/check-csharp.mjs: Mono's mcs
 * builds the PuerTS Unity_v2.2.3 sources from ../shared/reference in the four flavours Unity uses, then
 * the package's asmdefs following their references exactly, and the OptiTrack sample as
 * Assembly-CSharp against the plugin stub). The negative cases run the same check on a temporary copy
 * of the package with one defect planted, and assert that it fails where Unity would.
 * Skipped with a printed reason when mcs or the PuerTS reference sources are absent.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const TOOL = path.join(ROOT, 'tools/check-csharp.mjs');
const PKG = path.join(ROOT, 'Packages/com.kind.retargeting');
const PUERTS = path.resolve(ROOT, '../shared/reference/puerts-unity-2.2.3');

function hasMcs(): boolean {
  try {
    execFileSync('mcs', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const MCS = hasMcs();
const REF = fs.existsSync(path.join(PUERTS, 'Runtime/com.tencent.puerts.core.asmdef'));
if (!MCS) console.warn('[skip] C# compile check: mcs not found (apt-get install mono-mcs)');
else if (!REF) console.warn(`[skip] C# compile check: PuerTS reference sources absent at ${PUERTS}`);

function check(args: string[] = []): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [TOOL, ...args], { encoding: 'utf8' });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** A temporary copy of the package (Runtime, Editor, Samples~, package.json), edited by `plant`. */
function withPlanted(plant: (dir: string) => void, args: string[]): { status: number | null; out: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-pkg-'));
  try {
    fs.cpSync(PKG, dir, { recursive: true, filter: (src) => !src.endsWith('.mjs') });
    plant(dir);
    return check(['--package', dir, ...args]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function editJson(file: string, edit: (j: Record<string, unknown>) => void): void {
  const j = JSON.parse(fs.readFileSync(file, 'utf8'));
  edit(j);
  fs.writeFileSync(file, JSON.stringify(j, null, 2));
}

const RUNTIME_ASMDEF = 'Runtime/Kind.Retargeting.Runtime.asmdef';

(MCS && REF ? describe : describe.skip)(
  'the Unity package C# compile check (real PuerTS 2.2.3 sources)',
  () => {
    it('every C# file compiles in the Editor, Mono player, IL2CPP and IL2CPP-without-optimisation flavours', () => {
      const r = check();
      if (r.status !== 0) console.log(r.out);
      expect(r.status).toBe(0);
      expect(r.out).toMatch(
        /check-csharp: \d+ C# files compile against the real PuerTS \(PuerTS reference sources puerts-unity-2\.2\.3/,
      );
      for (const flavour of [
        'Editor',
        'Mono player',
        'IL2CPP player (PuerTS IL2CPP optimisation, the default)',
        'IL2CPP player with PUERTS_DISABLE_IL2CPP_OPTIMIZATION',
      ]) {
        expect(r.out).toContain(`ok   [${flavour}] com.tencent.puerts.core (PuerTS reference sources`);
        expect(r.out).toContain(`ok   [${flavour}] Kind.Retargeting.Runtime (`);
        expect(r.out).toContain(`ok   [${flavour}] sample OptiTrack as Assembly-CSharp`);
      }
      // The Editor asmdef (includePlatforms ["Editor"]) is built in the Editor only.
      expect(r.out).toContain('ok   [Editor] Kind.Retargeting.Editor (');
      expect(r.out).toContain(
        'skip [Mono player] Kind.Retargeting.Editor (not built for WindowsStandalone64',
      );
    });

    it("the IL2CPP flavour compiles against PuerTS's IL2CPP JsEnv: a call only the reflection JsEnv has fails there alone", () => {
      // JsEnv.ClearModuleCache() exists in Runtime/Src/Default/JsEnv.cs, not in Runtime/Src/IL2Cpp/JsEnv.cs.
      const r = withPlanted((dir) => {
        const f = path.join(dir, 'Runtime/Bridge/KindBridge.cs');
        fs.writeFileSync(
          f,
          fs
            .readFileSync(f, 'utf8')
            .replace(
              'public void Tick() { if (env != null) env.Tick(); }',
              'public void Tick() { if (env != null) { env.Tick(); env.ClearModuleCache(); } }',
            ),
        );
      }, []);
      expect(r.status).toBe(1);
      expect(r.out).toContain('ok   [Editor] Kind.Retargeting.Runtime (');
      expect(r.out).toContain('ok   [Mono player] Kind.Retargeting.Runtime (');
      expect(r.out).toContain(
        'ok   [IL2CPP player with PUERTS_DISABLE_IL2CPP_OPTIMIZATION] Kind.Retargeting.Runtime (',
      );
      expect(r.out).toMatch(
        /FAIL \[IL2CPP player \(PuerTS IL2CPP optimisation, the default\)\] Kind\.Retargeting\.Runtime[^\n]*\n(?:[^\n]*\n)?[^\n]*KindBridge\.cs\(\d+,\d+\): error CS1061: Type `Puerts\.JsEnv' does not contain a definition for `ClearModuleCache'/,
      );
    });

    it('follows the asmdef references: without com.tencent.puerts.core in them the runtime cannot see Puerts', () => {
      const r = withPlanted(
        (dir) =>
          editJson(path.join(dir, RUNTIME_ASMDEF), (j) => {
            j.references = [];
          }),
        ['--only', 'editor'],
      );
      expect(r.status).toBe(1);
      expect(r.out).toMatch(
        /FAIL \[Editor\] Kind\.Retargeting\.Runtime[^\n]*\n[\s\S]*error CS0246: The type or namespace name `Puerts' could not be found/,
      );
    });

    it('rejects an asmdef reference that no asmdef defines (the old check passed -r:OptiTrack.dll that none declares)', () => {
      const r = withPlanted(
        (dir) =>
          editJson(path.join(dir, RUNTIME_ASMDEF), (j) => {
            j.references = ['com.tencent.puerts.core', 'OptiTrack'];
          }),
        ['--only', 'editor'],
      );
      expect(r.status).toBe(1);
      expect(r.out).toContain(
        `asmdef ${RUNTIME_ASMDEF}: references 'OptiTrack', which no asmdef of the package or of the packages its package.json declares defines`,
      );
    });

    it("the OptiTrack source cannot live in the runtime asmdef: the plugin's loose scripts are in Assembly-CSharp", () => {
      const r = withPlanted(
        (dir) => {
          fs.renameSync(
            path.join(dir, 'Samples~/OptiTrack/KindOptitrackSource.cs'),
            path.join(dir, 'Runtime/Sources/KindOptitrackSource.cs'),
          );
        },
        ['--only', 'editor'],
      );
      expect(r.status).toBe(1);
      expect(r.out).toMatch(
        /FAIL \[Editor\] Kind\.Retargeting\.Runtime[\s\S]*error CS0246: The type or namespace name `OptitrackStreamingClient' could not be found/,
      );
    });

    it('a package.json without the PuerTS dependency cannot reference its asmdef', () => {
      const r = withPlanted(
        (dir) =>
          editJson(path.join(dir, 'package.json'), (j) => {
            j.dependencies = {};
          }),
        ['--only', 'editor'],
      );
      expect(r.status).toBe(1);
      expect(r.out).toContain(
        "references 'com.tencent.puerts.core', which no asmdef of the package or of the packages its package.json declares defines",
      );
    });
  },
);
