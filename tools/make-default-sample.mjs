#!/usr/bin/env node
// Authors the embedded default sample (CC0, made by this project) in TsProject/assets/default:
//   default-walk.bvh    a keyframed walk on an OptiTrack Motive skeleton (cm, Y up, faces +Z, left = +X)
//   default-avatar.glb  a differently proportioned, A-posed, skinned humanoid (glTF 2.0, metres)
//   README.md           what they are
// Deterministic: no randomness, no clock; the same bytes on every run.
// Usage: node tools/make-default-sample.mjs [--out <dir>]
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(root, 'TsProject/package.json'));
const { Document, NodeIO } = require('@gltf-transform/core');
const { quat } = require('gl-matrix');

// ---------------------------------------------------------------- small maths (quaternions [x, y, z, w])
const DEG = Math.PI / 180;
const qAxis = (ax, ay, az, a) => [ax * Math.sin(a / 2), ay * Math.sin(a / 2), az * Math.sin(a / 2), Math.cos(a / 2)];
const qX = (a) => qAxis(1, 0, 0, a);
const qY = (a) => qAxis(0, 1, 0, a);
const qZ = (a) => qAxis(0, 0, 1, a);
const qMul = (a, b) => [
  a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
  a[3] * b[1] + a[1] * b[3] + a[2] * b[0] - a[0] * b[2],
  a[3] * b[2] + a[2] * b[3] + a[0] * b[1] - a[1] * b[0],
  a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
];
const qMulN = (...qs) => qs.reduce(qMul);
const qConj = (q) => [-q[0], -q[1], -q[2], q[3]];
/** q^t for a unit quaternion: the same axis, t times the angle (splits a rotation over several joints). */
function qPow(q, t) {
  const s = Math.hypot(q[0], q[1], q[2]);
  if (s < 1e-12) return [0, 0, 0, 1];
  const a = 2 * Math.atan2(s, q[3]) * t;
  return qAxis(q[0] / s, q[1] / s, q[2] / s, a);
}
/** Rotate vector v by q: the vector part of q v q*. */
function qRot(q, v) {
  const [x, y, z, w] = q;
  const tx = 2 * (y * v[2] - z * v[1]);
  const ty = 2 * (z * v[0] - x * v[2]);
  const tz = 2 * (x * v[1] - y * v[0]);
  return [v[0] + w * tx + (y * tz - z * ty), v[1] + w * ty + (z * tx - x * tz), v[2] + w * tz + (x * ty - y * tx)];
}
const add = (a, b) => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
const sub = (a, b) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const scale = (a, s) => [a[0] * s, a[1] * s, a[2] * s];
const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const norm = (a) => scale(a, 1 / Math.hypot(a[0], a[1], a[2]));
const lerp = (a, b, t) => a + (b - a) * t;
const lerp3 = (a, b, t) => [lerp(a[0], b[0], t), lerp(a[1], b[1], t), lerp(a[2], b[2], t)];
const smooth = (t) => (t <= 0 ? 0 : t >= 1 ? 1 : t * t * (3 - 2 * t)); // cubic ease, zero slope at both ends
/** Quaternion of the rotation whose matrix has columns x, y, z (orthonormal, right-handed). */
const qFromBasis = (x, y, z) => quat.fromMat3([0, 0, 0, 1], [...x, ...y, ...z]); // gl-matrix: column-major
/**
 * BVH "Zrotation Xrotation Yrotation" angles in degrees of q, i.e. R = Rz(z) Rx(x) Ry(y). From the
 * matrix of that product: m21 = sin x, m01 = -sin z cos x, m11 = cos z cos x, m20 = -cos x sin y, m22 = cos x cos y.
 */
function eulerZXY(q) {
  const [x, y, z, w] = q;
  const m01 = 2 * (x * y - z * w);
  const m11 = 1 - 2 * (x * x + z * z);
  const m20 = 2 * (x * z - y * w);
  const m21 = 2 * (y * z + x * w);
  const m22 = 1 - 2 * (x * x + y * y);
  const rx = Math.atan2(m21, Math.hypot(m01, m11));
  return [Math.atan2(-m01, m11) / DEG, rx / DEG, Math.atan2(-m20, m22) / DEG];
}

