#!/usr/bin/env node
// The `chorus` command's first module. Inference runs on libuv's thread
// pool, whose size is fixed when it is first used, and Node's ESM loader uses
// it while loading the rest of Chorus: so this CommonJS file sizes it before
// anything else loads. A value the user set is kept.
import { availableParallelism } from 'node:os'

if (process.env.UV_THREADPOOL_SIZE === undefined) {
  process.env.UV_THREADPOOL_SIZE = String(Math.min(128, Math.max(16, availableParallelism() * 8)))
}

import('./cli.js').then(cli => cli.main(process.argv.slice(2))).then(code => {
  if (code !== undefined) process.exitCode = code
}, (error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
