// Frees byte arrays now instead of at the thread's next full garbage
// collection, which a thread that makes few JS objects (a voice worker, idle
// between tasks) may not run for a long time. Transferring an ArrayBuffer
// into a message that is never received detaches it here, and its memory goes
// when the channel closes, on a later turn of the event loop. Who may still
// touch an array after it is discarded: docs/memory.md.

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

/**
 * Resolves once the bytes discarded so far are freed (their channels closed).
 * A thread awaits it before it goes idle: a voice worker after its load and
 * after each task, before it answers. Piscina parks an idle worker in
 * Atomics.wait(), where no turn of the event loop comes, so channels still
 * closing then would keep the bytes until the next task.
 */
export async function beforeIdle (): Promise<void> {
  await Promise.all(closing)
}
