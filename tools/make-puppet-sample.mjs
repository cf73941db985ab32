#!/usr/bin/env node
// Authors the embedded default of the drawing puppet (CC0, made by this project) in
// TsProject/assets/default/puppet:
//   texture.png     a child's-drawing style character (360x480 RGBA, opaque white paper): round head with
//                   eyes, cheeks and a smile, hair, a red shirt with a star, blue shorts, arms in an A-pose
//                   (35 degrees below horizontal, background between arms and body), legs apart, mitten hands,
//                   shoes. Signed-distance shapes (circles, tapered capsules, polygons, an arc), anti-aliased,
//                   a 3 px dark outline that wobbles a little like a hand-drawn line.
//   mask.png        the drawing's pixels: 8-bit greyscale, 255 inside, 0 outside (as AnimatedDrawings' mask.png);
//                   one connected component without holes (checked here).
//   char_cfg.yaml   AnimatedDrawings' skeleton (16 joints, integer pixels), the joints the figure is drawn from.
//   recording.json  6 s of synthetic BlazePose landmarks at 30 fps (640x480 image, the recorded landmark file
//                   format of src/puppet/landmarks.ts): a person facing the camera waves with the right arm,
//                   leans, squats with one forearm hidden, spreads both arms; steps out of view (4-4.5 s, no
//                   person); comes back and stands swaying; from 5 s a chest-up framing whose leg landmarks
//                   are the model's junk above the hips (visibility 0.05).
// With --figure six-arms or --figure four-legs it draws, instead, a character AnimatedDrawings' standard
// skeleton cannot hold (issue 22 part 1), and writes only texture.png, mask.png and char_cfg.yaml:
//   six-arms    the same child's drawing with three arms a side (raised 25 degrees, 10 and 45 degrees below
//               horizontal), joints right_shoulder1..3, right_elbow1..3, right_hand1..3 and the left ones,
//               legs as the default's (28 joints; 360x480).
//   four-legs   a spotted animal drawn side on (480x360): a long body, a head on a neck, a tail, four legs;
//               joints root, hip, torso, neck, tail and {left,right}_{hip,knee,foot}_{f,b} (17 joints).
// Deterministic: no clock; the only randomness is a seeded PRNG (mulberry32); the same bytes on every run
// (PNG compression is Node's zlib at fixed settings).
// Usage: node tools/make-puppet-sample.mjs [--out <dir>] [--figure default|six-arms|four-legs]
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(root, 'TsProject/package.json'));
const { PNG } = require('pngjs');
const i = process.argv.indexOf('--out');
const outDir = i > 0 ? path.resolve(process.argv[i + 1]) : path.join(root, 'TsProject/assets/default/puppet');
const fi = process.argv.indexOf('--figure');
const FIGURE = fi > 0 ? process.argv[fi + 1] : 'default';
if (!['default', 'six-arms', 'four-legs'].includes(FIGURE))
  throw new Error(`--figure: '${FIGURE}' is not default, six-arms or four-legs`);
if (FIGURE !== 'default' && i < 0) throw new Error('--figure six-arms|four-legs needs --out <dir>');

// ---------------------------------------------------------------- seeded randomness
/** mulberry32: a small 32-bit PRNG, uniform in [0, 1). */
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
/** Standard normal samples (Box-Muller) from a uniform source. */
function gaussian(uniform) {
  let spare = null;
  return () => {
    if (spare !== null) {
      const s = spare;
      spare = null;
      return s;
    }
    const u = 1 - uniform(); // (0, 1]
    const v = uniform();
    const r = Math.sqrt(-2 * Math.log(u));
    spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  };
}

const DEG = Math.PI / 180;
const clamp01 = (t) => (t <= 0 ? 0 : t >= 1 ? 1 : t);
const lerp = (a, b, t) => a + (b - a) * t;

// ================================================================ the drawing
const W = FIGURE === 'four-legs' ? 480 : 360;
const H = FIGURE === 'four-legs' ? 360 : 480;

