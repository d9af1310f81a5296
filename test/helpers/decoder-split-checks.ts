// The decoder split's exactness checks, shared by npm test (a few
// well-chosen cases: test/engine/decoder-split.test.ts) and the full sweep
// over every bench voice and reference sentence (test/slow/decoder-split-sweep.slow.ts).

import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import tap, { type Test } from 'tap'
import { DEFAULT_CHUNKING, PiperVoice, resolveSynthesisConfig, type LoadVoiceOptions, type SynthesisConfig } from '../../src/engine/index.js'
import { splitDecoder } from '../../src/engine/onnx/decoder-split.js'
import { maxDifference } from '../../scripts/lib/sample-difference.js'
import { BENCH_VOICES, FIXTURES } from './voices.js'

export interface ReferenceSentence { text: string, ids: number[] }

export const REFERENCE = (JSON.parse(await readFile(join(FIXTURES, 'reference/en_us-piper-ids.json'), 'utf8')) as { sentences: ReferenceSentence[] }).sentences

/** The shortest, a middle and the longest reference sentence: the lengths where a chunking error shows first. */
export function chosenSentences (sentences: ReferenceSentence[] = REFERENCE): ReferenceSentence[] {
  const byLength = [...sentences].sort((a, b) => a.ids.length - b.ids.length)
  return [byLength[0], byLength[byLength.length >> 1], byLength[byLength.length - 1]]
}

export function quiet (voice: PiperVoice, speaker = 0): SynthesisConfig {
  return { ...resolveSynthesisConfig({ noiseScale: 0, noiseW: 0 }, voice.config), speakerId: speaker }
}

/** Frames enough for any sentence here in one chunk. */
export const ONE_CHUNK = 4096

/** Float rounding: the split's parts run with their convolutions lifted to
 * 2-D (conv-lift.ts) and ONNX Runtime optimises the whole graph across the
 * cut otherwise, so the two agree to ~3e-7, not bit for bit (a cut in the
 * wrong place differs by far more). */
export const ROUNDING = 1e-6

const voices = new Map<string, Promise<PiperVoice>>()

/** One load of `model` with `options` per test file, closed when the file's
 * tests are done: a bench voice takes seconds to load, and the checks only
 * run it, so the checks on one model share its load. */
export async function loadedVoice (model: string, options: Pick<LoadVoiceOptions, 'split' | 'cut'> = {}): Promise<PiperVoice> {
  const key = `${model}|${options.split ?? ''}|${options.cut ?? ''}`
  let voice = voices.get(key)
  if (voice === undefined) {
    voice = PiperVoice.load(model, options)
    voices.set(key, voice)
    const loading = voice
    tap.teardown(async () => { (await loading).close() })
  }
  return await voice
}

/** Each voice's answers already computed: at noise 0 a run's samples depend
 * only on the voice, ids, settings and chunking, so the references several
 * comparisons share (the whole graph's run, the split's run in one chunk)
 * are computed once per voice. */
const runs = new WeakMap<PiperVoice, Map<string, Promise<Float32Array>>>()

function remembered (voice: PiperVoice, key: string, run: () => Promise<Float32Array>): Promise<Float32Array> {
  const known = runs.get(voice) ?? new Map<string, Promise<Float32Array>>()
  runs.set(voice, known)
  let samples = known.get(key)
  if (samples === undefined) {
    samples = run()
    known.set(key, samples)
  }
  return samples
}

const runKey = (ids: BigInt64Array, settings: SynthesisConfig, marginFrames: number | null): string => `${ids.join()}|${JSON.stringify(settings)}|${marginFrames}`

/** The whole graph's samples for `ids` (computed once per voice, ids and settings). */
export async function wholeSamples (whole: PiperVoice, ids: BigInt64Array, settings: SynthesisConfig): Promise<Float32Array> {
  return await remembered(whole, runKey(ids, settings, null), async () => await whole.infer(ids, settings))
}

/** The split voice's samples for `ids` decoded in one chunk (computed once per voice, ids, settings and margin). */
export async function oneChunkSamples (split: PiperVoice, ids: BigInt64Array, settings: SynthesisConfig, marginFrames: number | null = null): Promise<Float32Array> {
  return await remembered(split, `one-chunk|${runKey(ids, settings, marginFrames)}`,
    async () => await split.sentenceSamples(ids, settings, { ...DEFAULT_CHUNKING, chunkFrames: ONE_CHUNK, marginFrames }))
}

/** Chunked (split voice) and whole-graph samples for the same ids: chunking
 * changes nothing (sample for sample the split's own run in one chunk, at
 * the voice's default margin or `marginFrames`), and that run is the whole
 * graph's up to float rounding. */
