/**
 * Issue 21 part 5: no C# garbage per avatar-frame at the PuerTS boundary in the reflection JsEnv.
 * tools/puerts-alloc.mjs compiles the REAL PuerTS 2.2.3 C# runtime (../shared/reference) and the package's
 * KindBridge, KindBridgeLayout, KindResultBuffer and KindLoader unchanged with mcs, runs them under Mono over
 * a stand-in native plugin (tools/puerts-alloc/fake_puerts.c: no JavaScript runs; `update` returns a hub
 * output's bytes) and reads GC.GetAllocatedBytesForCurrentThread over many frames. Allocation counts are
 * deterministic (no clock is read). Known answers: PuerTS's own getter allocates one ArrayBuffer and one
 * byte[] of the output's length per call (4 * (4 + 4T + 5) bytes: 916 B at T = 55, plus object headers:
 * the 984 B); KindResultBuffer 0 B. A negative control (a KindResultBuffer that wraps the reused
 * bytes in a new ArrayBuffer each call) must read > 0, so the measure can fail.
 * Skipped with a printed reason without gcc, mcs, mono or the PuerTS reference sources.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { monoAvailable } from './helpers/mono';

const ROOT = path.resolve(__dirname, '../..');
const TOOL = path.join(ROOT, 'tools/puerts-alloc.mjs');
const PUERTS = path.resolve(ROOT, '../shared/reference/puerts-unity-2.2.3');
const RESULT_BUFFER = path.join(ROOT, 'Packages/com.kind.retargeting/Runtime/Bridge/KindResultBuffer.cs');

function hasGcc(): boolean {
  try {
    execFileSync('gcc', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const HAS = (() => {
  if (!monoAvailable('PuerTS boundary allocation harness')) return false;
  if (!hasGcc()) {
    console.warn('[skip] PuerTS boundary allocation harness: gcc not found (Debian: gcc)');
    return false;
  }
  if (!existsSync(path.join(PUERTS, 'Runtime/Src/Default/Native/PuertsDLL.cs'))) {
    console.warn(
      `[skip] PuerTS boundary allocation harness: the PuerTS reference sources are not at ${PUERTS}`,
    );
    return false;
  }
  return true;
})();
const maybe = HAS ? describe : describe.skip;

interface Run {
  frames: number;
  bytes: number;
  bytesPerFrame: number;
}
interface Out {
  runs: Record<string, Run>;
  checks: Record<string, string>;
}

function harness(args: string[]): { out: Out; status: number; stderr: string } {
  try {
    const stdout = execFileSync('node', [TOOL, '--json', ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 180000,
    });
    return { out: JSON.parse(stdout) as Out, status: 0, stderr: '' };
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; status?: number };
    const text = err.stdout ?? '';
    return {
      out: text.trim().startsWith('{') ? (JSON.parse(text) as Out) : { runs: {}, checks: {} },
      status: err.status ?? 1,
      stderr: err.stderr ?? '',
    };
  }
}

maybe('PuerTS boundary allocation (real PuerTS C# runtime under Mono)', () => {
  const FRAMES = 20000;

  it('0 B per avatar-frame with KindResultBuffer, 984 B with PuerTS default getter (55 bones), every check passing', () => {
    const { out, status, stderr } = harness(['--frames', String(FRAMES)]);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(out.checks).toEqual({
      'bridge-bound': 'ok',
      createHub: 'ok',
      'output-bytes': 'ok',
      'input-bytes': 'ok',
      'update-calls': 'ok',
      capacity: 'ok',
      'reused-object': 'ok',
      'fallback-fresh': 'ok',
      'unarmed-update-fresh': 'ok',
    });
    const output = 4 * (4 + 4 * 55 + 5);
    expect(output).toBe(916);
    const d = out.runs['puerts-default'];
    expect(d.frames).toBe(FRAMES);
    // PuerTS: new byte[916] (+ array header) and a new ArrayBuffer per call; at most one one-off allocation besides.
    expect(d.bytesPerFrame).toBeGreaterThanOrEqual(output);
    expect(d.bytesPerFrame).toBeLessThan(output + 128);
    expect(out.runs.kind).toEqual({ frames: FRAMES, bytes: 0, bytesPerFrame: 0 });
    // After a hot reload (a new JsEnv): no per-frame allocation; PuerTS's Tick may grow its
    // pending-release list once (a one-off, not per frame: any per-frame allocation is >= 8 B x FRAMES).
    expect(out.runs['kind-after-reload'].bytes).toBeLessThan(1024);
  }, 240000);

  it('scales with the avatar: 67 target bones read 4 * (4 + 268 + 5) = 1108 B of output per frame by default, 0 B reused', () => {
    const { out, status } = harness(['--frames', '5000', '--target-bones', '67', '--source-bones', '30']);
    expect(status).toBe(0);
    expect(out.runs['puerts-default'].bytesPerFrame).toBeGreaterThanOrEqual(1108);
    expect(out.runs['puerts-default'].bytesPerFrame).toBeLessThan(1108 + 128);
    expect(out.runs.kind.bytes).toBe(0);
  }, 240000);

  it('negative control: a KindResultBuffer that allocates a new ArrayBuffer per call is caught', () => {
    const src = readFileSync(RESULT_BUFFER, 'utf8');
    const planted = src.replace(
      '            shared.Bytes = bytes;\n            shared.Count = length;\n            return shared;',
      '            return new ArrayBuffer(bytes, length);',
    );
    expect(planted).not.toBe(src);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kind-alloc-control-'));
    try {
      const file = path.join(dir, 'KindResultBuffer.cs');
      writeFileSync(file, planted);
      const { out } = harness(['--frames', '5000', '--replace', `KindResultBuffer.cs=${file}`]);
      expect(out.runs.kind.bytesPerFrame).toBeGreaterThanOrEqual(16);
      expect(out.checks['reused-object']).not.toBe('ok');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240000);

  it('refuses a bad --replace with a message naming the bridge files', () => {
    const { status, stderr } = harness(['--replace', 'Nope.cs=/tmp/x.cs']);
    expect(status).toBe(2);
    expect(stderr).toContain('KindResultBuffer.cs');
  });
});
