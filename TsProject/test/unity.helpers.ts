/**
 * The C# shell's side of the Unity bridge, written out for the tests: pack a setup and input buffers
 * the way Packages/com.kind.retargeting/Runtime/Bridge/KindBridgeLayout.cs documents them (Unity
 * coordinates: our data mirrored at X), and unpack outputs (mirrored back). Offsets are written out
 * here from the documented layout, not taken from src/unity/layout.ts, so a layout change that the
 * docs do not follow fails the tests. Also: the built bundle as a script for a bare `node:vm` context.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vm from 'node:vm';
import { type Clip, forwardKinematics, readFrame, type Skeleton } from '../src/core';
import { RetargetHub } from '../src/rig';

/** (x, y, z) -> (-x, y, z) for every point of `a` (a copy). */
export function mirrorPoints(a: ArrayLike<number>): number[] {
  return Array.from(a, (v, i) => (i % 3 === 0 ? -v : v));
}
/** (x, y, z, w) -> (x, -y, -z, w) for every quaternion of `a` (a copy). */
export function mirrorQuats(a: ArrayLike<number>): number[] {
  return Array.from(a, (v, i) => (i % 4 === 1 || i % 4 === 2 ? -v : v));
}

function skeletonJson(s: Skeleton) {
  return {
    names: [...s.names],
    parents: Array.from(s.parents),
    humanoid: Array.from(s.humanoid),
    restLocalPositions: mirrorPoints(s.restTranslations),
    restLocalRotations: mirrorQuats(s.restRotations),
  };
}

/** The setup JSON of `createHub` for our skeletons, in Unity coordinates. */
export function setupJson(
  name: string,
  source: Skeleton,
  target: Skeleton,
  extra: Record<string, unknown> = {},
): string {
  return JSON.stringify({
    layout: 1,
    name,
    source: skeletonJson(source),
    target: skeletonJson(target),
    ...extra,
  });
}

/** Packs input buffers for one source skeleton (allocation at set-up, then reused as C# does). */
export class InputPacker {
  readonly buffer: ArrayBuffer;
  readonly floats: Float32Array;
  private readonly r: Float64Array;
  private readonly p: Float64Array;
  private readonly wr: Float64Array;
  private readonly wp: Float64Array;
  constructor(readonly skeleton: Skeleton) {
    const n = skeleton.boneCount;
    this.buffer = new ArrayBuffer(4 * (4 + 7 * n));
    this.floats = new Float32Array(this.buffer);
    this.r = new Float64Array(4 * n);
    this.p = new Float64Array(3 * n);
    this.wr = new Float64Array(4 * n);
    this.wp = new Float64Array(3 * n);
  }
  /** Frame `f` of `clip`: world transforms by FK, mirrored to Unity, into the buffer. */
  packFrame(clip: Clip, f: number): ArrayBuffer {
    readFrame(clip, f, this.r, this.p);
    return this.packLocal(this.r, this.p, f);
  }
  packLocal(r: ArrayLike<number>, p: ArrayLike<number>, frameNo = 0): ArrayBuffer {
    const n = this.skeleton.boneCount;
    forwardKinematics(this.skeleton, r, p, this.wr, this.wp);
    const b = this.floats;
    b[0] = 1;
    b[1] = n;
    b[2] = frameNo;
    b[3] = 0;
    for (let i = 0; i < n; i++) {
      b[4 + 3 * i] = -this.wp[3 * i];
      b[4 + 3 * i + 1] = this.wp[3 * i + 1];
      b[4 + 3 * i + 2] = this.wp[3 * i + 2];
      const o = 4 + 3 * n + 4 * i;
      b[o] = this.wr[4 * i];
      b[o + 1] = -this.wr[4 * i + 1];
      b[o + 2] = -this.wr[4 * i + 2];
      b[o + 3] = this.wr[4 * i + 3];
    }
    return this.buffer;
  }
}

export interface Unpacked {
  version: number;
  count: number;
  status: number;
  /** Local rotations `4T`, our frame. */
  rotations: number[];
  /** Hips local position, our frame. */
  hips: number[];
  scales: number[];
}

