// npm run bench:first-audio [-- --voice PATH --repeats N --first-run N --no-service --no-parts]
// How soon a streamed sentence's first audio comes, short against 45 words,
// beside an outside ceiling, all in one run:
// - Chorus's engine as a service worker runs a stream due now on an idle
//   machine: phonemes, the encoder (its idle thread count), then the first
//   chunk (the flow over its window, the decoder); the parts and the sum;
// - the same with the first encoder run cut at a word boundary
//   (TTS_STREAM_FIRST_RUN_PHONEMES = --first-run), and how much that changes
//   the audio (noise 0: phoneme lengths, the total length, and the
//   log-spectral distance of the first run's audio from the same span of
//   the exact sentence's);
// - a `chorus serve` of its own (cache off) over HTTP, POST /tts?stream=1,
//   to the first byte of audio (--no-service skips it);
// - bare onnxruntime-node on the unmodified model, the short sentence's
//   whole run, on one thread and with ONNX Runtime's default threads (the
//   ceiling comes from outside Chorus's engine);
// - on the bench stand-in, the first chunk part by part in CPU time
//   (scripts/lib/first-chunk-parts.ts; --no-parts skips it).
// Runs alternate; medians. Wall time: run it on a quiet machine, under
// `flock /tmp/chorus-bench.lock`.

import { readFile } from 'node:fs/promises'
import { request } from 'node:http'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import * as ort from 'onnxruntime-node'
import { DEFAULT_CHUNKING, encoderRuns, peakOf, PiperVoice, planChunks, resolveSynthesisConfig, scaleToPcm16, type SynthesisConfig } from '../src/engine/index.js'
import { median } from '../bench/stats.js'
import { WavMeter } from '../bench/wav.js'
import { ChorusError } from '../src/errors.js'
import { startChildService } from '../bench/child-service.js'
import { logSpectralDistance } from './lib/spectral-distance.js'
import { ensureBenchVoices } from './make-bench-voices.js'
import { ENGINE_SENTENCES } from './lib/engine-sentences.js'
import { printFirstChunkParts } from './lib/first-chunk-parts.js'

const { values: flags } = parseArgs({
  options: {
    voice: { type: 'string' },
    repeats: { type: 'string', default: '9' },
    'first-run': { type: 'string', default: '100' },
    'no-service': { type: 'boolean', default: false },
    'no-parts': { type: 'boolean', default: false }
  }
})
function positive (name: string, raw: string | undefined): number {
  const value = Number(raw)
  if (!Number.isInteger(value) || value < 1) {
    console.error(`Expected a positive integer for --${name} but received ${raw}`)
    process.exit(2)
  }
  return value
}
const repeats = positive('repeats', flags.repeats)
const firstRun = positive('first-run', flags['first-run'])
const voiceDir = flags.voice === undefined ? await ensureBenchVoices() : undefined
const voicePath = flags.voice ?? join(voiceDir as string, 'en_US-bench-medium.onnx')

const SHORT = ENGINE_SENTENCES[0]
const LONG = ENGINE_SENTENCES[2]
/** One streamed request's limit. */
const TIMEOUT_MS = 60_000
/** Chorus's default on this machine (TTS_ONNX_ENCODER_THREADS). */
const encoderThreads = Math.min(2, availableParallelism())

const voice = await PiperVoice.load(voicePath, { cut: 'staged', session: { intraOpThreads: 1, encoderIntraOpThreads: encoderThreads } })
const settings = resolveSynthesisConfig({}, voice.config)
const margin = voice.marginFrames(DEFAULT_CHUNKING)

interface FirstAudio { encodeMs: number, chunkMs: number, totalMs: number }

/** A stream due now, as its worker runs it: the first run's encoder, then its first chunk. */
async function engineFirstAudio (text: string, cut: boolean): Promise<FirstAudio> {
  const start = performance.now()
  const [phonemes] = await voice.phonemizeAsync(text)
  const run = encoderRuns(phonemes, { ...DEFAULT_CHUNKING, firstRunPhonemes: cut ? firstRun : 0 }, true)[0]
  const { ids } = voice.phonemeIds(run)
  const encoding = await voice.encode(ids, settings)
  const encoded = performance.now()
  const [first] = planChunks(encoding.frames, DEFAULT_CHUNKING, { stream: true, parallelism: 1, marginFrames: margin, leadFrames: 0 })
  await voice.decodeChunk(encoding, first, margin)
  const done = performance.now()
  return { encodeMs: encoded - start, chunkMs: done - encoded, totalMs: done - start }
}

