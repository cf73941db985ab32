/**
 * An outside check of `kind cleanup` (issue 20, item 3): the slide of the point of the foot that
 * supports the body, before and after, judged with nothing from src/cleanup or src/contact (only core
 * forward kinematics of the input and output clips and the humanoid map). Not a test: it cleans every
 * BVH take of the shared data, which takes a minute or two.
 *
 * Reference supporting point, per foot and frame, from the INPUT take (so the output cannot make its
 * own contacts):
 * - up: the world axis nearest to (hips - mean of the two ankles) in frame 0; heights are along it;
 * - resting levels: the 5th percentile over all frames and both feet of the ankle's height (heel
 *   level) and of the toe's height (toe level);
 * - heel-supported: the ankle within `heightTol` (4 cm) of the heel level and its horizontal speed
 *   (central difference) at most `speedTol` (0.25 m/s);
 * - else toe-supported: the same test of the toe against the toe level;
 * - else no support.
 * The toe is the humanoid map's Toes joint; a rig without one uses the foot's BVH End Site when it
 * points forward (its horizontal part longer than its vertical one); without either the foot has
 * only heel references.
 *
 * Slide: over consecutive frame pairs whose reference support is the same point of the same foot, the
 * sum of that point's horizontal displacement, in the input and in the output (metres).
 * Also, per leg joint (knee, ankle, toe): the largest step of the output beyond the input's step at
 * the same frame (|p_out(f) - p_out(f-1)| - |p_in(f) - p_in(f-1)|), and knee frames newly straighter
 * than 175 degrees (output over, input under).
 *
 * Run: `npm run bench -- support-slide [rule|learned] [heightTol metres] [speedTol m/s]` (data:
 * /work/shared/data or $KIND_SHARED_DATA).
 */
import fs from 'node:fs';
import path from 'node:path';
import { cleanTake } from '../src/cli/cleanupRun';
import { contactSource } from '../src/cli/contactSource';
import { type Clip, forwardKinematics, HumanBodyBones as H } from '../src/core';
import { SHARED_DATA } from './harness';

export interface SupportSlideOptions {
  /** Metres above the resting level. Default 0.04. */
  heightTol?: number;
  /** Horizontal speed, m/s. Default 0.25. */
  speedTol?: number;
  /** Per foot, a toe point in the foot bone's frame (metres) for rigs without a Toes joint. */
  toeOffset?: { left: number[] | null; right: number[] | null };
}

export interface SlidePair {
  before: number;
  after: number;
  /** Frame pairs counted. */
  pairs: number;
}

export interface SupportSlideResult {
  heel: SlidePair;
  toe: SlidePair;
  /** Feet with a toe reference (0, 1 or 2). */
  feetWithToe: number;
  /** Largest output step beyond the input's, metres, per joint kind (both legs). */
  excess: { knee: number; ankle: number; toe: number };
  /** Frames (both legs) where a knee, ankle or toe moves more than 3 cm beyond the input's step. */
  framesOver3cm: number;
  /** Knee frames over 175 degrees in the output where the input was under. */
  kneeNewlyStraight: number;
}

const LEGS = [
  { upper: H.LeftUpperLeg, knee: H.LeftLowerLeg, foot: H.LeftFoot, toe: H.LeftToes, side: 'left' as const },
  {
    upper: H.RightUpperLeg,
    knee: H.RightLowerLeg,
    foot: H.RightFoot,
    toe: H.RightToes,
    side: 'right' as const,
  },
];

