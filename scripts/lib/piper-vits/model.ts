// A Piper VITS voice with random weights: the graph of Piper's ONNX export
// (inputs `input` [1, N] int64, `input_lengths` [1] int64, `scales` [3]
// float = noise_scale, length_scale, noise_w, and `sid` [1] int64 for
// multi-speaker; output `output` [1, 1, 1, T] float; opset 15), its sizes
// per quality preset, deterministic weights from a seed.

import { GraphBuilder, int } from '../graph-builder.js'
import { encodeModel, TensorType, type ValueInfo } from '../onnx-writer.js'
import { expandToFrames } from './alignment.js'
import { durationPredictor } from './duration-predictor.js'
import { reverseFlow } from './flow.js'
import { generator } from './generator.js'
import { PRESETS, type Quality, type VitsHyperparameters } from './hparams.js'
import { unsqueeze } from './layers.js'
import { textEncoder } from './text-encoder.js'

export interface StandInOptions {
  quality: Quality
  /** Speakers of a multi-speaker voice (adds the `sid` input); 1 for one. */
  speakers: number
  /** The duration predictor's mean log-duration shift (see durationPredictor). */
  durationShift: number
  seed: number
  /** Divides every width (tests build small copies quickly); 1 for the real size. */
  shrink?: number
  /** Only the graph up to the text encoder's outputs, or up to the
   * duration predictor's (with the prior's mean and log-variance): the
   * same weights, to time the encoder's parts (scripts/bench-first-audio.ts). */
  stopAt?: 'text' | 'durations'
}

const INPUTS: ValueInfo[] = [
  { name: 'input', type: TensorType.INT64, shape: [1, 'phonemes'] },
  { name: 'input_lengths', type: TensorType.INT64, shape: [1] },
  { name: 'scales', type: TensorType.FLOAT, shape: [3] }
]

/** A model of the graph so far whose outputs are `outputs` ([1, channels, phonemes] each). */
function partModel (b: GraphBuilder, inputs: ValueInfo[], outputs: string[]): Uint8Array {
  const infos = outputs.map((name, i) => ({ name, type: TensorType.FLOAT, shape: [1, `channels_${i}`, 'phonemes'] }))
  return encodeModel(b.graph('main_graph', inputs, infos), 15, 'chorus make-bench-voices')
}

function shrunk (h: VitsHyperparameters, by: number): VitsHyperparameters {
  if (by === 1) return h
  const s = (n: number) => Math.max(2 * h.heads, Math.round(n / by / (2 * h.heads)) * 2 * h.heads)
  return { ...h, hidden: s(h.hidden), inter: s(h.inter), filter: s(h.filter), gin: s(h.gin), upsampleInitial: Math.max(8, Math.round(h.upsampleInitial / by / 8) * 8) }
}

export function buildStandInVoice (o: StandInOptions): Uint8Array {
  const h = shrunk(PRESETS[o.quality], o.shrink ?? 1)
  const multi = o.speakers > 1
  const b = new GraphBuilder(o.seed)
  const scale = (i: number) => b.op('Gather', ['scales', b.i64([i], true)], { axis: int(0) })
  const noiseScale = scale(0)
  const lengthScale = scale(1)
  const noiseW = scale(2)

  // Single-speaker exports name the phoneme table `sid` (a quirk of the
  // trace); the engine's tests keep that case covered.
  const text = textEncoder(b, h, multi ? 'enc_p.emb.weight' : 'sid')
  const inputs = multi ? [...INPUTS, { name: 'sid', type: TensorType.INT64, shape: [1] }] : INPUTS
  if (o.stopAt === 'text') return partModel(b, inputs, [text.hidden, text.mean, text.logVariance])
  let g: string | undefined
  if (multi) {
    const table = b.weight('emb_g.weight', [o.speakers, h.gin], 1)
    g = unsqueeze(b, b.scope('emb_g', () => b.op('Gather', [table, 'sid'])), [2])
  }
  const logDurations = durationPredictor(b, h, { hidden: text.hidden, mask: text.mask, noiseW, g, shift: o.durationShift })
  if (o.stopAt === 'durations') return partModel(b, inputs, [logDurations, text.mean, text.logVariance])
  const frames = expandToFrames(b, { logDurations, textMask: text.mask, lengthScale, mean: text.mean, logVariance: text.logVariance })
  const noise = b.op('Mul', [b.op('Mul', [b.op('RandomNormalLike', [frames.mean], { dtype: int(1) }), b.op('Exp', [frames.logVariance])]), noiseScale])
  const zp = b.op('Add', [frames.mean, noise])
  const z = b.op('Mul', [reverseFlow(b, h, zp, frames.mask, g), frames.mask])
  b.named('output', 'Unsqueeze', [generator(b, h, z, g), b.i64([1])])

  const graph = b.graph('main_graph', inputs, [{ name: 'output', type: TensorType.FLOAT, shape: [1, 1, 1, 'time'] }])
  return encodeModel(graph, 15, 'chorus make-bench-voices')
}
