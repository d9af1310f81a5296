// 1-D convolutions written as 2-D ones of height 1 (src/engine/onnx/conv-lift.ts):
// the rewritten graph computes the same values, and what cannot be rewritten
// safely is left as it was.

import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import * as ort from 'onnxruntime-node'
import t from 'tap'
import { GraphBuilder, int, ints } from '../../scripts/lib/graph-builder.js'
import { encodeModel, TensorType } from '../../scripts/lib/onnx-writer.js'
import { DEFAULT_CHUNKING, PiperVoice, resolveSynthesisConfig } from '../../src/engine/index.js'
import { liftConvolutions } from '../../src/engine/onnx/conv-lift.js'
import { splitDecoder } from '../../src/engine/onnx/decoder-split.js'
import { payloadOf, readModelGraph, readTensorFields } from '../../src/engine/onnx/model-graph.js'
import { floatValueInfo, GRAPH_VALUE_INFO, modelWithGraph } from '../../src/engine/onnx/onnx-proto.js'
import { bytesField } from '../../src/engine/onnx/protobuf.js'
import { maxDifference } from '../../scripts/lib/sample-difference.js'
import { BENCH_VOICES } from '../helpers/voices.js'

const CHANNELS = 8

/** A graph of the convolutions Piper's export writes, and two it must leave alone. */
function convolutions (opset: number): Uint8Array {
  const b = new GraphBuilder(3)
  const conv = (x: string, name: string, o: { kernel: number, dilation?: number, group?: number, pads?: number[] }) => {
    const dilation = o.dilation ?? 1
    const group = o.group ?? 1
    const w = b.weight(`${name}.weight`, [CHANNELS, CHANNELS / group, o.kernel], 0.5)
    const pad = (o.kernel - 1) * dilation / 2
    return b.op('Conv', [x, w, b.weight(`${name}.bias`, [CHANNELS], 0.5)], {
      dilations: ints([dilation]), group: int(group), kernel_shape: ints([o.kernel]), pads: ints(o.pads ?? [pad, pad]), strides: ints([1])
    })
  }
  const first = conv('x', 'first', { kernel: 3 })
  // Two convolutions read one tensor; a lifted result feeds the next conv directly.
  const dilated = conv(first, 'dilated', { kernel: 5, dilation: 3 })
  const grouped = conv(first, 'grouped', { kernel: 3, group: CHANNELS })
  const chained = conv(dilated, 'chained', { kernel: 3, pads: [2, 0] })
  const up = b.op('ConvTranspose', [b.op('LeakyRelu', [b.op('Add', [chained, grouped])], { alpha: { kind: 'float', value: 0.1 } }),
    b.weight('up.weight', [CHANNELS, CHANNELS / 2, 8], 0.5), b.weight('up.bias', [CHANNELS / 2], 0.5)], {
    dilations: ints([1]), group: int(1), kernel_shape: ints([8]), pads: ints([2, 2]), strides: ints([4]), output_padding: ints([1])
  })
  // A weight something else reads too keeps its shape (and its convolution stays 1-D).
  const shared = b.weight('shared.weight', [CHANNELS / 2, CHANNELS / 2, 1], 0.5)
  const sharedConv = b.op('Conv', [up, shared], { kernel_shape: ints([1]) })
  const sharedSum = b.op('ReduceSum', [shared], { keepdims: int(0) })
  b.named('y', 'Add', [sharedConv, sharedSum])
  b.named('first_out', 'Identity', [first])
  const graph = b.graph('convolutions', [{ name: 'x', type: TensorType.FLOAT, shape: [1, CHANNELS, 'T'] }], [
    { name: 'y', type: TensorType.FLOAT, shape: [1, CHANNELS / 2, 'S'] },
    { name: 'first_out', type: TensorType.FLOAT, shape: [1, CHANNELS, 'T'] }
  ])
  return encodeModel(graph, opset, 'chorus test')
}

async function outputs (model: Uint8Array, x: Float32Array, frames: number): Promise<Record<string, Float32Array>> {
  const session = await ort.InferenceSession.create(model, { intraOpNumThreads: 1 })
  const result = await session.run({ x: new ort.Tensor('float32', x, [1, CHANNELS, frames]) })
  return Object.fromEntries(Object.entries(result).map(([name, tensor]) => [name, tensor.data as Float32Array]))
}


function weightDims (model: Uint8Array): Map<string, number[]> {
  const graph = readModelGraph(model)
  return new Map(graph.initializers.map(i => {
    const { start, end } = payloadOf(model, i)
    return [i.name, readTensorFields(model, start, end).dims]
  }))
}

