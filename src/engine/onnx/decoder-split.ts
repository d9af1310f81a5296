// Cuts a Piper (VITS) graph in two where everything that remains is
// frame-local: the encoder (the model's inputs → the boundary tensors) and
// the chunked part (boundary → audio), which can then run on bounded chunks
// of frames. In Piper's exports the earliest such point is the flow's input
// (the sampled prior z_p and the mask y_mask, plus the speaker conditioning
// g), so the flow runs in the chunks with the HiFi-GAN decoder; the next one
// is the decoder's latent z · y_mask, as before.
//
// The cut is found from the graph's structure, not from names:
//  - walking the nodes in file order (ONNX graphs are topologically sorted),
//    the tensors live after a node are the boundary if it were cut there;
//    each must be frame-aligned (made from the text, [1, channels, frames],
//    frame axis last), apart from constants and "side" tensors that depend on
//    nothing but the speaker id (conditioning with no frame axis);
//  - every operation after the cut must be frame-local: convolutions that
//    keep the length, transposed convolutions whose output is exactly
//    stride × the input, pointwise maths, and slicing, splitting, joining or
//    reshaping along any axis but the frame axis (the flow's channel flips
//    and splits; its zeros made with ConstantOfShape(Shape(x)));
//  - of the cuts before the first convolution of that frame-local tail, the
//    one with the fewest live tensors is taken (the earliest of equals): all
//    the convolutions then run in the chunks, and the encoder hands over as
//    little as it can.
// The decoder cut (a single live tensor, the later point) is kept as the
// fallback; a graph with neither runs whole, as before.

import { bytesField, stringField } from './protobuf.js'
import { floatValueInfo, GRAPH_INPUT, GRAPH_NAME, GRAPH_OUTPUT, modelWithGraph } from './onnx-proto.js'
import { readModelGraph, type GraphNode, type ModelGraph, type Span } from './model-graph.js'

/** Operators applied to each element (with broadcasting of constants and
 * side tensors): frame-local whatever the shapes. */
const POINTWISE_OPS = new Set([
  'LeakyRelu', 'Relu', 'Tanh', 'Sigmoid', 'Add', 'Sub', 'Mul', 'Div', 'Identity', 'Neg', 'Abs', 'Clip', 'Sqrt',
  'Exp', 'Softplus', 'Pow', 'Erf'
])
/** Every operator the frame-local tail may hold (see frameLocalTail). */
const TAIL_OPS = new Set([...POINTWISE_OPS, 'Conv', 'ConvTranspose', 'Slice', 'Split', 'Concat', 'Unsqueeze', 'Squeeze', 'Shape', 'ConstantOfShape'])

/** The graph input that is not text: tensors made from it alone have no frame axis. */
const SPEAKER_INPUT = 'sid'
/** The graph inputs that carry the text, so everything with a frame axis depends on one. */
const TEXT_INPUTS = new Set(['input', 'input_lengths'])

/** Which part runs in chunks: the flow and the decoder, or the decoder only;
 * `staged`: the flow cut's encoder, then the flow and the decoder as two
 * sessions, so the flow runs once per frame (over a first chunk's window
 * only, when a stream needs its first audio soon) and the decoder decodes
 * only its own margins. */
export type SplitCut = 'flow' | 'decoder' | 'staged'

export interface DecoderSplit {
  cut: SplitCut
  encoder: Uint8Array
  decoder: Uint8Array
  /** The first boundary tensor, [1, channels, frames]: chunked along frames. */
  latent: string
  /** Other frame-aligned boundary tensors ([1, c, frames], the flow's mask): sliced with the latent. */
  framed: string[]
  /** Boundary tensors with no frame axis (speaker conditioning), passed whole to every chunk. */
  side: string[]
  /** Output samples per latent frame. */
  hopLength: number
  /** Frames of context the frame-rate part before the decoder's own latent
   * needs on each side (the flow's receptive field; 0 for the decoder cut). */
  contextFrames: number
  /** The encoder's extra output holding each phoneme id's length in frames
   * (see durationsTensor); absent when the graph has no such node. */
  durations?: string
  /** Staged: the flow (the boundary → `flowOutput`), between encoder and decoder. */
  flow?: Uint8Array
  /** Staged: the flow's output, the decoder's latent. */
  flowOutput?: string
}

