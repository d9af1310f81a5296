// Many requests at once, overload, timeouts, clients that leave, shutdown.
// Everything talks to 127.0.0.1; outcomes are asserted on status, order and
// counters, never on durations (those are in test/leak/service-timing.leak.ts).

import { get as httpGet } from 'node:http'
import t from 'tap'
import WebSocket from 'ws'
import { readProbeOutput } from '../../scripts/lib/probe-model.js'
import { holdSlots, postTts, request, startTestService } from '../helpers/service.js'
import { eventually } from '../helpers/hang-guard.js'

/** Requests the service has admitted and not finished, from its own gauge. */
async function pending (url: string): Promise<number> {
  const metrics = (await request(url + '/metrics')).body.toString()
  return Number(/^chorus_pending_requests (\d+)$/m.exec(metrics)?.[1])
}

const probeIds = (body: Buffer, multi: boolean): number[] => {
  const pcm = new Int16Array(body.buffer.slice(body.byteOffset + 44, body.byteOffset + body.length))
  return readProbeOutput(Array.from(pcm, s => s / 32767), multi).ids
}

t.test('100 concurrent requests across two voices are all answered correctly', async t => {
  const service = await startTestService({}, ['en_US-probe-medium', 'en_GB-probemulti-medium'])
  t.teardown(() => service.stop())
  const texts = ['Hello there.', 'How are you today?', 'Welcome back!', 'See you soon.', 'Nice to meet you.']
  // The expected ids per text and voice, from one request each.
  const expected = new Map<string, number[]>()
  for (const voice of ['en_US-probe-medium', 'en_GB-probemulti-medium']) {
    for (const text of texts) expected.set(`${voice}|${text}`, probeIds((await postTts(service.url, { text, voice })).body, voice.includes('multi')))
  }
  const jobs = Array.from({ length: 100 }, (_, i) => ({
    text: texts[i % texts.length],
    voice: i % 2 === 0 ? 'en_US-probe-medium' : 'en_GB-probemulti-medium',
    speaker: i % 2 === 0 ? undefined : i % 109
  }))
  const replies = await Promise.all(jobs.map(job => postTts(service.url, job)))
  let correct = 0
  for (const [i, reply] of replies.entries()) {
    const job = jobs[i]
    const multi = job.voice.includes('multi')
    if (reply.status !== 200) continue
    const pcm = new Int16Array(reply.body.buffer.slice(reply.body.byteOffset + 44, reply.body.byteOffset + reply.body.length))
    const reading = readProbeOutput(Array.from(pcm, s => s / 32767), multi)
    const sameIds = JSON.stringify(reading.ids) === JSON.stringify(expected.get(`${job.voice}|${job.text}`))
    if (sameIds && (!multi || reading.speakerId === job.speaker)) correct++
  }
  t.equal(correct, 100, 'every answer is 200 and carries exactly its own text and speaker')
})

t.test('a full queue answers 503 at once, with Retry-After', async t => {
  const service = await startTestService({ TTS_MAX_PENDING: '2' }, ['en_US-probe-medium'])
  t.teardown(() => service.stop())
  // Every inference slot held by the test: the two admitted requests cannot
  // run a sentence, so the queue stays full however fast the machine, and no
  // slow voice has to burn the CPU to keep it full.
  const release = await holdSlots(service)
  const events: string[] = []
  const held = [1, 2].map(async i => {
    const reply = await postTts(service.url, { text: 'One. Two. Three. Four.' })
    events.push(`held ${i} answered`)
    return reply
  })
  await eventually('both requests to be admitted', async () => await pending(service.url) === 2)
  const third = postTts(service.url, { text: 'Hi.' }).then(reply => { events.push('refused'); return reply })
  // Answered, or admitted to wait for a slot like the others (a queue that
  // did not refuse): either way the test then lets the slots go, never hangs.
  await eventually('the third request to be answered or admitted', async () => events.includes('refused') || await pending(service.url) === 3)
  release()
  const refused = await third
  t.equal(refused.status, 503)
  t.match(refused.json, { error: /busy/, code: 'ERR_OVERLOADED' })
  t.match(refused.headers.get('retry-after'), /^\d+$/)
  const done = await Promise.all(held)
  t.equal(events[0], 'refused', `refused at once, not after the work ahead (${events.join(', ')})`)
  t.same(done.map(r => r.status), [200, 200], 'what was admitted is not lost')
  t.equal((await postTts(service.url, { text: 'Hi.' })).status, 200, 'room again afterwards')
})

t.test('TTS_TIMEOUT_SECONDS: 504, the timed-out work never runs, the worker keeps serving', async t => {
  // The test holds the only inference slot, so the request cannot finish
  // before its time is up however fast the machine: the outcome does not
  // depend on speed. How soon a running request stops is measured in
  // test/leak/service-timing.leak.ts. The fast probe voice serves: a slow one only burnt the CPU.
  const voice = 'en_US-probe-medium'
  const service = await startTestService({ TTS_TIMEOUT_SECONDS: '1', TTS_WORKERS_PER_VOICE: '1', TTS_MAX_CONCURRENT_INFERENCES: '1' }, [voice])
  t.teardown(() => service.stop())
  const gate = service.deps.pools.gate
  const slot = await gate.acquire()
  const timedOut = await postTts(service.url, { text: 'One. Two. Three. Four. Five. Six.', voice })
  t.equal(timedOut.status, 504)
  t.same(timedOut.json, { error: 'TTS request timed out', code: 'ERR_TIMEOUT' })
  t.equal(gate.waiting, 0, 'its sentences left the inference queue')
  const granted = gate.granted
  slot()
  // Straight to the worker, not over HTTP: a request would have the same
  // one-second timeout, which a sentence beside a busy CPU may outlast.
  const pool = service.deps.pools.loaded().get(voice)
  t.equal((await pool?.probe())?.mode, 'whole', 'the worker keeps serving')
  t.equal(gate.granted, granted, 'none of the six timed-out sentences ran')
  t.equal(service.logs.filter(line => line.msg === 'voice loaded' && line.voice === voice).length, 1, 'the voice was loaded once, never reloaded')
})

