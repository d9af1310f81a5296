// How soon the service stops work it will not deliver (a request past
// TTS_TIMEOUT_SECONDS, and one whose client left), how soon the WebSocket's
// text wait cuts held text, and how soon a streamed answer's parts arrive.
// Every duration is judged against one measured in the same run on the same
// voice (a sentence, a flushed piece, the whole answer), repeated and
// judged on the median. What is answered, and what never runs, is asserted
// in test/service/load.test.ts.

import { once } from 'node:events'
import { request as httpRequest } from 'node:http'
import t from 'tap'
import WebSocket from 'ws'
import { postTts, request, startTestService } from '../helpers/service.js'
import { figures, median, repeat, ROUNDS } from './figures.js'

const VOICE = 'en_US-probeslow-medium'

async function pending (url: string): Promise<number> {
  const metrics = (await request(url + '/metrics')).body.toString()
  return Number(/^chorus_pending_requests (\d+)$/m.exec(metrics)?.[1])
}

async function until (what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 5000; i++) {
    if (await check()) return
    await new Promise(resolve => setTimeout(resolve, 20))
  }
  throw new Error(`never happened: ${what}`)
}

/** Milliseconds of one single-sentence request (the test service has the cache off). */
async function oneSentenceMs (url: string): Promise<number> {
  const started = performance.now()
  const reply = await postTts(url, { text: 'One.', voice: VOICE })
  if (reply.status !== 200) throw new Error(`one sentence: status ${reply.status}`)
  return performance.now() - started
}

t.test('TTS_TIMEOUT_SECONDS: answered when the time is up, and nothing left running', async t => {
  const timeoutMs = 3000
  // One worker: the timed-out request's sentences would queue ahead of the
  // next request unless they were really stopped.
  const service = await startTestService({ TTS_TIMEOUT_SECONDS: String(timeoutMs / 1000), TTS_WORKERS_PER_VOICE: '1', TTS_DEFAULT_VOICE: VOICE }, ['en_US-probe-medium', VOICE])
  t.teardown(() => service.stop())
  // Enough work to take several times the timeout, however fast the machine.
  const sentences = 40
  const long = Array.from({ length: sentences }, (_, i) => `Sentence ${i + 1}.`).join(' ')
  const answered: number[] = []
  const shares: number[] = []
  const leftovers = await repeat(ROUNDS, async () => {
    const sentenceMs = await oneSentenceMs(service.url)
    const started = performance.now()
    const timedOut = await postTts(service.url, { text: long, voice: VOICE })
    const elapsed = performance.now() - started
    t.equal(timedOut.status, 504)
    answered.push(elapsed)
    shares.push(elapsed / (sentences * sentenceMs))
    const afterMs = await oneSentenceMs(service.url)
    return afterMs / await oneSentenceMs(service.url)
  })
  figures(t, `answered after (timeout ${timeoutMs} ms)`, answered, 'ms')
  figures(t, `answered / ${sentences} sentences' time`, shares, '%')
  figures(t, 'next sentence / the same sentence after it', leftovers)
  t.ok(median(answered) >= timeoutMs * 0.98, 'not answered before the time was up')
  t.ok(median(shares) < 0.5, 'answered when the time was up, not when the work would have ended')
  t.ok(median(leftovers) < 3, 'no leftover work ahead of the next request')
})

t.test('a client that disconnects: its sentences do not delay the next request', async t => {
  const service = await startTestService({ TTS_WORKERS_PER_VOICE: '1', TTS_DEFAULT_VOICE: VOICE }, ['en_US-probe-medium', VOICE])
  t.teardown(() => service.stop())
  const ratios = await repeat(ROUNDS, async () => {
    const controller = new AbortController()
    // One worker: the first request's six sentences run while the second's wait behind them.
    const first = postTts(service.url, { text: 'One. Two. Three. Four. Five. Six.', voice: VOICE })
    const leaving = request(service.url + '/tts', {
      method: 'POST',
      body: JSON.stringify({ text: 'Seven. Eight. Nine. Ten. Eleven. Twelve.', voice: VOICE }),
      headers: { 'Content-Type': 'application/json' },
      signal: controller.signal
    })
    await until('both requests to be admitted', async () => await pending(service.url) === 2)
    controller.abort()
    await leaving.catch(() => {})
    t.equal((await first).status, 200)
    const nextMs = await oneSentenceMs(service.url)
    return nextMs / await oneSentenceMs(service.url)
  })
  figures(t, 'next sentence / the same sentence after it', ratios)
  t.ok(median(ratios) < 3, 'the abandoned six sentences did not run ahead of the next request')
})