for (const opset of [15, 11]) {
  t.test(`opset ${opset}: the lifted graph computes what the 1-D one does`, async t => {
    const model = convolutions(opset)
    const { bytes, lifted } = liftConvolutions(model)
    t.equal(lifted, 5, 'every convolution but the one whose weight is read elsewhere')
    const dims = weightDims(bytes)
    t.same(dims.get('first.weight'), [CHANNELS, CHANNELS, 1, 3], 'a weight gains a unit axis before its kernel')
    t.same(dims.get('up.weight'), [CHANNELS, CHANNELS / 2, 1, 8], 'a transposed convolution\'s too')
    t.same(dims.get('shared.weight'), [CHANNELS / 2, CHANNELS / 2, 1], 'a weight read elsewhere keeps its shape')
    const graph = readModelGraph(bytes)
    const ops = graph.nodes.map(n => n.opType)
    t.equal(ops.filter(o => o === 'Unsqueeze').length, 2, 'a tensor read by two convolutions is unsqueezed once; a lifted result is not')
    t.equal(ops.filter(o => o === 'Squeeze').length, 4, 'only results something 1-D reads are squeezed')
    const conv = graph.nodes.find(n => n.opType === 'ConvTranspose')
    t.same(conv?.ints.pads, [0, 2, 0, 2])
    t.same(conv?.ints.strides, [1, 4])
    t.same(conv?.ints.output_padding, [0, 1])
    for (const frames of [1, 7, 40]) {
      const x = Float32Array.from({ length: CHANNELS * frames }, (_, i) => Math.sin(i * 0.61))
      const before = await outputs(model, x, frames)
      const after = await outputs(bytes, x, frames)
      for (const name of ['y', 'first_out']) {
        t.equal(after[name].length, before[name].length, `${name}, ${frames} frames: the same length`)
        t.ok(maxDifference(after[name], before[name]) < 1e-5, `${name}, ${frames} frames: the same values`)
      }
    }
  })
}

t.test('a value info of a result no longer made goes; the others stay', async t => {
  const model = convolutions(15)
  const graph = readModelGraph(model)
  const [first, dilated] = graph.nodes.filter(n => n.opType === 'Conv').map(n => n.outputs[0])
  const copy = (s: { start: number, end: number }) => model.subarray(s.start, s.end)
  const parts = [...graph.nodes, ...graph.otherGraphFields, ...graph.initializers, ...graph.inputs, ...graph.outputs].map(copy)
  const infos = [first, dilated].map(name => bytesField(GRAPH_VALUE_INFO, floatValueInfo(name)))
  const withInfos = modelWithGraph(graph.modelFields.map(copy), [...parts, ...infos])
  const { bytes } = liftConvolutions(withInfos)
  t.same(readModelGraph(bytes).valueInfos.map(v => v.name), [first], 'the squeezed result keeps its value info; the one only lifted convolutions read loses it')
  const x = Float32Array.from({ length: CHANNELS * 9 }, (_, i) => Math.cos(i))
  t.ok(maxDifference((await outputs(bytes, x, 9)).y, (await outputs(model, x, 9)).y) < 1e-5, 'and it runs')
})

t.test('a graph without 1-D convolutions is returned as it is', async t => {
  const b = new GraphBuilder(1)
  b.named('y', 'Tanh', ['x'])
  const model = encodeModel(b.graph('plain', [{ name: 'x', type: TensorType.FLOAT, shape: [1, 2] }],
    [{ name: 'y', type: TensorType.FLOAT, shape: [1, 2] }]), 15, 'chorus test')
  const result = liftConvolutions(model)
  t.equal(result.lifted, 0)
  t.equal(result.bytes, model, 'the same bytes, not a copy')
})

t.test('bench voice: every convolution of the decoder and the flow is lifted', async t => {
  const file = await readFile(join(BENCH_VOICES, 'en_US-bench-x_low.onnx'))
  const split = splitDecoder(new Uint8Array(file.buffer, file.byteOffset, file.byteLength), { cut: 'staged' })
  if (split.mode !== 'split' || split.split.flow === undefined) throw new Error('the bench voice did not split at the staged cut')
  for (const [name, part] of [['decoder', split.split.decoder], ['flow', split.split.flow]] as const) {
    const convs = readModelGraph(part).nodes.filter(n => n.opType === 'Conv' || n.opType === 'ConvTranspose').length
    const { bytes, lifted } = liftConvolutions(part)
    t.ok(convs > 10, `${name}: ${convs} convolutions`)
    t.equal(lifted, convs, `${name}: all of them lifted`)
    t.ok(Math.abs(bytes.length - part.length) < part.length * 0.01, `${name}: the weights are not copied twice (${bytes.length} vs ${part.length} bytes)`)
  }
})

t.test('bench voice: lifted, the same audio up to float rounding; as exported, the cut is exact', async t => {
  const model = join(BENCH_VOICES, 'en_US-bench-x_low.onnx')
  const asExported = { liftConvolutions: false, bandAttention: false }
  const lifted = await PiperVoice.load(model, { cut: 'staged' })
  const split = await PiperVoice.load(model, { cut: 'staged', session: asExported })
  const whole = await PiperVoice.load(model, { split: false, session: asExported })
  t.teardown(() => { lifted.close(); split.close(); whole.close() })
  const settings = resolveSynthesisConfig({ noiseScale: 0, noiseW: 0 }, lifted.config)
  const { ids } = lifted.phonemeIds(lifted.phonemize('The weather turned cold, so everyone went inside where a fire burned.')[0])
  const expected = await whole.infer(ids, settings)
  // 64-frame chunks: below 48 the staged cut differs in the last bits (decoder-split.test.ts).
  const exported = await split.sentenceSamples(ids, settings, { ...DEFAULT_CHUNKING, chunkFrames: 64 })
  t.ok(exported.length === expected.length && exported.every((v, i) => v === expected[i]), 'split as exported: the whole graph\'s samples, bit for bit')
  const faster = await lifted.sentenceSamples(ids, settings, { ...DEFAULT_CHUNKING, chunkFrames: 64 })
  t.equal(faster.length, expected.length)
  const difference = maxDifference(faster, expected)
  t.ok(difference > 0 && difference < 1e-6, `lifted: the same audio up to float rounding (${difference.toExponential(2)})`)
})
