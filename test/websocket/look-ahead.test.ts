// One look-ahead for every stream (src/synthesis/look-ahead.ts): a
// WebSocket context asks for its pieces' speech TTS_SENTENCE_WINDOW ahead,
// counting the one being sent, as POST /tts?stream=1 starts its sentences.
// A stalled reader shows it: the pieces started (each an admitted request)
// stop at the window, no more, and all arrive once it reads.

import t from 'tap'
import { eventually } from '../helpers/hang-guard.js'
import { startTestService } from '../helpers/service.js'
import { stalledSocket } from '../helpers/stalled-socket.js'

const WINDOW = 4
const service = await startTestService({ TTS_SENTENCE_WINDOW: String(WINDOW) })
t.teardown(async () => await service.stop())

t.test('the WebSocket and POST /tts?stream=1 run ahead by the same window', async t => {
  t.equal(service.deps.speech.lookAhead.window, WINDOW)
  // The built-in voice at 48 kHz PCM: pieces far larger than the sockets' kernel buffers.
  const { ws, replies, closed } = await stalledSocket(service.url)
  const PIECES = 60
  ws.send(JSON.stringify({ text: ' ' }))
  for (let i = 0; i < PIECES; i++) ws.send(JSON.stringify({ text: `This is sentence number ${i + 1} of a reply read slowly. `, flush: true }))
  ws.send(JSON.stringify({ text: '' }))

  const speech = service.deps.speech
  let most = 0
  await eventually(`the context holds ${WINDOW} pieces started`, () => {
    most = Math.max(most, speech.pending)
    return speech.pending === WINDOW
  })
  t.equal(most, WINDOW, 'never more than the window')
  ws.resume()
  t.equal(await closed, 1000)
  t.same(replies.at(-1), { isFinal: true })
  t.notOk(replies.some(m => m.error !== undefined), 'no error')
})
