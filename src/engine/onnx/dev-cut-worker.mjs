// Only when Chorus runs from its TypeScript sources (tests, tsx): the
// cutter's bundle when it is current, else the TypeScript cutter through tsx
// (../../dev-workers.mjs). The built package runs cut-worker.js directly.
import { importWorker } from '../../dev-workers.mjs'

await importWorker(new URL('./cut-worker.ts', import.meta.url))
