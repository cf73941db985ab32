/**
 * The embedded default walk (assets/default/default-walk.bvh, CC0, made by tools/make-default-sample.mjs)
 * for the Unity sample scene: the bundle carries the BVH text (esbuild's `text` loader for `.bvh`, see
 * tools/unityBundle.mjs; the type is declared in ./assets.d.ts) and {@link defaultTake} hands the whole
 * take to C# once, in Unity coordinates, so a code-made source skeleton (the package's
 * `KindDefaultTakeSource`) plays it with no asset of the user's. Read the same way as `kind retarget` with
 * no arguments reads it (src/io/node loadSource: parseBvh with the unit guessed, automatic humanoid map).
 */
import DEFAULT_WALK_BVH from '../../assets/default/default-walk.bvh';
import { parseBvh } from '../io/bvh';
import { autoMapHumanoid, requireHumanoid } from '../io/humanoidMap';

const FILE = 'default-walk.bvh';
let cached: string | null = null;

/** A number rounded to 6 decimals (JSON text stays small; float32 precision is ~7 digits). */
function r6(v: number): number {
  const x = Math.round(v * 1e6) / 1e6;
  return x === 0 ? 0 : x; // no -0
}

/** `a` mirrored at X for Unity, as numbers rounded by {@link r6}: points `(-x, y, z)` or quaternions `(x, -y, -z, w)`. */
function mirrored(a: ArrayLike<number>, stride: 3 | 4): number[] {
  const out = new Array<number>(a.length);
  for (let i = 0; i < a.length; i++) {
    const k = i % stride;
    const flip = stride === 3 ? k === 0 : k === 1 || k === 2;
    out[i] = r6(flip ? -a[i] : a[i]);
  }
  return out;
}

/**
 * The default take of `bvhText` as the JSON {@link defaultTake} documents.
 * @throws BvhParseError on a malformed file; HumanoidMapError when a required humanoid bone is missing.
 */
export function takeJson(bvhText: string, fileName: string): string {
  const { clip } = parseBvh(bvhText, { fileName, unitScale: 'auto' });
  const sk = clip.skeleton;
  const mapping = autoMapHumanoid(sk, { fileName });
  requireHumanoid(mapping, fileName);
  const n = sk.boneCount;
  const root = 0; // BVH: the ROOT comes first
  const hips = new Array<number>(3 * clip.frameCount);
  for (let f = 0; f < clip.frameCount; f++)
    for (let k = 0; k < 3; k++) hips[3 * f + k] = clip.translations[(f * n + root) * 3 + k];
  return JSON.stringify({
    name: clip.name,
    frameCount: clip.frameCount,
    frameTime: clip.frameTime,
    names: [...sk.names],
    parents: Array.from(sk.parents),
    humanoid: Array.from(mapping.humanoid),
    restLocalPositions: mirrored(sk.restTranslations, 3),
    restLocalRotations: mirrored(sk.restRotations, 4),
    rotations: mirrored(clip.rotations, 4),
    hipsPositions: mirrored(hips, 3),
  });
}

/**
 * The embedded default walk as JSON (built on the first call, then the same string): `{ name, frameCount,
 * frameTime (seconds per frame), names[n], parents[n] (-1 for the root, parents before children),
 * humanoid[55] (bone index per HumanBodyBones, -1 missing), restLocalPositions[3n] (metres),
 * restLocalRotations[4n] (x y z w), rotations[frameCount*4n] (local rotations, frame-major),
 * hipsPositions[frameCount*3] (the root bone's local position per frame, metres) }`. Every position and
 * rotation is in Unity coordinates (X mirrored: `(-x, y, z)`, `(x, -y, -z, w)`), numbers rounded to 6
 * decimals. Called once at set-up; it allocates (about 72 KB of text); nothing of it runs per frame.
 */
export function defaultTake(): string {
  if (cached === null) cached = takeJson(DEFAULT_WALK_BVH, FILE);
  return cached;
}
