// releaseFreedMemory gives ONNX Runtime's arena back: a long text grows the
// process-wide arena by its activations, and the release returns most of it
// to the operating system (RSS read from /proc, Linux).

import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { PiperVoice, resolveSynthesisConfig } from '../../src/engine/index.js'
import { releaseFreedMemory } from '../../src/engine/runtime.js'
import { BENCH_VOICES } from '../helpers/voices.js'
import { SANITIZED } from '../helpers/sanitizer.js'

const MODEL = join(BENCH_VOICES, 'en_US-bench-x_low.onnx')
const MB = 1024 * 1024

function residentBytes (): number {
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))
  if (match === null) throw new Error('no VmRSS in /proc/self/status')
  return Number(match[1]) * 1024
}

// AddressSanitizer's allocator (npm run test:asan) quarantines freed blocks
// and ignores malloc_trim: RSS says nothing there.

function skipReason (): string | false {
  if (!existsSync(MODEL)) return `no bench voice at ${MODEL}`
  if (SANITIZED) return 'RSS is not meaningful under AddressSanitizer'
  return false
}

t.test('the arena grown by a long text goes back to the system', { skip: skipReason() }, async t => {
  const voice = await PiperVoice.load(MODEL)
  t.teardown(() => voice.close())
  const settings = resolveSynthesisConfig({}, voice.config)
  await releaseFreedMemory()
  const before = residentBytes()
  // Unpunctuated: one sentence, decoded in chunks of the largest size.
  await voice.synthesize('hello '.repeat(200), settings)
  const grown = residentBytes()
  t.ok(grown - before > 50 * MB, `the run grew RSS by ${((grown - before) / MB).toFixed(0)} MB (the arena keeps its blocks)`)
  await new Promise(resolve => setTimeout(resolve, 50))
  const kept = residentBytes()
  await releaseFreedMemory()
  const released = residentBytes()
  t.ok(kept - released > (grown - before) / 2, `the release returned ${((kept - released) / MB).toFixed(0)} MB of the ${((grown - before) / MB).toFixed(0)} MB`)
  // The voice still works after its memory went back.
  const again = await voice.synthesize('Still here.', settings)
  t.ok(again.pcm.length > 0)
})
