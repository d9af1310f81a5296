// Worker threads leave the process's preloads behind
// (src/worker-start-options.ts): under tap, its hooks would load in every
// voice worker.

import { once } from 'node:events'
import { Worker } from 'node:worker_threads'
import t from 'tap'
import { withoutPreloads, workerStartOptions } from '../src/worker-start-options.js'

t.test('preloads go in either spelling; other flags stay', async t => {
  t.same(withoutPreloads(['--import=file:///a.mjs', '--enable-source-maps', '--import', './b.mjs', '-r', 'c.cjs', '--require=d.cjs',
    '--loader', 'e.mjs', '--experimental-loader=f.mjs', '--conditions=dev', '--stack-size=2000']), ['--enable-source-maps', '--conditions=dev', '--stack-size=2000'])
  t.same(withoutPreloads([]), [])
})

t.test('a worker starts without the process\'s preloads or NODE_OPTIONS', async t => {
  // Tap runs this file with its preloads on the command line and in NODE_OPTIONS: what the worker would inherit.
  t.ok(process.execArgv.some(flag => flag.startsWith('--import')), 'the test process has preloads')
  const options = workerStartOptions()
  t.notOk(options.execArgv?.some(flag => flag.startsWith('--import')))
  t.equal((options.env as NodeJS.ProcessEnv).NODE_OPTIONS, undefined)
  t.equal((options.env as NodeJS.ProcessEnv).PATH, process.env.PATH, 'the rest of the environment is the process\'s')
  const worker = new Worker('require("node:worker_threads").parentPort.postMessage({ execArgv: process.execArgv, nodeOptions: process.env.NODE_OPTIONS })', { eval: true, ...options })
  const [seen] = await once(worker, 'message') as [{ execArgv: string[], nodeOptions?: string }]
  await worker.terminate()
  t.same(seen, { execArgv: withoutPreloads(process.execArgv) }, 'the worker sees neither')
})
