// Rewrites a graph's 1-D convolutions as 2-D ones of height 1: the weight
// [out, in, k] becomes [out, in, 1, k], the input is unsqueezed at axis 2
// before and the result squeezed after. Same arithmetic, same audio; ONNX
// Runtime's CPU kernels are faster for the 2-D form (its blocked-layout
// convolutions and transposed convolutions are written for 2-D), and Piper's
// decoder is nearly all 1-D convolutions: docs/engine.md has the figures.

import { bytesField, bytesFieldHeader, concat, fields, fieldString, stringField, varintField, WIRE_BYTES } from './protobuf.js'
import { defaultOpset, freshName, int64Initializer, intsAttribute, nodeMessage, tensorNames } from './graph-edit.js'
import { payloadOf, readModelGraph, readTensorFields, type GraphNode, type ModelGraph, type Span } from './model-graph.js'
import { ATTRIBUTE_NAME, GRAPH_INITIALIZER, GRAPH_NODE, modelWithGraph, NODE_ATTRIBUTE, NODE_INPUT, NODE_OUTPUT, TENSOR_DIMS } from './onnx-proto.js'

const LIFTED_OPS = new Set(['Conv', 'ConvTranspose'])

/** Spatial attributes: a leading 1 (or, for pads, a 0 at each end) for the new axis. */
const PREFIXED_ATTRIBUTES = new Set(['kernel_shape', 'strides', 'dilations', 'output_padding'])

/** Unsqueeze and Squeeze take their axes as an input from opset 13, as an attribute before. */
const AXES_AS_INPUT_OPSET = 13

export interface LiftResult {
  bytes: Uint8Array
  /** Convolutions rewritten; 0 leaves `bytes` the model as it was. */
  lifted: number
}

/** The nodes that can be lifted: a 1-D Conv or ConvTranspose of the default
 * domain whose weight is an initializer of three dimensions that nothing
 * else reads, and without an output_shape (which would need rewriting too). */
function liftable (graph: ModelGraph): { nodes: Set<number>, weights: Map<string, number[]> } {
  const dims = new Map<string, number[]>()
  for (const initializer of graph.initializers) {
    const { start, end } = payloadOf(graph.bytes, initializer)
    dims.set(initializer.name, readTensorFields(graph.bytes, start, end).dims)
  }
  const candidates = new Set<number>()
  graph.nodes.forEach((node, index) => {
    const weight = node.inputs[1]
    if (!LIFTED_OPS.has(node.opType) || node.domain !== '' || weight === undefined) return
    if (dims.get(weight)?.length !== 3 || node.ints.output_shape !== undefined) return
    candidates.add(index)
  })
  // A weight read anywhere but as a candidate's weight keeps its shape.
  const readElsewhere = new Set(graph.outputs.map(o => o.name))
  graph.nodes.forEach((node, index) => {
    node.inputs.forEach((input, position) => {
      if (!(candidates.has(index) && position === 1)) readElsewhere.add(input)
    })
  })
  const nodes = new Set<number>()
  const weights = new Map<string, number[]>()
  for (const index of candidates) {
    const weight = graph.nodes[index].inputs[1]
    if (readElsewhere.has(weight)) continue
    nodes.add(index)
    weights.set(weight, dims.get(weight) as number[])
  }
  return { nodes, weights }
}

/** The convolution node with new inputs and outputs and its spatial
 * attributes for two axes; its other fields as they were. */
function liftedNode (bytes: Uint8Array, node: GraphNode, inputs: string[], outputs: string[]): Uint8Array {
  const parts: Uint8Array[] = [...inputs.map(i => stringField(NODE_INPUT, i)), ...outputs.map(o => stringField(NODE_OUTPUT, o))]
  const { start, end } = payloadOf(bytes, node)
  for (const field of fields(bytes, start, end)) {
    if (field.number === NODE_INPUT || field.number === NODE_OUTPUT) continue
    if (field.number === NODE_ATTRIBUTE && field.wireType === WIRE_BYTES) {
      let name = ''
      for (const f of fields(bytes, field.valueStart, field.valueEnd)) {
        if (f.number === ATTRIBUTE_NAME && f.wireType === WIRE_BYTES) name = fieldString(bytes, f)
      }
      const values = node.ints[name]
      if (values !== undefined && PREFIXED_ATTRIBUTES.has(name)) {
        parts.push(intsAttribute(name, [name === 'output_padding' ? 0 : 1, ...values]))
        continue
      }
      if (values !== undefined && name === 'pads') {
        const half = values.length / 2
        parts.push(intsAttribute(name, [0, ...values.slice(0, half), 0, ...values.slice(half)]))
        continue
      }
    }
    parts.push(bytes.subarray(field.start, field.end))
  }
  return bytesField(GRAPH_NODE, concat(parts))
}

