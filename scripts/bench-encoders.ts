// npm run bench:encoders [-- --seconds 60]
// Cost of each response format's encoder on one thread, as the service runs
// it: real speech (espeak-ng's built-in voice, 22.05 kHz mono) pushed one
// sentence at a time, then finished. Prints × real time (audio seconds
// encoded per second of this process's CPU time, so that other work on a
// shared machine does not count) and the output's bit rate.

import { parseArgs } from 'node:util'
import type { EncoderFactory } from '../src/audio/encoder.js'
import { AUDIO_FORMATS, FORMAT_INFO } from '../src/audio/formats.js'
import { createResampler, LibsamplerateResampler, type Resampler } from '../src/audio/resampler.js'
import { initRuntime } from '../src/engine/index.js'
import { median } from '../src/bench/stats.js'

const { values: flags } = parseArgs({ options: { seconds: { type: 'string', default: '60' }, repeats: { type: 'string', default: '3' } } })
const seconds = Number(flags.seconds)
const repeats = Number(flags.repeats)
if (!(seconds > 0) || !Number.isInteger(repeats) || repeats < 1) {
  console.error(`Expected a positive number for --seconds and a positive integer for --repeats but received ${flags.seconds}, ${flags.repeats}`)
  process.exit(2)
}

const SENTENCES = [
  'Hello, how can I help you today?',
  'The quick brown fox jumps over the lazy dog while the band plays on.',
  'Please hold on for a moment; I am looking that up for you.',
  'Your order number is four, eight, one, five, and it ships tomorrow morning.'
]

const runtime = initRuntime()
const rate = runtime.espeakSampleRate
const sentences: Int16Array[] = []
let total = 0
for (let i = 0; total < seconds * rate; i++) {
  const pcm = await runtime.binding.espeakSynthesize(SENTENCES[i % SENTENCES.length], 'en-us', 175)
  sentences.push(pcm)
  total += pcm.length
}
const audioSeconds = total / rate
console.log(`${audioSeconds.toFixed(1)} s of speech at ${rate} Hz in ${sentences.length} sentences; median of ${repeats} runs\n`)

async function measure (create: EncoderFactory): Promise<{ speed: number, bytes: number }> {
  const speeds: number[] = []
  let bytes = 0
  for (let r = 0; r < repeats; r++) {
    const started = process.cpuUsage()
    const encoder = await create(rate)
    bytes = 0
    for (const pcm of sentences) bytes += encoder.push(pcm).length
    bytes += encoder.finish().length
    const used = process.cpuUsage(started)
    speeds.push(audioSeconds / ((used.user + used.system) / 1e6))
  }
  return { speed: median(speeds), bytes }
}

console.log('format  × real time  kbit/s')
for (const format of AUDIO_FORMATS) {
  const { speed, bytes } = await measure(await FORMAT_INFO[format].encoder())
  console.log(`${format.padEnd(6)}  ${speed.toFixed(0).padStart(11)}  ${(bytes * 8 / audioSeconds / 1000).toFixed(1).padStart(6)}`)
}
const asEncoder = (resampler: Resampler) => ({ push: (pcm: Int16Array) => new Uint8Array(resampler.push(pcm).buffer), finish: () => new Uint8Array(resampler.finish().buffer), close: () => resampler.close() })
const ours = await measure(async from => asEncoder(await createResampler(from, 24_000)))
const libsamplerate = await measure(async from => asEncoder(await LibsamplerateResampler.create(from, 24_000)))
console.log(`\nresampling alone (${rate} → 24000 Hz): polyphase FIR ${ours.speed.toFixed(0)} × real time, libsamplerate SINC_FASTEST ${libsamplerate.speed.toFixed(0)} ×`)
