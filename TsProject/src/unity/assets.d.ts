/** A `.bvh` file imported as its text (esbuild's `text` loader in tools/unityBundle.mjs). */
declare module '*.bvh' {
  const text: string;
  export default text;
}
