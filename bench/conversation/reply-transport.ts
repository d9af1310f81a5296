// The whole-reply transport of the conversation benchmarks, the way the
// original stack's clients talk: the reply's text complete in ONE
// POST /tts?stream=1, sent when the reply starts, played back to back as its
// WAV streams in.
//
// Sent at the reply's start, not at its last token: such a client gets its
// model's reply whole (the tokens are not streamed to it), so its text is
// complete when the bot starts to answer. Waiting for the last token would
// add the model's writing time to every reply and, in a crowd, spread the
// requests over the replies' writing times (1–4 s), hiding the burst the
// scenario is for.
//
// Which sentence a piece of audio speaks needs no timing from the service:
// every sentence's text was sent at the same moment, with the request, so
// every piece is asked for then (askedMs), and any gap once playback has
// started is the service's. The reply counts as one stream: first audio is
// the request's first audio byte after it was sent (firstTextMs is 0).
// Asking for timestamps instead would change the answer to Server-Sent
// Events (not this pattern), add the timing's work, and the generated test
// voices carry none (docs/timing.md).

import { setTimeout as sleep } from 'node:timers/promises'
import { StreamPoster } from './stream-post.js'
import type { SpeechTransport } from './transport.js'

/** The text of a whole reply: its sentences as the model wrote them, one space between. */
export function replyText (sentences: ReadonlyArray<{ text: string }>): string {
  return sentences.map(sentence => sentence.text).join(' ')
}

export function wholeReplyTransport (baseUrl: string, timeoutMs: number): SpeechTransport {
  const poster = new StreamPoster(baseUrl, timeoutMs)
  return {
    name: 'reply',
    firstTextMs: () => 0,
    speak: async (reply, startMs, speaker) => {
      await sleep(Math.max(0, startMs - performance.now()))
      return await poster.ask({ text: replyText(reply.sentences) }, speaker, poster.replyId('reply-'))
    },
    close: () => poster.close()
  }
}
