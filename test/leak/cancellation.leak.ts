// How soon an abort stops the work: each duration is a ratio to a full run
// measured just before it in the same process, repeated, and judged on the
// median (a loaded machine slows both sides of each ratio). What an abort
// yields is in test/engine/cancellation.test.ts.

import t from 'tap'
import { PiperVoice, resolveSynthesisConfig } from '../../src/engine/index.js'
import { SynthesisCancelledError } from '../../src/engine/errors.js'
import { testModel } from '../helpers/voices.js'
import { figures, median, repeat, ROUNDS } from './figures.js'

const slow = await PiperVoice.load(await testModel('en_US-probeslow-medium'))
t.teardown(() => slow.close())
const settings = resolveSynthesisConfig({}, slow.config)
const [phonemes] = slow.phonemize('Hello.')
const { ids } = slow.phonemeIds(phonemes)

/** Milliseconds until `work` settles, and what it settled with. */
async function timed (work: () => Promise<unknown>): Promise<[number, unknown]> {
  const start = performance.now()
  let outcome: unknown
  try {
    outcome = await work()
  } catch (error) {
    outcome = error
  }
  return [performance.now() - start, outcome]
}

t.test('an abort a quarter into a run stops the ONNX Runtime run itself', async t => {
  const fulls: number[] = []
  const shares = await repeat(ROUNDS, async () => {
    const [full] = await timed(async () => await slow.infer(ids, settings))
    fulls.push(full)
    const controller = new AbortController()
    setTimeout(() => controller.abort(), full / 4)
    const [elapsed, error] = await timed(async () => await slow.infer(ids, settings, controller.signal))
    t.type(error, SynthesisCancelledError)
    return elapsed / full
  })
  figures(t, 'full run', fulls, 'ms')
  figures(t, 'cancelled run / full run', shares, '%')
  t.ok(median(shares) < 0.6, `cancelled at ${(median(shares) * 100).toFixed(0)} % of a full run (median of ${ROUNDS}), the abort came at 25 %`)
})

t.test('an already-aborted signal is refused at once', async t => {
  const shares = await repeat(ROUNDS, async () => {
    const [full] = await timed(async () => await slow.infer(ids, settings))
    const [elapsed, error] = await timed(async () => await slow.infer(ids, settings, AbortSignal.abort()))
    t.type(error, SynthesisCancelledError)
    return elapsed / full
  })
  figures(t, 'refusal / full run', shares, '%')
  t.ok(median(shares) < 0.1, `refused in ${(median(shares) * 100).toFixed(1)} % of a run's time (median of ${ROUNDS})`)
})

t.test('a multi-sentence synthesis stops within the sentence the abort came in', async t => {
  const shares = await repeat(ROUNDS, async () => {
    const [sentence] = await timed(async () => await slow.synthesize('One.', settings))
    const controller = new AbortController()
    setTimeout(() => controller.abort(), sentence / 4)
    const [elapsed, error] = await timed(async () => await slow.synthesize('One. Two. Three. Four. Five.', settings, controller.signal))
    t.type(error, SynthesisCancelledError)
    return elapsed / sentence
  })
  figures(t, 'stopped after (one sentence\'s time = 1)', shares)
  t.ok(median(shares) < 2.5, `stopped after ${median(shares).toFixed(2)} sentences' time of five (median of ${ROUNDS})`)
})
