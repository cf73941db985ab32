#!/usr/bin/env node
// Builds a MediaPipe Tasks PoseLandmarker model bundle (`.task`) from the files `@mediapipe/pose` ships
// on npm, so `@mediapipe/tasks-vision` can run offline without MediaPipe's published .task URL (issue 22
// item 6). A build step over installed packages: nothing is downloaded.
//
// What a PoseLandmarker .task is: a zip archive of two TFLite models stored uncompressed, named as
// MediaPipe's PoseLandmarkerGraph looks them up (mediapipe/tasks/cc/vision/pose_landmarker/
// pose_landmarker_graph.cc: kPoseDetectorTFLiteName "pose_detector.tflite",
// kPoseLandmarksDetectorTFLiteName "pose_landmarks_detector.tflite"; the bundle reader,
// mediapipe/tasks/cc/metadata/utils/zip_utils.cc, accepts stored entries only).
// Where the two models come from in @mediapipe/pose (0.5.x):
//   pose_detector.tflite           <- pose_solution_packed_assets.data, the Emscripten packed file
//                                     "/third_party/mediapipe/modules/pose_detection/pose_detection.tflite"
//                                     (byte range from pose_solution_packed_assets_loader.js's metadata)
//   pose_landmarks_detector.tflite <- pose_landmark_{lite,full,heavy}.tflite (--model, default full)
// Whether the Tasks graph accepts these legacy models (they predate the Tasks API's TFLite metadata) is
// what test/puppet.tasks.browser.test.ts finds out; docs/puppet.md records the result.
//
// Usage: node tools/make-pose-task.mjs [--model lite|full|heavy] [--out <file.task>] [--node-modules <dir>]
//        [--no-metadata]  (the models as shipped, without the TFLite metadata added below: the Tasks graph refuses them)
//   default out: TsProject/dist/models/pose_landmarker_<model>_from_pose.task (build output, not committed).
// Writes atomically (temp file, then rename); SIGINT/SIGTERM remove the temp file.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const requireTs = createRequire(path.join(root, 'TsProject/package.json'));
const { zipSync } = requireTs('fflate');
const flatbuffers = requireTs('flatbuffers');
export const DETECTOR_PATH = '/third_party/mediapipe/modules/pose_detection/pose_detection.tflite';
export const MODELS = ['lite', 'full', 'heavy'];

/**
 * The byte range of `file` in an Emscripten file packager's data, from its loader script's metadata
 * (`{"filename": "...", "start": N, "end": M}`). Throws naming the loader when the file is not listed.
 */
export function packedRange(loaderJs, file, loaderName = 'loader') {
  const re = /"filename":\s*"([^"]+)",\s*"start":\s*(\d+),\s*"end":\s*(\d+)/g;
  const listed = [];
  for (let m = re.exec(loaderJs); m; m = re.exec(loaderJs)) {
    listed.push(m[1]);
    if (m[1] === file) return { start: Number(m[2]), end: Number(m[3]) };
  }
  throw new Error(`${loaderName}: no packed file ${file} (listed: ${listed.join(', ') || 'none'})`);
}

// ------------------------------------------------------------------ TFLite metadata
// The Tasks API preprocesses a float image input only when the model carries TFLite metadata saying how
// (mediapipe/tasks/cc/components/processors/image_preprocessing_graph.cc: "Input tensor has type float32:
// it requires specifying NormalizationOptions metadata to preprocess input images"). The legacy models of
// @mediapipe/pose carry none (their graphs configured the normalisation in calculator options). So the
// build adds it, as the TFLite metadata writer would, without touching the model's own bytes:
//   - the metadata: a ModelMetadata flatbuffer (file identifier "M001"; tensorflow/tflite-support
//     tensorflow_lite_support/metadata/metadata_schema.fbs) with one SubGraphMetadata whose one input
//     TensorMetadata has content ImageProperties {color_space RGB} and a NormalizationOptions process unit
//     {mean, std}: x_normalised = (x - mean) / std on 0..255 pixels;
//   - stored in the model as TFLite's schema says (tensorflow/lite/schema/schema.fbs: Model.metadata, a
//     [Metadata {name, buffer}] whose entry "TFLITE_METADATA" names a Buffer holding those bytes).
// Flatbuffer offsets only point forward, so a new root table cannot be appended after the old one; it is
// built in front of the unchanged old model bytes instead: a new Model table that reuses the old
// operator_codes, subgraphs, description, metadata_buffer and signature_defs in place, with a buffers
// vector = the old Buffer tables + one new Buffer, and a metadata vector = the old entries + the new one.
// The old bytes keep their 16-byte alignment (TFLite aligns Buffer.data to 16), so every weight is read
// from the same bytes as before.

