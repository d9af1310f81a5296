// The text encoder's relative-position attention computed over its window
// only (src/engine/onnx/relative-attention.ts): the rewritten graph makes the
// whole graph's samples bit for bit, and what is not the export's chain is
// left as it was.

import { join } from 'node:path'
import * as ort from 'onnxruntime-node'
import t from 'tap'
import { GraphBuilder, int, ints } from '../../scripts/lib/graph-builder.js'
import { encodeModel, TensorType } from '../../scripts/lib/onnx-writer.js'
import { buildStandInVoice } from '../../scripts/lib/piper-vits/model.js'
import { DEFAULT_CHUNKING, PiperVoice, resolveSynthesisConfig } from '../../src/engine/index.js'
import { bandAttention } from '../../src/engine/onnx/relative-attention.js'
import { readModelGraph } from '../../src/engine/onnx/model-graph.js'
import { BENCH_VOICES } from '../helpers/voices.js'

/** Phoneme ids of `length` (a fixed pattern of ordinary ids). */
function idsOf (length: number): BigInt64Array {
  return BigInt64Array.from({ length }, (_, i) => BigInt(1 + (i * 37) % 150))
}

async function run (session: ort.InferenceSession, ids: BigInt64Array): Promise<Float32Array> {
  const result = await session.run({
    input: new ort.Tensor('int64', ids, [1, ids.length]),
    input_lengths: new ort.Tensor('int64', BigInt64Array.of(BigInt(ids.length)), [1]),
    scales: new ort.Tensor('float32', Float32Array.of(0, 1, 0), [3])
  })
  return result.output.data as Float32Array
}

const identical = (a: Float32Array, b: Float32Array): boolean => a.length === b.length && a.every((v, i) => v === b[i])

t.test('a stand-in voice: every layer\'s two products rewritten, the same samples bit for bit', async t => {
  // Piper's architecture at a quarter of the width: six layers, window 4.
  const model = buildStandInVoice({ quality: 'medium', speakers: 1, durationShift: -0.5, seed: 11, shrink: 4 })
  const { bytes, rewritten } = bandAttention(model)
  t.equal(rewritten, 12, 'logits and output of each of six layers')
  const products = (m: Uint8Array) => readModelGraph(m).nodes.filter(n => n.opType === 'MatMul').length
  t.equal(products(bytes), products(model), 'one MatMul for each it replaces')
  const options = { intraOpNumThreads: 1 }
  const [exported, banded] = await Promise.all([ort.InferenceSession.create(model, options), ort.InferenceSession.create(bytes, options)])
  // Lengths under, at and past the window (4), where the chains' pads turn negative or not.
  for (const length of [1, 2, 4, 5, 6, 9, 40, 130]) {
    const [expected, actual] = [await run(exported, idsOf(length)), await run(banded, idsOf(length))]
    t.ok(expected.length > 0 && identical(actual, expected), `${length} ids: the same samples`)
  }
})

type Variant = 'export' | 'zero-value' | 'axis-slices' | 'ones' | 'no-transpose' | 'short-chain'

/** The export's logits chain, or a variant of it: x [1, 2, L, 4] times the
 * embeddings laid out to [1, 1, 4, 2L-1], then Pad → Reshape → Pad → Reshape
 * → Slice (or a Slice per axis, as a traced export may write it). */
