/**
 * The puppet's drawing side on synthetic input (no shared data needed): char_cfg.yaml parsing and its
 * errors, masks (alpha, paper photo, empty), the rig's exact identity, a known answer (forearm turned 90
 * degrees: the hand turns about the elbow, the torso stays), mesh and weight invariants, the rasteriser
 * reproducing the texture at rest, properties under random joint rotations, and per-frame allocation.
 */
import * as path from 'node:path';
import fc from 'fast-check';
import {
  buildMesh,
  characterFromAnimatedDrawings,
  characterFromImage,
  computeWeights,
  createJointSet,
  DrawingRig,
  forPixelsInTriangle,
  insideFraction,
  JointStateCode,
  maskFromImage,
  PUPPET_JOINT_COUNT,
  PUPPET_PARENTS,
  parseCharCfg,
  type RgbaImage,
  rasterize,
  skin,
  synthesiseMissingJoints,
  WEIGHT_MODES,
} from '../src/puppet';
import { runAllocProbe } from './helpers/allocProbe';
import {
  armRaiseComparison,
  armsDownCharacter,
  copyJoints,
  J,
  rotateSubtree,
  torsoVertices,
} from './helpers/puppetDrawing';

const CFG = `width: 20
height: 30
skeleton:
- {name: root, loc: [10, 15], parent: null}
- {name: hip, loc: [10, 15], parent: root}
- {name: torso, loc: [10, 10], parent: hip}
- {name: neck, loc: [10, 5], parent: torso}
- {name: right_shoulder, loc: [7, 8], parent: torso}
- {name: right_elbow, loc: [5, 10], parent: right_shoulder}
- {name: right_hand, loc: [3, 12], parent: right_elbow}
- {name: left_shoulder, loc: [13, 8], parent: torso}
- {name: left_elbow, loc: [15, 10], parent: left_shoulder}
- {name: left_hand, loc: [17, 12], parent: left_elbow}
- {name: right_hip, loc: [8, 16], parent: root}
- {name: right_knee, loc: [8, 21], parent: right_hip}
- {name: right_foot, loc: [8, 27], parent: right_knee}
- {name: left_hip, loc: [12, 16], parent: root}
- {name: left_knee, loc: [12, 21], parent: left_hip}
- {name: left_foot, loc: [12, 27], parent: left_knee}
`;

function image(
  w: number,
  h: number,
  fill: (x: number, y: number) => [number, number, number, number],
): RgbaImage {
  const data = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data.set(fill(x, y), 4 * (y * w + x));
  return { width: w, height: h, data };
}
const solidMask = (w: number, h: number) =>
  image(w, h, (x) => (x >= 2 && x < w - 2 ? [255, 255, 255, 255] : [0, 0, 0, 255]));

