// Test workers start here (worker threads do not inherit tsx's loader on
// Node 20): the TypeScript entry named in workerData, from its bundle when it
// is current, else through tsx (src/dev-workers.mjs).
import { workerData } from 'node:worker_threads'
import { importWorker } from '../../src/dev-workers.mjs'

await importWorker(workerData.entry)
