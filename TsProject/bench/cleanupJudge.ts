/**
 * `npm run bench -- cleanup-judge`: `kind cleanup` judged from outside (issue 20). Not a test: it runs
 * the cleanup over every BVH take of the shared data (every folder but odd-files/) and over degraded
 * copies of each (root noise, drift, shift, 25 and 30 fps, a raised stretch: test/helpers/judge/degrade.ts),
 * and measures each cleaned take against its input with the judge in test/helpers/judge (its own BVH
 * reader, forward kinematics and reference contacts; it imports nothing from src).
 *
 * The cleanup runs the way a user runs it: the built command line `node bin/kind.cjs cleanup --batch
 * <folder> -o <out> --model <rule|learned|teacher> -q` (dist/kind.cjs and its worker threads, built by `npm run
 * bench`), one batch per degradation kind and model, in a temporary folder that is removed afterwards.
 * The judge reads the cleaned BVH and cleanup.json (`feet.<side>.contact` for the detector scores) that
 * the command wrote, so whatever the command does inside is what is judged.
 *
 * Printed: a per-take table of the clean takes per model, a pooled summary per degradation kind and over
 * everything (sums over takes; the noise copies dominate the slide sums, so the share removed is also
 * given with every set weighted equally), and the detector table (precision/recall/F1 against the
 * reference contacts, pooled over frames). Options:
 *   --json FILE       write every figure (per take, kind and model, and the pooled ones) to FILE
 *   --models a,b      contact models to run, of rule, learned, teacher (default: those `kind cleanup --help`
 *                     lists)
 *   --kinds a,b       clean,noise,drift,shift,fps25,fps30,uneven,slide (default: all)
 *   --only TEXT       only takes whose path contains TEXT
 *   --jobs N          worker threads of each batch (default: the CPUs)
 *   --cli FILE        the `kind` entry to run (default TsProject/bin/kind.cjs)
 *   --all-rows        also print the per-take rows of the degraded copies
 *   --keep            keep the temporary folder (its path is printed)
 * Data: /work/shared/data (or $KIND_SHARED_DATA).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  type CleanupMeasures,
  DEGRADATIONS,
  type DegradationKind,
  type DetectorScore,
  degradedCopy,
  type LegTrack,
  legTrack,
  mapReference,
  measureCleanup,
  REFERENCE,
  type ReferenceContacts,
  readBvhText,
  referenceContacts,
  scoreDetector,
  scoreOf,
  type TakeFrame,
} from '../test/helpers/judge';
import { SHARED_DATA } from './harness';

type Kind = 'clean' | DegradationKind;
const KINDS: readonly Kind[] = ['clean', ...DEGRADATIONS];
/** The contact detectors of `kind cleanup --model`. */
const MODELS: readonly string[] = ['rule', 'learned', 'teacher'];

interface Options {
  json: string | null;
  models: string[] | null;
  kinds: Kind[];
  only: string | null;
  jobs: number;
  cli: string;
  allRows: boolean;
  keep: boolean;
}

function parseOptions(args: string[]): Options {
  const o: Options = {
    json: null,
    models: null,
    kinds: [...KINDS],
    only: null,
    jobs: os.availableParallelism?.() ?? os.cpus().length,
    cli: path.resolve(__dirname, '../bin/kind.cjs'),
    allRows: false,
    keep: false,
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const val = () => {
      const v = args[++i];
      if (v === undefined || v.startsWith('--')) throw new Error(`cleanup-judge: ${a} needs a value`);
      return v;
    };
    if (a === '--json') o.json = path.resolve(val());
    else if (a === '--models') {
      o.models = val().split(',');
      for (const m of o.models)
        if (!MODELS.includes(m))
          throw new Error(`cleanup-judge: unknown model '${m}' (${MODELS.join(', ')})`);
    } else if (a === '--kinds') {
      o.kinds = val().split(',') as Kind[];
      for (const k of o.kinds)
        if (!KINDS.includes(k)) throw new Error(`cleanup-judge: unknown kind '${k}' (${KINDS.join(', ')})`);
    } else if (a === '--only') o.only = val();
    else if (a === '--jobs') o.jobs = Math.max(1, Number(val()) || 1);
    else if (a === '--cli') o.cli = path.resolve(val());
    else if (a === '--all-rows') o.allRows = true;
    else if (a === '--keep') o.keep = true;
    else throw new Error(`cleanup-judge: unknown option '${a}'`);
  }
  return o;
}

