// Only when Chorus runs from its TypeScript sources (tests, tsx): worker
// threads on Node 20 do not inherit tsx's loader, so register it here, then
// load the TypeScript worker. The built package starts ceiling-worker.js.
import { register } from 'tsx/esm/api'

register()
await import('./ceiling-worker.ts')
