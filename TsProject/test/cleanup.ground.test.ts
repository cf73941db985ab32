/**
 * Raised ground and slopes (issue 20, point 4), end to end on the embedded walk (no shared data needed):
 * the walk is put on a 20 cm platform for its second half, or up an 8 degree slope, by raising each
 * stance to the terrain (test/helpers/terrain.ts, leg DLS; independent of the detector and the cleanup).
 * Known answers: every stance is a contact (the rule, src/contact), each contact is pinned at its own
 * height, the take reports "2 ground levels, 20 cm apart" or "one ground plane sloped 8.0°", and no
 * penetration is measured against the local ground. Plus the ground patch fit itself (src/core).
 */
import fc from 'fast-check';
import {
  type CleanupResult,
  cleanupClip,
  contactSegments,
  describeGround,
  legBones,
  legTracks,
} from '../src/cleanup';
import { computeFootTracks, ruleContactProbabilities } from '../src/contact';
import { type Clip, fitGroundPatches, type GroundPoint, patchHeight } from '../src/core';
import { DEFAULT_WALK, loadBvhClip } from './helpers/contact';
import { stances, type TerrainResult, terrainClip } from './helpers/terrain';

const FEET = ['left', 'right'] as const;

/** The rule's contact segments and the cleanup of a take. */
function detectAndClean(clip: Clip): {
  result: CleanupResult;
  covered: (foot: 'left' | 'right', s: { start: number; end: number }) => number;
} {
  const p = ruleContactProbabilities(computeFootTracks(clip));
  const result = cleanupClip({ clip, probabilities: { left: p.left, right: p.right }, floor: p.floor });
  const covered = (foot: 'left' | 'right', s: { start: number; end: number }) => {
    const seg = contactSegments(p[foot], clip.frameTime).segments;
    let n = 0;
    for (let f = s.start; f < s.end; f++) if (seg.some((g) => g.start <= f && f < g.end)) n++;
    return n / (s.end - s.start);
  };
  return { result, covered };
}

/** Median over frames [a, b) of the lowest joint's height along up (metres, world). */
function lowestHeight(clip: Clip, foot: 'left' | 'right', a: number, b: number, up: number[]): number {
  const t = legTracks(clip, {
    left: legBones(clip.skeleton, 'left'),
    right: legBones(clip.skeleton, 'right'),
  })[foot];
  const h: number[] = [];
  for (let f = a; f < b; f++) {
    const y = (p: Float64Array) => up[0] * p[3 * f] + up[1] * p[3 * f + 1] + up[2] * p[3 * f + 2];
    h.push(t.toe ? Math.min(y(t.ankle), y(t.toe)) : y(t.ankle));
  }
  h.sort((x, y) => x - y);
  return h[h.length >> 1];
}

describe('a walk that steps onto a 20 cm platform (two ground levels)', () => {
  const base = loadBvhClip(DEFAULT_WALK);
  // the walk goes along +Z from z = 0 to 4.8 m: the platform starts at z = 2.4 m
  const warped: TerrainResult = terrainClip(base, (p) => (p[2] > 2.4 ? 0.2 : 0));
  const { result, covered } = detectAndClean(warped.clip);

  it('the set-up: each foot has stances on the floor and on the platform, the legs reach them', () => {
    for (const foot of FEET) {
      const raises = warped.stances[foot].filter((s) => s.end - s.start >= 5).map((s) => s.raise);
      expect(raises).toContain(0);
      expect(raises).toContain(0.2);
    }
    expect(warped.maxMiss).toBeLessThan(1e-3);
  });

  it('every stance on either level is a contact of the rule', () => {
    for (const foot of FEET)
      for (const s of warped.stances[foot].filter((x) => x.end - x.start >= 5))
        expect({ foot, ...s, covered: covered(foot, s) >= 0.9 }).toEqual({ foot, ...s, covered: true });
  });

  it('each contact is pinned at its own height: 20 cm on the platform, 0 on the floor', () => {
    let raised = 0;
    for (const foot of FEET) {
      for (const s of result.feet[foot].segments) {
        const onPlatform = warped.raise[foot][(s.start + s.end) >> 1] > 0.1;
        expect(s.ground).toBeCloseTo(onPlatform ? 0.2 : 0, 2);
        expect(Math.abs(s.lift)).toBeLessThan(0.005);
        // the cleaned foot stands where the source foot stood (lowest joint, median over the segment)
        const before = lowestHeight(warped.clip, foot, s.start, s.end, warped.up);
        const after = lowestHeight(result.clip, foot, s.start, s.end, warped.up);
        expect(Math.abs(after - before)).toBeLessThan(0.005);
        expect(after - -result.floor.d).toBeCloseTo(onPlatform ? 0.2 : 0, 1);
        if (onPlatform) raised++;
      }
    }
    expect(raised).toBeGreaterThanOrEqual(4);
  });

  it('"contacts on 2 ground levels, 20 cm apart"; no penetration of the local ground', () => {
    expect(result.ground.levels.map((l) => Math.round(l.height * 100))).toEqual([0, 20]);
    expect(describeGround(result.ground)).toBe('contacts on 2 ground levels, 20 cm apart');
    for (const foot of FEET) {
      expect(result.metrics.after[foot].penetrationMax).toBeLessThan(0.005);
      expect(result.metrics.after[foot].warnings).not.toContain('penetration');
    }
  });
});