/** What every thread needs to feed a split model's sessions (kept with them
 * in the addon, so a thread that finds them loaded knows it too). */
export interface SplitInfo {
  cut: SplitCut
  /** Boundary tensors after the latent that have a frame axis. */
  framed: number
  /** Frames of context the flow needs before the decoder (see DecoderSplit). */
  contextFrames: number
}

export type SplitResult = { mode: 'split', split: DecoderSplit } | { mode: 'whole', reason: string }

/** A cut found in the graph, not yet written out. */
export interface CutPlan {
  cut: SplitCut
  /** Index of the last node before the cut. */
  index: number
  latent: string
  framed: string[]
  hopLength: number
  contextFrames: number
}

export type SplitPlan = { mode: 'split', graph: ModelGraph, cuts: CutPlan[] } | { mode: 'whole', reason: string }

interface Classes {
  constant: Set<string>
  side: Set<string>
  /** Tensors that depend on the text (so may have a frame axis). */
  textual: Set<string>
}

function classify (graph: ModelGraph): Classes {
  const constant = new Set(graph.initializers.map(i => i.name))
  constant.add('') // an omitted optional input
  const side = new Set<string>()
  const textual = new Set<string>()
  for (const input of graph.inputs) {
    if (input.name === SPEAKER_INPUT) side.add(input.name)
    if (TEXT_INPUTS.has(input.name)) textual.add(input.name)
  }
  for (const node of graph.nodes) {
    const live = node.inputs.filter(i => !constant.has(i))
    if (live.length === 0) for (const o of node.outputs) constant.add(o)
    else if (live.every(i => side.has(i))) for (const o of node.outputs) side.add(o)
    if (live.some(i => textual.has(i))) for (const o of node.outputs) textual.add(o)
  }
  return { constant, side, textual }
}

/** The values of a constant integer tensor (a Constant node's output or an initializer). */
function constantInts (graph: ModelGraph, producers: Map<string, GraphNode>, name: string | undefined): number[] | undefined {
  if (name === undefined || name === '') return undefined
  const node = producers.get(name)
  if (node !== undefined) return node.opType === 'Constant' ? node.intValue : undefined
  return graph.initializers.find(i => i.name === name)?.intValue
}

/** What the tail analysis knows of a tensor: a frame-aligned activation of
 * `rank` dimensions (frame axis last), or the shape of one. */
interface Kind { shape: boolean, rank: number }

interface TailResult {
  hopLength: number
  /** Longest chain of frame-rate context (frames) reaching each tensor before the first upsampler. */
  context: Map<string, number>
}

/** What one node of the tail makes, the frames of context it adds on each
 * side, and how many times it upsamples the frame axis. */
interface TailStep { out: Kind, added: number, stride: number }

/** A 1-D convolution of the activation: same length (adds context) or an exact upsampler. */
function convStep (node: GraphNode, active: string[], rank: number): TailStep | string {
  if (active[0] !== node.inputs[0] || active.length !== 1 || rank !== 3) return 'not a 1-D convolution of the activation'
  const kernel = node.ints.kernel_shape?.[0] ?? 0
  const dilation = node.ints.dilations?.[0] ?? 1
  const stride = node.ints.strides?.[0] ?? 1
  const [padStart, padEnd] = node.ints.pads ?? [0, 0]
  if ((node.strings.auto_pad ?? 'NOTSET') !== 'NOTSET' || kernel === 0) return 'padding or kernel not given explicitly'
  const out = { shape: false, rank }
  if (node.opType === 'Conv') {
    // Same length in and out: output frame t sees input frames t ± the padding.
    if (stride !== 1 || padStart + padEnd !== (kernel - 1) * dilation) return 'changes the length'
    return { out, added: Math.max(padStart, padEnd), stride: 1 }
  }
  const extra = node.ints.output_padding?.[0] ?? 0
  if (node.ints.output_shape !== undefined || (kernel - 1) * dilation + 1 - padStart - padEnd + extra !== stride) {
    return 'output is not exactly stride × the input'
  }
  return { out, added: 0, stride }
}

