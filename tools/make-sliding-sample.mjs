#!/usr/bin/env node
// Authors the embedded default of `kind cleanup` (CC0, made by this project):
//   TsProject/assets/default/default-slide.bvh  the default walk (default-walk.bvh, made by
//   tools/make-default-sample.mjs) with foot sliding injected by moving its root: the hips' path along
//   the walk is stretched by 12% (the body travels 1.344 m/s while the planted feet were placed for
//   1.2 m/s: every planted foot slides forward, as after retargeting onto longer legs) plus a lateral
//   sway of 3 cm amplitude with a 0.9 s period (sensor-like drift, unrelated to the gait). Nothing
//   else changes: same hierarchy, channels, frame count and Frame Time.
// Deterministic: no randomness, no clock; the same bytes on every run.
// Usage: node tools/make-sliding-sample.mjs [--out <dir>]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const i = process.argv.indexOf('--out');
const outDir = i > 0 ? path.resolve(process.argv[i + 1]) : path.join(root, 'TsProject/assets/default');
const src = fs.readFileSync(path.join(root, 'TsProject/assets/default/default-walk.bvh'), 'utf8');

/** Stretch of the hips' forward (+Z) path, and the lateral (X) sway in cm and seconds. */
const STRETCH = 1.12;
const SWAY_CM = 3;
const SWAY_PERIOD = 0.9;

const lines = src.split('\n');
const motion = lines.findIndex((l) => l.trim() === 'MOTION');
const rootChannels = lines.find((l) => l.trim().startsWith('CHANNELS')).trim().split(/\s+/).slice(2);
const xi = rootChannels.indexOf('Xposition');
const zi = rootChannels.indexOf('Zposition');
if (motion < 0 || xi < 0 || zi < 0) throw new Error('default-walk.bvh: expected a root with X and Z position channels');
const frameTime = Number(lines[motion + 2].split(':')[1]);
const out = lines.slice(0, motion + 3);
let f = 0;
for (const line of lines.slice(motion + 3)) {
  if (line.trim() === '') continue;
  const v = line.trim().split(/\s+/);
  const t = f * frameTime;
  v[zi] = (Number(v[zi]) * STRETCH).toFixed(4);
  v[xi] = (Number(v[xi]) + SWAY_CM * Math.sin((2 * Math.PI * t) / SWAY_PERIOD)).toFixed(4);
  out.push(v.join(' '));
  f++;
}
fs.mkdirSync(outDir, { recursive: true });
const file = path.join(outDir, 'default-slide.bvh');
fs.writeFileSync(file, `${out.join('\n')}\n`);
console.log(`wrote ${file} (${f} frames)`);
