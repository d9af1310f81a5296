// A ceiling: the same voice on the same machine, one worker thread per core
// each with one intra-op thread, running the model on the phoneme ids of the
// workload's own texts, with no HTTP in between. Its audio seconds per wall
// second is the most speech any server can make here with this workload; the
// sweep reports each level as a fraction of it. Two engines measure one
// (ceiling-worker.ts): onnxruntime-node on the unmodified model, the outside
// reference, and Chorus's own engine, reported against it. Measure while the
// service is stopped or idle, or they compete for the cores.

import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import { ChorusError, ConfigError } from '../src/errors.js'
import type { Env } from '../src/shared/config-values.js'
import type { CeilingEngine, EngineReply, EngineRequest, EngineWorkerData, PreparedText, SequentialRun } from './ceiling-worker.js'
import type { CeilingResult } from './results.js'
import { median } from './stats.js'
import type { SynthesisParams } from './workload.js'
import { workerStartOptions } from '../src/worker-start-options.js'

// From TypeScript sources the worker needs tsx registered first (as src/pool does).
const FROM_SOURCES = import.meta.url.endsWith('.ts')
const WORKER_FILE = new URL(FROM_SOURCES ? './dev-ceiling-worker.mjs' : './ceiling-worker.js', import.meta.url)

export interface EngineBenchOptions {
  /** Default: chorus. */
  engine?: CeilingEngine
  voices: Array<{ name: string, modelPath: string }>
  synthesis: SynthesisParams
  workers: number
  ortLibrary?: string
  espeakData?: string
}

/** Which prepared texts a throughput run takes its sentences from. */
export interface TextRange {
  first: number
  count: number
}

export interface ThroughputRun {
  audioSecondsPerSecond: number
  audioSeconds: number
  sentences: number
  wallMs: number
}

class EngineWorker {
  private waiting: { resolve: (reply: EngineReply) => void, reject: (error: Error) => void } | undefined
  private failure: Error | undefined

  constructor (readonly worker: Worker) {
    worker.on('message', (reply: EngineReply) => this.settle(reply))
    worker.on('error', error => this.fail(error))
    worker.on('exit', code => this.fail(new Error(`the engine worker exited with code ${code}`)))
  }

  /** The next reply: `ready` after loading, then one per request. */
  async next (): Promise<EngineReply> {
    if (this.failure !== undefined) throw this.failure
    const reply = await new Promise<EngineReply>((resolve, reject) => { this.waiting = { resolve, reject } })
    if (reply.kind === 'error') throw new ChorusError('ERR_BENCH_ENGINE', `Bare-engine worker failed: ${reply.message}`)
    return reply
  }

  async call (request: EngineRequest): Promise<EngineReply> {
    const reply = this.next()
    this.worker.postMessage(request)
    return await reply
  }

  private settle (reply: EngineReply): void {
    const waiting = this.waiting
    this.waiting = undefined
    waiting?.resolve(reply)
  }

  private fail (error: Error): void {
    this.failure ??= error
    const waiting = this.waiting
    this.waiting = undefined
    waiting?.reject(error)
  }
}

export class EngineBench {
  private prepared: PreparedText[] = []
  private sentencesPerText: number[] = []
  // Shared by the workers and kept across runs, so repeats go on through the
  // texts rather than timing the same first sentences again.
  private readonly counter = new SharedArrayBuffer(4)

  private constructor (private readonly workers: EngineWorker[], readonly options: EngineBenchOptions) {}

  /** Starts the workers; resolves once every one has loaded every voice. */
  static async start (options: EngineBenchOptions): Promise<EngineBench> {
    const data: EngineWorkerData = { engine: options.engine ?? 'chorus', voices: options.voices, synthesis: options.synthesis, ortLibrary: options.ortLibrary, espeakData: options.espeakData }
    const workers = Array.from({ length: options.workers }, () => new EngineWorker(new Worker(WORKER_FILE, { workerData: data, ...workerStartOptions() })))
    const bench = new EngineBench(workers, options)
    try {
      await Promise.all(workers.map(async worker => await worker.next()))
    } catch (error) {
      await bench.close()
      throw error
    }
    return bench
  }

  /** The chorus engine phonemizes the texts in every worker (outside any timing); returns sentences per text. */
  async prepare (texts: Array<{ voice: string, text: string }>): Promise<number[]> {
    const indexed = texts.map(({ voice, text }) => {
      const index = this.options.voices.findIndex(v => v.name === voice)
      if (index < 0) throw new Error(`Voice ${voice} was not loaded by the engine workers`)
      return { voice: index, text }
    })
    return await this.use({ kind: 'prepare', texts: indexed })
  }

  /** Another bench's prepared phoneme ids (its voices in the same order): the onnxruntime engine runs the chorus engine's inputs. */
  async prepareLike (other: EngineBench): Promise<number[]> {
    return await this.use({ kind: 'load-ids', texts: other.prepared })
  }

  private async use (request: Extract<EngineRequest, { kind: 'prepare' | 'load-ids' }>): Promise<number[]> {
    const replies = await Promise.all(this.workers.map(async worker => await worker.call(request)))
    this.prepared = (replies[0] as Extract<EngineReply, { kind: 'prepared' }>).texts
    this.sentencesPerText = this.prepared.map(text => text.sentences.length)
    Atomics.store(new Int32Array(this.counter), 0, 0)
    return this.sentencesPerText
  }

