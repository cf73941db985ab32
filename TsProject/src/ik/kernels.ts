/**
 * Flat-array kernels for the IK solvers: vector and quaternion operations on values stored at integer
 * offsets inside one `Float64Array` (a solver's scratch array), allocating nothing.
 *
 * Same rules as src/core/flat.ts (read its note): kernels take only arrays and integer offsets, never
 * a double (a double passed to a call V8 does not inline is boxed into a new heap number), and return
 * nothing; a scalar parameter such as an interpolation factor is read from the array at an offset.
 * They are only ever called with `Float64Array`s, so their element loads stay monomorphic.
 *
 * Vectors are `[x, y, z]`, quaternions `[x, y, z, w]` (Hamilton product, as everywhere in the project).
 *
 * The solvers' per-frame paths write these formulas out inline (twoBone.ts, "Interpreter cost") and
 * cite them by name; the kernels themselves serve calibration and the rare degenerate cases.
 */

const { abs: m_abs, atan2: m_atan2, cos: m_cos, sin: m_sin, sqrt: m_sqrt } = Math;

/** v[o] = v[a] - v[b] (3-vectors; `o` may alias either). */
export function sub3(v: Float64Array, o: number, a: number, b: number): void {
  v[o] = v[a] - v[b];
  v[o + 1] = v[a + 1] - v[b + 1];
  v[o + 2] = v[a + 2] - v[b + 2];
}

/** Copy three values from `a[ao]` to `out[o]`. */
export function copy3(out: Float64Array, o: number, a: Float64Array, ao: number): void {
  out[o] = a[ao];
  out[o + 1] = a[ao + 1];
  out[o + 2] = a[ao + 2];
}

/**
 * v[o] = the part of v[x] perpendicular to the unit vector v[u]: `x - (x . u) u`. `o` may alias `x`.
 */
export function perp3(v: Float64Array, o: number, x: number, u: number): void {
  const d = v[x] * v[u] + v[x + 1] * v[u + 1] + v[x + 2] * v[u + 2];
  v[o] = v[x] - d * v[u];
  v[o + 1] = v[x + 1] - d * v[u + 1];
  v[o + 2] = v[x + 2] - d * v[u + 2];
}

/**
 * Direction with a smooth fallback: v[o] = normalize(a p/|p| + (1 - a) f), where `p = v[p]` is any
 * vector, `f = v[f]` a unit fallback direction and `a = smoothstep(|p| / v[r])` with
 * `smoothstep(x) = 3x^2 - 2x^3` on [0, 1] and 1 above (https://en.wikipedia.org/wiki/Smoothstep).
 * So the result is exactly p's direction once |p| >= r, and turns continuously (C1 in p) into f as p
 * vanishes: `a p/|p| = (3|p|/r^2 - 2|p|^2/r^3) p` has no singularity at p = 0. When the blend itself
 * vanishes (p's direction exactly opposite f at a = 1/2) the result is f. `o` may alias `p`, not `f`.
 */
export function fallbackDir(v: Float64Array, o: number, p: number, f: number, r: number): void {
  const px = v[p];
  const py = v[p + 1];
  const pz = v[p + 2];
  const l = m_sqrt(px * px + py * py + pz * pz);
  let x = l / v[r];
  // a / |p| (so that a * p / |p| needs no division by a vanishing |p|)
  let k: number;
  if (x >= 1) {
    x = 1;
    k = 1 / l;
  } else {
    const rr = v[r];
    k = (3 - 2 * x) * (l / (rr * rr)); // = a / l with a = x^2 (3 - 2x)
    x = x * x * (3 - 2 * x);
  }
  const b = 1 - x;
  const ox = k * px + b * v[f];
  const oy = k * py + b * v[f + 1];
  const oz = k * pz + b * v[f + 2];
  const n = m_sqrt(ox * ox + oy * oy + oz * oz);
  if (n > 1e-9) {
    v[o] = ox / n;
    v[o + 1] = oy / n;
    v[o + 2] = oz / n;
  } else {
    v[o] = v[f];
    v[o + 1] = v[f + 1];
    v[o + 2] = v[f + 2];
  }
}

/**
 * v[q] = the shortest-arc rotation taking the direction of vector v[a] to the direction of v[b] (any
 * non-zero lengths). Formula: `q = normalize(a x b, |a||b| + a . b)` (half-angle identity; the same
 * rotation as `fromTo` in src/core/quat.ts, without normalising the inputs first). Its `w` is >= 0.
 * Opposite vectors give half a turn about an axis perpendicular to `a` (crossed with the world axis
 * least aligned with it); a zero vector gives the identity.
 */
