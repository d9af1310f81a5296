// Moved to the memory module (src/engine/memory/, docs/memory.md); this
// path stays until src/engine/voice.ts imports ./memory/index.js.
export { discardBytes } from './memory/index.js'
