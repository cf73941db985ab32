/**
 * Contact detection (issue 11, points 1-3): foot tracks from a clip, the floor from the data, per-frame
 * features in leg lengths on a 60 Hz grid, the local ground of each foot (issue 20: raised ground and
 * steps, ./ground.ts), the rule baseline, label cleaning, the heel / toe split of each foot's contact
 * (issue 20, ./heelToe.ts), the offline teacher (issue 20 item 5, ./teacher.ts: whole-take heel and toe
 * labels, the model's training labels and the default detector) and the small learned model (pure-TS
 * forward pass of the shipped weights).
 * Engine-free. The onnxruntime-web runner of the same model is a separate module,
 * `src/contact/onnxRunner.ts`, so engine-free code never imports it.
 */
export * from './features';
export * from './floor';
export * from './ground';
export * from './heelToe';
export * from './mlp';
export { loadShippedContactModel, SHIPPED_MODEL_INFO } from './model/weights';
export * from './probabilities';
export * from './rule';
export * from './teacher';
export * from './tracks';
