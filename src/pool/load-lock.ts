// One worker of a voice loads its model at a time. The first reads and cuts
// the file and builds the sessions; the others then find them in the
// process's registry (native/voice_registry.h) instead of each reading and
// cutting the file again: loading in parallel cost twice the CPU, a second
// copy of the bytes at the peak, and a memory_bytes reading that counted the
// other worker's copies too (it measures the process's heap around the load).

// Node 20's V8 has Atomics.waitAsync; TypeScript declares it from ES2024 on.
type WaitAsync = (cell: Int32Array, index: number, value: number) => { async: false, value: string } | { async: true, value: Promise<string> }
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync

/** The lock's shared cell: 0 free, 1 held. Handed to every worker of a pool. */
export function newLoadLock (): SharedArrayBuffer {
  return new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT)
}

/** Runs `work` holding the lock; waits without blocking the thread. */
export async function withLoadLock<T> (lock: SharedArrayBuffer, work: () => Promise<T>): Promise<T> {
  const cell = new Int32Array(lock)
  while (Atomics.compareExchange(cell, 0, 0, 1) !== 0) {
    const waiting = waitAsync(cell, 0, 1)
    if (!waiting.async) continue
    // A pending waitAsync does not keep a thread's event loop alive: a
    // worker with nothing else to do would exit while waiting.
    const keepAlive = setInterval(() => {}, 60_000)
    try {
      await waiting.value
    } finally {
      clearInterval(keepAlive)
    }
  }
  try {
    return await work()
  } finally {
    Atomics.store(cell, 0, 0)
    Atomics.notify(cell, 0)
  }
}