// ---------------------------------------------------------------- skeleton (integer pixels, y down)
// The figure is drawn from these joints, so each joint sits where the drawn limb bends.
const ARM_DOWN = 35 * DEG; // A-pose: arms 35 degrees below horizontal
const UPPER_ARM = 64;
const FOREARM = 58;
const pt = (x, y) => [Math.round(x), Math.round(y)];
const HEAD = { x: 180, y: 92, r: 50 };
const SHOULDER_Y = 178;
const SHOULDER_HALF = 38;
const HIP_Y = 300;
const HIP_HALF = 24;
/** Side s = -1: the character's right (image left); +1: its left (image right). */
function armJoints(s) {
  const shoulder = [180 + s * SHOULDER_HALF, SHOULDER_Y];
  const dx = s * Math.cos(ARM_DOWN);
  const dy = Math.sin(ARM_DOWN);
  const elbow = pt(shoulder[0] + UPPER_ARM * dx, shoulder[1] + UPPER_ARM * dy);
  const hand = pt(elbow[0] + FOREARM * dx, elbow[1] + FOREARM * dy);
  return { shoulder, elbow, hand };
}
function legJoints(s) {
  return { hip: [180 + s * HIP_HALF, HIP_Y], knee: [180 + s * 30, 368], foot: [180 + s * 34, 434] };
}
const ARM = { R: armJoints(-1), L: armJoints(1) };
const LEG = { R: legJoints(-1), L: legJoints(1) };
const mid = (a, b) => [Math.round((a[0] + b[0]) / 2), Math.round((a[1] + b[1]) / 2)];
const SKELETON = [
  ['root', mid(LEG.R.hip, LEG.L.hip), null],
  ['hip', mid(LEG.R.hip, LEG.L.hip), 'root'],
  ['torso', mid(ARM.R.shoulder, ARM.L.shoulder), 'hip'],
  ['neck', [HEAD.x, HEAD.y], 'torso'],
  ['right_shoulder', ARM.R.shoulder, 'torso'],
  ['right_elbow', ARM.R.elbow, 'right_shoulder'],
  ['right_hand', ARM.R.hand, 'right_elbow'],
  ['left_shoulder', ARM.L.shoulder, 'torso'],
  ['left_elbow', ARM.L.elbow, 'left_shoulder'],
  ['left_hand', ARM.L.hand, 'left_elbow'],
  ['right_hip', LEG.R.hip, 'root'],
  ['right_knee', LEG.R.knee, 'right_hip'],
  ['right_foot', LEG.R.foot, 'right_knee'],
  ['left_hip', LEG.L.hip, 'root'],
  ['left_knee', LEG.L.knee, 'left_hip'],
  ['left_foot', LEG.L.foot, 'left_knee'],
];

// ---------------------------------------------------------------- signed distances (px; < 0 inside)
const circle = (cx, cy, r) => (x, y) => Math.hypot(x - cx, y - cy) - r;
/** Segment a -> b with radius ra at a and rb at b (a tapered stroke). */
const capsule = (a, b, ra, rb = ra) => {
  const ex = b[0] - a[0];
  const ey = b[1] - a[1];
  const ee = ex * ex + ey * ey;
  return (x, y) => {
    const t = clamp01(((x - a[0]) * ex + (y - a[1]) * ey) / ee);
    return Math.hypot(x - a[0] - t * ex, y - a[1] - t * ey) - lerp(ra, rb, t);
  };
};
/** Any simple polygon (vertices [[x, y], ...]), optionally grown by `round` px (rounded corners). */
const polygon =
  (v, round = 0) =>
  (x, y) => {
    let d = (x - v[0][0]) ** 2 + (y - v[0][1]) ** 2;
    let s = 1;
    for (let k = 0, j = v.length - 1; k < v.length; j = k, k++) {
      const ex = v[j][0] - v[k][0];
      const ey = v[j][1] - v[k][1];
      const wx = x - v[k][0];
      const wy = y - v[k][1];
      const t = clamp01((wx * ex + wy * ey) / (ex * ex + ey * ey));
      d = Math.min(d, (wx - ex * t) ** 2 + (wy - ey * t) ** 2);
      const c1 = y >= v[k][1];
      const c2 = y < v[j][1];
      const c3 = ex * wy > ey * wx;
      if ((c1 && c2 && c3) || (!c1 && !c2 && !c3)) s = -s;
    }
    return s * Math.sqrt(d) - round;
  };
const union =
  (...fs) =>
  (x, y) =>
    Math.min(...fs.map((f) => f(x, y)));
const intersect =
  (...fs) =>
  (x, y) =>
    Math.max(...fs.map((f) => f(x, y)));
/** An arc of radius r about (cx, cy) from angle a0 to a1 (radians, y down: pi/2 points down), as a stroke of width w. */
const arc = (cx, cy, r, a0, a1, w) => {
  const p0 = [cx + r * Math.cos(a0), cy + r * Math.sin(a0)];
  const p1 = [cx + r * Math.cos(a1), cy + r * Math.sin(a1)];
  return (x, y) => {
    const a = Math.atan2(y - cy, x - cx);
    const d =
      a >= a0 && a <= a1
        ? Math.abs(Math.hypot(x - cx, y - cy) - r)
        : Math.min(Math.hypot(x - p0[0], y - p0[1]), Math.hypot(x - p1[0], y - p1[1]));
    return d - w / 2;
  };
};
const star = (cx, cy, ro, ri) =>
  polygon(
    Array.from({ length: 10 }, (_, k) => {
      const a = -Math.PI / 2 + (k * Math.PI) / 5;
      const r = k % 2 ? ri : ro;
      return [cx + r * Math.cos(a), cy + r * Math.sin(a)];
    }),
    1.5,
  );

/** A hand-drawn line: a smooth ±0.8 px wobble of every outline (seeded phases). */
const drawRandom = mulberry32(0x5eed1);
const ph = Array.from({ length: 4 }, () => 2 * Math.PI * drawRandom());
const wobble = (x, y) =>
  0.5 * Math.sin(0.083 * x + ph[0]) * Math.cos(0.061 * y + ph[1]) + 0.3 * Math.sin(0.13 * (x + y) + ph[2]);

