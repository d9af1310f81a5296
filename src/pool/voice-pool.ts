// One voice's worker threads: a Piscina pool whose workers each hold the
// voice (handles to one shared copy of its weights). Sentences and decoder
// chunks are its tasks. Cancelling a task stops its ONNX Runtime run through
// a message to the worker, so the worker and its loaded voice survive
// (Piscina's own abort would terminate the thread).
//
// Tasks do not go to Piscina's FIFO queue all at once: they wait here in the
// schedule's order (schedule.ts, the same rule as the inference gate's), and
// only as many as there are workers are handed over. So the stream whose
// listener runs dry first, within its tenant's fair share, runs first.

import { MessageChannel } from 'node:worker_threads'
import type { Logger } from 'pino'
import { Piscina } from 'piscina'
import { SynthesisCancelledError } from '../engine/errors.js'
import { frameAlignedArrays, type ChunkingSettings, type SynthesisConfig, type VoiceConfig } from '../engine/index.js'
import type { InferenceGate } from './inference-gate.js'
import { leadMs } from './schedule-clock.js'
import { Schedule, startsInMs, type Ticket } from './schedule.js'
import { isFailure, restoreError } from './task-errors.js'
import type { ChunkInput, DecodeResult, ReadyResult, SentenceResult, WorkerInit, WorkerTask } from './protocol.js'
import { workerStartOptions } from '../worker-start-options.js'

export interface VoicePoolOptions {
  workers: number
  onnxThreads: number
  /** A split voice's encoder session (see ServiceConfig.onnxEncoderThreads). */
  onnxEncoderThreads: number
  /** Run the voice's 1-D convolutions as 2-D ones (default true; SessionOptions.liftConvolutions). */
  liftConvolutions?: boolean
  /** Compute the encoder's attention over its window only (default true; SessionOptions.bandAttention). */
  bandAttention?: boolean
  chunking: ChunkingSettings
  ortLibrary?: string
  espeakData?: string
  /** Shared by every voice: bounds the tasks running at once across voices. */
  gate: InferenceGate
  /** Workers beyond the first exit after this long without work; 0: never. */
  workerIdleMs: number
}

// From TypeScript sources the worker needs tsx registered first.
const FROM_SOURCES = import.meta.url.endsWith('.ts')
const WORKER_FILE = new URL(FROM_SOURCES ? './dev-worker.mjs' : './worker.js', import.meta.url)

const RECENT_PEAKS = 32
/** A phoneme's length before the voice has spoken a sentence: short, as a
 * fast speaker's (typical ones last 60-90 ms), so an estimated deadline of
 * a later sentence falls early rather than late. */
const FIRST_PHONEME_SECONDS = 0.04
/** See the resourceLimits comment in the constructor. */
const WORKER_YOUNG_GENERATION_MB = 4

/**
 * How many workers a sentence starting now may spread its decoding over
 * (its own slot is already taken). Spreading shortens one answer but decodes
 * the context at each cut twice, so it is worth it only while slots would
 * otherwise stay free: with work waiting, every worker has a sentence of its
 * own to run whole.
 */
export function decoderSpread (state: { workers: number, waiting: number, freeSlots: number }): number {
  if (state.waiting > 0) return 1
  return Math.max(1, Math.min(state.workers, 1 + state.freeSlots))
}

/** Whether a sentence's encoder, run with `encoderThreads` while `running`
 * inferences (its own included) hold `limit` slots, would contend with the
 * others for the cores: its extra threads then spend more CPU on the same
 * work (a quarter more with two; npm run bench:encoder-threads), so it runs
 * on one. Idle, it keeps its threads: a long sentence's first audio waits
 * for its encoder run. */
export function encoderBusy (state: { running: number, limit: number, encoderThreads: number }): boolean {
  return state.encoderThreads > 1 && state.running + state.encoderThreads - 1 > state.limit
}

/** The samples a task returned: a whole sentence or a decoder chunk; none for a latent. */
function audioSamples (result: unknown): number {
  const samples = (result as { samples?: Float32Array }).samples
  return samples instanceof Float32Array ? samples.length : 0
}

export class VoicePool {
  private readonly piscina: Piscina
  private running = 0
  private readonly waiting: Schedule<{ start: () => void }>
  private idle: (() => void) | undefined
  /** Wakes the queue when a held background task's time comes. */
  private wake: NodeJS.Timeout | undefined
  /** Heap bytes of the voice's model, once per process (what the addon measured). */
  memoryBytes = 0
  mode: 'split' | 'whole' = 'whole'
  /** Split voices: what runs in chunks. */
  cut: ChunkingSettings['cut'] | null = null
  /** Its encoder runs on a session shared with the voices of its architecture. */
  encoderShared = false
  /** Peaks of the voice's recent sentences (see the gain rule in sentence-pipeline.ts). */
  private readonly peaks: number[] = []
  /** Samples per phoneme at length_scale 1, from the voice's recent sentences (undefined before any). */
  private samplesPerPhoneme: number | undefined

