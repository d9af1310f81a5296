// What the main thread and a voice's worker threads exchange. Samples travel
// as float32 (their buffers transferred, not copied): the main thread turns
// them into 16-bit PCM, because a sentence's gain depends on all its chunks.

import type { MessagePort } from 'node:worker_threads'
import type { ChunkingSettings, FrameRange, PhonemeFrames, SentenceEncoding, SessionOptions, SynthesisConfig, VoiceConfig } from '../engine/index.js'

/** workerData of every worker in one voice's pool. */
export interface WorkerInit {
  modelPath: string
  /** Parsed in the main thread already: workers do not read it again. */
  config: VoiceConfig
  session: SessionOptions
  chunking: ChunkingSettings
  ortLibrary?: string
  espeakData?: string
}

interface Cancellable {
  /** Int32Array view: 1 once the request was cancelled (checked at start). */
  cancelFlag: SharedArrayBuffer
  /** Receives 'cancel' to stop a run in flight. */
  cancelPort: MessagePort
}

/** One sentence (or, past the phoneme cap, one piece of one). The worker
 * runs it whole when it is short; otherwise it encodes it, decodes the first
 * chunk when streaming, and hands back the latent for the other chunks. */
export interface SentenceTask extends Cancellable {
  kind: 'sentence'
  /** Transferred, not copied. */
  phonemes: Uint32Array
  settings: SynthesisConfig
  stream: boolean
  /** Workers of this voice: a long sentence is cut into at least this many chunks. */
  parallelism: number
  /** Other inferences hold the cores as it starts: its encoder runs on one thread (encoderBusy). */
  busy: boolean
  /** Other work waits for a slot as it starts: duplicated work (a staged
   * voice's windows of the flow) would only delay it (windowedFlow). */
  contended: boolean
  /** Streamed: the audio its listener still has to hear before this
   * sentence, in ms (0: due now), read as the task starts; it sets the
   * first chunk's size (planChunks). */
  leadMs: number
}

/** One decoder chunk's inputs, cut out of its sentence's latent (and the
 * other frame-aligned inputs) by the worker that encoded it, context margins
 * included. Their buffers are transferred at every step, never shared or
 * left behind: a latent is ~200 KB for a short sentence, and arrays a thread
 * no longer needs would otherwise wait for its next garbage collection, which
 * the few JS objects a worker makes rarely bring (measured: ~260 KB of RSS
 * a request until each thread's external-memory limit forced one). */
export interface ChunkInput extends SentenceEncoding {
  /** The chunk within the encoding's frames (the chunk and its margins); the margins are decoded and dropped. */
  range: FrameRange
}

export interface SentenceResult {
  /** The samples decoded so far: the whole sentence, or its first chunk. */
  samples?: Float32Array
  /** The chunks still to decode, in order. */
  chunks: ChunkInput[]
  /** The piece's samples in all, the chunks still to decode included: its
   * length is known from the encoder run, before its audio exists. */
  totalSamples: number
  missingPhonemes: number
  /** Each phoneme's frames (BOS and EOS included) and the samples a frame
   * makes: the piece's timing, from the encoder run that made its audio.
   * Absent for voices that run whole or give no durations. A few hundred
   * bytes; the arrays are transferred. */
  timing?: PhonemeFrames & { hopLength: number }
  /** The worker thread that ran it (for logs and tests of the spread). */
  worker: number
}

export interface DecodeTask extends Cancellable {
  kind: 'decode'
  chunk: ChunkInput
}

export interface DecodeResult {
  samples: Float32Array
  worker: number
}

/** Resolves once the worker has loaded its voice. */
export interface ReadyTask {
  kind: 'ready'
}

export type WorkerTask = SentenceTask | DecodeTask | ReadyTask

export interface ReadyResult {
  /** Resident memory of the process after this worker loaded its voice. */
  rss: number
  /** This worker's ArrayBuffer bytes, those awaiting collection included. */
  arrayBuffers: number
  mode: 'split' | 'whole'
  /** Split voices: `flow` when the flow runs in the chunks with the decoder,
   * `staged` when it runs on its own, else `decoder`. */
  cut?: ChunkingSettings['cut']
  /** Why it runs whole (or at the later cut), when this worker loaded the model. */
  reason?: string
  /** Heap bytes of the voice's sessions, once per process. */
  memoryBytes: number
  /** Its encoder runs on a session shared with the voices of its architecture. */
  encoderShared: boolean
  /** Peak of the warm-up sentence (seeds the streaming gain rule). */
  referencePeak: number
}