/** Read an output buffer for `t` target bones and mirror it back to our frame. */
export function unpackOutput(buf: ArrayBuffer, t: number): Unpacked {
  const f = new Float32Array(buf);
  expect(f.length).toBe(4 + 4 * t + 3 + 2);
  return {
    version: f[0],
    count: f[1],
    status: f[2],
    rotations: mirrorQuats(f.subarray(4, 4 + 4 * t)),
    hips: mirrorPoints(f.subarray(4 + 4 * t, 7 + 4 * t)),
    scales: Array.from(f.subarray(7 + 4 * t, 9 + 4 * t)),
  };
}

/**
 * The same run done directly on our data: a RetargetHub calibrated on frame 0 as the bridge does, each
 * frame through `updateLive` (the live source stage, as the bridge runs it) with the same `dt`.
 */
export function directHub(
  clip: Clip,
  target: Skeleton,
  options: ConstructorParameters<typeof RetargetHub>[2] = {},
) {
  const hub = new RetargetHub(clip.skeleton, target, { sourceUp: '+y', ...options });
  const n = clip.skeleton.boneCount;
  const r = new Float64Array(4 * n);
  const p = new Float64Array(3 * n);
  return {
    hub,
    step(f: number, dt: number) {
      readFrame(clip, f, r, p);
      if (!hub.isCalibrated) hub.calibrate({ rotations: r, translations: p });
      hub.updateLive(r, p, dt);
      const h = target.humanoid[0];
      return {
        rotations: Array.from(hub.localRotations),
        hips: Array.from(hub.localTranslations.subarray(3 * h, 3 * h + 3)),
        scales: Array.from(hub.outputScales),
      };
    },
  };
}

/** Largest |a - b|, with q and -q the same rotation (compared per quaternion). */
export function maxQuatDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i += 4) {
    let d1 = 0;
    let d2 = 0;
    for (let k = 0; k < 4; k++) {
      d1 = Math.max(d1, Math.abs(a[i + k] - b[i + k]));
      d2 = Math.max(d2, Math.abs(a[i + k] + b[i + k]));
    }
    const d = Math.min(d1, d2);
    if (!(d <= m)) m = Number.isNaN(d) ? Number.POSITIVE_INFINITY : d;
  }
  return m;
}

export function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= m)) m = Number.isNaN(d) ? Number.POSITIVE_INFINITY : d;
  }
  return m;
}

let built: string | null = null;

/** Build the Unity bundle fresh (tools/build.mjs unity) into a temp file once per process; its text. */
export function freshBundle(): string {
  if (built === null) {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kind-unity-')), 'main.mjs');
    execFileSync(process.execPath, [path.resolve(__dirname, '../../tools/build.mjs'), 'unity', out], {
      stdio: 'pipe',
    });
    built = fs.readFileSync(out, 'utf8');
  }
  return built;
}

/**
 * The bundle as a classic script for `vm.Script` (Node's module support in vm needs a flag): its one
 * final `export { a, b as c };` statement becomes `globalThis.__kind = { a, c: b };`. Throws when the
 * bundle has any other import/export statement.
 */
export function bundleAsScript(text: string): string {
  const m = /\nexport \{([^}]*)\};\s*$/.exec(text);
  if (!m) throw new Error('bundle: no final export statement');
  const body = text.slice(0, m.index);
  if (/^\s*(import|export)\s/m.test(body))
    throw new Error('bundle: an import/export statement besides the final export');
  const fields = m[1]
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const [local, exported] = s.split(/\s+as\s+/);
      return `${exported ?? local}: ${local}`;
    });
  return `${body}\nglobalThis.__kind = { ${fields.join(', ')} };\n`;
}

/** The bundle the package ships (Runtime/Resources/kind-retargeting/main.mjs), as committed. */
export const SHIPPED_BUNDLE = path.resolve(
  __dirname,
  '../../Packages/com.kind.retargeting/Runtime/Resources/kind-retargeting/main.mjs',
);

/**
 * The shipped bundle run in a fresh bare `node:vm` context (as the Unity side loads it: no Node API);
 * its exports (`globalThis.__kind`), typed as the caller's view `T` of them. Each call is a new
 * context, as a hot reload makes one.
 */
export function loadShippedBundle<T>(): T {
  const ctx = vm.createContext({});
  new vm.Script(bundleAsScript(fs.readFileSync(SHIPPED_BUNDLE, 'utf8')), {
    filename: 'main.mjs',
  }).runInContext(ctx);
  return (ctx as { __kind: T }).__kind;
}
