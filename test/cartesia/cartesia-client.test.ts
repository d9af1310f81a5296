// Cartesia's own client (@cartesia/cartesia-js, unmodified) pointed at
// Chorus's /tts/websocket: a reply streamed in one context comes back as
// the PCM POST /tts gives for the same sentences, sample for sample; its
// word timestamps slice the text, in order, on one timeline; μ-law and
// A-law at 8 kHz decode back to the same speech; an unknown voice is an
// error message for the context, not a closed socket.

import t from 'tap'
import WS from 'ws'
import { WebSocket as CartesiaSocket, type StreamRequest } from '@cartesia/cartesia-js'
import { aLawSample } from '../../src/audio/alaw.js'
import { muLawSample } from '../../src/audio/mulaw.js'
import { QUIET_VOICE, samples, startQuietService, ttsPcm } from '../helpers/quiet-voice.js'
import { postTts } from '../helpers/service.js'
import { unless } from '../helpers/test-tools.js'
import { NO_BENCH_VOICES } from '../helpers/voices.js'

const SENTENCES = ['Sure, I can help you with that.', 'The next train leaves at noon from platform two.']
const REPLY = SENTENCES.join(' ')

const service = NO_BENCH_VOICES === false ? await startQuietService() : undefined
t.teardown(async () => await service?.stop())

interface Reply { audio: Buffer, words: string[], starts: number[], ends: number[], messages: Array<Record<string, any>> }

/** Connects Cartesia's client and streams one context to its done. */
async function speak (encoding: string, sampleRate: number, request: Partial<StreamRequest>): Promise<Reply> {
  const client = new CartesiaSocket({ sampleRate, container: 'raw', encoding }, { apiKey: 'unused-without-keys', baseUrl: service?.url })
  // Node 20 has no global WebSocket: partysocket takes ws's.
  await client.connect({ WebSocket: WS, maxRetries: 0 } as never)
  const reply: Reply = { audio: Buffer.alloc(0), words: [], starts: [], ends: [], messages: [] }
  const response = client.send({ model_id: 'sonic-english', voice: { mode: 'id', id: QUIET_VOICE }, transcript: REPLY, add_timestamps: true, ...request } as StreamRequest)
  const chunks: Buffer[] = []
  await new Promise<void>(resolve => {
    void response.on('message', (text: string) => {
      const message = JSON.parse(text) as Record<string, any>
      reply.messages.push(message)
      if (message.type === 'chunk') chunks.push(Buffer.from(message.data as string, 'base64'))
      if (message.type === 'timestamps') {
        reply.words.push(...message.word_timestamps.words as string[])
        reply.starts.push(...message.word_timestamps.start as number[])
        reply.ends.push(...message.word_timestamps.end as number[])
      }
      if (message.done === true) resolve()
    })
  })
  client.disconnect()
  reply.audio = Buffer.concat(chunks)
  return reply
}

t.test('Cartesia\'s client streams a reply and hears what POST /tts gives, with word timestamps that slice the text', unless(NO_BENCH_VOICES), async t => {
  const reply = await speak('pcm_s16le', 24_000, {})
  t.same(reply.messages.filter(m => m.type === 'error'), [], 'no error')
  t.match(reply.messages.at(-1), { type: 'done', done: true, status_code: 200 }, 'done ends the context')
  const expected = await ttsPcm(service as never, SENTENCES)
  t.equal(reply.audio.length, expected.length, `${reply.audio.length} bytes, as POST /tts gives`)
  t.ok(reply.audio.equals(expected), 'sample for sample the PCM of POST /tts for the same sentences')

  t.same(reply.words.join(' '), REPLY.replace(/[,.]/g, '').split(/\s+/).join(' '), 'the words, in order, spell the text')
  let at = 0
  for (const word of reply.words) {
    const found = REPLY.indexOf(word, at)
    t.ok(found >= at, `"${word}" is the next word of the text`)
    at = found + word.length
  }
  const seconds = expected.length / 2 / 24_000
  t.ok(reply.starts.every((start, i) => start < (reply.ends[i] as number) && (i === 0 || start >= (reply.ends[i - 1] as number) - 1e-9)), 'each word ends after it starts, and starts after the one before it ends')
  t.ok((reply.ends.at(-1) as number) <= seconds && (reply.ends.at(-1) as number) > seconds / 2, `the last word ends within the audio (${reply.ends.at(-1)} of ${seconds} s): one timeline over both sentences`)
})

t.test('telephony: pcm_mulaw and pcm_alaw at 8 kHz decode back to the speech of pcm_s16le at 8 kHz', unless(NO_BENCH_VOICES), async t => {
  const linear = samples((await speak('pcm_s16le', 8000, { transcript: SENTENCES[0] as string })).audio)
  t.ok(linear.length > 0, `${linear.length} samples at 8 kHz`)
  for (const [encoding, decode] of [['pcm_mulaw', muLawSample], ['pcm_alaw', aLawSample]] as const) {
    const coded = (await speak(encoding, 8000, { transcript: SENTENCES[0] as string })).audio
    t.equal(coded.length, linear.length, `${encoding}: one byte per sample, as many samples`)
    let worst = 0
    coded.forEach((code, i) => { worst = Math.max(worst, Math.abs(decode(code) - (linear[i] as number)) / Math.max(256, Math.abs(linear[i] as number))) })
    t.ok(worst < 0.07, `${encoding}: every sample decodes to within G.711's step (worst ${worst.toFixed(3)} of the sample)`)
  }
})

t.test('an unknown voice: an error message for the context, with Cartesia\'s status code and done', unless(NO_BENCH_VOICES), async t => {
  const reply = await speak('pcm_s16le', 24_000, { voice: { mode: 'id', id: 'en_US-nobody-medium' } })
  t.match(reply.messages.at(-1), { type: 'error', done: true, status_code: 400, error: /Voice model not found: en_US-nobody-medium/ })
  t.equal(reply.audio.length, 0, 'no audio')
  t.equal((await postTts(service?.url as string, { text: 'Still here.', voice: QUIET_VOICE })).status, 200, 'the service goes on')
})