// ---------------------------------------------------------------- the source skeleton (BVH, centimetres)
// Proportions of a 1.75 m adult from Drillis & Contini's segment-length fractions of body height H
// (as tabulated in D. A. Winter, "Biomechanics and Motor Control of Human Movement", 4th ed., Wiley 2009,
// Fig. 4.1): hip joint 0.530H, knee 0.285H, ankle 0.039H, shoulder 0.818H, upper arm 0.186H,
// forearm 0.146H, hand 0.108H, foot length 0.152H, shoulder width 0.259H. Rounded to whole cm.
// T-pose: every rest rotation is the identity, arms along +-X. Names are OptiTrack Motive's 21 segments
// (/work/shared/NATNET.md section 7.1), listed in depth-first order as the BVH writes them.
const SRC = [
  // name, parent, offset (cm), end-site offset for leaves
  ['Hip', null, [0, 0, 0]],
  ['Ab', 'Hip', [0, 8, 0]],
  ['Chest', 'Ab', [0, 20, 0]],
  ['Neck', 'Chest', [0, 24, 0]],
  ['Head', 'Neck', [0, 10, 0], [0, 18, 0]],
  ['LShoulder', 'Chest', [3, 19, 0]],
  ['LUArm', 'LShoulder', [16, 1, 0]],
  ['LFArm', 'LUArm', [30, 0, 0]],
  ['LHand', 'LFArm', [25, 0, 0], [18, 0, 0]],
  ['RShoulder', 'Chest', [-3, 19, 0]],
  ['RUArm', 'RShoulder', [-16, 1, 0]],
  ['RFArm', 'RUArm', [-30, 0, 0]],
  ['RHand', 'RFArm', [-25, 0, 0], [-18, 0, 0]],
  ['LThigh', 'Hip', [9, -3, 0]],
  ['LShin', 'LThigh', [0, -43, 0]],
  ['LFoot', 'LShin', [0, -42, 0]],
  ['LToe', 'LFoot', [0, -7, 13], [0, 0, 6]],
  ['RThigh', 'Hip', [-9, -3, 0]],
  ['RShin', 'RThigh', [0, -43, 0]],
  ['RFoot', 'RShin', [0, -42, 0]],
  ['RToe', 'RFoot', [0, -7, 13], [0, 0, 6]],
];
const OFF = Object.fromEntries(SRC.map(([n, , o]) => [n, o]));
const THIGH = 43; // LShin offset length
const SHIN = 42; // LFoot offset length
const ANKLE_TO_BALL = [0, -7, 13]; // LToe offset: the ball of the foot (toe joint) is on the floor at rest
const ANKLE_TO_HEEL = [0, -7, -5]; // heel contact point (not a joint)

// ---------------------------------------------------------------- the walk model
// Gait cycle timing for one leg, as a fraction of the stride (heel strike = 0), from J. Perry &
// J. M. Burnfield, "Gait Analysis: Normal and Pathological Function", 2nd ed., SLACK 2010, ch. 2:
// loading response 0-10% (heel rocker until foot flat), mid stance 10-30%, terminal stance 30-50%
// (heel rise), pre-swing 50-60% (toe off at 60%), swing 60-100%. So stance ~60%, swing ~40%, and two
// double-support periods of ~10% each. The right leg runs half a cycle behind the left.
const FPS = 30;
const FRAMES = 121; // 4 s, frames at t = f / 30
const CYCLE = 1.0; // s per stride: cadence 120 steps/min (Perry & Burnfield: ~113 steps/min free walking)
const SPEED = 120; // cm/s, so the stride is 1.2 m and 4 s hold exactly 4 strides (the take loops)
const STRIDE = SPEED * CYCLE;
const FOOT_FLAT = 0.1;
const HEEL_RISE = 0.31;
const TOE_OFF = 0.6;
const HEEL_STRIKE_PITCH = 15 * DEG; // foot (toes up) at initial contact
const TOE_OFF_PITCH = -35 * DEG; // foot (heel up) at toe off, rolling over the ball with toes flat
const SWING_LIFT = 5; // cm of extra ankle lift at mid swing
const FOOT_X = 7; // cm: feet 14 cm apart, a normal step width (~8-12 cm between heel centres)
const FOOT_Z0 = 0.22 * STRIDE; // where the ankle sits at foot flat, ahead of the hips' mean position at heel strike
// Pelvis motion after the "determinants of gait" (J. B. Saunders, V. T. Inman, H. D. Eberhart, J. Bone
// Joint Surg. 35-A (1953) 543-558): transverse rotation ~4 degrees each way, list (drop on the swing side)
// ~5 degrees, vertical and lateral excursions of a few cm; the centre of mass is highest and slowest at
// mid stance and lowest at double support.
const HIP_HEIGHT = 91.2; // cm, mean height of the Hip joint while walking (standing: 95)
const BOB = 1.5; // cm, half the vertical excursion
const SWAY = 2; // cm, half the lateral excursion (towards the stance leg)
const SURGE = 0.8; // cm, forward speed ripple (slowest at mid stance)
const PELVIS_YAW = 4 * DEG;
const PELVIS_LIST = 4 * DEG;
const THORAX_COUNTER = 0.6; // thorax yaw = -0.6 * pelvis yaw (counter-rotation), split over Ab and Chest
const TRUNK_LEAN = 3 * DEG; // forward lean of the thorax
const ARM_DOWN = 80 * DEG; // upper arm hangs 10 degrees off the body
const ARM_SWING = 14 * DEG; // shoulder flexion/extension amplitude, opposite to the same-side leg
const ELBOW = [22 * DEG, 10 * DEG]; // elbow flexion: mean, amplitude (most bent when the arm is forward)
const LEG_REACH_MAX = 0.995; // the IK target must stay inside the leg's reach
const SIDES = [['L', 1, 0], ['R', -1, 0.5]]; // prefix, sign of +X, phase lag (the right leg is half a cycle behind)

