// A few worker threads that do all the service's audio encoding. Encoding is
// CPU work (LAME ~800 ×, Opus with resampling ~500 × real time on one core
// here): done on the main thread it would stall every other request for
// milliseconds per sentence. A session is pinned to one worker, since a codec's state lives
// there; new sessions go to the worker with the fewest open ones. Piscina is
// not used: its tasks are stateless and may land on any worker.

import { Worker } from 'node:worker_threads'
import type { Logger } from 'pino'
import { rebuildError } from '../error-registry.js'
import { AVCODEC_LIBRARY, AVCODEC_PACKAGE, type AvcodecStatus } from './avcodec.js'
import { EncodingError, formatUnavailable } from './errors.js'
import type { EncoderOptions } from './encoder.js'
import { AUDIO_FORMATS, type AudioFormat, FORMAT_INFO } from './formats.js'
import type { EncoderReply, EncoderRequest } from './protocol.js'
import { workerStartOptions } from '../worker-start-options.js'

// From TypeScript sources the worker needs tsx registered first.
const FROM_SOURCES = import.meta.url.endsWith('.ts')
const WORKER_FILE = new URL(FROM_SOURCES ? './dev-encoder-worker.mjs' : './encoder-worker.js', import.meta.url)

type Answer = Exclude<EncoderReply, { error: unknown }>

interface Pending {
  resolve: (answer: Answer) => void
  reject: (error: Error) => void
}

class EncoderThread {
  readonly worker: Worker
  readonly pending = new Map<number, Pending>()
  sessions = 0
  /** Set when the worker has stopped: its sessions' codec state is gone. */
  dead = false

  constructor (log: Logger, onExit: (thread: EncoderThread) => void) {
    this.worker = new Worker(WORKER_FILE, workerStartOptions())
    this.worker.on('message', (reply: EncoderReply) => {
      const pending = this.pending.get(reply.ticket)
      if (pending === undefined) return
      this.pending.delete(reply.ticket)
      if (this.pending.size === 0) this.worker.unref()
      if ('error' in reply) pending.reject(rebuildError(reply.error))
      else pending.resolve(reply)
    })
    this.worker.on('error', error => log.error({ err: error }, 'encoder worker failed'))
    this.worker.on('exit', code => {
      this.dead = true
      const error = new EncodingError(`The encoder worker stopped (exit code ${code})`)
      for (const pending of this.pending.values()) pending.reject(error)
      this.pending.clear()
      onExit(this)
    })
    // An idle pool must not keep the process alive; work in flight does.
    this.worker.unref()
  }

  expect (ticket: number, pending: Pending): void {
    if (this.pending.size === 0) this.worker.ref()
    this.pending.set(ticket, pending)
  }
}

export interface EncoderPoolOptions {
  /** CHORUS_AVCODEC_LIBRARY: FFmpeg's libavcodec for AAC (default: its soname). */
  avcodecLibrary?: string
}

export class EncoderPool {
  private threads: EncoderThread[] = []
  private nextTicket = 1
  private nextSession = 1
  private closed = false
  private avcodecStatus: Promise<AvcodecStatus> | undefined

  constructor (private readonly size: number, private readonly log: Logger, private readonly options: EncoderPoolOptions = {}) {}

  /** libavcodec in this process, loaded at the first call: by an encoder
   * worker, so that the main thread does not wait for some ninety shared
   * libraries to load, and not at start, so that a service that never makes
   * AAC never holds them (docs/audio.md). Loaded once per process, every
   * worker's encoders use it. The outcome is logged once, a failure with its
   * cause. */
  async avcodec (): Promise<AvcodecStatus> {
    this.avcodecStatus ??= (async () => {
      if (this.closed) throw new EncodingError('The encoder pool is closed')
      const answer = await this.request(this.thread(), { op: 'avcodec', ticket: 0, library: this.options.avcodecLibrary ?? AVCODEC_LIBRARY })
      if (!('avcodec' in answer)) throw new EncodingError('The encoder worker did not answer the libavcodec load')
      const status = answer.avcodec
      if (status.loaded) this.log.info({ library: status.library, version: status.version, license: status.license }, 'libavcodec loaded: aac is available')
      else this.log.warn({ library: status.library, reason: status.reason }, `libavcodec did not load: aac is not available (apt-get install ${AVCODEC_PACKAGE}, or set CHORUS_AVCODEC_LIBRARY)`)
      return status
    })()
    // A worker that stopped mid-load has told nothing: the next call asks again.
    this.avcodecStatus.catch(() => { this.avcodecStatus = undefined })
    return await this.avcodecStatus
  }