/** One node's rule in the frame-local tail, given its frame-aligned inputs' kinds; or why it breaks frame locality. */
function tailStep (graph: ModelGraph, producers: Map<string, GraphNode>, node: GraphNode, active: string[], known: Kind[]): TailStep | string {
  const framed = known.filter(k => !k.shape)
  const rank = Math.max(...known.map(k => k.rank))
  const axis = (a: number, r = rank) => (a < 0 ? a + r : a)
  const touchesFrames = (axes: number[] | undefined, r = rank) => axes === undefined || axes.some(a => axis(a, r) === r - 1)
  const axesInput = () => node.inputs.length > 1 ? constantInts(graph, producers, node.inputs[1]) : node.ints.axes
  const step = (out: Kind = { shape: false, rank }): TailStep => ({ out, added: 0, stride: 1 })
  switch (node.opType) {
    case 'Shape':
      return node.ints.start !== undefined || node.ints.end !== undefined ? 'a partial shape' : step({ shape: true, rank })
    case 'ConstantOfShape':
      return known[0].shape !== true ? 'not the shape of a frame-aligned tensor' : step({ shape: false, rank: known[0].rank })
    case 'Conv':
    case 'ConvTranspose':
      return convStep(node, active, rank)
    case 'Slice': {
      const axes = node.inputs.length > 3 ? constantInts(graph, producers, node.inputs[3]) : node.ints.axes
      const bounds = [1, 2, 4].map(i => node.inputs[i] === undefined || node.inputs[i] === '' || constantInts(graph, producers, node.inputs[i]) !== undefined)
      return touchesFrames(axes) || bounds.includes(false) || framed.length !== 1 ? 'slices the frame axis, or with computed bounds' : step()
    }
    case 'Split':
      return touchesFrames(node.ints.axis ?? [0]) || framed.length !== 1 ? 'splits the frame axis' : step()
    case 'Concat':
      return touchesFrames(node.ints.axis) || active.length !== node.inputs.length ? 'joins along the frame axis, or with constants' : step()
    case 'Unsqueeze': {
      const axes = axesInput()
      const newRank = rank + (axes?.length ?? 0)
      return touchesFrames(axes, newRank) || framed.length !== 1 ? 'puts an axis after the frame axis' : step({ shape: false, rank: newRank })
    }
    case 'Squeeze': {
      const axes = axesInput()
      return touchesFrames(axes) || framed.length !== 1 ? 'may drop the frame axis' : step({ shape: false, rank: rank - (axes?.length ?? 0) })
    }
    default:
      return framed.length !== known.length ? 'pointwise maths on a shape' : step()
  }
}

/** Checks that every node after `cut` is frame-local when the tensors in
 * `boundary` are [1, c, frames]; returns the index of the first node that is
 * not, with why. */
function frameLocalTail (graph: ModelGraph, classes: Classes, cut: number, boundary: string[]): TailResult | { at: number, why: string } {
  const { constant, side } = classes
  const producers = producersOf(graph)
  const kinds = new Map<string, Kind>(boundary.map(name => [name, { shape: false, rank: 3 }]))
  const context = new Map<string, number>(boundary.map(name => [name, 0]))
  let hopLength = 1
  for (let index = cut + 1; index < graph.nodes.length; index++) {
    const node = graph.nodes[index]
    const active = node.inputs.filter(i => !constant.has(i) && !side.has(i))
    if (active.length === 0) continue // constants and speaker conditioning: no frame axis
    const fail = (why: string) => ({ at: index, why: `${node.opType} node ${index}: ${why}` })
    if (node.domain !== '' || !TAIL_OPS.has(node.opType)) return fail('not a frame-local operator')
    const inputKinds = active.map(i => kinds.get(i))
    if (inputKinds.some(k => k === undefined)) return fail('reads a tensor that is not frame-aligned')
    const step = tailStep(graph, producers, node, active, inputKinds as Kind[])
    if (typeof step === 'string') return fail(step)
    hopLength *= step.stride
    const reach = Math.max(...active.map(i => context.get(i) ?? 0))
    for (const o of node.outputs) {
      kinds.set(o, step.out)
      if (hopLength === 1) context.set(o, reach + step.added)
    }
  }
  return { hopLength, context }
}

