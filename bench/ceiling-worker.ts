// A worker thread of a ceiling measurement: loads the voices with one
// intra-op thread, gets each text's phoneme ids before any timing, then runs
// the model on those ids directly: no HTTP, no queue, no PCM conversion.
// Two engines (README, Benchmarks; STYLE 19, ceilings come from outside):
//   onnxruntime  onnxruntime-node's InferenceSession on the unmodified .onnx,
//                default session options but one intra-op thread: something
//                Chorus does not contain, so the ceiling shows Chorus's own
//                engine regressions too. It takes the ids the chorus engine
//                computed (load-ids), so both run the same inputs.
//   chorus       Chorus's engine (PiperVoice), which phonemizes the texts.
//   chorus-split Chorus's engine split and chunked as the service's workers
//                run a whole answer under load (encoder, flow, decoder
//                chunks, one thread each; whole if the graph cannot be cut),
//                on the chorus engine's ids: with the two others it places
//                a loss in the engine, the split or the service around them.
// Threading: one message at a time; inference runs off the worker's thread
// (the libuv pool, or ONNX Runtime's own for onnxruntime-node).

import { parentPort, workerData } from 'node:worker_threads'
import { InferenceSession, Tensor } from 'onnxruntime-node'
import { DEFAULT_CHUNKING, frameAlignedArrays, loadVoiceConfig, PiperVoice, planChunks, resolveSynthesisConfig, type SynthesisConfig, type VoiceConfig } from '../src/engine/index.js'
import { discardBytes } from '../src/engine/memory/index.js'
import type { SynthesisParams } from './workload.js'

export type CeilingEngine = 'onnxruntime' | 'chorus' | 'chorus-split'

export interface EngineWorkerData {
  engine: CeilingEngine
  voices: Array<{ name: string, modelPath: string }>
  synthesis: SynthesisParams
  ortLibrary?: string
  espeakData?: string
}

/** A text's sentences as phoneme ids, for the voice at index `voice`. */
export interface PreparedText {
  voice: number
  sentences: BigInt64Array[]
}

export type EngineRequest =
  /** The chorus engine: phonemize these texts. */
  | { kind: 'prepare', texts: Array<{ voice: number, text: string }> }
  /** The onnxruntime engine: run these ids (what the chorus engine's prepare returned). */
  | { kind: 'load-ids', texts: PreparedText[] }
  /**
   * Takes sentences of texts [first, first + count) in turn from a counter
   * shared by every worker, until durationMs is up; `once`: each sentence
   * exactly once instead (the counter starting at 0), however long it takes.
   */
  | { kind: 'throughput', counter: SharedArrayBuffer, durationMs: number, first: number, count: number, once?: boolean }
  /** One text's sentences one after another, `repeats` times. */
  | { kind: 'sequential', text: number, repeats: number }

export interface SequentialRun {
  sentenceMs: number[]
  audioSeconds: number
}

export type EngineReply =
  | { kind: 'ready' }
  | { kind: 'prepared', texts: PreparedText[] }
  | { kind: 'throughput', audioSeconds: number, sentences: number }
  | { kind: 'sequential', runs: SequentialRun[] }
  | { kind: 'error', message: string }

/** A loaded voice: how it turns one sentence's ids into samples. */
interface LoadedVoice {
  config: VoiceConfig
  settings: SynthesisConfig
  infer: (ids: BigInt64Array) => Promise<number>
  /** Only the chorus engine phonemizes. */
  voice?: PiperVoice
}

interface Sentence {
  voice: LoadedVoice
  ids: BigInt64Array
  /** Silence the service would put before this sentence (none before a text's first). */
  silenceSeconds: number
}

const data = workerData as EngineWorkerData
const port = parentPort as NonNullable<typeof parentPort>

/** As the service does: `speaker` only where the voice has speakers. */
function settingsFor (config: VoiceConfig): SynthesisConfig {
  const { speaker, ...rest } = data.synthesis
  return resolveSynthesisConfig(config.numSpeakers > 1 ? { ...rest, speaker } : rest, config)
}

async function loadChorus (modelPath: string): Promise<LoadedVoice> {
  // The bare engine: the whole graph in one run, as Piper runs it.
  const voice = await PiperVoice.load(modelPath, {
    split: false,
    session: { intraOpThreads: 1, interOpThreads: 1 },
    ortLibrary: data.ortLibrary,
    espeakData: data.espeakData
  })
  const settings = settingsFor(voice.config)
  return { config: voice.config, settings, voice, infer: async ids => (await voice.infer(ids, settings)).length }
}

/** As a service worker runs a whole sentence with work waiting: the encoder
 * on one thread, the flow over the whole sentence once, the decoder chunks
 * of a non-streamed plan on this worker alone (or the whole graph, for a
 * voice that does not split). */
