// ElevenLabs' messages for a context's events (stream-context.ts): audio
// with its character alignment, isFinal, and errors, each with the
// context's id on multi-stream-input.

import { afterSpace, buildAlignment, EMPTY_ALIGNMENT, type Alignment } from './alignment.js'
import type { ContextWire, PieceWords } from './stream-context.js'

export interface AudioMessage {
  audio: string
  isFinal: false
  alignment: Alignment | null
  normalizedAlignment: Alignment | null
}

/** The wire of one context; `id` is undefined on the single-context endpoint. */
export function elevenLabsWire (send: (message: Record<string, unknown>) => Promise<void>, id: string | undefined, syncAlignment: boolean): ContextWire {
  const idField = id === undefined ? {} : { contextId: id }
  // sync_alignment: every audio message carries one (docs/websocket.md).
  const none = syncAlignment ? EMPTY_ALIGNMENT : null
  // A piece's alignment was sent: the next piece's starts with the space between them.
  let aligned = false
  const alignmentOf = (words: PieceWords | undefined): Alignment | null => {
    if (words === undefined) return none
    let alignment = buildAlignment(words.text, words.words, words.sampleRate, words.from, words.to, -words.originSample)
    if (words.from === 0 && aligned) alignment = afterSpace(alignment)
    aligned = true
    return alignment
  }
  return {
    audio: async (bytes, words) => {
      const alignment = alignmentOf(words)
      const message: AudioMessage = { audio: Buffer.from(bytes).toString('base64'), isFinal: false, alignment, normalizedAlignment: alignment }
      await send({ ...message, ...idField })
    },
    final: async () => await send({ isFinal: true, ...idField }),
    failed: async (error, code) => await send({ error, code, ...idField })
  }
}
