// POST /tts and POST /v1/audio/speech with "timestamps": a whole answer is JSON with the audio
// base64-encoded beside the events (visemes labelled as docs/timing.md's
// table maps the phonemes); a streamed one is Server-Sent Events
// (read with eventsource-parser) whose timing comes before the audio it
// covers; the audio is the audio without timing; a bad field is a 400 that
// names it. On a bench voice (a real Piper graph, with durations).

import { cp, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createParser } from 'eventsource-parser'
import t from 'tap'
import { loadServiceConfig } from '../../src/service/config.js'
import { startService } from '../../src/service/server.js'
import { createLogger } from '../../src/shared/logger.js'
import { request } from '../helpers/service.js'
import { BENCH_VOICES } from '../helpers/voices.js'

const VOICE = 'en_US-bench-x_low'
const voiceDir = await mkdtemp(join(tmpdir(), 'chorus-tts-timing-'))
for (const ext of ['.onnx', '.onnx.json']) await cp(join(BENCH_VOICES, VOICE + ext), join(voiceDir, VOICE + ext))
const service = await startService(loadServiceConfig({
  TTS_HTTP_HOST: '127.0.0.1', TTS_HTTP_PORT: '0', TTS_VOICE_DIR: voiceDir, TTS_DEFAULT_VOICE: VOICE,
  TTS_WORKERS_PER_VOICE: '1', TTS_TIMEOUT_SECONDS: '3600', TTS_CACHE_BYTES: '0'
}), createLogger('chorus-tts', 'error'))
t.teardown(async () => { await service.close(); await rm(voiceDir, { recursive: true, force: true }) })

