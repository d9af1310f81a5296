// VITS's text encoder attends with relative positions: each layer adds to
// its attention logits the query's dot product with a learnt embedding of
// each offset within ±window, and to its output the attention weights'
// sum over a second set of embeddings. Piper's export writes that for every
// offset of an L-phoneme sentence, -(L-1) … L-1: the 2·window+1 embeddings
// padded with zeros to 2L-1 rows, a MatMul over all of them, and a chain of
// pads, reshapes and slices that moves the [L, 2L-1] result to [L, L] (and
// the weights the other way). Outside the window every term is a zero, so
// for a long sentence most of that arithmetic multiplies zeros: about a
// quarter of a 45-word sentence's encoder (docs/engine.md).
//
// This rewrite computes the window only, with the same products summed in
// the same order (but where ONNX Runtime's GEMM sums a long row in blocks
// and the window straddles two: docs/engine.md): the logits as the query times the 2·window+1 embeddings,
// placed on the band around the diagonal of [L, L]; the output as the
// weights' band times the embeddings. What it replaces is recognised by its
// structure (the embedding reached through layout operators only, the
// export's Pad → Reshape → Pad → Reshape → Slice chains), not by names;
// anything else is left as it was. Nodes only the old chains read are
// dropped.

import { defaultOpset, freshName, graphLinks, int64Initializer, intAttribute, intsAttribute, nodeMessage, tensorNames, type GraphLinks } from './graph-edit.js'
import { payloadOf, readModelGraph, readSingleFloat, readTensorFields, type GraphNode, type ModelGraph, type Span } from './model-graph.js'
import { modelWithGraph, TYPE_FLOAT } from './onnx-proto.js'

/** Pad takes its pads as an input from opset 11; the rewrite writes that form. */
const PADS_AS_INPUT_OPSET = 11

/** Operators that move an embedding's values without computing new ones. */
const LAYOUT_OPS = new Set(['Pad', 'Slice', 'Unsqueeze', 'Transpose'])

/** No export puts more layout steps between an embedding and its MatMul. */
const MAX_LAYOUT_STEPS = 8

/** The export's chain between the MatMul and [L, L] (logits), and between
 * [L, L] and the MatMul (weights): the same steps both ways. It ends in
 * slices, one for several axes or one per axis (a traced export may slice
 * an axis whole too), MAX_SLICES at most. */
const EXPORT_CHAIN = ['Pad', 'Reshape', 'Pad', 'Reshape', 'Slice']
const MAX_SLICES = 4

export interface BandResult {
  bytes: Uint8Array
  /** Relative-position products rewritten (two per attention layer); 0
   * leaves `bytes` the model as it was. */
  rewritten: number
}

interface Band {
  kind: 'logits' | 'output'
  /** The MatMul over every offset. */
  matmul: number
  /** The node whose output the rewrite makes instead (the chain's last slice, or the MatMul). */
  replaced: number
  /** The query (logits) or the attention weights [B, H, L, L] (output). */
  input: string
  /** The embeddings [1, 2·window+1, d]. */
  embedding: string
  window: number
}

/** A constant-mode Pad with a zero (or no) pad value. */
function padsWithZeros (node: GraphNode, weights: Weights): boolean {
  if ((node.strings.mode ?? 'constant') !== 'constant') return false
  const value = node.inputs[2]
  return value === undefined || value === '' || weights.zeros.has(value)
}

/** A permutation that swaps the last two axes and keeps the others. */
function swapsLastTwo (perm: number[] | undefined): boolean {
  if (perm === undefined || perm.length < 2) return false
  const n = perm.length
  return perm.every((axis, i) => i < n - 2 ? axis === i : axis === (i === n - 1 ? n - 2 : n - 1))
}

interface Weights {
  /** Dimensions of every float initializer. */
  dims: Map<string, number[]>
  /** Tensors that are a single float zero (initializers, Constant nodes). */
  zeros: Set<string>
}

function floatConstants (graph: ModelGraph): Weights {
  const dims = new Map<string, number[]>()
  const zeros = new Set<string>()
  for (const initializer of graph.initializers) {
    const { start, end } = payloadOf(graph.bytes, initializer)
    const tensor = readTensorFields(graph.bytes, start, end)
    if (tensor.type !== TYPE_FLOAT) continue
    dims.set(initializer.name, tensor.dims)
    if (readSingleFloat(graph.bytes, start, end) === 0) zeros.add(initializer.name)
  }
  for (const node of graph.nodes) if (node.opType === 'Constant' && node.floatValue === 0) zeros.add(node.outputs[0])
  return { dims, zeros }
}