/** Every .bvh under the shared data but odd-files/, relative paths, sorted. */
export function judgeTakes(root = SHARED_DATA): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const d of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) {
        if (d.name !== 'odd-files') walk(r);
      } else if (d.name.toLowerCase().endsWith('.bvh')) out.push(r);
    }
  };
  if (fs.existsSync(root)) walk('');
  return out.sort();
}

/** One cleaned input, judged. */
interface Row {
  take: string;
  kind: Kind;
  model: string;
  note: string;
  frames: number;
  fps: number;
  measures?: CleanupMeasures;
  detector?: DetectorScore;
  error?: string;
}

/** An input prepared for the batch: where it is, and how to judge it. */
interface Input {
  take: string;
  kind: Kind;
  id: string;
  file: string;
  note: string;
  frame: TakeFrame;
  ref: ReferenceContacts;
}

function runBatch(
  o: Options,
  inDir: string,
  outDir: string,
  model: string,
): Map<string, { bvh: string; json: string } | string> {
  const r = spawnSync(
    process.execPath,
    [o.cli, 'cleanup', '--batch', inDir, '-o', outDir, '--model', model, '-q', '--jobs', String(o.jobs)],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const summaryFile = path.join(outDir, 'summary.json');
  const res = new Map<string, { bvh: string; json: string } | string>();
  if (!fs.existsSync(summaryFile)) {
    const why = `kind cleanup --batch exited ${r.status}: ${(r.stderr || r.stdout || '').trim().split('\n')[0]}`;
    for (const f of fs.readdirSync(inDir)) res.set(f, why);
    return res;
  }
  const summary = JSON.parse(fs.readFileSync(summaryFile, 'utf8')) as {
    takes: { name: string; error?: string; outputs?: { bvh: string; json: string } }[];
  };
  for (const t of summary.takes) res.set(t.name, t.error ?? t.outputs!);
  return res;
}

function cliModels(o: Options): string[] {
  if (o.models) return o.models;
  const r = spawnSync(process.execPath, [o.cli, 'cleanup', '--help'], { encoding: 'utf8' });
  return MODELS.filter((m) => m === 'rule' || new RegExp(`\\b${m}\\b`).test(r.stdout ?? ''));
}

function prepare(o: Options, tmp: string, takes: string[]): { inputs: Input[]; notes: string[] } {
  const inputs: Input[] = [];
  const notes: string[] = [];
  for (const kind of o.kinds) fs.mkdirSync(path.join(tmp, `in-${kind}`), { recursive: true });
  for (const take of takes) {
    const id = `${take.replace(/\.bvh$/i, '').replace(/[/\\]/g, '__')}.bvh`;
    let text: string;
    try {
      text = fs.readFileSync(path.join(SHARED_DATA, take), 'utf8');
      const bvh = readBvhText(text, take);
      const { track, frame } = legTrack(bvh);
      const ref = referenceContacts(track);
      const add = (kind: Kind, body: string, note: string, r: ReferenceContacts) => {
        if (!o.kinds.includes(kind)) return;
        const file = path.join(tmp, `in-${kind}`, id);
        fs.writeFileSync(file, body);
        inputs.push({ take, kind, id, file, note, frame, ref: r });
      };
      add('clean', text, frame.unitRule, ref);
      for (const kind of DEGRADATIONS) {
        if (!o.kinds.includes(kind)) continue;
        const c = degradedCopy(bvh, frame, ref, kind, 1);
        if (c) add(kind, c.text, c.note, mapReference(ref, c));
      }
    } catch (e) {
      notes.push(`${take}: not judged: ${(e as Error).message}`);
    }
  }
  return { inputs, notes };
}

function judgeInputs(
  inputs: Input[],
  models: string[],
  outputs: Map<string, Map<string, { bvh: string; json: string } | string>>,
): Row[] {
  const rows: Row[] = [];
  for (const inp of inputs) {
    let source: ReturnType<typeof readBvhText>;
    let srcTrack: LegTrack;
    try {
      source = readBvhText(fs.readFileSync(inp.file, 'utf8'), inp.id);
      srcTrack = legTrack(source, inp.frame).track;
    } catch (e) {
      for (const model of models)
        rows.push({
          take: inp.take,
          kind: inp.kind,
          model,
          note: inp.note,
          frames: 0,
          fps: 0,
          error: (e as Error).message,
        });
      continue;
    }
    for (const model of models) {
      const row: Row = {
        take: inp.take,
        kind: inp.kind,
        model,
        note: inp.note,
        frames: source.frameCount,
        fps: 1 / source.frameTime,
      };
      rows.push(row);
      const out = outputs.get(`${model}/${inp.kind}`)?.get(inp.id);
      if (out === undefined || typeof out === 'string') {
        row.error = out ?? 'no output from kind cleanup';
        continue;
      }
      try {
        const cleaned = readBvhText(fs.readFileSync(out.bvh, 'utf8'), path.basename(out.bvh));
        row.measures = measureCleanup(source, cleaned, inp.frame, inp.ref, srcTrack);
        const file = JSON.parse(fs.readFileSync(out.json, 'utf8')) as {
          feet: Record<'left' | 'right', { contact: number[] }>;
        };
        row.detector = scoreDetector(inp.ref, {
          left: file.feet.left.contact,
          right: file.feet.right.contact,
        });
      } catch (e) {
        row.error = (e as Error).message;
      }
    }
  }
  return rows;
}

/** Pooled figures of a set of judged rows. */
export interface Pooled {
  takes: number;
  failed: number;
  slide: Record<'heel' | 'toe' | 'pooled', { before: number; after: number; removedPercent: number }>;
  jump: { maxCm: number; where: string; framesOver3cm: number };
  knees: { newlyStraight: number; worstDeg: number; where: string };
  penetration: { over1cm: number; maxCm: number; where: string };
  nonLeg: { maxRotationDeg: number; maxPositionCm: number; where: string };
  detector: DetectorScore;
}

export function pool(rows: readonly Row[]): Pooled {
  const ok = rows.filter((r) => r.measures);
  const s = { heel: [0, 0], toe: [0, 0], pooled: [0, 0] };
  const p: Pooled = {
    takes: ok.length,
    failed: rows.length - ok.length,
    slide: {} as Pooled['slide'],
    jump: { maxCm: 0, where: '', framesOver3cm: 0 },
    knees: { newlyStraight: 0, worstDeg: 0, where: '' },
    penetration: { over1cm: 0, maxCm: 0, where: '' },
    nonLeg: { maxRotationDeg: 0, maxPositionCm: 0, where: '' },
    detector: scoreOf({ tp: 0, fp: 0, fn: 0, tn: 0 }),
  };
  const c = { tp: 0, fp: 0, fn: 0, tn: 0 };
  let nonLegWorst = 0;
  for (const r of ok) {
    const m = r.measures!;
    const name = `${r.take}${r.kind === 'clean' ? '' : ` (${r.kind})`}`;
    for (const k of ['heel', 'toe', 'pooled'] as const) {
      s[k][0] += m.slide[k].before;
      s[k][1] += m.slide[k].after;
    }
    if (m.jump.maxCm > p.jump.maxCm)
      p.jump = { ...p.jump, maxCm: m.jump.maxCm, where: `${name} ${m.jump.joint} f${m.jump.frame}` };
    p.jump.framesOver3cm += m.jump.framesOver3cm;
    p.knees.newlyStraight += m.knees.newlyStraight;
    if (m.knees.worstDeg > p.knees.worstDeg)
      p.knees = {
        ...p.knees,
        worstDeg: m.knees.worstDeg,
        where: `${name} ${m.knees.side} f${m.knees.frame}`,
      };
    p.penetration.over1cm += m.penetration.over1cm;
    if (m.penetration.maxCm > p.penetration.maxCm)
      p.penetration = {
        ...p.penetration,
        maxCm: m.penetration.maxCm,
        where: `${name} ${m.penetration.point} f${m.penetration.frame}`,
      };
    p.nonLeg.maxRotationDeg = Math.max(p.nonLeg.maxRotationDeg, m.nonLeg.maxRotationDeg);
    p.nonLeg.maxPositionCm = Math.max(p.nonLeg.maxPositionCm, m.nonLeg.maxPositionCm);
    const w = Math.max(m.nonLeg.maxRotationDeg, m.nonLeg.maxPositionCm);
    if (w > nonLegWorst) {
      nonLegWorst = w;
      p.nonLeg.where = `${name}: ${m.nonLeg.where}`;
    }
    if (r.detector) {
      c.tp += r.detector.tp;
      c.fp += r.detector.fp;
      c.fn += r.detector.fn;
      c.tn += r.detector.tn;
    }
  }
  for (const k of ['heel', 'toe', 'pooled'] as const)
    p.slide[k] = {
      before: s[k][0],
      after: s[k][1],
      removedPercent: s[k][0] > 0 ? 100 * (1 - s[k][1] / s[k][0]) : 0,
    };
  p.detector = scoreOf(c);
  return p;
}

const f1 = (x: number) => x.toFixed(1);
const pct = (x: number) => `${x >= 0 ? '-' : '+'}${Math.abs(x).toFixed(0)}%`;

function table(head: string[], rows: string[][]): string {
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(w[i]) : c.padStart(w[i]))).join('  ');
  return [line(head), ...rows.map(line)].join('\n');
}