/** TFLite schema.fbs, table Model: field slots. */
const MODEL = { version: 0, operator_codes: 1, subgraphs: 2, description: 3, buffers: 4, metadata_buffer: 5, metadata: 6, signature_defs: 7 };

/**
 * The ModelMetadata flatbuffer ("M001") for a model with one float RGB image input normalised by
 * (x - mean) / std. Field slots from metadata_schema.fbs (a union takes two slots: type, value).
 */
export function imageInputMetadata({ name, description, mean, std }) {
  const b = new flatbuffers.Builder(1024);
  const floats = (values) => {
    b.startVector(4, values.length, 4);
    for (let i = values.length - 1; i >= 0; i--) b.addFloat32(values[i]);
    return b.endVector();
  };
  const offsets = (values) => {
    b.startVector(4, values.length, 4);
    for (let i = values.length - 1; i >= 0; i--) b.addOffset(values[i]);
    return b.endVector();
  };
  // NormalizationOptions { mean:[float] (0), std:[float] (1) }
  const meanV = floats(mean);
  const stdV = floats(std);
  b.startObject(2);
  b.addFieldOffset(0, meanV, 0);
  b.addFieldOffset(1, stdV, 0);
  const norm = b.endObject();
  // ProcessUnit { options_type (0): NormalizationOptions = 1, options (1) }
  b.startObject(2);
  b.addFieldInt8(0, 1, 0);
  b.addFieldOffset(1, norm, 0);
  const unit = b.endObject();
  // ImageProperties { color_space (0): RGB = 1, default_size (1) }
  b.startObject(2);
  b.addFieldInt8(0, 1, 0);
  const image = b.endObject();
  // Content { content_properties_type (0): ImageProperties = 2, content_properties (1), range (2) }
  b.startObject(3);
  b.addFieldInt8(0, 2, 0);
  b.addFieldOffset(1, image, 0);
  const content = b.endObject();
  const units = offsets([unit]);
  const tensorName = b.createString('image');
  // TensorMetadata { name (0), description (1), dimension_names (2), content (3), process_units (4), ... }
  b.startObject(7);
  b.addFieldOffset(0, tensorName, 0);
  b.addFieldOffset(3, content, 0);
  b.addFieldOffset(4, units, 0);
  const tensor = b.endObject();
  const inputs = offsets([tensor]);
  // SubGraphMetadata { name (0), description (1), input_tensor_metadata (2), ... }
  b.startObject(7);
  b.addFieldOffset(2, inputs, 0);
  const subgraph = b.endObject();
  const subgraphs = offsets([subgraph]);
  const nameS = b.createString(name);
  const descS = b.createString(description);
  const parser = b.createString('1.0.0');
  // ModelMetadata { name (0), description (1), version (2), subgraph_metadata (3), author (4), license (5),
  //                 associated_files (6), min_parser_version (7) }
  b.startObject(8);
  b.addFieldOffset(0, nameS, 0);
  b.addFieldOffset(1, descS, 0);
  b.addFieldOffset(3, subgraphs, 0);
  b.addFieldOffset(7, parser, 0);
  const root = b.endObject();
  b.finish(root, 'M001');
  return b.asUint8Array().slice();
}

/** Reads the root Model table of a TFLite flatbuffer: absolute positions of its fields' targets. */
export function readModel(bytes) {
  const bb = new flatbuffers.ByteBuffer(bytes);
  const root = bb.readUint32(0);
  const field = (slot) => {
    const o = bb.__offset(root, 4 + 2 * slot);
    return o === 0 ? null : root + o;
  };
  const target = (slot) => {
    const f = field(slot);
    return f === null ? null : bb.__indirect(f);
  };
  const vectorTargets = (slot) => {
    const v = target(slot);
    if (v === null) return [];
    const n = bb.readUint32(v);
    const out = [];
    for (let i = 0; i < n; i++) out.push(bb.__indirect(v + 4 + 4 * i));
    return out;
  };
  const versionField = field(MODEL.version);
  const metadata = vectorTargets(MODEL.metadata).map((t) => {
    const nameField = bb.__offset(t, 4);
    const bufferField = bb.__offset(t, 6);
    return {
      table: t,
      name: nameField ? bb.__string(t + nameField) : '',
      buffer: bufferField ? bb.readUint32(t + bufferField) : 0,
    };
  });
  const buffers = vectorTargets(MODEL.buffers).map((t) => {
    const dataField = bb.__offset(t, 4);
    if (!dataField) return { table: t, start: 0, length: 0 };
    const v = bb.__indirect(t + dataField);
    return { table: t, start: v + 4, length: bb.readUint32(v) };
  });
  return {
    identifier: String.fromCharCode(...bytes.subarray(4, 8)),
    version: versionField === null ? 0 : bb.readUint32(versionField),
    operatorCodes: target(MODEL.operator_codes),
    subgraphs: target(MODEL.subgraphs),
    description: target(MODEL.description),
    metadataBuffer: target(MODEL.metadata_buffer),
    signatureDefs: target(MODEL.signature_defs),
    buffers,
    metadata,
  };
}