// ---------------------------------------------------------------- the figure, back to front
const INK = [40, 34, 44];
const WHITE = [255, 255, 255];
const SKIN = [250, 206, 160];
const SHIRT = [222, 66, 56];
const STAR = [250, 204, 52];
const SHORTS = [62, 104, 196];
const SHOE = [112, 70, 42];
const HAIR = [122, 74, 32];
const CHEEK = [242, 146, 140];
const OUTLINE = 3;

const armShape = (a) => {
  const d = [(a.hand[0] - a.elbow[0]) / FOREARM, (a.hand[1] - a.elbow[1]) / FOREARM];
  const palm = [a.hand[0] + 9 * d[0], a.hand[1] + 9 * d[1]];
  // thumb: on the upper side of the hand (towards the head)
  const up = [d[1] * Math.sign(d[0]), -Math.abs(d[0])];
  const thumbTip = [palm[0] + 4 * d[0] + 13 * up[0], palm[1] + 4 * d[1] + 13 * up[1]];
  return union(
    capsule(a.shoulder, a.elbow, 14, 12.5),
    capsule(a.elbow, a.hand, 12.5, 10.5),
    circle(palm[0], palm[1], 14.5),
    capsule(palm, thumbTip, 6.5, 5.5),
  );
};
const sleeve = (a) => {
  const e = [lerp(a.shoulder[0], a.elbow[0], 0.55), lerp(a.shoulder[1], a.elbow[1], 0.55)];
  return capsule(a.shoulder, e, 18, 17);
};
const legShape = (l) => union(capsule(l.hip, l.knee, 14, 13), capsule(l.knee, l.foot, 13, 12));
const shoe = (l, s) =>
  capsule([l.foot[0] - s * 2, l.foot[1] + 11], [l.foot[0] + s * 16, l.foot[1] + 14], 12, 11);
const sr = ARM.R.shoulder;
const sl = ARM.L.shoulder;
const SHIRT_POLY = [
  [162, 150],
  [198, 150],
  [sl[0] + 10, sl[1] - 16],
  [sl[0] + 16, sl[1] - 2],
  [sl[0] + 8, 290],
  [sr[0] - 8, 290],
  [sr[0] - 16, sr[1] - 2],
  [sr[0] - 10, sr[1] - 16],
];
const SHORTS_POLY = [
  [142, 280],
  [218, 280],
  [LEG.L.hip[0] + 22, 340],
  [186, 340],
  [180, 322],
  [174, 340],
  [LEG.R.hip[0] - 22, 340],
];
/** Hair: a cap over the top of the head down to a wavy fringe, and three tufts sticking up. */
const hair = union(
  intersect(circle(HEAD.x, HEAD.y, HEAD.r), (x, y) => y - (HEAD.y - 24 + 6 * Math.sin((x - HEAD.x) * 0.22))),
  capsule([HEAD.x - 12, HEAD.y - 44], [HEAD.x - 22, HEAD.y - 62], 5, 3.5),
  capsule([HEAD.x, HEAD.y - 46], [HEAD.x + 3, HEAD.y - 66], 5, 3.5),
  capsule([HEAD.x + 12, HEAD.y - 44], [HEAD.x + 25, HEAD.y - 60], 5, 3.5),
);
const eyeY = HEAD.y - 4;
const EYES = [HEAD.x - 19, HEAD.x + 19];

/**
 * Layers: [sdf, fill colour, outline px (0: none), wobbly]. Ink strokes are fills in INK. The mask is the union
 * of the outlined layers, outline and its anti-aliased rim included (sdf < 0.5: every pixel with some ink), so
 * the texture outside the mask is exactly white; the other layers lie inside them.
 */
const LAYERS = [
  ...['R', 'L'].map((s) => [legShape(LEG[s]), SKIN, OUTLINE, true]),
  ...['R', 'L'].map((s, k) => [shoe(LEG[s], k ? 1 : -1), SHOE, OUTLINE, true]),
  [polygon(SHORTS_POLY, 3), SHORTS, OUTLINE, true],
  ...['R', 'L'].map((s) => [armShape(ARM[s]), SKIN, OUTLINE, true]),
  ...['R', 'L'].map((s) => [sleeve(ARM[s]), SHIRT, OUTLINE, true]),
  [capsule([180, 130], [180, 160], 13), SKIN, OUTLINE, true],
  [polygon(SHIRT_POLY, 4), SHIRT, OUTLINE, true],
  [star(180, 222, 22, 10), STAR, 2.5, true],
  [circle(HEAD.x - HEAD.r + 2, HEAD.y + 4, 10), SKIN, OUTLINE, true], // ears
  [circle(HEAD.x + HEAD.r - 2, HEAD.y + 4, 10), SKIN, OUTLINE, true],
  [circle(HEAD.x, HEAD.y, HEAD.r), SKIN, OUTLINE, true],
  [hair, HAIR, OUTLINE, true],
  ...EYES.map((x) => [circle(x, eyeY, 6), INK, 0, false]),
  ...EYES.map((x) => [circle(x + 2, eyeY - 2, 1.8), WHITE, 0, false]),
  ...EYES.map((x) => [circle(x + Math.sign(x - HEAD.x) * 10, HEAD.y + 16, 8), CHEEK, 0, false]),
  [arc(HEAD.x, HEAD.y + 2, 24, 25 * DEG, 155 * DEG, 3.2), INK, 0, true], // smile
  [arc(HEAD.x, HEAD.y + 4, 5, 20 * DEG, 160 * DEG, 2.6), INK, 0, true], // nose
];

