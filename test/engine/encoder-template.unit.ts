// The encoder as a template (src/engine/onnx/encoder-template.ts): its float
// weights become graph inputs, named by where their bytes lie in the encoder.

import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { splitDecoder } from '../../src/engine/onnx/decoder-split.js'
import { encoderTemplate } from '../../src/engine/onnx/encoder-template.js'
import { readModelGraph } from '../../src/engine/onnx/model-graph.js'
import { bytesFieldHeader, concat } from '../../src/engine/onnx/protobuf.js'
import { BENCH_VOICES } from '../helpers/voices.js'

async function benchEncoder (): Promise<Uint8Array> {
  const file = await readFile(join(BENCH_VOICES, 'en_US-bench-x_low.onnx'))
  const split = splitDecoder(new Uint8Array(file.buffer, file.byteOffset, file.byteLength))
  if (split.mode !== 'split') throw new Error(`the bench voice did not split: ${split.reason}`)
  return split.split.encoder
}

t.test('float weights become inputs; everything else stays', async t => {
  const encoder = await benchEncoder()
  const made = encoderTemplate(encoder)
  if (made === null) throw new Error('no template')
  const original = readModelGraph(encoder)
  const template = readModelGraph(made.template)
  const names = made.weights.map(w => w.name)
  t.ok(made.weights.length > 50, `${made.weights.length} weights taken out`)
  t.same(template.inputs.map(i => i.name), [...original.inputs.map(i => i.name), ...names], 'the inputs: the encoder\'s, then the weights')
  t.same(template.initializers.map(i => i.name), original.initializers.map(i => i.name).filter(n => !names.includes(n)),
    'the other initializers kept')
  t.same(template.nodes.length, original.nodes.length, 'the same nodes')
  t.same(template.outputs.map(o => o.name), original.outputs.map(o => o.name), 'the same outputs')
  t.notOk(names.includes('sid'), 'an initializer named like a Piper input stays (the stand-ins have one)')
  let weightBytes = 0
  for (const w of made.weights) {
    const count = w.dims.reduce((p, d) => p * d, 1)
    t.ok(count >= 16 && w.offset + count * 4 <= encoder.length, `${w.name} lies in the encoder`)
    weightBytes += count * 4
  }
  // Measured: 6.86 of 7.79 MB are weights, the template 0.93 MB.
  t.ok(weightBytes > encoder.length * 0.8, `the weights are most of the encoder (${weightBytes} of ${encoder.length} bytes)`)
  t.ok(Math.abs(made.template.length + weightBytes - encoder.length) < encoder.length * 0.001,
    `the template and the weights make the encoder, nothing copied twice (${made.template.length} + ${weightBytes} bytes)`)
})

t.test('an encoder with no float weights has no template', async t => {
  const encoder = await benchEncoder()
  const graph = readModelGraph(encoder)
  // The same graph without its initializers: nothing to take out.
  const copy = (s: { start: number, end: number }) => encoder.subarray(s.start, s.end)
  const parts = [...graph.nodes, ...graph.inputs, ...graph.outputs].map(copy)
  const length = parts.reduce((sum, p) => sum + p.length, 0)
  t.equal(encoderTemplate(concat([...graph.modelFields.map(copy), bytesFieldHeader(7, length), ...parts])), null)
})
