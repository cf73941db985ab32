/**
 * Write the contact MLP as an ONNX model with the `onnx-proto` package (protobuf encoding of the ONNX
 * IR, https://github.com/onnx/onnx/blob/main/onnx/onnx.proto). Graph: input `window` float32
 * [N, INPUT_SIZE] -> Sub(mean) -> Mul(scale) (float32, bit-identical to the pure-TS path) -> Cast to
 * double -> (Gemm transB=1 -> Relu)* -> Gemm -> Sigmoid (float64, the float32 weights held exactly, as
 * the pure-TS pass sums) -> Cast -> output `contact` float32 [N, 1]. Summing in float64 on both sides
 * keeps the two within 1e-6 (float32 Gemm alone differs from an exact sum by ~1e-6 on real windows).
 * IR version 7, opset 13.
 */
import { onnx } from 'onnx-proto';
import { type ContactModelWeights, ONNX_INPUT, ONNX_OUTPUT } from '../../src/contact';

function tensor(name: string, dims: number[], data: Float32Array): onnx.ITensorProto {
  const bytes = new Uint8Array(data.length * 4);
  const dv = new DataView(bytes.buffer);
  for (let i = 0; i < data.length; i++) dv.setFloat32(4 * i, data[i], true);
  return onnx.TensorProto.create({ name, dims, dataType: onnx.TensorProto.DataType.FLOAT, rawData: bytes });
}

/** A float64 initializer holding float32 values exactly. */
function tensor64(name: string, dims: number[], data: Float32Array): onnx.ITensorProto {
  const bytes = new Uint8Array(data.length * 8);
  const dv = new DataView(bytes.buffer);
  for (let i = 0; i < data.length; i++) dv.setFloat64(8 * i, data[i], true);
  return onnx.TensorProto.create({ name, dims, dataType: onnx.TensorProto.DataType.DOUBLE, rawData: bytes });
}

function cast(name: string, input: string, output: string, to: number): onnx.INodeProto {
  return onnx.NodeProto.create({
    name,
    opType: 'Cast',
    input: [input],
    output: [output],
    attribute: [onnx.AttributeProto.create({ name: 'to', i: to, type: onnx.AttributeProto.AttributeType.INT })],
  });
}

function valueInfo(name: string, second: number): onnx.IValueInfoProto {
  return onnx.ValueInfoProto.create({
    name,
    type: { tensorType: { elemType: onnx.TensorProto.DataType.FLOAT, shape: { dim: [{ dimParam: 'N' }, { dimValue: second }] } } },
  });
}

/** Options for the exported graph's names (tests use other names to build a wrong model). */
export interface ExportOptions {
  inputName?: string;
  outputName?: string;
  docString?: string;
}

/** ONNX bytes of the model. */
export function exportOnnx(w: ContactModelWeights, o: ExportOptions = {}): Uint8Array {
  const nodes: onnx.INodeProto[] = [];
  const inits: onnx.ITensorProto[] = [];
  const outName = o.outputName ?? ONNX_OUTPUT;
  const width = w.layers[0].inSize;
  const pad = (a: Float32Array) => (a.length === width ? a : new Float32Array(width));
  inits.push(tensor('input.mean', [width], pad(w.inputMean)), tensor('input.scale', [width], pad(w.inputScale)));
  nodes.push(
    onnx.NodeProto.create({ name: 'centre', opType: 'Sub', input: [o.inputName ?? ONNX_INPUT, 'input.mean'], output: ['centred'] }),
    onnx.NodeProto.create({ name: 'standardise', opType: 'Mul', input: ['centred', 'input.scale'], output: ['z'] }),
    cast('to_double', 'z', 'z64', onnx.TensorProto.DataType.DOUBLE),
  );
  let cur = 'z64';
  w.layers.forEach((l, i) => {
    const Wn = `dense${i}.weight`;
    const bn = `dense${i}.bias`;
    inits.push(tensor64(Wn, [l.outSize, l.inSize], l.weight), tensor64(bn, [l.outSize], l.bias));
    const z = `dense${i}`;
    nodes.push(
      onnx.NodeProto.create({
        name: `gemm${i}`,
        opType: 'Gemm',
        input: [cur, Wn, bn],
        output: [z],
        attribute: [onnx.AttributeProto.create({ name: 'transB', i: 1, type: onnx.AttributeProto.AttributeType.INT })],
      }),
    );
    const last = i === w.layers.length - 1;
    const a = last ? 'contact64' : `relu${i}`;
    nodes.push(onnx.NodeProto.create({ name: last ? 'sigmoid' : `relu${i}`, opType: last ? 'Sigmoid' : 'Relu', input: [z], output: [a] }));
    cur = a;
  });
  nodes.push(cast('to_float', cur, outName, onnx.TensorProto.DataType.FLOAT));
  const last = w.layers[w.layers.length - 1];
  const graph = onnx.GraphProto.create({
    name: 'kind_contact_mlp',
    node: nodes,
    initializer: inits,
    input: [valueInfo(o.inputName ?? ONNX_INPUT, w.layers[0].inSize)],
    output: [valueInfo(outName, last.outSize)],
  });
  const model = onnx.ModelProto.create({
    irVersion: 7,
    opsetImport: [{ domain: '', version: 13 }],
    producerName: 'kind-retargeting train:contact',
    producerVersion: '1',
    docString: o.docString ?? 'Foot contact probability per window (KindRetargeting, src/contact/model/MODEL_CARD.md)',
    graph,
  });
  return onnx.ModelProto.encode(model).finish();
}
