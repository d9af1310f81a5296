// The thread behind ModelCutter (model-cutter.ts): reads the model, finds its
// cuts, and makes one pair of parts each time it is asked, moving them out.

import { readFile } from 'node:fs/promises'
import { parentPort, workerData } from 'node:worker_threads'
import { cutModel, cutStaged, planSplit, type CutPlan, type DecoderSplit } from './decoder-split.js'
import { cutBytes, type CutterData, type CutterReply, type EndReply } from './model-cutter.js'
import { liftConvolutions, liftGraph } from './conv-lift.js'
import { bandAttention, bandAttentionGraph } from './relative-attention.js'
import { encoderTemplate, type EncoderTemplate } from './encoder-template.js'
import { readModelGraph, type ModelGraph } from './model-graph.js'

/** The array itself when it is its buffer's only view, else a copy: what is
 * moved to the loader must not take the file's bytes along. */
function owning (bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice()
}

/** The encoder's template, when it has one: a graph it cannot be made of
 * is loaded as it is. */
function templateOf (encoder: Uint8Array): Partial<EncoderTemplate> {
  try {
    const made = encoderTemplate(encoder)
    return made === null ? {} : { template: owning(made.template), weights: made.weights }
  } catch {
    return {}
  }
}

/** The end of the cuts: with the whole model rewritten, when asked for. */
function end (graph: ModelGraph, { lift, band }: CutterData, reasons: string[]): EndReply {
  const banded = band ? bandAttentionGraph(graph) : { bytes: graph.bytes, rewritten: 0 }
  const lifted = lift ? liftGraph(banded.rewritten > 0 ? readModelGraph(banded.bytes) : graph) : { bytes: banded.bytes, lifted: 0 }
  return banded.rewritten + lifted.lifted > 0 ? { kind: 'end', reasons, whole: owning(lifted.bytes) } : { kind: 'end', reasons }
}

async function * replies (data: CutterData): AsyncGenerator<CutterReply, CutterReply> {
  const { modelPath, only, template, lift, band, split } = data
  let bytes: Uint8Array
  try {
    bytes = await readFile(modelPath)
  } catch {
    return { kind: 'end', reasons: [] }
  }
  let graph
  let plan
  try {
    graph = readModelGraph(bytes)
    plan = planSplit(graph)
  } catch (error) {
    // Not readable as ONNX: ONNX Runtime reports what is wrong with it.
    return { kind: 'end', reasons: [(error as Error).message] }
  }
  if (!split) return end(graph, data, [])
  if (plan.mode === 'whole') return end(graph, data, [plan.reason])
  let reasons: string[] = []
  const single = (cut: CutPlan) => ({ cut: cut.cut, make: () => cutModel(plan.graph, cut) })
  // The decoder cut is the staged split's fallback.
  const cuts: Array<{ cut: string, make: () => DecoderSplit | string }> = only === 'staged'
    ? [{ cut: 'staged', make: () => cutStaged(plan.graph, plan.cuts) }, ...plan.cuts.filter(c => c.cut === 'decoder').map(single)]
    : plan.cuts.filter(c => only === undefined || c.cut === only).map(single)
  if (cuts.length === 0) reasons.push(`the graph has no ${only ?? ''} cut`)
  for (const cut of cuts) {
    const parts = cut.make()
    if (typeof parts === 'string') {
      reasons.push(`${cut.cut} cut: ${parts}`)
      continue
    }
    // The encoder's convolutions stay 1-D: lifting them gains nothing
    // measurable (docs/engine.md), and a shared encoder's weights are inputs,
    // which ONNX Runtime's faster 2-D kernels do not take, so a voice's audio
    // would then depend on whether its encoder is shared. Its attention is
    // computed over the window only (relative-attention.ts).
    const part = (bytes: Uint8Array) => owning(lift ? liftConvolutions(bytes).bytes : bytes)
    const encoder = owning(band ? bandAttention(parts.encoder).bytes : parts.encoder)
    yield {
      kind: 'cut',
      encoder,
      ...(template ? templateOf(encoder) : {}),
      decoder: part(parts.decoder),
      ...(parts.flow !== undefined ? { flow: part(parts.flow), flowOutput: parts.flowOutput } : {}),
      boundary: [parts.latent, ...parts.framed, ...parts.side],
      ...(parts.durations !== undefined ? { durations: parts.durations } : {}),
      info: { cut: parts.cut, framed: parts.framed.length, contextFrames: parts.contextFrames },
      reasons
    }
    reasons = []
  }
  return end(graph, data, reasons)
}

const port = parentPort
if (port === null) throw new Error('cut-worker.js runs as a worker thread')
const cuts = replies(workerData as CutterData)
port.on('message', () => {
  void cuts.next().then(({ value }) => {
    if (value.kind === 'cut') port.postMessage(value, cutBytes(value).map(bytes => bytes.buffer as ArrayBuffer))
    else port.postMessage(value, value.whole !== undefined ? [value.whole.buffer as ArrayBuffer] : [])
  })
})
