// A listener's player, as a conversation benchmark models it: a reply's audio
// is played in order at real time, starting a jitter buffer's time after its
// first audio arrived. Each piece of audio is known by when it arrived (or
// could have been asked for) and how long it plays; the player runs dry when
// it reaches audio that has not arrived. Pure, so the benchmark's arithmetic
// is tested apart from any timing.

/** A piece of a reply's audio, in play order. Times in milliseconds on one clock. */
export interface AudioPiece {
  arrivedMs: number
  durationMs: number
  /** When its text reached the bot (its request was sent): a gap before
   * then is the language model's, not the speech service's. */
  askedMs: number
}

export interface Underrun {
  /** Where in the reply's playback the player ran dry, in ms of audio played. */
  atAudioMs: number
  durationMs: number
}

export interface Playback {
  /** When playback started (the first arrival plus the jitter buffer). */
  startMs: number
  /** When the last piece finished playing. */
  endMs: number
  /** Gaps the speech service caused; shorter than `minGapMs` are not counted. */
  underruns: Underrun[]
}

/** Gaps shorter than this are below what a player's own scheduling resolves. */
const MIN_GAP_MS = 1

export function play (pieces: readonly AudioPiece[], jitterMs: number, minGapMs = MIN_GAP_MS): Playback | null {
  if (pieces.length === 0) return null
  const startMs = pieces[0].arrivedMs + jitterMs
  let clock = startMs
  let played = 0
  const underruns: Underrun[] = []
  for (const piece of pieces) {
    if (piece.arrivedMs > clock) {
      // Waiting for text the model had not written yet is not an underrun of the service's.
      const gap = piece.arrivedMs - Math.max(clock, piece.askedMs)
      if (gap >= minGapMs) underruns.push({ atAudioMs: played, durationMs: gap })
      clock = piece.arrivedMs
    }
    clock += piece.durationMs
    played += piece.durationMs
  }
  return { startMs, endMs: clock, underruns }
}
