// Moved to the memory module (src/engine/memory/heap-sweep.ts,
// docs/memory.md); this path stays until pool-manager.ts and
// test/pool/worker-garbage.test.ts import the module.
export { collectGarbage, HEAP_SWEEP_DELAY_MS, HeapSweep } from '../engine/memory/index.js'
