/**
 * The built Unity bundle (tools/build.mjs unity, built fresh here): no Node API, runs in a bare
 * `node:vm` context and in real QuickJS (quickjs-emscripten), matches the Node build of the bridge
 * within 1e-5 per value over a whole real take, and survives 20 hot-reload cycles (exportState ->
 * bundle loaded fresh in a new context -> importState) within 1e-6 of one uninterrupted run.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vm from 'node:vm';
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten';
import { newQuickJSWASMModuleFromVariant, type QuickJSSyncVariant } from 'quickjs-emscripten-core';
import type { Clip, Skeleton } from '../src/core';
import { loadAvatar, loadSource } from '../src/io/node';
import * as bridge from '../src/unity/bridge';
import { dataPath, describeWithData } from './helpers/data';
import { bundleAsScript, freshBundle, InputPacker, maxDiff, setupJson } from './unity.helpers';

/** The bundle's exports as the C# side calls them. */
interface Api {
  LAYOUT_VERSION: number;
  apiVersion(): string;
  createHub(setup: string): number;
  destroyHub(h: number): void;
  update(h: number, input: ArrayBuffer, dt: number): ArrayBuffer;
  command(h: number, json: string): string;
  remote(text: string, client: string): string;
  exportState(): string;
  importState(json: string): void;
  defaultTake(): string;
}

/** The bundle in a fresh bare vm context (no Node globals; touching CS or puer throws). */
function loadVm(text: string): Api {
  const ctx = vm.createContext({});
  for (const g of ['CS', 'puer'])
    Object.defineProperty(ctx, g, {
      get() {
        throw new Error(`the bundle touched globalThis.${g}`);
      },
    });
  new vm.Script(bundleAsScript(text), { filename: 'main.mjs' }).runInContext(ctx);
  return (ctx as { __kind: Api }).__kind;
}

/**
 * quickjs-emscripten's release-sync variant, loaded through its CommonJS files: the package's own
 * loader uses a dynamic import(), which jest cannot run without --experimental-vm-modules.
 */
const QUICKJS_VARIANT = {
  type: 'sync',
  importFFI: () => Promise.resolve(require('@jitl/quickjs-wasmfile-release-sync/ffi').QuickJSFFI),
  importModuleLoader: () => {
    const m = require('@jitl/quickjs-wasmfile-release-sync/emscripten-module');
    return Promise.resolve(m.default ?? m);
  },
} as unknown as QuickJSSyncVariant;

/** A copy of the bytes QuickJS hands out (a view on the wasm heap, from the package's realm). */
function copyBytes(v: unknown): ArrayBuffer {
  const u = v as { buffer?: ArrayBufferLike; byteOffset?: number; byteLength: number };
  const view = u.buffer
    ? new Uint8Array(u.buffer, u.byteOffset ?? 0, u.byteLength)
    : new Uint8Array(v as ArrayBuffer);
  const out = new Uint8Array(view.length);
  out.set(view);
  return out.buffer;
}

/** The bundle as a real ES module in QuickJS; exports called through handles, buffers copied across. */
async function loadQuickJS(text: string): Promise<{ api: Api; dispose(): void }> {
  const QuickJS = await newQuickJSWASMModuleFromVariant(QUICKJS_VARIANT);
  const rt = QuickJS.newRuntime();
  const ctx: QuickJSContext = rt.newContext();
  for (const g of ['CS', 'puer']) {
    const r = ctx.evalCode(
      `Object.defineProperty(globalThis, '${g}', { get() { throw new Error('the bundle touched globalThis.${g}'); } })`,
    );
    ctx.unwrapResult(r).dispose();
  }
  let ns = ctx.unwrapResult(ctx.evalCode(text, 'kind-retargeting/main.mjs', { type: 'module' }));
  if (ctx.typeof(ns) === 'object' && ctx.getProp(ns, 'then').consume((t) => ctx.typeof(t)) === 'function') {
    const p = ctx.resolvePromise(ns);
    rt.executePendingJobs();
    ns.dispose();
    const settled = await p;
    ns = ctx.unwrapResult(settled);
  }
  const fns = new Map<string, QuickJSHandle>();
  for (const k of [
    'apiVersion',
    'createHub',
    'destroyHub',
    'update',
    'command',
    'remote',
    'exportState',
    'importState',
    'defaultTake',
  ])
    fns.set(k, ctx.getProp(ns, k));
  const layout = ctx.getProp(ns, 'LAYOUT_VERSION').consume((h) => ctx.getNumber(h));
  const call = (name: string, args: QuickJSHandle[]): QuickJSHandle => {
    const r = ctx.callFunction(fns.get(name)!, ctx.undefined, ...args);
    for (const a of args) a.dispose();
    if (r.error) {
      const e = ctx.dump(r.error);
      r.error.dispose();
      throw new Error(typeof e === 'object' && e && 'message' in e ? String(e.message) : String(e));
    }
    return r.value;
  };
  const str = (h: QuickJSHandle) => h.consume((x) => ctx.getString(x));
  const api: Api = {
    LAYOUT_VERSION: layout,
    apiVersion: () => str(call('apiVersion', [])),
    createHub: (s) => call('createHub', [ctx.newString(s)]).consume((h) => ctx.getNumber(h)),
    destroyHub: (h) => call('destroyHub', [ctx.newNumber(h)]).dispose(),
    update: (h, input, dt) =>
      call('update', [ctx.newNumber(h), ctx.newArrayBuffer(input), ctx.newNumber(dt)]).consume((b) =>
        ctx.getArrayBuffer(b).consume((lt) => copyBytes(lt.value)),
      ),
    command: (h, j) => str(call('command', [ctx.newNumber(h), ctx.newString(j)])),
    remote: (t, c) => str(call('remote', [ctx.newString(t), ctx.newString(c)])),
    exportState: () => str(call('exportState', [])),
    importState: (j) => call('importState', [ctx.newString(j)]).dispose(),
    defaultTake: () => str(call('defaultTake', [])),
  };
  return {
    api,
    dispose() {
      for (const h of fns.values()) h.dispose();
      ns.dispose();
      // The runtime is left to the garbage collector (its own wasm module instance): freeing it asserts
      // on objects the module's cycles keep (zod's registries), which is no concern of the bridge.
    },
  };
}