function logitsChain (variant: Variant): Uint8Array {
  const b = new GraphBuilder(5)
  const table = b.weight('emb_rel_k', [1, 9, 4], 1)
  const length = b.op('Gather', [b.op('Shape', ['x']), b.i64([2])])
  const less1 = b.op('Sub', [length, b.i64([1], true)])
  const pad = b.op('Concat', [b.i64([0]), b.op('Sub', [length, b.i64([5])]), b.i64([0, 0]), b.op('Sub', [length, b.i64([5])]), b.i64([0])], { axis: int(0) })
  const value = { ones: [b.f32([1], true)], 'zero-value': [b.f32([0], true)] }[variant as string] ?? []
  const padded = b.op('Pad', [table, pad, ...value])
  const sliced = b.op('Slice', [padded, b.i64([0]), b.op('Sub', [b.op('Mul', [length, b.i64([2])]), b.i64([1])]), b.i64([1])])
  const laid = b.op('Unsqueeze', [variant === 'no-transpose' ? sliced : b.op('Transpose', [sliced], { perm: ints([0, 2, 1]) }), b.i64([0])])
  const product = b.op('MatMul', ['x', laid])
  const wide = b.op('Pad', [product, b.i64([0, 0, 0, 0, 0, 0, 0, 1])])
  const flat = b.op('Reshape', [wide, b.op('Concat', [b.i64([1, 2]), b.op('Mul', [b.op('Mul', [length, b.i64([2])]), length])], { axis: int(0) })])
  const more = variant === 'short-chain' ? flat : b.op('Pad', [flat, b.op('Concat', [b.i64([0, 0, 0, 0, 0]), less1], { axis: int(0) })])
  const rows = b.op('Reshape', [more, b.op('Concat', [b.i64([1, 2]), b.op('Add', [length, b.i64([1])]), b.op('Sub', [b.op('Mul', [length, b.i64([2])]), b.i64([1])])], { axis: int(0) })])
  if (variant === 'axis-slices') {
    const whole = b.op('Slice', [b.op('Slice', [rows, b.i64([0]), b.i64([2 ** 53 - 1]), b.i64([0])]), b.i64([0]), b.i64([2 ** 53 - 1]), b.i64([1])])
    b.named('y', 'Slice', [b.op('Slice', [whole, b.i64([0]), length, b.i64([2])]), less1, b.i64([2 ** 53 - 1]), b.i64([3])])
  } else {
    b.named('y', 'Slice', [rows, b.op('Concat', [b.i64([0]), less1], { axis: int(0) }), b.op('Concat', [length, b.i64([2 ** 53 - 1])], { axis: int(0) }), b.i64([2, 3])])
  }
  const graph = b.graph('logits', [{ name: 'x', type: TensorType.FLOAT, shape: [1, 2, 'L', 4] }], [{ name: 'y', type: TensorType.FLOAT, shape: [1, 2, 'L', 'L'] }])
  return encodeModel(graph, 15, 'chorus test')
}

t.test('only the export\'s chain is rewritten; the rewrite computes what it did', async t => {
  for (const variant of ['export', 'zero-value', 'axis-slices'] as const) {
    const model = logitsChain(variant)
    const { bytes, rewritten } = bandAttention(model)
    t.equal(rewritten, 1, `${variant}: rewritten`)
    const [exported, banded] = await Promise.all([ort.InferenceSession.create(model), ort.InferenceSession.create(bytes)])
    for (const length of [1, 3, 5, 11]) {
      const x = new ort.Tensor('float32', Float32Array.from({ length: 2 * length * 4 }, (_, i) => Math.sin(i + 1)), [1, 2, length, 4])
      const [expected, actual] = [(await exported.run({ x })).y.data as Float32Array, (await banded.run({ x })).y.data as Float32Array]
      t.ok(identical(actual, expected), `${variant}, ${length} positions: the same logits`)
    }
  }
  for (const variant of ['ones', 'no-transpose', 'short-chain'] as const) {
    t.equal(bandAttention(logitsChain(variant)).rewritten, 0, `${variant}: left as it was`)
  }
})

t.test('bench voice: banded, split and chunked, the whole graph as exported bit for bit', async t => {
  const model = join(BENCH_VOICES, 'en_US-bench-x_low.onnx')
  const asExported = { liftConvolutions: false, bandAttention: false }
  const whole = await PiperVoice.load(model, { split: false, session: asExported })
  const banded = await PiperVoice.load(model, { cut: 'staged', session: { liftConvolutions: false, bandAttention: true } })
  const own = await PiperVoice.load(model, { cut: 'staged', session: { liftConvolutions: false, shareEncoder: false, bandAttention: true } })
  t.teardown(() => { whole.close(); banded.close(); own.close() })
  t.ok(banded.encoderShared && !own.encoderShared, 'an encoder shared (weights fed) and one of its own')
  const settings = resolveSynthesisConfig({ noiseScale: 0, noiseW: 0 }, whole.config)
  const texts = ['Hi.', 'The weather turned cold, so everyone went inside where a fire burned in the old stone fireplace.']
  for (const text of texts) {
    const { ids } = whole.phonemeIds(whole.phonemize(text)[0])
    const expected = await whole.infer(ids, settings)
    for (const [name, voice] of [['shared', banded], ['own', own]] as const) {
      // 64-frame chunks: below 48 the staged cut differs in the last bits (decoder-split.test.ts).
      const actual = await voice.sentenceSamples(ids, settings, { ...DEFAULT_CHUNKING, chunkFrames: 64 })
      t.ok(identical(actual, expected), `${ids.length} ids, encoder ${name}: the whole graph's samples`)
    }
  }
})
