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

  /** When the audio `within` samples into `sentence` is due (0: its
   * first), read afresh at every pick. A sentence's later decoder chunks
   * each have their own: all at the sentence's start, a chunk the listener
   * needs seconds from now outranked another answer's audio due sooner. */
  due (sentence: number, within = 0): Due {
    const clock = this.clock
    const at = (): number => this.offset(sentence) + within
    const deadline = (): number => clock.dueAt(at())
    const lead = (): number => Math.max(0, deadline() - clock.time())
    return {
      streamed: true,
      deadline,
      lead,
      aheadMs: () => clock.aheadOfMs(at()),
      // Heard soon: as a stream about to run dry. Not yet heard: only the
      // first sentence's first audio waits as a new answer's does.
      urgent: () => clock.hearing() ? lead() < PROTECT_LEAD_MS : sentence === 0 && within === 0 && clock.urgent()
    }
  }
}