// ---------------------------------------------------------------- the other figures (--figure)
/** An arm from its shoulder at `down` radians below horizontal (side s), upper arm `ua`, forearm `fa` px. */
function armAt(shoulder, s, down, ua, fa) {
  const dx = s * Math.cos(down);
  const dy = Math.sin(down);
  const elbow = pt(shoulder[0] + ua * dx, shoulder[1] + ua * dy);
  const hand = pt(elbow[0] + fa * dx, elbow[1] + fa * dy);
  return { shoulder, elbow, hand };
}
/** armShape for any forearm length: the hand's direction normalised by its own length. */
const armShapeAny = (a) => {
  const len = Math.hypot(a.hand[0] - a.elbow[0], a.hand[1] - a.elbow[1]);
  const d = [(a.hand[0] - a.elbow[0]) / len, (a.hand[1] - a.elbow[1]) / len];
  const palm = [a.hand[0] + 8 * d[0], a.hand[1] + 8 * d[1]];
  const up = [d[1] * Math.sign(d[0]), -Math.abs(d[0])];
  const thumbTip = [palm[0] + 4 * d[0] + 11 * up[0], palm[1] + 4 * d[1] + 11 * up[1]];
  return union(
    capsule(a.shoulder, a.elbow, 12, 11),
    capsule(a.elbow, a.hand, 11, 9.5),
    circle(palm[0], palm[1], 12.5),
    capsule(palm, thumbTip, 5.5, 4.5),
  );
};
const sleeveAny = (a) => {
  const e = [lerp(a.shoulder[0], a.elbow[0], 0.55), lerp(a.shoulder[1], a.elbow[1], 0.55)];
  return capsule(a.shoulder, e, 15, 14);
};

/** Six arms: three a side from shoulders stacked down the shirt, the default's head, shirt and legs. */
function sixArms() {
  const ANGLES = [-25 * DEG, 10 * DEG, 45 * DEG]; // raised, nearly level, down
  const YS = [172, 196, 222];
  const arms = { R: [], L: [] };
  for (const [k, s] of [
    ['R', -1],
    ['L', 1],
  ])
    for (let n = 0; n < 3; n++) arms[k].push(armAt([180 + s * 36, YS[n]], s, ANGLES[n], 52, 46));
  const skeleton = [
    ['root', mid(LEG.R.hip, LEG.L.hip), null],
    ['hip', mid(LEG.R.hip, LEG.L.hip), 'root'],
    ['torso', [180, YS[0]], 'hip'],
    ['neck', [HEAD.x, HEAD.y], 'torso'],
  ];
  for (const [k, side] of [
    ['R', 'right'],
    ['L', 'left'],
  ])
    arms[k].forEach((a, n) => {
      skeleton.push(
        [`${side}_shoulder${n + 1}`, a.shoulder, 'torso'],
        [`${side}_elbow${n + 1}`, a.elbow, `${side}_shoulder${n + 1}`],
        [`${side}_hand${n + 1}`, a.hand, `${side}_elbow${n + 1}`],
      );
    });
  for (const [k, side] of [
    ['R', 'right'],
    ['L', 'left'],
  ])
    skeleton.push(
      [`${side}_hip`, LEG[k].hip, 'root'],
      [`${side}_knee`, LEG[k].knee, `${side}_hip`],
      [`${side}_foot`, LEG[k].foot, `${side}_knee`],
    );
  const all = [...arms.R, ...arms.L];
  const layers = [
    ...['R', 'L'].map((s) => [legShape(LEG[s]), SKIN, OUTLINE, true]),
    ...['R', 'L'].map((s, k) => [shoe(LEG[s], k ? 1 : -1), SHOE, OUTLINE, true]),
    [polygon(SHORTS_POLY, 3), SHORTS, OUTLINE, true],
    ...all.map((a) => [armShapeAny(a), SKIN, OUTLINE, true]),
    ...all.map((a) => [sleeveAny(a), SHIRT, OUTLINE, true]),
    ...LAYERS.slice(9), // neck, shirt, star, ears, head, hair, face: the default's
  ];
  return { skeleton, layers };
}

