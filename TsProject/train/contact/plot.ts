/**
 * `npm run train:contact -- --plot <take> <out.png> [--side left|right] [--from F] [--to F]`: a PNG to check
 * the teacher by eye (issue 20, item 5). Top: the heel (ankle, red) and toe (blue) heights of one foot over
 * the frames, metres above their lowest, 3 px per frame. Below, one strip per label (dark = contact):
 * teacher heel, teacher toe, teacher foot, the rule's foot (cleaned as in the detector table), and the
 * judge's reference heel, toe and foot (test/helpers/judge/reference.ts). Grid lines every 10 cm and
 * every 30 frames.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PNG } from 'pngjs';
import { cleanContacts, ruleContactProbabilities, teacherLabels } from '../../src/contact';
import { legTrack, readBvhText, referenceContacts } from '../../test/helpers/judge';
import { loadTracks, SHARED_DATA } from './data';

type RGB = [number, number, number];

export function plotTake(rel: string, out: string, side: 'left' | 'right', from = 0, to?: number): void {
  const tracks = loadTracks(rel);
  const text = fs.readFileSync(path.join(SHARED_DATA, rel), 'utf8');
  const ref = referenceContacts(legTrack(readBvhText(text, rel)).track);
  const teacher = teacherLabels(tracks);
  const fps = 1 / tracks.frameTime;
  const rule = cleanContacts(ruleContactProbabilities(tracks)[side], { fps });
  const F = tracks.frameCount;
  const end = Math.min(F, to ?? F);
  const n = end - from;
  if (n < 2) throw new Error(`--plot: frames ${from}..${end} of ${F}`);
  const px = 3;
  const top = 240;
  const strip = 14;
  const u = tracks.up;
  const leg = tracks[side];
  const toe = leg.toePoint ?? leg.toe ?? leg.ankle;
  const h = (a: Float64Array, f: number) => u[0] * a[3 * f] + u[1] * a[3 * f + 1] + u[2] * a[3 * f + 2];
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (let f = from; f < end; f++)
    for (const a of [leg.ankle, toe]) {
      lo = Math.min(lo, h(a, f));
      hi = Math.max(hi, h(a, f));
    }
  const scale = (top - 10) / Math.max(0.05, hi - lo);
  const ref2 = ref.points[side];
  const refFoot = ref2.heel.contact.map((v, i) => v | ref2.toe.contact[i]);
  const strips: [Uint8Array, RGB][] = [
    [teacher[side].heel, [200, 40, 40]],
    [teacher[side].toe, [40, 40, 200]],
    [teacher[side].foot, [20, 20, 20]],
    [rule, [30, 130, 30]],
    [ref2.heel.contact, [200, 40, 40]],
    [ref2.toe.contact, [40, 40, 200]],
    [refFoot, [20, 20, 20]],
  ];
  const W = n * px;
  const H = top + strips.length * (strip + 2) + 4;
  const png = new PNG({ width: W, height: H });
  const set = (x: number, y: number, c: RGB) => {
    if (x < 0 || y < 0 || x >= W || y >= H) return;
    const i = 4 * (y * W + x);
    png.data[i] = c[0];
    png.data[i + 1] = c[1];
    png.data[i + 2] = c[2];
    png.data[i + 3] = 255;
  };
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) set(x, y, [255, 255, 255]);
  for (let m = 0; m * 0.1 <= hi - lo; m++) for (let x = 0; x < W; x++) set(x, top - 5 - Math.round(m * 0.1 * scale), [225, 225, 225]);
  for (let f = from; f < end; f++) if (f % 30 === 0) for (let y = 0; y < H; y++) set((f - from) * px, y, [210, 210, 210]);
  const curve = (a: Float64Array, c: RGB) => {
    let prev = -1;
    for (let f = from; f < end; f++) {
      const y = top - 5 - Math.round((h(a, f) - lo) * scale);
      const y0 = prev < 0 ? y : prev;
      for (let x = 0; x < px; x++)
        for (let yy = Math.min(y0, y); yy <= Math.max(y0, y); yy++) set((f - from) * px + x, yy, c);
      prev = y;
    }
  };
  curve(leg.ankle, [200, 40, 40]);
  curve(toe, [40, 40, 200]);
  strips.forEach(([m, c], k) => {
    const y0 = top + 2 + k * (strip + 2);
    for (let f = from; f < end; f++) {
      const col: RGB = m[f] ? c : [240, 240, 240];
      for (let x = 0; x < px; x++) for (let y = 0; y < strip; y++) set((f - from) * px + x, y0 + y, col);
    }
  });
  fs.writeFileSync(out, PNG.sync.write(png));
  console.log(
    `wrote ${out}: ${rel} ${side} foot, frames ${from}..${end} at ${fps.toFixed(0)} fps; heights ${(lo * 100).toFixed(1)}..${(hi * 100).toFixed(1)} cm; ` +
      'strips: teacher heel, toe, foot; rule foot; reference heel, toe, foot',
  );
}
