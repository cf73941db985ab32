/**
 * The allocation probe itself (issue 26): its reading does not depend on when V8 finishes optimising
 * (a busy machine), and it still catches a real allocation in the per-frame path.
 *
 * V8's `--concurrent-recompilation-delay=N` makes its background compiler sleep N ms before each job:
 * it stands in, deterministically, for a machine so busy that optimised code arrives after the
 * measurement. Under V8's default (background compilation) the hub's measured windows then run baseline
 * code, which boxes doubles (the failure of issue 26); with the probe's flags (optimisation on the main
 * thread) the delay has nothing to delay.
 */
import * as path from 'node:path';
import { bytesPerCall } from './helpers/alloc';
import { runAllocProbe } from './helpers/allocProbe';
import { hubProbe } from './helpers/hubProbe';

/** RetargetHub.update lives in the hub's first layer (src/rig/hubRig.ts). */
const HUB_FILE = path.resolve(__dirname, '../src/rig/hubRig.ts');

const HUB_PROBE = hubProbe(3000);

/** One Float64Array(3) per frame at the top of RetargetHub.update, kept alive so no compiler removes it. */
const PLANT = [
  {
    file: HUB_FILE,
    after: /\n {2}update\(srcLocalRot[^{]*\{/,
    code: '\n    (globalThis as { plantedSink?: Float64Array }).plantedSink = new Float64Array(3);',
  },
];

/** A compile delay: each optimisation arrives 60 s late (the probe kills itself after printing: a process cannot exit while its compiler sleeps). */
const BUSY = ['--concurrent-recompilation-delay=60000'];

describe('allocation probe', () => {
  it('reads 0 for allocation-free code and the size of what a call allocates', () => {
    const r = runAllocProbe(`
      const a = new Float64Array(64);
      let keep: unknown = null;
      result.none = bytesPerCall(() => { for (let i = 0; i < 64; i++) a[i] = a[i] * 0.5 + i; });
      result.one = bytesPerCall(() => { keep = new Float64Array(3); });
      // ten small objects a call: 20000 calls fill new space several times over, so the windows shrink
      result.ten = bytesPerCall(() => { for (let i = 0; i < 10; i++) keep = { x: i, y: 0 }; });
      // a chain kept alive: every object survives and is promoted by the scavenges
      let chain: unknown = null;
      result.chain = bytesPerCall(() => { for (let i = 0; i < 10; i++) chain = { x: i, y: chain }; });
      result.big = bytesPerCall(() => { keep = new Float64Array(100000); }, 50);
      result.keep = keep === null ? 0 : 1;
    `);
    console.log(`probe readings, B/call: ${JSON.stringify(r)}`);
    // a window's own bookkeeping leaves a few bytes (< 0.01 B/call); one object a call is >= 16
    expect(r.none).toBeLessThan(0.05);
    // a typed array of 3 doubles is a JSTypedArray plus its backing store: well over one object's 16 B
    expect(r.one).toBeGreaterThanOrEqual(16);
    // ten objects of two fields: 10 x (header 12-16 B + 2 fields) at least
    expect(r.ten).toBeGreaterThanOrEqual(10 * 16);
    expect(r.ten).toBeLessThan(10 * 64);
    expect(r.chain).toBeGreaterThanOrEqual(10 * 16);
    expect(r.chain).toBeLessThan(10 * 64);
    // 800 kB a call (a typed array that large lives outside the JS heap: only its header is in new space)
    expect(r.big).toBeGreaterThanOrEqual(16);
  });

  it('reads the hub as allocation-free however late the background compiler would deliver', () => {
    const quiet = runAllocProbe(HUB_PROBE);
    const busy = runAllocProbe(HUB_PROBE, { nodeFlags: BUSY });
    expect(quiet.update).toBeLessThan(1);
    expect(busy.update).toBe(quiet.update);
  });

  it("V8's default background compilation on a busy machine reads baseline code's boxed numbers (the failure it replaces)", () => {
    // the flags given later win: this is V8's default, with every optimised function 60 s late; 500 calls
    // a window (8 x 500 calls of baseline code take 0.3 s on a quiet machine) keep the reading far
    // inside the delay however loaded the machine is
    const r = runAllocProbe(hubProbe(500), {
      nodeFlags: ['--concurrent-recompilation', '--concurrent-osr', ...BUSY],
      killAfterResult: true,
    });
    expect(r.update).toBeGreaterThan(16);
  });

  it('catches one Float64Array(3) planted in RetargetHub.update, quiet and busy alike', () => {
    const quiet = runAllocProbe(HUB_PROBE, { plant: PLANT });
    const busy = runAllocProbe(HUB_PROBE, { plant: PLANT, nodeFlags: BUSY });
    expect(quiet.update).toBeGreaterThanOrEqual(16);
    expect(busy.update).toBe(quiet.update);
  });

  it('a plant that does not match its file is an error, not a silent unplanted run', () => {
    expect(() =>
      runAllocProbe(HUB_PROBE, { plant: [{ file: HUB_FILE, after: 'no such text in the hub', code: '' }] }),
    ).toThrow(/plant: .*not found/);
  });

  it('refuses to measure in a process where V8 compiles in the background (a jest worker)', () => {
    expect(() => bytesPerCall(() => {})).toThrow(/runAllocProbe/);
  });
});
