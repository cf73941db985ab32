/**
 * The puppet's drawing side on the real AnimatedDrawings characters (../shared/data/animated-drawings/
 * characters/char1..char4): char_cfg.yaml 16 -> 21 joints, the mask from the texture alone against the
 * annotated mask.png, mesh coverage, weights, the exact rest identity (rendered = texture inside the mask),
 * the forearm known answer, and the side-by-side weight comparison (printed; the geodesic default must not
 * lose to the others where an arm is near the body or head).
 */
import * as fs from 'node:fs';
import { loadCharacter } from '../src/io/node';
import {
  buildMesh,
  type Character,
  computeWeights,
  createJointSet,
  DEFAULT_WEIGHT_MODE,
  DrawingRig,
  insideFraction,
  JointStateCode,
  maskArea,
  maskFromImage,
  PUPPET_JOINT_COUNT,
  type PuppetMesh,
  parseCharCfg,
  type RgbaImage,
  rasterize,
  type SkinWeights,
  skin,
  WEIGHT_MODES,
  type WeightMode,
} from '../src/puppet';
import { dataPath, describeWithData } from './helpers/data';
import {
  armRaiseComparison,
  copyJoints,
  forPixels,
  J,
  rotateSubtree,
  torsoVertices,
} from './helpers/puppetDrawing';

const CHARS = ['char1', 'char2', 'char3', 'char4'];
const dir = (c: string) => dataPath('animated-drawings', 'characters', c);