async function loadChorusSplit (modelPath: string): Promise<LoadedVoice> {
  const voice = await PiperVoice.load(modelPath, {
    session: { intraOpThreads: 1, encoderIntraOpThreads: 1, interOpThreads: 1 },
    cut: DEFAULT_CHUNKING.cut,
    ortLibrary: data.ortLibrary,
    espeakData: data.espeakData
  })
  const settings = settingsFor(voice.config)
  // A graph that cannot be cut runs whole in the service too.
  if (voice.mode.mode !== 'split') return { config: voice.config, settings, infer: async ids => (await voice.infer(ids, settings)).length }
  const margin = voice.marginFrames(DEFAULT_CHUNKING)
  return {
    config: voice.config,
    settings,
    infer: async ids => {
      const encoded = await voice.encode(ids, settings, undefined, true)
      const encoding = await voice.flowed(encoded, undefined, 1)
      let samples = 0
      for (const range of planChunks(encoding.frames, DEFAULT_CHUNKING, { stream: false, parallelism: 1, marginFrames: margin })) {
        samples += (await voice.decodeChunk(encoding, range, margin)).length
      }
      // Freed as the service's worker frees them.
      discardBytes([...frameAlignedArrays(encoded), ...(encoding === encoded ? [] : frameAlignedArrays(encoding))])
      return samples
    }
  }
}

/** Piper's model signature: input, input_lengths, scales[, sid] → output (the samples). */
async function loadOnnxRuntime (modelPath: string): Promise<LoadedVoice> {
  const config = await loadVoiceConfig(`${modelPath}.json`)
  const settings = settingsFor(config)
  const session = await InferenceSession.create(modelPath, { intraOpNumThreads: 1 })
  const scales = new Tensor('float32', Float32Array.of(settings.noiseScale, settings.lengthScale, settings.noiseW), [3])
  const sid: Record<string, Tensor> = session.inputNames.includes('sid') ? { sid: new Tensor('int64', BigInt64Array.of(BigInt(settings.speakerId)), [1]) } : {}
  return {
    config,
    settings,
    infer: async ids => {
      const outputs = await session.run({
        input: new Tensor('int64', ids, [1, ids.length]),
        input_lengths: new Tensor('int64', BigInt64Array.of(BigInt(ids.length)), [1]),
        scales,
        ...sid
      })
      const output = outputs[session.outputNames[0]]
      const samples = output.size
      output.dispose()
      return samples
    }
  }
}

async function loadVoices (): Promise<LoadedVoice[]> {
  const loaded: LoadedVoice[] = []
  const load = { chorus: loadChorus, 'chorus-split': loadChorusSplit, onnxruntime: loadOnnxRuntime }[data.engine]
  for (const { modelPath } of data.voices) loaded.push(await load(modelPath))
  return loaded
}

const voices = await loadVoices().catch((error: unknown) => {
  port.postMessage({ kind: 'error', message: (error as Error).message } satisfies EngineReply)
  return undefined
})

let textSentences: Sentence[][] = []

async function infer (sentence: Sentence): Promise<number> {
  return await sentence.voice.infer(sentence.ids) / sentence.voice.config.sampleRate + sentence.silenceSeconds
}

function useIds (texts: PreparedText[], loaded: LoadedVoice[]): void {
  textSentences = texts.map(({ voice, sentences }) => sentences.map((ids, index) => ({
    voice: loaded[voice],
    ids,
    silenceSeconds: index === 0 ? 0 : loaded[voice].settings.sentenceSilence
  })))
}

async function handle (request: EngineRequest, loaded: LoadedVoice[]): Promise<EngineReply> {
  switch (request.kind) {
    case 'prepare': {
      const texts = request.texts.map(({ voice, text }) => {
        const engine = loaded[voice].voice
        if (engine === undefined) throw new Error('only the chorus engine phonemizes: send the onnxruntime engine load-ids')
        return { voice, sentences: engine.phonemize(text).map(phonemes => engine.phonemeIds(phonemes).ids) }
      })
      useIds(texts, loaded)
      return { kind: 'prepared', texts }
    }
    case 'load-ids': {
      useIds(request.texts, loaded)
      return { kind: 'prepared', texts: request.texts }
    }
    case 'throughput': {
      const sentences = textSentences.slice(request.first, request.first + request.count).flat()
      const counter = new Int32Array(request.counter)
      const deadline = performance.now() + request.durationMs
      let audioSeconds = 0
      let done = 0
      for (;;) {
        if (request.once !== true && (performance.now() >= deadline || sentences.length === 0)) break
        const index = Atomics.add(counter, 0, 1)
        if (request.once === true && index >= sentences.length) break
        audioSeconds += await infer(sentences[index % sentences.length])
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
