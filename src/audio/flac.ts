// FLAC through libFLAC compiled to WebAssembly (libflacjs), at the voice's own
// rate, 16 bits. The stream's STREAMINFO is written before the length is
// known, so it says 0 total samples and carries no MD5, as libFLAC does for
// any unseekable output; decoders read such a file to its end.

import { createRequire } from 'node:module'
import type LibFlacFactory from 'libflacjs'
import type { StreamEncoder } from './encoder.js'
import { EncodingError } from './errors.js'

type Flac = LibFlacFactory.Flac
const require = createRequire(import.meta.url)

/** libFLAC's default level: it measured faster than level 0 here and smaller. */
const FLAC_LEVEL = 5

let loading: Promise<Flac> | undefined

/** libflacjs's Emscripten loader, on Node 20, takes the global `fetch` as a
 * sign that it runs in a browser and fails to fetch its .wasm by file path.
 * It is hidden while the module instantiates and put back once ready (the
 * encoder worker that loads it makes no HTTP requests in between). */
export async function loadFlac (): Promise<Flac> {
  loading ??= new Promise<Flac>((resolve, reject) => {
    const savedFetch = Object.getOwnPropertyDescriptor(globalThis, 'fetch')
    Reflect.deleteProperty(globalThis, 'fetch')
    const restore = () => { if (savedFetch !== undefined) Object.defineProperty(globalThis, 'fetch', savedFetch) }
    try {
      const flac = (require('libflacjs') as typeof LibFlacFactory)('wasm')
      if (flac.isReady()) {
        restore()
        resolve(flac)
      } else {
        flac.on('ready', () => {
          restore()
          resolve(flac)
        })
      }
    } catch (error) {
      restore()
      reject(new EncodingError('libFLAC (libflacjs) could not be loaded', { cause: error }))
    }
  })
  return await loading
}

export async function createFlacEncoder (sampleRate: number): Promise<StreamEncoder> {
  const flac = await loadFlac()
  const encoder = flac.create_libflac_encoder(sampleRate, 1, 16, FLAC_LEVEL, 0, false, 0)
  if (encoder === 0) throw new EncodingError(`libFLAC refused an encoder for ${sampleRate} Hz`)
  let out: Uint8Array[] = []
  const status = flac.init_encoder_stream(encoder, (data, bytes) => { out.push(data.slice(0, bytes)) })
  if (status !== 0) {
    flac.FLAC__stream_encoder_delete(encoder)
    throw new EncodingError(`libFLAC encoder init failed with status ${status}`)
  }
  let open = true
  const take = (): Uint8Array => {
    const chunks = out
    out = []
    return Buffer.concat(chunks)
  }
  return {
    push: pcm => {
      if (pcm.length > 0 && !flac.FLAC__stream_encoder_process_interleaved(encoder, Int32Array.from(pcm), pcm.length)) {
        throw new EncodingError(`libFLAC encoding failed in state ${String(flac.FLAC__stream_encoder_get_state(encoder))}`)
      }
      return take()
    },
    finish: () => {
      flac.FLAC__stream_encoder_finish(encoder)
      flac.FLAC__stream_encoder_delete(encoder)
      open = false
      return take()
    },
    close: () => {
      if (open) flac.FLAC__stream_encoder_delete(encoder)
      open = false
    }
  }
}
