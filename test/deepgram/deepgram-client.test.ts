// Deepgram's own SDK (@deepgram/sdk's speak live client, unmodified)
// pointed at Chorus's /v1/speak: Speak and Flush give the PCM POST /tts
// gives for the same sentences, then Flushed; Clear stops the reply and is
// answered by Cleared with what the listener heard, on a playback clock the
// test moves by hand (or at the playback_offset the client reports); μ-law
// and A-law at 8 kHz decode back to the linear speech.

import t from 'tap'
import { DeepgramClient } from '@deepgram/sdk'
import { aLawSample } from '../../src/audio/alaw.js'
import { muLawSample } from '../../src/audio/mulaw.js'
import { JITTER_BUFFER_MS } from '../../src/synthesis/heard.js'
import { handClock, QUIET_VOICE, samples, startQuietService, ttsPcm, wordEnds } from '../helpers/quiet-voice.js'
import { unless } from '../helpers/test-tools.js'
import { NO_BENCH_VOICES } from '../helpers/voices.js'

const SENTENCES = ['Sure, I can help you with that.', 'The next train leaves at noon from platform two.']
const REPLY = SENTENCES.join(' ')
const clock = handClock()
const service = NO_BENCH_VOICES === false ? await startQuietService({}, { playbackClock: clock.now }) : undefined
t.teardown(async () => await service?.stop())

type Message = Record<string, any>

/** A speak socket through the SDK; audio and messages collected in order. */
async function connect (encoding: 'linear16' | 'mulaw' | 'alaw', sampleRate: number): Promise<{ send: (message: Message) => void, audio: () => Promise<Buffer>, next: (type: string) => Promise<Message>, close: () => void }> {
  const client = new DeepgramClient({ apiKey: 'unused-without-keys', baseUrl: (service?.url as string).replace('http', 'ws') })
  const socket = await client.speak.v1.connect({ model: QUIET_VOICE, encoding, sample_rate: sampleRate as never, Authorization: 'Token unused-without-keys', reconnectAttempts: 0 })
  // Read in order: each chunk's bytes, once its Blob is read.
  const chunks: Array<Promise<Buffer>> = []
  const messages: Message[] = []
  const waiting: Array<() => void> = []
  socket.on('message', message => {
    // Audio arrives as binary (a Blob, the SDK's binaryType); the rest as parsed JSON.
    if (message instanceof Blob) chunks.push(message.arrayBuffer().then(bytes => Buffer.from(bytes)))
    else if (message instanceof ArrayBuffer) chunks.push(Promise.resolve(Buffer.from(message)))
    else messages.push(message as Message)
    for (const wake of waiting.splice(0)) wake()
  })
  socket.connect()
  await socket.waitForOpen()
  const next = async (type: string): Promise<Message> => {
    for (;;) {
      const index = messages.findIndex(m => m.type === type)
      if (index >= 0) return messages.splice(index, 1)[0] as Message
      await new Promise<void>(resolve => waiting.push(resolve))
    }
  }
  return { send: message => socket.sendText(message as never), audio: async () => Buffer.concat(await Promise.all(chunks)), next, close: () => socket.close() }
}

t.test('Deepgram\'s SDK streams a reply and hears what POST /tts gives; Flushed after its audio', unless(NO_BENCH_VOICES), async t => {
  const socket = await connect('linear16', 24_000)
  t.match(await socket.next('Metadata'), { type: 'Metadata', model_name: QUIET_VOICE }, 'Metadata first')
  for (const sentence of SENTENCES) socket.send({ type: 'Speak', text: `${sentence} ` })
  socket.send({ type: 'Flush' })
  t.match(await socket.next('Flushed'), { type: 'Flushed', sequence_id: 1 })
  const expected = await ttsPcm(service as never, SENTENCES)
  const audio = await socket.audio()
  t.ok(expected.length > 0)
  t.equal(audio.length, expected.length, `${expected.length} bytes before Flushed, as POST /tts gives`)
  t.ok(audio.equals(expected), 'sample for sample the PCM of POST /tts for the same sentences')
  socket.close()
})

t.test('Clear answers Cleared with the last word heard: on the injected playback clock, or at the playback_offset the client reports', unless(NO_BENCH_VOICES), async t => {
  const words = await wordEnds(service as never, SENTENCES)
  // Between the ends of two words of the second sentence.
  const k = words.findIndex(w => w.word === 'leaves')
  const playedMs = ((words[k] as { endMs: number }).endMs + (words[k + 1] as { endMs: number }).endMs) / 2

  clock.set(1000)
  const socket = await connect('linear16', 24_000)
  for (const sentence of SENTENCES) socket.send({ type: 'Speak', text: `${sentence} ` })
  socket.send({ type: 'Flush' })
  await socket.next('Flushed')
  // The first audio left at 1000 ms; the player holds its jitter buffer before it plays.
  clock.set(1000 + JITTER_BUFFER_MS + playedMs)
  socket.send({ type: 'Clear' })
  const cleared = await socket.next('Cleared')
  t.match(cleared, { type: 'Cleared', sequence_id: 1, audio_played_ms: Math.round(playedMs), last_word: 'leaves' }, `at ${Math.round(playedMs)} ms the listener last heard "leaves"`)
  t.equal(cleared.text_spoken, `${SENTENCES[0]} The next train leaves`, 'text_spoken: up to that word')
  t.equal(cleared.text_remaining, 'at noon from platform two.', 'text_remaining: the rest')
  t.equal(`${cleared.text_spoken as string} ${cleared.text_remaining as string}`, REPLY)

  // The client knows better: its player's position.
  socket.send({ type: 'Speak', text: `${SENTENCES[0]} ` })
  socket.send({ type: 'Flush' })
  await socket.next('Flushed')
  const first = words.findIndex(w => w.word === 'help')
  socket.send({ type: 'Clear', playback_offset: { type: 'time_ms', value: (words[first] as { endMs: number }).endMs + 1 } })
  t.match(await socket.next('Cleared'), { last_word: 'help', text_spoken: 'Sure, I can help', text_remaining: 'you with that.' }, 'the reported position decides')
  socket.close()
})

t.test('telephony: mulaw and alaw at 8 kHz decode back to linear16 at 8 kHz', unless(NO_BENCH_VOICES), async t => {
  const speak = async (encoding: 'linear16' | 'mulaw' | 'alaw'): Promise<Buffer> => {
    const socket = await connect(encoding, 8000)
    socket.send({ type: 'Speak', text: SENTENCES[0] })
    socket.send({ type: 'Flush' })
    await socket.next('Flushed')
    socket.close()
    return await socket.audio()
  }
  const linear = samples(await speak('linear16'))
  t.ok(linear.length > 8000, `${linear.length} samples at 8 kHz`)
  for (const [encoding, decode] of [['mulaw', muLawSample], ['alaw', aLawSample]] as const) {
    const coded = await speak(encoding)
    t.equal(coded.length, linear.length, `${encoding}: one byte per sample`)
    let worst = 0
    coded.forEach((code, i) => { worst = Math.max(worst, Math.abs(decode(code) - (linear[i] as number)) / Math.max(256, Math.abs(linear[i] as number))) })
    t.ok(worst < 0.07, `${encoding}: within G.711's step (worst ${worst.toFixed(3)})`)
  }
})
