/**
 * Local ground for the rule (issue 20, point 4): the rule's contact level is no longer one percentile of
 * the whole take, but the level of the still foot itself, local in time, wherever the data shows that
 * foot standing there. Stairs, equipment and uneven terrain need it (the seed,
 * ../shared/seeds/001: "계단과 경사면: 하나의 floor_y만 사용하면 발이 지면에 관통합니다").
 *
 * On the 60 Hz feature grid, per foot (heights are the features' `min(ankle, toe)` above the take's
 * contact levels, in leg lengths L):
 * 1. Still runs: grid frames where the lower joint moves horizontally slower than {@link GROUND_STILL}
 *    and the ankle vertically slower than it (gaps of up to {@link GROUND_GAP} frames at one level bridged), for at
 *    least {@link GROUND_MIN_RUN} frames (0.15 s). A
 *    foot in free flight cannot stay that still for that long (gravity changes its vertical speed by
 *    1.5 m/s in 0.15 s), so a run is a foot held still: on something, or held up in the air.
 * 2. The run's level is the median height over it. A run within {@link GROUND_SNAP} of the contact level
 *    is on the floor (ground 0, as before). Any other run is ground when the foot carries the body:
 *    for at least {@link GROUND_SUPPORT} frames (0.1 s) of it, the other foot is moving or stands more
 *    than `RULE_HEIGHT` higher (`support`). A foot held up still while the other stands still and lower
 *    is not ground (the raised-leg case of test/contact.core.test.ts).
 * 3. Where several agree: the accepted runs of both feet are fitted with ground patches (src/core
 *    `fitGroundPatches`, planes `n.p + d = 0`, tolerance `GROUND_SNAP`); a run that failed step 2 but
 *    lies on a patch of at least 2 accepted runs, within {@link GROUND_RADIUS} of one of them, is ground
 *    too (`plane`: a foot set down beside one that stood there).
 * 4. Ground per grid frame: the level of the foot's accepted run nearest in time (0 for a floor run), if
 *    it is at most {@link GROUND_REACH} frames (0.5 s) away; else 0, the take's contact level (a level
 *    seen once does not reach across the whole take). The rule then measures heights above it (./rule.ts).
 *
 * Engine-free; set-up time code (allocates its result).
 */
import { fitGroundPatches, type GroundPoint, patchHeight } from '../core';
import { type ContactFeatures, FEATURE_COUNT, GRID_FPS } from './features';
import type { FloorEstimate } from './floor';
import { RULE_HEIGHT, RULE_SPEED } from './rule';
import type { FootTracks } from './tracks';

/** A foot is still below this speed, leg lengths per second (half the rule's: 0.22 m/s at L = 0.9 m). */
export const GROUND_STILL = RULE_SPEED / 2;
/** Longest gap of moving grid frames bridged inside a still run (50 ms at 60 Hz). */
export const GROUND_GAP = 3;
/** Shortest still run that can be ground, grid frames (0.15 s at 60 Hz). */
export const GROUND_MIN_RUN = 9;
/** Frames of a run during which the foot must carry the body alone (0.1 s at 60 Hz). */
export const GROUND_SUPPORT = 6;
/** Grid frames (0.5 s at 60 Hz) over which a run's level is the foot's ground before and after it. */
export const GROUND_REACH = 30;
/** A run this close to the contact level (leg lengths, 0.03 L = 2.7 cm at L = 0.9 m) is on the floor. */
export const GROUND_SNAP = RULE_HEIGHT / 2;
/** Largest distance (leg lengths) from an accepted run at which a patch vouches for another run. */
export const GROUND_RADIUS = 1.5;

/** A foot: `'left'` or `'right'`. */
export type FootSide = 'left' | 'right';

/** A still run of one foot on the feature grid. */
export interface GroundRun {
  foot: FootSide;
  /** Grid frames `[start, end)`. */
  start: number;
  end: number;
  /** Median height of the lower joint above its contact level, metres. */
  level: number;
  /** Horizontal position of the lower joint (median), metres, in the floor basis of the take. */
  x: number;
  y: number;
  /** Why the run is ground: on the floor, carrying the body, on a patch of others; or not ground. */
  ground: 'floor' | 'support' | 'plane' | 'none';
}

/**
 * The local ground under each foot on the feature grid (leg lengths above the contact level) and the still
 * runs it was found from.
 */
export interface LocalGround {
  /** Per grid frame, the ground above the contact level, leg lengths (`Float32Array(G)`). */
  left: Float32Array;
  right: Float32Array;
  runs: GroundRun[];
}

function median(values: number[]): number {
  const s = values.slice().sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : 0.5 * (s[m - 1] + s[m]);
}

/** Two unit vectors spanning the plane perpendicular to `n`. */
function basis(n: readonly number[]): [number[], number[]] {
  const a = Math.abs(n[0]) < 0.9 ? [1, 0, 0] : [0, 1, 0];
  const d = a[0] * n[0] + a[1] * n[1] + a[2] * n[2];
  const e1 = [a[0] - d * n[0], a[1] - d * n[1], a[2] - d * n[2]];
  const l = Math.hypot(e1[0], e1[1], e1[2]);
  for (let k = 0; k < 3; k++) e1[k] /= l;
  return [e1, [n[1] * e1[2] - n[2] * e1[1], n[2] * e1[0] - n[0] * e1[2], n[0] * e1[1] - n[1] * e1[0]]];
}

interface FootGrid {
  low: Float64Array;
  still: Uint8Array;
  toe: Uint8Array;
}

