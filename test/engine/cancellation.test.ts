import t from 'tap'
import { PiperVoice, resolveSynthesisConfig } from '../../src/engine/index.js'
import { SynthesisCancelledError } from '../../src/errors.js'
import { testModel } from '../helpers/voices.js'

const slow = await PiperVoice.load(await testModel('en_US-probeslow-medium'))
t.teardown(() => slow.close())
const settings = resolveSynthesisConfig({}, slow.config)
const [phonemes] = slow.phonemize('Hello.')
const { ids } = slow.phonemeIds(phonemes)

async function timed<T> (work: Promise<T>): Promise<[number, T | unknown]> {
  const start = performance.now()
  let outcome: T | unknown
  try {
    outcome = await work
  } catch (error) {
    outcome = error
  }
  return [performance.now() - start, outcome]
}

t.test('an abort stops the ONNX Runtime run itself and the voice stays usable', async t => {
  const [full] = await timed(slow.infer(ids, settings))
  t.ok(full > 200, `an uncancelled run is slow enough to catch (${full.toFixed(0)} ms)`)

  const controller = new AbortController()
  const start = performance.now()
  setTimeout(() => controller.abort(), 50)
  const [, error] = await timed(slow.infer(ids, settings, controller.signal))
  const elapsed = performance.now() - start
  t.type(error, SynthesisCancelledError)
  t.match(error, { code: 'ERR_CANCELLED' })
  t.ok(elapsed < full * 0.6, `cancelled mid-run after ${elapsed.toFixed(0)} ms (a full run takes ${full.toFixed(0)} ms)`)

  const after = await slow.infer(ids, settings)
  t.equal(after.length, ids.length + 5, 'the next request on the same voice succeeds')
})

t.test('an already-aborted signal never starts a run', async t => {
  const [elapsed, error] = await timed(slow.infer(ids, settings, AbortSignal.abort()))
  t.type(error, SynthesisCancelledError)
  t.ok(elapsed < 50)
})

t.test('a multi-sentence synthesis stops between sentences too', async t => {
  const controller = new AbortController()
  setTimeout(() => controller.abort(), 50)
  const [elapsed, error] = await timed(slow.synthesize('One. Two. Three. Four. Five.', settings, controller.signal))
  t.type(error, SynthesisCancelledError)
  t.ok(elapsed < 1000, `stopped after ${elapsed.toFixed(0)} ms, not after five sentences`)
})
