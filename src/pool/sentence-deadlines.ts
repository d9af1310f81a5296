// A deadline for every sentence of one streamed answer. Its listener hears
// the sentences in order, so sentence k is due when the listener runs out
// of the audio of sentences 0..k-1: the rule `after` applies between
// requests (schedule-clock.ts), applied within one. Before a sentence's
// encoder run tells its length, its phonemes estimate it (the voice's
// measured samples per phoneme, or a conservative constant).
//
// Without it every sentence of an answer carried the answer's one deadline:
// before the first audio all were due at the arrival, so a burst of short
// replies ran each reply's later sentences ahead of the next reply's first,
// and a later sentence's first chunk was cut as if due now.

import { PROTECT_LEAD_MS, type Due } from './schedule.js'
import type { AnswerClock } from './schedule-clock.js'

export class SentenceDeadlines {
  /** Samples known or estimated to come, per sentence. */
  private readonly expected: number[] = []

  constructor (private readonly clock: AnswerClock) {}

  /** `samples` more (an estimate, or the correction once the encoder tells; may be negative) in `sentence`. */
  expect (sentence: number, samples: number): void {
    this.expected[sentence] = Math.max(0, (this.expected[sentence] ?? 0) + samples)
  }

  /** Samples the listener hears before `sentence`'s first. */
  offset (sentence: number): number {
    let sum = 0
    for (let k = 0; k < sentence; k++) sum += this.expected[k] ?? 0
    return sum
  }

  /** When `sentence`'s next audio is due, read afresh at every pick. */
  due (sentence: number): Due {
    const clock = this.clock
    const deadline = (): number => clock.dueAt(this.offset(sentence))
    const lead = (): number => Math.max(0, deadline() - clock.time())
    return {
      streamed: true,
      deadline,
      lead,
      aheadMs: () => clock.aheadOfMs(this.offset(sentence)),
      // Heard soon: as a stream about to run dry. Not yet heard: only the
      // first sentence waits as a new answer's first audio does.
      urgent: () => clock.hearing() ? lead() < PROTECT_LEAD_MS : sentence === 0 && clock.urgent()
    }
  }
}