const BODY = { text: 'Hello there. How are you today?', noise_scale: 0, noise_w: 0, sentence_silence: 0.2 }
const post = async (body: object) => await request(`${service.url}/tts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

interface Span { start_sample: number, end_sample: number, start_ms: number, end_ms: number }

t.test('a whole answer: JSON, the same audio, phonemes to the last sample, visemes as the table maps them', async t => {
  const plain = await post(BODY)
  const timed = await post({ ...BODY, timestamps: ['phoneme', 'viseme', 'word'] })
  t.equal(timed.status, 200)
  t.match(timed.headers.get('content-type'), /^application\/json/)
  const audio = Buffer.from(timed.json.audio, 'base64')
  t.ok(audio.equals(plain.body), 'the audio is byte for byte the answer without timing')
  t.equal(timed.json.audio_format, 'wav')
  t.equal(timed.json.sample_rate, 16000, 'the x_low voice\'s rate')
  const phonemes = timed.json.phonemes as Span[]
  t.equal(phonemes[0].start_sample, 0)
  t.equal(phonemes.at(-1)?.end_sample, (audio.length - 44) / 2, 'the last phoneme ends at the last sample')
  t.equal(phonemes.at(-1)?.end_ms, Math.round((audio.length - 44) / 2 * 100_000 / 16000) / 100, 'and in milliseconds')
  // Worked out by hand from docs/timing.md's table (h kk, ə E, l nn, o oh,
  // ʊ ou, ð TH, ɹ RR, a aa, j ih, t d DD; stress marks no event; ^ $ . ?
  // and spaces sil), one list for both sentences' pieces.
  t.equal(phonemes.map(p => (p as Span & { phoneme: string }).phoneme).join(''), '^həlˈoʊ ðˈɛɹ.$^hˌaʊ ɑːɹ juː tədˈeɪ?$', 'espeak-ng\'s phonemes')
  t.same((timed.json.visemes as Array<{ viseme: string }>).map(v => v.viseme), [
    'sil', 'kk', 'E', 'nn', 'oh', 'ou', 'sil', 'TH', 'E', 'RR', 'sil',
    'sil', 'kk', 'aa', 'ou', 'sil', 'aa', 'RR', 'sil', 'ih', 'ou', 'sil', 'DD', 'E', 'DD', 'E', 'ih', 'sil'
  ], 'their visemes')
})

t.test('a streamed answer: Server-Sent Events, timing before its audio', async t => {
  const reply = await post({ ...BODY, stream: true, timestamps: ['phoneme'] })
  t.equal(reply.status, 200)
  t.match(reply.headers.get('content-type'), /^text\/event-stream/)
  const events: Array<Record<string, any>> = []
  const parser = createParser({ onEvent: e => events.push(JSON.parse(e.data)) })
  parser.feed(reply.body.toString())
  t.equal(events.at(-1)?.type, 'speech.audio.done')
  let audioBytes = 0
  let late = 0
  let end = 0
  for (const event of events) {
    if (event.type === 'speech.audio.delta') audioBytes += Buffer.from(event.audio, 'base64').length
    if (event.type === 'speech.timing') {
      if (event.phonemes[0].start_sample < Math.max(0, (audioBytes - 44) / 2)) late++
      end = event.phonemes.at(-1).end_sample
    }
  }
  t.equal(late, 0, 'no timing event after the audio it covers')
  t.equal(end, (audioBytes - 44) / 2, 'the last phoneme ends at the last sample')
})

t.test('a bad timestamps field is a 400 that names it', async t => {
  const reply = await post({ ...BODY, timestamps: ['words'] })
  t.equal(reply.status, 400)
  t.equal(reply.json.error, 'Expected an array of "word", "phoneme", "viseme" for timestamps but received ["words"] (array)')
})

t.test('POST /v1/audio/speech: JSON without sse, speech.timing events with it', async t => {
  const post = async (body: object) => await request(`${service.url}/v1/audio/speech`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const asked = { model: 'tts-1', voice: VOICE, input: 'Hello there. How are you today?', response_format: 'wav', timestamps: ['viseme'] }
  const whole = await post(asked)
  t.equal(whole.status, 200)
  t.equal(whole.json.audio_format, 'wav')
  const audio = Buffer.from(whole.json.audio, 'base64')
  t.equal((whole.json.visemes as Span[]).at(-1)?.end_sample, (audio.length - 44) / 2, 'the last viseme ends at the last sample')
  t.same(whole.json.phonemes, [], 'kinds not asked for are empty')

  const sse = await post({ ...asked, stream_format: 'sse' })
  const types: string[] = []
  createParser({ onEvent: e => types.push(JSON.parse(e.data).type) }).feed(sse.body.toString())
  // The first delta is the WAV header, which carries no samples.
  const deltas = types.flatMap((type, i) => type === 'speech.audio.delta' ? [i] : [])
  t.ok(types.indexOf('speech.timing') < deltas[1], 'timing comes before the first audio it covers')
  t.ok(types.includes('speech.audio.delta'))
  t.equal(types.at(-1), 'speech.audio.done')

  const bad = await post({ ...asked, timestamps: 'word' })
  t.equal(bad.status, 400)
  t.equal(bad.json.error.param, 'timestamps', 'OpenAI\'s error shape names the field')
})

t.test('word offsets index the text as sent: POST /tts keeps its whitespace, OpenAI its input', async t => {
  const text = '  Hello there, it costs $5 🙂.\n'
  const words = (list: Array<Record<string, any>>): Array<[string, number, number]> => list.map(w => [w.word, w.text_start, w.text_end])
  const tts = await post({ text, noise_scale: 0, noise_w: 0, timestamps: ['word'] })
  t.equal(tts.status, 200)
  t.same(words(tts.json.words), [['Hello', 2, 7], ['there', 8, 13], ['it', 15, 17], ['costs', 18, 23], ['$5', 24, 26], ['🙂', 27, 29]])
  for (const w of tts.json.words) t.equal(text.slice(w.text_start, w.text_end), w.word)
  const openai = await request(`${service.url}/v1/audio/speech`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'tts-1', voice: VOICE, input: text, response_format: 'wav', timestamps: ['word'] })
  })
  t.equal(openai.status, 200)
  // The normalizer is on here: the emoji is dropped, so it is no word.
  t.same(words(openai.json.words), [['Hello', 2, 7], ['there', 8, 13], ['it', 15, 17], ['costs', 18, 23], ['$5', 24, 26]])
})
