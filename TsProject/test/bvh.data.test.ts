/**
 * The BVH reader and writer over the real takes in the shared data folder (SOURCES.md lists their
 * facts and quirks: mixed rotation orders, 6-channel joints everywhere (Bandai), Z-up (FAIR), CMU
 * units, rotated rest frames, leading-dot frame time, leading spaces on frame lines).
 */
import * as fs from 'node:fs';
import { BVHLoader } from 'three/examples/jsm/loaders/BVHLoader.js';
import { angleBetween, DEG2RAD, forwardKinematics, quatFromEuler } from '../src/core';
import type { EulerOrder } from '../src/core/quat';
import { type BvhParseResult, parseBvh, restExtent, writeBvh } from '../src/io/bvh';
import { BVH_TAKES, dataPath, describeWithData } from './helpers/data';

/** Facts from /work/shared/data/SOURCES.md, table (a). */
const FACTS: Record<
  string,
  { frames: number; frameTime: number; joints: number; channels: number; unit: string; extent: number }
> = {
  'dataset-1_walk_normal_001.bvh': {
    frames: 195,
    frameTime: 0.0333333,
    joints: 22,
    channels: 132,
    unit: 'centimetres',
    extent: 183.7,
  },
  'dataset-1_run_normal_001.bvh': {
    frames: 24,
    frameTime: 0.0333333,
    joints: 22,
    channels: 132,
    unit: 'centimetres',
    extent: 193.7,
  },
  'dataset-1_dance-short_normal_001.bvh': {
    frames: 1901,
    frameTime: 0.0333333,
    joints: 22,
    channels: 132,
    unit: 'centimetres',
    extent: 183.7,
  },
  'pirouette.bvh': {
    frames: 592,
    frameTime: 0.00833333,
    joints: 43,
    channels: 132,
    unit: 'centimetres',
    extent: 152.69,
  },
  'jumping_jacks.bvh': {
    frames: 125,
    frameTime: 0.03333,
    joints: 31,
    channels: 96,
    unit: 'CMU ASF units',
    extent: 25.79,
  },
  'jumping.bvh': {
    frames: 654,
    frameTime: 0.008342,
    joints: 27,
    channels: 84,
    unit: 'inches',
    extent: 45.35,
  },
  'jesse_dance.bvh': {
    frames: 1007,
    frameTime: 0.01,
    joints: 60,
    channels: 183,
    unit: 'centimetres',
    extent: 129.98,
  },
};

const base = (p: string) => p.slice(p.lastIndexOf('/') + 1);
const cache = new Map<string, { text: string; r: BvhParseResult }>();
function load(take: string) {
  let c = cache.get(take);
  if (!c) {
    const text = fs.readFileSync(dataPath(take), 'utf8');
    c = { text, r: parseBvh(text, { fileName: base(take), keepChannelValues: true }) };
    cache.set(take, c);
  }
  return c;
}

function wrapDeg(d: number): number {
  let r = d % 360;
  if (r <= -180) r += 360;
  else if (r > 180) r -= 360;
  return r;
}

/** Frame indices of each joint's three rotation channels (joints with exactly three), and their order. */
function rotationTriples(r: BvhParseResult): { idx: number[]; order: EulerOrder; joint: string }[] {
  const out: { idx: number[]; order: EulerOrder; joint: string }[] = [];
  let c = 0;
  for (const j of r.layout.joints) {
    const idx: number[] = [];
    j.channels.forEach((ch, i) => {
      if (ch.endsWith('rotation')) idx.push(c + i);
    });
    if (idx.length === 3) {
      const order = idx.map((i) => r.layout.joints.flatMap((jj) => jj.channels)[i][0]).join('') as EulerOrder;
      out.push({ idx, order, joint: j.name });
    }
    c += j.channels.length;
  }
  return out;
}