  /** Every worker at once on the sentences of the prepared texts in `range`, for durationMs. */
  async throughput (durationMs: number, range = this.allTexts()): Promise<ThroughputRun> {
    return await this.run({ durationMs, ...range })
  }

  /** Every worker at once on the sentences of the prepared texts in
   * `range`, each sentence once: a batch another engine can be given too. */
  async batch (range: TextRange): Promise<ThroughputRun> {
    Atomics.store(new Int32Array(this.counter), 0, 0)
    return await this.run({ durationMs: 0, once: true, ...range })
  }

  private async run (request: { durationMs: number, once?: boolean } & TextRange): Promise<ThroughputRun> {
    const counter = this.counter
    const start = performance.now()
    const replies = await Promise.all(this.workers.map(async worker => await worker.call({ kind: 'throughput', counter, ...request })))
    const wallMs = performance.now() - start
    let audioSeconds = 0
    let sentences = 0
    for (const reply of replies as Array<Extract<EngineReply, { kind: 'throughput' }>>) {
      audioSeconds += reply.audioSeconds
      sentences += reply.sentences
    }
    return { audioSecondsPerSecond: audioSeconds / (wallMs / 1000), audioSeconds, sentences, wallMs }
  }

  /** One worker runs one prepared text's sentences in order, `repeats` times; the others idle. */
  async sequential (text: number, repeats: number): Promise<SequentialRun[]> {
    const reply = await this.workers[0].call({ kind: 'sequential', text, repeats })
    return (reply as Extract<EngineReply, { kind: 'sequential' }>).runs
  }

  /** The ceiling: `repeats` throughput runs of `seconds` each; the median is the figure. */
  async ceiling (seconds: number, repeats: number, range = this.allTexts()): Promise<CeilingResult> {
    const runs: ThroughputRun[] = []
    for (let r = 0; r < repeats; r++) runs.push(await this.throughput(seconds * 1000, range))
    return this.ceilingOf(runs, seconds, range)
  }

  /** Sums up throughput runs made apart (e.g. interleaved with other measurements). */
  ceilingOf (runs: ThroughputRun[], seconds: number, range = this.allTexts()): CeilingResult {
    const audioSeconds = runs.reduce((sum, run) => sum + run.audioSeconds, 0)
    const sentences = runs.reduce((sum, run) => sum + run.sentences, 0)
    const perText = this.sentencesPerText.slice(range.first, range.first + range.count)
    const totalSentences = perText.reduce((sum, n) => sum + n, 0)
    return {
      engine: this.options.engine ?? 'chorus',
      audioSecondsPerSecond: median(runs.map(run => run.audioSecondsPerSecond)),
      repeatResults: runs.map(run => run.audioSecondsPerSecond),
      secondsPerRepeat: seconds,
      workers: this.workers.length,
      intraOpThreads: 1,
      voices: this.options.voices.map(v => v.name),
      texts: perText.length,
      sentences: totalSentences,
      audioSecondsPerText: sentences === 0 || perText.length === 0 ? 0 : audioSeconds / sentences * totalSentences / perText.length
    }
  }

  private allTexts (): TextRange {
    return { first: 0, count: this.sentencesPerText.length }
  }

  async close (): Promise<void> {
    await Promise.all(this.workers.map(async worker => await worker.worker.terminate()))
  }
}

/**
 * The outside ceiling alone, measured before any service starts so nothing
 * else competes for the cores: Chorus's engine phonemizes `texts` (outside
 * any timing), onnxruntime-node runs their ids, `repeats` runs of `seconds`.
 */
export async function outsideCeiling (target: { voiceDir: string, voice: string }, texts: string[],
  plan: { seconds: number, repeats: number, workers: number }, env: Env): Promise<CeilingResult> {
  return await withOutsideEngine(target, texts, plan.workers, env, async outside => await outside.ceiling(plan.seconds, plan.repeats))
}

/**
 * Bare onnxruntime-node with `workers` workers on the ids of `texts`
 * (Chorus's engine phonemizes them first, outside any timing), handed to
 * `use` for whatever it measures, and closed after.
 */
export async function withOutsideEngine<T> (target: { voiceDir: string, voice: string }, texts: string[], workers: number, env: Env,
  use: (outside: EngineBench) => Promise<T>): Promise<T> {
  const modelPath = join(target.voiceDir, `${target.voice}.onnx`)
  if (!existsSync(modelPath)) throw new ConfigError(`The ceiling needs the model ${modelPath}; pass --no-ceiling to go without`)
  const options = { voices: [{ name: target.voice, modelPath }], synthesis: {}, workers, ortLibrary: env.CHORUS_ORT_LIBRARY, espeakData: env.CHORUS_ESPEAK_DATA }
  const phonemizer = await EngineBench.start({ ...options, engine: 'chorus', workers: 1 })
  let outside: EngineBench | undefined
  try {
    await phonemizer.prepare(texts.map(text => ({ voice: target.voice, text })))
    outside = await EngineBench.start({ ...options, engine: 'onnxruntime' })
    await outside.prepareLike(phonemizer)
    return await use(outside)
  } finally {
    await Promise.all([phonemizer.close(), outside?.close()])
  }
}
