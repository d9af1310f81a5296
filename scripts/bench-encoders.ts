// npm run bench:encoders [-- --seconds 60] [--settings]
// Cost of each response format's encoder on one thread, as the service runs
// it: real speech (espeak-ng's built-in voice, 22.05 kHz mono) pushed one
// sentence at a time, then finished. Prints × real time (audio seconds
// encoded per second of this process's CPU time, so that other work on a
// shared machine does not count) and the output's bit rate.
//
// Then the same through the service's encoder pool (one worker thread, the
// messages to and from it included), several streams at once: the whole
// encoding path's CPU per audio second, worker start excluded.
//
// --settings also measures the codec settings the formats' choices rest on
// (README, Audio formats): Opus's application and complexity, LAME's
// algorithm quality and AAC's bit rate, each by CPU and by log-spectral
// distance to the input after decoding (Opus by libopus's own decoder; MP3 by
// mpg123 and AAC by faad, when installed). AAC needs FFmpeg's libavcodec59.

import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { parseArgs } from 'node:util'
import type OpusScriptType from 'opusscript'
import { pino } from 'pino'
import { concatSamples } from '../src/engine/audio.js'
import { AAC_FRAME } from '../src/audio/aac.js'
import { loadAvcodec } from '../src/audio/avcodec.js'
import { loadCodecs } from '../src/audio/native-codecs.js'
import { PRE_SKIP } from '../src/audio/opus.js'
import { decodeAac, HAVE_FAAD } from './lib/faad-decode.js'
import { bestLag, logSpectralDistance } from './lib/spectral-distance.js'
import type { EncoderFactory } from '../src/audio/encoder.js'
import { EncoderPool } from '../src/audio/encoder-pool.js'
import { AUDIO_FORMATS, FORMAT_INFO, type AudioFormat } from '../src/audio/formats.js'
import { createResampler, LibsamplerateResampler, type Resampler } from '../src/audio/resampler.js'
import { designPolyphase, PolyphaseResampler } from '../src/audio/polyphase-resampler.js'
import { initRuntime } from '../src/engine/index.js'
import { median } from '../bench/stats.js'

const { values: flags } = parseArgs({ options: { seconds: { type: 'string', default: '60' }, repeats: { type: 'string', default: '3' }, settings: { type: 'boolean', default: false } } })
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

const avcodec = loadAvcodec()
if (!avcodec.loaded) console.log(`aac left out: ${avcodec.reason}\n`)
const formats = AUDIO_FORMATS.filter(f => FORMAT_INFO[f].needsAvcodec !== true || avcodec.loaded)

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
for (const format of formats) {
  const { speed, bytes } = await measure(await FORMAT_INFO[format].encoder())
  console.log(`${format.padEnd(6)}  ${speed.toFixed(0).padStart(11)}  ${(bytes * 8 / audioSeconds / 1000).toFixed(1).padStart(6)}`)
}
const asEncoder = (resampler: Resampler) => ({ push: (pcm: Int16Array) => new Uint8Array(resampler.push(pcm).buffer), finish: () => new Uint8Array(resampler.finish().buffer), close: () => resampler.close() })
const ours = await measure(async from => asEncoder(await createResampler(from, 24_000)))
const libsamplerate = await measure(async from => asEncoder(await LibsamplerateResampler.create(from, 24_000)))
console.log(`\nresampling alone (${rate} → 24000 Hz): polyphase FIR ${ours.speed.toFixed(0)} × real time, libsamplerate SINC_FASTEST ${libsamplerate.speed.toFixed(0)} ×`)

/** CPU per audio second of `streams` streams of the speech through a pool, four at a time. */
async function throughPool (format: AudioFormat, streams: number): Promise<number> {
  const pool = new EncoderPool(1, pino({ level: 'silent' }))
  const stream = async (): Promise<void> => {
    const session = await pool.open(format, rate)
    for (const pcm of sentences) await session.push(pcm)
    await session.finish()
  }
  await stream() // starts the worker and loads the codec
  const started = process.cpuUsage()
  for (let i = 0; i < streams; i += 4) await Promise.all(Array.from({ length: Math.min(4, streams - i) }, stream))
  const used = process.cpuUsage(started)
  await pool.close()
  return (used.user + used.system) / 1000 / (streams * audioSeconds)
}

console.log('\nthrough the encoder pool (one worker thread, messages included), ms of CPU per audio second:')
for (const format of formats) console.log(`${format.padEnd(6)}  ${(await throughPool(format, 8)).toFixed(2).padStart(5)}`)

/** Median CPU milliseconds per audio second of `run` over the repeats, and its last result. */
function cpuPerSecond<T> (run: () => T, seconds: number): { ms: number, result: T } {
  const costs: number[] = []
  let result: T | undefined
  for (let r = 0; r < repeats; r++) {
    const started = process.cpuUsage()
    result = run()
    const used = process.cpuUsage(started)
    costs.push((used.user + used.system) / 1000 / seconds)
  }
  return { ms: median(costs), result: result as T }
}

