// npm run bench:timing [-- --voice PATH --runs N]
// What timing costs: the same reply synthesised with "timestamps" on and
// off, alternately (so a busier or quieter moment of the machine falls on
// both), measuring the process's CPU time (every thread: the voice's
// workers included) per second of audio. Prints each pair and the median
// ratio on/off; the bound is 1.03. The durations are an output of
// the encoder either way (docs/timing.md): what on adds is the events, their
// queueing and the per-piece arithmetic.

import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { parseArgs } from 'node:util'
import { ensureBenchVoices } from './make-bench-voices.js'
import { loadServiceConfig } from '../src/service/config.js'
import { openLocalSpeech } from '../src/service/server.js'
import { createLogger } from '../src/shared/logger.js'
import { TIMING_KINDS } from '../src/synthesis/timing.js'
import { median } from '../bench/stats.js'
import { localAdmission } from '../src/synthesis/speech-admission.js'

const { values: flags } = parseArgs({ options: { voice: { type: 'string' }, runs: { type: 'string', default: '10' } } })
const voicePath = flags.voice ?? join(await ensureBenchVoices(), 'en_US-bench-medium.onnx')
const runs = Number(flags.runs)
if (!Number.isInteger(runs) || runs < 1) throw new Error(`Expected a positive integer for --runs but received ${flags.runs}`)
const REPLY = 'Sure, I can help with that. The workshop is on the second floor. Take the stairs by the fountain. ' +
  'If you get lost, ask anyone in a blue shirt, and they will point you the right way.'

const dir = await mkdtemp(join(tmpdir(), 'chorus-bench-timing-'))
const name = basename(voicePath).replace(/\.onnx$/, '')
await copyFile(voicePath, join(dir, `${name}.onnx`))
await copyFile(`${voicePath}.json`, join(dir, `${name}.onnx.json`))
const sampleRate: number = JSON.parse(await readFile(`${voicePath}.json`, 'utf8')).audio.sample_rate
const log = createLogger('bench-timing', 'warn')
const local = await openLocalSpeech(loadServiceConfig({ TTS_VOICE_DIR: dir, TTS_CACHE_BYTES: '0', TTS_WORKERS_PER_VOICE: '1', TTS_TIMEOUT_SECONDS: '3600' }), log)

/** CPU seconds per audio second of one whole WAV answer. */
async function once (timing: boolean): Promise<number> {
  const before = process.cpuUsage()
  const speech = await local.speech.open({ request: { text: REPLY, voice: name, stream: false }, format: 'wav', stream: false, log, admission: localAdmission(), ...(timing ? { timestamps: TIMING_KINDS } : {}) })
  let bytes = 0
  for await (const chunk of speech.chunks) if (chunk.kind === 'audio') bytes += chunk.bytes.length
  const used = process.cpuUsage(before)
  return (used.user + used.system) / 1e6 / ((bytes - 44) / 2 / sampleRate)
}

try {
  await once(false) // loads the voice and warms it up
  const ratios: number[] = []
  for (let i = 0; i < runs; i++) {
    // Alternate which goes first, so neither always follows the other.
    const [on, off] = i % 2 === 0 ? [await once(true), await once(false)] : (([b, a]) => [a, b])([await once(false), await once(true)])
    ratios.push(on / off)
    console.log(`run ${i + 1}: on ${on.toFixed(4)} s CPU per audio s, off ${off.toFixed(4)}, ratio ${(on / off).toFixed(4)}`)
  }
  const ratio = median(ratios)
  console.log(`median ratio on/off over ${runs} pairs: ${ratio.toFixed(4)} (bound 1.03: ${ratio <= 1.03 ? 'met' : 'missed'})`)
} finally {
  await local.close()
  await rm(dir, { recursive: true, force: true })
}