  /** Why this process cannot encode `format`, or undefined when it can. */
  async unavailable (format: AudioFormat): Promise<string | undefined> {
    if (FORMAT_INFO[format].needsAvcodec !== true || (await this.avcodec()).loaded) return undefined
    const available = AUDIO_FORMATS.filter(f => FORMAT_INFO[f].needsAvcodec !== true)
    return `${format} is not available here: it needs FFmpeg's libavcodec 59, which did not load ` +
      `(install Debian 12's ${AVCODEC_PACKAGE}, or set CHORUS_AVCODEC_LIBRARY; the log says why). ` +
      `Available formats: ${available.join(', ')}`
  }

  /** Rejects with ERR_FORMAT_UNAVAILABLE (400) when this process cannot encode `format`. */
  async assertAvailable (format: AudioFormat): Promise<void> {
    const reason = await this.unavailable(format)
    if (reason !== undefined) throw formatUnavailable(reason, { details: { format } })
  }

  private thread (): EncoderThread {
    while (this.threads.length < this.size) {
      this.threads.push(new EncoderThread(this.log, dead => {
        // A crashed worker is replaced on the next session; its sessions failed.
        this.threads = this.threads.filter(t => t !== dead)
      }))
    }
    return this.threads.reduce((a, b) => b.sessions < a.sessions ? b : a)
  }

  /** Starts one stream's encoder. Rejects if the codec cannot start. */
  async open (format: AudioFormat, sampleRate: number, options?: EncoderOptions): Promise<EncodeSession> {
    if (this.closed) throw new EncodingError('The encoder pool is closed')
    await this.assertAvailable(format)
    const thread = this.thread()
    const session = new EncodeSession(this, thread, this.nextSession++)
    thread.sessions++
    try {
      await this.send(thread, { op: 'open', ticket: 0, session: session.id, format, sampleRate, ...(options !== undefined ? { options } : {}) })
    } catch (error) {
      session.close()
      throw error
    }
    return session
  }

  /** @internal */
  async send (thread: EncoderThread, request: EncoderRequest, transfer: ArrayBuffer[] = []): Promise<Uint8Array> {
    if (request.op === 'close') {
      if (!thread.dead) thread.worker.postMessage(request)
      return new Uint8Array(0)
    }
    const answer = await this.request(thread, request, transfer)
    if (!('bytes' in answer)) throw new EncodingError(`The encoder worker answered ${request.op} without bytes`)
    return answer.bytes
  }

  private async request (thread: EncoderThread, request: Exclude<EncoderRequest, { op: 'close' }>, transfer: ArrayBuffer[] = []): Promise<Answer> {
    if (thread.dead) throw new EncodingError('The encoder worker of this stream stopped')
    const ticket = this.nextTicket++
    return await new Promise<Answer>((resolve, reject) => {
      thread.expect(ticket, { resolve, reject })
      thread.worker.postMessage({ ...request, ticket }, transfer)
    })
  }

  async close (): Promise<void> {
    this.closed = true
    const threads = this.threads
    this.threads = []
    await Promise.all(threads.map(async t => await t.worker.terminate()))
  }
}

/** One response's encoder, in a worker. Pushes resolve in order. */
export class EncodeSession {
  private done = false

  constructor (private readonly pool: EncoderPool, private readonly thread: EncoderThread, readonly id: number) {}

  /** Encodes more PCM; resolves with the bytes the codec completed. */
  async push (pcm: Int16Array): Promise<Uint8Array> {
    if (this.done) throw new EncodingError('Encode session used after it ended')
    // A copy the worker may own: the caller's PCM stays usable (the cache keeps it).
    const copy = pcm.slice()
    return await this.pool.send(this.thread, { op: 'push', ticket: 0, session: this.id, pcm: copy }, [copy.buffer])
  }

  /** Ends the stream: resolves with the remaining bytes. */
  async finish (): Promise<Uint8Array> {
    if (this.done) throw new EncodingError('Encode session used after it ended')
    this.done = true
    this.thread.sessions--
    return await this.pool.send(this.thread, { op: 'finish', ticket: 0, session: this.id })
  }

  /** Drops the stream without output (error or client gone). Idempotent. */
  close (): void {
    if (this.done) return
    this.done = true
    this.thread.sessions--
    void this.pool.send(this.thread, { op: 'close', session: this.id })
  }
}