/** World positions of the leg points per frame: [leg][point: hip, knee, ankle, toe][3 * frame]. */
function legPoints(clip: Clip, toeOffset: SupportSlideOptions['toeOffset']): (Float64Array | null)[][] {
  const s = clip.skeleton;
  const n = s.boneCount;
  const F = clip.frameCount;
  const wr = new Float64Array(4 * n);
  const wp = new Float64Array(3 * n);
  const out = LEGS.map((l) => [
    new Float64Array(3 * F),
    new Float64Array(3 * F),
    new Float64Array(3 * F),
    s.humanoid[l.toe] >= 0 || toeOffset?.[l.side] ? new Float64Array(3 * F) : null,
  ]);
  for (let f = 0; f < F; f++) {
    forwardKinematics(
      s,
      clip.rotations.subarray(4 * n * f, 4 * n * (f + 1)),
      clip.translations.subarray(3 * n * f, 3 * n * (f + 1)),
      wr,
      wp,
    );
    LEGS.forEach((l, i) => {
      const bones = [s.humanoid[l.upper], s.humanoid[l.knee], s.humanoid[l.foot]];
      for (let j = 0; j < 3; j++)
        for (let k = 0; k < 3; k++) (out[i][j] as Float64Array)[3 * f + k] = wp[3 * bones[j] + k];
      const t = out[i][3];
      if (!t) return;
      const tb = s.humanoid[l.toe];
      if (tb >= 0) for (let k = 0; k < 3; k++) t[3 * f + k] = wp[3 * tb + k];
      else {
        // ankle + R_foot * offset
        const o = toeOffset?.[l.side] as number[];
        const fb = bones[2];
        const [qx, qy, qz, qw] = [wr[4 * fb], wr[4 * fb + 1], wr[4 * fb + 2], wr[4 * fb + 3]];
        const [vx, vy, vz] = o;
        const ux = qy * vz - qz * vy;
        const uy = qz * vx - qx * vz;
        const uz = qx * vy - qy * vx;
        t[3 * f] = wp[3 * fb] + vx + 2 * (qw * ux + qy * uz - qz * uy);
        t[3 * f + 1] = wp[3 * fb + 1] + vy + 2 * (qw * uy + qz * ux - qx * uz);
        t[3 * f + 2] = wp[3 * fb + 2] + vz + 2 * (qw * uz + qx * uy - qy * ux);
      }
    });
  }
  return out;
}

function percentile(xs: number[], q: number): number {
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.max(0, Math.min(s.length - 1, Math.floor(q * (s.length - 1))))];
}

