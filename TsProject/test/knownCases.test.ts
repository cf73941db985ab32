/**
 * The known cases listed in the first issue, through the public entry points (parseBvh, clips,
 * retargeting). Retargeting known cases with skeletons live in retarget.test.ts; the 6/6/3 channel
 * round trip in bvh.test.ts.
 */

import { quat } from 'gl-matrix';
import { angleBetween, clipDuration, clipFps, DEG2RAD, frameIndexAt, quat64, sampleClip } from '../src/core';
import { parseBvh, writeBvh } from '../src/io/bvh';

function oneJoint(channels: string, values: number[], frames = 1, frameTime = '0.0333333'): string {
  const lines = [
    'HIERARCHY',
    'ROOT Hips',
    '{',
    '  OFFSET 0 0 0',
    `  CHANNELS ${channels.split(' ').length} ${channels}`,
  ];
  lines.push(
    '  End Site',
    '  {',
    '    OFFSET 0 10 0',
    '  }',
    '}',
    'MOTION',
    `Frames: ${frames}`,
    `Frame Time: ${frameTime}`,
  );
  for (let f = 0; f < frames; f++) lines.push(values.join(' '));
  return lines.join('\n');
}

describe('known cases', () => {
  it('CHANNELS 3 Zrotation Xrotation Yrotation 30 45 60 -> (0.2005621, 0.5319757, 0.3919038, 0.7233174)', () => {
    const { clip } = parseBvh(oneJoint('Zrotation Xrotation Yrotation', [30, 45, 60]), { unitScale: 1 });
    const want = [0.2005621, 0.5319757, 0.3919038, 0.7233174];
    for (let k = 0; k < 4; k++) expect(Math.abs(clip.rotations[k] - want[k])).toBeLessThan(1e-6);
  });

  it('a root listing rotations before positions: 90 0 0 1 2 3 -> translation (1, 2, 3) and 90 degrees about Z', () => {
    const { clip } = parseBvh(
      oneJoint('Zrotation Xrotation Yrotation Xposition Yposition Zposition', [90, 0, 0, 1, 2, 3]),
      { unitScale: 1 },
    );
    expect(Array.from(clip.translations.subarray(0, 3))).toEqual([1, 2, 3]);
    const rz90 = quat.setAxisAngle(quat64(), [0, 0, 1], 90 * DEG2RAD);
    expect(angleBetween(clip.rotations.subarray(0, 4), rz90)).toBeLessThan(1e-6);
  });

  it('Frame Time 0.0083333 with 240 frames: fps 120.0005, 239-frame duration, sampling past the end clamps to 239', () => {
    const text = oneJoint('Xposition Yposition Zposition', [0, 0, 0], 240, '0.0083333').replace(
      /(Frame Time: 0\.0083333\n)([\s\S]*)$/,
      (_m, head: string) => head + Array.from({ length: 240 }, (_, f) => `${f} 0 0`).join('\n'),
    );
    const { clip } = parseBvh(text, { unitScale: 1 });
    expect(clip.frameCount).toBe(240);
    expect(clip.frameTime).toBe(0.0083333);
    expect(clipFps(clip).toFixed(4)).toBe('120.0005');
    expect(clipDuration(clip)).toBeCloseTo(239 * 0.0083333, 12);
    expect(frameIndexAt(clip, 10)).toBe(239);
    const r = new Float64Array(4);
    const p = new Float64Array(3);
    sampleClip(clip, 10, r, p);
    expect(p[0]).toBe(239); // the last frame's X position, not past it
    // and the frame time survives a write
    expect(parseBvh(writeBvh(clip, { unitScale: 1 }), { unitScale: 1 }).clip.frameTime).toBeCloseTo(
      0.0083333,
      10,
    );
  });
});
