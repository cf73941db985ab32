/**
 * Memory and size: a 100k-frame BVH parses in memory proportional to its frames (the clip arrays plus
 * a fixed scratch), not to its text many times over (no split into line or token arrays).
 */
import { parseBvh, writeBvh } from '../src/io/bvh';

const FRAMES = 100_000;

let built: { text: string; value: (f: number, k: number) => number } | undefined;

/** A 5-joint chain (6-channel root + 4 three-channel joints = 18 values a frame), as one flat string. */
function bigBvh(): { text: string; value: (f: number, k: number) => number } {
  if (built) return built;
  const header = [
    'HIERARCHY',
    'ROOT Hips',
    '{',
    '  OFFSET 0 90 0',
    '  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation',
    '  JOINT Spine',
    '  {',
    '    OFFSET 0 10 0',
    '    CHANNELS 3 Zrotation Xrotation Yrotation',
    '    JOINT Neck',
    '    {',
    '      OFFSET 0 40 0',
    '      CHANNELS 3 Zrotation Yrotation Xrotation',
    '      JOINT Head',
    '      {',
    '        OFFSET 0 10 0',
    '        CHANNELS 3 Xrotation Yrotation Zrotation',
    '        End Site',
    '        {',
    '          OFFSET 0 15 0',
    '        }',
    '      }',
    '    }',
    '    JOINT LeftArm',
    '    {',
    '      OFFSET 15 35 0',
    '      CHANNELS 3 Yrotation Xrotation Zrotation',
    '      End Site',
    '      {',
    '        OFFSET 25 0 0',
    '      }',
    '    }',
    '  }',
    '}',
    'MOTION',
    `Frames: ${FRAMES}`,
    'Frame Time: 0.0083333',
  ];
  // deterministic values with 6 significant digits, signs, and now and then exponent notation
  const value = (f: number, k: number) => {
    const v = Math.sin(f * 0.001 * (k + 1) + k) * (k < 3 ? 150 : 170);
    return Number(v.toPrecision(6));
  };
  const lines: string[] = new Array(FRAMES);
  const row: string[] = new Array(18);
  for (let f = 0; f < FRAMES; f++) {
    for (let k = 0; k < 18; k++) {
      const v = value(f, k);
      row[k] = k === 7 && f % 10 === 0 ? v.toExponential(5) : String(v);
    }
    lines[f] = row.join(' ');
  }
  built = { text: `${header.join('\n')}\n${lines.join('\n')}\n`, value };
  return built;
}

describe('parseBvh on a 100k-frame file', () => {
  it('reads every frame and keeps heap growth within 3x the clip arrays (not a multiple of the text)', () => {
    const gc = (globalThis as { gc?: () => void }).gc;
    const { text, value } = bigBvh();
    expect(text.length).toBeGreaterThan(10_000_000);
    // warm up on the first 5000 frames, so that compiling the hot loops is not counted as parse memory
    let end = text.indexOf('Frame Time: 0.0083333\n');
    for (let f = 0; f <= 5000; f++) end = text.indexOf('\n', end + 1);
    parseBvh(text.slice(0, end + 1).replace(`Frames: ${FRAMES}`, 'Frames: 5000'));
    gc?.();
    const m0 = process.memoryUsage();
    const t0 = performance.now();
    const r = parseBvh(text, { unitScale: 0.01 });
    const ms = performance.now() - t0;
    const m1 = process.memoryUsage();
    const grew = m1.heapUsed + m1.arrayBuffers - (m0.heapUsed + m0.arrayBuffers);
    const clipBytes = r.clip.rotations.byteLength + r.clip.translations.byteLength;
    console.log(
      `100k frames: text ${(text.length / 1e6).toFixed(1)} MB, clip ${(clipBytes / 1e6).toFixed(1)} MB, ` +
        `heap growth ${(grew / 1e6).toFixed(1)} MB, parse ${ms.toFixed(0)} ms${gc ? '' : ' (no --expose-gc: noisy)'}`,
    );
    expect(grew).toBeLessThan(3 * clipBytes);
    expect(r.clip.frameCount).toBe(FRAMES);
    expect(r.clip.frameTime).toBe(0.0083333);
    // spot values: root position (metres) and a rotation against the text's own numbers
    for (const f of [0, 1, 12_345, 50_000, FRAMES - 1]) {
      for (let k = 0; k < 3; k++)
        expect(r.clip.translations[3 * (f * 5) + k]).toBeCloseTo(value(f, k) * 0.01, 5);
    }
    const last = parseBvh(text, { unitScale: 0.01, keepChannelValues: true }).channelValues!;
    for (const f of [0, 10, 99_990, FRAMES - 1])
      for (let k = 0; k < 18; k++) expect(last[f * 18 + k]).toBe(value(f, k));
  });

  it('writes a 100k-frame clip and reads it back', () => {
    const { text } = bigBvh();
    const a = parseBvh(text, { unitScale: 0.01 });
    const out = writeBvh(a.clip, { layout: a.layout, unitScale: 0.01 });
    const b = parseBvh(out, { unitScale: 0.01 });
    expect(b.clip.frameCount).toBe(FRAMES);
    let worst = 0;
    for (let i = 0; i < a.clip.translations.length; i++)
      worst = Math.max(worst, Math.abs(a.clip.translations[i] - b.clip.translations[i]));
    expect(worst).toBeLessThan(1e-6);
  });
});
