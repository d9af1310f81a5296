// What was heard, on the sockets that speak in contexts: ElevenLabs'
// multi-stream-input sends it after isFinal when close_context asks
// (report_heard, audio_played_ms), and nothing after isFinal otherwise;
// Cartesia's answers cancel with it. The playback clock is the test's: the
// listener's position is exact, and so is the last word heard.

import t from 'tap'
import WebSocket from 'ws'
import { JITTER_BUFFER_MS } from '../../src/synthesis/heard.js'
import { handClock, QUIET_VOICE, startQuietService, wordEnds } from '../helpers/quiet-voice.js'
import { unless } from '../helpers/test-tools.js'
import { NO_BENCH_VOICES } from '../helpers/voices.js'

const SENTENCES = ['Sure, I can help you with that.', 'The next train leaves at noon from platform two.']
const clock = handClock()
const service = NO_BENCH_VOICES === false ? await startQuietService({}, { playbackClock: clock.now }) : undefined
t.teardown(async () => await service?.stop())

type Message = Record<string, any>

async function open (path: string): Promise<{ send: (m: Message) => void, next: (match: (m: Message) => boolean) => Promise<Message>, messages: Message[], close: () => void }> {
  const ws = new WebSocket(`${(service?.url as string).replace('http', 'ws')}${path}`)
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject) })
  const messages: Message[] = []
  const waiting: Array<() => void> = []
  ws.on('message', data => {
    messages.push(JSON.parse(String(data)) as Message)
    for (const wake of waiting.splice(0)) wake()
  })
  const next = async (match: (m: Message) => boolean): Promise<Message> => {
    for (;;) {
      const found = messages.find(match)
      if (found !== undefined) return found
      await new Promise<void>(resolve => waiting.push(resolve))
    }
  }
  return { send: m => ws.send(JSON.stringify(m)), next, messages, close: () => ws.close() }
}

/** Halfway between the end of `word` and the next word's, on the reply's timeline. */
async function between (word: string): Promise<number> {
  const words = await wordEnds(service as never, SENTENCES)
  const k = words.findIndex(w => w.word === word)
  return ((words[k] as { endMs: number }).endMs + (words[k + 1] as { endMs: number }).endMs) / 2
}

t.test('ElevenLabs\' socket: close_context with report_heard is answered after isFinal with the last word heard', unless(NO_BENCH_VOICES), async t => {
  const playedMs = await between('train')
  clock.set(10_000)
  const socket = await open(`/v1/text-to-speech/${QUIET_VOICE}/multi-stream-input?output_format=pcm_24000`)
  // The whole reply is sent (its last audio message is the second piece's), then the user barges in.
  socket.send({ text: `${SENTENCES.join(' ')} `, context_id: 'a', flush: true })
  await socket.next(m => m.audio !== undefined && m.alignment?.chars.join('').includes('platform'))
  clock.set(10_000 + JITTER_BUFFER_MS + playedMs)
  socket.send({ context_id: 'a', close_context: true, report_heard: true })
  const heard = await socket.next(m => m.heard !== undefined)
  const final = socket.messages.findIndex(m => m.isFinal === true)
  t.ok(final >= 0 && final === socket.messages.indexOf(heard) - 1, 'right after isFinal')
  t.match(heard, { contextId: 'a', heard: { last_word: 'train', audio_played_ms: Math.round(playedMs), text_spoken: `${SENTENCES[0]} The next train`, text_remaining: 'leaves at noon from platform two.' } })

  // Without report_heard, nothing follows isFinal (ElevenLabs' own clients expect none).
  socket.send({ text: `${SENTENCES[0]} `, context_id: 'b', flush: true })
  await socket.next(m => m.contextId === 'b' && m.audio !== undefined)
  socket.send({ context_id: 'b', close_context: true })
  await socket.next(m => m.contextId === 'b' && m.isFinal === true)
  // A third context's final comes after anything b could still send.
  socket.send({ text: `${SENTENCES[0]} `, context_id: 'c', flush: true })
  socket.send({ context_id: 'c', close_context: true, audio_played_ms: 0 })
  t.match(await socket.next(m => m.contextId === 'c' && m.heard !== undefined), { heard: { audio_played_ms: 0, last_word: null, text_spoken: '' } }, 'audio_played_ms asks too, and counts from the position given')
  t.same(socket.messages.filter(m => m.contextId === 'b' && m.heard !== undefined), [], 'b asked for nothing and got nothing after its isFinal')
  socket.close()
})

t.test('Cartesia\'s socket: cancel stops the context and says what was heard', unless(NO_BENCH_VOICES), async t => {
  const playedMs = await between('that')
  clock.set(20_000)
  const socket = await open('/tts/websocket')
  socket.send({ context_id: 'x', model_id: 'sonic', voice: { mode: 'id', id: QUIET_VOICE }, output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: 24_000 }, transcript: `${SENTENCES.join(' ')} `, continue: true, flush: true })
  await socket.next(m => m.type === 'flush_done')
  clock.set(20_000 + JITTER_BUFFER_MS + playedMs)
  socket.send({ context_id: 'x', cancel: true })
  t.match(await socket.next(m => m.type === 'cancelled'), { context_id: 'x', done: true, last_word: 'that', text_spoken: SENTENCES[0], text_remaining: SENTENCES[1] })
  socket.close()
})
