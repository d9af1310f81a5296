// The built-in voice (espeak-ng) speaking a long text never holds up the
// event loop: /health and short Piper requests are answered while it
// speaks. Judged against the same run: the slowest /health against the
// whole speech's time, repeated, on the median.

import t from 'tap'
import { postTts, request, startTestService } from '../helpers/service.js'
import { figures, median, repeat, ROUNDS } from './figures.js'

const VOICE = 'en_US-vits-medium'

t.test('the built-in voice speaking a long text does not hold up the event loop', async t => {
  const service = await startTestService({ TTS_DEFAULT_VOICE: VOICE }, [VOICE])
  t.teardown(() => service.stop())
  // The default text limit, in one unpunctuated run.
  const text = 'hello there '.repeat(417).slice(0, 5000)
  const totals: number[] = []
  const worsts: number[] = []
  const during = await repeat(ROUNDS, async () => {
    const started = performance.now()
    let finished = 0
    const speech = postTts(service.url, { text, voice: 'en_US-espeak-low' }).then(reply => {
      finished = performance.now()
      return reply
    })
    const healthMs: number[] = []
    let answeredDuring = 0
    while (finished === 0 && healthMs.length < 200) {
      const before = performance.now()
      t.equal((await request(`${service.url}/health`)).status, 200)
      healthMs.push(performance.now() - before)
      // A Piper voice's request phonemizes while espeak speaks: it waits off the event loop.
      t.equal((await postTts(service.url, { text: 'Short.', voice: VOICE })).status, 200)
      if (finished === 0) answeredDuring++
    }
    t.equal((await speech).status, 200)
    totals.push(finished - started)
    worsts.push(Math.max(...healthMs))
    return answeredDuring
  })
  figures(t, 'the long speech', totals, 'ms')
  figures(t, 'slowest /health meanwhile', worsts, 'ms')
  figures(t, 'requests answered meanwhile', during)
  t.ok(median(during) >= 3, 'requests were answered while the speech went on')
  t.ok(median(worsts.map((w, i) => w / totals[i])) < 0.25, '/health never waited a quarter of the speech')
})