function opusSettings (): void {
  const OpusScript = createRequire(import.meta.url)('opusscript') as typeof OpusScriptType
  const OPUS_SET_COMPLEXITY = 4010
  const frame = 480 // 20 ms at 24 kHz
  const speech = concatSamples(sentences, n => new Int16Array(n))
  const resampler = resamplerTo24k()
  const input = concatSamples([resampler.push(speech), resampler.finish()], n => new Int16Array(n))
  const seconds = input.length / 24_000
  console.log('\nOpus at 24 kHz, 32 kb/s, 20 ms frames: application, complexity → CPU, size, log-spectral distance to the input')
  console.log('application  complexity  ms CPU per audio s  kbit/s  LSD ≤ 8 kHz  LSD ≤ 11 kHz')
  for (const [name, application, complexities] of [['VOIP', OpusScript.Application.VOIP, [1, 3]], ['AUDIO', OpusScript.Application.AUDIO, [0, 1, 3, 5, 10]]] as const) {
    for (const complexity of complexities) {
      const { ms, result: packets } = cpuPerSecond(() => {
        const encoder = new OpusScript(24_000, 1, application)
        encoder.setBitrate(32_000)
        encoder.encoderCTL(OPUS_SET_COMPLEXITY, complexity)
        const out: Buffer[] = []
        for (let offset = 0; offset + frame <= input.length; offset += frame) out.push(Buffer.from(encoder.encode(Buffer.from(input.slice(offset, offset + frame).buffer), frame)))
        encoder.delete()
        return out
      }, seconds)
      const decoder = new OpusScript(24_000, 1)
      const decoded = concatSamples(packets.map(packet => {
        const pcm = decoder.decode(packet)
        return new Int16Array(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.byteLength))
      }), n => new Int16Array(n)).subarray(PRE_SKIP / 2)
      decoder.delete()
      const lag = bestLag(input, decoded, 240)
      const kbps = packets.reduce((n, p) => n + p.length, 0) * 8 / seconds / 1000
      console.log(`${name.padEnd(11)}  ${String(complexity).padStart(10)}  ${ms.toFixed(2).padStart(18)}  ${kbps.toFixed(1).padStart(6)}  ${logSpectralDistance(input, decoded, 24_000, 8000, lag).toFixed(2).padStart(11)}  ${logSpectralDistance(input, decoded, 24_000, 11_000, lag).toFixed(2).padStart(12)}`)
    }
  }
}

function mp3Settings (): void {
  const { Mp3Encoder } = loadCodecs()
  const speech = concatSamples(sentences, n => new Int16Array(n))
  const decodes = spawnSync('mpg123', ['--version']).status === 0
  console.log(`\nMP3 at ${rate} Hz, 64 kb/s CBR: LAME quality → CPU, log-spectral distance to the input${decodes ? '' : ' (not decoded: needs mpg123)'}`)
  console.log('quality  ms CPU per audio s  LSD ≤ 8 kHz  LSD ≤ 11 kHz')
  for (const quality of [3, 5, 7, 9]) {
    const { ms, result: bytes } = cpuPerSecond(() => {
      const lame = new Mp3Encoder(rate, 64, quality)
      const parts = sentences.map(pcm => lame.encode(pcm))
      parts.push(lame.finish())
      return Buffer.concat(parts)
    }, audioSeconds)
    let distances = ''
    if (decodes) {
      const out = spawnSync('mpg123', ['-q', '-s', '-'], { input: bytes, maxBuffer: 256 << 20 }).stdout
      const decoded = new Int16Array(out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength))
      const lag = bestLag(speech, decoded, 2400)
      distances = `  ${logSpectralDistance(speech, decoded, rate, 8000, lag).toFixed(2).padStart(11)}  ${logSpectralDistance(speech, decoded, rate, 11_000, lag).toFixed(2).padStart(12)}`
    }
    console.log(`${String(quality).padStart(7)}  ${ms.toFixed(2).padStart(18)}${distances}`)
  }
}

function aacSettings (): void {
  const { AacEncoder } = loadCodecs()
  const speech = concatSamples(sentences, n => new Int16Array(n))
  console.log(`\nAAC-LC at ${rate} Hz (FFmpeg's encoder): bit rate → CPU, size, log-spectral distance to the input${HAVE_FAAD ? '' : ' (not decoded: needs faad)'}`)
  console.log('kbit/s asked  ms CPU per audio s  kbit/s  LSD ≤ 8 kHz  LSD ≤ 11 kHz')
  for (const kbps of [32, 48, 64, 96]) {
    const { ms, result: bytes } = cpuPerSecond(() => {
      const aac = new AacEncoder(rate, kbps * 1000)
      const parts = sentences.map(pcm => aac.encode(pcm))
      parts.push(aac.finish())
      return Buffer.concat(parts)
    }, audioSeconds)
    let distances = ''
    if (HAVE_FAAD) {
      const decoded = decodeAac(bytes).pcm
      const lag = bestLag(speech, decoded, 2 * AAC_FRAME)
      distances = `  ${logSpectralDistance(speech, decoded, rate, 8000, lag).toFixed(2).padStart(11)}  ${logSpectralDistance(speech, decoded, rate, 11_000, lag).toFixed(2).padStart(12)}`
    }
    console.log(`${String(kbps).padStart(12)}  ${ms.toFixed(2).padStart(18)}  ${(bytes.length * 8 / audioSeconds / 1000).toFixed(1).padStart(6)}${distances}`)
  }
}

function resamplerTo24k (): Resampler {
  const design = designPolyphase(rate, 24_000)
  if (design === undefined) throw new Error(`No polyphase design for ${rate} → 24000 Hz`)
  return new PolyphaseResampler(design)
}

if (flags.settings) {
  opusSettings()
  mp3Settings()
  if (avcodec.loaded) aacSettings()
}
