// Frees large byte arrays now instead of at the thread's next full garbage
// collection. A worker reads a model file (tens of megabytes) and cuts it
// into encoder and decoder bytes once, at load; ONNX Runtime copies them into
// its sessions, and then the worker sits idle between tasks, so V8 may not
// collect them for a long time: measured, 112 MB per loaded medium voice held
// by an idle worker. Transferring an ArrayBuffer into a message that is never
// received detaches it here, and the memory goes when the channel closes.
//
// The channel closes on a later turn of the event loop, and a Piscina worker
// that has posted its result waits for the next task in Atomics.wait(), where
// no turn comes: the last task's discarded bytes stayed until the next task
// (~0.65 MB for the bench x_low, up to 3 MB seen). So a worker awaits
// `bytesFreed()` before it answers.

import { MessageChannel } from 'node:worker_threads'

/** Channels closing with discarded bytes in them. */
const closing = new Set<Promise<void>>()

/** Detaches and frees each array's buffer (the arrays read as empty
 * afterwards). Arrays that do not own their whole buffer are left alone, as
 * freeing the buffer would free their neighbours too. */
export function discardBytes (arrays: readonly ArrayBufferView[]): void {
  const buffers = [...new Set(arrays
    .filter(a => a.byteOffset === 0 && a.byteLength === a.buffer.byteLength && a.byteLength > 0)
    .map(a => a.buffer))]
    .filter((b): b is ArrayBuffer => b instanceof ArrayBuffer)
  if (buffers.length === 0) return
  const { port1, port2 } = new MessageChannel()
  const closed = new Promise<void>(resolve => port2.once('close', () => resolve()))
  closing.add(closed)
  void closed.then(() => closing.delete(closed))
  try {
    port1.postMessage(null, buffers)
  } catch {
    // An untransferable buffer (e.g. one Node pools): the garbage collector
    // will have it, as before.
  } finally {
    port1.close()
    port2.close()
  }
}

/** Resolves once the bytes discarded so far are freed (their channels closed). */
export async function bytesFreed (): Promise<void> {
  await Promise.all(closing)
}
