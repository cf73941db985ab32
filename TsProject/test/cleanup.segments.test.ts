import fc from 'fast-check';
import { CleanupError, contactSegments, framesAtRate, segmentWeights, smoothstep } from '../src/cleanup';

const DT60 = 1 / 60;
/** Probabilities from runs: [[value, count], ...]. */
const runs = (...r: [number, number][]) =>
  Float32Array.from(r.flatMap(([v, k]) => new Array<number>(k).fill(v)));

describe('contact segments from probabilities', () => {
  test('hysteresis: start at P >= 0.7, end at P <= 0.3 (end exclusive); 0.5 keeps a started contact', () => {
    const p = runs([0.1, 5], [0.8, 10], [0.5, 2], [0.8, 5], [0.2, 10]);
    expect(contactSegments(p, DT60).segments).toEqual([{ start: 5, end: 22 }]);
    // 0.69 never starts one
    expect(contactSegments(runs([0.1, 5], [0.69, 20], [0.1, 5]), DT60).segments).toEqual([]);
    // a contact to the last frame ends at the frame count
    expect(contactSegments(runs([0.1, 3], [0.9, 10]), DT60).segments).toEqual([{ start: 3, end: 13 }]);
  });

  test('gaps of up to 3 frames at 60 fps are merged, 4 are not', () => {
    expect(contactSegments(runs([0.9, 10], [0.1, 3], [0.9, 10]), DT60).segments).toEqual([
      { start: 0, end: 23 },
    ]);
    expect(contactSegments(runs([0.9, 10], [0.1, 4], [0.9, 10]), DT60).segments).toEqual([
      { start: 0, end: 10 },
      { start: 14, end: 24 },
    ]);
  });

  test('minimum 5 frames at 60 fps; a shorter piece is not fixed but reported as short', () => {
    expect(contactSegments(runs([0.1, 5], [0.9, 4], [0.1, 5]), DT60).segments).toEqual([]);
    expect(contactSegments(runs([0.1, 5], [0.9, 4], [0.1, 5]), DT60).short).toEqual([{ start: 5, end: 9 }]);
    // what a review cut leaves of a contact, when too short, is reported too
    const cut = contactSegments(runs([0.1, 5], [0.9, 3], [0.55, 6], [0.9, 12], [0.1, 5]), DT60);
    expect(cut.review).toEqual([{ start: 8, end: 14 }]);
    expect(cut.segments).toEqual([{ start: 14, end: 26 }]);
    expect(cut.short).toEqual([{ start: 5, end: 8 }]);
    expect(contactSegments(runs([0.1, 5], [0.9, 5], [0.1, 5]), DT60).segments).toEqual([
      { start: 5, end: 10 },
    ]);
  });

  test('frame counts scale with the rate: 120 fps needs 10 frames and merges gaps of 6', () => {
    const dt = 1 / 120;
    expect(framesAtRate(5, dt)).toBe(10);
    expect(framesAtRate(3, dt)).toBe(6);
    expect(framesAtRate(5, 1 / 30)).toBe(3);
    expect(contactSegments(runs([0.1, 5], [0.9, 9], [0.1, 5]), dt).segments).toEqual([]);
    expect(contactSegments(runs([0.9, 10], [0.1, 6], [0.9, 10]), dt).segments).toEqual([
      { start: 0, end: 26 },
    ]);
    expect(contactSegments(runs([0.9, 10], [0.1, 7], [0.9, 10]), dt).segments).toHaveLength(2);
  });

  test('frames whose P stays in the review band are listed and cut out of the segments', () => {
    const r = contactSegments(runs([0.9, 10], [0.55, 4], [0.9, 10]), DT60);
    expect(r.review).toEqual([{ start: 10, end: 14 }]);
    expect(r.segments).toEqual([
      { start: 0, end: 10 },
      { start: 14, end: 24 },
    ]);
    // two frames passing through the band are not "staying" there
    expect(contactSegments(runs([0.9, 10], [0.5, 2], [0.9, 10]), DT60).review).toEqual([]);
    // another band
    expect(
      contactSegments(runs([0.9, 10], [0.55, 4], [0.9, 10]), DT60, { reviewBand: [0.6, 0.65] }).review,
    ).toEqual([]);
  });

  test('bad input: a named frame or threshold', () => {
    expect(() => contactSegments([0.2, 0.5, Number.NaN], DT60)).toThrow(/probability\[2\] = NaN/);
    expect(() => contactSegments([0.2, 1.5], DT60)).toThrow(CleanupError);
    expect(() => contactSegments([0.2], DT60, { reviewBand: [0.7, 0.4] })).toThrow(/review band/);
  });

  test('properties: sorted, disjoint, long enough, never over a review run', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 1, max: 12 })), {
          maxLength: 30,
        }),
        fc.constantFrom(1 / 30, 1 / 60, 1 / 120),
        (rs, dt) => {
          const p = runs(...(rs as [number, number][]));
          const r = contactSegments(p, dt);
          let last = -1;
          for (const s of r.segments) {
            expect(s.start).toBeGreaterThan(last);
            expect(s.end - s.start).toBeGreaterThanOrEqual(r.minFrames);
            last = s.end - 1;
            for (const v of r.review) expect(s.end <= v.start || s.start >= v.end).toBe(true);
            // no segment frame has P <= 0.3 unless it is inside a merged gap (at most maxGap in a row)
            let low = 0;
            for (let t = s.start; t < s.end; t++) {
              low = p[t] <= 0.3 ? low + 1 : 0;
              expect(low).toBeLessThanOrEqual(r.maxGap);
            }
          }
          // nothing detected vanishes: every frame at P >= 0.7 is in a segment, a short piece or a review run
          const inAny = (t: number) =>
            [...r.segments, ...r.short, ...r.review].some((x) => t >= x.start && t < x.end);
          for (let t = 0; t < p.length; t++)
            if (p[t] >= 0.7) expect({ t, covered: inAny(t) }).toEqual({ t, covered: true });
          for (const x of r.short) expect(x.end - x.start).toBeLessThan(r.minFrames);
        },
      ),
      { numRuns: 300, seed: 21 },
    );
  });
});

