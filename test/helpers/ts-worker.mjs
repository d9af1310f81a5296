// Worker threads do not inherit tsx's loader on Node 20, so test workers
// start here: register tsx in this thread, then import the TypeScript entry.
import { workerData } from 'node:worker_threads'
import { register } from 'tsx/esm/api'

register()
await import(workerData.entry)