/** Run frames [from, to) through `api`; every output float appended to `out`. Returns ms per frame. */
function runFrames(
  api: Pick<Api, 'update'>,
  h: number,
  clip: Clip,
  pack: InputPacker,
  from: number,
  to: number,
  out: number[],
): number {
  const t0 = performance.now();
  for (let f = from; f < to; f++) {
    const o = new Float32Array(api.update(h, pack.packFrame(clip, f), clip.frameTime));
    for (const v of o) out.push(v);
  }
  return (performance.now() - t0) / Math.max(1, to - from);
}

test('the bundle the package ships (Runtime/Resources/kind-retargeting/main.mjs) is the fresh build', () => {
  const shipped = path.resolve(
    __dirname,
    '../../Packages/com.kind.retargeting/Runtime/Resources/kind-retargeting/main.mjs',
  );
  // `npm run build` (and npm ci) writes it; commit it after changing the TypeScript
  expect(fs.readFileSync(shipped, 'utf8') === freshBundle()).toBe(true);
});

test('defaultTake() gives the same take in QuickJS as in a bare vm context (the embedded walk parses in both engines)', async () => {
  const text = freshBundle();
  const fromVm = loadVm(text).defaultTake();
  const q = await loadQuickJS(text);
  try {
    const fromQuickJS = q.api.defaultTake();
    expect(fromQuickJS.length).toBeGreaterThan(50_000);
    expect(fromQuickJS === fromVm).toBe(true);
    const take = JSON.parse(fromQuickJS) as { frameCount: number; names: string[] };
    expect(take.frameCount).toBe(121);
    expect(take.names).toHaveLength(21);
  } finally {
    q.dispose();
  }
});

