// Cancellation as behaviour: what an abort yields, what runs after it, and
// that the voice stays usable. How soon a run stops is measured, against a
// full run of the same machine, in test/leak/cancellation.leak.ts.

import t from 'tap'
import { PiperVoice, resolveSynthesisConfig } from '../../src/engine/index.js'
import { SynthesisCancelledError } from '../../src/engine/errors.js'
import { testModel } from '../helpers/voices.js'

const slow = await PiperVoice.load(await testModel('en_US-probeslow-medium'))
t.teardown(() => slow.close())
const settings = resolveSynthesisConfig({}, slow.config)
const [phonemes] = slow.phonemize('Hello.')
const { ids } = slow.phonemeIds(phonemes)

t.test('an abort after the run was handed to ONNX Runtime cancels it and the voice stays usable', async t => {
  const controller = new AbortController()
  const events: string[] = []
  // infer() hands the run to the thread pool before it returns its promise.
  const running = slow.infer(ids, settings, controller.signal).then(
    () => { events.push('settled'); return undefined },
    (error: unknown) => { events.push('settled'); return error })
  events.push('aborted')
  controller.abort()
  const error = await running
  t.type(error, SynthesisCancelledError)
  t.match(error, { code: 'ERR_CANCELLED' })
  t.same(events, ['aborted', 'settled'], 'the run was still going when the abort came')

  const after = await slow.infer(ids, settings)
  t.equal(after.length, ids.length + 5, 'the next request on the same voice succeeds')
})

t.test('an already-aborted signal never starts a run', async t => {
  const before = slow.sentenceSamples
  let runs = 0
  slow.sentenceSamples = async (...args) => { runs++; return await before.apply(slow, args) }
  t.teardown(() => { slow.sentenceSamples = before })
  await t.rejects(slow.synthesize('One. Two.', settings, AbortSignal.abort()), SynthesisCancelledError)
  await t.rejects(slow.infer(ids, settings, AbortSignal.abort()), SynthesisCancelledError)
  t.equal(runs, 0, 'no sentence was run')
})

t.test('a multi-sentence synthesis stops between sentences too', async t => {
  const controller = new AbortController()
  const before = slow.sentenceSamples
  let runs = 0
  // The abort comes as the first sentence's samples arrive: the other four never run.
  slow.sentenceSamples = async (...args) => {
    runs++
    const samples = await before.apply(slow, args)
    controller.abort()
    return samples
  }
  t.teardown(() => { slow.sentenceSamples = before })
  await t.rejects(slow.synthesize('One. Two. Three. Four. Five.', settings, controller.signal), SynthesisCancelledError)
  t.equal(runs, 1, 'one sentence of five ran')
})
