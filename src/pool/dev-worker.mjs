// Only when Chorus runs from its TypeScript sources (tests, tsx): the
// worker's bundle when it is current, else the TypeScript worker through tsx
// (../dev-workers.mjs). The built package uses worker.js directly and never
// loads this file.
import { importWorker } from '../dev-workers.mjs'

const worker = await importWorker(new URL('./worker.ts', import.meta.url))
export default worker.default
