// An unmodified third-party client on Chorus's WebSocket: LiveKit's
// ElevenLabs plugin (@livekit/agents-plugin-elevenlabs, the TTS of LiveKit's
// voice agents), pointed at the service's base URL. It speaks
// multi-stream-input: each sentence its tokenizer completes is sent with
// flush, then {"text": "", "flush": true} and close_context end the reply.
// The audio it hands back must be what POST /tts gives for the same
// sentences, sample for sample, in order and whole; the alignment it reads
// (its word timing) must match the text when the service has word timing,
// and be absent while it has none.

import { setImmediate as nextTurn } from 'node:timers/promises'
import t from 'tap'
import { initializeLogger, tts as livekitTts } from '@livekit/agents'
import { TTS, type TTSEncoding, type VoiceSettings } from '@livekit/agents-plugin-elevenlabs'
import { postTts, startTestService } from '../helpers/service.js'
import { unless } from '../helpers/test-tools.js'
import { BENCH_VOICES, NO_BENCH_VOICES } from '../helpers/voices.js'

const VOICE = 'en_US-bench-medium'
/** A reply as a language model writes it; Chorus speaks it sentence by sentence. */
const SENTENCES = ['Sure, I can help you with that.', 'The next train leaves at noon from platform two.', 'Would you like me to book a seat for you?']
const REPLY = SENTENCES.join(' ')
/** Token by token: each word with the space before it, as model streams send them. */
const TOKENS = REPLY.split(/(?=\s)/)
/** Noise off, so the same text gives the same samples on every path: Chorus's
 * own settings ride in voice_settings, which the plugin passes on as given. */
const QUIET = { stability: 0.5, similarity_boost: 0.75, noise_scale: 0, noise_w: 0 } as VoiceSettings
/** POST /tts's pcm is 24 kHz: ElevenLabs' pcm_24000, which the plugin's type
 * omits but reads as it reads any pcm_RATE. */
const ENCODING = 'pcm_24000' as TTSEncoding

// The plugin logs through LiveKit's framework logger, which must exist first.
initializeLogger({ pretty: false, level: 'warn' })

// Each sentence decoded in one chunk: a streamed sentence in several chunks is
// scaled by the voice's recent peaks (sentence-pipeline.ts), so two requests
// for it would differ by their history, not by what the socket did.
const service = await startTestService({ TTS_VOICE_DIR: BENCH_VOICES, TTS_DEFAULT_VOICE: VOICE, TTS_STREAM_FIRST_CHUNK_FRAMES: '4096' }, [])
t.teardown(async () => await service.stop())

interface Heard {
  pcm: Buffer
  words: Array<{ text: string, startTime?: number, endTime?: number }>
  finals: number
  errors: unknown[]
}

/** Streams the reply through the plugin and collects what its stream yields. */
async function speakWithLiveKit (tokens: readonly string[]): Promise<Heard> {
  const eleven = new TTS({ apiKey: 'unused-without-keys', baseURL: `${service.url}/v1`, voiceId: VOICE, encoding: ENCODING, voiceSettings: QUIET })
  const errors: unknown[] = []
  eleven.on('error', event => errors.push(event.error))
  // No retries: a retried reply would be heard twice.
  const stream = eleven.stream({ connOptions: { maxRetry: 0, retryIntervalMs: 0, timeoutMs: 3_600_000 } })
  const feeding = (async () => {
    for (const token of tokens) {
      stream.pushText(token)
      await nextTurn()
    }
    stream.flush()
    stream.endInput()
  })()
  const frames: Buffer[] = []
  const words: Heard['words'] = []
  let finals = 0
  for await (const event of stream) {
    if (event === livekitTts.SynthesizeStream.END_OF_STREAM) continue
    const { data } = event.frame
    frames.push(Buffer.from(data.buffer, data.byteOffset, data.byteLength))
    words.push(...(event.timedTranscripts ?? []))
    if (event.final) finals++
  }
  await feeding
  await eleven.close()
  return { pcm: Buffer.concat(frames), words, finals, errors }
}

/** What POST /tts gives for each sentence (24 kHz PCM), in order. */
async function expectedPcm (): Promise<Buffer> {
  const parts: Buffer[] = []
  for (const text of SENTENCES) {
    const reply = await postTts(service.url, { text, voice: VOICE, format: 'pcm', noise_scale: 0, noise_w: 0 })
    if (reply.status !== 200) throw new Error(`POST /tts answered ${reply.status}: ${reply.body.toString()}`)
    parts.push(reply.body)
  }
  return Buffer.concat(parts)
}

/** Whether the service gives word timing for the voice: what alignment is made from. */
async function serviceHasWordTiming (): Promise<boolean> {
  const reply = await postTts(service.url, { text: SENTENCES[0], voice: VOICE, format: 'pcm', timestamps: ['word'] })
  if (reply.status !== 200) throw new Error(`POST /tts with timestamps answered ${reply.status}: ${reply.body.toString()}`)
  return Array.isArray(reply.json?.words) && reply.json.words.length > 0
}

t.test('LiveKit\'s ElevenLabs plugin streams a reply token by token and hears what POST /tts gives, whole and in order', unless(NO_BENCH_VOICES), async t => {
  const heard = await speakWithLiveKit(TOKENS)
  t.same(heard.errors, [], 'the plugin reported no error')
  t.equal(heard.finals, 1, 'one final frame: the reply ended once, with Chorus\'s isFinal')
  const expected = await expectedPcm()
  t.ok(expected.length > 0, `POST /tts gave ${expected.length} bytes`)
  t.equal(heard.pcm.length, expected.length, 'every sample, none twice: the flushed reply was spoken whole after close_context')
  t.ok(heard.pcm.equals(expected), 'sample for sample the PCM of POST /tts for the same sentences, in order')

  if (await serviceHasWordTiming()) {
    // The plugin turns Chorus's character alignment into timed words.
    t.same(heard.words.map(w => w.text.trim()).filter(w => w !== '').join(' '), REPLY, 'timed words spell the reply, in order')
    for (const word of heard.words) {
      t.ok(word.startTime !== undefined && word.endTime !== undefined && word.startTime <= word.endTime, `"${word.text}" has a start before its end`)
    }
  } else {
    t.same(heard.words, [], 'no word timing from the service, so no alignment: none made up')
  }
})