function takeRows(rows: readonly Row[]): string {
  return table(
    [
      'take',
      'kind',
      'frames',
      'heel cm',
      'toe cm',
      'support cm',
      'removed',
      'jump cm',
      '>3cm',
      'knee>175',
      'pen>1cm',
      'non-leg',
      'P',
      'R',
      'F1',
    ],
    rows.map((r) => {
      if (!r.measures) return [r.take, r.kind, String(r.frames), `failed: ${r.error}`];
      const m = r.measures;
      return [
        r.take,
        r.kind,
        `${m.frames}@${m.fps.toFixed(0)}`,
        `${f1(m.slide.heel.before)}->${f1(m.slide.heel.after)}`,
        `${f1(m.slide.toe.before)}->${f1(m.slide.toe.after)}`,
        `${f1(m.slide.pooled.before)}->${f1(m.slide.pooled.after)}`,
        pct(m.slide.pooled.removedPercent),
        `${f1(m.jump.maxCm)} ${m.jump.joint}`,
        String(m.jump.framesOver3cm),
        m.knees.newlyStraight ? `${m.knees.newlyStraight} (${f1(m.knees.worstDeg)}°)` : '0',
        m.penetration.over1cm ? `${m.penetration.over1cm} (${f1(m.penetration.maxCm)})` : '0',
        m.nonLeg.maxRotationDeg || m.nonLeg.maxPositionCm
          ? `${f1(m.nonLeg.maxRotationDeg)}°/${f1(m.nonLeg.maxPositionCm)}cm`
          : '0',
        r.detector ? r.detector.precision.toFixed(2) : '',
        r.detector ? r.detector.recall.toFixed(2) : '',
        r.detector ? r.detector.f1.toFixed(3) : '',
      ];
    }),
  );
}

