// `chorus bench` flags → one typed configuration, checked once here with the
// harness's flag readers (flags.ts: the shared kit's flag parsing, trimming
// and messages, as `chorus tools` and `chorus spawner` use them). A bad flag
// is a ConfigError (exit code 2) in the project's one message format:
//   Expected <what> for <flag> but received <value> (<type>)
// Synthesis options take the engine's own LIMITS, so the harness cannot
// accept a value the service would refuse, or refuse one it accepts.

import { statSync } from 'node:fs'
import { resolve } from 'node:path'
import { LIMITS } from '../src/engine/synthesis-config.js'
import { CORES, parseCommandLine, parseFlags, type FlagSpecs, type FlagValues } from '../src/shared/config-values.js'
import { isValidVoiceName } from '../src/voices/voice-name.js'
import { BENCH_FORMATS, type BenchFormat } from './audio-meter.js'
import { fail, integer, nonEmpty, number, oneOf, OUTPUT_FLAGS, VOICE_FLAGS } from './flags.js'
import type { Arrivals } from './open-loop.js'
import type { Endpoint, LoadModel } from './results.js'
import type { SynthesisParams, VoiceWeight } from './workload.js'


/** A closed-loop concurrency, an open-loop rate, or a share of the ceiling turned into a rate. */
export type LoadLevel =
  | { kind: 'concurrency', value: number }
  | { kind: 'rate', value: number }
  | { kind: 'ceiling-share', value: number }

export interface RunConfig {
  /** Drive this service; null: start one in-process over voiceDir. */
  url: string | null
  /** Voices to serve (in-process) and to load for the ceiling; null with --url alone (no ceiling). */
  voiceDir: string | null
  /** null: the service's default voice. */
  voices: VoiceWeight[] | null
  /** --voices-count: the one --voice installed under this many names, sent round-robin. */
  voiceCopies: number | null
  endpoint: Endpoint
  model: LoadModel
  levels: LoadLevel[]
  arrivals: Arrivals
  warmupSeconds: number
  durationSeconds: number | null
  requests: number | null
  timeoutSeconds: number
  maxInFlight: number
  textFile: string | null
  seed: number
  repeatRatio: number
  stream: boolean
  /** The audio format POST /tts asks for. */
  format: BenchFormat
  synthesis: SynthesisParams
  /** null: no ceiling measured. */
  ceiling: { seconds: number, repeats: number, workers: number } | null
  outDir: string
  label: string
  progress: boolean
  scrapeIntervalMs: number
}

/** What targets, fleet and profile share: the voice they measure, the seed, and where the results go. */
interface VoiceRunConfig {
  voiceDir: string
  voice: string
  seed: number
  outDir: string
  label: string
  progress: boolean
}

export interface TargetsConfig extends VoiceRunConfig {
  /** Shorter phases: a smoke run whose figures are rough. */
  quick: boolean
}

export interface FleetConfig extends VoiceRunConfig {
  /** Names the voice is installed under for the mix (and the churn). */
  count: number
  clients: number
  /** Load/unload cycles before the idle RSS is read. */
  cycles: number
  quick: boolean
}

export interface ProfileConfig extends VoiceRunConfig {
  clients: number
  rounds: number
  durationSeconds: number
  warmupSeconds: number
  ceilingSeconds: number
}

const DEFAULTS = {
  concurrency: [1, 2, 4, 8],
  healthConcurrency: [1, 8, 32],
  durationSeconds: 15,
  warmupSeconds: 3,
  timeoutSeconds: 60,
  maxInFlight: 512,
  seed: 1,
  ceilingSeconds: 8,
  ceilingRepeats: 3,
  scrapeSeconds: 1
}

/** More copies than this would measure the disk, not the fleet. */
const MAX_VOICE_COPIES = 64

const RUN_OPTIONS: FlagSpecs = {
  url: { type: 'string' },
  voices: { type: 'string' },
  voice: { type: 'string' },
  'voices-count': { type: 'string' },
  endpoint: { type: 'string' },
  concurrency: { type: 'string' },
  rate: { type: 'string' },
  arrivals: { type: 'string' },
  duration: { type: 'string' },
  requests: { type: 'string' },
  warmup: { type: 'string' },
  timeout: { type: 'string' },
  'max-in-flight': { type: 'string' },
  'text-file': { type: 'string' },
  seed: { type: 'string' },
  repeat: { type: 'string' },
  stream: { type: 'boolean' },
  format: { type: 'string' },
  speaker: { type: 'string' },
  'length-scale': { type: 'string' },
  'noise-scale': { type: 'string' },
  'noise-w': { type: 'string' },
  'sentence-silence': { type: 'string' },
  'ceiling-seconds': { type: 'string' },
  'ceiling-repeats': { type: 'string' },
  'ceiling-workers': { type: 'string' },
  'no-ceiling': { type: 'boolean' },
  'scrape-interval': { type: 'string' },
  label: { type: 'string' },
  ...OUTPUT_FLAGS
}