/** Bare onnxruntime-node, the unmodified model, one whole run: on one
 * thread, and with ONNX Runtime's default threads (every core). */
const bare = { one: await ort.InferenceSession.create(voicePath, { intraOpNumThreads: 1 }), all: await ort.InferenceSession.create(voicePath) }
const shortIds = voice.phonemeIds((await voice.phonemizeAsync(SHORT[1]))[0]).ids
async function bareWholeMs (session: ort.InferenceSession): Promise<number> {
  const start = performance.now()
  await session.run({
    input: new ort.Tensor('int64', shortIds, [1, shortIds.length]),
    input_lengths: new ort.Tensor('int64', BigInt64Array.of(BigInt(shortIds.length)), [1]),
    scales: new ort.Tensor('float32', Float32Array.of(settings.noiseScale, settings.lengthScale, settings.noiseW), [3])
  })
  return performance.now() - start
}

const runs = {
  short: [] as FirstAudio[],
  long: [] as FirstAudio[],
  longCut: [] as FirstAudio[],
  bareOne: [] as number[],
  bareAll: [] as number[]
}
const work: Array<() => Promise<void>> = [
  async () => { runs.short.push(await engineFirstAudio(SHORT[1], false)) },
  async () => { runs.long.push(await engineFirstAudio(LONG[1], false)) },
  async () => { runs.longCut.push(await engineFirstAudio(LONG[1], true)) },
  async () => { runs.bareOne.push(await bareWholeMs(bare.one)) },
  async () => { runs.bareAll.push(await bareWholeMs(bare.all)) }
]
for (const step of work) await step()
for (const list of Object.values(runs)) list.length = 0
for (let r = 0; r < repeats; r++) {
  // A different one first in each round: none always runs on a warmer cache.
  for (let i = 0; i < work.length; i++) await work[(i + r) % work.length]()
}

const ms = (value: number): string => value.toFixed(1).padStart(8)
const med = (list: FirstAudio[], key: keyof FirstAudio): number => median(list.map(run => run[key]))
const shortMs = med(runs.short, 'totalMs')
const bareMs = median(runs.bareOne)
const bareAllMs = median(runs.bareAll)
console.log(`${voice.name}, staged cut, encoder on ${encoderThreads} threads (idle), ${repeats} alternated rounds, medians in ms`)
console.log('                                    encoder  first chunk  first audio   vs short')
for (const [label, list] of [[`engine, ${SHORT[0]}`, runs.short], [`engine, ${LONG[0]}`, runs.long], [`engine, ${LONG[0]}, first run ≤ ${firstRun} phonemes`, runs.longCut]] as const) {
  console.log(`${label.padEnd(34)} ${ms(med(list, 'encodeMs'))} ${ms(med(list, 'chunkMs'))}     ${ms(med(list, 'totalMs'))} ${(med(list, 'totalMs') / shortMs).toFixed(2).padStart(9)}×`)
}
console.log(`bare onnxruntime-node, the unmodified model, ${SHORT[0]}, whole run: ${bareMs.toFixed(1)} ms on one thread, ${bareAllMs.toFixed(1)} ms on its default threads; ` +
  `the engine's ${SHORT[0]} first audio is ${(shortMs / bareMs).toFixed(2)}× and ${(shortMs / bareAllMs).toFixed(2)}× them`)
await reportCutAudio(voice, quietSettings())
if (flags['no-parts'] !== true && voiceDir !== undefined) await printFirstChunkParts(voicePath, new Uint8Array(await readFile(voicePath)), [SHORT, LONG], repeats)

if (flags['no-service'] !== true) await serviceFirstAudio()
voice.close()

function quietSettings (): SynthesisConfig {
  return resolveSynthesisConfig({ noiseScale: 0, noiseW: 0 }, voice.config)
}

/** What cutting the first run changes in the 45-word sentence (noise 0):
 * its phonemes' lengths, its length, and the first run's audio against the
 * same span of the exact sentence's (both scaled by the exact one's peak). */