/** The check of one take (see the module doc). `input` and `output` share one skeleton and frame count. */
export function supportSlide(
  input: Clip,
  output: Clip,
  options: SupportSlideOptions = {},
): SupportSlideResult {
  const heightTol = options.heightTol ?? 0.04;
  const speedTol = options.speedTol ?? 0.25;
  const F = input.frameCount;
  const dt = input.frameTime;
  const A = legPoints(input, options.toeOffset);
  const B = legPoints(output, options.toeOffset);
  // up: nearest world axis of hips - mean ankle, frame 0
  const s = input.skeleton;
  const n = s.boneCount;
  const wr = new Float64Array(4 * n);
  const wp = new Float64Array(3 * n);
  forwardKinematics(s, input.rotations.subarray(0, 4 * n), input.translations.subarray(0, 3 * n), wr, wp);
  const hips = s.humanoid[H.Hips];
  const v = [0, 1, 2].map(
    (k) => wp[3 * hips + k] - 0.5 * ((A[0][2] as Float64Array)[k] + (A[1][2] as Float64Array)[k]),
  );
  let axis = 0;
  for (let k = 1; k < 3; k++) if (Math.abs(v[k]) > Math.abs(v[axis])) axis = k;
  const up = [0, 0, 0];
  up[axis] = Math.sign(v[axis]) || 1;
  const height = (p: Float64Array, f: number) =>
    up[0] * p[3 * f] + up[1] * p[3 * f + 1] + up[2] * p[3 * f + 2];
  const hdist = (p: Float64Array, f: number, g: number) => {
    const d = [0, 1, 2].map((k) => p[3 * f + k] - p[3 * g + k]);
    const u = d[0] * up[0] + d[1] * up[1] + d[2] * up[2];
    return Math.hypot(d[0] - u * up[0], d[1] - u * up[1], d[2] - u * up[2]);
  };
  const level = (j: number) => {
    const xs: number[] = [];
    for (const leg of A) {
      const p = leg[j];
      if (p) for (let f = 0; f < F; f++) xs.push(height(p, f));
    }
    return xs.length ? percentile(xs, 0.05) : 0;
  };
  const heelLevel = level(2);
  const toeLevel = level(3);
  const speed = (p: Float64Array, f: number) => {
    const f0 = Math.max(0, f - 1);
    const f1 = Math.min(F - 1, f + 1);
    return hdist(p, f1, f0) / ((f1 - f0) * dt);
  };
  const res: SupportSlideResult = {
    heel: { before: 0, after: 0, pairs: 0 },
    toe: { before: 0, after: 0, pairs: 0 },
    feetWithToe: A.filter((l) => l[3] !== null).length,
    excess: { knee: 0, ankle: 0, toe: 0 },
    framesOver3cm: 0,
    kneeNewlyStraight: 0,
  };
  const over = new Uint8Array(F);
  for (let i = 0; i < 2; i++) {
    const [ha, ka, aa, ta] = A[i] as Float64Array[];
    const [hb, kb, ab, tb] = B[i] as Float64Array[];
    const state = new Uint8Array(F); // 0 none, 1 heel, 2 toe
    for (let f = 0; f < F; f++) {
      if (height(aa, f) - heelLevel <= heightTol && speed(aa, f) <= speedTol) state[f] = 1;
      else if (ta && height(ta, f) - toeLevel <= heightTol && speed(ta, f) <= speedTol) state[f] = 2;
    }
    for (let f = 1; f < F; f++) {
      if (state[f] === 0 || state[f] !== state[f - 1]) continue;
      const [pa, pb, acc] = state[f] === 1 ? [aa, ab, res.heel] : [ta, tb, res.toe];
      acc.before += hdist(pa, f, f - 1);
      acc.after += hdist(pb, f, f - 1);
      acc.pairs++;
    }
    const joints: [Float64Array, Float64Array, 'knee' | 'ankle' | 'toe'][] = [
      [ka, kb, 'knee'],
      [aa, ab, 'ankle'],
    ];
    if (ta) joints.push([ta, tb, 'toe']);
    for (const [pa, pb, name] of joints) {
      for (let f = 1; f < F; f++) {
        const step = (p: Float64Array) =>
          Math.hypot(p[3 * f] - p[3 * f - 3], p[3 * f + 1] - p[3 * f - 2], p[3 * f + 2] - p[3 * f - 1]);
        const e = step(pb) - step(pa);
        if (e > res.excess[name]) res.excess[name] = e;
        if (e > 0.03) over[f] = 1;
      }
    }
    const angle = (h: Float64Array, k: Float64Array, a: Float64Array, f: number) => {
      const u = [0, 1, 2].map((c) => h[3 * f + c] - k[3 * f + c]);
      const w = [0, 1, 2].map((c) => a[3 * f + c] - k[3 * f + c]);
      const dot = u[0] * w[0] + u[1] * w[1] + u[2] * w[2];
      const cr = Math.hypot(u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]);
      return (Math.atan2(cr, dot) * 180) / Math.PI;
    };
    for (let f = 0; f < F; f++)
      if (angle(hb, kb, ab, f) > 175 && angle(ha, ka, aa, f) <= 175) res.kneeNewlyStraight++;
  }
  for (let f = 0; f < F; f++) res.framesOver3cm += over[f];
  return res;
}

function bvhFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...bvhFiles(p));
    else if (e.name.toLowerCase().endsWith('.bvh')) out.push(p);
  }
  return out;
}

const cm = (x: number) => (100 * x).toFixed(1);
const pct = (b: number, a: number) => (b > 0 ? `${(100 * (1 - a / b)).toFixed(0)} %` : '-');