/** A spotted animal drawn side on, facing image right: body, neck and head, tail, four legs. */
function fourLegs() {
  const FUR = [214, 160, 92];
  const SPOT = [140, 92, 52];
  const HOOF = [70, 56, 50];
  const NOSE = [60, 40, 40];
  const legAt = (x, y, bend) => ({ hip: [x, y], knee: [x + bend, y + 58], foot: [x, y + 116] });
  const legs = {
    right_b: legAt(132, 196, -4),
    left_b: legAt(178, 200, 4),
    right_f: legAt(306, 196, -4),
    left_f: legAt(352, 200, 4),
  };
  const head = { x: 414, y: 92, r: 36 };
  const skeleton = [
    ['root', [156, 176], null],
    ['hip', [156, 176], 'root'],
    ['torso', [330, 172], 'hip'],
    ['neck', [head.x, head.y], 'torso'],
    ['tail', [56, 110], 'root'],
  ];
  for (const [key, l] of Object.entries(legs)) {
    const [side, fb] = key.split('_');
    skeleton.push(
      [`${side}_hip_${fb}`, l.hip, fb === 'f' ? 'torso' : 'root'],
      [`${side}_knee_${fb}`, l.knee, `${side}_hip_${fb}`],
      [`${side}_foot_${fb}`, l.foot, `${side}_knee_${fb}`],
    );
  }
  const legShape4 = (l) => union(capsule(l.hip, l.knee, 15, 13), capsule(l.knee, l.foot, 13, 11));
  const hoof = (l) => capsule([l.foot[0] - 6, l.foot[1] + 6], [l.foot[0] + 10, l.foot[1] + 6], 9, 9);
  const body = union(capsule([130, 176], [340, 170], 50), circle(236, 178, 56));
  const layers = [
    [capsule([110, 160], [56, 110], 10, 5), FUR, OUTLINE, true], // tail
    ...[legs.left_b, legs.left_f].map((l) => [legShape4(l), SPOT, OUTLINE, true]), // far legs, darker
    ...[legs.left_b, legs.left_f].map((l) => [hoof(l), HOOF, OUTLINE, true]),
    [capsule([330, 160], [head.x - 8, head.y + 10], 26, 20), FUR, OUTLINE, true], // neck
    [body, FUR, OUTLINE, true],
    ...[legs.right_b, legs.right_f].map((l) => [legShape4(l), FUR, OUTLINE, true]),
    ...[legs.right_b, legs.right_f].map((l) => [hoof(l), HOOF, OUTLINE, true]),
    [circle(head.x, head.y, head.r), FUR, OUTLINE, true],
    [capsule([head.x + 20, head.y + 14], [head.x + 44, head.y + 18], 15, 13), FUR, OUTLINE, true], // muzzle
    [capsule([head.x - 16, head.y - 26], [head.x - 24, head.y - 56], 9, 4), FUR, OUTLINE, true], // ear
    [circle(206, 160, 16), SPOT, 0, true],
    [circle(268, 196, 12), SPOT, 0, true],
    [circle(180, 206, 9), SPOT, 0, true],
    [circle(head.x + 6, head.y - 8, 5.5), INK, 0, false], // eye
    [circle(head.x + 7.5, head.y - 10, 1.6), WHITE, 0, false],
    [circle(head.x + 54, head.y + 14, 4.5), NOSE, 0, false],
    [arc(head.x + 38, head.y + 20, 10, 40 * DEG, 120 * DEG, 2.6), INK, 0, true], // mouth
  ];
  return { skeleton, layers };
}

const FIG = FIGURE === 'six-arms' ? sixArms() : FIGURE === 'four-legs' ? fourLegs() : null;
const FIG_SKELETON = FIG ? FIG.skeleton : SKELETON;
const FIG_LAYERS = FIG ? FIG.layers : LAYERS;

const texture = Buffer.alloc(W * H * 4);
const mask = Buffer.alloc(W * H);
for (let y = 0; y < H; y++)
  for (let x = 0; x < W; x++) {
    const px = x + 0.5;
    const py = y + 0.5;
    const wob = wobble(px, py);
    let c = [...WHITE];
    const paint = (col, a) => {
      if (a > 0) for (let k = 0; k < 3; k++) c[k] += (col[k] - c[k]) * a;
    };
    let inside = false;
    for (const [f, col, outline, wobbly] of FIG_LAYERS) {
      const d = f(px, py) + (wobbly ? wob : 0);
      if (d > 1) continue;
      if (outline > 0) {
        paint(INK, clamp01(0.5 - d));
        if (d < 0.5) inside = true; // any ink: the outline's anti-aliased rim is drawing too
      }
      paint(col, clamp01(0.5 - (d + outline)));
    }
    c = c.map((v) => Math.round(v));
    const o = 4 * (y * W + x);
    texture[o] = c[0];
    texture[o + 1] = c[1];
    texture[o + 2] = c[2];
    texture[o + 3] = 255;
    mask[y * W + x] = inside ? 255 : 0;
  }

// ---------------------------------------------------------------- checks: joints inside, one piece, no holes
/**
 * The 4-connected components of pixels with mask value `v` (with `border`, only those not touching the image's
 * border): their number and the first pixel of the first.
 */
