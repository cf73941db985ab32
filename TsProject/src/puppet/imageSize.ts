/**
 * Camera image size checks of a recording (issue 22, part 4). Engine-free; run once when a file is loaded.
 *
 * The size matters because the pose side works in aspect-correct pixels (x * width, y * height): a swapped
 * size (1280x720 for a 720x1280 video) bends every bone and pushes the legs off the image, where they are
 * never measured. Two recordings carry the evidence:
 * - **pixels** (the tfjs BlazePose reference, tfjs-models keypoints in pixels): divided by the given size,
 *   they must fall inside the image. A landmark is *outside* when it lies more than {@link OUTSIDE_TOLERANCE}
 *   (5 %) of the image's width or height beyond an edge; MediaPipe places landmarks of limbs that leave the
 *   frame past the edge, so a person cut at the knees has 6 of 33 landmarks (18 %) outside in every frame
 *   and is not refused. Refused: more than {@link OUTSIDE_FRACTION} (10 %) outside when the swapped size
 *   holds at most a third as many; or more than half outside whatever the other sizes do.
 * - **normalised landmarks with world landmarks** (MediaPipe's two outputs, as the page records them): the
 *   image landmarks in pixels and the world landmarks in metres are the same body under a camera, so their
 *   scale along y over their scale along x (least squares per frame, median over frames) is 1 for the right
 *   aspect: 1.01 on the squat (0.93-1.10 per frame), 1.00 on the embedded default. A swapped size gives
 *   (H/W)^2 (0.32 for 1280x720). Refused outside [0.8, 1.25].
 * Normalised landmarks alone (a MediaPipe file without world landmarks, MoveNet normalised keypoints) carry
 * no evidence of the aspect and are not checked; when the size came from `--image-size`, a note says so.
 */
import { POSE_LANDMARK_COUNT } from './landmarks';
import { type LandmarkRecording, PuppetInputError } from './types';

/** A landmark more than this fraction of the image's side beyond an edge counts as outside the image. */
export const OUTSIDE_TOLERANCE = 0.05;
/** More landmarks outside than this fraction (with a swapped size that fits) refuses the size. */
export const OUTSIDE_FRACTION = 0.1;
/** The y-over-x scale ratio against the world landmarks accepted as the right aspect. */
export const ASPECT_RATIO_RANGE: readonly [number, number] = [0.8, 1.25];

/** Common camera sizes tried (both orders) when the swapped size does not fit either. */
const COMMON_SIZES: readonly (readonly [number, number])[] = [
  [640, 360],
  [640, 480],
  [854, 480],
  [960, 540],
  [1280, 720],
  [1280, 960],
  [1920, 1080],
  [2560, 1440],
  [3840, 2160],
];

/**
 * What {@link checkRecordingImageSize} found: which check ran, its figures, and the notes for the terminal.
 */
export interface ImageSizeCheck {
  /** Which check ran: 'outside' (pixels), 'aspect' (normalised + world), or 'none'. */
  kind: 'outside' | 'aspect' | 'none';
  /** outside: fraction of landmarks outside the given size and the swapped one. */
  outside?: { given: number; swapped: number; landmarks: number };
  /** aspect: the median y/x scale ratio against the world landmarks and the frames measured. */
  aspect?: { ratio: number; frames: number };
  /** Sentences for the terminal (a partly off-frame person). */
  notes: string[];
}

const sizeText = (w: number, h: number) => `${w}x${h}`;

/** Pixel positions (x_n * W, y_n * H) of the landmarks that were measured (visibility not 0) in frames with a person. */
function pixelPoints(rec: LandmarkRecording): { xs: number[]; ys: number[] } {
  const xs: number[] = [];
  const ys: number[] = [];
  const { width, height } = rec.image;
  for (const f of rec.frames) {
    const l = f.landmarks;
    if (!l || l.length !== POSE_LANDMARK_COUNT) continue;
    for (const p of l) {
      if (p.visibility === 0) continue; // written by a reader for a landmark the input lacks
      xs.push(p.x * width);
      ys.push(p.y * height);
    }
  }
  return { xs, ys };
}

function fractionOutside(xs: number[], ys: number[], w: number, h: number): number {
  if (xs.length === 0) return 0;
  let n = 0;
  const t = OUTSIDE_TOLERANCE;
  for (let i = 0; i < xs.length; i++)
    if (xs[i] < -t * w || xs[i] > (1 + t) * w || ys[i] < -t * h || ys[i] > (1 + t) * h) n++;
  return n / xs.length;
}

/** Median y/x scale of the image landmarks (pixels) against the world landmarks (metres), per frame. */
function aspectRatio(rec: LandmarkRecording): { ratio: number; frames: number } | null {
  const { width, height } = rec.image;
  const rs: number[] = [];
  const N = POSE_LANDMARK_COUNT;
  for (const f of rec.frames) {
    const p = f.landmarks;
    const q = f.worldLandmarks;
    if (!p || !q || p.length !== N || q.length !== N) continue;
    let mx = 0;
    let my = 0;
    let wx = 0;
    let wy = 0;
    for (let i = 0; i < N; i++) {
      mx += (p[i].x * width) / N;
      my += (p[i].y * height) / N;
      wx += q[i].x / N;
      wy += q[i].y / N;
    }
    let xu = 0;
    let xx = 0;
    let yv = 0;
    let yy = 0;
    for (let i = 0; i < N; i++) {
      const X = q[i].x - wx;
      const Y = q[i].y - wy;
      xu += X * (p[i].x * width - mx);
      xx += X * X;
      yv += Y * (p[i].y * height - my);
      yy += Y * Y;
    }
    if (xx <= 0 || yy <= 0 || xu <= 0 || yv <= 0) continue; // degenerate or mirrored: no evidence
    rs.push(yv / yy / (xu / xx));
  }
  if (rs.length === 0) return null;
  rs.sort((a, b) => a - b);
  return { ratio: rs[rs.length >> 1], frames: rs.length };
}

