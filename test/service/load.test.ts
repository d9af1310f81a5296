// Many requests at once, overload, timeouts, clients that leave, shutdown.
// Everything talks to 127.0.0.1 and is bounded in count and time.

import t from 'tap'
import { readProbeOutput } from '../../scripts/lib/probe-model.js'
import { postTts, request, startTestService } from '../helpers/service.js'

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
  const slow = [postTts(service.url, { text: 'One. Two.', voice: 'en_US-probeslow-medium' }), postTts(service.url, { text: 'One. Two.', voice: 'en_US-probeslow-medium' })]
  await new Promise(resolve => setTimeout(resolve, 100))
  const started = performance.now()
  const refused = await postTts(service.url, { text: 'Hi.' })
  const elapsed = performance.now() - started
  t.equal(refused.status, 503)
  t.match(refused.json, { error: /busy/, code: 'ERR_OVERLOADED' })
  t.match(refused.headers.get('retry-after'), /^\d+$/)
  t.ok(elapsed < 1000, `refused at once (${elapsed.toFixed(0)} ms), not after the slow work ahead`)
  const done = await Promise.all(slow)
  t.same(done.map(r => r.status), [200, 200], 'what was admitted is not lost')
  t.equal((await postTts(service.url, { text: 'Hi.' })).status, 200, 'room again afterwards')
})

t.test('TTS_TIMEOUT_SECONDS: 504, the computation stops, the worker keeps serving', async t => {
  // The slow voice is the default, so it loads at start-up, before the clock
  // runs. One worker: the timed-out request's sentences would queue ahead of
  // the next request unless they were really stopped. Figures are ratios to
  // a measured sentence, so a loaded machine does not change the verdict.
  const service = await startTestService({ TTS_TIMEOUT_SECONDS: '3', TTS_WORKERS_PER_VOICE: '1', TTS_DEFAULT_VOICE: 'en_US-probeslow-medium' }, ['en_US-probe-medium', 'en_US-probeslow-medium'])
  t.teardown(() => service.stop())
  const warm = performance.now()
  t.equal((await postTts(service.url, { text: 'One.', voice: 'en_US-probeslow-medium' })).status, 200)
  const sentenceMs = performance.now() - warm
  const long = Array.from({ length: 16 }, (_, i) => `Sentence ${i + 1}.`).join(' ')
  const started = performance.now()
  const timedOut = await postTts(service.url, { text: long, voice: 'en_US-probeslow-medium' })
  const elapsed = performance.now() - started
  t.equal(timedOut.status, 504)
  t.same(timedOut.json, { error: 'TTS request timed out', code: 'ERR_TIMEOUT' })
  t.ok(elapsed >= 2950 && elapsed < 3000 + 2 * sentenceMs, `answered when the time was up (${elapsed.toFixed(0)} ms)`)
  const next = performance.now()
  const after = await postTts(service.url, { text: 'One.', voice: 'en_US-probeslow-medium' })
  const afterMs = performance.now() - next
  t.equal(after.status, 200, 'the same worker and voice serve the next request')
  t.ok(afterMs < sentenceMs * 3, `no leftover work ahead of it (${afterMs.toFixed(0)} ms, one sentence ${sentenceMs.toFixed(0)} ms)`)
  t.equal(service.logs.filter(line => line.msg === 'voice loaded' && line.voice === 'en_US-probeslow-medium').length, 1, 'the voice was loaded once, never reloaded')
})

t.test('a client that disconnects cancels its work', async t => {
  const service = await startTestService({ TTS_WORKERS_PER_VOICE: '1', TTS_DEFAULT_VOICE: 'en_US-probeslow-medium' }, ['en_US-probe-medium', 'en_US-probeslow-medium'])
  t.teardown(() => service.stop())
  const warm = performance.now()
  await postTts(service.url, { text: 'One.', voice: 'en_US-probeslow-medium' })
  const sentenceMs = performance.now() - warm
  const controller = new AbortController()
  const abandoned = postTts(service.url, { text: 'One. Two. Three. Four. Five. Six.', voice: 'en_US-probeslow-medium' }, '/tts')
  void abandoned.catch(() => {})
  const leaving = request(service.url + '/tts', {
    method: 'POST',
    body: JSON.stringify({ text: 'Seven. Eight. Nine. Ten. Eleven. Twelve.', voice: 'en_US-probeslow-medium' }),
    headers: { 'Content-Type': 'application/json' },
    signal: controller.signal
  })
  await new Promise(resolve => setTimeout(resolve, 200))
  controller.abort()
  await t.rejects(leaving)
  await abandoned
  // Six sentences of the first request ran; the second's six must not have.
  const next = performance.now()
  t.equal((await postTts(service.url, { text: 'One.', voice: 'en_US-probeslow-medium' })).status, 200)
  const nextMs = performance.now() - next
  t.ok(nextMs < sentenceMs * 3, `the abandoned work (six sentences) did not run (${nextMs.toFixed(0)} ms for one sentence of ${sentenceMs.toFixed(0)} ms)`)
  const metrics = (await request(service.url + '/metrics')).body.toString()
  t.match(metrics, /chorus_http_requests_total\{route="\/tts",method="POST",status="499"\} 1/)
})

t.test('graceful shutdown finishes what is in flight, then stops', async t => {
  const service = await startTestService({}, ['en_US-probe-medium', 'en_US-probeslow-medium'])
  const inFlight = postTts(service.url, { text: 'One. Two.', voice: 'en_US-probeslow-medium' })
  await new Promise(resolve => setTimeout(resolve, 150))
  const stopping = service.stop()
  const reply = await inFlight
  t.equal(reply.status, 200, 'the request in flight completed')
  t.ok(reply.body.length > 44)
  await stopping
  await t.rejects(request(service.url + '/health', { signal: AbortSignal.timeout(2000) }), 'no longer accepting')
})