export function fromToVec(v: Float64Array, q: number, a: number, b: number): void {
  const ax = v[a];
  const ay = v[a + 1];
  const az = v[a + 2];
  const bx = v[b];
  const by = v[b + 1];
  const bz = v[b + 2];
  const la = m_sqrt(ax * ax + ay * ay + az * az);
  const lb = m_sqrt(bx * bx + by * by + bz * bz);
  const ll = la * lb;
  if (!(ll > 0)) {
    v[q] = 0;
    v[q + 1] = 0;
    v[q + 2] = 0;
    v[q + 3] = 1;
    return;
  }
  const w = ll + (ax * bx + ay * by + az * bz);
  if (w <= 1e-14 * ll) {
    perpendicularUnit(v, q, a);
    v[q + 3] = 0;
    return;
  }
  const x = ay * bz - az * by;
  const y = az * bx - ax * bz;
  const z = ax * by - ay * bx;
  const l = m_sqrt(x * x + y * y + z * z + w * w);
  v[q] = x / l;
  v[q + 1] = y / l;
  v[q + 2] = z / l;
  v[q + 3] = w / l;
}

/**
 * v[q] = slerp(identity, v[q], t) with `t = v[t]` in [0, 1]: the same axis, `t` times the angle, taken
 * the short way (the quaternion is first put in the `w >= 0` hemisphere). For unit `q = (s n, cos h)`
 * with `h = atan2(|vec|, w)` the result is `(sin(t h) n, cos(t h))` (Shoemake, "Animating rotation with
 * quaternion curves", SIGGRAPH 1985). The angle grows linearly in `t`.
 */
export function scaleRotation(v: Float64Array, q: number, t: number): void {
  let x = v[q];
  let y = v[q + 1];
  let z = v[q + 2];
  let w = v[q + 3];
  if (w < 0) {
    x = -x;
    y = -y;
    z = -z;
    w = -w;
  }
  const s = m_sqrt(x * x + y * y + z * z);
  const tt = v[t];
  if (s < 1e-12) {
    // tiny angle: sin(t h)/sin(h) -> t
    x *= tt;
    y *= tt;
    z *= tt;
    const n = m_sqrt(x * x + y * y + z * z + w * w);
    v[q] = x / n;
    v[q + 1] = y / n;
    v[q + 2] = z / n;
    v[q + 3] = w / n;
    return;
  }
  const h = m_atan2(s, w) * tt;
  const k = m_sin(h) / s;
  v[q] = x * k;
  v[q + 1] = y * k;
  v[q + 2] = z * k;
  v[q + 3] = m_cos(h);
}

/**
 * v[o] = a unit vector perpendicular to the non-zero vector v[a]: `a` crossed with the world axis
 * least aligned with it, normalised. `o` may alias `a`.
 */
export function perpendicularUnit(v: Float64Array, o: number, a: number): void {
  const ax = v[a];
  const ay = v[a + 1];
  const az = v[a + 2];
  const fx = m_abs(ax);
  const fy = m_abs(ay);
  const fz = m_abs(az);
  let x: number;
  let y: number;
  let z: number;
  if (fx <= fy && fx <= fz) {
    x = 0;
    y = -az;
    z = ay;
  } else if (fy <= fz) {
    x = az;
    y = 0;
    z = -ax;
  } else {
    x = -ay;
    y = ax;
    z = 0;
  }
  const l = m_sqrt(x * x + y * y + z * z);
  v[o] = x / l;
  v[o + 1] = y / l;
  v[o + 2] = z / l;
}

/**
 * Normalise v[o] in place; when its length is below 1e-12, set it to a unit vector perpendicular to
 * the unit vector v[u] instead (u crossed with the world axis least aligned with it).
 */
export function normalizeOrPerp(v: Float64Array, o: number, u: number): void {
  const x = v[o];
  const y = v[o + 1];
  const z = v[o + 2];
  const l = m_sqrt(x * x + y * y + z * z);
  if (l > 1e-12) {
    v[o] = x / l;
    v[o + 1] = y / l;
    v[o + 2] = z / l;
    return;
  }
  perpendicularUnit(v, o, u);
}