function components(v, border) {
  const seen = new Uint8Array(W * H);
  let n = 0;
  let first = null;
  const stack = [];
  for (let s = 0; s < W * H; s++) {
    if (seen[s] || mask[s] !== v) continue;
    let touches = false;
    seen[s] = 1;
    stack.push(s);
    while (stack.length) {
      const p = stack.pop();
      const x = p % W;
      const y = (p - x) / W;
      if (x === 0 || y === 0 || x === W - 1 || y === H - 1) touches = true;
      for (const [nx, ny] of [
        [x - 1, y],
        [x + 1, y],
        [x, y - 1],
        [x, y + 1],
      ]) {
        if (nx < 0 || ny < 0 || nx >= W || ny >= H) continue;
        const q = ny * W + nx;
        if (!seen[q] && mask[q] === v) {
          seen[q] = 1;
          stack.push(q);
        }
      }
    }
    if (!border || !touches) {
      n++;
      first ??= [s % W, Math.floor(s / W)];
    }
  }
  return { n, first };
}
const pieces = components(255, false);
if (pieces.n !== 1) throw new Error(`the drawing is in ${pieces.n} pieces`);
const holes = components(0, true);
if (holes.n !== 0) throw new Error(`the drawing has ${holes.n} holes, the first at (${holes.first})`);
for (const [name, [x, y]] of FIG_SKELETON)
  if (!mask[y * W + x]) throw new Error(`joint ${name} (${x}, ${y}) is outside the drawing`);

const cfg = [`height: ${H}`, 'skeleton:'];
for (const [name, [x, y], parent] of FIG_SKELETON)
  cfg.push('- loc:', `  - ${x}`, `  - ${y}`, `  name: ${name}`, `  parent: ${parent ?? 'null'}`);
cfg.push(`width: ${W}`, '');

// ================================================================ the recording
// A 2-D skeleton in pixels of a 640x480 image (y down), the person facing the camera: their LEFT is image
// RIGHT (+x). Proportions of a ~1.7 m adult, 380 px tall (head top y 70, soles y ~446): shoulders 88 px
// wide, torso (shoulder centre -> hip centre) 113, upper arm 70, forearm 56, thigh 90, shin 93.
const IMG = { width: 640, height: 480 };
const FPS = 30;
const FRAMES = 180;
const NO_PERSON = [120, 134]; // frames, inclusive: the person stepped out of view (no landmarks)
const BACK = 135; // the person is back, standing in the rest pose with a gentle sway
const CHEST_UP = 150; // from this frame on: a chest-up framing, the legs out of the image
const LEGS = [25, 26, 27, 28, 29, 30, 31, 32]; // knees, ankles, heels, foot index
const SWAY = 6 * DEG; // the upper body's lean from BACK on (one period to the end)
const CX = 320;
const HIPS_Y = 252;
const TORSO = 113;
const NECK_HEAD = 44; // shoulder centre -> ear midpoint
const SH_HALF = 44;
const HIP_HALF_P = 26;
const UA = 70;
const FA = 56;
const THIGH = 90;
const SHIN = 93;
const ANKLE_HALF = 34;
const ANKLE_Y = 433;
const M_PER_PX = 1.7 / 380;
const OCCLUDED = [70, 84]; // frames, inclusive: the left forearm is hidden
const HIDDEN = [13, 15, 17, 19, 21]; // left elbow, wrist, pinky, index, thumb

/** Cosine ease of u in [0, 1] (zero speed at both ends). */
const ease = (u) => (1 - Math.cos(Math.PI * clamp01(u))) / 2;
/** From a to b over [t0, t1] (seconds), eased. */
const go = (t, t0, t1, a, b) => lerp(a, b, ease((t - t0) / (t1 - t0)));
/** 0 -> 1 -> 0 over [t0, t1], smooth. */
const bump = (t, t0, t1) =>
  t <= t0 || t >= t1 ? 0 : (1 - Math.cos((2 * Math.PI * (t - t0)) / (t1 - t0))) / 2;

const REST_UA = 18; // degrees from straight down, outwards
const REST_FA = 12;
/** Arm angles (degrees from hanging straight down, outwards; 90 = horizontal, 180 = straight up) at time t. */
function armAngles(side, t) {
  let ua = REST_UA;
  let fa = REST_FA;
  if (side === 'R') {
    if (t < 0.4) {
      ua = go(t, 0, 0.4, REST_UA, 150);
      fa = go(t, 0, 0.4, REST_FA, 168);
    } else if (t < 1) {
      // the wave: the forearm swings about the raised elbow (146-190 degrees: from out to just past
      // vertical, not across the head), two waves of 0.275 s
      const env = t < 0.95 ? Math.sin((Math.PI * (t - 0.4)) / 0.55) : 0;
      ua = 150 + 4 * env * Math.sin((2 * Math.PI * (t - 0.4)) / 0.275);
      fa = 168 + 22 * env * Math.sin((2 * Math.PI * (t - 0.4)) / 0.275);
    } else if (t < 1.6) {
      ua = go(t, 1, 1.6, 150, REST_UA);
      fa = go(t, 1, 1.6, 168, REST_FA);
    }
  }
  if (t >= 3 && t < 4) {
    ua = go(t, 3, 3.5, REST_UA, 90);
    fa = go(t, 3, 3.5, REST_FA, 90);
  }
  return [ua * DEG, fa * DEG];
}

