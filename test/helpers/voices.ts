// Test voices: generated once per test process by the project's own script.

import { join } from 'node:path'
import { DEFAULT_OUT_DIR, makeTestVoices } from '../../scripts/make-test-voices.js'

export const VOICE_DIR = DEFAULT_OUT_DIR
export const FIXTURES = join(import.meta.dirname, '..', 'fixtures')
/** The bench stand-ins (real voices' architecture and size, random
 * weights), in the shared folder beside the clone. */
export const BENCH_VOICES = join(import.meta.dirname, '../../../shared/voices/bench')

let ready: Promise<string> | undefined

/** Generates the voices once per test process (cheap, and never stale;
 * writes are atomic, so test files running in parallel do not collide). */
export async function testVoiceDir (): Promise<string> {
  ready ??= makeTestVoices(VOICE_DIR)
  return await ready
}

export async function testModel (name: string): Promise<string> {
  return join(await testVoiceDir(), `${name}.onnx`)
}
