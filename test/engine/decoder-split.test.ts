// The decoder split and chunked decoding: found from the graph's structure,
// and sample-exact against the whole graph at noise 0. The checks live in
// test/helpers/decoder-split-checks.ts; here a few well-chosen cases, the
// full sweep in test/slow/decoder-split-sweep.slow.ts.

import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { PiperVoice } from '../../src/engine/index.js'
import { splitDecoder } from '../../src/engine/onnx/decoder-split.js'
import { VITS_FRAMES_PER_ID, VITS_SAMPLES_PER_FRAME } from '../../scripts/lib/vits-model.js'
import { unless } from '../helpers/test-tools.js'
import { BENCH_VOICES, NO_BENCH_VOICES, testModel } from '../helpers/voices.js'
import { chosenSentences, compare, quiet, referenceSentencesMatchWhole } from '../helpers/decoder-split-checks.js'

t.test('the boundary is found from the structure: VITS-shaped models split, others run whole', async t => {
  const vits = splitDecoder(new Uint8Array(await readFile(await testModel('en_US-vits-medium'))))
  t.equal(vits.mode, 'split')
  if (vits.mode === 'split') {
    // The mask is made from z's own shape (ConstantOfShape(Shape(z))), so the
    // masking runs in the chunks too: the cut is at z, one tensor.
    t.equal(vits.split.latent, 'z')
    t.equal(vits.split.cut, 'decoder', 'no frame-rate layers before the decoder')
    t.same(vits.split.framed, [])
    t.same(vits.split.side, [])
    t.equal(vits.split.hopLength, VITS_SAMPLES_PER_FRAME, 'samples per frame = product of the upsampling strides')
  }
  const multi = splitDecoder(new Uint8Array(await readFile(await testModel('en_GB-vitsmulti-medium'))))
  t.equal(multi.mode, 'split')
  if (multi.mode === 'split') t.same(multi.split.side, ['g'], 'the speaker conditioning goes to every chunk whole')
  const probe = splitDecoder(new Uint8Array(await readFile(await testModel('en_US-probe-medium'))))
  t.same(probe, { mode: 'whole', reason: 'no cut leaves a frame-local part' })
  t.throws(() => splitDecoder(Uint8Array.of(0x0a, 0xff, 0xff)), /runs past the end|Truncated/, 'truncated bytes are refused, not guessed at')
})

t.test('generated voices: chunked decoding equals the whole graph, every chunk size, every speaker', async t => {
  for (const [name, speakers] of [['en_US-vits-medium', [0]], ['en_GB-vitsmulti-medium', [0, 5, 108]]] as const) {
    const model = await testModel(name)
    const split = await PiperVoice.load(model)
    const whole = await PiperVoice.load(model, { split: false })
    t.teardown(() => { split.close(); whole.close() })
    t.equal(split.mode.mode, 'split')
    t.equal(whole.mode.mode, 'whole')
    t.equal(split.hopLength, VITS_SAMPLES_PER_FRAME, 'samples per frame measured at warm-up')
    const [phonemes] = split.phonemize('This sentence is long enough to be cut into several chunks of the latent, with margins on both sides')
    const { ids } = split.phonemeIds(phonemes)
    for (const speaker of speakers) {
      for (const chunkFrames of [16, 37, 64, 512]) await compare(t, split, whole, ids, quiet(split, speaker), chunkFrames)
    }
    const encoding = await split.encode(ids, quiet(split))
    t.equal(encoding.frames, ids.length * VITS_FRAMES_PER_ID)
  }
})

t.test('generated voice: every reference sentence, chunked, equals the whole graph', async t => {
  await referenceSentencesMatchWhole(t, await testModel('en_US-vits-medium'))
})

const skipBench = unless(NO_BENCH_VOICES)

t.test('bench voices: the cut is at the flow\'s input, found from the structure', skipBench, async t => {
  for (const name of ['en_US-bench-x_low', 'en_GB-benchmulti-medium']) {
    const bytes = new Uint8Array(await readFile(join(BENCH_VOICES, `${name}.onnx`)))
    const flow = splitDecoder(bytes)
    t.equal(flow.mode, 'split', `${name} splits`)
    if (flow.mode !== 'split') continue
    t.equal(flow.split.cut, 'flow')
    t.equal(flow.split.framed.length, 1, 'z_p is chunked with its mask')
    t.equal(flow.split.side.length, name.includes('multi') ? 1 : 0, 'the speaker conditioning is passed whole')
    t.equal(flow.split.contextFrames, 32, 'the flow sees ±32 frames: 4 flows × 4 layers of kernel 5')
    const decoder = splitDecoder(bytes, { cut: 'decoder' })
    t.equal(decoder.mode, 'split', 'and the decoder cut, the fallback, is still there')
    if (decoder.mode === 'split') t.same([decoder.split.framed, decoder.split.contextFrames], [[], 0])
  }
})

// npm test: three reference sentences on the single-speaker voice, chunked
// with the flow. test/slow/decoder-split-sweep.slow.ts runs the rest on both
// bench voices (one long sentence at either cut; the staged cut with the
// multi-speaker voice's conditioning, chunk by chunk or flowed at once; every
// reference sentence): 40 s of npm test's most expensive file, all of it in
// .ci/run's test:slow. Through the service, each cut is in
// test/synthesis/chunked-synthesis.test.ts.
t.test('bench voice: the shortest, a middle and the longest reference sentence, chunked with the flow, equal the whole graph', skipBench, async t => {
  await referenceSentencesMatchWhole(t, join(BENCH_VOICES, 'en_US-bench-x_low.onnx'), chosenSentences())
})

t.test('threads share one load of a model; a different file is another load', async t => {
  const model = await testModel('en_US-vits-medium')
  const a = await PiperVoice.load(model)
  const b = await PiperVoice.load(model)
  t.teardown(() => { a.close(); b.close() })
  t.ok(a.memoryBytes > 0, 'the addon measured the sessions\' memory')
  t.equal(b.memoryBytes, a.memoryBytes, 'the second handle reports the same model')
})
