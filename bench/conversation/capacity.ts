// What a conversation benchmark's levels add up to, per scheduler,
// transport and scenario: the capacity (the largest N whose listeners never
// ran dry), the same past each bot's first reply, and first audio at half
// the capacity, each against the run's bare ONNX Runtime ceilings. Pure.

import type { SchedulerMode } from '../../src/pool/schedule.js'
import type { CeilingResult } from '../results.js'
import type { BareFirstSentence } from './bare-ceiling.js'
import type { GroupFigures, Scenario } from './level.js'
import type { TransportName } from './transport.js'

export interface ConversationLevel extends GroupFigures {
  scheduler: SchedulerMode
  transport: TransportName
  scenario: Scenario
}

/** First audio at the level nearest half the capacity, and against a bare first sentence. */
export interface HalfCapacity {
  bots: number
  firstAudioP50Ms: number | null
  firstAudioP95Ms: number | null
  /** Over the bare first sentence's median; null without the ceiling. */
  p50Ratio: number | null
  p95Ratio: number | null
}

/** The largest N with no underrun and no error (0: none), per scheduler, transport and scenario. */
export interface ConversationCapacity {
  scheduler: SchedulerMode
  transport: TransportName
  scenario: Scenario
  bots: number
  /** The capacity is the largest level run: more bots may hold too. */
  atTopLevel: boolean
  /** The same counting only replies after each bot's first (a start burst left out). */
  steadyBots: number
  /** Bots over the bare ceiling's audio s/s (issue 30's count: a bot back to back hears ~1 audio s/s); null without it. */
  ceilingRatio: number | null
  /** null when the capacity is 0. */
  half: HalfCapacity | null
}

/** The largest bot count below the first level that `fails` (0: none), levels in any order. */
function largestPassing<L extends { bots: number }> (levels: readonly L[], fails: (level: L) => boolean): number {
  let capacity = 0
  for (const level of [...levels].sort((a, b) => a.bots - b.bots)) {
    if (fails(level)) break
    capacity = level.bots
  }
  return capacity
}

/** The largest bot count whose level had no underrun and no failed reply, below the first that had one. */
export function capacityOf (levels: ReadonlyArray<Pick<GroupFigures, 'bots' | 'underruns' | 'errors' | 'replies'>>): number {
  return largestPassing(levels, level => level.underruns > 0 || level.errors > 0 || level.replies === 0)
}

/** The largest bot count with no underrun after each bot's first reply
 * (and no failed reply), below the first that had one: the capacity once
 * the bots are under way (with a short --ramp, past the start burst). */
export function steadyCapacityOf (levels: ReadonlyArray<Pick<GroupFigures, 'bots' | 'laterUnderrunReplies' | 'laterReplies' | 'errors'>>): number {
  return largestPassing(levels, level => level.laterUnderrunReplies > 0 || level.errors > 0 || level.laterReplies === 0)
}

/** The largest level at or below half the capacity (a capacity of 1: that level); undefined when the capacity is 0. */
export function halfCapacityLevel<L extends { bots: number }> (levels: readonly L[], capacity: number): L | undefined {
  const half = Math.max(1, capacity / 2)
  return [...levels].filter(level => level.bots <= half && level.bots <= capacity).sort((a, b) => b.bots - a.bots)[0]
}

/** The capacity of one scheduler, transport and scenario's levels, against the ceilings. */
export function capacityFigures (levels: readonly ConversationLevel[], throughput: CeilingResult | null, firstSentence: BareFirstSentence | null): Omit<ConversationCapacity, 'scheduler' | 'transport' | 'scenario'> {
  const bots = capacityOf(levels)
  const half = halfCapacityLevel(levels, bots)
  const over = (ms: number | null | undefined): number | null => ms === null || ms === undefined || firstSentence === null ? null : ms / firstSentence.ms
  return {
    bots,
    atTopLevel: bots > 0 && bots === Math.max(...levels.map(level => level.bots)),
    steadyBots: steadyCapacityOf(levels),
    ceilingRatio: throughput === null ? null : bots / throughput.audioSecondsPerSecond,
    half: half === undefined
      ? null
      : { bots: half.bots, firstAudioP50Ms: half.firstAudioP50Ms, firstAudioP95Ms: half.firstAudioP95Ms, p50Ratio: over(half.firstAudioP50Ms), p95Ratio: over(half.firstAudioP95Ms) }
  }
}