describe('a walk up an 8 degree slope (a plane fitted to the contacts)', () => {
  const base = loadBvhClip(DEFAULT_WALK);
  const k = Math.tan((8 * Math.PI) / 180);
  const warped = terrainClip(base, (p) => k * (p[2] - 2.4));
  const { result, covered } = detectAndClean(warped.clip);

  it('every stance is a contact, each pinned at its own height', () => {
    for (const foot of FEET) {
      for (const s of warped.stances[foot].filter((x) => x.end - x.start >= 5))
        expect({ foot, ...s, covered: covered(foot, s) >= 0.9 }).toEqual({ foot, ...s, covered: true });
      for (const s of result.feet[foot].segments) expect(Math.abs(s.lift)).toBeLessThan(0.005);
    }
    expect(result.feet.left.segments.length + result.feet.right.segments.length).toBeGreaterThanOrEqual(8);
  });

  it('one ground plane n.p + d = 0 tilted 8° about X (normal (0, cos 8°, -sin 8°)); no penetration', () => {
    expect(result.ground.levels).toHaveLength(1);
    const l = result.ground.levels[0];
    expect(l.tiltDeg).toBeCloseTo(8, 0);
    expect(Math.abs(l.tiltDeg - 8)).toBeLessThan(0.3);
    const a = (8 * Math.PI) / 180;
    expect(l.normal[0]).toBeCloseTo(0, 2);
    expect(l.normal[1]).toBeCloseTo(Math.cos(a), 2);
    expect(l.normal[2]).toBeCloseTo(-Math.sin(a), 2);
    // every segment's contact lies on that plane (the plane of its lowest joint's median height)
    for (const foot of FEET)
      for (const s of result.feet[foot].segments) {
        const h = lowestHeight(warped.clip, foot, s.start, s.end, warped.up);
        expect(Math.abs(h - (s.ground - result.floor.d))).toBeLessThan(0.01);
      }
    expect(describeGround(result.ground)).toBe('contacts on one ground plane sloped 8.0°');
    for (const foot of FEET) expect(result.metrics.after[foot].penetrationMax).toBeLessThan(0.005);
  });
});

describe('the terrain helper is independent of the detector', () => {
  it('stances of the flat walk: 4 left and 5 right, as the walk is authored (planted 10-60% of each cycle)', () => {
    const t = computeFootTracks(loadBvhClip(DEFAULT_WALK));
    expect(stances(t.left.ankle, t.left.toe, t.frameTime)).toHaveLength(4);
    expect(stances(t.right.ankle, t.right.toe, t.frameTime)).toHaveLength(5);
  });
});

describe('ground patches (src/core fitGroundPatches)', () => {
  const tol = 0.03;
  it('known answers: one floor with 1 cm noise; two levels 20 cm apart; a slope along a walk', () => {
    const noise = [0.004, -0.008, 0.01, -0.002, 0.006, -0.01, 0.001, 0.007];
    const floor = noise.map((h, i) => ({ x: 0.6 * i, y: (i % 2) * 0.2, h }));
    const one = fitGroundPatches(floor, { tolerance: tol });
    expect(one).toHaveLength(1);
    expect(one[0].tilt).toBe(0);
    expect(one[0].members).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const two = fitGroundPatches(
      floor.map((p, i) => ({ ...p, h: p.h + (i >= 4 ? 0.2 : 0) })),
      { tolerance: tol },
    );
    expect(two.map((p) => p.members)).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
    ]);
    expect(two.map((p) => Math.round(p.a * 100))).toEqual([0, 20]);
    // 8 contacts up a 10° slope, feet 0.2 m apart across it: the tilt is along the walk only
    const k = Math.tan((10 * Math.PI) / 180);
    const slope = floor.map((p) => ({ ...p, h: p.h + k * p.x }));
    const s = fitGroundPatches(slope, { tolerance: tol });
    expect(s).toHaveLength(1);
    expect((s[0].tilt * 180) / Math.PI).toBeCloseTo(10, 0);
    expect(Math.abs(s[0].by)).toBeLessThan(0.1);
  });

  it('a staircase (33°) is steps, not a ramp: one level per step', () => {
    const stairs = [0, 1, 2, 3, 4].flatMap((i) => [
      { x: 0.28 * i, y: 0, h: 0.18 * i },
      { x: 0.28 * i, y: 0.2, h: 0.18 * i },
    ]);
    const p = fitGroundPatches(stairs, { tolerance: tol });
    expect(p).toHaveLength(5);
    expect(p.every((q) => q.tilt === 0 && q.members.length === 2)).toBe(true);
  });

  it('property: every point is in exactly one patch, within the tolerance of its plane; deterministic', () => {
    const point = fc.record({
      x: fc.double({ min: -3, max: 3, noNaN: true }),
      y: fc.double({ min: -3, max: 3, noNaN: true }),
      h: fc.double({ min: -0.5, max: 0.5, noNaN: true }),
    });
    fc.assert(
      fc.property(fc.array(point, { minLength: 1, maxLength: 40 }), (pts: GroundPoint[]) => {
        const patches = fitGroundPatches(pts, { tolerance: tol });
        const seen = new Array(pts.length).fill(0);
        for (const p of patches)
          for (const m of p.members) {
            seen[m]++;
            if (Math.abs(pts[m].h - patchHeight(p, pts[m].x, pts[m].y)) > tol + 1e-12) return false;
            if (p.tilt > (20 * Math.PI) / 180 + 1e-9) return false;
          }
        return (
          seen.every((c) => c === 1) &&
          JSON.stringify(fitGroundPatches(pts, { tolerance: tol })) === JSON.stringify(patches)
        );
      }),
      { numRuns: 200, seed: 20 },
    );
  });

  it('bad input is named', () => {
    expect(() => fitGroundPatches([{ x: 0, y: 0, h: Number.NaN }], { tolerance: tol })).toThrow(/point 0/);
    expect(() => fitGroundPatches([], { tolerance: 0 })).toThrow(/tolerance 0/);
  });
});