/**
 * The model with a "TFLITE_METADATA" entry holding `metadata` (see above); the old bytes are kept whole
 * after the new root table. Throws when the model is not TFLite or already has TFLITE_METADATA.
 */
export function withMetadata(model, metadata) {
  if (!isTflite(model)) throw new Error('not a TFLite model (no TFL3 identifier)');
  const m = readModel(model);
  if (m.metadata.some((e) => e.name === 'TFLITE_METADATA')) throw new Error('the model already has TFLITE_METADATA');
  const b = new flatbuffers.Builder(model.length + metadata.length + 4096);
  // The old model, 16-byte aligned, at the end of the new buffer.
  b.startVector(1, model.length, 16);
  b.bb.setPosition((b.space -= model.length));
  b.bb.bytes().set(model, b.space);
  const oldVector = b.endVector();
  const at = (position) => oldVector - 4 - position; // builder offset of an old absolute position
  const offsets = (values) => {
    b.startVector(4, values.length, 4);
    for (let i = values.length - 1; i >= 0; i--) b.addOffset(values[i]);
    return b.endVector();
  };
  // The new Buffer { data:[ubyte] (force_align 16) } and Metadata { name, buffer }.
  b.startVector(1, metadata.length, 16);
  b.bb.setPosition((b.space -= metadata.length));
  b.bb.bytes().set(metadata, b.space);
  const data = b.endVector();
  b.startObject(3);
  b.addFieldOffset(0, data, 0);
  const buffer = b.endObject();
  const buffers = offsets([...m.buffers.map((x) => at(x.table)), buffer]);
  const name = b.createString('TFLITE_METADATA');
  b.startObject(2);
  b.addFieldOffset(0, name, 0);
  b.addFieldInt32(1, m.buffers.length, 0);
  const entry = b.endObject();
  const metas = offsets([...m.metadata.map((x) => at(x.table)), entry]);
  b.startObject(8);
  b.addFieldInt32(MODEL.version, m.version, 0);
  if (m.operatorCodes !== null) b.addFieldOffset(MODEL.operator_codes, at(m.operatorCodes), 0);
  if (m.subgraphs !== null) b.addFieldOffset(MODEL.subgraphs, at(m.subgraphs), 0);
  if (m.description !== null) b.addFieldOffset(MODEL.description, at(m.description), 0);
  b.addFieldOffset(MODEL.buffers, buffers, 0);
  if (m.metadataBuffer !== null) b.addFieldOffset(MODEL.metadata_buffer, at(m.metadataBuffer), 0);
  b.addFieldOffset(MODEL.metadata, metas, 0);
  if (m.signatureDefs !== null) b.addFieldOffset(MODEL.signature_defs, at(m.signatureDefs), 0);
  const root = b.endObject();
  b.finish(root, 'TFL3');
  return b.asUint8Array().slice();
}

/**
 * Input normalisation of the two legacy models, from the graphs that ran them in @mediapipe/pose
 * (mediapipe/modules/pose_detection/pose_detection_cpu.pbtxt: ImageToTensorCalculator
 * output_tensor_float_range [-1, 1]; mediapipe/modules/pose_landmark/pose_landmark_by_roi_cpu.pbtxt:
 * [0, 1]). As (x - mean) / std on 0..255: [-1, 1] is mean 127.5, std 127.5; [0, 1] is mean 0, std 255.
 */
export const NORMALISATION = {
  detector: { mean: [127.5], std: [127.5] },
  landmarks: { mean: [0], std: [255] },
};

/** True when `bytes` look like a TFLite flatbuffer (file identifier "TFL3" at offset 4). */
export function isTflite(bytes) {
  return bytes.length > 8 && String.fromCharCode(bytes[4], bytes[5], bytes[6], bytes[7]) === 'TFL3';
}