export async function compare (t: Test, split: PiperVoice, whole: PiperVoice, ids: BigInt64Array, settings: SynthesisConfig, chunkFrames: number, marginFrames: number | null = null): Promise<void> {
  const expected = await wholeSamples(whole, ids, settings)
  const oneChunk = await oneChunkSamples(split, ids, settings, marginFrames)
  const actual = await split.sentenceSamples(ids, settings, { ...DEFAULT_CHUNKING, chunkFrames, marginFrames })
  t.equal(actual.length, expected.length, `length with ${chunkFrames}-frame chunks`)
  let differing = 0
  for (let i = 0; i < oneChunk.length; i++) if (actual[i] !== oneChunk[i]) differing++
  t.equal(differing, 0, `float samples identical with ${chunkFrames}-frame chunks and in one chunk`)
  t.ok(maxDifference(oneChunk, expected) <= ROUNDING, 'and the whole graph\'s up to float rounding')
}

/** Each reference sentence through `model` split and chunked (24-frame
 * chunks) equals the split's run in one chunk, sample for sample, and the
 * same model run whole up to float rounding. */
export async function referenceSentencesMatchWhole (t: Test, model: string, sentences: ReferenceSentence[] = REFERENCE): Promise<void> {
  const split = await loadedVoice(model)
  const whole = await loadedVoice(model, { split: false })
  for (const sentence of sentences) {
    const ids = BigInt64Array.from(sentence.ids, BigInt)
    const expected = await whole.infer(ids, quiet(split))
    const oneChunk = await split.sentenceSamples(ids, quiet(split), { ...DEFAULT_CHUNKING, chunkFrames: ONE_CHUNK })
    const actual = await split.sentenceSamples(ids, quiet(split), { ...DEFAULT_CHUNKING, chunkFrames: 24 })
    t.ok(actual.length === expected.length && actual.every((v, i) => v === oneChunk[i]) && maxDifference(oneChunk, expected) <= ROUNDING, sentence.text)
  }
}

// Exact at the default margin (32 + the flow's 32 frames) with chunks down
// to 16 frames; 63 is the smallest margin that was exact on every bench
// voice (at 62, 1-LSB differences with 16-frame chunks on x_low).
/** One long sentence, chunked at the flow cut and at the decoder cut, on each named bench voice. */
export async function flowCutMatchesWhole (t: Test, names: string[]): Promise<void> {
  for (const name of names) {
    const model = join(BENCH_VOICES, `${name}.onnx`)
    const split = await loadedVoice(model)
    const decoderOnly = await loadedVoice(model, { cut: 'decoder' })
    const whole = await loadedVoice(model, { split: false })
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
}

// Staged: the flow as a session of its own. A chunk's flow runs over its
// decoded frames and the flow's 32 frames of context; the decoder then sees
// only its own 32-frame margin, so a chunk costs what it costs at the
// decoder cut, and a first chunk need not wait for the whole sentence's flow.
// Exact where the decoder cut is (the same decoder, the same margins).
/** The staged cut on each named bench voice: chunk by chunk, flowed at once, and (on a sentence long enough) the flow in two windows. */
export async function stagedCutMatchesWhole (t: Test, names: string[]): Promise<void> {
  let twoWindows = 0
  for (const name of names) {
    const model = join(BENCH_VOICES, `${name}.onnx`)
    const bytes = new Uint8Array(await readFile(model))
    const cut = splitDecoder(bytes, { cut: 'staged' })
    t.equal(cut.mode, 'split', `${name} has a staged cut`)
    if (cut.mode === 'split') {
      t.same([cut.split.cut, cut.split.framed.length, cut.split.contextFrames], ['staged', 1, 32], 'the flow cut\'s encoder hands over z_p and its mask')
      t.ok(cut.split.flow !== undefined && cut.split.flowOutput !== undefined && cut.split.flowOutput !== cut.split.latent, 'a flow of its own, making the decoder\'s latent')
    }
    const staged = await loadedVoice(model, { cut: 'staged' })
    const whole = await loadedVoice(model, { split: false })
    t.same(staged.mode, { mode: 'split', cut: 'staged' })
    t.same([staged.marginFrames(DEFAULT_CHUNKING), staged.flowContextFrames], [32, 32], 'the decoder\'s margin; the flow\'s context where the flow runs')
    const [phonemes] = staged.phonemize('A rather long sentence without an inner full stop that goes on about the weather and the trains and the river')
    const ids = staged.phonemeIds(phonemes).ids
    const settings = quiet(staged, name.includes('multi') ? 7 : 0)
    // As at the decoder cut: chunks under 48 frames differ in the float's last bits.
    for (const chunkFrames of [64, 128]) await compare(t, staged, whole, ids, settings, chunkFrames)
    const expected = await oneChunkSamples(staged, ids, settings)
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
}
