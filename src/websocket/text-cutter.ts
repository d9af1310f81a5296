// A context's text, cut into pieces to speak as early as is safe, never
// inside a word. In order of preference:
//   1. at sentence ends, as soon as they arrive: the sentence segmenter the
//      built-in voice uses for /tts (Intl.Segmenter), so a sentence sent here
//      is spoken as /tts speaks it. A sentence counts as ended when another
//      one follows it, or when it ends in terminal punctuation followed by
//      whitespace (token streams send "Hello world." then " How").
//   2. when the buffer reaches the next length of chunk_length_schedule
//      (ElevenLabs' generation_config), at the last word boundary;
//   3. on flush (everything, the client says its text is complete);
//   4. after a bounded wait without new text (TTS_WS_TEXT_WAIT_MS): up to the
//      last word boundary, or everything if it ends in terminal punctuation.
// auto_mode skips the schedule: each message is cut at its last word
// boundary at once (ElevenLabs: for clients that send whole phrases).
// No cut falls inside inline phonemes (`[[ … ]]`), nor, for SSML
// (enable_ssml_parsing), inside a tag or an element that is still open: a
// piece is always markup that can be read on its own, and a document sent
// whole (`<speak>…</speak>`) is one piece.
// Pure: the caller owns the clock.

const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' })
const ENDED = /[.!?…。！？]["'”’)\]]*\s+$/u
const TERMINAL = /[.!?…。！？]["'”’)\]]*$/u

/** ElevenLabs' default schedule, in characters. */
export const DEFAULT_SCHEDULE: readonly number[] = [120, 160, 250, 290]
/** try_trigger_generation cuts only with at least this much text (the
 * smallest length a schedule may hold). */
export const TRIGGER_MINIMUM = 50

export interface CutterOptions {
  schedule: readonly number[]
  autoMode: boolean
  /** The text is SSML: cuts only between whole elements. */
  ssml?: boolean
}

/** The latest cut at or before `end` that leaves no `[[` block open (nor,
 * for SSML, a tag or an element), or 0 when there is none. */
export function safeCut (text: string, end: number, ssml: boolean): number {
  let safe = 0
  let depth = 0
  let inTag = false
  let inBlock = false
  for (let i = 0; i < end; i++) {
    if (!inBlock && !inTag && text.startsWith('[[', i) && text[i - 1] !== '\\') inBlock = true
    else if (inBlock && text.startsWith(']]', i)) {
      inBlock = false
      i++
    } else if (ssml && !inBlock && text[i] === '<') {
      inTag = true
      if (text[i + 1] === '/') depth--
      else if (text[i + 1] !== '!' && text[i + 1] !== '?') depth++
    } else if (ssml && inTag && text[i] === '>') {
      inTag = false
      if (text[i - 1] === '/') depth--
    }
    if (!inBlock && !inTag && depth <= 0) safe = i + 1
  }
  return safe
}

export class TextCutter {
  private buffer = ''
  private cuts = 0

  constructor (private readonly options: CutterOptions) {}

  /** Characters held, not yet cut. */
  get length (): number {
    return this.buffer.length
  }

  /** Adds text; returns the pieces to speak now, in order. */
  push (text: string, tryTrigger = false): string[] {
    this.buffer += text
    const pieces = this.sentences()
    if (this.options.autoMode) return [...pieces, ...this.toWordBoundary()]
    const threshold = this.options.schedule[Math.min(this.cuts, this.options.schedule.length - 1)] ?? Infinity
    if (this.buffer.trim().length >= threshold || (tryTrigger && this.buffer.trim().length >= TRIGGER_MINIMUM)) {
      pieces.push(...this.toWordBoundary())
    }
    return pieces
  }

  /** Everything held (flush, the end of the text). */
  flush (): string[] {
    // The client says its text is complete: all of it, so markup left open is refused, not kept.
    return this.take(this.buffer.length, true)
  }

  /** No new text for a while: up to the last word boundary. */
  idle (): string[] {
    if (TERMINAL.test(this.buffer.trimEnd())) return this.take(this.buffer.length)
    return this.toWordBoundary()
  }

  private sentences (): string[] {
    let end = 0
    let offset = 0
    const segments = [...segmenter.segment(this.buffer)]
    segments.forEach((segment, i) => {
      offset = segment.index + segment.segment.length
      if (i < segments.length - 1 || ENDED.test(segment.segment)) end = offset
    })
    return this.take(end)
  }

  /** Cut at the last whitespace: the word after it may still be growing. */
  private toWordBoundary (): string[] {
    const match = /\s\S*$/u.exec(this.buffer)
    return match === null ? [] : this.take(match.index + 1)
  }

  /** The buffer up to `wanted` (back to the last safe cut before it, unless `whole`). */
  private take (wanted: number, whole = false): string[] {
    const end = whole ? wanted : safeCut(this.buffer, wanted, this.options.ssml === true)
    const piece = this.buffer.slice(0, end).trim()
    this.buffer = this.buffer.slice(end).trimStart()
    if (piece.length === 0) return []
    this.cuts++
    return [piece]
  }
}