/** The relative embeddings a MatMul operand is laid out from: an
 * initializer [1, 2·window+1, d] reached through layout operators alone
 * (at most one transpose, of the last two axes). */
function embeddingOf (graph: ModelGraph, links: GraphLinks, weights: Weights, tensor: string): { name: string, window: number, transposed: boolean } | undefined {
  let name = tensor
  let transposes = 0
  for (let steps = 0; !weights.dims.has(name); steps++) {
    const index = links.producer.get(name)
    if (index === undefined || steps === MAX_LAYOUT_STEPS) return undefined
    const node = graph.nodes[index]
    if (node.domain !== '' || !LAYOUT_OPS.has(node.opType)) return undefined
    if (node.opType === 'Pad' && !padsWithZeros(node, weights)) return undefined
    if (node.opType === 'Transpose' && (!swapsLastTwo(node.ints.perm) || ++transposes > 1)) return undefined
    name = node.inputs[0]
  }
  const dims = weights.dims.get(name) as number[]
  if (dims.length !== 3 || dims[0] !== 1 || dims[1] < 3 || dims[1] % 2 !== 1) return undefined
  return { name, window: (dims[1] - 1) / 2, transposed: transposes === 1 }
}

/** The nodes reading `tensor`'s values: Shape reads only its shape (the
 * export reads the sizes of the tensors its chains reshape). */
function valueReaders (graph: ModelGraph, links: GraphLinks, tensor: string): number[] {
  return (links.readers.get(tensor) ?? []).filter(index => index < 0 || graph.nodes[index].opType !== 'Shape')
}

/** The only node reading `tensor`'s values, as its first input, when it is of type `op`. */
function soleReader (graph: ModelGraph, links: GraphLinks, tensor: string, op: string): number | undefined {
  const readers = valueReaders(graph, links, tensor)
  if (readers.length !== 1 || readers[0] < 0) return undefined
  const node = graph.nodes[readers[0]]
  return node.opType === op && node.domain === '' && node.inputs[0] === tensor && node.inputs.indexOf(tensor, 1) < 0 ? readers[0] : undefined
}

/** Follows `ops` forward from `tensor` (each step the only reader of its
 * values), then more Slices up to MAX_SLICES in all: the chain's last node. */
function chainFrom (graph: ModelGraph, links: GraphLinks, weights: Weights, tensor: string, ops: string[]): number | undefined {
  let last = -1
  for (const op of ops) {
    const next = soleReader(graph, links, last < 0 ? tensor : graph.nodes[last].outputs[0], op)
    if (next === undefined || (op === 'Pad' && !padsWithZeros(graph.nodes[next], weights))) return undefined
    last = next
  }
  for (let slices = 1; slices < MAX_SLICES; slices++) {
    const next = soleReader(graph, links, graph.nodes[last].outputs[0], 'Slice')
    if (next === undefined) break
    last = next
  }
  return last
}

/** Follows `ops` backward to `tensor` (each intermediate's values read
 * only by the next step), after more Slices up to MAX_SLICES in all: the
 * chain's first input. */
function chainTo (graph: ModelGraph, links: GraphLinks, weights: Weights, tensor: string, ops: string[]): string | undefined {
  const producerOf = (name: string, op: string): GraphNode | undefined => {
    const index = links.producer.get(name)
    const node = index === undefined ? undefined : graph.nodes[index]
    return node?.opType === op && node.domain === '' && valueReaders(graph, links, name).length === 1 ? node : undefined
  }
  let current = tensor
  for (let slices = 1; slices < MAX_SLICES; slices++) {
    const extra = producerOf(current, 'Slice')
    if (extra === undefined || producerOf(extra.inputs[0], 'Slice') === undefined) break
    current = extra.inputs[0]
  }
  for (const op of [...ops].reverse()) {
    const node = producerOf(current, op)
    if (node === undefined || (op === 'Pad' && !padsWithZeros(node, weights))) return undefined
    current = node.inputs[0]
  }
  return current
}