function pooledRows(groups: { name: string; p: Pooled }[]): string {
  return table(
    [
      'set',
      'takes',
      'heel cm',
      'toe cm',
      'support cm',
      'removed (heel/toe)',
      'max jump cm',
      '>3cm fr',
      'knee>175',
      'pen>1cm',
      'non-leg',
      'P',
      'R',
      'F1',
    ],
    groups.map(({ name, p }) => [
      name,
      `${p.takes}${p.failed ? ` (+${p.failed} failed)` : ''}`,
      `${f1(p.slide.heel.before)}->${f1(p.slide.heel.after)}`,
      `${f1(p.slide.toe.before)}->${f1(p.slide.toe.after)}`,
      `${f1(p.slide.pooled.before)}->${f1(p.slide.pooled.after)}`,
      `${pct(p.slide.pooled.removedPercent)} (${pct(p.slide.heel.removedPercent)}/${pct(p.slide.toe.removedPercent)})`,
      f1(p.jump.maxCm),
      String(p.jump.framesOver3cm),
      p.knees.newlyStraight ? `${p.knees.newlyStraight} (${f1(p.knees.worstDeg)}°)` : '0',
      p.penetration.over1cm ? `${p.penetration.over1cm} (${f1(p.penetration.maxCm)})` : '0',
      `${f1(p.nonLeg.maxRotationDeg)}°/${f1(p.nonLeg.maxPositionCm)}cm`,
      p.detector.precision.toFixed(3),
      p.detector.recall.toFixed(3),
      p.detector.f1.toFixed(3),
    ]),
  );
}