/** Hip (pelvis) world position (cm) and rotation at time t (s). p is the left leg's phase. */
function pelvis(t) {
  const p = t / CYCLE;
  const w = 2 * Math.PI * p;
  const pos = [SWAY * Math.sin(w), HIP_HEIGHT - BOB * Math.cos(2 * w), SPEED * t + SURGE * Math.sin(2 * w)];
  // yaw < 0 brings the left hip forward, as it is at left heel strike; list > 0 raises the left side,
  // dropping the right (swing) side during left stance.
  const yaw = -PELVIS_YAW * Math.cos(w);
  const list = PELVIS_LIST * Math.sin(w);
  return { pos, rot: qMul(qY(yaw), qZ(list)), yaw };
}

/**
 * Foot state during stance at phase p in [0, TOE_OFF] for a foot whose flat ankle position is `flat`:
 * heel rocker (pivot on the heel, foot lowers to flat), foot flat, then heel rise pivoting on the ball
 * with the toes kept flat on the floor, accelerating into push-off (quadratic ease-in, so the foot leaves
 * the floor moving). Returns the ankle position (cm), foot pitch (toes up > 0) and toe pitch (radians).
 */
function stanceFoot(p, flat) {
  if (p < FOOT_FLAT) {
    const pitch = HEEL_STRIKE_PITCH * (1 - smooth(p / FOOT_FLAT));
    const heel = add(flat, ANKLE_TO_HEEL);
    return { ankle: add(heel, qRot(qX(-pitch), scale(ANKLE_TO_HEEL, -1))), pitch, toePitch: pitch };
  }
  const u = Math.max(0, (p - HEEL_RISE) / (TOE_OFF - HEEL_RISE));
  const pitch = TOE_OFF_PITCH * u * u;
  const ball = add(flat, ANKLE_TO_BALL);
  return { ankle: add(ball, qRot(qX(-pitch), scale(ANKLE_TO_BALL, -1))), pitch, toePitch: 0 };
}

/** Cubic Hermite from a (slope ma) to b (slope mb) at s in [0, 1]. */
function hermite(a, ma, b, mb, s) {
  const s2 = s * s;
  const s3 = s2 * s;
  return (2 * s3 - 3 * s2 + 1) * a + (s3 - 2 * s2 + s) * ma + (3 * s2 - 2 * s3) * b + (s3 - s2) * mb;
}

/** Foot state of one leg at time t; `lag` is the leg's phase lag (0 left, 0.5 right), `x` its lateral place. */
function foot(t, lag, x) {
  const c = t / CYCLE - lag;
  const n = Math.floor(c);
  const p = c - n;
  const flat = (k) => [x, -ANKLE_TO_BALL[1], STRIDE * (k + lag) + FOOT_Z0];
  if (p <= TOE_OFF) return stanceFoot(p, flat(n));
  // Swing: a cubic Hermite from the toe-off state, leaving with the push-off velocity (by a one-sided
  // difference), to the next heel strike, arriving at rest; plus a lift at mid swing. The toes return
  // from extension to neutral in the first half.
  const s = (p - TOE_OFF) / (1 - TOE_OFF);
  const dp = 1e-4;
  const a = stanceFoot(TOE_OFF, flat(n));
  const a0 = stanceFoot(TOE_OFF - dp, flat(n));
  const b = stanceFoot(0, flat(n + 1));
  const k = (1 - TOE_OFF) / dp; // d/ds = (1 - TOE_OFF) d/dp
  const ankle = [0, 1, 2].map((i) => hermite(a.ankle[i], (a.ankle[i] - a0.ankle[i]) * k, b.ankle[i], 0, s));
  ankle[1] += SWING_LIFT * Math.sin(Math.PI * s) ** 2;
  const pitch = hermite(a.pitch, (a.pitch - a0.pitch) * k, b.pitch, 0, s);
  return { ankle, pitch, toePitch: pitch - TOE_OFF_PITCH * (1 - smooth(s / 0.5)) };
}

/**
 * Analytic two-bone IK (law of cosines) for the leg: thigh and shin world rotations that put the ankle
 * at `ankle` from the hip joint `hip`, the knee bending towards the foot's forward direction (+Z).
 * Each bone's local frame is built from its axis (+Y points from the child joint back to the parent)
 * and the bend direction, so the knee is a pure hinge. Throws when the target is out of reach.
 */
