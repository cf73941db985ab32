/**
 * Node-only input: sources and avatars loaded from files (BVH, glTF, VRM, with their humanoid maps), the
 * `--map` override file, readable file-system errors and the embedded default sample. Used by the hosts
 * that run in Node (src/cli, src/live/node) so that neither imports the other.
 */
export { defaultAssetsDir, describeFsError, readInput, requireNotFolder } from './files';
export { NODE_GLTF_DECODERS } from './gltfDecoders';
export { type LoadedSource, loadAvatar, loadSource, type SourceFormat } from './load';
export {
  decodeImage,
  decodePng,
  encodePng,
  isAnimatedDrawingsFolder,
  type LoadedRecording,
  loadCharacter,
  loadLandmarkRecording,
  type RecordingLoadOptions,
  readImage,
  readPng,
  tfjsWorldSibling,
} from './puppetFiles';
export {
  describeSettingsReport,
  loadSettingsFile,
  readSettingsText,
  type SettingsFileReport,
  saveSettingsFile,
  unreadableName,
} from './settingsFile';
