// How a bot's reply reaches the service and its audio comes back. Each
// transport is given the reply as the language model writes it (sentences
// and tokens on one clock) and reports every piece of audio as it arrives
// (arrival time, duration, and when the text it speaks was sent), so the
// player model (player.ts) sees what a listener would.
// - http (http-transport.ts): POST /tts?stream=1, one request per sentence,
//   sent as soon as the sentence's end arrives in the token stream.
// - websocket (websocket-transport.ts): ElevenLabs' stream-input, each token
//   sent as it arrives; the service cuts the sentences.
// - reply (reply-transport.ts): the whole reply as one POST /tts?stream=1,
//   sent when the reply starts (the original stack's clients).
// - cartesia, deepgram (vendor-transports.ts): Cartesia's and Deepgram's
//   sockets, each token sent as it arrives; only when asked for (--transport).

import type { AudioPiece } from './player.js'
import type { Reply } from './replies.js'

/** The default set: what a run without --transport measures. */
export const TRANSPORTS = ['http', 'websocket', 'reply'] as const
/** Every transport --transport may name. */
export const ALL_TRANSPORTS = [...TRANSPORTS, 'cartesia', 'deepgram'] as const
export type TransportName = typeof ALL_TRANSPORTS[number]

/** Who speaks: the voice, and the API key of the bot's tenant when the service has keys. */
export interface Speaker {
  voice: string
  apiKey?: string
}

export interface SpeechTransport {
  readonly name: TransportName
  /** When the text of the reply's first audio is sent, in ms after the
   * reply started: where its first audio is measured from. */
  firstTextMs: (reply: Reply) => number
  /** Speaks `reply` as its text arrives, its clock starting at `startMs`
   * (performance.now()); resolves with the reply's audio in play order once
   * the last piece has arrived, rejects with what the service answered. */
  speak: (reply: Reply, startMs: number, speaker: Speaker) => Promise<AudioPiece[]>
  /** Ends whatever is still open. */
  close: () => void
}
