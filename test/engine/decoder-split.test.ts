// The decoder split and chunked decoding: found from the graph's structure,
// and sample-exact against the whole graph at noise 0.

import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { DEFAULT_CHUNKING, PiperVoice, resolveSynthesisConfig, type SynthesisConfig } from '../../src/engine/index.js'
import { splitDecoder } from '../../src/engine/onnx/decoder-split.js'
import { VITS_FRAMES_PER_ID, VITS_SAMPLES_PER_FRAME } from '../../scripts/lib/vits-model.js'
import { maxDifference } from '../../scripts/lib/sample-difference.js'
import { unless } from '../helpers/test-tools.js'
import { BENCH_VOICES, FIXTURES, NO_BENCH_VOICES, testModel } from '../helpers/voices.js'

const reference = JSON.parse(await readFile(join(FIXTURES, 'reference/en_us-piper-ids.json'), 'utf8')) as { sentences: Array<{ text: string, ids: number[] }> }

function quiet (voice: PiperVoice, speaker = 0): SynthesisConfig {
  return { ...resolveSynthesisConfig({ noiseScale: 0, noiseW: 0 }, voice.config), speakerId: speaker }
}

/** Frames enough for any sentence here in one chunk. */
const ONE_CHUNK = 4096

/** Float rounding: the split's parts run with their convolutions lifted to
 * 2-D (conv-lift.ts) and ONNX Runtime optimises the whole graph across the
 * cut otherwise, so the two agree to ~3e-7, not bit for bit (a cut in the
 * wrong place differs by far more). */
const ROUNDING = 1e-6

/** Chunked (split voice) and whole-graph samples for the same ids: chunking
 * changes nothing (sample for sample the split's own run in one chunk, at
 * the voice's default margin or `marginFrames`), and that run is the whole
 * graph's up to float rounding. */
async function compare (t: Test, split: PiperVoice, whole: PiperVoice, ids: BigInt64Array, settings: SynthesisConfig, chunkFrames: number, marginFrames: number | null = null): Promise<void> {
  const expected = await whole.infer(ids, settings)
  const oneChunk = await split.sentenceSamples(ids, settings, { ...DEFAULT_CHUNKING, chunkFrames: ONE_CHUNK, marginFrames })
  const actual = await split.sentenceSamples(ids, settings, { ...DEFAULT_CHUNKING, chunkFrames, marginFrames })
  t.equal(actual.length, expected.length, `length with ${chunkFrames}-frame chunks`)
  let differing = 0
  for (let i = 0; i < oneChunk.length; i++) if (actual[i] !== oneChunk[i]) differing++
  t.equal(differing, 0, `float samples identical with ${chunkFrames}-frame chunks and in one chunk`)
  t.ok(maxDifference(oneChunk, expected) <= ROUNDING, 'and the whole graph\'s up to float rounding')
}

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

/** Every reference sentence through `model` split and chunked (24-frame
 * chunks) equals the split's run in one chunk, sample for sample, and the
 * same model run whole up to float rounding. */
async function referenceSentencesMatchWhole (t: Test, model: string): Promise<void> {
  const split = await PiperVoice.load(model)
  const whole = await PiperVoice.load(model, { split: false })
  t.teardown(() => { split.close(); whole.close() })
  for (const sentence of reference.sentences) {
    const ids = BigInt64Array.from(sentence.ids, BigInt)
    const expected = await whole.infer(ids, quiet(split))
    const oneChunk = await split.sentenceSamples(ids, quiet(split), { ...DEFAULT_CHUNKING, chunkFrames: ONE_CHUNK })
    const actual = await split.sentenceSamples(ids, quiet(split), { ...DEFAULT_CHUNKING, chunkFrames: 24 })
    t.ok(actual.length === expected.length && actual.every((v, i) => v === oneChunk[i]) && maxDifference(oneChunk, expected) <= ROUNDING, sentence.text)
  }
}

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

// Exact at the default margin (32 + the flow's 32 frames) with chunks down
// to 16 frames; 63 is the smallest margin that was exact on every bench
// voice (at 62, 1-LSB differences with 16-frame chunks on x_low).
t.test('bench voices: one long sentence, chunked at either cut, equals the whole graph', skipBench, async t => {
  for (const name of ['en_US-bench-x_low', 'en_GB-benchmulti-medium']) {
    const model = join(BENCH_VOICES, `${name}.onnx`)
    const split = await PiperVoice.load(model)
    const decoderOnly = await PiperVoice.load(model, { cut: 'decoder' })
    const whole = await PiperVoice.load(model, { split: false })
    t.teardown(() => { split.close(); decoderOnly.close(); whole.close() })
    t.same(split.mode, { mode: 'split', cut: 'flow' }, `${name} splits at the flow`)
    t.same(decoderOnly.mode, { mode: 'split', cut: 'decoder' })
    t.equal(split.marginFrames(DEFAULT_CHUNKING), 64, 'the default margin covers the flow')
    t.equal(decoderOnly.marginFrames(DEFAULT_CHUNKING), 32)
    t.equal(split.marginFrames({ ...DEFAULT_CHUNKING, marginFrames: 40 }), 40, 'the operator\'s margin wins')
    const again = await PiperVoice.load(model)
    t.teardown(() => again.close())
    t.same([again.mode, again.marginFrames(DEFAULT_CHUNKING)], [{ mode: 'split', cut: 'flow' }, 64],
      'a thread that finds the sessions loaded learns the cut from them')
    t.equal(split.hopLength, 256, 'Piper\'s 256 samples per frame')
    const [phonemes] = split.phonemize('A rather long sentence without an inner full stop that goes on about the weather and the trains and the river')
    const ids = split.phonemeIds(phonemes).ids
    const settings = quiet(split, name.includes('multi') ? 7 : 0)
    for (const chunkFrames of [16, 128]) await compare(t, split, whole, ids, settings, chunkFrames)
    await compare(t, decoderOnly, whole, ids, settings, 128)
  }
})

