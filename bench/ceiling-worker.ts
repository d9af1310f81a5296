// A worker thread of the bare-engine measurement: loads the voices with one
// intra-op thread, turns texts into phoneme ids before any timing, then runs
// ONNX Runtime on those ids directly: no HTTP, no queue, no PCM conversion.
// Threading: one message at a time; infer() runs on the libuv pool.

import { parentPort, workerData } from 'node:worker_threads'
import { PiperVoice, resolveSynthesisConfig, type SynthesisConfig } from '../src/engine/index.js'
import type { SynthesisParams } from './workload.js'

export interface EngineWorkerData {
  voices: Array<{ name: string, modelPath: string }>
  synthesis: SynthesisParams
  ortLibrary?: string
  espeakData?: string
}

export type EngineRequest =
  | { kind: 'prepare', texts: Array<{ voice: number, text: string }> }
  /**
   * Takes sentences of texts [first, first + count) in turn from a counter
   * shared by every worker, until durationMs is up.
   */
  | { kind: 'throughput', counter: SharedArrayBuffer, durationMs: number, first: number, count: number }
  /** One text's sentences one after another, `repeats` times. */
  | { kind: 'sequential', text: number, repeats: number }

export interface SequentialRun {
  sentenceMs: number[]
  audioSeconds: number
}

export type EngineReply =
  | { kind: 'ready' }
  | { kind: 'prepared', sentences: number[] }
  | { kind: 'throughput', audioSeconds: number, sentences: number }
  | { kind: 'sequential', runs: SequentialRun[] }
  | { kind: 'error', message: string }

interface LoadedVoice {
  voice: PiperVoice
  settings: SynthesisConfig
}

interface Sentence {
  voice: LoadedVoice
  ids: BigInt64Array
  /** Silence the service would put before this sentence (none before a text's first). */
  silenceSeconds: number
}

const data = workerData as EngineWorkerData
const port = parentPort as NonNullable<typeof parentPort>

async function loadVoices (): Promise<LoadedVoice[]> {
  const loaded: LoadedVoice[] = []
  for (const { modelPath } of data.voices) {
    // The bare engine: the whole graph in one run, as Piper runs it.
    const voice = await PiperVoice.load(modelPath, {
      split: false,
      session: { intraOpThreads: 1, interOpThreads: 1 },
      ortLibrary: data.ortLibrary,
      espeakData: data.espeakData
    })
    // As the service does: `speaker` only where the voice has speakers.
    const { speaker, ...rest } = data.synthesis
    loaded.push({ voice, settings: resolveSynthesisConfig(voice.config.numSpeakers > 1 ? { ...rest, speaker } : rest, voice.config) })
  }
  return loaded
}

const voices = await loadVoices().catch((error: unknown) => {
  port.postMessage({ kind: 'error', message: (error as Error).message } satisfies EngineReply)
  return undefined
})

let textSentences: Sentence[][] = []

async function infer (sentence: Sentence): Promise<number> {
  const { voice, settings } = sentence.voice
  const samples = await voice.infer(sentence.ids, settings)
  return samples.length / voice.config.sampleRate + sentence.silenceSeconds
}

async function handle (request: EngineRequest, loaded: LoadedVoice[]): Promise<EngineReply> {
  switch (request.kind) {
    case 'prepare': {
      textSentences = request.texts.map(({ voice, text }) => {
        const target = loaded[voice]
        return target.voice.phonemize(text).map((phonemes, index) => ({
          voice: target,
          ids: target.voice.phonemeIds(phonemes).ids,
          silenceSeconds: index === 0 ? 0 : target.settings.sentenceSilence
        }))
      })
      return { kind: 'prepared', sentences: textSentences.map(list => list.length) }
    }
    case 'throughput': {
      const sentences = textSentences.slice(request.first, request.first + request.count).flat()
      const counter = new Int32Array(request.counter)
      const deadline = performance.now() + request.durationMs
      let audioSeconds = 0
      let done = 0
      while (performance.now() < deadline && sentences.length > 0) {
        audioSeconds += await infer(sentences[Atomics.add(counter, 0, 1) % sentences.length])
        done++
      }
      return { kind: 'throughput', audioSeconds, sentences: done }
    }
    case 'sequential': {
      const runs: SequentialRun[] = []
      for (let r = 0; r < request.repeats; r++) {
        const sentenceMs: number[] = []
        let audioSeconds = 0
        for (const sentence of textSentences[request.text]) {
          const start = performance.now()
          audioSeconds += await infer(sentence)
          sentenceMs.push(performance.now() - start)
        }
        runs.push({ sentenceMs, audioSeconds })
      }
      return { kind: 'sequential', runs }
    }
  }
}

if (voices !== undefined) {
  port.on('message', (request: EngineRequest) => {
    handle(request, voices).then(
      reply => port.postMessage(reply),
      (error: unknown) => port.postMessage({ kind: 'error', message: (error as Error).message } satisfies EngineReply))
  })
  port.postMessage({ kind: 'ready' } satisfies EngineReply)
}
