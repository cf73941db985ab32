/**
 * Where the hub's time goes without a JIT: `node --jitless --cpu-prof` on a child
 * (`hubProfileChild` in bench/hubBench.ts, the hub bench's own set-up) that runs `RetargetHub.updateLive` (source stage, then the hub) over the Bandai walk onto Xbot (or the embedded
 * default), and the sampled profile folded into the steps of the per-frame path, each with its share of
 * the samples under `updateLive` (inclusive, %) and the source file it lives in. The step names are this
 * project's functions (src/rig/sourceStage.ts, src/retarget/retargeter.ts, src/rig/hubRig.ts, src/ik/...);
 * a step's source file is found from the `// src/...` module comments esbuild writes into dist/bench.cjs.
 *
 * V8's sampling profiler (`--cpu-prof`, 50 us interval) on the interpreter: shares, not times; the
 * absolute per-frame figures come from bench/hubBench.ts beside it.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** One row of the folded profile: a function under updateLive, its depth, inclusive and self share. */
export interface ProfileRow {
  depth: number;
  name: string;
  file: string;
  inclusive: number;
  self: number;
}

/**
 * Fold a `.cpuprofile` into the call tree under every `updateLive` frame (merged by call path), rows
 * with at least `minShare` of those samples, depth first, largest first. `sourceOf(line)` names the
 * source file of a line of the profiled script.
 */
export function foldProfile(
  profile: { nodes: ProfileNode[]; samples: number[] },
  root: string,
  sourceOf: (line: number) => string,
  minShare = 0.005,
): ProfileRow[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const hits = new Map<number, number>();
  for (const s of profile.samples) hits.set(s, (hits.get(s) ?? 0) + 1);
  const total = new Map<number, number>();
  const inclusive = (n: ProfileNode): number => {
    let t = total.get(n.id);
    if (t === undefined) {
      t = (hits.get(n.id) ?? 0) + (n.children ?? []).reduce((a, c) => a + inclusive(byId.get(c)!), 0);
      total.set(n.id, t);
    }
    return t;
  };
  interface Agg {
    depth: number;
    name: string;
    line: number;
    incl: number;
    self: number;
    kids: Map<string, Agg>;
  }
  const top: Agg = { depth: -1, name: root, line: 0, incl: 0, self: 0, kids: new Map() };
  const add = (n: ProfileNode, into: Agg, depth: number) => {
    const name = n.callFrame.functionName || '(anonymous)';
    const key = `${name}:${n.callFrame.lineNumber}`;
    let a = into.kids.get(key);
    if (!a) {
      a = { depth, name, line: n.callFrame.lineNumber + 1, incl: 0, self: 0, kids: new Map() };
      into.kids.set(key, a);
    }
    a.incl += inclusive(n);
    a.self += hits.get(n.id) ?? 0;
    for (const c of n.children ?? []) add(byId.get(c)!, a, depth + 1);
  };
  for (const n of profile.nodes) if (n.callFrame.functionName === root) add(n, top, 0);
  const all = [...top.kids.values()].reduce((s, a) => s + a.incl, 0);
  const rows: ProfileRow[] = [];
  const emit = (a: Agg) => {
    if (a.incl / all < minShare) return;
    rows.push({
      depth: a.depth,
      name: a.name,
      file: sourceOf(a.line),
      inclusive: a.incl / all,
      self: a.self / all,
    });
    for (const k of [...a.kids.values()].sort((x, y) => y.incl - x.incl)) emit(k);
  };
  for (const k of [...top.kids.values()].sort((x, y) => y.incl - x.incl)) emit(k);
  return rows;
}

/** For each line of an esbuild bundle, the `// src/...` (or `// bench/...`) module comment above it. */
export function bundleSources(bundleText: string): (line: number) => string {
  const lines = bundleText.split('\n');
  const at: string[] = new Array(lines.length + 1);
  let cur = '';
  for (let i = 0; i < lines.length; i++) {
    const m = /^\/\/ ((?:src|bench|node_modules)\/\S+)$/.exec(lines[i]);
    if (m) cur = m[1];
    at[i + 1] = cur;
  }
  return (line) => at[line] ?? '';
}

/** Run the profiled child under --jitless and print the folded tree; returns the rows (empty on failure). */
export function runHubProfile(frames = 3000): ProfileRow[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-hub-profile-'));
  try {
    execFileSync(
      process.execPath,
      [
        '--jitless',
        '--cpu-prof',
        '--cpu-prof-interval',
        '50',
        '--cpu-prof-dir',
        dir,
        process.argv[1],
        'hub-profile-child',
        String(frames),
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
    );
    const file = fs.readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error('no .cpuprofile written');
    const profile = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    const sourceOf = bundleSources(fs.readFileSync(process.argv[1], 'utf8'));
    const rows = foldProfile(profile, 'updateLive', sourceOf);
    console.log(
      `  jitless profile (node --jitless --cpu-prof, ${frames} frames of updateLive): share of the samples, inclusive (self)`,
    );
    for (const r of rows)
      console.log(
        `    ${'  '.repeat(r.depth)}${r.name} ${(100 * r.inclusive).toFixed(1)}% (${(100 * r.self).toFixed(1)}%)  ${r.file}`,
      );
    return rows;
  } catch (e) {
    console.log(`  (the --jitless profile run failed: ${(e as Error).message.split('\n')[0]})`);
    return [];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