// Staged: the flow as a session of its own. A chunk's flow runs over its
// decoded frames and the flow's 32 frames of context; the decoder then sees
// only its own 32-frame margin, so a chunk costs what it costs at the
// decoder cut, and a first chunk need not wait for the whole sentence's flow.
// Exact where the decoder cut is (the same decoder, the same margins).
t.test('bench voices: the staged cut (flow on its own) equals the whole graph, chunk by chunk or flowed at once', skipBench, async t => {
  let twoWindows = 0
  for (const name of ['en_US-bench-x_low', 'en_GB-benchmulti-medium']) {
    const model = join(BENCH_VOICES, `${name}.onnx`)
    const bytes = new Uint8Array(await readFile(model))
    const cut = splitDecoder(bytes, { cut: 'staged' })
    t.equal(cut.mode, 'split', `${name} has a staged cut`)
    if (cut.mode === 'split') {
      t.same([cut.split.cut, cut.split.framed.length, cut.split.contextFrames], ['staged', 1, 32], 'the flow cut\'s encoder hands over z_p and its mask')
      t.ok(cut.split.flow !== undefined && cut.split.flowOutput !== undefined && cut.split.flowOutput !== cut.split.latent, 'a flow of its own, making the decoder\'s latent')
    }
    const staged = await PiperVoice.load(model, { cut: 'staged' })
    const whole = await PiperVoice.load(model, { split: false })
    t.teardown(() => { staged.close(); whole.close() })
    t.same(staged.mode, { mode: 'split', cut: 'staged' })
    t.same([staged.marginFrames(DEFAULT_CHUNKING), staged.flowContextFrames], [32, 32], 'the decoder\'s margin; the flow\'s context where the flow runs')
    const [phonemes] = staged.phonemize('A rather long sentence without an inner full stop that goes on about the weather and the trains and the river')
    const ids = staged.phonemeIds(phonemes).ids
    const settings = quiet(staged, name.includes('multi') ? 7 : 0)
    // As at the decoder cut: chunks under 48 frames differ in the float's last bits.
    for (const chunkFrames of [64, 128]) await compare(t, staged, whole, ids, settings, chunkFrames)
    const expected = await staged.sentenceSamples(ids, settings, { ...DEFAULT_CHUNKING, chunkFrames: ONE_CHUNK })
    const encoding = await staged.encode(ids, settings)
    const flowed = await staged.flowed(encoding)
    t.ok(flowed.flowed === true && flowed.framed.length === 0, 'flowed at once: the decoder\'s latent, nothing else framed')
    const pieces: Float32Array[] = []
    for (const range of [{ start: 0, end: 40 }, { start: 40, end: flowed.frames }]) pieces.push(await staged.decodeChunk(flowed, range, 32))
    const joined = Float32Array.from([...pieces[0], ...pieces[1]])
    t.ok(joined.length === expected.length && joined.every((v, i) => v === expected[i]), 'chunks of the flowed latent equal one chunk')
    if (encoding.frames >= 2 * 8 * 32) {
      // Cut only when each window is 8 of the flow's contexts or more (651 frames on multi).
      twoWindows++
      const halves = await staged.flowed(encoding, undefined, 2)
      t.ok(halves.latent.length === flowed.latent.length && halves.latent.every((v, i) => v === flowed.latent[i]),
        'the flow in two windows run at once (a free core) makes the same latent')
    }
    const inferred = await staged.infer(ids, settings)
    t.ok(inferred.length === expected.length && inferred.every((v, i) => v === expected[i]), 'infer (encoder, flow, decoder in one call) equals one chunk')
  }
  t.ok(twoWindows > 0, 'a sentence long enough to flow in two windows was checked')
})

t.test('bench voice: every reference sentence, chunked with the flow, equals the whole graph', skipBench, async t => {
  await referenceSentencesMatchWhole(t, join(BENCH_VOICES, 'en_US-bench-x_low.onnx'))
})

t.test('threads share one load of a model; a different file is another load', async t => {
  const model = await testModel('en_US-vits-medium')
  const a = await PiperVoice.load(model)
  const b = await PiperVoice.load(model)
  t.teardown(() => { a.close(); b.close() })
  t.ok(a.memoryBytes > 0, 'the addon measured the sessions\' memory')
  t.equal(b.memoryBytes, a.memoryBytes, 'the second handle reports the same model')
})
