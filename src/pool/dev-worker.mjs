// Only when Chorus runs from its TypeScript sources (tests, tsx): worker
// threads on Node 20 do not inherit tsx's loader, so register it here and
// hand Piscina the TypeScript worker's handler. The built package uses
// worker.js directly and never loads this file.
import { register } from 'tsx/esm/api'

register()
const worker = await import('./worker.ts')
export default worker.default
