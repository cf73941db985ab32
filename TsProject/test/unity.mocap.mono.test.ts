/**
 * The C# packing of the input's confidence tail (Runtime/Bridge/KindBridgeLayout.cs, as KindAvatarDriver.Step
 * packs a frame of an IKindConfidenceSource) compiled with mcs and run under Mono
 * (test/fixtures/KindConfidenceTailHost.cs): squat frames' world transforms and confidences in, the packed
 * floats out equal the documented layout's (test/unity.mocapHelpers.ts TailPacker) value for value (flag
 * input[3] = 1, the tail after the 4 + 7S), a null or short confidence array gives 1 for the bones it lacks,
 * and the shipped bundle takes the C# bytes (status 0, the same output as the TypeScript-packed frames).
 * KindAvatarDriver.Step itself reads Unity Transforms and cannot run outside Unity: its calls are the ones
 * this host makes (the compile checks, tools/check-csharp*.mjs, cover the rest).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadAvatar } from '../src/io/node';
import { describeWithData } from './helpers/data';
import { monoAvailable } from './helpers/mono';
import { loadShippedBundle, unpackOutput } from './unity.helpers';
import { mocapSetup, squatFrames, TailPacker } from './unity.mocapHelpers';

const PKG = path.resolve(__dirname, '../../Packages/com.kind.retargeting');
const HOST = path.join(__dirname, 'fixtures/KindConfidenceTailHost.cs');
const AVATAR = path.resolve(__dirname, '../assets/default/default-avatar.glb');

interface Api {
  createHub(setup: string): number;
  update(h: number, input: ArrayBuffer, dt: number): ArrayBuffer;
}

const HAS = monoAvailable('C# confidence tail packing');
const maybe = HAS ? describeWithData : describe.skip;

maybe('the C# confidence tail packing (KindBridgeLayout under Mono)', () => {
  let dir: string;
  let exe: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-tail-'));
    exe = path.join(dir, 'host.exe');
    execFileSync('mcs', [
      '-nologo',
      '-warnaserror+',
      `-out:${exe}`,
      path.join(PKG, 'Runtime/Bridge/KindBridgeLayout.cs'),
      HOST,
    ]);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** The C# bytes for one packed frame's floats (the transforms and confidences as C# reads them). */
  function packInCSharp(f: Float32Array, s: number, mode: 'full' | 'none' | 'short' = 'full'): Float32Array {
    // float32 values printed with 9 significant digits parse back to the same float32
    const num = (v: number) => v.toPrecision(9);
    const values = [s, f[2], ...Array.from(f.subarray(4, 4 + 8 * s), num)];
    const inFile = path.join(dir, 'in.txt');
    const outFile = path.join(dir, 'out.bin');
    fs.writeFileSync(inFile, values.join(' '));
    const printed = execFileSync('mono', [exe, 'pack', inFile, outFile, mode], { encoding: 'utf8' }).trim();
    expect(Number(printed)).toBe(4 + 8 * s);
    const b = fs.readFileSync(outFile);
    return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
  }

  it('the C# bytes equal the documented layout value for value; null / short confidences give 1; the bundle takes them', async () => {
    const { skeleton, frames } = squatFrames();
    const target = (await loadAvatar(AVATAR)).skeleton;
    const S = skeleton.boneCount;
    const pack = new TailPacker(skeleton);
    const api = loadShippedBundle<Api>();
    const h = api.createHub(mocapSetup('csharp', skeleton, target, 'auto'));
    const ts = loadShippedBundle<Api>();
    const h2 = ts.createHub(mocapSetup('ts', skeleton, target, 'auto'));
    const picks = [0, 1, 12, 30, frames.length - 1];
    let tailValues = 0;
    for (const i of picks) {
      const fr = frames[i];
      const want = new Float32Array(pack.pack(fr, i).slice(0));
      const got = packInCSharp(want, S);
      expect(got[3]).toBe(1);
      expect(Array.from(got.subarray(4 + 7 * S))).toEqual(Array.from(Float32Array.from(fr.conf)));
      // every float equal (a -0 may come back +0: Mono's float.Parse reads "-0" as 0; no other difference)
      const diff = Array.from(got).flatMap((v, k) => (v === want[k] ? [] : [`${k}: ${v} vs ${want[k]}`]));
      expect(diff).toEqual([]);
      tailValues += S;
      const a = unpackOutput(api.update(h, got.buffer as ArrayBuffer, fr.dt), target.boneCount);
      const b = unpackOutput(ts.update(h2, want.buffer as ArrayBuffer, fr.dt), target.boneCount);
      expect(a.status).toBe(0);
      expect(a).toEqual(b);
    }
    console.log(
      `C# tail packing: ${picks.length} squat frames (${4 + 8 * S} floats each, ${tailValues} confidences) equal the documented layout value for value`,
    );
    const half = new Float32Array(
      pack.pack({ ...frames[20], conf: frames[20].conf.map(() => 0.5) }, 20).slice(0),
    );
    const none = packInCSharp(half, S, 'none');
    expect(Array.from(none.subarray(4 + 7 * S))).toEqual(new Array(S).fill(1));
    const short = packInCSharp(half, S, 'short');
    expect(Array.from(short.subarray(4 + 7 * S))).toEqual([...new Array(S - 3).fill(0.5), 1, 1, 1]);
    expect(none[3]).toBe(1);
  });
});
