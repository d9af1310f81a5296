// One voice's worker threads: a Piscina pool whose workers each hold the
// voice loaded. Sentences are its tasks. Cancelling a sentence stops its ONNX
// Runtime run through a message to the worker, so the worker and its loaded
// voice survive (Piscina's own abort would terminate the thread).

import { MessageChannel } from 'node:worker_threads'
import type { Logger } from 'pino'
import { Piscina } from 'piscina'
import { SynthesisCancelledError, InferenceError } from '../errors.js'
import type { SynthesisConfig, VoiceConfig } from '../engine/index.js'
import { InferenceGate } from './inference-gate.js'
import type { ReadyResult, SentenceResult, SentenceTask, WorkerInit } from './protocol.js'

export interface VoicePoolOptions {
  workers: number
  onnxThreads: number
  ortLibrary?: string
  espeakData?: string
  /** Shared by every voice: bounds the sentences running at once. */
  gate: InferenceGate
  /** Workers beyond the first exit after this long without work; 0: never. */
  workerIdleMs: number
}

// From TypeScript sources the worker needs tsx registered first.
const WORKER_FILE = new URL(import.meta.url.endsWith('.ts') ? './dev-worker.mjs' : './worker.js', import.meta.url)

export class VoicePool {
  private readonly piscina: Piscina
  /** A voice asks the shared gate for no more slots than it has workers to use them. */
  private readonly ownSlots: InferenceGate
  private active = 0
  private idle: (() => void) | undefined
  /** Resident memory the pool added when it loaded (an estimate: the process is shared). */
  memoryBytes = 0

  constructor (readonly name: string, modelPath: string, config: VoiceConfig, readonly options: VoicePoolOptions, log: Logger) {
    const init: WorkerInit = {
      modelPath,
      config,
      session: { intraOpThreads: options.onnxThreads, interOpThreads: 1 },
      ortLibrary: options.ortLibrary,
      espeakData: options.espeakData
    }
    this.ownSlots = new InferenceGate(options.workers)
    this.piscina = new Piscina({
      filename: WORKER_FILE.href,
      workerData: init,
      // An idle voice keeps one worker; the others come back on demand.
      minThreads: options.workerIdleMs > 0 ? 1 : options.workers,
      maxThreads: options.workers,
      idleTimeout: options.workerIdleMs > 0 ? options.workerIdleMs : Number.POSITIVE_INFINITY,
      // One sentence at a time per worker: a worker's thread is one core.
      concurrentTasksPerWorker: 1
    })
    // A worker that fails outside a task (its voice would not load) must not
    // take the process down; the task that was waiting fails on its own.
    this.piscina.on('error', (error: unknown) => log.error({ err: error, voice: name }, 'voice worker failed'))
  }

  /** Resolves when every worker has loaded the voice; rejects if it cannot. */
  async start (): Promise<void> {
    const before = process.memoryUsage.rss()
    try {
      const ready = await Promise.all(Array.from({ length: this.options.workers },
        async () => await (this.piscina.run({ kind: 'ready' }) as Promise<ReadyResult>)))
      this.memoryBytes = Math.max(0, Math.max(...ready.map(r => r.rss)) - before)
    } catch (error) {
      await this.piscina.destroy()
      throw error
    }
  }

  /** Sentences waiting for one of this voice's workers. */
  get queueSize (): number {
    return this.piscina.queueSize + this.ownSlots.waiting
  }

  get activeRequests (): number {
    return this.active
  }

  /** Synthesises one sentence. Aborting `signal` stops it at once. */
  async run (phonemes: Uint32Array, settings: SynthesisConfig, signal: AbortSignal): Promise<SentenceResult> {
    if (signal.aborted) throw new SynthesisCancelledError()
    const cancelFlag = new SharedArrayBuffer(4)
    const { port1, port2 } = new MessageChannel()
    const cancel = () => {
      Atomics.store(new Int32Array(cancelFlag), 0, 1)
      port1.postMessage('cancel')
    }
    signal.addEventListener('abort', cancel, { once: true })
    const task: SentenceTask = { kind: 'sentence', phonemes, settings, cancelFlag, cancelPort: port2 }
    this.active++
    let releaseOwn: (() => void) | undefined
    let releaseSlot: (() => void) | undefined
    try {
      releaseOwn = await this.ownSlots.acquire(signal)
      releaseSlot = await this.options.gate.acquire(signal)
      return await (this.piscina.run(task, { transferList: [phonemes.buffer as ArrayBuffer, port2] }) as Promise<SentenceResult>)
    } catch (error) {
      // Errors cross the thread boundary as plain Errors; restore their kind.
      if (signal.aborted) throw new SynthesisCancelledError()
      throw new InferenceError(`Synthesis with ${this.name} failed: ${(error as Error).message}`, { cause: error })
    } finally {
      releaseSlot?.()
      releaseOwn?.()
      signal.removeEventListener('abort', cancel)
      port1.close()
      this.active--
      if (this.active === 0) this.idle?.()
    }
  }

  /** Waits for sentences in flight, then stops the workers. */
  async close (): Promise<void> {
    if (this.active > 0) await new Promise<void>(resolve => { this.idle = resolve })
    await this.piscina.destroy()
  }
}