  private readonly sampleRate: number

  constructor (readonly name: string, modelPath: string, config: VoiceConfig, readonly options: VoicePoolOptions, log: Logger) {
    this.sampleRate = config.sampleRate
    this.waiting = new Schedule(options.gate.mode)
    const init: WorkerInit = {
      modelPath,
      config,
      session: { intraOpThreads: options.onnxThreads, encoderIntraOpThreads: options.onnxEncoderThreads, interOpThreads: 1, liftConvolutions: options.liftConvolutions !== false, bandAttention: options.bandAttention !== false },
      chunking: options.chunking,
      ortLibrary: options.ortLibrary,
      espeakData: options.espeakData
    }
    this.piscina = new Piscina({
      filename: WORKER_FILE.href,
      workerData: init,
      // An idle voice keeps one worker; the others come back on demand, fast,
      // since the weights stay loaded in the process (native/voice_registry.h).
      minThreads: options.workerIdleMs > 0 ? 1 : options.workers,
      maxThreads: options.workers,
      idleTimeout: options.workerIdleMs > 0 ? options.workerIdleMs : Number.POSITIVE_INFINITY,
      // One task at a time per worker: a worker's thread is one core.
      concurrentTasksPerWorker: 1,
      ...workerStartOptions(),
      // A worker's own objects are few and small (samples live outside the
      // JS heap), but loading a voice churns through many: V8's default
      // young generation then grows to tens of megabytes per worker and
      // keeps them. Measured on a medium voice with 2 workers: 4 MB takes
      // about 27 MB off the voice's RSS after loading, about 60 MB after a burst.
      resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB }
    })
    // A worker that fails outside a task (its voice would not load) must not
    // take the process down; the task that was waiting fails on its own.
    this.piscina.on('error', (error: unknown) => log.error({ err: error, voice: name }, 'voice worker failed'))
  }

  /** Resolves when every worker has loaded the voice; rejects if it cannot. */
  async start (): Promise<ReadyResult> {
    try {
      const ready = await Promise.all(Array.from({ length: this.options.workers },
        async () => await (this.piscina.run({ kind: 'ready' }) as Promise<ReadyResult>)))
      this.memoryBytes = Math.max(...ready.map(r => r.memoryBytes))
      this.mode = ready[0].mode
      this.cut = ready[0].cut ?? null
      this.encoderShared = ready[0].encoderShared
      if (ready[0].referencePeak > 0) this.observePeak(ready[0].referencePeak)
      return ready.find(r => r.reason !== undefined) ?? ready[0]
    } catch (error) {
      await this.piscina.destroy()
      throw restoreError(error)
    }
  }

  /** What one of the voice's workers reports of itself (its memory, its mode). */
  async probe (): Promise<ReadyResult> {
    return await (this.piscina.run({ kind: 'ready' }) as Promise<ReadyResult>)
  }

  /** The median peak of the voice's recent sentences; 0 before any. */
  get typicalPeak (): number {
    if (this.peaks.length === 0) return 0
    const sorted = [...this.peaks].sort((a, b) => a - b)
    return sorted[Math.floor(sorted.length / 2)]
  }

  /** A queued piece's length in samples before its encoder run, from its
   * phonemes and the voice's recent sentences (FIRST_PHONEME_SECONDS each before the first). */
  estimateSamples (phonemes: number, lengthScale: number): number {
    const perPhoneme = this.samplesPerPhoneme ?? this.sampleRate * FIRST_PHONEME_SECONDS
    return Math.round(phonemes * perPhoneme * lengthScale)
  }

  private observeLength (phonemes: number, samples: number, lengthScale: number): void {
    if (phonemes <= 0 || !(samples > 0) || !(lengthScale > 0)) return
    const ratio = samples / phonemes / lengthScale
    // A running mean that follows the voice's recent sentences.
    this.samplesPerPhoneme = this.samplesPerPhoneme === undefined ? ratio : this.samplesPerPhoneme * 0.9 + ratio * 0.1
  }

  observePeak (peak: number): void {
    if (!(peak > 0) || !Number.isFinite(peak)) return
    this.peaks.push(peak)
    if (this.peaks.length > RECENT_PEAKS) this.peaks.shift()
  }

  /** Tasks waiting here plus those Piscina holds. */
  get queueSize (): number {
    return this.waiting.size + this.piscina.queueSize
  }

  /** Tasks running or waiting: a voice with any is never evicted. */
  get activeRequests (): number {
    return this.running + this.waiting.size
  }

  /** One sentence: its samples when the worker could finish it, else its
   * latent and the chunks still to decode. */
  async sentence (phonemes: Uint32Array, settings: SynthesisConfig, stream: boolean, ticket: Ticket, signal: AbortSignal): Promise<SentenceResult> {
    const count = phonemes.length
    const result = await this.run<SentenceResult>(signal, ticket, port => ({
      task: { kind: 'sentence', phonemes, settings, stream, parallelism: this.spareParallelism(), busy: this.encoderBusy(), contended: this.contended(), leadMs: stream ? Math.max(leadMs(ticket.due, this.options.gate.now()), ticket.due.aheadMs?.() ?? 0) : 0, ...port },
      transfer: [phonemes.buffer as ArrayBuffer]
    }))
    this.observeLength(count, result.totalSamples, settings.lengthScale)
    return result
  }

  /** One chunk of a sentence's latent; its buffers move to the worker. */
  async decode (chunk: ChunkInput, ticket: Ticket, signal: AbortSignal): Promise<DecodeResult> {
    return await this.run<DecodeResult>(signal, ticket, port => ({
      task: { kind: 'decode', chunk, ...port },
      transfer: frameAlignedArrays(chunk).map(a => a.buffer as ArrayBuffer)
    }))
  }

  private encoderBusy (): boolean {
    const gate = this.options.gate
    return encoderBusy({ running: gate.running, limit: gate.limit, encoderThreads: this.options.onnxEncoderThreads })
  }

  private contended (): boolean {
    return this.waiting.size + this.options.gate.waiting > 0
  }

  private spareParallelism (): number {
    const gate = this.options.gate
    return decoderSpread({ workers: this.options.workers, waiting: this.waiting.size + gate.waiting, freeSlots: gate.limit - gate.running })
  }

  private async run<T> (signal: AbortSignal, ticket: Ticket,
    make: (port: { cancelFlag: SharedArrayBuffer, cancelPort: import('node:worker_threads').MessagePort }) => { task: WorkerTask, transfer: ArrayBuffer[] }): Promise<T> {
    if (signal.aborted) throw new SynthesisCancelledError()
    const queuedSince = this.options.gate.now()
    await this.turn(ticket, signal)
    let releaseSlot: () => void
    try {
      releaseSlot = await this.options.gate.acquire(signal, ticket, queuedSince)
    } catch (error) {
      this.finished()
      throw error
    }
    const cancelFlag = new SharedArrayBuffer(4)
    const { port1, port2 } = new MessageChannel()
    const cancel = () => {
      Atomics.store(new Int32Array(cancelFlag), 0, 1)
      port1.postMessage('cancel')
    }
    signal.addEventListener('abort', cancel, { once: true })
    const { task, transfer } = make({ cancelFlag, cancelPort: port2 })
    try {
      const started = performance.now()
      const result = await (this.piscina.run(task, { transferList: [...transfer, port2] }) as Promise<T>)
      if (isFailure(result)) throw result
      this.options.gate.cost.observe(performance.now() - started, audioSamples(result) / this.sampleRate)
      return result
    } catch (error) {
      if (signal.aborted) throw new SynthesisCancelledError()
      throw restoreError(error, `Synthesis with ${this.name} failed`)
    } finally {
      releaseSlot()
      signal.removeEventListener('abort', cancel)
      port1.close()
      this.finished()
    }
  }

  /** Waits until this task is among the first `workers` in the schedule's
   * order (background work never takes the last free worker: startsInMs). */
  private async turn (ticket: Ticket, signal: AbortSignal): Promise<void> {
    const { workers } = this.options
    if (this.running < workers && this.waiting.size === 0 && startsInMs(ticket, this.running, workers, this.waiting.mode) === 0) {
      this.waiting.charge(ticket)
      this.running++
      return
    }
    await new Promise<void>((resolve, reject) => {
      const entry = {
        start: () => {
          signal.removeEventListener('abort', onAbort)
          resolve()
        }
      }
      const onAbort = () => {
        this.waiting.remove(entry)
        reject(new SynthesisCancelledError())
      }
      signal.addEventListener('abort', onAbort, { once: true })
      this.waiting.add(entry, ticket)
      this.startWaiting()
    })
  }

  private finished (): void {
    this.running--
    this.startWaiting()
    if (this.running === 0 && this.waiting.size === 0) this.idle?.()
  }

  /** Lets waiting tasks through while workers are free, in the schedule's order. */
  private startWaiting (): void {
    const { workers } = this.options
    while (this.running < workers && this.waiting.size > 0) {
      const wait = startsInMs(this.waiting.peek(), this.running, workers, this.waiting.mode)
      if (wait > 0) {
        clearTimeout(this.wake)
        this.wake = setTimeout(() => this.startWaiting(), wait)
        this.wake.unref()
        return
      }
      const next = this.waiting.take()
      if (next === undefined) return
      this.running++
      next.start()
    }
  }

  /** Waits for tasks in flight, then stops the workers. */
  async close (): Promise<void> {
    if (this.running > 0) await new Promise<void>(resolve => { this.idle = resolve })
    await this.piscina.destroy()
  }
}
