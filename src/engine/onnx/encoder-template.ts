// The encoder as a template: the same graph with its float weights turned
// into graph inputs, so that voices of one architecture can share one
// encoder session and each feed its own weights (native/shared_encoder.h).
// The weights are not copied here: each is named by where its bytes lie in
// the encoder's, for the addon to copy out.

import { bytesField } from './protobuf.js'
import { payloadOf, readModelGraph, readTensorFields, type Span } from './model-graph.js'
import { floatValueInfo, GRAPH_INPUT, modelWithGraph, TYPE_FLOAT } from './onnx-proto.js'

/** Float constants shorter than this stay in the template: scalars and
 * short constants (epsilons, scales) that the optimiser folds, and that
 * voices of one architecture hold alike. */
const MIN_WEIGHT_ELEMENTS = 16

/** Piper's input names: an initializer named like one (the stand-in voices
 * hold a weight named sid) stays in the template, or it would become an
 * input the engine feeds. */
const PIPER_INPUTS = new Set(['input', 'input_lengths', 'scales', 'sid'])

/** A weight the template takes as an input: float32, little-endian, at
 * `offset` in the encoder's bytes. */
export interface TemplateWeight {
  name: string
  dims: number[]
  offset: number
}

export interface EncoderTemplate {
  template: Uint8Array
  weights: TemplateWeight[]
}

/** The float weight an initializer holds as raw bytes, or undefined (other
 * types, short constants, values written as float_data). */
function floatWeight (bytes: Uint8Array, initializer: Span, name: string): TemplateWeight | undefined {
  const { start, end } = payloadOf(bytes, initializer)
  const { dims, type, raw } = readTensorFields(bytes, start, end)
  const count = dims.reduce((product, d) => product * d, 1)
  if (type !== TYPE_FLOAT || raw === undefined || count < MIN_WEIGHT_ELEMENTS || raw.valueEnd - raw.valueStart !== count * 4) return undefined
  return { name, dims, offset: raw.valueStart }
}

/** The encoder's template and its weights, or null when it has no float
 * weights to take out (the encoder is then loaded as it is). */
export function encoderTemplate (encoder: Uint8Array): EncoderTemplate | null {
  const graph = readModelGraph(encoder)
  const copy = (s: Span) => encoder.subarray(s.start, s.end)
  const weights: TemplateWeight[] = []
  const kept: Uint8Array[] = []
  for (const initializer of graph.initializers) {
    const weight = PIPER_INPUTS.has(initializer.name) ? undefined : floatWeight(encoder, initializer, initializer.name)
    if (weight === undefined) kept.push(copy(initializer))
    else weights.push(weight)
  }
  if (weights.length === 0) return null
  const graphParts = [
    ...graph.nodes.map(copy), ...graph.otherGraphFields.map(copy), ...kept, ...graph.inputs.map(copy),
    ...weights.map(w => bytesField(GRAPH_INPUT, floatValueInfo(w.name, w.dims))), ...graph.outputs.map(copy),
    ...graph.valueInfos.map(copy)
  ]
  return { template: modelWithGraph(graph.modelFields.map(copy), graphParts), weights }
}