describeWithData('puppet drawing side on the AnimatedDrawings characters', () => {
  const chars = new Map<string, { ch: Character; mesh: PuppetMesh }>();
  const cache = new Map<string, SkinWeights>();
  const weightsOf = (c: string, mode: WeightMode = DEFAULT_WEIGHT_MODE): SkinWeights => {
    const key = `${c}:${mode}`;
    if (!cache.has(key)) cache.set(key, computeWeights(chars.get(c)!.mesh, chars.get(c)!.ch, mode));
    return cache.get(key)!;
  };
  beforeAll(() => {
    for (const c of CHARS) {
      const ch = loadCharacter(dir(c));
      chars.set(c, { ch, mesh: buildMesh(ch) });
    }
  });

  it.each(CHARS)(
    '%s: cfg parsed, 16 joints -> 21, torso -> Neck, neck -> Head, synthesised ones inside the image and flagged Rest',
    (c) => {
      const cfg = parseCharCfg(fs.readFileSync(`${dir(c)}/char_cfg.yaml`, 'utf8'), c);
      expect(cfg.joints).toHaveLength(16);
      const { ch } = chars.get(c)!;
      const r = ch.restJoints;
      const byName = Object.fromEntries(cfg.joints.map((j) => [j.name, j]));
      expect([r.x[J('LeftLowerArm')], r.y[J('LeftLowerArm')]]).toEqual([
        byName.left_elbow.x,
        byName.left_elbow.y,
      ]);
      expect([r.x[J('RightFoot')], r.y[J('RightFoot')]]).toEqual([byName.right_foot.x, byName.right_foot.y]);
      for (let j = 0; j < PUPPET_JOINT_COUNT; j++) {
        expect(r.x[j]).toBeGreaterThanOrEqual(0);
        expect(r.x[j]).toBeLessThanOrEqual(ch.width);
        expect(r.y[j]).toBeGreaterThanOrEqual(0);
        expect(r.y[j]).toBeLessThanOrEqual(ch.height);
      }
      // torso -> Neck (it lies on the shoulder midpoint, within 0.5 px), neck -> Head (above the shoulders)
      expect([r.x[J('Neck')], r.y[J('Neck')]]).toEqual([byName.torso.x, byName.torso.y]);
      expect([r.x[J('Head')], r.y[J('Head')]]).toEqual([byName.neck.x, byName.neck.y]);
      expect(r.state[J('Head')]).toBe(JointStateCode.Measured);
      expect(r.state[J('Chest')]).toBe(JointStateCode.Rest);
      expect(r.y[J('Head')]).toBeLessThan(r.y[J('Neck')] - 10);
      expect(r.y[J('Chest')]).toBeGreaterThan(r.y[J('Neck')]);
      expect(r.y[J('Chest')]).toBeLessThan(r.y[J('Hips')]);
    },
  );

  it.each(CHARS)('%s: the mask from the texture alone (paper photo) matches mask.png (IoU > 0.98)', (c) => {
    const { ch } = chars.get(c)!;
    const m = maskFromImage(ch.texture, { source: c });
    let inter = 0;
    let uni = 0;
    for (let i = 0; i < m.length; i++) {
      if (m[i] && ch.mask[i]) inter++;
      if (m[i] || ch.mask[i]) uni++;
    }
    console.log(`${c}: maskFromImage(texture) vs mask.png IoU ${(inter / uni).toFixed(4)}`);
    expect(inter / uni).toBeGreaterThan(0.98);
  });

  it.each(CHARS)(
    '%s: mesh covers >= 98 %% of the mask, no triangle mostly outside, a few hundred vertices',
    (c) => {
      const { ch, mesh } = chars.get(c)!;
      const cov = new Uint8Array(ch.width * ch.height);
      const V = mesh.vertices;
      let worst = 1;
      for (let t = 0; t < mesh.triangleCount; t++) {
        const [a, b, d] = [mesh.triangles[3 * t], mesh.triangles[3 * t + 1], mesh.triangles[3 * t + 2]];
        forPixels(V, a, b, d, ch.width, ch.height, (x, y) => {
          cov[y * ch.width + x] = 1;
        });
        worst = Math.min(
          worst,
          insideFraction(
            ch.mask,
            ch.width,
            ch.height,
            V[2 * a],
            V[2 * a + 1],
            V[2 * b],
            V[2 * b + 1],
            V[2 * d],
            V[2 * d + 1],
          ),
        );
      }
      let covered = 0;
      for (let i = 0; i < cov.length; i++) if (ch.mask[i] && cov[i]) covered++;
      const coverage = covered / maskArea(ch.mask);
      console.log(
        `${c}: ${mesh.vertexCount} vertices, ${mesh.triangleCount} triangles, spacing ${mesh.spacing.toFixed(1)} px, coverage ${(100 * coverage).toFixed(2)} %, least inside ${worst.toFixed(2)}`,
      );
      expect(coverage).toBeGreaterThanOrEqual(0.98);
      expect(worst).toBeGreaterThanOrEqual(0.5);
      expect(mesh.vertexCount).toBeGreaterThan(200);
      expect(mesh.vertexCount).toBeLessThan(800);
    },
  );

  it.each(CHARS)(
    '%s: weights (every mode) 4 per vertex summing to 1; rest pose reproduces the texture exactly',
    (c) => {
      const { ch, mesh } = chars.get(c)!;
      for (const mode of WEIGHT_MODES) {
        const w = computeWeights(mesh, ch, mode);
        for (let v = 0; v < mesh.vertexCount; v++) {
          const s = w.weights[4 * v] + w.weights[4 * v + 1] + w.weights[4 * v + 2] + w.weights[4 * v + 3];
          expect(Math.abs(s - 1)).toBeLessThan(1e-6);
        }
      }
      const w = weightsOf(c);
      const rig = new DrawingRig(ch);
      const out = createJointSet();
      const tr = new Float64Array(PUPPET_JOINT_COUNT * 6);
      rig.pose(ch.restJoints, out, tr);
      const sk = new Float32Array(2 * mesh.vertexCount);
      skin(mesh, w, tr, sk);
      expect(sk).toEqual(mesh.vertices);
      const target: RgbaImage = {
        width: ch.width,
        height: ch.height,
        data: new Uint8Array(ch.width * ch.height * 4),
      };
      rasterize(ch, mesh, sk, target);
      let drawn = 0;
      let differ = 0;
      let outside = 0;
      for (let i = 0; i < ch.width * ch.height; i++) {
        if (target.data[4 * i + 3] === 0) continue;
        if (!ch.mask[i]) outside++;
        drawn++;
        for (let k = 0; k < 4; k++) if (target.data[4 * i + k] !== ch.texture.data[4 * i + k]) differ++;
      }
      expect(outside).toBe(0);
      expect(differ).toBe(0);
      expect(drawn / maskArea(ch.mask)).toBeGreaterThanOrEqual(0.98);
    },
  );

  it.each(CHARS)(
    '%s: forearm turned 90 degrees: hand vertices turn about the elbow, torso unmoved (< 1 px)',
    (c) => {
      const { ch, mesh } = chars.get(c)!;
      const w = weightsOf(c);
      const rig = new DrawingRig(ch);
      const out = createJointSet();
      const tr = new Float64Array(PUPPET_JOINT_COUNT * 6);
      rig.pose(ch.restJoints, out, tr);
      rig.pose(
        rotateSubtree(copyJoints(ch.restJoints), J('LeftHand'), J('LeftLowerArm'), Math.PI / 2),
        out,
        tr,
      );
      const sk = new Float32Array(2 * mesh.vertexCount);
      skin(mesh, w, tr, sk);
      const r = ch.restJoints;
      const ex = r.x[J('LeftLowerArm')];
      const ey = r.y[J('LeftLowerArm')];
      const fore = Math.hypot(r.x[J('LeftHand')] - ex, r.y[J('LeftHand')] - ey);
      let n = 0;
      for (let v = 0; v < mesh.vertexCount; v++) {
        const x = mesh.vertices[2 * v];
        const y = mesh.vertices[2 * v + 1];
        if (Math.hypot(x - r.x[J('LeftHand')], y - r.y[J('LeftHand')]) > 0.3 * fore) continue;
        n++;
        const rx = ex - (y - ey);
        const ry = ey + (x - ex);
        expect(Math.hypot(sk[2 * v] - rx, sk[2 * v + 1] - ry)).toBeLessThan(
          0.15 * Math.hypot(x - ex, y - ey),
        );
      }
      expect(n).toBeGreaterThan(0);
      for (const v of torsoVertices(ch, mesh))
        expect(
          Math.hypot(sk[2 * v] - mesh.vertices[2 * v], sk[2 * v + 1] - mesh.vertices[2 * v + 1]),
        ).toBeLessThan(1);
    },
  );

  it('side by side: body drag and hand error when the left arm is raised, per weight mode', () => {
    const lines: string[] = [];
    const res: Record<string, Record<string, ReturnType<typeof armRaiseComparison>>> = {};
    for (const c of CHARS) {
      const { ch, mesh } = chars.get(c)!;
      res[c] = {};
      for (const mode of WEIGHT_MODES) {
        const r = armRaiseComparison(ch, mesh, mode, weightsOf(c, mode));
        res[c][mode] = r;
        lines.push(
          `${c} ${mode.padEnd(18)} body drag mean ${r.bodyMean.toFixed(2)} max ${r.bodyMax.toFixed(2)} px (${r.bodyCount} v), hand error ${r.handError.toFixed(2)} px (${r.handCount} v)`,
        );
      }
    }
    console.log(lines.join('\n'));
    for (const c of CHARS) {
      // inverse-square distance to the 4 nearest joints drags the body most on every character
      expect(res[c].joints.bodyMean).toBeGreaterThan(res[c].segments.bodyMean);
      expect(res[c]['segments-geodesic'].bodyMean).toBeLessThan(res[c].joints.bodyMean);
    }
    // char4's raised hand is drawn beside its head: only the geodesic weights let the hand go cleanly
    expect(res.char4['segments-geodesic'].handError).toBeLessThan(0.5 * res.char4.segments.handError);
  });
});
