// The addon's task clocks and thread names (docs/engine.md, "Where the time
// goes"): a native task adds to its kind's totals, and the libuv thread that
// ran it carries the pool's name, so a per-thread CPU reading can place it.

import { readFileSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import t from 'tap'
import { initRuntime, nameThread, taskTimes, THREAD_NAMES } from '../../src/engine/index.js'

async function threadNames (): Promise<string[]> {
  const tids = await readdir('/proc/self/task')
  return await Promise.all(tids.map(async tid => (await readFile(`/proc/self/task/${tid}/comm`, 'utf8').catch(() => '')).trim()))
}

t.test('a native task counts in its kind\'s totals and names its libuv thread', async t => {
  const runtime = initRuntime()
  const before = taskTimes().find(task => task.name === 'chorus:phonemize')?.count ?? 0
  await runtime.binding.phonemizeAsync('Counted once.', 'en-us')
  await runtime.binding.phonemizeAsync('And twice.', 'en-us')
  const after = taskTimes().find(task => task.name === 'chorus:phonemize')
  t.equal(after?.count, before + 2)
  t.ok((after?.wallSeconds ?? -1) >= 0 && (after?.cpuSeconds ?? -1) >= 0)
  t.ok((await threadNames()).includes(THREAD_NAMES.libuv), 'a libuv thread is named chorus-uv')
})

t.test('nameThread names the calling thread, cut to what the kernel keeps', t => {
  nameThread('chorus-test-a-very-long-name')
  // Read on this thread: an async read would run on the libuv pool's.
  const self = readFileSync('/proc/thread-self/comm', 'utf8').trim()
  t.equal(self, 'chorus-test-a-v')
  nameThread('node')
  t.end()
})