/** Every relative-position product the rewrite can take over. */
function findBands (graph: ModelGraph, links: GraphLinks): Band[] {
  const weights = floatConstants(graph)
  const bands: Band[] = []
  graph.nodes.forEach((node, matmul) => {
    if (node.opType !== 'MatMul' || node.domain !== '' || node.inputs.length !== 2) return
    const embedding = embeddingOf(graph, links, weights, node.inputs[1])
    if (embedding === undefined) return
    if (embedding.transposed) {
      const replaced = chainFrom(graph, links, weights, node.outputs[0], EXPORT_CHAIN)
      if (replaced !== undefined) bands.push({ kind: 'logits', matmul, replaced, input: node.inputs[0], embedding: embedding.name, window: embedding.window })
      return
    }
    const input = chainTo(graph, links, weights, node.inputs[0], EXPORT_CHAIN)
    if (input !== undefined) bands.push({ kind: 'output', matmul, replaced: matmul, input, embedding: embedding.name, window: embedding.window })
  })
  return bands
}

/** Writes the band computations: int64 constants (one initializer per
 * distinct value list) and nodes with fresh names. */
class BandWriter {
  readonly initializers: Uint8Array[] = []
  private readonly constants = new Map<string, string>()

  constructor (private readonly taken: Set<string>) {}

  constant (values: number[]): string {
    const key = values.join(',')
    let name = this.constants.get(key)
    if (name === undefined) {
      name = freshName(this.taken, `chorus_band_${values.length === 1 ? values[0] : values.length}`)
      this.constants.set(key, name)
      this.initializers.push(int64Initializer(name, values))
    }
    return name
  }

  /** One node; its output is `output`, or a fresh name from `base`. */
  node (nodes: Uint8Array[], opType: string, inputs: string[], base: string, output?: string, attributes: Uint8Array[] = []): string {
    const name = output ?? freshName(this.taken, base)
    nodes.push(nodeMessage(opType, inputs, [name], attributes))
    return name
  }

  /** [B, H] and [L] of a [B, H, L, …] tensor. */
  private dims (nodes: Uint8Array[], x: string): { bh: string, length: string } {
    const shape = this.node(nodes, 'Shape', [x], `${x}/chorus_band_shape`)
    const bh = this.node(nodes, 'Slice', [shape, this.constant([0]), this.constant([2])], `${x}/chorus_band_bh`)
    const length = this.node(nodes, 'Slice', [shape, this.constant([2]), this.constant([3])], `${x}/chorus_band_length`)
    return { bh, length }
  }

  /** [B, H, L, K] logits by offset (K = 2w+1) → [B, H, L, L] by position:
   * out[i][j] = x[i][j - i + w] within the band, 0 outside. Each row padded
   * to L + K and read back with a stride one shorter shifts it by one more
   * place than the row before. */
  toAbsolute (nodes: Uint8Array[], x: string, w: number, output: string): void {
    const { bh, length } = this.dims(nodes, x)
    const base = `${output}/chorus_band`
    const rowPads = this.node(nodes, 'Concat', [this.constant([0, 0, 0, 0, 0, 0, 0]), length], `${base}_pads`, undefined, [intAttribute('axis', 0)])
    const wide = this.node(nodes, 'Pad', [x, rowPads], `${base}_wide`)
    const flatShape = this.node(nodes, 'Concat', [bh, this.constant([-1])], `${base}_flat_shape`, undefined, [intAttribute('axis', 0)])
    const flat = this.node(nodes, 'Reshape', [wide, flatShape], `${base}_flat`)
    const padded = this.node(nodes, 'Pad', [flat, this.constant([0, 0, 0, 0, 0, w])], `${base}_padded`)
    const stride = this.node(nodes, 'Add', [length, this.constant([2 * w])], `${base}_stride`)
    const end = this.node(nodes, 'Add', [this.node(nodes, 'Mul', [length, stride], `${base}_span`), this.constant([w])], `${base}_end`)
    const cut = this.node(nodes, 'Slice', [padded, this.constant([w]), end, this.constant([2])], `${base}_cut`)
    const rowShape = this.node(nodes, 'Concat', [bh, length, stride], `${base}_row_shape`, undefined, [intAttribute('axis', 0)])
    const rows = this.node(nodes, 'Reshape', [cut, rowShape], `${base}_rows`)
    this.node(nodes, 'Slice', [rows, this.constant([0]), length, this.constant([3])], base, output)
  }