/** The .task bytes (a zip of stored entries) from the two models. */
export function buildPoseTask(detector, landmarks, { metadata = true } = {}) {
  if (!isTflite(detector)) throw new Error('pose detector: not a TFLite model (no TFL3 identifier)');
  if (!isTflite(landmarks)) throw new Error('pose landmarks model: not a TFLite model (no TFL3 identifier)');
  const d = metadata
    ? withMetadata(detector, imageInputMetadata({ name: 'pose_detector', description: 'BlazePose detector from @mediapipe/pose', ...NORMALISATION.detector }))
    : detector;
  const l = metadata
    ? withMetadata(landmarks, imageInputMetadata({ name: 'pose_landmarks_detector', description: 'BlazePose GHUM 3D landmarks from @mediapipe/pose', ...NORMALISATION.landmarks }))
    : landmarks;
  return zipSync(
    { 'pose_detector.tflite': [d, { level: 0 }], 'pose_landmarks_detector.tflite': [l, { level: 0 }] },
    { mtime: new Date('2020-01-01T00:00:00Z') },
  );
}

/** Reads the two models from an installed @mediapipe/pose. */
export function readPoseModels(nodeModules, model = 'full') {
  if (!MODELS.includes(model)) throw new Error(`--model: '${model}' is not one of ${MODELS.join(', ')}`);
  const dir = path.join(nodeModules, '@mediapipe/pose');
  const loaderFile = path.join(dir, 'pose_solution_packed_assets_loader.js');
  const dataFile = path.join(dir, 'pose_solution_packed_assets.data');
  const landmarkFile = path.join(dir, `pose_landmark_${model}.tflite`);
  for (const f of [loaderFile, dataFile, landmarkFile]) {
    if (!existsSync(f)) throw new Error(`${f}: not found (npm ci installs @mediapipe/pose)`);
  }
  const { start, end } = packedRange(readFileSync(loaderFile, 'utf8'), DETECTOR_PATH, loaderFile);
  const data = readFileSync(dataFile);
  if (end > data.length) throw new Error(`${dataFile}: ${data.length} bytes, the loader says the detector ends at ${end}`);
  return { detector: new Uint8Array(data.subarray(start, end)), landmarks: new Uint8Array(readFileSync(landmarkFile)) };
}

/**
 * Builds the .task from `nodeModules`' @mediapipe/pose and writes it to `out` atomically (temp file, then
 * rename; the temp file is removed on error). Returns the byte count. Throws naming the missing file.
 */
export function writePoseTask(out, nodeModules, model = 'full', { metadata = true } = {}) {
  const m = readPoseModels(nodeModules, model);
  const bytes = buildPoseTask(m.detector, m.landmarks, { metadata });
  mkdirSync(path.dirname(out), { recursive: true });
  const tmp = `${out}.tmp-${process.pid}`;
  try {
    writeFileSync(tmp, bytes);
    renameSync(tmp, out);
  } finally {
    rmSync(tmp, { force: true });
  }
  return bytes.length;
}

function main() {
  const a = process.argv.slice(2);
  let model = 'full';
  let metadata = true;
  let out = null;
  let nodeModules = path.join(root, 'TsProject/node_modules');
  for (let i = 0; i < a.length; i++) {
    if (a[i] === '--model') model = a[++i];
    else if (a[i] === '--out') out = path.resolve(a[++i] ?? '');
    else if (a[i] === '--node-modules') nodeModules = path.resolve(a[++i] ?? '');
    else if (a[i] === '--no-metadata') metadata = false;
    else {
      console.error(`make-pose-task: unknown argument '${a[i]}' (--model lite|full|heavy, --out <file.task>, --node-modules <dir>, --no-metadata)`);
      process.exit(2);
    }
  }
  out ??= path.join(root, `TsProject/dist/models/pose_landmarker_${model}_from_pose.task`);
  const tmp = `${out}.tmp-${process.pid}`;
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.on(sig, () => {
      rmSync(tmp, { force: true });
      process.exit(130);
    });
  }
  let size;
  try {
    size = writePoseTask(out, nodeModules, model, { metadata });
  } catch (e) {
    console.error(`make-pose-task: ${e.message}`);
    process.exit(1);
  }
  console.log(`make-pose-task: ${out} (${size} bytes: pose_detector.tflite + pose_landmarks_detector.tflite from pose_landmark_${model}.tflite${metadata ? ', TFLite metadata added' : ', no metadata'})`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
