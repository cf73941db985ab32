/** The part of the `draco3dgltf` npm package used here (it ships no types). */
declare module 'draco3dgltf' {
  /** Starts Draco's decoder module (Emscripten); options are Emscripten module overrides. */
  function createDecoderModule(options?: Record<string, unknown>): Promise<unknown>;
  function createEncoderModule(options?: Record<string, unknown>): Promise<unknown>;
  const draco3d: {
    createDecoderModule: typeof createDecoderModule;
    createEncoderModule: typeof createEncoderModule;
  };
  export default draco3d;
}