function legIK(hip, ankle, where) {
  const d = sub(ankle, hip);
  const len = Math.hypot(d[0], d[1], d[2]);
  if (len > LEG_REACH_MAX * (THIGH + SHIN)) throw new Error(`${where}: ankle out of reach (${len.toFixed(2)} cm)`);
  const u = scale(d, 1 / len);
  const pole = norm(sub([0, 0, 1], scale(u, u[2])));
  const cosA = (THIGH * THIGH + len * len - SHIN * SHIN) / (2 * THIGH * len);
  const knee = add(hip, add(scale(u, THIGH * cosA), scale(pole, THIGH * Math.sqrt(1 - cosA * cosA))));
  const frame = (from, to) => {
    const y = norm(sub(from, to));
    const z = norm(sub(pole, scale(y, dot(pole, y))));
    return qFromBasis(cross(y, z), y, z);
  };
  return { thigh: frame(hip, knee), shin: frame(knee, ankle) };
}

/** The pose at time t: Hip position (cm) and every joint's local rotation, by name. */
function pose(t) {
  const pel = pelvis(t);
  const local = { Hip: pel.rot };
  // Trunk: the thorax counter-rotates against the pelvis and leans forward; the relative rotation is
  // shared equally by Ab and Chest. The head stays level and facing forward; Neck and Head share that.
  const thorax = qMul(qY(-THORAX_COUNTER * pel.yaw), qX(TRUNK_LEAN));
  const spine = qPow(qMul(qConj(pel.rot), thorax), 0.5);
  local.Ab = spine;
  local.Chest = spine;
  const neck = qPow(qConj(thorax), 0.5);
  local.Neck = neck;
  local.Head = neck;
  // Arms, in the thorax frame: hang down (about Z), swing about the lateral axis opposite to the
  // same-side leg (left arm forward at right heel strike, phase 0.5), elbow bends more when forward.
  // Legs: place the foot, then solve the leg.
  for (const [side, sign, lag] of SIDES) {
    const fwd = -Math.cos(2 * Math.PI * (t / CYCLE - lag)); // +1 when this arm is most forward
    local[`${side}Shoulder`] = [0, 0, 0, 1];
    local[`${side}UArm`] = qMul(qX(-ARM_SWING * fwd), qZ(-sign * ARM_DOWN));
    local[`${side}FArm`] = qY(-sign * (ELBOW[0] + ELBOW[1] * fwd));
    local[`${side}Hand`] = [0, 0, 0, 1];
    const f = foot(t, lag, sign * FOOT_X);
    const hip = add(pel.pos, qRot(pel.rot, OFF[`${side}Thigh`]));
    const { thigh, shin } = legIK(hip, f.ankle, `t=${t.toFixed(4)} s, ${side} leg`);
    const footW = qX(-f.pitch);
    local[`${side}Thigh`] = qMul(qConj(pel.rot), thigh);
    local[`${side}Shin`] = qMul(qConj(thigh), shin);
    local[`${side}Foot`] = qMul(qConj(shin), footW);
    local[`${side}Toe`] = qMul(qConj(footW), qX(-f.toePitch));
  }
  return { hipPos: pel.pos, local };
}

// ---------------------------------------------------------------- BVH text
const num = (v, d) => {
  const s = v.toFixed(d);
  return /^-0\.?0*$/.test(s) ? s.slice(1) : s;
};

function makeBvh() {
  const lines = ['HIERARCHY'];
  const children = (name) => SRC.filter((b) => b[1] === name);
  const write = ([name, parent, off, end], depth) => {
    const ind = '\t'.repeat(depth);
    lines.push(`${ind}${parent ? 'JOINT' : 'ROOT'} ${name}`, `${ind}{`);
    lines.push(`${ind}\tOFFSET ${off.map((v) => num(v, 6)).join(' ')}`);
    lines.push(
      parent
        ? `${ind}\tCHANNELS 3 Zrotation Xrotation Yrotation`
        : `${ind}\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation`,
    );
    for (const c of children(name)) write(c, depth + 1);
    if (end) lines.push(`${ind}\tEnd Site`, `${ind}\t{`, `${ind}\t\tOFFSET ${end.map((v) => num(v, 6)).join(' ')}`, `${ind}\t}`);
    lines.push(`${ind}}`);
  };
  write(SRC[0], 0);
  lines.push('MOTION', `Frames: ${FRAMES}`, `Frame Time: ${num(1 / FPS, 7)}`);
  for (let f = 0; f < FRAMES; f++) {
    const { hipPos, local } = pose(f / FPS);
    const values = hipPos.map((v) => num(v, 4));
    for (const [name] of SRC) for (const a of eulerZXY(local[name])) values.push(num(a, 4));
    lines.push(values.join(' '));
  }
  return `${lines.join('\n')}\n`;
}

