// Runs in a worker thread for error-registry.unit.ts: throws the error the
// test asks for and posts it in the registry's form, or lets it escape
// uncaught, as a worker whose voice failed to load does.

import { parentPort, workerData } from 'node:worker_threads'
import { ChorusError } from '../../src/errors.js'
import { serializeError } from '../../src/error-registry.js'
import { InferenceError, VoiceConfigError } from '../../src/engine/errors.js'

const { kind } = workerData as { kind: string }

function nativeFailure (): Error {
  return Object.assign(new Error('ORT said no'), { code: 'ERR_ORT' })
}

function throwIn (kind: string): never {
  switch (kind) {
    case 'typed':
      throw new InferenceError('The model failed', { details: { voice: 'en_US-probe-medium', sentence: 2 }, cause: nativeFailure() })
    case 'bug': {
      const missing = undefined as unknown as { length: number }
      // A real TypeError: reading a property of undefined.
      return missing.length as never
    }
    case 'foreign-code':
      throw new ChorusError('ERR_SOMETHING_ELSE', 'Not in the table', { status: 429, details: { limit: 3 }, headers: { 'Retry-After': '2' } })
    case 'odd-cause':
      throw new InferenceError('With a strange cause', { cause: { reason: 'not an Error', n: 1 } })
    case 'cause-loop': {
      const a = new Error('a')
      const b = new Error('b', { cause: a })
      a.cause = b
      throw new InferenceError('Looping causes', { cause: a })
    }
    default: throw new Error(`unknown kind ${kind}`)
  }
}

if (kind === 'uncaught') throw new VoiceConfigError('Voice config x.onnx.json: bad', { details: { field: 'num_symbols' } })
try {
  throwIn(kind)
} catch (error) {
  parentPort?.postMessage(serializeError(error))
}