/** Targets', fleet's and profile's: VOICE_FLAGS and --label, then each command's own. */
const VOICE_RUN_OPTIONS: FlagSpecs = { ...VOICE_FLAGS, label: { type: 'string' } }

const FLEET_OPTIONS: FlagSpecs = {
  ...VOICE_RUN_OPTIONS,
  count: { type: 'string' },
  clients: { type: 'string' },
  cycles: { type: 'string' }
}

const PROFILE_OPTIONS: FlagSpecs = {
  ...VOICE_RUN_OPTIONS,
  clients: { type: 'string' },
  rounds: { type: 'string' },
  duration: { type: 'string' },
  warmup: { type: 'string' },
  'ceiling-seconds': { type: 'string' }
}

const DECIMAL = /^\d+(?:\.\d+)?$/

/** A synthesis option, within the engine's own accepted range. */
function synthesisNumber (values: FlagValues, name: string, range: { min: number, max: number }): number | undefined {
  return number(values, name, range.min, range.max, null) ?? undefined
}

/** `en_US-a-medium:3,en_GB-b-medium:1` → names with weights (default 1). */
function voiceMix (raw: string): VoiceWeight[] {
  const what = 'voice names with optional weights, like en_US-lessac-medium:3,en_GB-alba-medium'
  const mix = raw.split(',').map(part => {
    const [name, weight, extra] = part.trim().split(':')
    const value = weight === undefined ? 1 : DECIMAL.test(weight) ? Number(weight) : Number.NaN
    if (!isValidVoiceName(name) || extra !== undefined || !(value > 0)) fail(what, '--voice', raw)
    return { name, weight: value }
  })
  if (new Set(mix.map(v => v.name)).size !== mix.length) fail(`${what}, each once`, '--voice', raw)
  return mix
}

/** A comma-separated list, each item checked by `item`. */
function list<T> (raw: string, flag: string, what: string, item: (part: string) => T | undefined): T[] {
  const parts = raw.split(',').map(part => part.trim())
  const items = parts.map(item)
  if (parts.length === 0 || items.some(value => value === undefined)) fail(what, flag, raw)
  return items as T[]
}

function loadLevels (values: FlagValues, endpoint: Endpoint): { model: LoadModel, levels: LoadLevel[] } {
  const concurrency = nonEmpty(values, 'concurrency')
  const rate = nonEmpty(values, 'rate')
  if (concurrency !== null && rate !== null) fail('either --concurrency or --rate, not both', '--rate', rate)
  if (rate !== null) {
    const levels = list<LoadLevel>(rate, '--rate', 'requests per second, or shares of the ceiling like 70%, comma-separated', part => {
      const share = /^(\d+(?:\.\d+)?)%$/.exec(part)
      if (share !== null) return Number(share[1]) > 0 ? { kind: 'ceiling-share', value: Number(share[1]) / 100 } : undefined
      return DECIMAL.test(part) && Number(part) > 0 ? { kind: 'rate', value: Number(part) } : undefined
    })
    if (endpoint === 'health' && levels.some(level => level.kind === 'ceiling-share')) {
      fail('requests per second (GET /health has no ceiling)', '--rate', rate)
    }
    return { model: 'open', levels }
  }
  const counts = concurrency === null
    ? (endpoint === 'health' ? DEFAULTS.healthConcurrency : DEFAULTS.concurrency)
    : list(concurrency, '--concurrency', 'positive integers up to 4096, comma-separated', part => {
      const value = /^\d+$/.test(part) ? Number(part) : Number.NaN
      return value >= 1 && value <= 4096 ? value : undefined
    })
  return { model: 'closed', levels: counts.map(value => ({ kind: 'concurrency', value })) }
}