t.test('a client that disconnects cancels its work', async t => {
  // The held slot, not a slow voice, keeps both requests waiting.
  const voice = 'en_US-probe-medium'
  const service = await startTestService({ TTS_WORKERS_PER_VOICE: '1', TTS_MAX_CONCURRENT_INFERENCES: '1' }, [voice])
  t.teardown(() => service.stop())
  const gate = service.deps.pools.gate
  // Held by the test, so neither request runs a sentence before the second leaves.
  const slot = await gate.acquire()
  const granted = gate.granted
  const controller = new AbortController()
  const kept = postTts(service.url, { text: 'One. Two. Three.', voice })
  const leaving = request(service.url + '/tts', {
    method: 'POST',
    body: JSON.stringify({ text: 'Seven. Eight. Nine. Ten. Eleven. Twelve.', voice }),
    headers: { 'Content-Type': 'application/json' },
    signal: controller.signal
  })
  await eventually('both requests to be admitted', async () => await pending(service.url) === 2)
  controller.abort()
  await t.rejects(leaving)
  await eventually('the abandoned request to finish', async () => await pending(service.url) === 1)
  slot()
  t.equal((await kept).status, 200)
  t.equal(gate.granted - granted, 3, 'the three sentences of the request that stayed ran; none of the six abandoned ones')
  const metrics = (await request(service.url + '/metrics')).body.toString()
  t.match(metrics, /chorus_http_requests_total\{route="\/tts",method="POST",status="499"\} 1/)
})

t.test('graceful shutdown: the answer running when the close began finishes whole, new connections are refused, an open socket speaks its flushed text, then closes', async t => {
  // The drain (src/service/server.ts, docs/deployment.md): the listener stops
  // at once, so a new connection is refused by the system (no HTTP answer);
  // HTTP requests in flight finish; an open WebSocket's contexts speak the
  // text they had flushed, then isFinal, and the socket closes with 1001.
  // test/service/drain.test.ts checks the drain's own order in detail.
  const voice = 'en_US-probe-medium'
  const service = await startTestService({ TTS_WORKERS_PER_VOICE: '1' }, [voice])
  const text = 'One. Two.'
  const expected = probeIds((await postTts(service.url, { text, voice })).body, false)
  // Every inference slot held by the test: nothing runs a sentence until it lets go.
  const gate = service.deps.pools.gate
  const release = await holdSlots(service)
  const granted = gate.granted
  const events: string[] = []
  const inFlight = postTts(service.url, { text, voice }).then(reply => { events.push('answered'); return reply })
  const ws = new WebSocket(`${service.url.replace('http://', 'ws://')}/v1/text-to-speech/${voice}/stream-input`)
  const replies: Array<{ audio?: string, isFinal?: boolean }> = []
  ws.on('message', data => replies.push(JSON.parse(String(data))))
  const socketClosed = new Promise<number>(resolve => ws.once('close', code => { events.push('socket closed'); resolve(code) }))
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject) })
  for (const message of [{ text: ' ' }, { text: 'Hello there. ', flush: true }]) ws.send(JSON.stringify(message))
  await eventually('the answer and the socket\'s piece to be admitted and wait for a slot', () => service.deps.speech.pending === 2 && gate.waiting > 0)
  t.equal(gate.granted, granted, 'neither has run a sentence when the close begins')

  events.push('close began')
  const stopped = service.stop().then(() => { events.push('stopped') })
  // A new connection (not one kept alive from before, which the close ends as idle).
  const refused = await new Promise<string | undefined>(resolve => {
    httpGet(service.url + '/health', { agent: false }, () => resolve(undefined)).once('error', (error: NodeJS.ErrnoException) => resolve(error.code))
  })
  t.equal(refused, 'ECONNREFUSED', 'a new connection during the drain is refused')
  t.equal(gate.granted, granted, 'both still wait, unfinished, while the service drains')
  t.same(events, ['close began'], 'nothing ended while the slots were held')

  release()
  const [reply, code] = await Promise.all([inFlight, socketClosed])
  await stopped
  t.equal(code, 1001, 'the socket closes with 1001 once its flushed text was spoken')
  t.ok(replies.some(message => typeof message.audio === 'string' && message.audio.length > 0), 'its flushed text was spoken')
  t.equal(replies.at(-1)?.isFinal, true, 'isFinal came last')
  t.equal(events.at(-1), 'stopped', 'the close waited for the answer and the socket')
  t.equal(reply.status, 200)
  t.same(probeIds(reply.body, false), expected, 'the whole answer: both sentences')
})
