/**
 * Issue 22 part 3 ("no tears") on hand-made meshes: the triangle quality figures (quality.ts) against known
 * answers, and the Deformer (deform.ts): LBS mode equal to skin(), ARAP exact at rest and under a rigid
 * motion, and a strip bent 170 degrees at its middle that LBS folds (flipped triangles) and ARAP + the
 * fold-over guard does not, with every triangle's area within [1/5, 5] of its rest area.
 */
import {
  createTriangleQuality,
  DEFAULT_ARAP_OPTIONS,
  Deformer,
  type PuppetMesh,
  type SkinWeights,
  skin,
  TakeQualityAccumulator,
  triangleQuality,
} from '../src/puppet';

/** A grid mesh of nx x ny cells of side `cell` px (rest triangles positive, as mesh.ts cuts them). */
function gridMesh(nx: number, ny: number, cell: number): PuppetMesh {
  const vx = nx + 1;
  const vertices = new Float32Array(2 * vx * (ny + 1));
  for (let j = 0; j <= ny; j++)
    for (let i = 0; i <= nx; i++) {
      vertices[2 * (j * vx + i)] = i * cell;
      vertices[2 * (j * vx + i) + 1] = j * cell;
    }
  const tris: number[] = [];
  for (let j = 0; j < ny; j++)
    for (let i = 0; i < nx; i++) {
      const a = j * vx + i;
      tris.push(a, a + 1, a + vx + 1, a, a + vx + 1, a + vx);
    }
  const n = vx * (ny + 1);
  return {
    vertices,
    uvs: new Float32Array(2 * n),
    triangles: Uint32Array.from(tris),
    vertexCount: n,
    triangleCount: tris.length / 3,
    spacing: cell,
  };
}

/** Weights of each vertex between transform 0 and transform 1 by a function of its rest x. */
function twoBoneWeights(mesh: PuppetMesh, w1: (x: number) => number): SkinWeights {
  const n = mesh.vertexCount;
  const joints = new Uint8Array(4 * n);
  const weights = new Float32Array(4 * n);
  for (let v = 0; v < n; v++) {
    const b = w1(mesh.vertices[2 * v]);
    // largest first, as computeWeights sorts them
    const [j0, ww0, j1, ww1] = b > 0.5 ? [1, b, 0, 1 - b] : [0, 1 - b, 1, b];
    joints[4 * v] = j0;
    weights[4 * v] = ww0;
    joints[4 * v + 1] = j1;
    weights[4 * v + 1] = ww1;
  }
  return { joints, weights };
}

/** Transform layout of rig.ts: [a, b, c, d, tx, ty] per joint; a rotation by `deg` about (cx, cy). */
function rotationAbout(deg: number, cx: number, cy: number, out: Float64Array, j: number): void {
  const r = (deg * Math.PI) / 180;
  const c = Math.cos(r);
  const s = Math.sin(r);
  out.set([c, s, -s, c, cx - (c * cx - s * cy), cy - (s * cx + c * cy)], 6 * j);
}

