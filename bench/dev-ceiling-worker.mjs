// Only when Chorus runs from its TypeScript sources (tests, tsx): the ceiling
// worker's bundle when it is current, else the TypeScript worker through tsx
// (../src/dev-workers.mjs). The built package starts ceiling-worker.js.
import { importWorker } from '../src/dev-workers.mjs'

await importWorker(new URL('./ceiling-worker.ts', import.meta.url))
