// Timing exact by construction, on the bench voices (real Piper graphs with
// their Ceil durations): per piece the phoneme spans tile its samples, the
// visemes tile what the phonemes tile (whole phonemes each, labelled as
// docs/timing.md's table maps them), pieces follow each other or the
// sentence_silence, the first starts at 0 and the last ends at the answer's
// last sample; each timing chunk comes before the audio it covers; the audio
// with timing on is the audio with it off. Words are in order, inside their
// piece, cover every speech sound, the last ends where the speech ends, and
// each is its slice of the text as sent (normalized or not, surrounding
// whitespace included). Streamed and whole, chunked and not, with
// length_scale and sentence_silence, every speaker of the multi-speaker
// voice (three speakers end to end here; every one's durations in
// test/engine/phoneme-timing.test.ts).

import { cp, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { WAV_HEADER_BYTES } from '../../src/engine/riff-wave.js'
import { loadServiceConfig } from '../../src/service/config.js'
import { startService, type RunningService } from '../../src/service/server.js'
import { createLogger } from '../../src/shared/logger.js'
import type { SpeechChunk, SpeechRequest } from '../../src/synthesis/speech-service.js'
import type { TimingChunk } from '../../src/synthesis/timing.js'
import type { TtsRequest } from '../../src/synthesis/tts-request.js'
import { BENCH_VOICES } from '../helpers/voices.js'
import { localAdmission } from '../../src/synthesis/speech-admission.js'

const VOICES = ['en_US-bench-x_low', 'en_GB-benchmulti-medium']
const TEXT = 'Hello there, this is a test. A second sentence follows it, rather longer than the first, so that it makes several chunks of audio. Third!'
/** "that it": espeak-ng speaks the two as one word (ðætɪt). */
const TEXT_WORDS = ['Hello', 'there', 'this', 'is', 'a', 'test', 'A', 'second', 'sentence', 'follows', 'it', 'rather', 'longer', 'than', 'the',
  'first', 'so', 'that it', 'makes', 'several', 'chunks', 'of', 'audio', 'Third']
/** What the phonemizer adds between words, clauses and sentences, and a piece's ends: no speech sound. */
const SEPARATORS = new Set(['^', '$', '_', ' ', ',', '.', '?', '!', ':', ';'])

async function start (env: Record<string, string>): Promise<RunningService & { stop: () => Promise<void> }> {
  const voiceDir = await mkdtemp(join(tmpdir(), 'chorus-timing-'))
  for (const name of VOICES) {
    for (const ext of ['.onnx', '.onnx.json']) await cp(join(BENCH_VOICES, name + ext), join(voiceDir, name + ext))
  }
  const config = loadServiceConfig({
    TTS_HTTP_HOST: '127.0.0.1', TTS_HTTP_PORT: '0', TTS_VOICE_DIR: voiceDir, TTS_DEFAULT_VOICE: VOICES[0],
    TTS_WORKERS_PER_VOICE: '2', TTS_TIMEOUT_SECONDS: '3600', TTS_CACHE_BYTES: '0', ...env
  })
  const service = await startService(config, createLogger('chorus-tts', 'error'))
  return { ...service, stop: async () => { await service.close(); await rm(voiceDir, { recursive: true, force: true }) } }
}

interface Heard { timing: TimingChunk[], pcm: Buffer, late: number }

/** Reads a WAV speech, noting timing chunks that came after audio they cover. */
async function hear (service: RunningService, request: TtsRequest, timestamps: SpeechRequest['timestamps']): Promise<Heard> {
  const speech = await service.deps.speech.open({ request, format: 'wav', stream: request.stream, log: service.deps.log, admission: localAdmission(), ...(timestamps !== undefined ? { timestamps } : {}) })
  const audio: Buffer[] = []
  let bytes = 0
  const timing: TimingChunk[] = []
  let late = 0
  for await (const chunk of speech.chunks as AsyncIterable<SpeechChunk>) {
    if (chunk.kind === 'audio') {
      audio.push(Buffer.from(chunk.bytes))
      bytes += chunk.bytes.length
    } else {
      timing.push(chunk)
      const delivered = Math.max(0, (bytes - WAV_HEADER_BYTES) / 2)
      if (chunk.phonemes.length > 0 && chunk.phonemes[0].startSample < delivered) late++
    }
  }
  return { timing, pcm: Buffer.concat(audio).subarray(WAV_HEADER_BYTES), late }
}

/** The checks every answer must pass. */
function exact (t: Test, heard: Heard, silenceSeconds: number, label: string): void {
  const { timing, pcm } = heard
  const silence = Math.floor((timing[0]?.sampleRate ?? 0) * silenceSeconds)
  const samples = pcm.length / 2
  t.ok(timing.length > 0, `${label}: timing was sent`)
  t.equal(heard.late, 0, `${label}: no timing chunk came after its audio`)
  let end = 0
  let tiles = true
  let gaps = true
  timing.forEach((chunk, i) => {
    const { phonemes, visemes } = chunk
    const start = phonemes[0].startSample
    if (i === 0 ? start !== 0 : start - end !== 0 && start - end !== silence) gaps = false
    for (let p = 0; p < phonemes.length; p++) {
      if (phonemes[p].endSample <= phonemes[p].startSample) tiles = false
      if (p > 0 && phonemes[p].startSample !== phonemes[p - 1].endSample) tiles = false
    }
    const phonemeStarts = new Set(phonemes.map(p => p.startSample))
    for (let v = 0; v < visemes.length; v++) {
      if (v > 0 && visemes[v].startSample !== visemes[v - 1].endSample) tiles = false
      // A viseme is one or more whole phonemes, and neighbours differ (else they would be one).
      if (!phonemeStarts.has(visemes[v].startSample) || (v > 0 && visemes[v].viseme === visemes[v - 1].viseme)) tiles = false
    }
    if (visemes[0].startSample !== start || visemes.at(-1)?.endSample !== phonemes.at(-1)?.endSample) tiles = false
    end = phonemes.at(-1)?.endSample ?? end
  })
  t.ok(tiles, `${label}: phonemes and visemes tile each piece`)
  t.ok(gaps, `${label}: pieces follow each other or the sentence_silence (${silence} samples)`)
  t.equal(end, samples, `${label}: the last phoneme ends at the answer's last sample`)
}

/** The words' checks; `text` is the request's text as sent. Returns the words in order, a word cut between pieces once. */
function wordsExact (t: Test, heard: Heard, text: string, label: string): string[] {
  let order = true
  let inside = true
  let slices = true
  let covered = true
  let lastEnd = 0
  let lastText = 0
  let speechEnd = 0
  let wordEnd = 0
  const written: string[] = []
  for (const chunk of heard.timing) {
    for (const w of chunk.words) {
      if (w.startSample < lastEnd || w.textStart < lastText || w.endSample < w.startSample) order = false
      if (w.startSample < chunk.startSample || w.endSample > chunk.endSample) inside = false
      if (text.slice(w.textStart, w.textEnd) !== w.word || w.word === '' || w.word.trim() !== w.word) slices = false
      // A word cut between two pieces comes once in each.
      if (w.textStart !== lastText || written.length === 0) written.push(w.word)
      lastEnd = w.endSample
      lastText = w.textStart
      wordEnd = Math.max(wordEnd, w.endSample)
    }
    for (const p of chunk.phonemes) {
      if (SEPARATORS.has(p.phoneme)) continue
      speechEnd = Math.max(speechEnd, p.endSample)
      if (!chunk.words.some(w => w.startSample <= p.startSample && p.endSample <= w.endSample)) covered = false
    }
  }
  t.ok(order, `${label}: words in order`)
  t.ok(inside, `${label}: each word inside its piece`)
  t.ok(slices, `${label}: each word is its slice of the text`)
  if (heard.timing.some(c => c.phonemes.length > 0)) {
    t.ok(covered, `${label}: every speech sound is in a word`)
    t.equal(wordEnd, speechEnd, `${label}: the last word ends where the speech ends`)
  }
  return written
}

// One service, so the voices load once: pieces past 50 phonemes (the
// second sentence makes several), decoder chunks of 64 frames (the long
// sentences are chunked, "Third!" is decoded whole).
const service = await start({ TTS_DECODER_CHUNK_FRAMES: '64', TTS_STREAM_FIRST_CHUNK_FRAMES: '16', TTS_MAX_PHONEMES_PER_RUN: '50' })
t.teardown(() => service.stop())

for (const settings of [{ lengthScale: 1 }, { lengthScale: 1.6, sentenceSilence: 0.3 }]) {
  t.test(`length_scale ${settings.lengthScale}, sentence_silence ${settings.sentenceSilence ?? 0}`, async t => {
    const base: TtsRequest = { text: TEXT, voice: VOICES[0], noiseScale: 0, noiseW: 0, stream: false, ...settings }
    const silence = settings.sentenceSilence ?? 0
    const whole = await hear(service, base, ['word', 'phoneme', 'viseme'])
    exact(t, whole, silence, 'whole')
    t.same(wordsExact(t, whole, TEXT, 'whole'), TEXT_WORDS, 'whole: the words as written')
    t.ok(whole.timing.length > 3, `${whole.timing.length} pieces for 3 sentences: the long one was cut`)
    const off = await hear(service, base, undefined)
    t.ok(off.timing.length === 0 && off.pcm.equals(whole.pcm), 'the same audio with timing off, and no timing')
    const streamed = await hear(service, { ...base, stream: true }, ['word', 'phoneme', 'viseme'])
    exact(t, streamed, silence, 'streamed')
    t.same(wordsExact(t, streamed, TEXT, 'streamed'), TEXT_WORDS, 'streamed: the words as written')
  })
}

/** "Hi there. Bye." in en-gb-x-rp, phonemes and visemes as docs/timing.md's
 * table gives them, worked out by hand: ^ sil, h kk, ˈ (a modifier: no
 * event), a aa, ɪ ih, space sil, ð TH, e ə E (one event), . $ sil; then
 * b PP. Mapping every phoneme to one viseme, or a symbol to the wrong
 * group, fails here. */
const HI_THERE_PHONEMES = '^hˈaɪ ðˈeə.$^bˈaɪ.$'
const HI_THERE_VISEMES = ['sil', 'kk', 'aa', 'ih', 'sil', 'TH', 'E', 'sil', 'sil', 'PP', 'aa', 'ih', 'sil']

t.test('speakers of the multi-speaker voice: the first, a middle one and the last (all: test/engine/phoneme-timing.test.ts)', async t => {
  for (const speaker of [0, 54, 108]) {
    const heard = await hear(service, { text: 'Hi there. Bye.', voice: VOICES[1], speaker, noiseScale: 0, noiseW: 0, stream: speaker === 54 }, ['word', 'phoneme', 'viseme'])
    exact(t, heard, 0, `speaker ${speaker}`)
    t.same(wordsExact(t, heard, 'Hi there. Bye.', `speaker ${speaker}`), ['Hi', 'there', 'Bye'])
    t.equal(heard.timing.flatMap(c => c.phonemes.map(p => p.phoneme)).join(''), HI_THERE_PHONEMES, `speaker ${speaker}: the phonemes`)
    t.same(heard.timing.flatMap(c => c.visemes.map(v => v.viseme)), HI_THERE_VISEMES, `speaker ${speaker}: their visemes`)
  }
})

// Written as a language model writes, sent with surrounding whitespace
// (trimmed as POST /tts trims it: offsets still index the text as sent),
// normalized or not, with sentences long enough to be cut into pieces at 50
// phonemes.
const CORPUS: Array<{ text: string, normalize: boolean, words: string[], pieces?: number }> = [
  {
    text: '  It costs $5, or €3.50 — about 1,299 yen in 1863!  ',
    normalize: false,
    words: ['It', 'costs', '$5', 'or', '€3.50', 'about', '1,299', 'yen', 'in', '1863']
  },
  {
    text: '\n**Great** question 🙂! The café opens at 9:00 am on 2024-03-15, and Dr. Smith pays $20/month.',
    normalize: true,
    words: ['Great', 'question', 'The', 'café', 'opens', 'at', '9:00 am', 'on', '2024-03-15', 'and', 'Dr.', 'Smith', 'pays', '$20/month']
  },
  {
    text: 'Naïve Zoë and Ætheling walked 5km through Zürich, São Paulo and Kraków while talking about everything and nothing at all, for hours.',
    normalize: false,
    pieces: 3,
    words: ['Naïve', 'Zoë', 'and', 'Ætheling', 'walked', '5km', 'through', 'Zürich', 'São', 'Paulo', 'and', 'Kraków', 'while', 'talking', 'about',
      'everything', 'and', 'nothing', 'at', 'all', 'for', 'hours']
  }
]

t.test('a corpus round-trips: each word is the text as sent, whole and streamed', async t => {
  for (const { text, normalize, words, pieces } of CORPUS) {
    for (const stream of [false, true]) {
      const label = `${JSON.stringify(text.slice(0, 24))}… ${stream ? 'streamed' : 'whole'}`
      const heard = await hear(service, { text, trim: true, voice: VOICES[0], noiseScale: 0, noiseW: 0, stream, normalize }, ['word', 'phoneme', 'viseme'])
      exact(t, heard, 0, label)
      t.same(wordsExact(t, heard, text, label), words, `${label}: the words as written`)
      if (pieces !== undefined) t.ok(heard.timing.length >= pieces, `${label}: one sentence cut into ${heard.timing.length} pieces`)
    }
  }
})