function synthesisParams (values: FlagValues): SynthesisParams {
  const speakerRaw = nonEmpty(values, 'speaker')
  let speaker: number | string | undefined
  if (speakerRaw !== null) speaker = /^\d+$/.test(speakerRaw) ? Number(speakerRaw) : speakerRaw
  const params: SynthesisParams = {
    speaker,
    lengthScale: synthesisNumber(values, 'length-scale', LIMITS.lengthScale),
    noiseScale: synthesisNumber(values, 'noise-scale', LIMITS.noiseScale),
    noiseW: synthesisNumber(values, 'noise-w', LIMITS.noiseW),
    sentenceSilence: synthesisNumber(values, 'sentence-silence', LIMITS.sentenceSilence)
  }
  // Unset fields stay out of results.json and of request bodies.
  return Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined))
}

function timestamp (): string {
  return new Date().toISOString().replace(/[:.]/g, '-').replace(/-\d{3}Z$/, 'Z')
}

type VoiceRunCommand = 'targets' | 'fleet' | 'profile'

/** --out (default: under bench-results/, named for the command and the time) and --label (default: the folder's name). */
function output (values: FlagValues, command: 'run' | VoiceRunCommand): { outDir: string, label: string } {
  const outDir = nonEmpty(values, 'out') ?? `bench-results/${command === 'run' ? '' : `${command}-`}${timestamp()}`
  return { outDir: resolve(outDir), label: nonEmpty(values, 'label') ?? outDir.split('/').filter(Boolean).pop() ?? command }
}

function voiceRun (values: FlagValues, command: VoiceRunCommand): VoiceRunConfig {
  const voiceDir = nonEmpty(values, 'voices')
  if (voiceDir === null) fail('a folder of Piper voices', '--voices', undefined)
  const voice = nonEmpty(values, 'voice')
  if (!isValidVoiceName(voice)) fail('a voice name like en_US-lessac-medium', '--voice', voice ?? undefined)
  return {
    voiceDir: resolve(voiceDir),
    voice,
    seed: integer(values, 'seed', 0, 2 ** 32 - 1, DEFAULTS.seed),
    ...output(values, command),
    progress: values.progress === true
  }
}