export async function runCleanupJudge(args: string[]): Promise<void> {
  const o = parseOptions(args);
  if (!fs.existsSync(o.cli)) throw new Error(`cleanup-judge: ${o.cli} not found (npm run build)`);
  const takes = judgeTakes().filter((t) => !o.only || t.includes(o.only));
  if (takes.length === 0) {
    console.log(`cleanup-judge: no BVH takes under ${SHARED_DATA}: nothing to judge`);
    return;
  }
  const t0 = Date.now();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-judge-'));
  try {
    const models = cliModels(o);
    const { inputs, notes } = prepare(o, tmp, takes);
    console.log(
      `cleanup-judge: ${takes.length} takes, ${inputs.length} inputs (${o.kinds.join(', ')}), models ${models.join(', ')}; ` +
        `the command: node ${path.relative(process.cwd(), o.cli)} cleanup --batch (prepared in ${((Date.now() - t0) / 1000).toFixed(1)} s)`,
    );
    const outputs = new Map<string, Map<string, { bvh: string; json: string } | string>>();
    for (const model of models)
      for (const kind of o.kinds) {
        const t1 = Date.now();
        const inDir = path.join(tmp, `in-${kind}`);
        if (fs.readdirSync(inDir).length === 0) continue;
        outputs.set(`${model}/${kind}`, runBatch(o, inDir, path.join(tmp, `out-${model}-${kind}`), model));
        console.log(`  cleaned ${kind} with ${model} in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
      }
    const rows = judgeInputs(inputs, models, outputs);
    const groups: Record<string, { name: string; p: Pooled }[]> = {};
    for (const model of models) {
      const mine = rows.filter((r) => r.model === model);
      console.log(
        `\n== ${model}: per take (clean takes; slide in cm before->after on the reference's supporting point)`,
      );
      console.log(takeRows(mine.filter((r) => r.kind === 'clean' || o.allRows)));
      groups[model] = [
        ...o.kinds.map((k) => ({ name: k, p: pool(mine.filter((r) => r.kind === k)) })),
        ...(o.kinds.length > 1
          ? [
              { name: 'degraded', p: pool(mine.filter((r) => r.kind !== 'clean')) },
              { name: 'all', p: pool(mine) },
            ]
          : []),
      ];
      console.log(`\n== ${model}: pooled per set`);
      console.log(pooledRows(groups[model]));
      // the sums are dominated by the noise copies (1 cm white noise moves a planted foot ~1.8 cm a frame):
      // also the removed share with every set weighted equally
      const sets = groups[model].filter((g) => o.kinds.includes(g.name as Kind) && g.p.takes > 0);
      const mean = (k: 'heel' | 'toe' | 'pooled') =>
        sets.reduce((acc, g) => acc + g.p.slide[k].removedPercent, 0) / Math.max(1, sets.length);
      console.log(
        `  slide removed with the ${sets.length} sets weighted equally: support ${pct(mean('pooled'))} (heel ${pct(mean('heel'))}, toe ${pct(mean('toe'))})`,
      );
      const all = groups[model][groups[model].length - 1].p;
      console.log(
        `  worst jump: ${f1(all.jump.maxCm)} cm at ${all.jump.where}; straightest new knee: ${f1(all.knees.worstDeg)}° at ${all.knees.where || '-'}; ` +
          `deepest new penetration: ${f1(all.penetration.maxCm)} cm at ${all.penetration.where || '-'}; largest non-leg change: ${all.nonLeg.where || 'none'}`,
      );
    }
    console.log(
      '\n== detectors vs the reference contacts (foot in contact = heel or toe): F1 (precision/recall)',
    );
    console.log(
      table(
        ['set', ...models],
        groups[models[0]].map((g, i) => [
          g.name,
          ...models.map((m) => {
            const d = groups[m][i].p.detector;
            return `${d.f1.toFixed(3)} (${d.precision.toFixed(2)}/${d.recall.toFixed(2)})`;
          }),
        ]),
      ),
    );
    for (const n of notes) console.log(`note: ${n}`);
    const failed = rows.filter((r) => r.error);
    for (const r of failed) console.log(`failed: ${r.take} (${r.kind}, ${r.model}): ${r.error}`);
    console.log(`\n(cleanup-judge took ${((Date.now() - t0) / 1000).toFixed(0)} s)`);
    if (o.json) {
      const data = {
        tool: 'npm run bench -- cleanup-judge',
        data: SHARED_DATA,
        cli: o.cli,
        reference: REFERENCE,
        models,
        kinds: o.kinds,
        pooled: groups,
        rows,
        notes,
      };
      fs.writeFileSync(`${o.json}.tmp`, `${JSON.stringify(data, null, 1)}\n`);
      fs.renameSync(`${o.json}.tmp`, o.json);
      console.log(`wrote ${o.json}`);
    }
  } finally {
    if (o.keep) console.log(`kept ${tmp}`);
    else fs.rmSync(tmp, { recursive: true, force: true });
  }
}
