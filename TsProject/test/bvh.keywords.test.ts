/**
 * BVH keywords in any letter case (issue 15 item 1): PyMO's writer emits `End site`, three.js's
 * BVHLoader matches keywords case-insensitively. Random casings of every keyword parse exactly like
 * the canonical spelling, from text and from bytes (the byte path finds the end of the header itself).
 */
import fc from 'fast-check';
import { type BvhParseResult, parseBvh } from '../src/io/bvh';

/** The keyword occurrences of {@link bvhWith}, in file order. */
const KEYWORDS = [
  'HIERARCHY',
  'ROOT',
  'OFFSET',
  'CHANNELS',
  'JOINT',
  'OFFSET',
  'CHANNELS',
  'End',
  'Site',
  'OFFSET',
  'MOTION',
  'Frames:',
  'Frame',
  'Time:',
] as const;

/** A two-joint BVH (6-channel root, 3-channel child with an End Site, 2 frames) with the given keyword spellings. */
function bvhWith(k: readonly string[]): string {
  return [
    k[0],
    `${k[1]} Hips`,
    '{',
    `  ${k[2]} 0 90 0`,
    `  ${k[3]} 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation`,
    `  ${k[4]} Spine`,
    '  {',
    `    ${k[5]} 0 10 0`,
    `    ${k[6]} 3 Zrotation Xrotation Yrotation`,
    `    ${k[7]} ${k[8]}`,
    '    {',
    `      ${k[9]} 0 5 0`,
    '    }',
    '  }',
    '}',
    k[10],
    `${k[11]} 2`,
    `${k[12]} ${k[13]} 0.0333333`,
    '1 90 2 10 20 30 40 50 60',
    '-1 91 -2 -10 -20 -30 -40 -50 -60',
    '',
  ].join('\n');
}

function summary(r: BvhParseResult) {
  return {
    layout: r.layout.joints.map((j) => ({ ...j })),
    names: r.clip.skeleton.names,
    parents: Array.from(r.clip.skeleton.parents),
    frames: r.clip.frameCount,
    frameTime: r.clip.frameTime,
    rotations: Array.from(r.clip.rotations),
    translations: Array.from(r.clip.translations),
    unitScale: r.unitScale,
  };
}

/** A random upper/lower casing of `word` (letters only; `:` stays). */
const casing = (word: string) =>
  fc
    .array(fc.boolean(), { minLength: word.length, maxLength: word.length })
    .map((up) => [...word].map((ch, i) => (up[i] ? ch.toUpperCase() : ch.toLowerCase())).join(''));

describe('parseBvh: keywords in any letter case', () => {
  const canonical = summary(parseBvh(bvhWith(KEYWORDS), { fileName: 'canonical.bvh' }));

  it('the canonical file reads as expected (2 joints, 1 End Site, 2 frames)', () => {
    expect(canonical.names).toEqual(['Hips', 'Spine']);
    expect(canonical.layout[1].endSite).toEqual([0, 5, 0]);
    expect(canonical.frames).toBe(2);
    expect(canonical.frameTime).toBeCloseTo(0.0333333, 9);
  });

  it('reads `End site`, `end site`, `END SITE`, `root`, `Motion`, `FRAMES:` and `frame time:` (known cases)', () => {
    const k: string[] = [...KEYWORDS];
    k[8] = 'site';
    expect(summary(parseBvh(bvhWith(k), { fileName: 'pymo.bvh' }))).toEqual(canonical);
    k[7] = 'end';
    expect(summary(parseBvh(bvhWith(k), { fileName: 'lower.bvh' }))).toEqual(canonical);
    const all = KEYWORDS.map((w) => w.toUpperCase());
    expect(summary(parseBvh(new TextEncoder().encode(bvhWith(all)), { fileName: 'upper.bvh' }))).toEqual(
      canonical,
    );
    const lower = KEYWORDS.map((w) => w.toLowerCase());
    expect(summary(parseBvh(new TextEncoder().encode(bvhWith(lower)), { fileName: 'lower.bvh' }))).toEqual(
      canonical,
    );
  });

  it('every random casing of every keyword gives the same parse, from text and from bytes (property)', () => {
    fc.assert(
      fc.property(fc.tuple(...KEYWORDS.map(casing)), (k) => {
        const text = bvhWith(k);
        expect(summary(parseBvh(text, { fileName: 'cased.bvh' }))).toEqual(canonical);
        expect(summary(parseBvh(new TextEncoder().encode(text), { fileName: 'cased.bvh' }))).toEqual(
          canonical,
        );
      }),
      { numRuns: 200 },
    );
  });

  it('still names a keyword that is not one (`End Sight`, `JOINTS`) with its line', () => {
    const k: string[] = [...KEYWORDS];
    k[8] = 'Sight';
    expect(() => parseBvh(bvhWith(k), { fileName: 'a.bvh' })).toThrow(
      /^a\.bvh:10: unknown keyword "End Sight"$/,
    );
    const j: string[] = [...KEYWORDS];
    j[4] = 'JOINTS';
    expect(() => parseBvh(bvhWith(j), { fileName: 'b.bvh' })).toThrow(/^b\.bvh:6: unknown keyword "JOINTS"$/);
  });
});