/** The tensors live right after each node: made at or before it, read after it. */
function liveAfter (graph: ModelGraph, classes: Classes): string[][] {
  const { constant, side } = classes
  const output = graph.outputs[0].name
  const lastUse = new Map<string, number>()
  graph.nodes.forEach((node, index) => { for (const i of node.inputs) lastUse.set(i, index) })
  lastUse.set(output, Number.POSITIVE_INFINITY)
  const live = new Set<string>()
  return graph.nodes.map((node, index) => {
    for (const i of node.inputs) if (lastUse.get(i) === index) live.delete(i)
    for (const o of node.outputs) if (!constant.has(o) && !side.has(o) && (lastUse.get(o) ?? -1) > index) live.add(o)
    return [...live]
  })
}

/** Nothing before the last operator that is not frame-local by type can be in the tail. */
function tailStart (graph: ModelGraph, isActivation: (t: string) => boolean): number {
  for (let i = graph.nodes.length - 1; i >= 0; i--) {
    const node = graph.nodes[i]
    if (node.outputs.some(isActivation) && !(TAIL_OPS.has(node.opType) && node.domain === '')) return i
  }
  return 0
}

/** Each tensor's producing node. */
function producersOf (graph: ModelGraph): Map<string, GraphNode> {
  const producers = new Map<string, GraphNode>()
  for (const node of graph.nodes) for (const o of node.outputs) producers.set(o, node)
  return producers
}