describeWithData('parseBvh on the real takes', () => {
  it.each(BVH_TAKES.map((t) => [t]))('%s: header, counts, finite unit quaternions, bytes = text', (take) => {
    const { text, r } = load(take);
    const facts = FACTS[base(take)];
    // counts from the header text itself (independent of the parser) and from SOURCES.md
    const frames = Number(/^\s*Frames:\s*(\d+)/m.exec(text)![1]);
    const frameTime = Number(/^\s*Frame Time:\s*(\S+)/m.exec(text)![1]);
    expect(r.clip.frameCount).toBe(frames);
    expect(r.clip.frameTime).toBe(frameTime);
    expect(r.clip.frameCount).toBe(facts.frames);
    expect(Math.abs(r.clip.frameTime - facts.frameTime)).toBeLessThan(1e-12);
    expect(r.layout.joints.length).toBe(facts.joints);
    expect(r.clip.skeleton.boneCount).toBe(facts.joints);
    expect(r.layout.joints.reduce((s, j) => s + j.channels.length, 0)).toBe(facts.channels);
    expect(r.clip.translations.every(Number.isFinite)).toBe(true);
    const rot = r.clip.rotations;
    let worst = 0;
    for (let i = 0; i < rot.length; i += 4)
      worst = Math.max(worst, Math.abs(Math.hypot(rot[i], rot[i + 1], rot[i + 2], rot[i + 3]) - 1));
    expect(worst).toBeLessThan(1e-6);
    const fromBytes = parseBvh(new Uint8Array(fs.readFileSync(dataPath(take))), { unitScale: r.unitScale });
    expect(Buffer.from(fromBytes.clip.rotations.buffer).equals(Buffer.from(rot.buffer))).toBe(true);
  });

  it.each(BVH_TAKES.map((t) => [t]))(
    '%s: auto units give a plausible human (rest extent and posed frame 0)',
    (take) => {
      const { r } = load(take);
      expect(r.unitGuess).toBe(
        `${FACTS[base(take)].unit}${r.unitGuess.includes('CMU') ? ' (1/0.45 inch)' : ''} (auto)`,
      );
      // rest extent (file units, as measured and recorded in FACTS): the auto guess's only input
      expect(restExtent(r.layout)).toBeCloseTo(FACTS[base(take)].extent, 1);
      const height = restExtent(r.layout) * r.unitScale;
      expect(height).toBeGreaterThan(1.0);
      expect(height).toBeLessThan(2.3);
      // frame 0 posed: largest side of the joints' bounding box, metres
      const n = r.clip.skeleton.boneCount;
      const wr = new Float64Array(4 * n);
      const wp = new Float64Array(3 * n);
      forwardKinematics(
        r.clip.skeleton,
        r.clip.rotations.subarray(0, 4 * n),
        r.clip.translations.subarray(0, 3 * n),
        wr,
        wp,
      );
      const side = [0, 1, 2].map((k) => {
        let lo = Number.POSITIVE_INFINITY;
        let hi = Number.NEGATIVE_INFINITY;
        for (let i = 0; i < n; i++) {
          if (r.clip.skeleton.parents[i] < 0) continue; // a root may be a ground marker (Bandai joint_Root)
          lo = Math.min(lo, wp[3 * i + k]);
          hi = Math.max(hi, wp[3 * i + k]);
        }
        return hi - lo;
      });
      expect(Math.max(...side)).toBeGreaterThan(0.9);
      expect(Math.max(...side)).toBeLessThan(2.3);
    },
  );

  it('Bandai: every joint has 6 channels and the position channels replace the OFFSET (values equal OFFSETs)', () => {
    const take = BVH_TAKES.find((t) => t.includes('walk'))!;
    const { r } = load(take);
    expect(r.layout.joints.every((j) => j.channels.length === 6)).toBe(true);
    const v = r.channelValues!;
    const C = 132;
    let worst = 0;
    r.layout.joints.forEach((j, ji) => {
      if (ji < 2) return; // joint_Root and Hips move
      const k = 6 * ji; // all joints have 6 channels, positions first
      expect(j.channels.slice(0, 3)).toEqual(['Xposition', 'Yposition', 'Zposition']);
      for (let f = 0; f < r.clip.frameCount; f++) {
        for (let a = 0; a < 3; a++) worst = Math.max(worst, Math.abs(v[f * C + k + a] - j.offset[a]));
      }
    });
    expect(worst).toBeLessThan(1e-3);
    // so the clip translation equals OFFSET * unitScale, not twice it
    const spine = r.clip.skeleton.names.indexOf('Spine');
    expect(r.clip.translations[3 * spine]).toBeCloseTo(0.157357, 5);
  });

  it('Rokoko: Hips position replaces its OFFSET (0 94 0): the hips stand about 0.88 m high, not 1.8 m', () => {
    const { r } = load(BVH_TAKES.find((t) => t.includes('rokoko'))!);
    expect(r.layout.joints[0].offset[1]).toBe(94);
    expect(r.clip.translations[1]).toBeGreaterThan(0.7);
    expect(r.clip.translations[1]).toBeLessThan(1.1);
  });

  it('CMU jumping_jacks mixes rotation orders and each joint keeps its own', () => {
    const { r } = load(BVH_TAKES.find((t) => t.includes('jumping_jacks'))!);
    const orders = new Set(rotationTriples(r).map((t) => t.order));
    expect(orders.has('ZYX')).toBe(true);
    expect(orders.has('ZXY')).toBe(true);
  });

  it.each(BVH_TAKES.map((t) => [t]))(
    '%s: rotations match three.js BVHLoader (an independent reader)',
    (take) => {
      const { text, r } = load(take);
      const three = new BVHLoader().parse(text);
      const n = r.clip.skeleton.boneCount;
      let compared = 0;
      let worst = 0;
      for (const track of three.clip.tracks) {
        if (!track.name.endsWith('.quaternion')) continue;
        const b = r.clip.skeleton.names.indexOf(track.name.slice(0, -'.quaternion'.length));
        expect(b).toBeGreaterThanOrEqual(0);
        const vals = track.values;
        expect(vals.length).toBe(4 * r.clip.frameCount);
        for (let f = 0; f < r.clip.frameCount; f++) {
          const o = 4 * (f * n + b);
          worst = Math.max(
            worst,
            angleBetween(r.clip.rotations.subarray(o, o + 4), vals.subarray(4 * f, 4 * f + 4)),
          );
        }
        compared++;
      }
      expect(compared).toBe(n);
      expect(worst).toBeLessThan(1e-5);
    },
  );
});