/** The initializer with a 1 inserted before its last dimension; its other
 * fields (the weights' bytes) as they were, not copied until written. */
function liftedWeight (bytes: Uint8Array, span: Span, dims: number[]): Uint8Array[] {
  const { start, end } = payloadOf(bytes, span)
  const newDims = [...dims.slice(0, -1), 1, dims[dims.length - 1]]
  const parts: Uint8Array[] = newDims.map(d => varintField(TENSOR_DIMS, d))
  for (const field of fields(bytes, start, end)) {
    if (field.number !== TENSOR_DIMS) parts.push(bytes.subarray(field.start, field.end))
  }
  const length = parts.reduce((sum, part) => sum + part.length, 0)
  return [bytesFieldHeader(GRAPH_INITIALIZER, length), ...parts]
}

/** Rewrites the model's liftable 1-D convolutions as 2-D ones. Throws
 * ProtobufError when the bytes are not an ONNX model. */
export function liftConvolutions (modelBytes: Uint8Array): LiftResult {
  return liftGraph(readModelGraph(modelBytes))
}

/** liftConvolutions for a model whose graph has been read already. */
export function liftGraph (graph: ModelGraph): LiftResult {
  const { nodes: lifted, weights } = liftable(graph)
  if (lifted.size === 0) return { bytes: graph.bytes, lifted: 0 }
  const { bytes } = graph
  const copy = (s: Span) => bytes.subarray(s.start, s.end)
  const taken = tensorNames(graph)
  const axesAsInput = defaultOpset(graph) >= AXES_AS_INPUT_OPSET
  const extraInitializers: Uint8Array[] = []
  let axesName = ''
  if (axesAsInput) {
    axesName = freshName(taken, 'chorus_lift_axes')
    extraInitializers.push(int64Initializer(axesName, [2]))
  }
  const reshape = (opType: string, input: string, output: string) => axesAsInput
    ? nodeMessage(opType, [input, axesName], [output])
    : nodeMessage(opType, [input], [output], [intsAttribute('axes', [2])])

  // A tensor only lifted convolutions read needs no 3-D form: a lifted
  // result they read is not squeezed (and unsqueezed again) in between.
  const readAs3d = new Set(graph.outputs.map(o => o.name))
  graph.nodes.forEach((node, index) => {
    node.inputs.forEach((input, position) => { if (!lifted.has(index) || position > 0) readAs3d.add(input) })
  })
  // Each tensor a lifted convolution reads is unsqueezed once, however many read it.
  const unsqueezed = new Map<string, string>()
  const nodeParts: Uint8Array[] = []
  graph.nodes.forEach((node, index) => {
    if (!lifted.has(index)) {
      nodeParts.push(copy(node))
      return
    }
    const [input, ...rest] = node.inputs
    let input4d = unsqueezed.get(input)
    if (input4d === undefined) {
      input4d = freshName(taken, `${input}/chorus_lift`)
      unsqueezed.set(input, input4d)
      nodeParts.push(reshape('Unsqueeze', input, input4d))
    }
    const output = node.outputs[0]
    const output4d = freshName(taken, `${output}/chorus_lift`)
    nodeParts.push(liftedNode(bytes, node, [input4d, ...rest], [output4d]))
    unsqueezed.set(output, output4d)
    if (readAs3d.has(output)) nodeParts.push(reshape('Squeeze', output4d, output))
  })
  const initializerParts = graph.initializers.flatMap(initializer => {
    const dims = weights.get(initializer.name)
    return dims === undefined ? [copy(initializer)] : liftedWeight(bytes, initializer, dims)
  })
  // A value info of a result that is no longer made (never squeezed back) goes.
  const gone = new Set([...lifted].map(index => graph.nodes[index].outputs[0]).filter(name => !readAs3d.has(name)))
  const graphParts = [
    ...nodeParts, ...graph.otherGraphFields.map(copy), ...initializerParts, ...extraInitializers,
    ...graph.inputs.map(copy), ...graph.outputs.map(copy), ...graph.valueInfos.filter(v => !gone.has(v.name)).map(copy)
  ]
  return { bytes: modelWithGraph(graph.modelFields.map(copy), graphParts), lifted: lifted.size }
}
