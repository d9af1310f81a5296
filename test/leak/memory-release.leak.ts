// releaseFreedMemory gives ONNX Runtime's arena back: a long text grows the
// process-wide arena by its activations, and the release returns most of it
// to the operating system (RSS read from /proc, Linux). Each round is judged
// against its own growth: the arena keeps most of what the run grew it by
// until the release, and the release returns more than half of it.

import { join } from 'node:path'
import t from 'tap'
import { PiperVoice, resolveSynthesisConfig } from '../../src/engine/index.js'
import { releaseFreedMemory } from '../../src/engine/runtime.js'
import { unless } from '../helpers/test-tools.js'
import { BENCH_VOICES, NO_BENCH_VOICES } from '../helpers/voices.js'
import { SANITIZED } from '../helpers/sanitizer.js'
import { figures, median, repeat, residentBytes, ROUNDS } from './figures.js'

const MODEL = join(BENCH_VOICES, 'en_US-bench-x_low.onnx')

// AddressSanitizer's allocator (npm run test:asan) quarantines freed blocks
// and ignores malloc_trim: RSS says nothing there.
function skipReason (): string | false {
  if (SANITIZED) return 'RSS is not meaningful under AddressSanitizer'
  return unless(NO_BENCH_VOICES).skip
}

t.test('the arena grown by a long text goes back to the system', { skip: skipReason() }, async t => {
  const voice = await PiperVoice.load(MODEL)
  t.teardown(() => voice.close())
  const settings = resolveSynthesisConfig({}, voice.config)
  const grown: number[] = []
  const returned = await repeat(ROUNDS, async () => {
    await releaseFreedMemory()
    const before = residentBytes()
    // Unpunctuated: one sentence, decoded in chunks of the largest size.
    await voice.synthesize('hello '.repeat(200), settings)
    const after = residentBytes()
    await releaseFreedMemory()
    const released = residentBytes()
    grown.push(after - before)
    return after - released
  })
  figures(t, 'RSS growth of the run', grown, 'MB')
  figures(t, 'returned by the release', returned, 'MB')
  const shares = returned.map((r, i) => r / grown[i])
  figures(t, 'returned / growth', shares, '%')
  figures(t, 'the voice\'s own sessions', [voice.memoryBytes], 'MB')
  t.ok(median(grown) > voice.memoryBytes, 'the run grew the arena by more than the voice itself holds, and it kept its blocks until the release')
  t.ok(median(shares) > 0.5, `the release returned ${(median(shares) * 100).toFixed(0)} % of what the run grew (median of ${ROUNDS})`)
  // The voice still works after its memory went back.
  const again = await voice.synthesize('Still here.', settings)
  t.ok(again.pcm.length > 0)
})
