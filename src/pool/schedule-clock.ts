// One answer's playback clock: when its listener will need audio it has not
// been sent yet. The schedule (schedule.ts) reads it each time it picks, so
// a deadline moves as audio goes out, with no task re-queued.
//
// A stream: before its first audio, due at its arrival (a new answer's first
// audio goes ahead of every stream with audio still buffered). Then due when
// the listener runs out: playback starts `jitterMs` after the first audio was
// handed to the response (a player's jitter buffer; "sent" is the moment the
// audio is handed on, since the socket's own pace is the reader's) and runs
// at real time through the audio sent so far.
// A stream that plays after another (a reply's sentences, each its own
// request: PlaybackQueue below) is heard only once that one has played: its
// listener starts no earlier than the other's playback ends, and before its
// own first audio it is due then, not at its arrival. Without that, every
// sentence of a reply looked as urgent as the one being heard, and took the
// slots it needed (docs/engine.md, "Scheduling").
// A whole answer: as if a listener had started at its arrival, so it is due
// at arrival plus the audio made for it so far (see schedule.ts).

import { NEW_ANSWER_WAIT_MS, PROTECT_LEAD_MS, type Due } from './schedule.js'

/** How far ahead of need a task starts: the audio its listener still has to
 * hear before this task's first sample, in ms (0 when due or late). */
export function leadMs (due: Due, now: number): number {
  return Math.max(0, due.deadline() - now)
}

export class AnswerClock implements Due {
  readonly arrival: number
  private firstSent: number | undefined
  private samples = 0
  /** Samples known to come: those of every piece encoded so far. */
  private expected = 0
  private finished = false
  /** The answer heard before this one, until its playback's end is known for good. */
  private after: AnswerClock | undefined
  /** That answer's playback end, once it finished with audio. */
  private afterEnd: number | undefined

  constructor (
    private readonly now: () => number,
    readonly streamed: boolean,
    private readonly sampleRate: number,
    private readonly jitterMs: number,
    after?: AnswerClock
  ) {
    this.arrival = now()
    this.after = after
  }

  /** Audio handed on (a stream) or made (a whole answer), in order. */
  advance (samples: number): void {
    if (samples <= 0) return
    this.firstSent ??= this.now()
    this.samples += samples
  }

  /** `samples` more will come: a piece's length, estimated when it is queued
   * and corrected (by the difference, which may be negative) once its encoder run tells it. */
  expect (samples: number): void {
    this.expected = Math.max(0, this.expected + samples)
  }

  /** No more audio will come: its playback's end is fixed from here. */
  finish (): void {
    this.finished = true
  }

  lead (): number {
    return leadMs(this, this.now())
  }

  /** Goes ahead of new answers' first audio (schedule.ts): a stream whose
   * listener is hearing its reply (this answer or one before it in its
   * queue) and will run dry within PROTECT_LEAD_MS, or a new answer that
   * has waited NEW_ANSWER_WAIT_MS for its first audio. */
  urgent (): boolean {
    if (!this.streamed) return false
    if (this.hearing()) return this.lead() < PROTECT_LEAD_MS
    return this.now() - this.arrival >= NEW_ANSWER_WAIT_MS
  }

  /** A listener is hearing this answer, or one before it in its queue. */
  hearing (): boolean {
    return this.firstSent !== undefined || this.afterEnd !== undefined || (this.after?.hearing() ?? false)
  }

  /** Audio its listener has still to hear before this answer's first sample
   * that has not even been handed on: what the answers ahead of it in its
   * queue are known to have still to come. Unlike the lead, it does not
   * shrink when the service falls behind: a sentence heard after a long one
   * can be made in large chunks even then. */
  aheadMs (): number {
    const after = this.after
    if (after === undefined) return 0
    return after.unsentMs() + after.aheadMs()
  }

  private unsentMs (): number {
    return Math.max(0, this.expected - this.samples) / this.sampleRate * 1000
  }

  /** When the audio `offset` samples into this answer is due: its
   * listener's start plus that offset, or plus the audio handed on when
   * more (the sentence being handed on now). Before the first audio, a
   * later sentence is due as if that came now, so it never goes ahead of
   * the first sentence (sentence-deadlines.ts). */
  dueAt (offset: number): number {
    const offsetMs = offset / this.sampleRate * 1000
    const start = this.listenerStart()
    if (start !== undefined) return start + Math.max(offsetMs, this.audioSeconds * 1000)
    if (offset <= 0) return this.deadline()
    return Math.max(this.now(), this.deadline()) + this.jitterMs + offsetMs
  }

  /** Audio its listener hears before sample `offset` of this answer that
   * has not been handed on yet, in ms: what sizes a later sentence's first chunk. */
  aheadOfMs (offset: number): number {
    return Math.max(0, offset - this.samples) / this.sampleRate * 1000 + this.aheadMs()
  }

  /** The injected clock's time, for the deadlines read off this answer. */
  time (): number {
    return this.now()
  }

  /** Seconds of audio handed on so far. */
  get audioSeconds (): number {
    return this.samples / this.sampleRate
  }

  /** When the listener starts hearing this answer; undefined before its first audio. */
  listenerStart (): number | undefined {
    if (this.firstSent === undefined) return undefined
    const own = this.firstSent + this.jitterMs
    const before = this.playedBefore()
    return before === undefined ? own : Math.max(own, before)
  }

  /** When the listener will have heard all audio handed on so far. */
  playbackEnd (): number | undefined {
    const start = this.listenerStart()
    return start === undefined ? undefined : start + this.audioSeconds * 1000
  }

  /** When the listener will have heard everything known to come (audio
   * handed on, and the pieces encoded so far); before its first audio, as if
   * that came now. What an answer heard after this one goes by. */
  expectedEnd (): number {
    const start = this.listenerStart() ?? Math.max(this.now(), this.deadline()) + this.jitterMs
    return start + Math.max(this.samples, this.expected) / this.sampleRate * 1000
  }

  deadline (): number {
    const audioMs = this.audioSeconds * 1000
    if (!this.streamed) return this.arrival + audioMs
    const start = this.listenerStart()
    if (start !== undefined) return start + audioMs
    // Not heard before the answer ahead of it has played.
    return this.playedBefore() ?? this.arrival
  }

  /** When the answer ahead will have played, as far as it is known; kept as
   * a number once that answer has finished with audio, so chains stay one link long. */
  private playedBefore (): number | undefined {
    if (this.afterEnd !== undefined) return this.afterEnd
    const after = this.after
    if (after === undefined) return undefined
    const end = after.expectedEnd()
    if (after.finished && after.listenerStart() !== undefined) {
      this.afterEnd = end
      this.after = undefined
    }
    return end
  }
}

/**
 * Answers one listener hears one after another (a reply's sentences sent as
 * separate requests, or the pieces of a WebSocket context): each answer
 * joins the queue as it starts, and plays after the one that joined before
 * it.
 */
export class PlaybackQueue {
  private last: AnswerClock | undefined

  /** Its listener is hearing an answer of it, or will once what is made has played. */
  playing (): boolean {
    const last = this.last
    return last !== undefined && last.expectedEnd() > last.time()
  }

  /** The clock of the queue's next answer: it plays after the last one. */
  next (now: () => number, streamed: boolean, sampleRate: number, jitterMs: number): AnswerClock {
    const clock = new AnswerClock(now, streamed, sampleRate, jitterMs, this.last)
    this.last = clock
    return clock
  }
}