/** Two-bone IK in 2-D: the knee between hip h and ankle a, bent towards side s (-1: -x, +1: +x). */
function knee(h, a, s) {
  const dx = a[0] - h[0];
  const dy = a[1] - h[1];
  const d = Math.min(Math.hypot(dx, dy), THIGH + SHIN - 1e-6);
  const along = (THIGH * THIGH - SHIN * SHIN + d * d) / (2 * d);
  const off = Math.sqrt(Math.max(0, THIGH * THIGH - along * along));
  const ux = dx / d;
  const uy = dy / d;
  // perpendicular with the chosen x sign
  let px = -uy;
  let py = ux;
  if (Math.sign(px) !== s) {
    px = -px;
    py = -py;
  }
  return [h[0] + along * ux + off * px, h[1] + along * uy + off * py];
}

/** The 33 clean landmark positions (px) at time t, and the upper body's lean (radians). */
function skeletonAt(t) {
  const drop = 52 * bump(t, 2, 3);
  // towards the person's left (image right), about the hips; from BACK a slow sway to both sides
  const t0 = BACK / FPS;
  const lean =
    t < t0 ? 14 * DEG * bump(t, 1, 2) : SWAY * Math.sin((2 * Math.PI * (t - t0)) / (FRAMES / FPS - t0));
  const hc = [CX, HIPS_Y + drop];
  const cl = Math.cos(lean);
  const sl = Math.sin(lean);
  /** Upper-body point from torso-frame offsets (x right, y down, origin at the hip centre). */
  const up = (ox, oy) => [hc[0] + cl * ox - sl * oy, hc[1] + sl * ox + cl * oy];
  const P = new Array(33);
  const headC = [0, -TORSO - NECK_HEAD];
  const face = (ox, oy) => up(headC[0] + ox, headC[1] + oy);
  P[0] = face(0, 5); // nose
  P[1] = face(5, -3); // left eye inner (person's left = +x)
  P[2] = face(9, -3);
  P[3] = face(13, -3);
  P[4] = face(-5, -3);
  P[5] = face(-9, -3);
  P[6] = face(-13, -3);
  P[7] = face(19, 0); // left ear
  P[8] = face(-19, 0);
  P[9] = face(6, 13); // mouth left
  P[10] = face(-6, 13);
  for (const [side, s, sh, el, wr, pinky, index, thumb] of [
    ['L', 1, 11, 13, 15, 17, 19, 21],
    ['R', -1, 12, 14, 16, 18, 20, 22],
  ]) {
    const [ua, fa] = armAngles(side, t);
    const so = [s * SH_HALF, -TORSO];
    const eo = [so[0] + s * UA * Math.sin(ua), so[1] + UA * Math.cos(ua)];
    const fd = [s * Math.sin(fa), Math.cos(fa)];
    const wo = [eo[0] + FA * fd[0], eo[1] + FA * fd[1]];
    // hand frame: along the forearm, and across it towards the body's midline when the arm hangs
    const n = [-s * fd[1], s * fd[0]];
    const hand = (a, b) => up(wo[0] + a * fd[0] + b * n[0], wo[1] + a * fd[1] + b * n[1]);
    P[sh] = up(...so);
    P[el] = up(...eo);
    P[wr] = up(...wo);
    P[pinky] = hand(16, -5);
    P[index] = hand(19, 4);
    P[thumb] = hand(9, 9);
  }
  for (const [s, hip, kn, an, heel, toe] of [
    [1, 23, 25, 27, 29, 31],
    [-1, 24, 26, 28, 30, 32],
  ]) {
    const h = [hc[0] + s * HIP_HALF_P, hc[1]];
    const a = [CX + s * ANKLE_HALF, ANKLE_Y];
    P[hip] = h;
    P[kn] = knee(h, a, s);
    P[an] = a;
    P[heel] = [a[0] - s * 1, a[1] + 9];
    P[toe] = [a[0] + s * 7, a[1] + 13];
  }
  return P;
}

/** Depth (metres, negative = towards the camera) per landmark: small, as MediaPipe's. */
const Z_M = [
  -0.1, -0.09, -0.09, -0.09, -0.09, -0.09, -0.09, -0.02, -0.02, -0.08, -0.08, 0, 0, -0.03, -0.03, -0.06,
  -0.06, -0.07, -0.07, -0.08, -0.08, -0.07, -0.07, 0, 0, -0.03, -0.03, 0.02, 0.02, 0.06, 0.06, -0.08, -0.08,
];

