// Worker bundles for runs from the sources (scripts/build-dev-workers.ts,
// src/dev-workers.mjs): a thread runs its bundle only while every file the
// bundle was made from is unchanged, and the current sources otherwise. The
// worker here is generated into a folder of its own, so changing its sources
// touches nothing another test file runs.

import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { once } from 'node:events'
import { Worker } from 'node:worker_threads'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { workerStartOptions } from '../../src/worker-start-options.js'
import { importSource, testSourceUrl } from '../helpers/source-tree.js'

const { BUNDLE_DIR, freshBundle, SOURCE_ROOT } = await importSource<typeof import('../../src/dev-workers.mjs')>('src/dev-workers.mjs')
const { buildDevWorkers, COMMAND_ENTRY, WORKER_ENTRIES } = await importSource<typeof import('../../scripts/build-dev-workers.js')>('scripts/build-dev-workers.ts')

const TS_WORKER = testSourceUrl('helpers/ts-worker.mjs')
const dir = join(SOURCE_ROOT, 'test/fixtures/generated', `dev-worker-${process.pid}`)
const entry = join(dir, 'entry.ts')
const answer = join(dir, 'answer.ts')
await mkdir(dir, { recursive: true })
t.teardown(async () => {
  await rm(dir, { recursive: true, force: true })
  await rm(join(BUNDLE_DIR, relative(SOURCE_ROOT, dir)), { recursive: true, force: true })
})

async function writeAnswer (value: number): Promise<void> {
  await writeFile(answer, `export const ANSWER: number = ${value}\n`)
}

/** What a worker started through the test shim posts: its answer and the URL its module saw. */
async function runWorker (): Promise<{ answer: number, url: string }> {
  const worker = new Worker(TS_WORKER, { workerData: { entry: pathToFileURL(entry).href }, ...workerStartOptions() })
  const [message] = await once(worker, 'message') as [{ answer: number, url: string }]
  await worker.terminate()
  return message
}

await writeFile(entry, [
  "import { parentPort } from 'node:worker_threads'",
  "import { ANSWER } from './answer.js'",
  'parentPort?.postMessage({ answer: ANSWER, url: import.meta.url })',
  ''
].join('\n'))
await writeAnswer(1)

t.test('tap\'s before step left a current bundle for every worker entry and the command', async t => {
  for (const name of [...WORKER_ENTRIES, COMMAND_ENTRY]) t.ok(freshBundle(join(SOURCE_ROOT, name)), name)
})

t.test('a bundle runs while its sources are unchanged; an edit runs the edited source', async t => {
  const name = relative(SOURCE_ROOT, entry)
  // Two builds at once, as two test runs starting together would do.
  await Promise.all([buildDevWorkers([name]), buildDevWorkers([name])])
  t.ok(freshBundle(entry), 'the bundle is current after the build')
  t.same(await runWorker(), { answer: 1, url: pathToFileURL(entry).href }, 'the bundled module sees its source file\'s URL')

  await writeAnswer(2)
  t.equal(freshBundle(entry), undefined, 'an edit to an imported file makes the bundle stale')
  t.equal((await runWorker()).answer, 2, 'and the thread runs the edited source')

  await buildDevWorkers([name])
  t.ok(freshBundle(entry), 'a new build is current again')
  t.equal((await runWorker()).answer, 2)

  await rm(answer)
  t.equal(freshBundle(entry), undefined, 'a source that is gone makes it stale too')
})

t.test('split into chunks: an edit to a file only a chunk holds makes the entry stale', async t => {
  const lazy = join(dir, 'lazy.ts')
  await writeFile(lazy, "export const load = async (): Promise<number> => (await import('./answer.js')).ANSWER\n")
  await writeAnswer(3)
  const name = relative(SOURCE_ROOT, lazy)
  await buildDevWorkers([name], { split: true })
  const bundle = freshBundle(lazy)
  t.ok(bundle, 'the bundle is current after the build')
  t.equal(await (await import(bundle as string) as { load: () => Promise<number> }).load(), 3, 'the chunk is loaded when asked for')
  await writeAnswer(4)
  t.equal(freshBundle(lazy), undefined, 'an edit to the chunk\'s source makes the entry stale')
})