/** Milliseconds from sending `message` on a fresh stream-input socket to its first audio. */
async function firstAudioMs (url: string, message: Record<string, unknown>): Promise<number> {
  const ws = new WebSocket(`${url.replace('http://', 'ws://')}/v1/text-to-speech/en_US-probe-medium/stream-input?output_format=pcm_24000`)
  await once(ws, 'open')
  ws.send(JSON.stringify({ text: ' ' }))
  const audio = new Promise<number>(resolve => ws.on('message', data => {
    if (typeof JSON.parse(String(data)).audio === 'string') resolve(performance.now())
  }))
  const sent = performance.now()
  ws.send(JSON.stringify(message))
  const arrived = await audio
  ws.close()
  await once(ws, 'close')
  return arrived - sent
}

t.test('TTS_WS_TEXT_WAIT_MS: text without a sentence end is cut when the wait is up, not before, not much after', async t => {
  // What is cut, and that it is spoken without more text: test/websocket/stream-input.test.ts.
  const waitMs = 1000
  const service = await startTestService({ TTS_WS_TEXT_WAIT_MS: String(waitMs) }, ['en_US-probe-medium'])
  t.teardown(() => service.stop())
  // The voice's load is not part of either figure.
  await firstAudioMs(service.url, { text: 'warm up', flush: true })
  const flushed: number[] = []
  const waited: number[] = []
  const beyond = await repeat(ROUNDS, async () => {
    flushed.push(await firstAudioMs(service.url, { text: 'no sentence end here', flush: true }))
    waited.push(await firstAudioMs(service.url, { text: 'no sentence end here' }))
    return (waited.at(-1) ?? 0) - (flushed.at(-1) ?? 0)
  })
  figures(t, 'first audio, flushed', flushed, 'ms')
  figures(t, `first audio, cut by the wait (${waitMs} ms)`, waited, 'ms')
  figures(t, 'cut by the wait less flushed, the same round', beyond, 'ms')
  t.ok(median(waited) >= waitMs * 0.98, 'not cut before the wait was up')
  t.ok(median(beyond) <= waitMs * 1.1, 'cut once it was: the wait, then the same work as a flush')
})

t.test('a streamed answer: the header long before the first sentence, the first sentence well before the end', async t => {
  // The order (header before any sentence ran, each sentence before the next
  // ran) is test/http/streaming.test.ts's; here, how the times compare.
  const service = await startTestService({ TTS_DEFAULT_VOICE: VOICE, TTS_WORKERS_PER_VOICE: '2' }, ['en_US-probe-medium', VOICE])
  t.teardown(() => service.stop())
  const header: number[] = []
  const first: number[] = []
  await repeat(ROUNDS, async () => {
    const arrivals: number[] = []
    const started = performance.now()
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest(service.url + '/tts', { method: 'POST', headers: { 'Content-Type': 'application/json' } }, res => {
        res.on('data', () => arrivals.push(performance.now() - started))
        res.on('end', resolve)
        res.on('error', reject)
      })
      req.on('error', reject)
      req.end(JSON.stringify({ text: 'One. Two. Three. Four. Five. Six.', stream: true }))
    })
    const total = arrivals.at(-1) ?? 0
    header.push(arrivals[0] / arrivals[1])
    first.push(arrivals[1] / total)
    return 0
  })
  figures(t, 'header / first sentence\'s arrival', header, '%')
  figures(t, 'first sentence / the whole answer\'s time', first, '%')
  t.ok(median(header) < 0.5, 'the header long before the first sentence')
  t.ok(median(first) < 0.6, 'the first sentence well before the end (six sentences, two workers)')
})
