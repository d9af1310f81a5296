// Only when Chorus runs from its TypeScript sources (tests, tsx): worker
// threads on Node 20 do not inherit tsx's loader, so register it here before
// the TypeScript cutter. The built package runs cut-worker.js directly.
import { register } from 'tsx/esm/api'

register()
await import('./cut-worker.ts')
