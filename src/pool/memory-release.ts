// Moved to the memory module (src/engine/memory/arena-release.ts,
// docs/memory.md); this path stays until pool-manager.ts and
// test/pool/memory-release.test.ts import the module.
export { MEMORY_RELEASE_TIMING, MemoryReleaser, type MemoryReleaseTiming } from '../engine/memory/index.js'
