// What the listener heard of an answer that was cut short (barge-in): the
// words, from the timing the speech service already yields, and the audio
// handed to the client. The position heard is the one the client reports
// (its player knows); without one it is estimated as the time since the
// first audio left, less the client's jitter buffer, and never beyond the
// audio sent. Every protocol answers an interruption from one of these
// (docs/protocols.md); HTTP looks them up by request id (HeardRegistry).

import type { WordTiming } from './timing.js'

/** Milliseconds on a monotonic clock: the service's own, or a test's. */
export type PlaybackClock = () => number

/** What a client's player holds before it starts to play, when it does not
 * report its position: audio sent this recently has not been heard yet. */
export const JITTER_BUFFER_MS = 200

interface TimedWord { word: string, textStart: number, textEnd: number, endMs: number }

export interface Heard {
  /** How far the listener heard, in milliseconds from the first audio. */
  audio_played_ms: number
  /** Audio handed to the client, in milliseconds. */
  audio_sent_ms: number
  /** The last whole word heard, if any. */
  last_word: string | null
  /** The text up to the end of that word, and the text after it. */
  text_spoken: string
  text_remaining: string
}

export class HeardLog {
  private text = ''
  private readonly words: TimedWord[] = []
  private sentMs = 0
  private firstSentAt: number | undefined

  constructor (private readonly clock: PlaybackClock, private readonly bytesPerSecond?: number) {}

  /** A piece of text joins the answer: where it starts in the answer's text. */
  addText (text: string): number {
    if (this.text.length > 0 && text.length > 0) this.text += ' '
    const offset = this.text.length
    this.text += text
    return offset
  }

  /** Words of the text at `offset`, their samples counted from `originSample` on the answer's timeline. */
  addWords (offset: number, words: readonly WordTiming[], sampleRate: number, originSample = 0): void {
    for (const w of words) {
      this.words.push({ word: w.word, textStart: offset + w.textStart, textEnd: offset + w.textEnd, endMs: (originSample + w.endSample) * 1000 / sampleRate })
    }
  }

  /** Audio handed to the client: its bytes (raw formats), or the timeline it reaches (compressed ones). */
  sent (bytes: number, reachesMs: number): void {
    this.firstSentAt ??= this.clock()
    this.sentMs = this.bytesPerSecond === undefined ? Math.max(this.sentMs, reachesMs) : this.sentMs + bytes * 1000 / this.bytesPerSecond
  }

  /** What was heard at `playedMs` (the client's report), or at the estimated position. */
  heard (playedMs?: number): Heard {
    const estimate = this.firstSentAt === undefined ? 0 : this.clock() - this.firstSentAt - JITTER_BUFFER_MS
    const position = Math.max(0, Math.min(playedMs ?? estimate, this.sentMs))
    let last: TimedWord | undefined
    for (const word of this.words) if (word.endMs <= position && (last === undefined || word.textEnd > last.textEnd)) last = word
    // The punctuation after the last word heard was heard with it: the rest starts at the next word.
    const next = last === undefined ? -1 : this.text.slice(last.textEnd).search(/[\p{L}\p{N}]/u)
    const end = last === undefined ? 0 : next === -1 ? this.text.length : last.textEnd + next
    return {
      audio_played_ms: Math.round(position),
      audio_sent_ms: Math.round(this.sentMs),
      last_word: last?.word ?? null,
      text_spoken: this.text.slice(0, end).trimEnd(),
      text_remaining: this.text.slice(end).trim()
    }
  }
}

/** Heard logs of HTTP answers by tenant and request id, for GET /v1/heard/{id}.
 * Bounded as the playback registry is: the oldest go first past `maxEntries`. */
export class HeardRegistry {
  private readonly logs = new Map<string, HeardLog>()

  constructor (readonly clock: PlaybackClock, private readonly maxEntries = 4096) {}

  open (tenant: string, id: string, bytesPerSecond?: number): HeardLog {
    const log = new HeardLog(this.clock, bytesPerSecond)
    const name = `${tenant}\u0000${id}`
    this.logs.delete(name)
    this.logs.set(name, log)
    if (this.logs.size > this.maxEntries) this.logs.delete(this.logs.keys().next().value as string)
    return log
  }

  find (tenant: string, id: string): HeardLog | undefined {
    return this.logs.get(`${tenant}\u0000${id}`)
  }
}
