// Flags of `chorus bench conversation` and `chorus bench fairness`, checked
// once with the harness's flag readers (flags.ts) and the one message format.

import { resolve } from 'node:path'
import { SCHEDULER_MODES, type SchedulerMode } from '../../src/pool/schedule.js'
import { CORES, parseFlags, type FlagSpecs, type FlagValues } from '../../src/shared/config-values.js'
import { isValidVoiceName } from '../../src/voices/voice-name.js'
import { fail, integer, number, range, raw, subset, VOICE_FLAGS } from '../flags.js'
import { SCENARIOS, type Scenario, type TalkSettings } from './level.js'
import { ALL_TRANSPORTS, TRANSPORTS, type TransportName } from './transport.js'

/** What every level talks with (TalkSettings but the scenario), and how the command runs. */
export interface TalkConfig extends Omit<TalkSettings, 'scenario'> {
  voiceDir: string
  schedulers: SchedulerMode[]
  quick: boolean
  outDir: string
  progress: boolean
}

export interface ConversationConfig extends TalkConfig {
  /** Bots per level. */
  levels: number[]
  /** Each on a fresh service per scheduler. */
  transports: TransportName[]
  /** Each at every level, on each transport's service. */
  scenarios: Scenario[]
  /** null: --no-ceiling. */
  ceiling: { seconds: number, repeats: number, workers: number } | null
}

export interface FairnessConfig extends TalkConfig {
  /** The busy tenant's bots, and the tenants with one bot each. */
  busyBots: number
  quietTenants: number
  /** Rounds of (alone, shared), alternating. */
  rounds: number
}

/** The talking commands' flags (TalkConfig's), which each spreads into its own. */
const COMMON: FlagSpecs = {
  ...VOICE_FLAGS,
  duration: { type: 'string' },
  jitter: { type: 'string' },
  pause: { type: 'string' },
  ramp: { type: 'string' },
  'tokens-per-second': { type: 'string' },
  sentences: { type: 'string' },
  schedulers: { type: 'string' }
}

function positiveIntegers (values: FlagValues, name: string, fallback: number[]): number[] {
  const value = raw(values, name)
  if (value === undefined) return fallback
  const parts = value.split(',').map(part => part.trim())
  if (!parts.every(part => /^\d+$/.test(part) && Number(part) >= 1 && Number(part) <= 1024)) fail('bot counts like 1,2,4,8 (1-1024)', `--${name}`, value)
  return [...new Set(parts.map(Number))].sort((a, b) => a - b)
}

/**
 * How long the bots' first replies are spread over, by default. A fleet's
 * conversations do not start in the same second: with bots back to back,
 * a reply starts at any time, so the conversation benchmark spreads the
 * first ones over about one reply (2–4 sentences of the corpus are ~12 s of
 * audio) and every level is near its steady state from the start. A start
 * burst (all bots within a second) is `--ramp 1`. The fairness benchmark
 * keeps one second: its quiet tenants' figures compare phases, not levels.
 * The mixed load spreads its bots as the conversation benchmark does.
 */
const DEFAULT_RAMP_SECONDS = { conversation: 12, fairness: 1, mixed: 12 }

/** --voices and --voice: the folder the in-process service serves, and the voice the bench speaks in. */
export function voiceTarget (values: FlagValues): { voiceDir: string, voice: string } {
  const voiceDir = raw(values, 'voices')
  if (voiceDir === undefined || voiceDir === '') fail('a folder of Piper voices', '--voices', voiceDir)
  const voice = raw(values, 'voice')
  if (!isValidVoiceName(voice)) fail('a voice name like en_US-lessac-medium', '--voice', voice)
  return { voiceDir: resolve(voiceDir), voice }
}

/** --out, or a folder named for the command and the time under bench-results/. */
export function outDir (values: FlagValues, command: string): string {
  return resolve(raw(values, 'out') ?? `bench-results/${command}-${new Date().toISOString().replace(/[:.]/g, '-')}`)
}

type TalkCommand = keyof typeof DEFAULT_RAMP_SECONDS

function talkConfig (values: FlagValues, command: TalkCommand, quick: boolean): TalkConfig {
  return {
    ...voiceTarget(values),
    durationMs: number(values, 'duration', 1, 3600, quick ? 5 : 60) * 1000,
    jitterMs: integer(values, 'jitter', 0, 10_000, 200),
    maxPauseMs: number(values, 'pause', 0, 60, 2) * 1000,
    rampMs: number(values, 'ramp', 0, 600, quick ? 1 : DEFAULT_RAMP_SECONDS[command]) * 1000,
    tokensPerSecond: range(values, 'tokens-per-second', 1, 1000, { min: 20, max: 50 }),
    sentences: range(values, 'sentences', 1, 20, { min: 2, max: 4 }),
    schedulers: subset(values, 'schedulers', 'schedulers', SCHEDULER_MODES),
    seed: integer(values, 'seed', 0, 2 ** 31 - 1, 1),
    quick,
    outDir: outDir(values, command),
    progress: values.progress === true
  }
}

/**
 * Parses a talking command's flags, COMMON's and its `own`: what every level
 * talks with, then the command's own settings as `settings` reads them;
 * 'help' for --help.
 */
export function parseTalkCommand<C> (argv: readonly string[], command: TalkCommand, own: FlagSpecs, settings: (values: FlagValues, quick: boolean) => C): (TalkConfig & C) | 'help' {
  const values = parseFlags(argv, { ...COMMON, ...own }, `bench ${command}`)
  if (values.help === true) return 'help'
  const quick = values.quick === true
  return { ...talkConfig(values, command, quick), ...settings(values, quick) }
}

export function parseConversationConfig (argv: readonly string[]): ConversationConfig | 'help' {
  return parseTalkCommand(argv, 'conversation', {
    bots: { type: 'string' },
    transport: { type: 'string' },
    scenarios: { type: 'string' },
    'ceiling-seconds': { type: 'string' },
    'ceiling-repeats': { type: 'string' },
    'no-ceiling': { type: 'boolean' }
  }, (values, quick) => ({
    levels: positiveIntegers(values, 'bots', quick ? [1, 2] : [1, 2, 4, 6, 8, 12, 16]),
    // Cartesia's and Deepgram's sockets only when named: the default set stays the benchmark's.
    transports: subset(values, 'transport', 'transports', ALL_TRANSPORTS, TRANSPORTS),
    scenarios: subset(values, 'scenarios', 'scenarios', SCENARIOS),
    ceiling: values['no-ceiling'] === true
      ? null
      : {
          seconds: number(values, 'ceiling-seconds', 0.5, 600, quick ? 1 : 8),
          repeats: integer(values, 'ceiling-repeats', 1, 20, quick ? 1 : 3),
          workers: CORES
        }
  }))
}

export function parseFairnessConfig (argv: readonly string[]): FairnessConfig | 'help' {
  return parseTalkCommand(argv, 'fairness', {
    'busy-bots': { type: 'string' },
    'quiet-tenants': { type: 'string' },
    rounds: { type: 'string' }
  }, (values, quick) => ({
    busyBots: integer(values, 'busy-bots', 1, 1024, 32),
    quietTenants: integer(values, 'quiet-tenants', 1, 64, 4),
    rounds: integer(values, 'rounds', 1, 20, quick ? 1 : 3)
  }))
}