describe('triangleQuality: known answers', () => {
  // the unit square cut into two triangles, 2 px sides: rest areas 2 and 2
  const mesh = gridMesh(1, 1, 2);

  it('at rest: nothing flipped, every ratio 1', () => {
    const q = triangleQuality(mesh, mesh.vertices);
    expect(q).toEqual({
      flipped: 0,
      measured: 2,
      skipped: 0,
      minAreaRatio: 1,
      maxAreaRatio: 1,
      worstStretch: 1,
      p99Stretch: 1,
      worstTriangle: -1,
    });
  });

  it('a uniform 2x scale is a 4x area: stretch 4 on both triangles', () => {
    const posed = mesh.vertices.map((v) => 2 * v + 7);
    const q = triangleQuality(mesh, posed);
    expect(q.flipped).toBe(0);
    expect(q.minAreaRatio).toBe(4);
    expect(q.maxAreaRatio).toBe(4);
    expect(q.worstStretch).toBe(4);
    expect(q.p99Stretch).toBe(4);
  });

  it('a 2x shrink of both sides counts as a stretch of 4 too (max(r, 1/r))', () => {
    const q = triangleQuality(
      mesh,
      mesh.vertices.map((v) => v / 2),
    );
    expect(q.maxAreaRatio).toBe(0.25);
    expect(q.worstStretch).toBe(4);
  });

  it('a corner pulled across the diagonal flips one triangle; it is counted and named, the other measured', () => {
    // vertices 0 (0,0) 1 (2,0) 2 (0,2) 3 (2,2); triangles (0,1,3) and (0,3,2). vertex 1 to (0, 4): (0,1,3) flips
    const posed = Float32Array.from(mesh.vertices);
    posed[2] = 0;
    posed[3] = 4;
    const q = triangleQuality(mesh, posed);
    expect(q.flipped).toBe(1);
    expect(q.worstTriangle).toBe(0);
    // (0,1,3) = (0,0), (0,4), (2,2): twice the area 0*2 - 4*2 = -8, rest 4: ratio -2
    expect(q.minAreaRatio).toBe(-2);
    expect(q.maxAreaRatio).toBe(1);
    expect(q.worstStretch).toBe(1);
  });

  it('a triangle collapsed to a line is flipped (orientation lost); degenerate rest triangles are skipped', () => {
    const posed = Float32Array.from(mesh.vertices);
    // vertex 3 (2, 2) to (1, 0), on the line 0-1: (0,1,3) has area 0; (0,3,2) keeps half its area
    posed[6] = 1;
    posed[7] = 0;
    const q = triangleQuality(mesh, posed);
    expect(q.flipped).toBe(1);
    expect(q.worstTriangle).toBe(0);
    expect(q.minAreaRatio).toBe(0);
    expect(q.worstStretch).toBe(2);
    const flat: PuppetMesh = { ...mesh, vertices: Float32Array.from([0, 0, 1, 0, 2, 0, 3, 0]) };
    const f = triangleQuality(flat, flat.vertices);
    expect(f.skipped).toBe(2);
    expect(f.measured).toBe(0);
  });

  it('the 99th percentile is the nearest rank: 2 triangles of 200 at 3, the rest at 1 -> p99 1, worst 3', () => {
    const m = gridMesh(10, 10, 1); // 200 triangles
    const posed = Float32Array.from(m.vertices);
    const q = triangleQuality(m, posed, createTriangleQuality(), new Float64Array(200));
    expect(q.p99Stretch).toBe(1);
    // vertex 0 (the corner, only in triangles 0 and 1) to (-2, -2): both grow 3x, the other 198 stay
    posed[0] = -2;
    posed[1] = -2;
    const g = triangleQuality(m, posed);
    // (0,1,12): (-2,-2), (1,0), (1,1): 2A = 3*3 - 2*3 = 3 -> ratio 3; (0,12,11): (-2,-2), (1,1), (0,1): 2A = 3*3 - 3*2 = 3
    expect(g.maxAreaRatio).toBe(3);
    expect(g.worstStretch).toBe(3);
    expect(g.p99Stretch).toBe(1); // 2 of 200 above 1: rank ceil(0.99 * 200) = 198 is still 1
  });

  it('rejects a short posed array or scratch', () => {
    expect(() => triangleQuality(mesh, new Float32Array(3))).toThrow(/posed has 3 values, expected 8/);
    expect(() => triangleQuality(mesh, mesh.vertices, createTriangleQuality(), new Float64Array(1))).toThrow(
      /scratch has 1 entries, need 2/,
    );
  });

  it('TakeQualityAccumulator: flips, worst stretch and their frames over a take', () => {
    const acc = new TakeQualityAccumulator();
    const q = createTriangleQuality();
    acc.add(triangleQuality(mesh, mesh.vertices, q));
    acc.add(
      triangleQuality(
        mesh,
        mesh.vertices.map((v) => 2 * v),
        q,
      ),
    );
    const flip = Float32Array.from(mesh.vertices);
    flip[2] = 0;
    flip[3] = 4;
    acc.add(triangleQuality(mesh, flip, q));
    expect(acc.take).toEqual({
      frames: 3,
      framesWithFlips: 1,
      flippedTriangleFrames: 1,
      maxFlipped: 1,
      maxFlippedFrame: 2,
      worstStretch: 4,
      worstStretchFrame: 1,
      p99Stretch: 4,
      minAreaRatio: -2,
      maxAreaRatio: 4,
    });
  });
});