test('the bundle has no Node API, no require, no CS/puer, and real ES exports', () => {
  const text = freshBundle();
  console.log(`unity bundle (fresh build): ${(Buffer.byteLength(text) / 1024).toFixed(1)} KiB`);
  expect(text).not.toMatch(/\brequire\s*\(/);
  expect(text).not.toMatch(/\bprocess\s*\./);
  expect(text).not.toMatch(/^\s*import\s/m);
  expect(text).not.toMatch(
    /from\s*["'](node:)?(fs|path|os|child_process|crypto|util|buffer|events|stream|module|url|worker_threads)["']/,
  );
  expect(text).not.toMatch(/['"]csharp['"]/);
  expect(text).not.toMatch(/\bCS\.|\bpuer\b/);
  const m = /\nexport \{([^}]*)\};\s*$/.exec(text);
  expect(m).not.toBeNull();
  const names = m![1].split(',').map((s) =>
    s
      .trim()
      .split(/\s+as\s+/)
      .pop(),
  );
  expect(names.sort()).toEqual(
    [
      'LAYOUT_VERSION',
      'apiVersion',
      'command',
      'createHub',
      'defaultTake',
      'destroyHub',
      'exportState',
      'importState',
      'remote',
      'update',
    ].sort(),
  );
});

describeWithData('the bundle in a bare vm context and in QuickJS over a real take', () => {
  let clip: Clip;
  let target: Skeleton;
  let setup: string;
  let node: number[];
  beforeAll(async () => {
    clip = (await loadSource(dataPath('bandai-namco-motiondataset/dataset-1_walk_normal_001.bvh'))).clip;
    target = (await loadAvatar(dataPath('threejs/Xbot.glb'))).skeleton;
    setup = setupJson('walker', clip.skeleton, target, { options: { ik: 'auto' } });
    // the Node build (the bridge module itself, in this process)
    node = [];
    const h = bridge.createHub(setup);
    runFrames(bridge, h, clip, new InputPacker(clip.skeleton), 0, clip.frameCount, node);
    bridge.destroyHub(h);
  });

  it('vm context: the whole take equals the Node build within 1e-5 per value', () => {
    const api = loadVm(freshBundle());
    expect(api.apiVersion()).toBe('kind-retargeting 0.1.0; layout 1');
    expect(api.LAYOUT_VERSION).toBe(1);
    const h = api.createHub(setup);
    const out: number[] = [];
    const pack = new InputPacker(clip.skeleton);
    runFrames(api, h, clip, pack, 0, 20, out); // warm-up (JIT), compared too
    const ms = runFrames(api, h, clip, pack, 20, clip.frameCount, out);
    const d = maxDiff(out, node);
    console.log(
      `vm context: ${ms.toFixed(3)} ms per avatar-frame (${clip.frameCount} frames, ${target.boneCount} target bones); max difference to Node ${d.toExponential(2)}`,
    );
    expect(d).toBeLessThanOrEqual(1e-5);
    expect(() => api.update(h, new ArrayBuffer(8), 0)).toThrow(/input length 2 floats/);
  });

  it('QuickJS: the whole take equals the Node build within 1e-5 per value; errors cross as errors', async () => {
    const q = await loadQuickJS(freshBundle());
    try {
      const api = q.api;
      expect(api.apiVersion()).toBe('kind-retargeting 0.1.0; layout 1');
      const h = api.createHub(setup);
      expect(h).toBe(1);
      const out: number[] = [];
      const ms = runFrames(api, h, clip, new InputPacker(clip.skeleton), 0, clip.frameCount, out);
      const d = maxDiff(out, node);
      console.log(
        `QuickJS: ${ms.toFixed(2)} ms per avatar-frame (${clip.frameCount} frames, ${target.boneCount} target bones, buffers copied across); max difference to Node ${d.toExponential(2)}`,
      );
      expect(d).toBeLessThanOrEqual(1e-5);
      // the update calls alone (inputs packed beforehand; each call still copies its buffers across,
      // as PuerTS does): the per-avatar-frame cost in QuickJS
      const pack2 = new InputPacker(clip.skeleton);
      const packed = Array.from({ length: clip.frameCount }, (_, f) => pack2.packFrame(clip, f).slice(0));
      const t0 = performance.now();
      for (let f = 0; f < packed.length; f++) api.update(h, packed[f], clip.frameTime);
      const per = (performance.now() - t0) / packed.length;
      console.log(
        `QuickJS update alone: ${per.toFixed(3)} ms per avatar-frame (${target.boneCount} target bones)`,
      );
      expect(per).toBeGreaterThan(0);
      expect(() => api.update(h, new ArrayBuffer(8), 0)).toThrow(/input length 2 floats/);
      expect(() => api.createHub('{"layout":2}')).toThrow(/setup\.layout/);
      expect(JSON.parse(api.command(h, '{"action":"listProps"}'))).toEqual({
        action: 'listProps',
        ok: true,
        props: [],
      });
      expect(JSON.parse(JSON.parse(api.remote('{"action":"refresh"}', 'c')).reply).characters).toEqual([
        'walker',
      ]);
    } finally {
      q.dispose();
    }
  });

  it('hot reload: 20+ cycles of exportState -> fresh context -> importState equal one run within 1e-6', () => {
    const text = freshBundle();
    const frames = clip.frameCount;
    const every = 5;
    const pack = new InputPacker(clip.skeleton);
    // one uninterrupted run in one context, with settings and a prop changed on the way
    const prep = (api: Api, h: number) => {
      api.command(h, '{"action":"updateValueRealtime","property":"avatarScale","value":1.1}');
      api.command(h, '{"action":"attachProp","point":"rightHand","name":"cup","type":"Object"}');
      api.command(h, '{"action":"setHandPosePreset","hand":"left","preset":"rock"}');
    };
    const once = loadVm(text);
    const h1 = once.createHub(setup);
    const whole: number[] = [];
    runFrames(once, h1, clip, pack, 0, 1, whole);
    prep(once, h1);
    runFrames(once, h1, clip, pack, 1, frames, whole);

    let api = loadVm(text);
    const h = api.createHub(setup);
    const cut: number[] = [];
    runFrames(api, h, clip, pack, 0, 1, cut);
    prep(api, h);
    let reloads = 0;
    for (let f = 1; f < frames; f += every) {
      runFrames(api, h, clip, pack, f, Math.min(frames, f + every), cut);
      const state = api.exportState();
      api = loadVm(text); // the old context is dropped, as the host disposes the JsEnv
      api.importState(state);
      reloads++;
    }
    const d = maxDiff(whole, cut);
    console.log(
      `hot reload: ${reloads} cycles over ${frames} frames (every ${every}); max difference ${d.toExponential(2)}`,
    );
    expect(reloads).toBeGreaterThanOrEqual(20);
    expect(d).toBeLessThanOrEqual(1e-6);
    // the props and settings survived
    expect(JSON.parse(api.command(h, '{"action":"listProps"}')).props[0]).toMatchObject({
      id: 'cup',
      attachedTo: 'RightHand',
    });
    expect(JSON.parse(api.command(h, '{"action":"exportSettings"}')).settings.avatarScale).toBe(1.1);
  });
});