// ---------------------------------------------------------------- the target avatar (glTF, metres)
// About 1.6 m tall with relatively longer legs (hip joint at 0.556 H vs 0.526 H in the source) and
// shorter arms (upper arm + forearm 0.28 H vs 0.31 H). A-pose: the upper arms' rest rotations turn them
// 40 degrees down from horizontal; every other rest rotation is the identity. Bones point along their
// parent-to-child offsets; arm and finger chains run along the upper arm's local +-X.
const A_POSE = 40 * DEG;
const DST = [
  // name, parent, translation (m, parent frame), rotation
  ['Hips', null, [0, 0.94, 0]],
  ['Spine', 'Hips', [0, 0.08, 0]],
  ['Chest', 'Spine', [0, 0.12, 0]],
  ['UpperChest', 'Chest', [0, 0.12, 0]],
  ['Neck', 'UpperChest', [0, 0.12, 0]],
  ['Head', 'Neck', [0, 0.08, 0]],
];
for (const [S, s] of [['Left', 1], ['Right', -1]]) {
  DST.push(
    [`${S}Shoulder`, 'UpperChest', [s * 0.02, 0.09, 0]],
    [`${S}Arm`, `${S}Shoulder`, [s * 0.13, 0, 0], qZ(-s * A_POSE)],
    [`${S}ForeArm`, `${S}Arm`, [s * 0.24, 0, 0]],
    [`${S}Hand`, `${S}ForeArm`, [s * 0.21, 0, 0]],
    [`${S}HandThumb1`, `${S}Hand`, [s * 0.02, -0.01, 0.025]],
    [`${S}HandThumb2`, `${S}HandThumb1`, [s * 0.02, 0, 0.02]],
    [`${S}HandThumb3`, `${S}HandThumb2`, [s * 0.018, 0, 0.015]],
    [`${S}HandIndex1`, `${S}Hand`, [s * 0.08, 0, 0.02]],
    [`${S}HandIndex2`, `${S}HandIndex1`, [s * 0.035, 0, 0]],
    [`${S}HandIndex3`, `${S}HandIndex2`, [s * 0.025, 0, 0]],
    [`${S}UpLeg`, 'Hips', [s * 0.085, -0.05, 0]],
    [`${S}Leg`, `${S}UpLeg`, [0, -0.42, 0]],
    [`${S}Foot`, `${S}Leg`, [0, -0.41, 0]],
    [`${S}ToeBase`, `${S}Foot`, [0, -0.05, 0.11]],
  );
}
const PREFIX = 'kind:';

/** Rest world rotation and position of every avatar bone (parents come first in DST). */
function restWorldDst() {
  const world = {};
  for (const [name, parent, t, r = [0, 0, 0, 1]] of DST) {
    const p = parent ? world[parent] : { rot: [0, 0, 0, 1], pos: [0, 0, 0] };
    world[name] = { rot: qMul(p.rot, r), pos: add(p.pos, qRot(p.rot, t)) };
  }
  return world;
}

/** A box with corners c[0..7] (bit 0: +a, bit 1: +b, bit 2: +axis end): 6 faces, 24 vertices, flat normals. */
function pushBox(mesh, joint, corners) {
  const faces = [
    [0, 2, 6, 4],
    [1, 5, 7, 3],
    [0, 4, 5, 1],
    [2, 3, 7, 6],
    [0, 1, 3, 2],
    [4, 6, 7, 5],
  ];
  const centre = scale(corners.reduce(add), 1 / 8);
  for (let f of faces) {
    let n = norm(cross(sub(corners[f[1]], corners[f[0]]), sub(corners[f[2]], corners[f[0]])));
    const fc = scale(f.map((i) => corners[i]).reduce(add), 1 / 4);
    if (dot(n, sub(fc, centre)) < 0) {
      f = [...f].reverse(); // keep counter-clockwise winding seen from outside
      n = scale(n, -1);
    }
    const base = mesh.pos.length / 3;
    for (const i of f) {
      mesh.pos.push(...corners[i]);
      mesh.nrm.push(...n);
      mesh.jnt.push(joint, 0, 0, 0);
      mesh.wgt.push(1, 0, 0, 0);
    }
    mesh.idx.push(base, base + 1, base + 2, base, base + 2, base + 3);
  }
}

/** Tapered box from p0 to p1 with half widths (w0, d0) at p0 and (w1, d1) at p1; depth along `ref`. */
function segment(mesh, joint, p0, p1, [w0, d0], [w1, d1] = [w0, d0], ref = [0, 0, 1]) {
  const axis = norm(sub(p1, p0));
  const b = norm(sub(ref, scale(axis, dot(ref, axis))));
  const a = cross(b, axis);
  const corners = [];
  for (let i = 0; i < 8; i++) {
    const end = i & 4 ? p1 : p0;
    const [w, d] = i & 4 ? [w1, d1] : [w0, d0];
    corners.push(add(end, add(scale(a, i & 1 ? w : -w), scale(b, i & 2 ? d : -d))));
  }
  pushBox(mesh, joint, corners);
}

