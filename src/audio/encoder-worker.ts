// An encoder worker: holds the codec state of many response streams and
// encodes their PCM off the service's main thread; loads FFmpeg's libavcodec
// into the process when the pool asks. Messages of one session run in
// order; sessions interleave.

import { parentPort } from 'node:worker_threads'
import { serializeError } from '../error-registry.js'
import { nameThread, THREAD_NAMES } from '../engine/task-times.js'
import { loadAvcodec } from './avcodec.js'
import { EMPTY, type StreamEncoder } from './encoder.js'
import { FORMAT_INFO } from './formats.js'
import type { EncoderReply, EncoderRequest } from './protocol.js'

if (parentPort === null) throw new Error('encoder-worker.ts runs as a worker thread')
const port = parentPort
nameThread(THREAD_NAMES.encoderWorker)

/** Each session's work so far, as a chain: a push waits for the open before it. */
const sessions = new Map<number, Promise<StreamEncoder | undefined>>()

function reply (message: EncoderReply): void {
  if ('bytes' in message && message.bytes.byteLength > 0) {
    // Hand the buffer over rather than copy it, unless it is a view into
    // memory the codec keeps (then send a copy).
    const own = message.bytes.byteOffset === 0 && message.bytes.byteLength === message.bytes.buffer.byteLength && message.bytes.buffer instanceof ArrayBuffer
    const bytes = own ? message.bytes : message.bytes.slice()
    port.postMessage({ ticket: message.ticket, bytes }, [bytes.buffer as ArrayBuffer])
    return
  }
  port.postMessage(message)
}

/** The pool rebuilds the same class from this (a codec's EncodingError, or a bug as a bug). */
function fail (ticket: number, error: unknown): void {
  reply({ ticket, error: serializeError(error) })
}

/** Runs `step` after the session's earlier work; a failure answers the ticket. */
function chain (request: Extract<EncoderRequest, { ticket: number, session: number }>, step: (encoder: StreamEncoder | undefined) => Uint8Array): Promise<StreamEncoder | undefined> {
  const previous = sessions.get(request.session) ?? Promise.resolve(undefined)
  return previous.then(encoder => {
    try {
      reply({ ticket: request.ticket, bytes: step(encoder) })
    } catch (error) {
      fail(request.ticket, error)
    }
    return encoder
  })
}

port.on('message', (request: EncoderRequest) => {
  switch (request.op) {
    case 'open': {
      const opened = (async () => await (await FORMAT_INFO[request.format].encoder())(request.sampleRate, request.options))()
      opened.then(() => reply({ ticket: request.ticket, bytes: EMPTY }), error => fail(request.ticket, error))
      // A failed open leaves the session without an encoder: the caller has
      // seen the open fail and sends nothing more.
      sessions.set(request.session, opened.catch(() => undefined))
      return
    }
    case 'push':
      sessions.set(request.session, chain(request, encoder => encoder?.push(request.pcm) ?? EMPTY))
      return
    case 'finish':
      void chain(request, encoder => encoder?.finish() ?? EMPTY)
      sessions.delete(request.session)
      return
    case 'avcodec':
      try {
        reply({ ticket: request.ticket, avcodec: loadAvcodec(request.library) })
      } catch (error) {
        fail(request.ticket, error)
      }
      return
    case 'close': {
      const previous = sessions.get(request.session)
      sessions.delete(request.session)
      previous?.then(encoder => encoder?.close(), () => {})
    }
  }
})
