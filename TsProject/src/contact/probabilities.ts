/**
 * Contact probability per foot per frame: P(contact_t) = sigmoid(f(x_{t-k..t+k})) on the 60 Hz grid,
 * interpolated back to the take's frames. Engine-free; the onnxruntime-web path is in ./onnxRunner.ts.
 */
import { type ContactFeatures, contactFeatures, gridToFrames, INPUT_SIZE, writeWindow } from './features';
import { estimateFloor, type FloorEstimate } from './floor';
import { type LocalGround, localGround } from './ground';
import { type HeelToeProbabilities, heelToeProbabilities } from './heelToe';
import { type ContactModelWeights, checkWeights, mlpForward, mlpScratch } from './mlp';
import { ruleGrid } from './rule';
import type { FootTracks } from './tracks';

/**
 * A detector's output for a take: P(contact) per foot per frame, split into heel and toe, with the detector's
 * name and the floor it used.
 */
export interface ContactProbabilities {
  /** `Float32Array(frameCount)`: P(contact) of the left foot per frame of the take. */
  left: Float32Array;
  right: Float32Array;
  model: 'rule' | 'learned' | 'teacher';
  floor: FloorEstimate;
  /** The rule's local ground (./ground.ts), when the rule measured heights above it. */
  ground?: LocalGround;
  /**
   * Heel and toe contact probability per foot per frame (./heelToe.ts): `left` / `right` split between
   * the foot's heel (ankle) and toe by the point rule; max(heel, toe) equals the foot's value.
   */
  points: HeelToeProbabilities;
}

/**
 * Every window of both feet as one batch: `Float32Array(2 * G * INPUT_SIZE)`, rows 0..G-1 the left foot's
 * grid frames, G..2G-1 the right foot's (the model's ONNX input `window`, shape [2G, INPUT_SIZE]).
 */
export function contactWindows(features: ContactFeatures): Float32Array {
  const G = features.gridCount;
  const out = new Float32Array(2 * G * INPUT_SIZE);
  for (let g = 0; g < G; g++) {
    writeWindow(features.left, G, g, out, g * INPUT_SIZE);
    writeWindow(features.right, G, g, out, (G + g) * INPUT_SIZE);
  }
  return out;
}

/**
 * Rule-baseline probabilities (see ./rule.ts) per foot per frame, heights measured above the local
 * ground (./ground.ts: a still foot carrying the body is on the ground at its own level, so raised
 * ground, steps and a drifting floor are contacts). `floor` defaults to {@link estimateFloor}.
 * `options.localGround: false` measures every height from the take's one contact level instead (the
 * rule as the model's training labels use it). On a rig without toe joints the rule's toe is the
 * virtual toe (`toePoint`, issue 20), so a foot on its toes is in contact there too (the learned model
 * keeps the inputs it was trained on: toe = ankle).
 */
export function ruleContactProbabilities(
  tracks: FootTracks,
  floor?: FloorEstimate,
  options: { localGround?: boolean } = {},
): ContactProbabilities {
  const fl = floor ?? estimateFloor(tracks);
  const virtualToe = (l: FootTracks['left']) =>
    l.toe === null && l.toePoint ? { ...l, toe: l.toePoint } : l;
  const vtracks = { ...tracks, left: virtualToe(tracks.left), right: virtualToe(tracks.right) };
  const feats = contactFeatures(vtracks, fl);
  const G = feats.gridCount;
  const ground = options.localGround === false ? undefined : localGround(vtracks, fl, feats);
  const left = gridToFrames(ruleGrid(feats.left, G, ground?.left), tracks.frameCount, tracks.frameTime);
  const right = gridToFrames(ruleGrid(feats.right, G, ground?.right), tracks.frameCount, tracks.frameTime);
  return {
    left,
    right,
    model: 'rule',
    floor: fl,
    ...(ground ? { ground } : {}),
    points: heelToeProbabilities(tracks, fl, { left, right }, ground),
  };
}

/** Learned-model probabilities on the grid for both feet (pure TS forward pass): `[left, right]`. */
export function learnedGrid(
  features: ContactFeatures,
  weights: ContactModelWeights,
): [Float32Array, Float32Array] {
  checkWeights(weights);
  const G = features.gridCount;
  const scratch = mlpScratch(weights);
  const win = new Float32Array(INPUT_SIZE);
  const res: [Float32Array, Float32Array] = [new Float32Array(G), new Float32Array(G)];
  for (let side = 0; side < 2; side++) {
    const f = side === 0 ? features.left : features.right;
    for (let g = 0; g < G; g++) {
      writeWindow(f, G, g, win, 0);
      res[side][g] = mlpForward(weights, win, 0, scratch);
    }
  }
  return res;
}

/**
 * Learned-model probabilities per foot per frame, pure TypeScript (same weights as the shipped ONNX).
 * `floor` defaults to {@link estimateFloor}. @throws ContactError on weights of the wrong shape.
 */
export function learnedContactProbabilities(
  tracks: FootTracks,
  weights: ContactModelWeights,
  floor?: FloorEstimate,
): ContactProbabilities {
  const fl = floor ?? estimateFloor(tracks);
  const feats = contactFeatures(tracks, fl);
  const [l, r] = learnedGrid(feats, weights);
  const left = gridToFrames(l, tracks.frameCount, tracks.frameTime);
  const right = gridToFrames(r, tracks.frameCount, tracks.frameTime);
  return {
    left,
    right,
    model: 'learned',
    floor: fl,
    // the split measures the points from the local ground, as the rule does (the model does not use it)
    points: heelToeProbabilities(tracks, fl, { left, right }, localGround(tracks, fl, feats)),
  };
}
