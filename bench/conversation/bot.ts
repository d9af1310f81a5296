// One bot in a conversation benchmark: it is told a reply token by token,
// sends each sentence for speech as soon as its end arrives, plays the audio
// in order at real time after a jitter buffer, waits until its listener has
// heard it all, pauses and speaks again, until told to stop.

import { setTimeout as sleep } from 'node:timers/promises'
import type { Tenant } from '../../src/pool/tenant.js'
import { play, type AudioPiece } from './player.js'
import type { ReplySource } from './replies.js'
import type { SpeechTransport } from './transport.js'

/** One reply as its listener heard it. */
export interface ReplyResult {
  /** From the first sentence's end in the token stream to its first audio. */
  firstAudioMs: number
  underruns: number
  underrunMs: number
  audioMs: number
  /** Why the reply failed, if it did. */
  error?: string
}

export interface BotOptions {
  transport: SpeechTransport
  voice: string
  tenant?: Tenant
  replies: ReplySource
  jitterMs: number
  /** A pause of up to this long between replies (0: back to back). */
  maxPauseMs: number
  /** Aborted: no new reply starts; the one under way finishes. */
  stop: AbortSignal
  onReply: (result: ReplyResult) => void
}

export async function runBot (options: BotOptions): Promise<void> {
  // Bots start spread over a second, not in lockstep.
  await sleep(options.replies.pause(1000))
  while (!options.stop.aborted) {
    const result = await speakReply(options)
    options.onReply(result)
    if (result.error !== undefined) return
    await sleep(options.replies.pause(options.maxPauseMs))
  }
}

async function speakReply (options: BotOptions): Promise<ReplyResult> {
  const sentences = options.replies.next()
  const start = performance.now()
  try {
    const spoken = await Promise.all(sentences.map(async sentence => {
      await sleep(Math.max(0, start + sentence.endMs - performance.now()))
      const askedMs = performance.now()
      const audio = await options.transport.speak(sentence.text, options.voice, options.tenant)
      return audio.map((piece): AudioPiece => ({ ...piece, askedMs }))
    }))
    const playback = play(spoken.flat(), options.jitterMs)
    if (playback === null) throw new Error('no audio')
    const firstAudioMs = spoken.flat()[0].arrivedMs - (start + sentences[0].endMs)
    // The listener hears it all before the bot speaks again.
    await sleep(Math.max(0, playback.endMs - performance.now()))
    return {
      firstAudioMs,
      underruns: playback.underruns.length,
      underrunMs: playback.underruns.reduce((sum, u) => sum + u.durationMs, 0),
      audioMs: spoken.flat().reduce((sum, piece) => sum + piece.durationMs, 0)
    }
  } catch (error) {
    return { firstAudioMs: Number.NaN, underruns: 0, underrunMs: 0, audioMs: 0, error: error instanceof Error ? error.message : String(error) }
  }
}
