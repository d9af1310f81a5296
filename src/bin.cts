#!/usr/bin/env node
// The `chorus` command's first module: settings of the process that must be
// in place before anything else loads. Inference runs on libuv's thread
// pool, whose size is fixed when it is first used, and Node's ESM loader uses
// it while loading the rest of Chorus: so this CommonJS file sizes it first.
// A value the user set is kept.
import { availableParallelism } from 'node:os'

if (process.env.UV_THREADPOOL_SIZE === undefined) {
  process.env.UV_THREADPOOL_SIZE = String(Math.min(128, Math.max(16, availableParallelism() * 8)))
}
// ONNX Runtime's Linux builds collect telemetry for upload (a device id and
// an event store under ~/.cache/Microsoft) unless ORT_DISABLE_TELEMETRY is
// set, and print "Failed to persist telemetry device ID" where that folder
// is read-only. Chorus opts out for its whole process, workers included,
// before the library loads. A value the user set is kept.
if (process.env.ORT_DISABLE_TELEMETRY === undefined) {
  process.env.ORT_DISABLE_TELEMETRY = '1'
}

import('./cli.js').then(cli => cli.main(process.argv.slice(2))).then(code => {
  if (code !== undefined) process.exitCode = code
}, (error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
