// One request's memory is bounded by the settings, not by its text: on a
// real-sized voice (the bench stand-in), an unpunctuated text three times as
// long as one encoder run (TTS_MAX_PHONEMES_PER_RUN) raises the process's
// peak no more than a text of one run does, where a whole-graph run grows
// with the text (several GB at 5,000 characters). The peak is the kernel's
// high-water mark (VmHWM, reset before each request), not a sample, and each
// request starts from a released arena.

import { copyFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { releaseFreedMemory } from '../../src/engine/runtime.js'
import { postTts, startTestService } from '../helpers/service.js'
import { unless } from '../helpers/test-tools.js'
import { BENCH_VOICES, NO_BENCH_VOICES } from '../helpers/voices.js'
import { SANITIZED } from '../helpers/sanitizer.js'
import { figures, median, peakResidentBytes, resetPeakResident, residentBytes, ROUNDS } from './figures.js'

const VOICE = 'en_US-bench-x_low'
/** About 700 phonemes: one encoder run at the default cap of 800. */
const ONE_RUN = 'hello '.repeat(100).trim()
/** Three times as long: three runs, and three times the audio. */
const THREE_RUNS = 'hello '.repeat(300).trim()

function skipReason (): string | false {
  if (SANITIZED) return 'RSS is not meaningful under AddressSanitizer'
  return unless(NO_BENCH_VOICES).skip
}

t.test('three runs\' worth of unpunctuated text: answered, peak no higher than one run\'s', { skip: skipReason() }, async t => {
  const service = await startTestService({ TTS_DEFAULT_VOICE: VOICE }, [])
  t.teardown(() => service.stop())
  for (const file of [`${VOICE}.onnx`, `${VOICE}.onnx.json`]) await copyFile(join(BENCH_VOICES, file), join(service.voiceDir, file))
  for (let i = 0; i < 100; i++) {
    if ((await postTts(service.url, { text: 'Warm up.', voice: VOICE })).status === 200) break
    await new Promise(resolve => setTimeout(resolve, 100))
  }
  /** How far one request raised the process's peak over where it started, and its audio bytes. */
  const peakGrowth = async (text: string): Promise<[number, number]> => {
    await releaseFreedMemory()
    const before = residentBytes()
    resetPeakResident()
    const reply = await postTts(service.url, { text, voice: VOICE })
    t.equal(reply.status, 200)
    return [peakResidentBytes() - before, reply.body.length]
  }
  const short: number[] = []
  const long: number[] = []
  const audio: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const [shortGrowth, shortBytes] = await peakGrowth(ONE_RUN)
    const [longGrowth, longBytes] = await peakGrowth(THREE_RUNS)
    short.push(shortGrowth)
    long.push(longGrowth)
    audio.push(longBytes / shortBytes)
  }
  figures(t, 'peak growth, one run\'s text', short, 'MB')
  figures(t, 'peak growth, three runs\' text', long, 'MB')
  figures(t, 'audio, long / short', audio)
  t.ok(median(audio) > 2.5, 'the long text was answered whole: about three times the audio')
  t.ok(median(long) < median(short) * 1.5, `three times the text raised the peak ${(median(long) / median(short)).toFixed(2)}× as far as one run's (median of ${ROUNDS})`)
})
