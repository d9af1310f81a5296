// The HTTP transport of the conversation benchmarks: each sentence of a
// reply is POST /tts?stream=1 as soon as its last token has arrived, with
// the bot's key as a Bearer token when it has one; the streamed WAV body is
// metered as it arrives. Each sentence carries its own X-Request-Id and
// names the sentence before it in `after`, as a bot should (docs/api.md):
// the service then schedules the sentence being heard first.

import { Agent } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import type { AudioPiece } from './player.js'
import { postStream } from './stream-post.js'
import type { SpeechTransport } from './transport.js'

export function httpStreamTransport (baseUrl: string, timeoutMs: number): SpeechTransport {
  const url = new URL(baseUrl)
  const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY })
  let replies = 0
  return {
    name: 'http',
    firstTextMs: reply => reply.sentences[0]?.endMs ?? 0,
    speak: async (reply, startMs, speaker) => {
      const prefix = `bench-${process.pid}-${replies++}`
      const spoken = await Promise.all(reply.sentences.map(async (sentence, i) => {
        await sleep(Math.max(0, startMs + sentence.endMs - performance.now()))
        const askedMs = performance.now()
        const fields = { text: sentence.text, ...(i === 0 ? {} : { after: `${prefix}-${i - 1}` }) }
        const audio = await postStream({ url, agent, timeoutMs, fields, speaker, requestId: `${prefix}-${i}` })
        return audio.map((piece): AudioPiece => ({ ...piece, askedMs }))
      }))
      return spoken.flat()
    },
    close: () => agent.destroy()
  }
}
