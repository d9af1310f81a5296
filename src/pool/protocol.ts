// What the main thread and a voice's worker threads exchange.

import type { MessagePort } from 'node:worker_threads'
import type { SessionOptions, SynthesisConfig, VoiceConfig } from '../engine/index.js'

/** workerData of every worker in one voice's pool. */
export interface WorkerInit {
  modelPath: string
  /** Parsed in the main thread already: workers do not read it again. */
  config: VoiceConfig
  session: SessionOptions
  ortLibrary?: string
  espeakData?: string
}

/** One sentence to synthesise. `phonemes` is transferred, not copied. */
export interface SentenceTask {
  kind: 'sentence'
  phonemes: Uint32Array
  settings: SynthesisConfig
  /** Int32Array view: 1 once the request was cancelled (checked at start). */
  cancelFlag: SharedArrayBuffer
  /** Receives 'cancel' to stop a run in flight. */
  cancelPort: MessagePort
}

/** Resolves once the worker has loaded its voice. */
export interface ReadyTask {
  kind: 'ready'
}

export type WorkerTask = SentenceTask | ReadyTask

export interface SentenceResult {
  /** 16-bit PCM, its buffer transferred from the worker. */
  pcm: Int16Array
  missingPhonemes: number
}

export interface ReadyResult {
  /** Resident memory of the process after this worker loaded its voice. */
  rss: number
}