/** Axis-aligned box between world corners lo and hi. */
const aabb = (mesh, joint, lo, hi) =>
  pushBox(
    mesh,
    joint,
    Array.from({ length: 8 }, (_, i) => [i & 1 ? hi[0] : lo[0], i & 2 ? hi[1] : lo[1], i & 4 ? hi[2] : lo[2]]),
  );

async function makeGlb() {
  const world = restWorldDst();
  const index = Object.fromEntries(DST.map(([n], i) => [n, i]));
  const P = (n) => world[n].pos;
  const mesh = { pos: [], nrm: [], jnt: [], wgt: [], idx: [] };
  const J = (n) => index[n];
  // Trunk and head.
  aabb(mesh, J('Hips'), [-0.14, 0.86, -0.09], [0.14, 1.02, 0.09]);
  segment(mesh, J('Spine'), P('Spine'), P('Chest'), [0.13, 0.08], [0.13, 0.085]);
  segment(mesh, J('Chest'), P('Chest'), P('UpperChest'), [0.13, 0.085], [0.15, 0.095]);
  segment(mesh, J('UpperChest'), P('UpperChest'), P('Neck'), [0.15, 0.095], [0.12, 0.08]);
  segment(mesh, J('Neck'), P('Neck'), P('Head'), [0.045, 0.045]);
  aabb(mesh, J('Head'), [-0.08, 1.45, -0.1], [0.08, 1.6, 0.1]);
  for (const S of ['Left', 'Right']) {
    const s = S === 'Left' ? 1 : -1;
    segment(mesh, J(`${S}Shoulder`), P(`${S}Shoulder`), P(`${S}Arm`), [0.04, 0.04]);
    segment(mesh, J(`${S}Arm`), P(`${S}Arm`), P(`${S}ForeArm`), [0.045, 0.045], [0.035, 0.035]);
    segment(mesh, J(`${S}ForeArm`), P(`${S}ForeArm`), P(`${S}Hand`), [0.035, 0.035], [0.028, 0.025]);
    segment(mesh, J(`${S}Hand`), P(`${S}Hand`), P(`${S}HandIndex1`), [0.015, 0.04], [0.012, 0.04]);
    const fingers = [
      [`${S}HandIndex1`, `${S}HandIndex2`],
      [`${S}HandIndex2`, `${S}HandIndex3`],
      [`${S}HandIndex3`, null],
      [`${S}HandThumb1`, `${S}HandThumb2`],
      [`${S}HandThumb2`, `${S}HandThumb3`],
      [`${S}HandThumb3`, null],
    ];
    for (const [bone, child] of fingers) {
      const end = child ? P(child) : add(P(bone), scale(norm(sub(P(bone), P(DST[J(bone)][1]))), 0.02));
      segment(mesh, J(bone), P(bone), end, [0.009, 0.009], [0.008, 0.008], [0, 1, 0]);
    }
    segment(mesh, J(`${S}UpLeg`), P(`${S}UpLeg`), P(`${S}Leg`), [0.075, 0.075], [0.055, 0.055]);
    segment(mesh, J(`${S}Leg`), P(`${S}Leg`), P(`${S}Foot`), [0.05, 0.05], [0.04, 0.04]);
    const ankle = P(`${S}Foot`);
    const ball = P(`${S}ToeBase`);
    aabb(mesh, J(`${S}Foot`), [ankle[0] - 0.045, 0, ankle[2] - 0.06], [ankle[0] + 0.045, ankle[1] + 0.03, ball[2]]);
    aabb(mesh, J(`${S}ToeBase`), [ball[0] - 0.045, 0, ball[2]], [ball[0] + 0.045, 0.035, ball[2] + 0.06]);
  }

  const doc = new Document();
  doc.getRoot().getAsset().generator = 'KindRetargeting tools/make-default-sample.mjs';
  const buffer = doc.createBuffer();
  const scene = doc.createScene('Scene');
  doc.getRoot().setDefaultScene(scene);
  const armature = doc.createNode('Armature');
  scene.addChild(armature);
  const nodes = DST.map(([name, , t, r = [0, 0, 0, 1]]) => doc.createNode(PREFIX + name).setTranslation(t).setRotation(r));
  DST.forEach(([, parent], i) => (parent ? nodes[index[parent]] : armature).addChild(nodes[i]));

  // Inverse bind matrices: inverse of each joint's rest world matrix (rotation R, translation p):
  // [R^T, -R^T p], written column-major (glTF 2.0 spec, "Skins").
  const ibm = [];
  for (const [name] of DST) {
    const { rot, pos } = world[name];
    const inv = qConj(rot);
    const cols = [qRot(inv, [1, 0, 0]), qRot(inv, [0, 1, 0]), qRot(inv, [0, 0, 1])];
    const t = scale(qRot(inv, pos), -1);
    ibm.push(...cols[0], 0, ...cols[1], 0, ...cols[2], 0, ...t, 1);
  }
  const acc = (type, array) => doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  const skin = doc.createSkin('kind:Skin').setSkeleton(armature);
  nodes.forEach((n) => skin.addJoint(n));
  skin.setInverseBindMatrices(acc('MAT4', new Float32Array(ibm)));

  const material = doc
    .createMaterial('kind:Body')
    .setBaseColorFactor([0.45, 0.62, 0.85, 1])
    .setMetallicFactor(0)
    .setRoughnessFactor(0.8);
  const prim = doc
    .createPrimitive()
    .setAttribute('POSITION', acc('VEC3', new Float32Array(mesh.pos)))
    .setAttribute('NORMAL', acc('VEC3', new Float32Array(mesh.nrm)))
    .setAttribute('JOINTS_0', acc('VEC4', new Uint8Array(mesh.jnt)))
    .setAttribute('WEIGHTS_0', acc('VEC4', new Float32Array(mesh.wgt)))
    .setIndices(acc('SCALAR', new Uint16Array(mesh.idx)))
    .setMaterial(material);
  const body = doc.createMesh('kind:Body').addPrimitive(prim);
  scene.addChild(doc.createNode('kind:BodyMesh').setMesh(body).setSkin(skin));
  return new NodeIO().writeBinary(doc);
}

