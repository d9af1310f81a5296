// Finds where a Piper (VITS) graph hands its latent to the HiFi-GAN decoder
// and cuts the one model into two: encoder (the model's inputs → latent) and
// decoder (latent → audio), so the decoder can run on bounded chunks.
//
// The boundary is found from the graph's structure, not from names:
//  - walking the nodes in file order (ONNX graphs are topologically sorted),
//    a tensor is a cut when, right after the node that makes it, it is the
//    only live activation: everything later depends on it alone, apart from
//    constants and "side" tensors that depend on nothing but the speaker id
//    (a multi-speaker decoder's conditioning, which has no frame axis);
//  - the decoder is the part after the earliest cut from which every
//    remaining operation is frame-local (convolutions, transposed
//    convolutions, pointwise maths), and it must upsample (a ConvTranspose):
//    then samples per frame is the product of its strides.
// Anything else (a graph without such a cut, an unexpected operator after
// it) is not split: that voice runs whole, as before.

import { bytesField, bytesFieldHeader, concat, stringField, varintField } from './protobuf.js'
import { readModelGraph, type GraphNode, type ModelGraph, type Span } from './model-graph.js'

/** Operators that compute each output frame from a bounded window of input
 * frames, so a chunk decoded with enough context equals the whole. */
const FRAME_LOCAL_OPS = new Set([
  'Conv', 'ConvTranspose', 'LeakyRelu', 'Relu', 'Tanh', 'Sigmoid', 'Add', 'Sub', 'Mul', 'Div',
  'Identity', 'Neg', 'Abs', 'Clip', 'Sqrt', 'Exp', 'Softplus', 'Pow',
  // Shape-only, with constant axes: Piper adds the output's unit axes this way.
  'Unsqueeze', 'Squeeze'
])

/** Graph inputs that carry the text (and so the frame count): only `sid` is not among them. */
const SPEAKER_INPUT = 'sid'

export interface DecoderSplit {
  encoder: Uint8Array
  decoder: Uint8Array
  /** The latent [1, channels, frames] the decoder takes, chunked along frames. */
  latent: string
  /** Other decoder inputs (speaker conditioning), passed whole to every chunk. */
  side: string[]
  /** Output samples per latent frame. */
  hopLength: number
}

export type SplitResult = { mode: 'split', split: DecoderSplit } | { mode: 'whole', reason: string }

interface Analysis {
  /** Index of the node after which the latent is the only live activation. */
  cut: number
  latent: string
  hopLength: number
}

function classify (graph: ModelGraph): { constant: Set<string>, side: Set<string> } {
  const constant = new Set(graph.initializers.map(i => i.name))
  constant.add('') // an omitted optional input
  const side = new Set<string>()
  const inputNames = new Set(graph.inputs.map(i => i.name))
  for (const name of inputNames) if (name === SPEAKER_INPUT) side.add(name)
  for (const node of graph.nodes) {
    const live = node.inputs.filter(i => !constant.has(i))
    if (live.length === 0) for (const o of node.outputs) constant.add(o)
    else if (live.every(i => side.has(i))) for (const o of node.outputs) side.add(o)
  }
  return { constant, side }
}

function analyse (graph: ModelGraph, constant: Set<string>, side: Set<string>): Analysis | string {
  if (graph.outputs.length !== 1) return `the model has ${graph.outputs.length} outputs, not one`
  const output = graph.outputs[0].name
  const isActivation = (t: string) => !constant.has(t) && !side.has(t)
  const lastUse = new Map<string, number>()
  graph.nodes.forEach((node, index) => { for (const i of node.inputs) lastUse.set(i, index) })
  lastUse.set(output, Number.POSITIVE_INFINITY)

  // Cuts, in file order.
  const cuts: Array<{ index: number, tensor: string }> = []
  const live = new Set<string>()
  graph.nodes.forEach((node, index) => {
    for (const i of node.inputs) if (lastUse.get(i) === index) live.delete(i)
    for (const o of node.outputs) if (isActivation(o) && (lastUse.get(o) ?? -1) > index) live.add(o)
    if (live.size === 1 && node.outputs.includes([...live][0])) cuts.push({ index, tensor: [...live][0] })
  })

  // The earliest cut after which everything is frame-local.
  let localFrom = graph.nodes.length
  for (let i = graph.nodes.length - 1; i >= 0; i--) {
    const node = graph.nodes[i]
    const computesActivation = node.outputs.some(isActivation)
    if (computesActivation && !(FRAME_LOCAL_OPS.has(node.opType) && node.domain === '')) break
    localFrom = i
  }
  const cut = cuts.find(c => c.index >= localFrom - 1 && c.tensor !== output)
  if (cut === undefined) return 'no single latent tensor feeds a frame-local decoder'
  const upsamplers = graph.nodes.slice(cut.index + 1).filter(n => n.opType === 'ConvTranspose' && n.outputs.some(isActivation))
  if (upsamplers.length === 0) return 'the part after the latent does not upsample'
  const hopLength = upsamplers.reduce((product, n) => product * (n.ints.strides?.[0] ?? 1), 1)
  if (upsamplers.some(n => (n.ints.strides?.length ?? 0) !== 1)) return 'the upsampling is not one-dimensional'
  return { cut: cut.index, latent: cut.tensor, hopLength }
}