describe('Deformer on hand-made meshes', () => {
  // a 100 x 20 px strip, 5 px cells; bone 0 = x < 50, bone 1 = x > 50, blended over x 35..65
  const mesh = gridMesh(20, 4, 5);
  const smooth = (x: number) => {
    const u = Math.min(1, Math.max(0, (x - 35) / 30));
    return u * u * (3 - 2 * u);
  };
  const weights = twoBoneWeights(mesh, smooth);
  const identity = () => Float64Array.from([1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0]);

  it("mode 'lbs' is skin() exactly", () => {
    const tr = identity();
    rotationAbout(90, 50, 10, tr, 1);
    const a = new Float32Array(2 * mesh.vertexCount);
    const b = new Float32Array(2 * mesh.vertexCount);
    skin(mesh, weights, tr, a);
    new Deformer(mesh, weights, 'lbs').deform(tr, b);
    expect(Array.from(b)).toEqual(Array.from(a));
  });

  it("mode 'arap' keeps the rest mesh at rest and follows a rigid motion of the whole (within 1e-3 px)", () => {
    const d = new Deformer(mesh, weights, 'arap');
    const out = new Float32Array(2 * mesh.vertexCount);
    d.deform(identity(), out);
    for (let k = 0; k < out.length; k++) expect(Math.abs(out[k] - mesh.vertices[k])).toBeLessThan(1e-3);
    expect(d.lastOutOfBoundsBefore).toBe(0);
    const tr = identity();
    rotationAbout(37, 20, -5, tr, 0);
    rotationAbout(37, 20, -5, tr, 1);
    tr[4] += 12;
    tr[10] += 12;
    d.deform(tr, out);
    for (let v = 0; v < mesh.vertexCount; v++) {
      const x = mesh.vertices[2 * v];
      const y = mesh.vertices[2 * v + 1];
      expect(Math.abs(out[2 * v] - (tr[0] * x + tr[2] * y + tr[4]))).toBeLessThan(1e-3);
      expect(Math.abs(out[2 * v + 1] - (tr[1] * x + tr[3] * y + tr[5]))).toBeLessThan(1e-3);
    }
  });

  it('a strip bent 170 degrees: LBS flips triangles at the bend, ARAP + guard flips none, area within [0.2, 5]', () => {
    const tr = identity();
    rotationAbout(170, 50, 10, tr, 1);
    const lbs = new Float32Array(2 * mesh.vertexCount);
    skin(mesh, weights, tr, lbs);
    const before = triangleQuality(mesh, lbs);
    expect(before.flipped).toBeGreaterThan(0);
    const d = new Deformer(mesh, weights, 'arap');
    const out = new Float32Array(2 * mesh.vertexCount);
    d.deform(tr, out);
    const after = triangleQuality(mesh, out);
    expect(after.flipped).toBe(0);
    expect(after.minAreaRatio).toBeGreaterThanOrEqual(DEFAULT_ARAP_OPTIONS.minAreaRatio - 1e-6);
    expect(after.maxAreaRatio).toBeLessThanOrEqual(DEFAULT_ARAP_OPTIONS.maxAreaRatio + 1e-6);
    expect(after.worstStretch).toBeLessThanOrEqual(5 + 1e-6);
    expect(d.lastOutOfBoundsBefore).toBeGreaterThan(0);
    expect(d.lastOutOfBoundsAfter).toBe(0);
    // the far ends still follow their bones: the tip of bone 1 within a pixel of where its rotation takes it
    const tip = 20; // vertex (100, 0)
    expect(Math.hypot(out[2 * tip] - lbs[2 * tip], out[2 * tip + 1] - lbs[2 * tip + 1])).toBeLessThan(1);
    // the same transforms give the same vertices (no state between frames)
    const again = new Float32Array(out.length);
    d.deform(identity(), again);
    d.deform(tr, again);
    expect(Array.from(again)).toEqual(Array.from(out));
  });

  it('rejects an unknown mode and bad options, naming them', () => {
    expect(() => new Deformer(mesh, weights, 'dqs' as never)).toThrow(/unknown deformation 'dqs'/);
    expect(() => new Deformer(mesh, weights, 'arap', { iterations: 1.5 })).toThrow(/iterations/);
    expect(() => new Deformer(mesh, weights, 'arap', { handleStiffness: 0 })).toThrow(/handleStiffness/);
    expect(() => new Deformer(mesh, weights, 'arap', { minAreaRatio: 1.2 })).toThrow(/minAreaRatio/);
    expect(() => new Deformer(mesh, weights, 'arap', { rigidFrom: 1 })).toThrow(/rigidFrom/);
  });
});
