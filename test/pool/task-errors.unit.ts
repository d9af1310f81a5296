// The real voice worker's failures, through a real VoicePool: an error of
// ours thrown in the worker (the addon refusing a task) arrives as the
// same class with its cause and the worker's stack; a bug in the worker (a
// TypeError) arrives as that TypeError, not as ERR_INFERENCE.

import { join } from 'node:path'
import { pino } from 'pino'
import t from 'tap'
import type { Ticket } from '../../src/pool/schedule.js'
import { COMMON_SHARE as ANONYMOUS } from '../../src/pool/share.js'
import { DEFAULT_CHUNKING, loadVoiceConfig, resolveSynthesisConfig, type SynthesisConfig } from '../../src/engine/index.js'
import { InferenceError } from '../../src/engine/errors.js'
import { ChorusError, InvalidArgumentError } from '../../src/errors.js'
import { InferenceGate } from '../../src/pool/inference-gate.js'
import { VoicePool } from '../../src/pool/voice-pool.js'
import { testVoiceDir } from '../helpers/voices.js'

const dir = await testVoiceDir()
const modelPath = join(dir, 'en_GB-probemulti-medium.onnx')
const config = await loadVoiceConfig(`${modelPath}.json`)
const pool = new VoicePool('en_GB-probemulti-medium', modelPath, config, {
  workers: 1, onnxThreads: 1, onnxEncoderThreads: 1, chunking: DEFAULT_CHUNKING, gate: new InferenceGate(1), workerIdleMs: 0
}, pino({ level: 'silent' }))
t.teardown(async () => await pool.close())
await pool.start()

const settings = resolveSynthesisConfig({}, config)
const phonemes = (): Uint32Array => Uint32Array.from('həlˈoʊ.', c => c.codePointAt(0) as number)
let order = 0
/** A whole answer's ticket: these keep task order among themselves. */
const ticket = (): Ticket => ({ order: [order++, 0, 0], tenant: ANONYMOUS, due: { streamed: false, deadline: () => 0 } })
const sentence = async (with_: SynthesisConfig) => await pool.sentence(phonemes(), with_, false, ticket(), new AbortController().signal)

t.test('a task the addon refuses: the same class, its native cause, the worker\'s stack', async t => {
  t.equal(pool.mode, 'whole', 'the probe voice runs whole')
  // A decoder chunk for a voice that has no separate decoder: the addon says so.
  const latent = new Float32Array(4)
  const chunk = { latent, channels: 1, frames: 4, framed: [], side: [], range: { start: 0, end: 4 } }
  const error = await pool.decode(chunk, ticket(), new AbortController().signal).then(() => undefined, (e: unknown) => e)
  t.type(error, InvalidArgumentError)
  const typed = error as InvalidArgumentError
  t.match(typed, { code: 'ERR_INVALID_ARGUMENT', message: /runs whole/ })
  t.match(typed.cause, { code: 'ERR_INVALID_ARGUMENT' }, 'the addon\'s own error is its cause')
  t.match(typed.stack, /--- thrown in another thread ---\n(.|\n)*worker\.ts/, 'the worker\'s frames follow')
})

t.test('a bug in the worker arrives as the bug, with the worker\'s stack', async t => {
  const error = await sentence(undefined as unknown as SynthesisConfig).then(() => undefined, (e: unknown) => e)
  t.type(error, TypeError)
  t.notOk(error instanceof ChorusError, 'not an operational error')
  t.notOk(error instanceof InferenceError, 'not ERR_INFERENCE')
  t.match((error as Error).stack, /--- thrown in another thread ---\n(.|\n)*(voice|worker)\.ts/)
})

t.test('the worker and its voice survive both', async t => {
  const result = await sentence(settings)
  t.ok((result.samples?.length ?? 0) > 0 || result.chunks.length > 0)
})
