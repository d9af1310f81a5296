// One request's memory is bounded by the settings, not by its text: a long
// unpunctuated text on a real-sized voice (the bench stand-in) is answered
// while the process grows by far less than one whole-graph run of it would
// take (several GB at 5,000 characters). The full figure is in the benchmark.

import { existsSync } from 'node:fs'
import { copyFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { postTts, request, startTestService } from '../helpers/service.js'
import { BENCH_VOICES } from '../helpers/voices.js'

const VOICE = 'en_US-bench-x_low'
/** What this text may add to the process: a few decoder chunks and encoder runs. */
const LIMIT_BYTES = 800e6

t.test('1,200 unpunctuated characters: answered, memory bounded', { skip: existsSync(join(BENCH_VOICES, `${VOICE}.onnx`)) ? false : `no bench voices at ${BENCH_VOICES}` }, async t => {
  const service = await startTestService({ TTS_DEFAULT_VOICE: VOICE, TTS_TIMEOUT_SECONDS: '600' }, [])
  t.teardown(() => service.stop())
  for (const file of [`${VOICE}.onnx`, `${VOICE}.onnx.json`]) await copyFile(join(BENCH_VOICES, file), join(service.voiceDir, file))
  for (let i = 0; i < 100; i++) {
    if ((await postTts(service.url, { text: 'Warm up.', voice: VOICE })).status === 200) break
    await new Promise(resolve => setTimeout(resolve, 100))
  }
  const before = process.memoryUsage.rss()
  let peak = before
  const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()) }, 20)
  const text = 'hello '.repeat(200).trim()
  const reply = await request(`${service.url}/tts`, { method: 'POST', body: JSON.stringify({ text, voice: VOICE }), headers: { 'Content-Type': 'application/json' }, signal: AbortSignal.timeout(300_000) })
  clearInterval(timer)
  t.equal(reply.status, 200)
  t.ok(reply.body.length > 44 + 16000 * 2 * 30, 'more than half a minute of audio')
  const grew = peak - before
  t.ok(grew < LIMIT_BYTES, `the process grew by ${(grew / 1e6).toFixed(0)} MB at most (bound ${(LIMIT_BYTES / 1e6).toFixed(0)} MB)`)
})
