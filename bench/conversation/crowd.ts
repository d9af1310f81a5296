// The crowd scenario of the conversation benchmark: a group chat. A line is
// heard, and every bot replies to it, each starting within CROWD_SPREAD_MS
// of the line; when every reply has been heard, and after a pause of up to
// --pause, the next line comes, until the level's time is up (the round
// under way finishes). A bot whose reply failed leaves the chat. Beside it
// the spread scenario (bot.ts runBot): each bot on its own, first replies
// spread over --ramp.
//
// The clock is handed in, so a test can run the rounds on a clock of its own.

import { setTimeout as sleep } from 'node:timers/promises'
import type { Rng } from '../corpus.js'

/** Every bot answers a line within this long of each other (issue 43: "within 200 ms"). */
export const CROWD_SPREAD_MS = 200

export interface CrowdClock {
  now: () => number
  sleep: (ms: number) => Promise<void>
}

export const REAL_CLOCK: CrowdClock = {
  now: () => performance.now(),
  sleep: async ms => { await sleep(ms) }
}

/** A bot of the crowd: speaks its reply to the line; resolves once its listener heard it, false if it failed. */
export type CrowdBot = (first: boolean) => Promise<boolean>

export interface CrowdOptions {
  bots: readonly CrowdBot[]
  /** Each bot starts at a random time in [line, line + spreadMs). */
  spreadMs: number
  /** The pause after a round's replies, random in [0, maxPauseMs). */
  maxPauseMs: number
  rng: Rng
  clock: CrowdClock
  /** Aborted: no new line comes; the round under way finishes. */
  stop: AbortSignal
}

/** When each of `count` bots starts after the line, in [0, spreadMs). */
export function crowdOffsets (rng: Rng, count: number, spreadMs: number): number[] {
  return Array.from({ length: count }, () => rng.next() * spreadMs)
}

/** Runs lines until stopped or every bot has left; resolves with the number of lines. */
export async function runCrowd (options: CrowdOptions): Promise<number> {
  let present = [...options.bots]
  for (let lines = 0; ; lines++) {
    if (options.stop.aborted || present.length === 0) return lines
    if (lines > 0) {
      await options.clock.sleep(options.rng.next() * options.maxPauseMs)
      // Stopped during the pause: that line never comes.
      if (options.stop.aborted) return lines
    }
    const offsets = crowdOffsets(options.rng, present.length, options.spreadMs)
    const first = lines === 0
    const stayed = await Promise.all(present.map(async (bot, i) => {
      await options.clock.sleep(offsets[i])
      return await bot(first)
    }))
    present = present.filter((_, i) => stayed[i])
  }
}