  /** [B, H, L, L] weights → [B, H, L, K]: out[i][c] = x[i][i + c - w]
   * within the sentence, 0 outside. Rows padded by w on each side and read
   * with a stride one longer. */
  toBand (nodes: Uint8Array[], x: string, w: number): string {
    const { bh, length } = this.dims(nodes, x)
    const base = `${x}/chorus_band`
    const wide = this.node(nodes, 'Pad', [x, this.constant([0, 0, 0, w, 0, 0, 0, w])], `${base}_wide`)
    const flatShape = this.node(nodes, 'Concat', [bh, this.constant([-1])], `${base}_flat_shape`, undefined, [intAttribute('axis', 0)])
    const flat = this.node(nodes, 'Reshape', [wide, flatShape], `${base}_flat`)
    const tailPads = this.node(nodes, 'Concat', [this.constant([0, 0, 0, 0, 0]), length], `${base}_pads`, undefined, [intAttribute('axis', 0)])
    const padded = this.node(nodes, 'Pad', [flat, tailPads], `${base}_padded`)
    const stride = this.node(nodes, 'Add', [length, this.constant([2 * w + 1])], `${base}_stride`)
    const rowShape = this.node(nodes, 'Concat', [bh, length, stride], `${base}_row_shape`, undefined, [intAttribute('axis', 0)])
    const rows = this.node(nodes, 'Reshape', [padded, rowShape], `${base}_rows`)
    return this.node(nodes, 'Slice', [rows, this.constant([0]), this.constant([2 * w + 1]), this.constant([3])], `${base}_band`)
  }
}

/** The nodes computing one band in place of the export's product. */
function bandNodes (graph: ModelGraph, band: Band, writer: BandWriter): Uint8Array[] {
  const nodes: Uint8Array[] = []
  const output = graph.nodes[band.replaced].outputs[0]
  if (band.kind === 'logits') {
    const transposed = writer.node(nodes, 'Transpose', [band.embedding], `${band.embedding}/chorus_band_t`, undefined, [intsAttribute('perm', [0, 2, 1])])
    const byOffset = writer.node(nodes, 'MatMul', [band.input, transposed], `${output}/chorus_band_offsets`)
    writer.toAbsolute(nodes, byOffset, band.window, output)
  } else {
    writer.node(nodes, 'MatMul', [writer.toBand(nodes, band.input, band.window), band.embedding], `${output}/chorus_band`, output)
  }
  return nodes
}

/** The nodes whose outputs something still reads: a later kept node, or a name in `read`. */
function liveNodes (nodes: GraphNode[], read: Set<string>): boolean[] {
  const live = new Array<boolean>(nodes.length).fill(false)
  for (let i = nodes.length - 1; i >= 0; i--) {
    if (!nodes[i].outputs.some(o => read.has(o))) continue
    live[i] = true
    nodes[i].inputs.forEach(input => read.add(input))
  }
  return live
}

/** Rewrites the model's relative-position attention to compute its window
 * only. Throws ProtobufError when the bytes are not an ONNX model. */
export function bandAttention (modelBytes: Uint8Array): BandResult {
  return bandAttentionGraph(readModelGraph(modelBytes))
}

/** bandAttention for a model whose graph has been read already. */
export function bandAttentionGraph (graph: ModelGraph): BandResult {
  if (defaultOpset(graph) < PADS_AS_INPUT_OPSET) return { bytes: graph.bytes, rewritten: 0 }
  const bands = findBands(graph, graphLinks(graph))
  if (bands.length === 0) return { bytes: graph.bytes, rewritten: 0 }
  const { bytes } = graph
  const copy = (s: Span) => bytes.subarray(s.start, s.end)
  const writer = new BandWriter(tensorNames(graph))
  const replaced = new Map(bands.map(band => [band.replaced, band]))
  // The new nodes go where the export's MatMul was: everything they read is made by then.
  const at = new Map(bands.map(band => [band.matmul, bandNodes(graph, band, writer)]))
  const kept = graph.nodes.map((node, index) => replaced.has(index) ? { ...node, outputs: [] } : node)
  const live = liveNodes(kept, new Set([...graph.outputs.map(o => o.name), ...bands.flatMap(band => [band.input, band.embedding])]))
  const nodeParts: Uint8Array[] = []
  const made = new Set<string>([...graph.inputs.map(i => i.name), ...graph.initializers.map(i => i.name)])
  kept.forEach((node, index) => {
    nodeParts.push(...(at.get(index) ?? []))
    if (!live[index] || replaced.has(index)) return
    nodeParts.push(copy(node))
    node.outputs.forEach(o => made.add(o))
  })
  bands.forEach(band => made.add(graph.nodes[band.replaced].outputs[0]))
  const graphParts = [
    ...nodeParts, ...graph.otherGraphFields.map(copy), ...graph.initializers.map(copy), ...writer.initializers,
    ...graph.inputs.map(copy), ...graph.outputs.map(copy), ...graph.valueInfos.filter(v => made.has(v.name)).map(copy)
  ]
  return { bytes: modelWithGraph(graph.modelFields.map(copy), graphParts), rewritten: bands.length }
}
