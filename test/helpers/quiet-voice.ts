// A bench stand-in whose own noise is off (its .onnx.json's inference
// settings): the same text gives the same samples on every path, so a
// vendor's client that cannot pass Chorus's noise settings (Cartesia's,
// Deepgram's) can be compared with POST /tts sample for sample. Each
// sentence is decoded in one chunk (TTS_STREAM_FIRST_CHUNK_FRAMES): a
// sentence streamed in several chunks is scaled by the voice's recent peaks,
// so two requests would differ by their history.

import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ServiceOptions } from '../../src/service/server.js'
import { postTts, startTestService, type TestService } from './service.js'
import { BENCH_VOICES } from './voices.js'

export const QUIET_VOICE = 'en_US-bench-x_low'

/** A service over the quiet voice alone. */
export async function startQuietService (env: Record<string, string> = {}, options: ServiceOptions = {}): Promise<TestService> {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-quiet-voice-'))
  await cp(join(BENCH_VOICES, `${QUIET_VOICE}.onnx`), join(dir, `${QUIET_VOICE}.onnx`))
  const config = JSON.parse(await readFile(join(BENCH_VOICES, `${QUIET_VOICE}.onnx.json`), 'utf8')) as { inference: Record<string, number> }
  config.inference = { ...config.inference, noise_scale: 0, noise_w: 0 }
  await writeFile(join(dir, `${QUIET_VOICE}.onnx.json`), JSON.stringify(config))
  const service = await startTestService({ TTS_VOICE_DIR: dir, TTS_DEFAULT_VOICE: QUIET_VOICE, TTS_STREAM_FIRST_CHUNK_FRAMES: '4096', ...env }, [], options)
  return {
    ...service,
    stop: async () => {
      await service.stop()
      await rm(dir, { recursive: true, force: true })
    }
  }
}

/** What POST /tts gives for each sentence, in order: 16-bit PCM at `rate` (24 kHz unless the
 * format is "pcm" at another rate, which /tts does not offer: then its WAV at the voice's rate). */
export async function ttsPcm (service: TestService, sentences: readonly string[]): Promise<Buffer> {
  const parts: Buffer[] = []
  for (const text of sentences) {
    const reply = await postTts(service.url, { text, voice: QUIET_VOICE, format: 'pcm' })
    if (reply.status !== 200) throw new Error(`POST /tts answered ${reply.status}: ${reply.body.toString()}`)
    parts.push(reply.body)
  }
  return Buffer.concat(parts)
}

/** Little-endian 16-bit samples. */
export function samples (pcm: Buffer): Int16Array {
  return new Int16Array(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.byteLength - (pcm.byteLength % 2)))
}

export interface TimedWord { word: string, endMs: number }

/** Each word of the sentences and where it ends, in milliseconds on one
 * timeline (the sentences heard one after another), from POST /tts's timing. */
export async function wordEnds (service: TestService, sentences: readonly string[]): Promise<TimedWord[]> {
  const words: TimedWord[] = []
  let offset = 0
  for (const text of sentences) {
    const reply = await postTts(service.url, { text, voice: QUIET_VOICE, format: 'wav', timestamps: ['word'] })
    if (reply.status !== 200) throw new Error(`POST /tts answered ${reply.status}: ${reply.body.toString()}`)
    const rate = reply.json.sample_rate as number
    for (const w of reply.json.words as Array<{ word: string, end_sample: number }>) words.push({ word: w.word, endMs: (offset + w.end_sample) * 1000 / rate })
    offset += (Buffer.from(reply.json.audio as string, 'base64').length - 44) / 2
  }
  return words
}

/** A clock the test moves by hand (ServiceOptions.playbackClock). */
export function handClock (): { now: () => number, set: (ms: number) => void } {
  let at = 0
  return { now: () => at, set: ms => { at = ms } }
}