/** The nodes (indexes) that `targets` need, walking back from them. */
function needed (nodes: GraphNode[], targets: string[], stop: Set<string>): number[] {
  const producer = new Map<string, number>()
  nodes.forEach((node, index) => { for (const o of node.outputs) producer.set(o, index) })
  const wanted = new Set<number>()
  const queue = targets.filter(t => !stop.has(t))
  while (queue.length > 0) {
    const tensor = queue.pop() as string
    const index = producer.get(tensor)
    if (index === undefined || wanted.has(index)) continue
    wanted.add(index)
    for (const input of nodes[index].inputs) if (!stop.has(input)) queue.push(input)
  }
  return [...wanted].sort((a, b) => a - b)
}

// A float tensor of unknown shape: enough for a graph input or output, ONNX
// Runtime infers the rest.
function floatValueInfo (name: string): Uint8Array {
  const tensorType = varintField(1, 1) // elem_type FLOAT
  const typeProto = bytesField(1, tensorType) // TypeProto.tensor_type
  return concat([stringField(1, name), bytesField(2, typeProto)])
}

function buildModel (graph: ModelGraph, parts: {
  nodes: number[], inputs: Uint8Array[], outputs: Uint8Array[], name: string
}): Uint8Array {
  const { bytes } = graph
  const copy = (s: Span) => bytes.subarray(s.start, s.end)
  const used = new Set<string>()
  for (const index of parts.nodes) for (const i of graph.nodes[index].inputs) used.add(i)
  const graphParts: Uint8Array[] = [
    ...parts.nodes.map(index => copy(graph.nodes[index])),
    stringField(2, parts.name),
    ...graph.initializers.filter(i => used.has(i.name)).map(copy),
    ...parts.inputs,
    ...parts.outputs
  ]
  const graphLength = graphParts.reduce((sum, p) => sum + p.length, 0)
  return concat([...graph.modelFields.map(copy), bytesFieldHeader(7, graphLength), ...graphParts])
}

/** Cuts the model, or says why it runs whole. Never throws for a model that
 * merely has another shape; throws ProtobufError for bytes that are not ONNX. */
export function splitDecoder (modelBytes: Uint8Array): SplitResult {
  const graph = readModelGraph(modelBytes)
  const { constant, side } = classify(graph)
  const analysis = analyse(graph, constant, side)
  if (typeof analysis === 'string') return { mode: 'whole', reason: analysis }

  const output = graph.outputs[0].name
  const decoderNodes = needed(graph.nodes, [output], new Set([analysis.latent]))
    .filter(index => index > analysis.cut || graph.nodes[index].outputs.every(o => constant.has(o)))
  const decoderInputs = new Set<string>()
  for (const index of decoderNodes) {
    for (const input of graph.nodes[index].inputs) if (side.has(input)) decoderInputs.add(input)
  }
  // Side tensors made before the cut (the speaker's embedding) are the
  // encoder's outputs; those the decoder makes itself are not inputs.
  const made = new Set(decoderNodes.flatMap(index => graph.nodes[index].outputs))
  const sideInputs = [...decoderInputs].filter(t => !made.has(t))
  if (sideInputs.some(name => graph.inputs.some(i => i.name === name))) {
    return { mode: 'whole', reason: 'the decoder reads a graph input directly, not the encoder\'s result' }
  }
  const boundary = [analysis.latent, ...sideInputs]

  const encoderNodes = needed(graph.nodes, boundary, new Set())
  const encoder = buildModel(graph, {
    name: 'chorus-encoder',
    nodes: encoderNodes,
    inputs: graph.inputs.map(i => modelBytes.subarray(i.start, i.end)),
    outputs: boundary.map(name => bytesField(12, floatValueInfo(name)))
  })
  const decoder = buildModel(graph, {
    name: 'chorus-decoder',
    nodes: decoderNodes,
    inputs: boundary.map(name => bytesField(11, floatValueInfo(name))),
    outputs: graph.outputs.map(o => modelBytes.subarray(o.start, o.end))
  })
  return { mode: 'split', split: { encoder, decoder, latent: analysis.latent, side: sideInputs, hopLength: analysis.hopLength } }
}
