// A reader who stops reading pauses its own context's synthesis: the server
// holds at most one unwritten message for it, the speeches' buffer stays
// within what the byte budget guarantees (TTS_BUFFER_BYTES plus one chunk:
// a chunk is never split to fit, byte-budget.ts), read from its counters,
// not from a moment's timing, and the text not yet reached stays
// queued; once the reader reads again, every piece arrives, in order, to
// the final message.

import t from 'tap'
import { eventually } from '../helpers/hang-guard.js'
import { startTestService } from '../helpers/service.js'
import { stalledSocket } from '../helpers/stalled-socket.js'

const BUFFER = 16384
const service = await startTestService({ TTS_RESPONSE_BUFFER_BYTES: String(BUFFER), TTS_BUFFER_BYTES: String(BUFFER) })
t.teardown(async () => await service.stop())

t.test('a stalled reader holds its context\'s synthesis, not the server\'s memory', async t => {
  // The built-in voice speaks at real length (the probe voices make a few samples), at 48 kHz PCM:
  // some 350 s of audio, far more than the sockets' kernel buffers take.
  const { ws, replies, closed } = await stalledSocket(service.url)
  const SENTENCES = 80
  ws.send(JSON.stringify({ text: ' ' }))
  for (let i = 0; i < SENTENCES; i++) ws.send(JSON.stringify({ text: `This is sentence number ${i + 1} of a long reply that nobody reads. ` }))
  ws.send(JSON.stringify({ text: '' }))

  const session = [...service.websockets.sessions][0]
  await eventually('the server waits on the reader', () => session.unwritten > 0 && session.bufferedAmount > 0)
  t.equal(session.unwritten, 1, 'one message waits to be written, no more')
  const { buffered } = service.deps.speech
  // Synthesis may still be filling the budget: the bound holds at every moment, whatever the moment.
  // A chunk here is a whole sentence (some 320 kB at 48 kHz), so the bound is the budget's, not a moment's.
  t.ok(buffered.bytes < BUFFER + buffered.largest, `the speeches' buffer ${buffered.bytes} < TTS_BUFFER_BYTES + the largest chunk (${buffered.largest})`)
  t.ok(session.heldText > 0, `${session.heldText} characters still wait: synthesis stopped ahead of them`)

  ws.resume()
  t.equal(await closed, 1000)
  t.same(replies.at(-1), { isFinal: true })
  t.notOk(replies.some(m => m.error !== undefined), 'no error')
  t.equal(service.websockets.limits.text, 0, 'every character released')
})
