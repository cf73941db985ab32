/**
 * The hub in real QuickJS (quickjs-emscripten's release-sync build, as test/unity.bundle.test.ts runs it):
 * the shipped Unity bundle (Packages/com.kind.retargeting/Runtime/Resources/kind-retargeting/main.mjs,
 * built fresh by `npm run bench`) loaded as an ES module, one bridge `update(handle, input, dt)` per
 * avatar-frame with the buffer copies PuerTS makes (input ArrayBuffer into the VM, output out of it).
 * Inputs are packed beforehand (the C# side's work is not timed). Two hubs: the default source filter
 * (the live source stage's One-Euro on every bone), and every filter group off (`minCutoff` 0: the stage
 * passes the raw pose through, so the update is the hub's plus the stage's copies).
 */
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { type Clip, forwardKinematics, readFrame, type Skeleton } from '../src/core';
import { defaultSettings } from '../src/rig';
import { median, now } from './harness';

/** The bundle the package ships (built by tools/build.mjs before the benchmarks run). */
export const UNITY_BUNDLE = path.resolve(
  __dirname,
  '../../Packages/com.kind.retargeting/Runtime/Resources/kind-retargeting/main.mjs',
);

function skeletonJson(s: Skeleton) {
  const mp = (a: ArrayLike<number>) => Array.from(a, (v, i) => (i % 3 === 0 ? -v : v));
  const mq = (a: ArrayLike<number>) => Array.from(a, (v, i) => (i % 4 === 1 || i % 4 === 2 ? -v : v));
  return {
    names: [...s.names],
    parents: Array.from(s.parents),
    humanoid: Array.from(s.humanoid),
    restLocalPositions: mp(s.restTranslations),
    restLocalRotations: mq(s.restRotations),
  };
}

/** Every frame of `clip` as a bridge input buffer (layout 1: world transforms, Unity coordinates). */
function packAll(clip: Clip): ArrayBuffer[] {
  const sk = clip.skeleton;
  const n = sk.boneCount;
  const r = new Float64Array(4 * n);
  const p = new Float64Array(3 * n);
  const wr = new Float64Array(4 * n);
  const wp = new Float64Array(3 * n);
  const out: ArrayBuffer[] = [];
  for (let f = 0; f < clip.frameCount; f++) {
    readFrame(clip, f, r, p);
    forwardKinematics(sk, r, p, wr, wp);
    const b = new Float32Array(4 + 7 * n);
    b[0] = 1;
    b[1] = n;
    b[2] = f;
    for (let i = 0; i < n; i++) {
      b[4 + 3 * i] = -wp[3 * i];
      b[4 + 3 * i + 1] = wp[3 * i + 1];
      b[4 + 3 * i + 2] = wp[3 * i + 2];
      const o = 4 + 3 * n + 4 * i;
      b[o] = wr[4 * i];
      b[o + 1] = -wr[4 * i + 1];
      b[o + 2] = -wr[4 * i + 2];
      b[o + 3] = wr[4 * i + 3];
    }
    out.push(b.buffer);
  }
  return out;
}

export interface QuickJsHubResult {
  /** Median microseconds per bridge update with the default source filter, and with every group off. */
  filtered: number;
  unfiltered: number;
}

/**
 * Median microseconds per avatar-frame of the bundle's `update` in QuickJS over the whole clip, repeated
 * until `budgetMs` is used (at least 3 passes); null when quickjs-emscripten is not installed.
 */
export async function quickjsHub(
  clip: Clip,
  target: Skeleton,
  budgetMs: number,
): Promise<QuickJsHubResult | null> {
  // loaded at run time from TsProject/node_modules (its wasm file is read next to its own files)
  const req = createRequire(__filename);
  let core: typeof import('quickjs-emscripten-core');
  try {
    core = req('quickjs-emscripten-core');
  } catch {
    return null;
  }
  const variant = {
    type: 'sync',
    importFFI: () => Promise.resolve(req('@jitl/quickjs-wasmfile-release-sync/ffi').QuickJSFFI),
    importModuleLoader: () => {
      const m = req('@jitl/quickjs-wasmfile-release-sync/emscripten-module');
      return Promise.resolve(m.default ?? m);
    },
  } as unknown as import('quickjs-emscripten-core').QuickJSSyncVariant;
  const QuickJS = await core.newQuickJSWASMModuleFromVariant(variant);
  const rt = QuickJS.newRuntime();
  const ctx = rt.newContext();
  let ns = ctx.unwrapResult(
    ctx.evalCode(fs.readFileSync(UNITY_BUNDLE, 'utf8'), 'main.mjs', { type: 'module' }),
  );
  if (ctx.typeof(ns) === 'object' && ctx.getProp(ns, 'then').consume((t) => ctx.typeof(t)) === 'function') {
    const pr = ctx.resolvePromise(ns);
    rt.executePendingJobs();
    ns.dispose();
    ns = ctx.unwrapResult(await pr);
  }
  const createHub = ctx.getProp(ns, 'createHub');
  const update = ctx.getProp(ns, 'update');
  const call = (fn: typeof update, args: ReturnType<typeof ctx.newNumber>[]) => {
    const r = ctx.callFunction(fn, ctx.undefined, ...args);
    for (const a of args) a.dispose();
    return ctx.unwrapResult(r);
  };
  const inputs = packAll(clip);
  const off = defaultSettings();
  for (const g of ['body', 'hands', 'feet'] as const) off.sourceFilter[g].minCutoff = 0;
  const setup = (name: string, settings?: unknown) =>
    JSON.stringify({
      layout: 1,
      name,
      source: skeletonJson(clip.skeleton),
      target: skeletonJson(target),
      ...(settings ? { settings } : {}),
    });
  const hubOf = (s: string) => call(createHub, [ctx.newString(s)]).consume((h) => ctx.getNumber(h));
  const sink = new Float32Array(1);
  const run = (h: number) => {
    const dt = clip.frameTime;
    const t0 = now();
    for (let f = 0; f < inputs.length; f++) {
      // the input copied into the VM, the output copied out (as PuerTS does)
      call(update, [ctx.newNumber(h), ctx.newArrayBuffer(inputs[f]), ctx.newNumber(dt)]).consume((b) =>
        ctx.getArrayBuffer(b).consume((lt) => {
          const v = lt.value;
          const copy = new Uint8Array(v.byteLength);
          copy.set(v);
          sink[0] = copy[0];
        }),
      );
    }
    return ((now() - t0) * 1000) / inputs.length;
  };
  const measure = (h: number) => {
    run(h); // warm-up pass (calibration on the first frame)
    const runs: number[] = [];
    const t0 = now();
    while (runs.length < 3 || (now() - t0 < budgetMs && runs.length < 50)) runs.push(run(h));
    return median(runs);
  };
  const filtered = measure(hubOf(setup('filtered')));
  const unfiltered = measure(hubOf(setup('unfiltered', off)));
  createHub.dispose();
  update.dispose();
  ns.dispose();
  return { filtered, unfiltered };
}