describeWithData('writeBvh round trip on the real takes', () => {
  it.each(BVH_TAKES.map((t) => [t]))(
    '%s: same rotations, positions within 1e-4, continuous tracks',
    (take) => {
      const { r: a } = load(take);
      const out = writeBvh(a.clip, { layout: a.layout, unitScale: a.unitScale });
      const b = parseBvh(out, { unitScale: a.unitScale, keepChannelValues: true });
      expect(b.clip.frameCount).toBe(a.clip.frameCount);
      expect(Math.abs(b.clip.frameTime - a.clip.frameTime)).toBeLessThan(1e-7);
      // same layout (line numbers aside; '-0.00000' in a source OFFSET is written as 0)
      const plain = (r: BvhParseResult) =>
        r.layout.joints.map((j) => ({
          ...j,
          line: 0,
          offset: j.offset.map((v) => v + 0),
          endSite: j.endSite?.map((v) => v + 0),
        }));
      expect(plain(b)).toEqual(plain(a));
      const va = a.channelValues!;
      const vb = b.channelValues!;
      const F = a.clip.frameCount;
      const C = va.length / F;
      const isRot = a.layout.joints.flatMap((j) => j.channels.map((c) => c.endsWith('rotation')));
      let worstPos = 0;
      for (let i = 0; i < va.length; i++)
        if (!isRot[i % C]) worstPos = Math.max(worstPos, Math.abs(vb[i] - va[i]));
      expect(worstPos).toBeLessThan(1e-4);
      const qa = new Float64Array(4);
      const qb = new Float64Array(4);
      let worstRot = 0;
      let worstTriple = 0;
      let worstStep = 0;
      for (const t of rotationTriples(a)) {
        for (let f = 0; f < F; f++) {
          const o = t.idx.map((i) => va[f * C + i]);
          const w = t.idx.map((i) => vb[f * C + i]);
          quatFromEuler(qa, o[0] * DEG2RAD, o[1] * DEG2RAD, o[2] * DEG2RAD, t.order);
          quatFromEuler(qb, w[0] * DEG2RAD, w[1] * DEG2RAD, w[2] * DEG2RAD, t.order);
          worstRot = Math.max(worstRot, angleBetween(qa, qb));
          // the same triple modulo 360, or its twin (a + 180, 180 - b, c + 180); the first and third
          // angles are ill-conditioned by 1 / cos(middle angle) (float32 quaternions in the clip)
          const alt = [o[0] + 180, 180 - o[1], o[2] + 180];
          const e1 = Math.max(...[0, 1, 2].map((k) => Math.abs(wrapDeg(w[k] - o[k]))));
          const e2 = Math.max(...[0, 1, 2].map((k) => Math.abs(wrapDeg(w[k] - alt[k]))));
          worstTriple = Math.max(worstTriple, Math.min(e1, e2) * Math.abs(Math.cos(o[1] * DEG2RAD)));
          // continuity: each written step is no longer than the source's step between the same two rotations
          if (f > 0) {
            const stepNew = Math.hypot(...t.idx.map((i) => vb[f * C + i] - vb[(f - 1) * C + i]));
            const stepOld = Math.hypot(...t.idx.map((i) => wrapDeg(va[f * C + i] - va[(f - 1) * C + i])));
            worstStep = Math.max(worstStep, (stepNew - stepOld) * Math.abs(Math.cos(o[1] * DEG2RAD)));
          }
        }
      }
      expect(worstRot).toBeLessThan(2e-6);
      expect(worstTriple).toBeLessThan(2e-5);
      expect(worstStep).toBeLessThan(1e-3);
    },
  );

  it.each(BVH_TAKES.map((t) => [t]))(
    '%s: with the source angles as reference every value comes back within 1e-4',
    (take) => {
      const { r: a } = load(take);
      const out = writeBvh(a.clip, { layout: a.layout, unitScale: a.unitScale, reference: a.channelValues });
      const b = parseBvh(out, { unitScale: a.unitScale, keepChannelValues: true });
      const va = a.channelValues!;
      const vb = b.channelValues!;
      const C = va.length / a.clip.frameCount;
      // middle angle of each rotation channel's joint, for the gimbal allowance
      const mid = new Int32Array(C).fill(-1);
      for (const t of rotationTriples(a)) for (const i of t.idx) mid[i] = t.idx[1];
      // direct comparison, except near gimbal lock (|cos(middle angle)| < 0.05), where the first and third
      // angles carry the float32 quaternion error times 1 / cos(middle angle)
      let worstDirect = 0;
      let worstNearGimbal = 0;
      for (let i = 0; i < va.length; i++) {
        const k = i % C;
        const cosMid = mid[k] >= 0 ? Math.abs(Math.cos(va[i - k + mid[k]] * DEG2RAD)) : 1;
        const err = Math.abs(vb[i] - va[i]);
        if (cosMid >= 0.05) worstDirect = Math.max(worstDirect, err);
        else worstNearGimbal = Math.max(worstNearGimbal, err * cosMid);
      }
      expect(worstDirect).toBeLessThan(1e-4);
      expect(worstNearGimbal).toBeLessThan(1e-5);
    },
  );
});