/** Every BVH under the shared data, cleaned with `model`, checked; prints a Markdown table and the pooled figures. */
export async function runSupportSlide(
  model: 'rule' | 'learned' = 'rule',
  reference: Pick<SupportSlideOptions, 'heightTol' | 'speedTol'> = {},
): Promise<void> {
  if (!fs.existsSync(SHARED_DATA)) {
    console.log(`no shared data at ${SHARED_DATA}`);
    return;
  }
  const source = contactSource({ model });
  console.log(
    `supporting-point slide, model ${model}; reference from the input (bench/supportSlide.ts): within ${cm(reference.heightTol ?? 0.04)} cm of the resting level, slower than ${reference.speedTol ?? 0.25} m/s`,
  );
  console.log(
    '| take | frames | fps | toe ref | heel cm before -> after | toe cm before -> after | both | max excess step knee/ankle/toe cm | frames >3 cm | knees newly >175° |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  const pool = { hb: 0, ha: 0, tb: 0, ta: 0 };
  let worst = 0;
  let over = 0;
  let knees = 0;
  for (const file of bvhFiles(SHARED_DATA)) {
    const rel = path.relative(SHARED_DATA, file);
    let outcome: Awaited<ReturnType<typeof cleanTake>>;
    try {
      outcome = await cleanTake({ input: file, model, outBvh: 'out.bvh' }, { source, html: false });
    } catch (e) {
      console.log(`| ${rel} | skipped: ${(e as Error).message.split('\n')[0].slice(0, 80)} |`);
      continue;
    }
    const src = outcome.source;
    // a forward End Site as the toe of a rig without Toes (read from the BVH text, independent of the cleanup)
    const toeOffset = endSiteToes(file, src);
    const r = supportSlide(src, outcome.result.clip, { ...reference, toeOffset });
    pool.hb += r.heel.before;
    pool.ha += r.heel.after;
    pool.tb += r.toe.before;
    pool.ta += r.toe.after;
    const ex = Math.max(r.excess.knee, r.excess.ankle, r.excess.toe);
    worst = Math.max(worst, ex);
    over += r.framesOver3cm;
    knees += r.kneeNewlyStraight;
    console.log(
      `| ${rel} | ${src.frameCount} | ${(1 / src.frameTime).toFixed(0)} | ${r.feetWithToe} | ${cm(r.heel.before)} -> ${cm(r.heel.after)} | ${cm(r.toe.before)} -> ${cm(r.toe.after)} | ${cm(r.heel.before + r.toe.before)} -> ${cm(r.heel.after + r.toe.after)} | ${cm(r.excess.knee)}/${cm(r.excess.ankle)}/${cm(r.excess.toe)} | ${r.framesOver3cm} | ${r.kneeNewlyStraight} |`,
    );
  }
  console.log(
    `pooled: heel ${cm(pool.hb)} -> ${cm(pool.ha)} cm (${pct(pool.hb, pool.ha)} removed), toe ${cm(pool.tb)} -> ${cm(pool.ta)} cm (${pct(pool.tb, pool.ta)}), both ${cm(pool.hb + pool.tb)} -> ${cm(pool.ha + pool.ta)} cm (${pct(pool.hb + pool.tb, pool.ha + pool.ta)}); largest excess step ${cm(worst)} cm, ${over} frames over 3 cm, ${knees} knee frames newly over 175°`,
  );
}

/**
 * For a rig without Toes joints: the foot joint's End Site (from the BVH text) as the toe point, in the
 * foot bone's frame, metres, when it points forward (horizontal part longer than vertical); else null.
 */
function endSiteToes(file: string, clip: Clip): SupportSlideOptions['toeOffset'] {
  const s = clip.skeleton;
  const out: { left: number[] | null; right: number[] | null } = { left: null, right: null };
  if (s.humanoid[H.LeftToes] >= 0 && s.humanoid[H.RightToes] >= 0) return out;
  const text = fs.readFileSync(file, 'utf8');
  // unit: the clip's rest offsets are metres; the file's OFFSET of the foot joint gives the factor
  for (const l of LEGS) {
    const fb = s.humanoid[l.foot];
    const name = s.names[fb];
    const re = new RegExp(
      `JOINT\\s+${name}\\s*\\{\\s*OFFSET\\s+(\\S+)\\s+(\\S+)\\s+(\\S+)[\\s\\S]*?End Site\\s*\\{\\s*OFFSET\\s+(\\S+)\\s+(\\S+)\\s+(\\S+)`,
    );
    const m = re.exec(text);
    if (!m) continue;
    const fileOff = [Number(m[1]), Number(m[2]), Number(m[3])];
    const rest = [0, 1, 2].map((k) => s.restTranslations[3 * fb + k]);
    const unit = Math.hypot(...rest) / Math.hypot(...fileOff);
    const e = [Number(m[4]), Number(m[5]), Number(m[6])].map((x) => x * unit);
    // the BVH rest pose has identity joint rotations: the End Site offset is in the foot's frame
    if (Math.hypot(e[0], e[2]) > Math.abs(e[1])) out[l.side] = e;
  }
  return out;
}
