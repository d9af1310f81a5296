// Many requests at once, overload, timeouts, clients that leave, shutdown.
// Everything talks to 127.0.0.1 and is bounded in count and time.

import t from 'tap'
import { readProbeOutput } from '../../scripts/lib/probe-model.js'
import { postTts, request, startTestService } from '../helpers/service.js'

/** Requests the service has admitted and not finished, from its own gauge. */
async function pending (url: string): Promise<number> {
  const metrics = (await request(url + '/metrics')).body.toString()
  return Number(/^chorus_pending_requests (\d+)$/m.exec(metrics)?.[1])
}

async function until (what: string, check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 20))
  }
}

/** Milliseconds of one single-sentence request on a voice. The test service
 * has the cache off, so every call is synthesised. */
async function oneSentenceMs (url: string, voice: string): Promise<number> {
  const started = performance.now()
  const reply = await postTts(url, { text: 'One.', voice })
  if (reply.status !== 200) throw new Error(`one sentence: status ${reply.status}`)
  return performance.now() - started
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
  const service = await startTestService({ TTS_MAX_PENDING: '2' }, ['en_US-probe-medium', 'en_US-probeslow-medium'])
  t.teardown(() => service.stop())
  const events: string[] = []
  const slow = [1, 2].map(async i => {
    const reply = await postTts(service.url, { text: 'One. Two. Three. Four.', voice: 'en_US-probeslow-medium' })
    events.push(`slow ${i} answered`)
    return reply
  })
  await until('both slow requests to be admitted', async () => await pending(service.url) === 2)
  const refused = await postTts(service.url, { text: 'Hi.' })
  events.push('refused')
  t.equal(refused.status, 503)
  t.match(refused.json, { error: /busy/, code: 'ERR_OVERLOADED' })
  t.match(refused.headers.get('retry-after'), /^\d+$/)
  const done = await Promise.all(slow)
  t.equal(events[0], 'refused', `refused at once, not after the slow work ahead (${events.join(', ')})`)
  t.same(done.map(r => r.status), [200, 200], 'what was admitted is not lost')
  t.equal((await postTts(service.url, { text: 'Hi.' })).status, 200, 'room again afterwards')
})

t.test('TTS_TIMEOUT_SECONDS: 504, the computation stops, the worker keeps serving', async t => {
  // The slow voice is the default, so it loads at start-up, before the clock
  // runs. One worker: the timed-out request's sentences would queue ahead of
  // the next request unless they were really stopped. Durations are compared as ratios to a sentence
  // measured just before or after, so a loaded machine does not change the verdict.
  const voice = 'en_US-probeslow-medium'
  const service = await startTestService({ TTS_TIMEOUT_SECONDS: '3', TTS_WORKERS_PER_VOICE: '1', TTS_DEFAULT_VOICE: voice }, ['en_US-probe-medium', voice])
  t.teardown(() => service.stop())
  const sentenceMs = await oneSentenceMs(service.url, voice)
  // Enough work that it would take several times the timeout, however fast the machine.
  const sentences = 40
  const long = Array.from({ length: sentences }, (_, i) => `Sentence ${i + 1}.`).join(' ')
  const started = performance.now()
  const timedOut = await postTts(service.url, { text: long, voice })
  const elapsed = performance.now() - started
  t.equal(timedOut.status, 504)
  t.same(timedOut.json, { error: 'TTS request timed out', code: 'ERR_TIMEOUT' })
  // The lower bound cannot be broken by a slow machine, only by a timer that fires early.
  t.ok(elapsed >= 2950, `not answered before the time was up (${elapsed.toFixed(0)} ms)`)
  const share = elapsed / (sentences * sentenceMs)
  t.ok(share < 0.5, `answered when the time was up, not when the work would have ended (${(share * 100).toFixed(0)} % of ${sentences} sentences' time)`)
  const afterMs = await oneSentenceMs(service.url, voice)
  const baselineMs = await oneSentenceMs(service.url, voice)
  t.ok(afterMs < baselineMs * 3, `no leftover work ahead of the next request (${afterMs.toFixed(0)} ms, then ${baselineMs.toFixed(0)} ms for the same sentence)`)
  t.equal(service.logs.filter(line => line.msg === 'voice loaded' && line.voice === voice).length, 1, 'the voice was loaded once, never reloaded')
})

t.test('a client that disconnects cancels its work', async t => {
  const voice = 'en_US-probeslow-medium'
  const service = await startTestService({ TTS_WORKERS_PER_VOICE: '1', TTS_DEFAULT_VOICE: voice }, ['en_US-probe-medium', voice])
  t.teardown(() => service.stop())
  const controller = new AbortController()
  // One worker: the first request's six sentences run while the second's wait behind them.
  const abandoned = postTts(service.url, { text: 'One. Two. Three. Four. Five. Six.', voice }, '/tts')
  void abandoned.catch(() => {})
  const leaving = request(service.url + '/tts', {
    method: 'POST',
    body: JSON.stringify({ text: 'Seven. Eight. Nine. Ten. Eleven. Twelve.', voice }),
    headers: { 'Content-Type': 'application/json' },
    signal: controller.signal
  })
  await until('both requests to be admitted', async () => await pending(service.url) === 2)
  controller.abort()
  await t.rejects(leaving)
  t.equal((await abandoned).status, 200)
  // Six sentences of the first request ran; had the second's six run too,
  // the next request would wait behind them.
  const nextMs = await oneSentenceMs(service.url, voice)
  const baselineMs = await oneSentenceMs(service.url, voice)
  t.ok(nextMs < baselineMs * 3, `the abandoned work (six sentences) did not run (${nextMs.toFixed(0)} ms, then ${baselineMs.toFixed(0)} ms for the same sentence)`)
  const metrics = (await request(service.url + '/metrics')).body.toString()
  t.match(metrics, /chorus_http_requests_total\{route="\/tts",method="POST",status="499"\} 1/)
})

t.test('graceful shutdown finishes what is in flight, then stops', async t => {
  const service = await startTestService({}, ['en_US-probe-medium', 'en_US-probeslow-medium'])
  const inFlight = postTts(service.url, { text: 'One. Two.', voice: 'en_US-probeslow-medium' })
  await until('the request to be admitted', async () => await pending(service.url) === 1)
  const stopping = service.stop()
  const reply = await inFlight
  t.equal(reply.status, 200, 'the request in flight completed')
  t.ok(reply.body.length > 44)
  await stopping
  await t.rejects(request(service.url + '/health', { signal: AbortSignal.timeout(2000) }), 'no longer accepting')
})
