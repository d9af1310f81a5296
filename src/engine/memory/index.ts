// Memory work, fenced: the mechanisms that free memory before a garbage
// collection or a pause would, behind the points where the service calls
// them. Who may touch an array after handing it on, and why each mechanism
// exists: docs/memory.md.
//
// At the service's start: tuneMalloc().
// In a voice worker: owning() and transferList() when handing arrays on,
//   discardBytes() when done with them, and beforeIdle() after the load and
//   after each task, before answering.
// In the main thread: a HeapSweep requested after a voice unloads, and a
//   MemoryReleaser looking at the inference gate for pauses.

export { beforeIdle, discardBytes } from './discard.js'
export { owning, transferList } from './hand-off.js'
export { collectGarbage, HEAP_SWEEP_DELAY_MS, HeapSweep, type HeapSweepOptions, type Schedule } from './heap-sweep.js'
export { MEMORY_RELEASE_TIMING, MemoryReleaser, type MemoryReleaseTiming, type ReleaseGate } from './arena-release.js'
export { tuneMalloc } from './malloc.js'
