// The HTTP transport of the conversation benchmarks: each sentence of a
// reply is POST /tts?stream=1 as soon as its last token has arrived, with
// the bot's key as a Bearer token when it has one; the streamed WAV body is
// metered as it arrives. Each sentence carries its own X-Request-Id and
// names the sentence before it in `after`, as a bot should (docs/api.md):
// the service then schedules the sentence being heard first.

import { setTimeout as sleep } from 'node:timers/promises'
import { StreamPoster } from './stream-post.js'
import type { SpeechTransport } from './transport.js'

export function httpStreamTransport (baseUrl: string, timeoutMs: number): SpeechTransport {
  const poster = new StreamPoster(baseUrl, timeoutMs)
  return {
    name: 'http',
    firstTextMs: reply => reply.sentences[0]?.endMs ?? 0,
    speak: async (reply, startMs, speaker) => {
      const prefix = poster.replyId()
      const spoken = await Promise.all(reply.sentences.map(async (sentence, i) => {
        await sleep(Math.max(0, startMs + sentence.endMs - performance.now()))
        const fields = { text: sentence.text, ...(i === 0 ? {} : { after: `${prefix}-${i - 1}` }) }
        return await poster.ask(fields, speaker, `${prefix}-${i}`)
      }))
      return spoken.flat()
    },
    close: () => poster.close()
  }
}