async function reportCutAudio (voice: PiperVoice, quiet: SynthesisConfig): Promise<void> {
  const [phonemes] = await voice.phonemizeAsync(LONG[1])
  const pieces = encoderRuns(phonemes, { ...DEFAULT_CHUNKING, firstRunPhonemes: firstRun }, true)
  const run = async (p: Uint32Array) => {
    const ids = voice.phonemeIds(p).ids
    const frames = voice.phonemeFrames(p, await voice.encode(ids, quiet))?.frames ?? new Uint32Array(0)
    // Each piece's entries without its BOS and EOS: the phonemes' own lengths.
    return { samples: await voice.sentenceSamples(ids, quiet), lengths: Array.from(frames.subarray(1, -1)) }
  }
  const exact = await run(phonemes)
  const cut = await Promise.all(pieces.map(run))
  const lengths = cut.flatMap(c => c.lengths)
  const changed = lengths.filter((frames, i) => frames !== exact.lengths[i]).length
  const peak = peakOf(exact.samples)
  const [exactPcm, headPcm] = [scaleToPcm16(exact.samples, peak), scaleToPcm16(cut[0].samples, peak)]
  const span = Math.min(headPcm.length, exactPcm.length)
  const distance = logSpectralDistance(exactPcm.subarray(0, span), headPcm.subarray(0, span), voice.config.sampleRate, 8000)
  const lengthMs = (cut.reduce((sum, c) => sum + c.samples.length, 0) - exact.samples.length) / voice.config.sampleRate * 1000
  console.log(`first run cut after ${pieces[0].length} of ${phonemes.length} phonemes: ${changed} of ${lengths.length} phonemes change length, ` +
    `the sentence ${lengthMs >= 0 ? '+' : ''}${lengthMs.toFixed(0)} ms long (each run's start and end symbols); the first run's audio against the same span ` +
    `of the exact sentence's: ${distance.toFixed(1)} dB log-spectral distance (0 is identical)`)
}

/** A service of its own, idle, cache off: POST /tts?stream=1 to its first byte of audio. */
async function serviceFirstAudio (): Promise<void> {
  const dir = voiceDir ?? join(voicePath, '..')
  const name = voice.name
  const service = await startChildService(process.env, { TTS_VOICE_DIR: dir, TTS_DEFAULT_VOICE: name, TTS_PRELOAD_VOICES: name, TTS_CACHE_BYTES: '0' },
    join(tmpdir(), `chorus-first-audio-${process.pid}.log`))
  try {
    const times = { short: [] as number[], long: [] as number[] }
    for (let r = -1; r < repeats; r++) {
      for (const [key, text] of (r % 2 === 0 ? [['short', SHORT[1]], ['long', LONG[1]]] : [['long', LONG[1]], ['short', SHORT[1]]]) as Array<['short' | 'long', string]>) {
        const took = await streamedFirstAudioMs(service.url, text, name)
        if (r >= 0) times[key].push(took)
      }
    }
    const [short, long] = [median(times.short), median(times.long)]
    console.log(`service over HTTP (POST /tts?stream=1, idle, cache off), to the first byte of audio: ${SHORT[0]} ${short.toFixed(1)} ms, ` +
      `${LONG[0]} ${long.toFixed(1)} ms (${(long / short).toFixed(2)}×); the short one is ${(short / bareMs).toFixed(2)}× bare onnxruntime-node's whole run on one thread, ` +
      `${(short / bareAllMs).toFixed(2)}× on its default threads`)
  } finally {
    await service.stop()
  }
}

/** One streamed request, timed to its first byte of audio (past the WAV
 * header); the body is read to its end first, so the next request finds the
 * service idle. */
async function streamedFirstAudioMs (baseUrl: string, text: string, voice: string): Promise<number> {
  const url = new URL('/tts?stream=1', baseUrl)
  const body = JSON.stringify({ text, voice })
  return await new Promise((resolve, reject) => {
    const start = performance.now()
    let firstAudioMs: number | undefined
    const meter = new WavMeter()
    const req = request(url, {
      method: 'POST',
      signal: AbortSignal.timeout(TIMEOUT_MS),
      headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }
    }, res => {
      if (res.statusCode !== 200) {
        res.resume()
        reject(new ChorusError('ERR_BENCH_HTTP', `POST ${url.pathname}${url.search} answered ${res.statusCode ?? 0}`))
        return
      }
      res.on('data', (chunk: Buffer) => {
        meter.push(chunk)
        if (firstAudioMs === undefined && meter.audioBytes > 0) firstAudioMs = performance.now() - start
      })
      res.on('end', () => {
        if (firstAudioMs === undefined) reject(new ChorusError('ERR_BENCH_HTTP', `POST ${url.pathname}${url.search} sent no audio`))
        else resolve(firstAudioMs)
      })
      res.on('error', error => reject(new ChorusError('ERR_BENCH_HTTP', `POST ${url.pathname}${url.search} ended early: ${error.message}`, { cause: error })))
    })
    req.on('error', error => reject(new ChorusError('ERR_BENCH_HTTP', `POST ${url.pathname}${url.search} failed: ${error.message}`, { cause: error })))
    req.end(body)
  })
}
