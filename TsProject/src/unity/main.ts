/**
 * The bundle entry (tools/build.mjs `unity` target -> Packages/com.kind.retargeting/Runtime/Resources/
 * kind-retargeting/main.mjs): exactly the exports the C# shells use (the package README and
 * src/unity/bridge.ts document them; buffer layouts: src/unity/layout.ts). Nothing runs at import time
 * but module constants: no `CS`/`puer` globals, no Node API.
 */
export {
  apiVersion,
  command,
  createHub,
  destroyHub,
  exportState,
  importState,
  LAYOUT_VERSION,
  remote,
  update,
} from './bridge';
export { defaultTake } from './defaultTake';
