// How soon the service stops work it will not deliver: a request past
// TTS_TIMEOUT_SECONDS, and one whose client left. Every duration is a ratio
// to one sentence measured in the same run on the same voice, repeated and
// judged on the median. What is answered, and what never runs, is asserted
// in test/service/load.test.ts.

import t from 'tap'
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
