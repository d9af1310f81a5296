// The bench stand-ins' generator (scripts/make-bench-voices.ts): the same
// bytes every time, Piper's ONNX signature, a graph the engine cuts where it
// cuts Piper's, and configs taken from the real voices. Small copies
// (widths ÷ 8) keep it quick; the full-size voices are made by tap's
// `before` script and checked against their stamp.

import { createHash } from 'node:crypto'
import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import * as ort from 'onnxruntime-node'
import t from 'tap'
import { STAND_INS as VOICES, benchConfig, buildBenchModel, ensureBenchVoices } from '../../scripts/make-bench-voices.js'
import { splitDecoder } from '../../src/engine/onnx/decoder-split.js'
import { readModelGraph } from '../../src/engine/onnx/model-graph.js'
import { BENCH_VOICES, FIXTURES } from '../helpers/voices.js'

const SHRINK = 8
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

t.test('a voice is the same bytes on every build; another seed is another voice', async t => {
  const [voice] = VOICES
  const first = buildBenchModel(voice, SHRINK)
  t.equal(sha256(buildBenchModel(voice, SHRINK)), sha256(first))
  t.not(sha256(buildBenchModel({ ...voice, seed: voice.seed + 100 }, SHRINK)), sha256(first))
})

t.test('Piper\'s signature: input, input_lengths, scales (and sid); output [1, 1, 1, frames × 256]', async t => {
  for (const voice of VOICES) {
    const session = await ort.InferenceSession.create(buildBenchModel(voice, SHRINK), { intraOpNumThreads: 1 })
    t.teardown(() => session.release())
    const multi = voice.speakers > 1
    t.same(session.inputNames, ['input', 'input_lengths', 'scales', ...(multi ? ['sid'] : [])], voice.name)
    t.same(session.outputNames, ['output'])
    const ids = [1, 0, 20, 0, 59, 0, 120, 0, 3, 0, 26, 0, 2]
    const feeds: Record<string, ort.Tensor> = {
      input: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, ids.length]),
      input_lengths: new ort.Tensor('int64', BigInt64Array.of(BigInt(ids.length)), [1]),
      scales: new ort.Tensor('float32', Float32Array.of(0, 1, 0), [3])
    }
    if (multi) feeds.sid = new ort.Tensor('int64', BigInt64Array.of(5n), [1])
    const output = (await session.run(feeds)).output
    const [one, channel, row, samples] = output.dims
    t.same([one, channel, row], [1, 1, 1])
    t.equal(samples % 256, 0, 'whole frames of 256 samples')
    t.ok(samples / 256 >= ids.length, 'at least a frame per id (durations are rounded up)')
    t.ok((output.data as Float32Array).every(v => Number.isFinite(v) && Math.abs(v) <= 1), 'noise inside [-1, 1]')
    const graph = readModelGraph(buildBenchModel(voice, SHRINK))
    t.ok(graph.nodes.some(n => n.opType === 'Ceil') && graph.nodes.some(n => n.opType === 'CumSum'), 'durations rounded up, the path from their sum')
  }
})

t.test('the engine cuts it at the flow\'s input, as Piper\'s exports', async t => {
  for (const voice of VOICES) {
    const split = splitDecoder(buildBenchModel(voice, SHRINK))
    if (split.mode !== 'split') {
      t.fail(`${voice.name} runs whole: ${split.reason}`)
      continue
    }
    t.equal(split.split.cut, 'flow', voice.name)
    t.equal(split.split.hopLength, 256)
    t.equal(split.split.contextFrames, 32, '4 flows × 4 layers of kernel 5')
    t.equal(split.split.framed.length, 1, 'z_p with its mask')
    t.equal(split.split.side.length, voice.speakers > 1 ? 1 : 0, 'the speaker conditioning, whole')
  }
})

t.test('configs: the real voice\'s, with the stand-in\'s name, and x_low at 16 kHz', async t => {
  for (const voice of VOICES) {
    const real = JSON.parse(await readFile(join(FIXTURES, 'configs', `${voice.config}.onnx.json`), 'utf8'))
    const config = JSON.parse(benchConfig(voice, JSON.stringify(real)))
    t.equal(config.dataset, voice.name)
    t.type(config._stand_in, 'string')
    t.same(config.phoneme_id_map, real.phoneme_id_map)
    t.same(config.inference, real.inference)
    t.equal(config.num_speakers, voice.speakers)
    t.same(config.audio, voice.quality === 'x_low' ? { sample_rate: 16000, quality: 'x_low' } : real.audio)
  }
})

t.test('the full-size voices are there before the tests, and up to date', async t => {
  const files = ['.stamp.json', ...VOICES.flatMap(voice => [`${voice.name}.onnx`, `${voice.name}.onnx.json`])]
  const identity = async (): Promise<string[]> => await Promise.all(files.map(async file => {
    const { ino, mtimeMs, size } = await stat(join(BENCH_VOICES, file))
    return `${file} ${ino} ${mtimeMs} ${size}`
  }))
  const before = await identity()
  t.equal(await ensureBenchVoices(BENCH_VOICES), BENCH_VOICES)
  t.same(await identity(), before, 'nothing regenerated: every file the same inode, time and size')
  const stamp = JSON.parse(await readFile(join(BENCH_VOICES, '.stamp.json'), 'utf8')) as { sizes: Record<string, number> }
  for (const voice of VOICES) {
    const size = (await stat(join(BENCH_VOICES, `${voice.name}.onnx`))).size
    t.equal(size, stamp.sizes[`${voice.name}.onnx`], voice.name)
    t.ok(size > (voice.quality === 'x_low' ? 20e6 : 60e6), `${voice.name}: a real voice's size (${size} B)`)
  }
})
