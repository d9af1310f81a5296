// Messages between the service and its encoder workers. A session is one
// response's encoder; each request carries a ticket its reply echoes.

import type { SerializedError } from '../error-registry.js'
import type { AvcodecStatus } from './avcodec.js'
import type { EncoderOptions } from './encoder.js'
import type { AudioFormat } from './formats.js'

export type EncoderRequest =
  | { op: 'open', ticket: number, session: number, format: AudioFormat, sampleRate: number, options?: EncoderOptions }
  | { op: 'push', ticket: number, session: number, pcm: Int16Array }
  | { op: 'finish', ticket: number, session: number }
  | { op: 'close', session: number }
  /** Loads FFmpeg's libavcodec into the process (avcodec.ts), off the main thread. */
  | { op: 'avcodec', ticket: number, library: string }

export type EncoderReply =
  | { ticket: number, bytes: Uint8Array }
  | { ticket: number, avcodec: AvcodecStatus }
  | { ticket: number, error: SerializedError }
