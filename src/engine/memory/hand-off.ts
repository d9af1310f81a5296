// Arrays a thread hands on to another (a worker's result to the main thread,
// a chunk's inputs to the next worker) travel by transfer, never by copy or
// by sharing: the receiver owns them, and the sender's arrays read as empty
// once the message is posted (docs/memory.md).

import { discardBytes } from './discard.js'

/** The array itself when it owns its whole buffer (so the buffer can be
 * transferred), else a copy that does; the buffer it was cut from (the
 * addon's output, this thread's alone) is then freed at once. */
export function owning (samples: Float32Array): Float32Array {
  if (samples.byteOffset === 0 && samples.byteLength === samples.buffer.byteLength) return samples
  const copy = samples.slice()
  discardBytes([new Uint8Array(samples.buffer)])
  return copy
}

/** The buffers to transfer with `arrays`, each of which owns its whole buffer
 * (see owning()). */
export function transferList (arrays: readonly ArrayBufferView[]): ArrayBuffer[] {
  return arrays.map(a => a.buffer as ArrayBuffer)
}