describe('char_cfg.yaml', () => {
  it('parses width, height and the 16 joints with their lines', () => {
    const cfg = parseCharCfg(CFG, 'c/char_cfg.yaml');
    expect(cfg.width).toBe(20);
    expect(cfg.height).toBe(30);
    expect(cfg.joints).toHaveLength(16);
    expect(cfg.joints[5]).toMatchObject({
      name: 'right_elbow',
      x: 5,
      y: 10,
      parent: 'right_shoulder',
      line: 9,
    });
  });

  it('maps 16 -> 21 joints (left_* = image right) and synthesises Spine, Chest, hand tips and toes as Rest (Head too when not annotated)', () => {
    const tex = image(20, 30, () => [200, 100, 50, 255]);
    const ch = characterFromAnimatedDrawings(
      tex,
      image(20, 30, () => [255, 255, 255, 255]),
      CFG,
      'c',
    );
    const r = ch.restJoints;
    expect([r.x[J('LeftUpperArm')], r.y[J('LeftUpperArm')]]).toEqual([13, 8]);
    expect([r.x[J('RightLowerArm')], r.y[J('RightLowerArm')]]).toEqual([5, 10]);
    // torso (the shoulder midpoint) -> Neck, neck (in the head) -> Head, as ANIMATED_DRAWINGS_JOINT_MAP
    expect([r.x[J('Neck')], r.y[J('Neck')]]).toEqual([10, 10]);
    expect([r.x[J('Head')], r.y[J('Head')]]).toEqual([10, 5]);
    // Spine and Chest at the thirds of Hips -> Neck, as the pose side synthesises them
    expect(r.x[J('Spine')]).toBe(10);
    expect(r.y[J('Spine')]).toBeCloseTo(15 - 5 / 3, 12);
    expect(r.y[J('Chest')]).toBeCloseTo(15 - 10 / 3, 12);
    expect(r.state[J('Hips')]).toBe(JointStateCode.Measured);
    expect(r.state[J('Head')]).toBe(JointStateCode.Measured);
    for (const n of ['Spine', 'Chest', 'LeftHandTip', 'RightHandTip', 'LeftToes', 'RightToes'] as const) {
      expect(r.state[J(n)]).toBe(JointStateCode.Rest);
      expect(r.confidence[J(n)]).toBe(0.5);
    }
    // without a head annotation: walk up from Neck along Chest -> Neck to the mask's edge (all-mask: the
    // limit 1.5 |Neck - Chest| = 2.5 px), and take the middle of that walk: y = 10 - 1.25
    const given = new Uint8Array(21);
    for (const n of [
      'Hips',
      'Neck',
      'LeftUpperArm',
      'LeftLowerArm',
      'LeftHand',
      'RightUpperArm',
      'RightLowerArm',
      'RightHand',
      'LeftUpperLeg',
      'LeftLowerLeg',
      'LeftFoot',
      'RightUpperLeg',
      'RightLowerLeg',
      'RightFoot',
    ] as const)
      given[J(n)] = 1;
    const r2 = createJointSet();
    r2.x.set(r.x);
    r2.y.set(r.y);
    synthesiseMissingJoints(r2, given, ch.mask, 20, 30);
    expect(r2.x[J('Head')]).toBeCloseTo(10, 9);
    expect(r2.y[J('Head')]).toBeCloseTo(8.75, 9);
    expect(r2.state[J('Head')]).toBe(JointStateCode.Rest);
    // the hand tip continues the forearm's direction, 0.6 of its length (the mask reaches further)
    const fore = Math.hypot(2, 2);
    expect(r.x[J('LeftHandTip')] - 17).toBeCloseTo((0.6 * fore) / Math.SQRT2, 0);
  });

  it('names file:line and joint for a bad YAML line and a bad loc; takes a skeleton missing joints as its own', () => {
    const bad = CFG.replace(
      '- {name: neck, loc: [10, 5], parent: torso}',
      '- {name: neck, loc: [10, 5, parent: torso}',
    );
    expect(() => parseCharCfg(bad, 'c/char_cfg.yaml')).toThrow(/c\/char_cfg\.yaml:7: YAML syntax error/);
    const loc = CFG.replace('loc: [15, 10]', "loc: [15, 'x']");
    expect(() => parseCharCfg(loc, 'c/char_cfg.yaml')).toThrow(
      /c\/char_cfg\.yaml:12: joint 'left_elbow': loc must be/,
    );
    const missing = CFG.split('\n')
      .filter((l) => !l.includes('name: left_knee') && !l.includes('name: neck'))
      .join('\n')
      .replace('parent: left_knee', 'parent: left_hip');
    const tex = image(20, 30, () => [0, 0, 0, 255]);
    // issue 22 part 1: never refused for its joints; its own 14 joints, the foot now hanging from the hip
    const own = characterFromAnimatedDrawings(tex, solidMask(20, 30), missing, 'chars/x');
    expect(own.skeleton?.names).toHaveLength(14);
    expect(own.skeleton?.mapping.joints.find((j) => j.name === 'left_foot')).toEqual({
      name: 'left_foot',
      parent: 'left_hip',
      driver: 'LeftLowerLeg -> LeftFoot',
    });
    expect(() =>
      characterFromAnimatedDrawings(
        tex,
        solidMask(20, 30),
        'width: 20\nheight: 30\nskeleton: []\n',
        'chars/x',
      ),
    ).toThrow(/chars\/x\/char_cfg\.yaml: the skeleton has no joints/);
    expect(() => parseCharCfg('width: 20\nheight: -3\nskeleton: []\n', 'y.yaml')).toThrow(
      /y\.yaml:2: field 'height'/,
    );
  });

  it('rejects an empty mask and texture/mask size mismatch, naming the file', () => {
    const tex = image(20, 30, () => [0, 0, 0, 255]);
    expect(() =>
      characterFromAnimatedDrawings(
        tex,
        image(20, 30, () => [0, 0, 0, 255]),
        CFG,
        'chars/x',
      ),
    ).toThrow(/chars\/x: mask\.png: the mask is empty/);
    expect(() => characterFromAnimatedDrawings(tex, solidMask(21, 30), CFG, 'chars/x')).toThrow(
      /chars\/x: mask\.png: texture is 20x30 but mask is 21x30/,
    );
    expect(() =>
      characterFromAnimatedDrawings(
        image(21, 30, () => [0, 0, 0, 255]),
        solidMask(21, 30),
        CFG,
        'chars/x',
      ),
    ).toThrow(/char_cfg\.yaml:1: width x height 20x30 differs from the texture's 21x30/);
  });
});

describe('masks', () => {
  it('PNG with alpha: alpha > 127, largest component, holes filled', () => {
    const img = image(40, 40, (x, y) => {
      const ring = Math.hypot(x - 20, y - 20);
      if (ring > 8 && ring < 14) return [0, 0, 0, 255]; // ring: the hole inside gets filled
      if (x < 3 && y < 3) return [0, 0, 0, 255]; // a speck: not the largest component
      return [0, 0, 0, 0];
    });
    const m = maskFromImage(img);
    expect(m[20 * 40 + 20]).toBe(255);
    expect(m[1 * 40 + 1]).toBe(0);
    expect(m[20 * 40 + 35]).toBe(0);
  });

  it('opaque photo of paper: a dark outlined disk on uneven light paper becomes the filled disk', () => {
    const w = 120;
    const h = 100;
    const img = image(w, h, (x, y) => {
      const paper = 215 + Math.round((25 * x) / w); // a lighting gradient
      const r = Math.hypot(x - 60, y - 50);
      const ink = Math.abs(r - 30) < 2 ? 60 : paper;
      return [ink, ink, Math.min(255, ink + 20), 255];
    });
    const m = maskFromImage(img);
    let inter = 0;
    let uni = 0;
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) {
        // the ink ring reaches r = 32; closing + dilation (2 x 3x3) grow the outline by 2 px
        const truth = Math.hypot(x + 0.5 - 60, y + 0.5 - 50) <= 34;
        const got = m[y * w + x] !== 0;
        if (truth && got) inter++;
        if (truth || got) uni++;
      }
    expect(inter / uni).toBeGreaterThan(0.9);
  });

  it('an empty drawing is an error naming the source', () => {
    expect(() =>
      maskFromImage(
        image(10, 10, () => [255, 255, 255, 0]),
        { source: 'blank.png' },
      ),
    ).toThrow(/blank\.png: the mask is empty/);
    expect(() =>
      maskFromImage({ width: 4, height: 4, data: new Uint8Array(10) }, { source: 'x.png' }),
    ).toThrow(/x\.png: RGBA data has 10 bytes/);
  });

  it('characterFromImage fits the default skeleton into the mask box', () => {
    const img = image(50, 80, (x, y) =>
      x >= 10 && x < 40 && y >= 5 && y < 75 ? [9, 9, 9, 255] : [0, 0, 0, 0],
    );
    const ch = characterFromImage(img);
    expect(ch.restJoints.x[J('Hips')]).toBeCloseTo(25, 6);
    expect(ch.restJoints.y[J('Hips')]).toBeCloseTo(5 + 0.55 * 70, 6);
    expect(ch.restJoints.x[J('LeftHand')]).toBeGreaterThan(ch.restJoints.x[J('RightHand')]);
  });
});

