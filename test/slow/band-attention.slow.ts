// The banded attention (src/engine/onnx/relative-attention.ts) over every
// sentence length up to 600 ids on the bench medium stand-in: the staged
// cut's encoder as exported and banded, side by side in onnxruntime-node.
// The durations are the same at every length; the latent is the same bit
// for bit, except where ONNX Runtime's GEMM sums the weights' product in
// blocks (of 128 terms with AVX-512 kernels) and the window straddles a
// block edge, where it differs by float rounding only (docs/engine.md,
// "What the first chunk costs"). Where those edges fall is the kernel's
// choice, so only their share and size are asserted.

import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import * as ort from 'onnxruntime-node'
import t from 'tap'
import { splitDecoder } from '../../src/engine/onnx/decoder-split.js'
import { bandAttention } from '../../src/engine/onnx/relative-attention.js'
import { BENCH_VOICES } from '../helpers/voices.js'

const LONGEST = 600
const ROUNDING = 2e-6

t.test('banded: the same durations at every length, the same latent up to the GEMM\'s block edges', async t => {
  const split = splitDecoder(new Uint8Array(await readFile(join(BENCH_VOICES, 'en_US-bench-medium.onnx'))), { cut: 'staged' })
  if (split.mode !== 'split') throw new Error(split.reason)
  const { encoder, latent, durations } = split.split
  const { bytes, rewritten } = bandAttention(encoder)
  t.equal(rewritten, 12)
  const options = { intraOpNumThreads: 1 }
  const [exported, banded] = await Promise.all([ort.InferenceSession.create(encoder, options), ort.InferenceSession.create(bytes, options)])
  let worst = 0
  const durationsDiffer: number[] = []
  const rounded: number[] = []
  const beyondRounding: number[] = []
  for (let length = 1; length <= LONGEST; length++) {
    const ids = BigInt64Array.from({ length }, (_, i) => BigInt(1 + (i * 37 + length) % 150))
    const feeds = {
      input: new ort.Tensor('int64', ids, [1, length]),
      input_lengths: new ort.Tensor('int64', BigInt64Array.of(BigInt(length)), [1]),
      scales: new ort.Tensor('float32', Float32Array.of(0, 1, 0), [3])
    }
    const [a, b] = [await exported.run(feeds), await banded.run(feeds)]
    const [da, db] = [a[durations as string].data as Float32Array, b[durations as string].data as Float32Array]
    if (da.length !== db.length || da.some((v, i) => v !== db[i])) durationsDiffer.push(length)
    const [la, lb] = [a[latent].data as Float32Array, b[latent].data as Float32Array]
    let difference = la.length === lb.length ? 0 : Infinity
    for (let i = 0; i < la.length && difference !== Infinity; i++) difference = Math.max(difference, Math.abs(la[i] - lb[i]))
    if (difference > ROUNDING) beyondRounding.push(length)
    else if (difference > 0) rounded.push(length)
    worst = Math.max(worst, difference)
  }
  t.same(durationsDiffer, [], 'the durations at every length')
  t.same(beyondRounding, [], 'the latent within float rounding at every length')
  t.ok(rounded.length < LONGEST * 0.1, `bit for bit at ${LONGEST - rounded.length} of ${LONGEST} lengths; within ${worst.toExponential(1)} at ${rounded.join(', ')}`)
})
