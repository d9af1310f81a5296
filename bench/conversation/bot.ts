// One bot in a conversation benchmark: it is told a reply token by token,
// hands it to its transport as it arrives, plays the audio in order at real
// time after a jitter buffer, and waits until its listener has heard it all.
// In the spread scenario (runBot) it then pauses and speaks again, until
// told to stop; in the crowd scenario (crowd.ts) a conductor tells every bot
// when to speak.

import { setTimeout as sleep } from 'node:timers/promises'
import { play } from './player.js'
import type { ReplySource } from './replies.js'
import type { Speaker, SpeechTransport } from './transport.js'

/** One reply as its listener heard it. */
export interface ReplyResult {
  /** From when the text of its first audio was sent (the first sentence's
   * end in the token stream; the reply's start for a whole reply) to that audio. */
  firstAudioMs: number
  underruns: number
  underrunMs: number
  audioMs: number
  /** The bot's first reply: in the spread scenario the bots start within
   * the ramp (--ramp), so with a short one these arrive together and show
   * the start burst; in the crowd, the first line's replies. The rest are
   * the steady state. */
  first: boolean
  /** Why the reply failed, if it did. */
  error?: string
}

/** What one reply needs: who speaks, over what, and the listener's buffer. */
export interface SpeakOptions {
  transport: SpeechTransport
  speaker: Speaker
  replies: ReplySource
  jitterMs: number
}

export interface BotOptions extends SpeakOptions {
  /** A pause of up to this long between replies (0: back to back). */
  maxPauseMs: number
  /** The first reply starts at a random time within this long. */
  rampMs: number
  /** Aborted: no new reply starts; the one under way finishes. */
  stop: AbortSignal
  onReply: (result: ReplyResult) => void
}

/** The spread scenario's bot: replies back to back (with pauses) from a random start within the ramp. */
export async function runBot (options: BotOptions): Promise<void> {
  // Bots start spread over the ramp, not in lockstep.
  await sleep(options.replies.pause(options.rampMs))
  for (let first = true; !options.stop.aborted; first = false) {
    const result = await speakReply(options, first)
    options.onReply(result)
    if (result.error !== undefined) return
    await sleep(options.replies.pause(options.maxPauseMs))
  }
}

/** Speaks the bot's next reply; resolves once its listener has heard it all (or it failed). */
export async function speakReply (options: SpeakOptions, first: boolean): Promise<ReplyResult> {
  const reply = options.replies.next()
  const start = performance.now()
  try {
    const pieces = await options.transport.speak(reply, start, options.speaker)
    const playback = play(pieces, options.jitterMs)
    if (playback === null) throw new Error('no audio')
    const firstAudioMs = pieces[0].arrivedMs - (start + options.transport.firstTextMs(reply))
    // The listener hears it all before the bot speaks again.
    await sleep(Math.max(0, playback.endMs - performance.now()))
    return {
      firstAudioMs,
      underruns: playback.underruns.length,
      underrunMs: playback.underruns.reduce((sum, u) => sum + u.durationMs, 0),
      audioMs: pieces.reduce((sum, piece) => sum + piece.durationMs, 0),
      first
    }
  } catch (error) {
    return { firstAudioMs: Number.NaN, underruns: 0, underrunMs: 0, audioMs: 0, first, error: error instanceof Error ? error.message : String(error) }
  }
}