const rec = mulberry32(0x9a11);
const noise = gaussian(rec);
const phase = Array.from({ length: 33 }, () => [2 * Math.PI * rec(), 2 * Math.PI * rec(), 2.2 + 1.6 * rec()]);
const r = (v, d) => Number(v.toFixed(d)); // JSON writes -0 as 0
const frames = [];
let held = null;
let heldWorld = null;
for (let f = 0; f < FRAMES; f++) {
  const t = f / FPS;
  if (f >= NO_PERSON[0] && f <= NO_PERSON[1]) {
    frames.push({ timestampMs: Math.round((f * 1000) / FPS), landmarks: [], worldLandmarks: [] });
    continue;
  }
  const P = skeletonAt(t);
  const chestUp = f >= CHEST_UP;
  const hidden = f >= OCCLUDED[0] && f <= OCCLUDED[1];
  // image positions with ~1 px Gaussian noise; world: the same in metres about the hip centre
  const img = P.map(([x, y]) => [x + noise(), y + noise()]);
  // chest-up: the legs are out of the image; the model still guesses them, ABOVE the hips (knees 25-40 px,
  // ankles, heels and feet 40-70 px), close to the hips' x, jittering: the junk of a webcam on a desk
  if (chestUp)
    for (const [s, hip, kn, an, heel, toe] of [
      [1, 23, 25, 27, 29, 31],
      [-1, 24, 26, 28, 30, 32],
    ]) {
      const [hx, hy] = img[hip];
      const up = (lo, hi, mean) => hy - Math.min(hi, Math.max(lo, mean + 2.5 * noise()));
      const a = [hx + s * 6 + 2 * noise(), up(40, 70, 55)];
      img[kn] = [hx + s * 4 + 2 * noise(), up(25, 40, 32)];
      img[an] = a;
      img[heel] = [a[0] - s * 1 + noise(), Math.min(hy - 40, a[1] + 4 + noise())];
      img[toe] = [a[0] + s * 7 + noise(), Math.max(hy - 70, a[1] - 8 + noise())];
    }
  const hipC = [(P[23][0] + P[24][0]) / 2, (P[23][1] + P[24][1]) / 2];
  const world = img.map(([x, y]) => [(x - hipC[0]) * M_PER_PX, (y - hipC[1]) * M_PER_PX]);
  // hidden landmarks: the model's guess stays at the last seen value (image and world), plus noise
  if (f === OCCLUDED[0] - 1) {
    held = HIDDEN.map((k) => img[k]);
    heldWorld = HIDDEN.map((k) => world[k]);
  }
  if (hidden)
    HIDDEN.forEach((k, j) => {
      img[k] = [held[j][0] + noise(), held[j][1] + noise()];
      world[k] = [heldWorld[j][0] + noise() * M_PER_PX, heldWorld[j][1] + noise() * M_PER_PX];
    });
  const landmarks = [];
  const worldLandmarks = [];
  for (let k = 0; k < 33; k++) {
    const [p0, p1, period] = phase[k];
    const junk = chestUp && LEGS.includes(k);
    const vis =
      (hidden && HIDDEN.includes(k)) || junk ? 0.05 : 0.945 + 0.04 * Math.sin((2 * Math.PI * t) / period + p0);
    const pres = junk ? 0.05 : 0.97 + 0.02 * Math.sin((2 * Math.PI * t) / (1.3 * period) + p1);
    const z = Z_M[k] + 0.002 * noise();
    // resolution: x, y 4 decimals (0.064 px of 640), z 3, visibility and presence 2; world x, y 0.1 mm, z 1 mm
    landmarks.push({
      x: r(img[k][0] / IMG.width, 4),
      y: r(img[k][1] / IMG.height, 4),
      z: r(z / M_PER_PX / IMG.width, 3),
      visibility: r(vis, 2),
      presence: r(pres, 2),
    });
    worldLandmarks.push({ x: r(world[k][0], 4), y: r(world[k][1], 4), z: r(z, 3), visibility: r(vis, 2) });
  }
  frames.push({ timestampMs: Math.round((f * 1000) / FPS), landmarks, worldLandmarks });
}
const recording = `{"image":${JSON.stringify(IMG)},"frames":[\n${frames.map((fr) => JSON.stringify(fr)).join(',\n')}\n]}\n`;

// ---------------------------------------------------------------- write
const png = (data, colorType) =>
  PNG.sync.write(
    { width: W, height: H, data },
    {
      colorType,
      inputColorType: colorType,
      bitDepth: 8,
      deflateLevel: 9,
      deflateStrategy: 3,
      filterType: -1,
    },
  );
fs.mkdirSync(outDir, { recursive: true });
const files = [
  ['texture.png', png(texture, 6)],
  ['mask.png', png(mask, 0)],
  ['char_cfg.yaml', cfg.join('\n')],
  ...(FIG ? [] : [['recording.json', recording]]),
];
for (const [name, bytes] of files) fs.writeFileSync(path.join(outDir, name), bytes);
console.log(
  `wrote ${files.map(([n, b]) => `${n} (${Buffer.byteLength(b)} bytes)`).join(', ')} to ${path.relative(process.cwd(), outDir) || '.'}`,
);