// ---------------------------------------------------------------- README and output
const README = `# Default sample (embedded)

Authored by KindRetargeting itself and dedicated to the public domain (CC0 1.0). Generated,
byte for byte reproducibly, by \`node tools/make-default-sample.mjs\` (from the repository root);
do not edit by hand. \`kind retarget\` uses these files when no input is given, so the first
command of the README works without the shared real data.

- \`default-walk.bvh\`: a keyframed walk, ${FRAMES} frames at ${FPS} fps (Frame Time ${num(1 / FPS, 7)}),
  centimetres, Y up, facing +Z, the character's left at +X. OptiTrack Motive skeleton (Hip, Ab, Chest,
  Neck, Head, LShoulder, LUArm, LFArm, LHand, LThigh, LShin, LFoot, LToe and the R side), T-pose rest
  (all rest rotations identity), root with 6 channels (OFFSET 0 0 0: its position channels are the Hip's
  world position), joints ZXY (\`R = Rz Rx Ry\`). ~1.75 m tall.
  The walk goes along +Z at ${SPEED / 100} m/s, ${CYCLE} s per stride: left heel strike at t = 0, 1, 2, 3 s,
  right heel strike half a cycle later; each foot is planted (toe joint fixed on the floor, y = 0)
  from ${FOOT_FLAT * 100}% to ${TOE_OFF * 100}% of its cycle, with a heel rocker before and swing after (legs solved by
  two-bone IK for the designed foot path).
- \`default-avatar.glb\`: a skinned low-poly humanoid (glTF 2.0, metres, Y up, facing +Z, left at +X),
  ~1.6 m tall with relatively longer legs and shorter arms than the walk's skeleton. Its rest pose is
  an A-pose (upper arms 40 degrees below horizontal). Bones are Mixamo-like names with the prefix
  \`kind:\` (kind:Hips ... kind:LeftToeBase, index and thumb fingers) under a root node \`Armature\`.
  One mesh with rigid skinning, one material, no animation.
- \`default-slide.bvh\`: the embedded default of \`kind cleanup\`: \`default-walk.bvh\` with foot sliding
  injected through the root (hips path along +Z stretched by 12%, plus a lateral X sway of 3 cm
  amplitude, period 0.9 s); same hierarchy, channels, 121 frames, Frame Time. Generated by
  \`node tools/make-sliding-sample.mjs\` (deterministic); do not edit by hand.
- \`puppet/\`: the embedded default of the drawing puppet (src/puppet; the puppet page serves it under
  \`/default/\`), an AnimatedDrawings character folder plus a landmark recording. Generated, byte for byte
  reproducibly (a seeded PRNG, no clock), by \`node tools/make-puppet-sample.mjs\`; do not edit by hand.
  - \`texture.png\` (360x480 RGBA, ~33 KB): a child's-drawing style boy designed for this project: round
    head with eyes, cheeks, nose and a smile, brown hair with three tufts, red shirt with a yellow star,
    blue shorts, arms in an A-pose (35 degrees below horizontal, paper between arms and body), legs apart,
    mitten hands, brown shoes. Flat colours with a ~3 px dark outline that wobbles slightly, drawn as
    anti-aliased signed-distance shapes; the paper is opaque white (as a scan).
  - \`mask.png\` (360x480, 8-bit greyscale, ~2 KB): 255 on the drawing (42 269 px, outline and its
    anti-aliased rim included: the texture outside it is exactly white), 0 elsewhere; one piece, no holes.
  - \`char_cfg.yaml\`: the 16 AnimatedDrawings joints (integer px, the points the figure is drawn from):
    root, hip (180, 300); torso (180, 178) = shoulder midpoint; neck (180, 92) = centre of the head;
    right_shoulder (142, 178), right_elbow (90, 215), right_hand (42, 248); left_shoulder (218, 178),
    left_elbow (270, 215), left_hand (318, 248); right_hip (156, 300), right_knee (150, 368),
    right_foot (146, 434); left_hip (204, 300), left_knee (210, 368), left_foot (214, 434). \`left_*\` is
    the character's left (image right). Loads as a 21-joint character; meshes to 466 vertices covering
    99.2 % of the mask.
  - \`recording.json\` (~670 KB): 180 frames (6 s) at 30 fps (timestampMs = round(i * 1000 / 30)) of a
    640x480 image, the recorded landmark format of src/puppet/landmarks.ts: 33 BlazePose landmarks (x, y, z,
    visibility, presence) and 33 world landmarks (x, y, z, visibility) per frame. A synthetic person
    facing the camera (their left at image right), a rigid 2-D skeleton ~380 px tall (shoulders 88 px
    wide, torso 113, upper arm 70, forearm 56, thigh 90, shin 93). 0-0.4 s the right arm rises from the
    side to overhead, 0.4-0.95 s two waves of the forearm about the raised elbow, 1.0-1.6 s back down;
    1-2 s the upper body leans up to 14 degrees towards the person's left about the hip centre and back;
    2-3 s a squat: hips down 52 px at 2.5 s, feet planted, knees bending outwards; 3-3.5 s both arms out
    to the sides, held to 4 s. Occlusion: frames 70-84 the left elbow, wrist, pinky, index and thumb (13,
    15, 17, 19, 21) have visibility 0.05 and stay where frame 69 saw them (plus noise), as the model's
    guess; the pipeline holds them (70-72), fills them from the parent (73-84) and measures them again
    from frame 85. Frames 120-134 (4-4.5 s): no person (the person stepped out of view; \`landmarks\` and
    \`worldLandmarks\` empty): the pipeline holds all 21 joints (120-122), then puts them in the rest pose
    at the last hips (123-134). Frames 135-179: the person is back, standing with the arms at rest and the
    upper body swaying up to 6 degrees to either side (one 1.5 s period); all 21 joints measured again from
    frame 135. Frames 150-179 (5-6 s): a chest-up framing, as a webcam on a desk sees: the leg landmarks
    25-32 (knees, ankles, heels, foot index) have visibility and presence 0.05 and sit where the model
    guesses legs out of frame, above the hips (knees 25-38 px above the hip landmarks, ankles, heels and
    feet 43-70 px, jittering with the noise); the hips (23, 24) stay visible. The pipeline holds the
    knees, ankles and toes (150-152, confidence 0.74 -> 0.47), then fills them from the parent chain
    (153-179: confidence ~0.33, ~0.12, ~0.04) with the offsets last seen standing, so the shins point down
    (knees ~89 px, ankles ~93 px below their parents, never above the hips); hips, spine, neck, head and
    arms stay measured. Over the take the states are measured, held, parent and rest (no child or torso
    fill: the hips are always measured or held). Elsewhere visibility 0.91-0.98 and presence 0.95-0.99
    (smooth, per landmark); image landmarks carry seeded Gaussian noise of 1 px. Stored to 4 decimals for
    normalised x, y (0.064 px of 640), 3 for z, 2 for visibility and presence. World landmarks: the same
    skeleton in metres (1.7 m / 380 px), hip-centred, y down, |z| at most ~0.1 m, x, y to 4 decimals
    (0.1 mm), z to 3; the same visibility.
`;

function main() {
  const i = process.argv.indexOf('--out');
  if (i >= 0 && !process.argv[i + 1]) throw new Error('--out needs a directory');
  const out = i >= 0 ? path.resolve(process.argv[i + 1]) : path.join(root, 'TsProject/assets/default');
  fs.mkdirSync(out, { recursive: true });
  const put = (name, data) => {
    const tmp = path.join(out, `.${name}.tmp`);
    fs.writeFileSync(tmp, data);
    fs.renameSync(tmp, path.join(out, name));
  };
  put('default-walk.bvh', makeBvh());
  return makeGlb().then((glb) => {
    put('default-avatar.glb', glb);
    put('README.md', README);
  });
}

await main();
