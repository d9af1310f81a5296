// Flags of `chorus bench mixed` and `chorus bench backlog`, checked once
// with the harness's flag readers (flags.ts), the conversation benchmarks'
// TalkConfig, and the one message format.

import { parseFlags, type FlagValues } from '../../src/shared/config-values.js'
import { outDir, parseTalkCommand, voiceTarget, type TalkConfig } from '../conversation/config.js'
import { integer, number, oneOf, range, subset, VOICE_FLAGS } from '../flags.js'
import { SCENARIOS, type Scenario } from '../conversation/level.js'
import { TRANSPORTS, type TransportName } from '../conversation/transport.js'

export interface MixedConfig extends TalkConfig {
  /** Streaming bots, on each transport in turn (a fresh service each). */
  bots: number
  transports: TransportName[]
  scenario: Scenario
  /** Closed-loop clients of whole answers, short and long in turn. */
  wholeClients: number
  /** Sentences of a long whole answer. */
  longSentences: { min: number, max: number }
  /** Short answers timed one by one on the idle service first. */
  idleRepeats: number
}

/** Without API keys, or all five requests under one key. */
export const KEY_MODES = ['none', 'one'] as const
export type KeyMode = typeof KEY_MODES[number]

export interface BacklogConfig {
  voiceDir: string
  voice: string
  /** Whole answers sent at once before the short one (issue 43: four). */
  longRequests: number
  /** Short sentences in each (issue 43: 250). */
  longSentences: number
  /** The short one's idle latency: the median of this many. */
  idleRepeats: number
  /** How long after the long answers the short one is sent. */
  delayMs: number
  keyModes: KeyMode[]
  seed: number
  quick: boolean
  outDir: string
  progress: boolean
}

function idleRepeats (values: FlagValues, quick: boolean): number {
  return integer(values, 'idle-repeats', 1, 100, quick ? 3 : 5)
}

export function parseMixedConfig (argv: readonly string[]): MixedConfig | 'help' {
  return parseTalkCommand(argv, 'mixed', {
    bots: { type: 'string' },
    transport: { type: 'string' },
    scenario: { type: 'string' },
    'whole-clients': { type: 'string' },
    'long-sentences': { type: 'string' },
    'idle-repeats': { type: 'string' }
  }, (values, quick) => ({
    bots: integer(values, 'bots', 1, 1024, 8),
    transports: subset(values, 'transport', 'transports', TRANSPORTS),
    scenario: oneOf(values, 'scenario', SCENARIOS, 'spread'),
    wholeClients: integer(values, 'whole-clients', 1, 64, 2),
    longSentences: range(values, 'long-sentences', 1, 100, { min: 10, max: 40 }),
    idleRepeats: idleRepeats(values, quick)
  }))
}

export function parseBacklogConfig (argv: readonly string[]): BacklogConfig | 'help' {
  const values = parseFlags(argv, {
    ...VOICE_FLAGS,
    'long-requests': { type: 'string' },
    'long-sentences': { type: 'string' },
    'idle-repeats': { type: 'string' },
    delay: { type: 'string' },
    keys: { type: 'string' }
  }, 'bench backlog')
  if (values.help === true) return 'help'
  const quick = values.quick === true
  return {
    ...voiceTarget(values),
    longRequests: integer(values, 'long-requests', 1, 64, 4),
    longSentences: integer(values, 'long-sentences', 1, 1000, 250),
    idleRepeats: idleRepeats(values, quick),
    delayMs: number(values, 'delay', 0, 60, 0.5) * 1000,
    keyModes: subset(values, 'keys', 'key modes', KEY_MODES),
    seed: integer(values, 'seed', 0, 2 ** 31 - 1, 1),
    quick,
    outDir: outDir(values, 'backlog'),
    progress: values.progress === true
  }
}
