// Only when Chorus runs from its TypeScript sources (tests, tsx): the encoder
// worker's bundle when it is current, else the TypeScript worker through tsx
// (../dev-workers.mjs). The built package starts encoder-worker.js.
import { importWorker } from '../dev-workers.mjs'

await importWorker(new URL('./encoder-worker.ts', import.meta.url))
