// Barge-in frees a context's inference slots within one inference: on a
// one-slot service with several contexts speaking, a context closed with
// nothing flushed starts no inference after its close, so the one that was
// running when the close came is its last (terminated or finished). Each
// context speaks for its own API key, so the scheduler's grants per tenant
// count each context's inferences.

import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import WebSocket from 'ws'
import { eventually } from '../helpers/hang-guard.js'
import { startTestService } from '../helpers/service.js'
import { INACTIVITY } from '../../src/websocket/messages.js'

const KEYS: Record<string, string> = { barger: 'barge-in-test-key-barger', y: 'barge-in-test-key-other-y', z: 'barge-in-test-key-other-z' }
const folder = await mkdtemp(join(tmpdir(), 'chorus-barge-in-'))
const keysFile = join(folder, 'keys.json')
await writeFile(keysFile, JSON.stringify({ keys: Object.fromEntries(Object.entries(KEYS).map(([name, key]) => [key, { name }])) }))
// The slow probe voice: an inference lasts long enough to be running when the close comes.
const VOICE = 'en_US-probeslow-medium'
const service = await startTestService({ TTS_MAX_CONCURRENT_INFERENCES: '1', TTS_API_KEYS_FILE: keysFile, TTS_DEFAULT_VOICE: VOICE }, [VOICE])
t.teardown(async () => {
  await service.stop()
  await rm(folder, { recursive: true, force: true })
})
const gate = service.deps.pools.gate
const grants = (name: string): number => gate.counts.granted.get(name) ?? 0

interface Speaker {
  replies: Array<Record<string, any>>
  send: (message: Record<string, unknown>) => void
  closed: Promise<number>
}

/** The barger's socket stays open, silent, while the others speak. */
async function speaker (name: string): Promise<Speaker> {
  const ws = new WebSocket(`${service.url.replace('http://', 'ws://')}/v1/text-to-speech/${VOICE}/multi-stream-input?output_format=pcm_22050&inactivity_timeout=${INACTIVITY.max}`, { headers: { 'xi-api-key': KEYS[name] } })
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject) })
  const replies: Array<Record<string, any>> = []
  ws.on('message', data => replies.push(JSON.parse(String(data))))
  const closed = new Promise<number>(resolve => ws.once('close', code => resolve(code)))
  return { replies, closed, send: message => ws.send(JSON.stringify(message)) }
}

const SENTENCES = ['The first sentence of a long reply.', 'A second sentence follows it.', 'Then comes a third one.', 'And a fourth to end it.']
const isFinal = (s: Speaker): boolean => s.replies.some(m => m.isFinal === true)

t.test('closing a context under load starts none of its inferences after the close', async t => {
  const [barger, y, z] = [await speaker('barger'), await speaker('y'), await speaker('z')]
  // Every sentence waits behind the test's slot (each message is one piece,
  // one request, its sentences queued at once), so all three speak when it frees.
  const slot = await gate.acquire()
  for (const s of [barger, y, z]) s.send({ text: ' ', context_id: 'talk' })
  barger.send({ text: SENTENCES.join(' ') + ' ', context_id: 'talk' })
  for (const s of [y, z]) s.send({ text: SENTENCES.slice(0, 3).join(' ') + ' ', context_id: 'talk', flush: true })
  const queued = (): number => gate.waiting + (service.deps.pools.loaded().get(VOICE)?.queueSize ?? 0)
  await eventually('every sentence waits for the slot', () => queued() === SENTENCES.length + 3 + 3)
  slot()

  await eventually('the barger\'s first inference is granted', () => grants('barger') >= 1)
  barger.send({ context_id: 'talk', close_context: true })
  await eventually('the barger\'s isFinal', () => isFinal(barger))
  const atClose = grants('barger')
  t.comment(`the barger had ${atClose} inference(s) granted when its isFinal came`)

  for (const s of [y, z]) s.send({ close_socket: true })
  t.equal(await y.closed, 1000)
  t.equal(await z.closed, 1000)
  t.equal(grants('y'), 3, 'y spoke its three sentences')
  t.equal(grants('z'), 3, 'z spoke its three sentences')
  t.equal(grants('barger'), atClose, 'no inference of the closed context started after its close, while the others went on')
  t.ok(atClose < SENTENCES.length, `its remaining sentences were dropped (${atClose} of ${SENTENCES.length} ran)`)
  const final = barger.replies.findIndex(m => m.isFinal === true)
  t.same(barger.replies[final], { isFinal: true, contextId: 'talk' })
  t.equal(final, barger.replies.length - 1, 'nothing for the closed context after its isFinal')
  t.notOk([...barger.replies, ...y.replies, ...z.replies].some(m => m.error !== undefined), 'no error')
})
