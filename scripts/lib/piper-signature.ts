// Piper's ONNX signature: the inputs and the output every Piper voice has,
// around the graph of a generated test model.

import { encodeModel, TensorType, type Graph } from './onnx-writer.js'

/** A model named `name` with Piper's inputs (and `sid` with `speakerInput`) and output around `graph`. */
export function encodePiperModel (name: string, graph: Pick<Graph, 'nodes' | 'initializers'>, speakerInput: boolean): Uint8Array {
  const inputs: Graph['inputs'] = [
    { name: 'input', type: TensorType.INT64, shape: [1, 'phonemes'] },
    { name: 'input_lengths', type: TensorType.INT64, shape: [1] },
    { name: 'scales', type: TensorType.FLOAT, shape: [3] }
  ]
  if (speakerInput) inputs.push({ name: 'sid', type: TensorType.INT64, shape: [1] })
  return encodeModel({
    name,
    ...graph,
    inputs,
    outputs: [{ name: 'output', type: TensorType.FLOAT, shape: [1, 1, 1, 'time'] }]
  }, 15, 'chorus make-test-voices')
}