function footGrid(features: Float32Array, G: number): FootGrid {
  const low = new Float64Array(G);
  const still = new Uint8Array(G);
  const toe = new Uint8Array(G);
  for (let g = 0; g < G; g++) {
    const k = g * FEATURE_COUNT;
    const useToe = features[k + 1] < features[k];
    low[g] = useToe ? features[k + 1] : features[k];
    toe[g] = useToe ? 1 : 0;
    const h = useToe ? features[k + 3] : features[k + 2];
    still[g] = h < GROUND_STILL && Math.abs(features[k + 4]) < GROUND_STILL ? 1 : 0;
  }
  // a stance is not perfectly still (a rolling heel, marker noise): gaps of up to GROUND_GAP frames
  // between still frames at one level (within GROUND_SNAP) are bridged; a jump to another level is not
  let last = -1;
  for (let g = 0; g < G; g++) {
    if (!still[g]) continue;
    if (last >= 0 && g - last - 1 <= GROUND_GAP && Math.abs(low[g] - low[last]) <= GROUND_SNAP)
      still.fill(1, last + 1, g);
    last = g;
  }
  return { low, still, toe };
}

/**
 * The local ground of a take (see the module doc).
 * @param features the take's features against `floor` (./features.ts `contactFeatures`).
 */
export function localGround(
  tracks: FootTracks,
  floor: FloorEstimate,
  features: ContactFeatures,
): LocalGround {
  const G = features.gridCount;
  const L = tracks.legLength;
  const grids = { left: footGrid(features.left, G), right: footGrid(features.right, G) };
  const [e1, e2] = basis(floor.normal);
  const F = tracks.frameCount;
  const at = (arr: Float64Array, g: number, c: number) => {
    const x = Math.min(F - 1, g / GRID_FPS / tracks.frameTime);
    const i = Math.min(F - 2, Math.floor(x));
    const u = x - i;
    return arr[3 * i + c] * (1 - u) + arr[3 * i + 3 + c] * u;
  };
  const runs: GroundRun[] = [];
  for (const foot of ['left', 'right'] as const) {
    const me = grids[foot];
    const other = grids[foot === 'left' ? 'right' : 'left'];
    const leg = tracks[foot];
    let g = 0;
    while (g < G) {
      if (!me.still[g]) {
        g++;
        continue;
      }
      let e = g;
      while (e < G && me.still[e]) e++;
      if (e - g >= GROUND_MIN_RUN) {
        const lows: number[] = [];
        const xs: number[] = [];
        const ys: number[] = [];
        let alone = 0;
        for (let t = g; t < e; t++) {
          lows.push(me.low[t]);
          const p = me.toe[t] && leg.toe ? leg.toe : leg.ankle;
          const px = at(p, t, 0);
          const py = at(p, t, 1);
          const pz = at(p, t, 2);
          xs.push(e1[0] * px + e1[1] * py + e1[2] * pz);
          ys.push(e2[0] * px + e2[1] * py + e2[2] * pz);
          if (!other.still[t] || other.low[t] > me.low[t] + RULE_HEIGHT) alone++;
        }
        const level = median(lows);
        runs.push({
          foot,
          start: g,
          end: e,
          level: level * L,
          x: median(xs),
          y: median(ys),
          ground: Math.abs(level) <= GROUND_SNAP ? 'floor' : alone >= GROUND_SUPPORT ? 'support' : 'none',
        });
      }
      g = e;
    }
  }
  vouchByPatches(runs, GROUND_SNAP * L, RULE_HEIGHT * L, GROUND_RADIUS * L);
  return { left: groundSeries(runs, 'left', G, L), right: groundSeries(runs, 'right', G, L), runs };
}

/** Step 3 of the module doc: runs on a patch of at least 2 accepted runs nearby become ground. */
function vouchByPatches(runs: GroundRun[], tolerance: number, vouch: number, radius: number): void {
  const accepted = runs.filter((r) => r.ground !== 'none');
  if (accepted.length < 2 || accepted.length === runs.length) return;
  const points: GroundPoint[] = accepted.map((r) => ({ x: r.x, y: r.y, h: r.level }));
  const patches = fitGroundPatches(points, { tolerance, radius }).filter((p) => p.members.length >= 2);
  for (const r of runs) {
    if (r.ground !== 'none') continue;
    for (const p of patches) {
      if (Math.abs(r.level - patchHeight(p, r.x, r.y)) > vouch) continue;
      if (p.members.some((m) => Math.hypot(points[m].x - r.x, points[m].y - r.y) <= radius)) {
        r.ground = 'plane';
        break;
      }
    }
  }
}

/** Step 4 of the module doc: per grid frame, the level of the foot's nearest accepted run (leg lengths). */
function groundSeries(runs: readonly GroundRun[], foot: FootSide, G: number, L: number): Float32Array {
  const mine = runs.filter((r) => r.foot === foot && r.ground !== 'none');
  const out = new Float32Array(G);
  if (mine.length === 0) return out;
  let j = 0;
  for (let g = 0; g < G; g++) {
    while (j + 1 < mine.length && mine[j].end <= g && mine[j + 1].start - g < g - (mine[j].end - 1)) j++;
    const r = mine[j];
    const away = g < r.start ? r.start - g : g >= r.end ? g - r.end + 1 : 0;
    out[g] = r.ground === 'floor' || away > GROUND_REACH ? 0 : r.level / L;
  }
  return out;
}
