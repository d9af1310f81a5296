import t from 'tap'
import { PiperVoice, resolveSynthesisConfig } from '../../src/engine/index.js'
import { SynthesisCancelledError } from '../../src/engine/errors.js'
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

// Every duration is judged against a full run measured in the same test, on
// the same machine at the same moment: a loaded machine slows both sides.

t.test('an abort stops the ONNX Runtime run itself and the voice stays usable', async t => {
  const [full] = await timed(slow.infer(ids, settings))
  const controller = new AbortController()
  const events: string[] = []
  const start = performance.now()
  const running = timed(slow.infer(ids, settings, controller.signal))
  void running.then(() => events.push('settled'))
  // A quarter of the way into a run of the same length.
  setTimeout(() => {
    events.push('aborted')
    controller.abort()
  }, full / 4)
  const [, error] = await running
  const elapsed = performance.now() - start
  t.type(error, SynthesisCancelledError)
  t.match(error, { code: 'ERR_CANCELLED' })
  t.same(events, ['aborted', 'settled'], 'the run was still going when the abort came')
  t.ok(elapsed < full * 0.6, `cancelled mid-run after ${elapsed.toFixed(0)} ms (a full run takes ${full.toFixed(0)} ms)`)

  const after = await slow.infer(ids, settings)
  t.equal(after.length, ids.length + 5, 'the next request on the same voice succeeds')
})

t.test('an already-aborted signal never starts a run', async t => {
  const [full] = await timed(slow.infer(ids, settings))
  const [elapsed, error] = await timed(slow.infer(ids, settings, AbortSignal.abort()))
  t.type(error, SynthesisCancelledError)
  t.ok(elapsed < full * 0.1, `refused in ${elapsed.toFixed(1)} ms (a run takes ${full.toFixed(0)} ms)`)
})

t.test('a multi-sentence synthesis stops between sentences too', async t => {
  const text = 'One. Two. Three. Four. Five.'
  const [sentence] = await timed(slow.synthesize('One.', settings))
  const controller = new AbortController()
  setTimeout(() => controller.abort(), sentence / 4)
  const [elapsed, error] = await timed(slow.synthesize(text, settings, controller.signal))
  t.type(error, SynthesisCancelledError)
  t.ok(elapsed < sentence * 2.5, `stopped after ${elapsed.toFixed(0)} ms, not after five sentences of ${sentence.toFixed(0)} ms`)
})
