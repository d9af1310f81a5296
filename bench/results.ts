// results.json: what a run measured, in a form `chorus bench compare` and
// other tools can read back. Times are milliseconds, rates per second, sizes
// bytes; a figure that could not be measured is null (JSON has no NaN).

import { readFile } from 'node:fs/promises'
import { ConfigError } from '../src/errors.js'
import { expectedMessage, isPlainObject } from '../src/validate.js'
import type { CeilingEngine } from './ceiling-worker.js'
import type { Arrivals } from './open-loop.js'
import type { Percentiles } from './stats.js'
import type { SynthesisParams, VoiceWeight } from './workload.js'

export const RESULTS_SCHEMA = 'chorus-bench/1'

export interface MachineInfo {
  cpus: number
  cpuModel: string
  memoryBytes: number
  node: string
  platform: string
  arch: string
  /** 1, 5 and 15 minute load averages when the run started: a busy machine explains noisy figures. */
  loadAverage: number[]
}

/** A bare engine on the same voice and machine: no HTTP, no pool, one worker per core. */
export interface CeilingResult {
  /** onnxruntime-node on the unmodified model, or Chorus's engine; absent in older files: chorus. */
  engine?: CeilingEngine
  /** Median over the repeats: the most speech this machine makes with this workload. */
  audioSecondsPerSecond: number
  repeatResults: number[]
  secondsPerRepeat: number
  workers: number
  intraOpThreads: number
  voices: string[]
  texts: number
  sentences: number
  /** Mean seconds of audio per text: turns a share of the ceiling into requests per second. */
  audioSecondsPerText: number
}

export interface MeanMax {
  mean: number
  max: number
}

export interface ServerFigures {
  samples: number
  failedScrapes: number
  queueDepth: MeanMax | null
  pendingRequests: MeanMax | null
  rssBytes: MeanMax | null
  /** Counter increases over the level; null when the server has no such counter. */
  cacheHits: number | null
  cacheMisses: number | null
  /** Voice pools loaded and evicted during the level (many-voice workloads); null when not reported. */
  voiceLoads: number | null
  voiceEvictions: number | null
}

export type LoadModel = 'closed' | 'open'

export interface LevelResult {
  model: LoadModel
  /** Clients (closed loop) or requests per second offered (open loop). */
  load: number
  windowSeconds: number
  /** Requests due in the window, and how many of them succeeded. */
  requests: number
  ok: number
  /** Failures by HTTP status or error code ("503", "timeout", "ECONNRESET", …). */
  errors: Record<string, number>
  /** The first message seen for each failure key. */
  errorMessages: Record<string, string>
  /** Completions inside the window per second. */
  requestsPerSecond: number
  /** Each request's audio spread over its time in flight; the part inside the window, per second. */
  audioSecondsPerSecond: number
  charactersPerSecond: number
  bytesPerSecond: number
  /** audioSecondsPerSecond over the ceiling's; null without a ceiling. */
  ceilingFraction: number | null
  /** Successful requests only; failures are counted in `errors`. */
  latencyMs: Percentiles | null
  /** To the first byte of audio past the WAV header (GET /health: the first byte). */
  ttfbMs: Percentiles | null
  /** Per request: latency over audio duration. */
  realTimeFactor: Percentiles | null
  /** Open loop: how late the harness sent requests; large values mean the harness itself lagged. */
  sendLagMs: Percentiles | null
  server: ServerFigures | null
}

export type Endpoint = 'tts' | 'health'

/** What every results.json of a sweep, the targets and the fleet starts with (output.ts: resultsHeader). */
export interface ResultsHeader {
  schema: typeof RESULTS_SCHEMA
  label: string
  startedAt: string
  finishedAt: string
  machine: MachineInfo
}

export interface SweepResults extends ResultsHeader {
  kind: 'sweep'
  target: { url: string, inProcess: boolean, voiceDir: string | null, workersPerVoice: number | null }
  endpoint: Endpoint
  workload: {
    texts: 'corpus' | { file: string, lines: number }
    seed: number
    voices: VoiceWeight[]
    synthesis: SynthesisParams
    stream: boolean
    repeatRatio: number
  }
  load: {
    model: LoadModel
    arrivals: Arrivals | null
    warmupSeconds: number
    durationSeconds: number | null
    requestsPerLevel: number | null
    timeoutSeconds: number
  }
  /** The levels' reference: onnxruntime-node's when measured (older files: Chorus's engine). */
  ceiling: CeilingResult | null
  /** Chorus's engine alone in the same run, reported against `ceiling`; absent in older files. */
  engineCeiling?: CeilingResult | null
  levels: LevelResult[]
  notes: string[]
}

export interface TargetFigure {
  id: string
  figure: string
  /** The two measured sides, in words, e.g. "812 ms vs 760 ms". */
  measured: string
  ratio: number | null
  target: { op: '<=' | '>=', value: number }
  /** null when the figure could not be measured. */
  met: boolean | null
}

export interface TargetsResults extends ResultsHeader {
  kind: 'targets'
  voice: string
  modelBytes: number
  workersPerVoice: number
  ceiling: CeilingResult
  figures: TargetFigure[]
  /** Figures without a target that help read the others (e.g. the harness's own limit). */
  info: Array<{ figure: string, value: string }>
  notes: string[]
}

/** `chorus bench fleet`: many voices against one, and a voice's memory in a process of its own. */
export interface FleetResults extends ResultsHeader {
  kind: 'fleet'
  voice: string
  modelBytes: number
  voiceCount: number
  clients: number
  workersPerVoice: number
  figures: TargetFigure[]
  info: Array<{ figure: string, value: string }>
  notes: string[]
}

export type BenchResults = SweepResults | TargetsResults

/** Reads a results.json, checking enough of its shape to compare it safely. */
export async function readResults (path: string, flag: string): Promise<BenchResults> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    throw new ConfigError(`Cannot read ${flag} ${path}: ${(error as Error).message}`)
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new ConfigError(expectedMessage('a JSON results file', flag, path))
  }
  const what = `a ${RESULTS_SCHEMA} results file (results.json of chorus bench)`
  if (!isPlainObject(parsed) || parsed.schema !== RESULTS_SCHEMA) throw new ConfigError(expectedMessage(what, flag, path))
  if (parsed.kind === 'sweep' && Array.isArray(parsed.levels)) return parsed as unknown as SweepResults
  if (parsed.kind === 'targets' && Array.isArray(parsed.figures)) return parsed as unknown as TargetsResults
  throw new ConfigError(expectedMessage(what, flag, path))
}