describe('blend weights', () => {
  test('smoothstep w(u) = 3u^2 - 2u^3', () => {
    expect(smoothstep(0)).toBe(0);
    expect(smoothstep(1)).toBe(1);
    expect(smoothstep(0.5)).toBe(0.5);
    expect(smoothstep(0.2)).toBeCloseTo(3 * 0.04 - 2 * 0.008, 15);
    expect(smoothstep(-1)).toBe(0);
    expect(smoothstep(2)).toBe(1);
  });

  test('1 inside, smoothstep ramps of 4 frames outside each end, 0 beyond', () => {
    const { weight, segment } = segmentWeights([{ start: 10, end: 20 }], 30, 4);
    const s = (u: number) => Math.fround(smoothstep(u));
    expect(weight[5]).toBe(0);
    expect([weight[6], weight[7], weight[8], weight[9]]).toEqual([s(0.2), s(0.4), s(0.6), s(0.8)]);
    for (let t = 10; t < 20; t++) expect(weight[t]).toBe(1);
    expect([weight[20], weight[21], weight[22], weight[23]]).toEqual([s(0.8), s(0.6), s(0.4), s(0.2)]);
    expect(weight[24]).toBe(0);
    expect(segment[5]).toBe(-1);
    expect(segment[6]).toBe(0);
    expect(segment[24]).toBe(-1);
  });

  test('close segments: the ramps shrink to half the gap, so the anchor never switches under weight', () => {
    const { weight, segment } = segmentWeights(
      [
        { start: 0, end: 10 },
        { start: 14, end: 20 },
      ],
      20,
      4,
    );
    // gap of 4 frames: 2-frame ramps, each side
    expect(Array.from(weight.slice(10, 14))).toEqual(
      [smoothstep(2 / 3), smoothstep(1 / 3), smoothstep(1 / 3), smoothstep(2 / 3)].map(Math.fround),
    );
    expect(Array.from(segment.slice(10, 14))).toEqual([0, 0, 1, 1]);
  });

  test('property: the weight is in [0, 1] and exactly 1 on segment frames', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 200 }), { maxLength: 12 }),
        fc.integer({ min: 1, max: 8 }),
        (cuts, b) => {
          const c = [...new Set(cuts)].sort((x, y) => x - y);
          const segs = [];
          for (let i = 0; i + 1 < c.length; i += 2) segs.push({ start: c[i], end: c[i + 1] });
          const { weight } = segmentWeights(segs, 201, b);
          expect(weight.every((w) => w >= 0 && w <= 1)).toBe(true);
          for (const s of segs) expect(weight.subarray(s.start, s.end).every((w) => w === 1)).toBe(true);
        },
      ),
      { numRuns: 200, seed: 22 },
    );
  });
});