/** Finds the cuts, preferred first. */
export function planSplit (graph: ModelGraph): SplitPlan {
  if (graph.outputs.length !== 1) return { mode: 'whole', reason: `the model has ${graph.outputs.length} outputs, not one` }
  const classes = classify(graph)
  const { constant, side, textual } = classes
  const isActivation = (t: string) => !constant.has(t) && !side.has(t)
  const producers = producersOf(graph)
  const lives = liveAfter(graph, classes)

  // A node is a possible cut when what it makes is live and everything live
  // could be frame-aligned: made from the text, and not a shape.
  const possible = (index: number) => {
    const live = lives[index]
    const node = graph.nodes[index]
    return live.length > 0 && node.outputs.some(o => live.includes(o)) && !live.includes(graph.outputs[0].name) &&
      live.every(t => textual.has(t) && producers.get(t)?.opType !== 'Shape')
  }
  const from = tailStart(graph, isActivation)

  const plan = (index: number): CutPlan | { at: number, why: string } => {
    const node = graph.nodes[index]
    const live = lives[index]
    // The tensor this node made leads: it carries the channels to chunk.
    const latent = node.outputs.find(o => live.includes(o)) as string
    const tail = frameLocalTail(graph, classes, index, live)
    if ('at' in tail) return tail
    if (tail.hopLength === 1) return { at: graph.nodes.length, why: 'the part after the cut does not upsample' }
    return { cut: 'decoder', index, latent, framed: live.filter(t => t !== latent), hopLength: tail.hopLength, contextFrames: 0 }
  }

  let reason = 'no cut leaves a frame-local part'
  let early: CutPlan | undefined
  for (let bound = from; bound < graph.nodes.length && early === undefined;) {
    const firstConv = graph.nodes.findIndex((n, i) => i > bound && (n.opType === 'Conv' || n.opType === 'ConvTranspose') && n.outputs.some(isActivation))
    const candidates: number[] = []
    for (let i = bound; i < graph.nodes.length; i++) if (possible(i)) candidates.push(i)
    if (candidates.length === 0) break
    const window = candidates.filter(i => firstConv === -1 || i < firstConv)
    const pool = window.length > 0 ? window : candidates
    const best = pool.reduce((a, b) => (lives[b].length < lives[a].length ? b : a))
    const result = plan(best)
    if ('at' in result) {
      reason = `no frame-local part after the cut (${result.why})`
      bound = Math.max(result.at, best + 1)
    } else early = result
  }
  if (early === undefined) return { mode: 'whole', reason }

  // The decoder's own latent: the first single live tensor from the early cut on.
  const single = lives.findIndex((live, i) => i >= early.index && live.length === 1 && possible(i))
  const decoder = single === -1 ? undefined : plan(single)
  const cuts: CutPlan[] = []
  if (decoder === undefined || 'at' in decoder || decoder.index === early.index) {
    cuts.push(early)
  } else {
    const tail = frameLocalTail(graph, classes, early.index, [early.latent, ...early.framed])
    const contextFrames = 'at' in tail ? 0 : tail.context.get(decoder.latent) ?? 0
    cuts.push({ ...early, cut: 'flow', contextFrames }, decoder)
  }
  return { mode: 'split', graph, cuts }
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

function buildModel (graph: ModelGraph, parts: {
  nodes: number[], inputs: Uint8Array[], outputs: Uint8Array[], name: string
}): Uint8Array {
  const { bytes } = graph
  const copy = (s: Span) => bytes.subarray(s.start, s.end)
  const used = new Set<string>()
  for (const index of parts.nodes) for (const i of graph.nodes[index].inputs) used.add(i)
  const graphParts: Uint8Array[] = [
    ...parts.nodes.map(index => copy(graph.nodes[index])),
    stringField(GRAPH_NAME, parts.name),
    ...graph.initializers.filter(i => used.has(i.name)).map(copy),
    ...parts.inputs,
    ...parts.outputs
  ]
  return modelWithGraph(graph.modelFields.map(copy), graphParts)
}

/** Piper's per-id durations in frames: the one Ceil made from the text
 * before the cut (VITS rounds each id's predicted length up, then sums the
 * lengths into the frame count), so an extra output of the encoder gives the
 * timing from the same run. Undefined unless exactly one such node exists. */
function durationsTensor (graph: ModelGraph, plan: CutPlan, textual: Set<string>): string | undefined {
  const ceils = graph.nodes.filter((node, index) => index <= plan.index && node.opType === 'Ceil' && node.domain === '' &&
    node.outputs.length === 1 && textual.has(node.outputs[0]))
  return ceils.length === 1 ? ceils[0].outputs[0] : undefined
}

/** The nodes after the cut at `index` that make `targets` from the tensors in
 * `stop` (constants they read included). */
function partAfter (graph: ModelGraph, constant: Set<string>, index: number, targets: string[], stop: string[]): number[] {
  return needed(graph.nodes, targets, new Set(stop))
    .filter(i => i > index || graph.nodes[i].outputs.every(o => constant.has(o)))
}

/** One cut's parts by name (no bytes written yet): the chunked part's nodes,
 * and the tensors the encoder hands over. */
interface CutLayout {
  plan: CutPlan
  decoderNodes: number[]
  /** Side tensors the chunked part reads (the speaker's conditioning). */
  side: string[]
  /** The chunked part's inputs: the latent, the framed tensors, the side tensors. */
  boundary: string[]
  durations?: string
}

function layoutOf (graph: ModelGraph, classes: Classes, plan: CutPlan): CutLayout | string {
  const { constant, side, textual } = classes
  const framedBoundary = [plan.latent, ...plan.framed]
  const decoderNodes = partAfter(graph, constant, plan.index, [graph.outputs[0].name], framedBoundary)
  const decoderInputs = new Set<string>()
  for (const index of decoderNodes) {
    for (const input of graph.nodes[index].inputs) if (side.has(input)) decoderInputs.add(input)
  }
  // Side tensors made before the cut (the speaker's embedding) are the
  // encoder's outputs; those the decoder makes itself are not inputs.
  const made = new Set(decoderNodes.flatMap(index => graph.nodes[index].outputs))
  const sideInputs = [...decoderInputs].filter(t => !made.has(t))
  if (sideInputs.some(name => graph.inputs.some(i => i.name === name))) {
    return 'the decoder reads a graph input directly, not the encoder\'s result'
  }
  const durations = durationsTensor(graph, plan, textual)
  return { plan, decoderNodes, side: sideInputs, boundary: [...framedBoundary, ...sideInputs], ...(durations !== undefined ? { durations } : {}) }
}

function encoderOf (graph: ModelGraph, layout: CutLayout): Uint8Array {
  const outputs = layout.durations === undefined ? layout.boundary : [...layout.boundary, layout.durations]
  return buildModel(graph, {
    name: 'chorus-encoder',
    nodes: needed(graph.nodes, outputs, new Set()),
    inputs: graph.inputs.map(i => graph.bytes.subarray(i.start, i.end)),
    outputs: outputs.map(name => bytesField(GRAPH_OUTPUT, floatValueInfo(name)))
  })
}

function decoderOf (graph: ModelGraph, layout: CutLayout): Uint8Array {
  return buildModel(graph, {
    name: 'chorus-decoder',
    nodes: layout.decoderNodes,
    inputs: layout.boundary.map(name => bytesField(GRAPH_INPUT, floatValueInfo(name))),
    outputs: graph.outputs.map(o => graph.bytes.subarray(o.start, o.end))
  })
}

/** The split for an encoder cut at `layout` and a given decoder. */
function splitOf (layout: CutLayout, encoder: Uint8Array, decoder: Uint8Array): DecoderSplit {
  const { plan, durations } = layout
  return {
    cut: plan.cut, encoder, decoder, latent: plan.latent, framed: plan.framed, side: layout.side,
    hopLength: plan.hopLength, contextFrames: plan.contextFrames, ...(durations !== undefined ? { durations } : {})
  }
}

/** Writes the encoder and the chunked part for one cut, or says why it cannot. */
export function cutModel (graph: ModelGraph, plan: CutPlan): DecoderSplit | string {
  const layout = layoutOf(graph, classify(graph), plan)
  return typeof layout === 'string' ? layout : splitOf(layout, encoderOf(graph, layout), decoderOf(graph, layout))
}

/** The staged split of a plan's two cuts (the flow's, then the decoder's):
 * the flow cut's encoder, the flow (the flow cut's boundary → the decoder
 * cut's latent) and the decoder cut's decoder, or why there is none. The
 * decoder's side tensors must be ones the encoder hands over already. */
export function cutStaged (graph: ModelGraph, cuts: CutPlan[]): DecoderSplit | string {
  if (cuts.length !== 2) return 'the graph has no flow cut'
  const classes = classify(graph)
  const early = layoutOf(graph, classes, cuts[0])
  if (typeof early === 'string') return early
  const late = layoutOf(graph, classes, cuts[1])
  if (typeof late === 'string') return late
  if (late.side.some(name => !early.side.includes(name))) return 'the decoder reads a speaker tensor the encoder does not hand over'
  const flowOutput = late.plan.latent
  const nodes = partAfter(graph, classes.constant, early.plan.index, [flowOutput], [early.plan.latent, ...early.plan.framed])
  const read = new Set(nodes.flatMap(index => graph.nodes[index].inputs))
  const made = new Set(nodes.flatMap(index => graph.nodes[index].outputs))
  const inputs = [early.plan.latent, ...early.plan.framed, ...early.side.filter(name => read.has(name) && !made.has(name))]
  const flow = buildModel(graph, {
    name: 'chorus-flow',
    nodes,
    inputs: inputs.map(name => bytesField(GRAPH_INPUT, floatValueInfo(name))),
    outputs: [bytesField(GRAPH_OUTPUT, floatValueInfo(flowOutput))]
  })
  return { ...splitOf(early, encoderOf(graph, early), decoderOf(graph, late)), cut: 'staged', flow, flowOutput }
}

/** Cuts the model at its preferred cut (or the decoder cut, when asked), or
 * says why it runs whole. Never throws for a model that merely has another
 * shape; throws ProtobufError for bytes that are not ONNX. */
export function splitDecoder (modelBytes: Uint8Array, options: { cut?: SplitCut } = {}): SplitResult {
  const plan = planSplit(readModelGraph(modelBytes))
  if (plan.mode === 'whole') return plan
  let reason = ''
  if (options.cut === 'staged') {
    const split = cutStaged(plan.graph, plan.cuts)
    return typeof split === 'string' ? { mode: 'whole', reason: split } : { mode: 'split', split }
  }
  for (const cut of plan.cuts) {
    if (options.cut !== undefined && cut.cut !== options.cut) continue
    const split = cutModel(plan.graph, cut)
    if (typeof split !== 'string') return { mode: 'split', split }
    reason = split
  }
  return { mode: 'whole', reason: reason === '' ? `the model has no ${options.cut ?? ''} cut` : reason }
}