/**
 * Check the recording's camera image size against its landmarks (see the module header for the rules).
 * @param rec a recording read from a file: `rec.image` is the size given (the `--image-size` flag or the
 *   file's `image` field); its landmarks normalised by it.
 * @param o.coordinates what the file carried: 'pixels' (divided by the size when read) or 'normalized'.
 * @param o.given how the size was given, for the advice: 'flag' (`--image-size`) or 'file' (`"image"`).
 * @param o.source the file's name, for the error.
 * @returns which check ran, its figures and notes.
 * @throws PuppetInputError `source: N% of landmarks fall outside WxH; the recording looks like HxW
 *   (--image-size HxW)` (or the aspect's figures), naming the likely right size (both orders tried).
 */
export function checkRecordingImageSize(
  rec: LandmarkRecording,
  o: { coordinates: 'pixels' | 'normalized'; given: 'flag' | 'file'; source: string },
): ImageSizeCheck {
  const { width: W, height: H } = rec.image;
  const fix = (w: number, h: number) =>
    o.given === 'flag'
      ? `--image-size ${sizeText(w, h)}`
      : `set "image": { "width": ${w}, "height": ${h} } in the file`;
  const pct = (v: number) => `${Math.round(100 * v)}%`;
  if (o.coordinates === 'pixels') {
    const { xs, ys } = pixelPoints(rec);
    const given = fractionOutside(xs, ys, W, H);
    const swapped = W === H ? given : fractionOutside(xs, ys, H, W);
    const result: ImageSizeCheck = {
      kind: 'outside',
      outside: { given, swapped, landmarks: xs.length },
      notes: [],
    };
    const head = `${pct(given)} of landmarks fall outside ${sizeText(W, H)} (more than ${pct(OUTSIDE_TOLERANCE)} of the image beyond an edge)`;
    if (given > OUTSIDE_FRACTION && W !== H && swapped <= given / 3)
      throw new PuppetInputError(
        `${head}; the recording looks like ${sizeText(H, W)} (${fix(H, W)}), which holds ${swapped === 0 ? 'all' : `all but ${pct(swapped)}`} of them`,
        o.source,
      );
    if (given > 0.5) {
      let maxX = 0;
      let maxY = 0;
      for (let i = 0; i < xs.length; i++) {
        maxX = Math.max(maxX, xs[i]);
        maxY = Math.max(maxY, ys[i]);
      }
      const portrait = H > W;
      const orient = (s: number[]) => (s[1] > s[0] === portrait ? 0 : 1);
      const fits = COMMON_SIZES.flatMap(([a, b]) => [
        [a, b],
        [b, a],
      ])
        .filter(([w, h]) => fractionOutside(xs, ys, w, h) <= OUTSIDE_FRACTION / 2)
        // the given orientation first, then the smallest
        .sort((p, q) => orient(p) - orient(q) || p[0] * p[1] - q[0] * q[1]);
      const hint = fits.length
        ? `; the smallest common size that holds them is ${sizeText(fits[0][0], fits[0][1])} (${fix(fits[0][0], fits[0][1])})`
        : '';
      throw new PuppetInputError(
        `${head}${W === H ? '' : `, and ${pct(swapped)} outside ${sizeText(H, W)}`}; the landmarks reach x ${Math.round(maxX)} px, y ${Math.round(maxY)} px: give the video's size in pixels${hint}`,
        o.source,
      );
    }
    if (given > OUTSIDE_FRACTION)
      result.notes.push(
        `${pct(given)} of the landmarks lie outside the ${sizeText(W, H)} image (a person partly off-frame?); ${sizeText(H, W)} holds no more of them`,
      );
    return result;
  }
  const a = aspectRatio(rec);
  if (!a)
    return {
      kind: 'none',
      // a size given on the command line that nothing could confirm is said so, not taken silently
      notes:
        o.given === 'flag'
          ? [
              `--image-size ${sizeText(W, H)} not checked: ${o.source} has normalised landmarks and no world landmarks, which say nothing of the image's aspect; a wrong size bends the bones (give the video's size in pixels)`,
            ]
          : [],
    };
  const [lo, hi] = ASPECT_RATIO_RANGE;
  if (a.ratio >= lo && a.ratio <= hi) return { kind: 'aspect', aspect: a, notes: [] };
  // the true aspect w/h is ratio * W/H: the swapped size when that is near H/W
  const aspect = (a.ratio * W) / H;
  const swappedFits = W !== H && Math.abs(Math.log(aspect / (H / W))) < Math.log(1.15);
  const likely = swappedFits
    ? `the recording looks like ${sizeText(H, W)} (${fix(H, W)})`
    : `the image's width / height looks like ${aspect.toFixed(2)} (e.g. ${sizeText(W, Math.round(W / aspect))}), not ${(W / H).toFixed(2)}`;
  throw new PuppetInputError(
    `the landmarks do not fit the ${sizeText(W, H)} image: against their world landmarks, y runs ${a.ratio.toFixed(2)}x the scale of x (median over ${a.frames} frames; the right size gives ${lo}-${hi}); ${likely}`,
    o.source,
  );
}