describe('triangle pixel rule', () => {
  it('a tiled plane visits each pixel centre exactly once', () => {
    const w = 37;
    const h = 29;
    const count = new Uint8Array(w * h);
    const s = 4.5;
    for (let j = -1; j < 8; j++)
      for (let i = -1; i < 10; i++) {
        const x0 = i * s - 0.5;
        const y0 = j * s;
        forPixelsInTriangle(x0, y0, x0 + s, y0, x0 + s, y0 + s, w, h, (x, y) => count[y * w + x]++);
        forPixelsInTriangle(x0, y0, x0 + s, y0 + s, x0, y0 + s, w, h, (x, y) => count[y * w + x]++);
      }
    expect(Math.min(...count)).toBe(1);
    expect(Math.max(...count)).toBe(1);
  });
});

describe('rig, mesh, weights, skinning on the synthetic arms-down drawing', () => {
  const ch = armsDownCharacter();
  const mesh = buildMesh(ch);
  const tr = new Float64Array(PUPPET_JOINT_COUNT * 6);
  const out = createJointSet();

  it('builds a few hundred vertices, no triangle mostly outside, weights 4 per vertex summing to 1', () => {
    expect(mesh.vertexCount).toBeGreaterThan(200);
    expect(mesh.vertexCount).toBeLessThan(900);
    const V = mesh.vertices;
    for (let t = 0; t < mesh.triangleCount; t++) {
      const [a, b, c] = [mesh.triangles[3 * t], mesh.triangles[3 * t + 1], mesh.triangles[3 * t + 2]];
      expect(
        insideFraction(
          ch.mask,
          ch.width,
          ch.height,
          V[2 * a],
          V[2 * a + 1],
          V[2 * b],
          V[2 * b + 1],
          V[2 * c],
          V[2 * c + 1],
        ),
      ).toBeGreaterThanOrEqual(0.5);
    }
    for (const mode of WEIGHT_MODES) {
      const w = computeWeights(mesh, ch, mode);
      expect(w.joints).toHaveLength(4 * mesh.vertexCount);
      for (let v = 0; v < mesh.vertexCount; v++) {
        const s = w.weights[4 * v] + w.weights[4 * v + 1] + w.weights[4 * v + 2] + w.weights[4 * v + 3];
        expect(Math.abs(s - 1)).toBeLessThan(1e-6);
        expect(w.weights[4 * v]).toBeGreaterThanOrEqual(w.weights[4 * v + 1]);
      }
    }
  });

  it('rest pose in: identity transforms, posed joints = rest, skinned = rest vertices, render = texture', () => {
    const rig = new DrawingRig(ch);
    rig.pose(ch.restJoints, out, tr);
    for (let j = 0; j < PUPPET_JOINT_COUNT; j++) {
      expect(Array.from(tr.subarray(6 * j, 6 * j + 6))).toEqual([1, 0, -0, 1, 0, 0]);
      expect(out.x[j]).toBe(ch.restJoints.x[j]);
      expect(out.y[j]).toBe(ch.restJoints.y[j]);
    }
    const w = computeWeights(mesh, ch);
    const sk = new Float32Array(2 * mesh.vertexCount);
    skin(mesh, w, tr, sk);
    expect(sk).toEqual(mesh.vertices);
    const target: RgbaImage = {
      width: ch.width,
      height: ch.height,
      data: new Uint8Array(ch.width * ch.height * 4),
    };
    rasterize(ch, mesh, sk, target);
    let covered = 0;
    let area = 0;
    let outside = 0;
    let differ = 0;
    for (let i = 0; i < ch.width * ch.height; i++) {
      if (!ch.mask[i]) {
        if (target.data[4 * i + 3] !== 0) outside++;
        continue;
      }
      area++;
      if (target.data[4 * i + 3] === 0) continue;
      covered++;
      for (let c = 0; c < 4; c++) if (target.data[4 * i + c] !== ch.texture.data[4 * i + c]) differ++;
    }
    expect(outside).toBe(0);
    expect(differ).toBe(0);
    expect(covered / area).toBeGreaterThan(0.97);
  });

  it('known answer: left forearm turned 90 degrees -> hand vertices turn 90 about the elbow, torso unmoved', () => {
    const rig = new DrawingRig(ch);
    rig.pose(ch.restJoints, out, tr);
    const pose = rotateSubtree(copyJoints(ch.restJoints), J('LeftHand'), J('LeftLowerArm'), Math.PI / 2);
    rig.pose(pose, out, tr);
    expect(rig.theta[J('LeftHand')]).toBeCloseTo(Math.PI / 2, 12);
    expect(rig.theta[J('LeftLowerArm')]).toBe(0);
    const ex = ch.restJoints.x[J('LeftLowerArm')];
    const ey = ch.restJoints.y[J('LeftLowerArm')];
    for (const mode of ['segments', 'segments-geodesic'] as const) {
      const w = computeWeights(mesh, ch, mode);
      const sk = new Float32Array(2 * mesh.vertexCount);
      skin(mesh, w, tr, sk);
      let hand = 0;
      for (let v = 0; v < mesh.vertexCount; v++) {
        const x = mesh.vertices[2 * v];
        const y = mesh.vertices[2 * v + 1];
        if (!(x >= 127 && y >= 158)) continue; // the hand end of the left arm strip
        hand++;
        // +90 degrees in y-down pixels: (dx, dy) -> (-dy, dx). Only transforms 7 (forearm) and 8 (hand) turn;
        // the rest are identity, so LBS gives exactly v + W (R90 (v - elbow) + elbow - v), W = their weight.
        let W = 0;
        for (let k = 4 * v; k < 4 * v + 4; k++)
          if (w.joints[k] === J('LeftHand') || w.joints[k] === J('LeftHandTip')) W += w.weights[k];
        const rx = ex - (y - ey);
        const ry = ey + (x - ex);
        expect(sk[2 * v]).toBeCloseTo(x + W * (rx - x), 3);
        expect(sk[2 * v + 1]).toBeCloseTo(y + W * (ry - y), 3);
        // with the default geodesic weights the hand's vertices follow the forearm almost wholly (W > 0.9):
        // the distance from the rigid answer, (1 - W) sqrt 2 |v - elbow|, stays below 0.15 |v - elbow|.
        // (Straight segment distances give the arm's inner edge, next to the body, some torso weight.)
        if (mode !== 'segments-geodesic') continue;
        expect(W).toBeGreaterThan(0.9);
        expect(Math.hypot(sk[2 * v] - rx, sk[2 * v + 1] - ry)).toBeLessThan(
          0.15 * Math.hypot(x - ex, y - ey),
        );
      }
      expect(hand).toBeGreaterThan(2);
      if (mode !== 'segments-geodesic') continue; // straight distances let the forearm pull the torso's edge beside it
      const body = torsoVertices(ch, mesh);
      expect(body.length).toBeGreaterThan(20);
      for (const v of body)
        expect(
          Math.hypot(sk[2 * v] - mesh.vertices[2 * v], sk[2 * v + 1] - mesh.vertices[2 * v + 1]),
        ).toBeLessThan(1);
    }
  });

  it('raising an arm drawn against the body: geodesic weights drag the body least', () => {
    const r = Object.fromEntries(WEIGHT_MODES.map((m) => [m, armRaiseComparison(ch, mesh, m)]));
    console.log(
      'arm raise on the synthetic arms-down drawing (body drag mean/max px, hand error px):\n' +
        WEIGHT_MODES.map(
          (m) =>
            `  ${m.padEnd(18)} ${r[m].bodyMean.toFixed(2)} / ${r[m].bodyMax.toFixed(2)}   ${r[m].handError.toFixed(2)}`,
        ).join('\n'),
    );
    expect(r['segments-geodesic'].bodyMean).toBeLessThan(1);
    expect(r['segments-geodesic'].bodyMean).toBeLessThan(0.25 * r.segments.bodyMean);
    expect(r.segments.bodyMean).toBeLessThan(r.joints.bodyMean);
    expect(r['segments-geodesic'].handError).toBeLessThan(1);
  });

  it('property: random joint rotations keep every bone length and give finite skinned vertices', () => {
    const rig = new DrawingRig(ch);
    const w = computeWeights(mesh, ch);
    const sk = new Float32Array(2 * mesh.vertexCount);
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -Math.PI, max: Math.PI, noNaN: true }), { minLength: 21, maxLength: 21 }),
        fc.double({ min: -50, max: 50, noNaN: true }),
        (angles, shift) => {
          rig.clearReference();
          rig.pose(ch.restJoints, out, tr);
          const pose = copyJoints(ch.restJoints);
          for (let j = 1; j < PUPPET_JOINT_COUNT; j++) rotateSubtree(pose, j, PUPPET_PARENTS[j], angles[j]);
          for (let j = 0; j < PUPPET_JOINT_COUNT; j++) pose.x[j] += shift;
          rig.pose(pose, out, tr);
          for (let j = 1; j < PUPPET_JOINT_COUNT; j++) {
            const p = PUPPET_PARENTS[j];
            expect(Math.hypot(out.x[j] - out.x[p], out.y[j] - out.y[p])).toBeCloseTo(rig.boneLength(j), 9);
          }
          expect(out.x[0] - ch.restJoints.x[0]).toBeCloseTo(shift, 9);
          skin(mesh, w, tr, sk);
          for (let k = 0; k < sk.length; k++) expect(Number.isFinite(sk[k])).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('rig.pose, skin and rasterize allocate nothing per frame (measured in a plain Node process)', () => {
    const src = path.resolve(__dirname, '../src/puppet');
    const helpers = path.resolve(__dirname, 'helpers/puppetDrawing');
    const r = runAllocProbe(`
      import * as P from ${JSON.stringify(src)};
      import { armsDownCharacter, copyJoints, rotateSubtree, J } from ${JSON.stringify(helpers)};
      const ch = armsDownCharacter();
      const mesh = P.buildMesh(ch);
      const w = P.computeWeights(mesh, ch);
      const rig = new P.DrawingRig(ch);
      const out = P.createJointSet();
      const tr = new Float64Array(126);
      const sk = new Float32Array(2 * mesh.vertexCount);
      const pose = rotateSubtree(copyJoints(ch.restJoints), J('LeftLowerArm'), J('LeftUpperArm'), 1);
      const target = { width: ch.width, height: ch.height, data: new Uint8Array(ch.width * ch.height * 4) };
      const bg = [255, 255, 255, 255] as const;
      const opts = { background: bg };
      result.pose = bytesPerCall(() => rig.pose(pose, out, tr), 5000);
      result.skin = bytesPerCall(() => P.skin(mesh, w, tr, sk), 5000);
      result.raster = bytesPerCall(() => P.rasterize(ch, mesh, sk, target, opts), 400);
      let sink = tr;
      result.control = bytesPerCall(() => { sink = new Float64Array(sink); });
    `);
    expect(r.pose).toBeLessThan(1);
    expect(r.skin).toBeLessThan(1);
    // a whole frame per call, so few calls: a fixed ~2 KB (compilation) spreads over them; one object per call would read >= 16
    expect(r.raster).toBeLessThan(16);
    expect(r.control).toBeGreaterThan(16);
  });
});