export function parseRunConfig (argv: readonly string[]): RunConfig | 'help' {
  const values = parseFlags(argv, RUN_OPTIONS, 'bench')
  if (values.help === true) return 'help'
  const url = nonEmpty(values, 'url')
  if (url !== null && !/^http:\/\/[^/?#\s]+(\/[^?#\s]*)?$/.test(url)) fail('an http:// URL like http://127.0.0.1:8995', '--url', url)
  const voiceDir = nonEmpty(values, 'voices')
  if (url === null && voiceDir === null) fail('a URL to drive (or --voices DIR to start a service)', '--url', undefined)
  const endpoint = oneOf<Endpoint>(values, 'endpoint', ['tts', 'health'], 'tts')
  const { model, levels } = loadLevels(values, endpoint)
  const requests = integer(values, 'requests', 1, 10_000_000, null)
  const duration = number(values, 'duration', 0.1, 86_400, null)
  if (requests !== null && duration !== null) fail('either --duration or --requests, not both', '--requests', values.requests)
  const voiceRaw = nonEmpty(values, 'voice')
  const noCeiling = values['no-ceiling'] === true || endpoint === 'health'
  const voiceCopies = integer(values, 'voices-count', 1, MAX_VOICE_COPIES, null)
  if (voiceCopies !== null) {
    // The copies are made in a folder the in-process service then serves.
    if (url !== null || voiceDir === null) fail('--voices DIR without --url (the copies are served in-process)', '--voices-count', values['voices-count'])
    if (voiceRaw === null || voiceRaw.includes(',') || voiceRaw.includes(':')) fail('one voice name to copy, like en_US-lessac-medium', '--voice', voiceRaw ?? undefined)
  }
  const { outDir, label } = output(values, 'run')
  const config: RunConfig = {
    url: url?.replace(/\/+$/, '') ?? null,
    voiceDir: voiceDir === null ? null : resolve(voiceDir),
    voices: voiceRaw === null ? null : voiceMix(voiceRaw),
    voiceCopies,
    endpoint,
    model,
    levels,
    arrivals: oneOf<Arrivals>(values, 'arrivals', ['constant', 'poisson'], 'constant'),
    warmupSeconds: number(values, 'warmup', 0, 3600, DEFAULTS.warmupSeconds),
    durationSeconds: requests === null ? (duration ?? DEFAULTS.durationSeconds) : null,
    requests,
    timeoutSeconds: number(values, 'timeout', 0.1, 3600, DEFAULTS.timeoutSeconds),
    maxInFlight: integer(values, 'max-in-flight', 1, 100_000, DEFAULTS.maxInFlight),
    textFile: nonEmpty(values, 'text-file'),
    seed: integer(values, 'seed', 0, 2 ** 32 - 1, DEFAULTS.seed),
    repeatRatio: number(values, 'repeat', 0, 1, 0),
    stream: values.stream === true,
    format: oneOf<BenchFormat>(values, 'format', BENCH_FORMATS, 'wav'),
    synthesis: synthesisParams(values),
    ceiling: noCeiling
      ? null
      : {
          seconds: number(values, 'ceiling-seconds', 0.5, 3600, DEFAULTS.ceilingSeconds),
          repeats: integer(values, 'ceiling-repeats', 1, 100, DEFAULTS.ceilingRepeats),
          workers: integer(values, 'ceiling-workers', 1, 256, CORES)
        },
    outDir,
    label,
    progress: values.progress === true,
    scrapeIntervalMs: number(values, 'scrape-interval', 0.1, 60, DEFAULTS.scrapeSeconds) * 1000
  }
  if (levels.some(level => level.kind === 'ceiling-share') && (config.ceiling === null || config.voiceDir === null)) {
    fail('requests per second: shares of the ceiling need the ceiling (--voices, no --no-ceiling)', '--rate', values.rate)
  }
  return config
}

export function parseTargetsConfig (argv: readonly string[]): TargetsConfig | 'help' {
  const values = parseFlags(argv, VOICE_RUN_OPTIONS, 'bench targets')
  if (values.help === true) return 'help'
  return { ...voiceRun(values, 'targets'), quick: values.quick === true }
}

export function parseFleetConfig (argv: readonly string[]): FleetConfig | 'help' {
  const values = parseFlags(argv, FLEET_OPTIONS, 'bench fleet')
  if (values.help === true) return 'help'
  return {
    ...voiceRun(values, 'fleet'),
    // At least 3: with two loaded at most, round-robin over three makes every request a load.
    count: integer(values, 'count', 3, MAX_VOICE_COPIES, 8),
    clients: integer(values, 'clients', 1, 256, 4),
    cycles: integer(values, 'cycles', 2, 1000, 30),
    quick: values.quick === true
  }
}

export function parseProfileConfig (argv: readonly string[]): ProfileConfig | 'help' {
  const values = parseFlags(argv, PROFILE_OPTIONS, 'bench profile')
  if (values.help === true) return 'help'
  const quick = values.quick === true
  return {
    ...voiceRun(values, 'profile'),
    // Two clients per core: a core's next sentence is queued while it runs one.
    clients: integer(values, 'clients', 1, 1024, 2 * CORES),
    rounds: integer(values, 'rounds', 1, 100, quick ? 1 : 3),
    durationSeconds: integer(values, 'duration', 1, 3600, quick ? 5 : 40),
    warmupSeconds: integer(values, 'warmup', 0, 600, quick ? 1 : 5),
    ceilingSeconds: integer(values, 'ceiling-seconds', 1, 3600, quick ? 2 : 15)
  }
}

/**
 * --voices names a folder that exists. Checked before a run, not by the
 * parsers above, which stay free of the file system: a missing folder would
 * otherwise start a service with only the built-in voice, and the run end in
 * "Voice … is not served by the service".
 */
export function checkVoiceFolder (voiceDir: string | null): void {
  if (voiceDir === null) return
  const stats = statSync(voiceDir, { throwIfNoEntry: false })
  if (stats === undefined) fail(`a folder of Piper voices (${voiceDir} does not exist)`, '--voices', voiceDir)
  if (!stats.isDirectory()) fail(`a folder of Piper voices (${voiceDir} is not a folder)`, '--voices', voiceDir)
}

/** `chorus bench compare a.json b.json`: exactly two files, no flags but --help. */
export function parseCompareArgs (argv: readonly string[]): { a: string, b: string } | 'help' {
  const { values, positionals } = parseCommandLine(argv, { help: { type: 'boolean' } }, 'bench compare', true)
  if (values.help === true) return 'help'
  if (positionals.length !== 2) fail('two results.json files', 'chorus bench compare', positionals)
  return { a: positionals[0], b: positionals[1] }
}
