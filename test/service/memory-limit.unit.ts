// The memory the process may use (cgroup limit or physical memory) and the
// default budget for loaded voices derived from it.

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { ConfigError } from '../../src/errors.js'
import { loadServiceConfig } from '../../src/service/config.js'
import {
  ACTIVATION_BYTES, cgroupMemoryLimit, defaultVoiceMemoryBudget, MIN_BUDGET_BYTES, PROCESS_BASE_BYTES, processMemoryLimit
} from '../../src/service/memory-limit.js'

const GiB = 1024 ** 3

async function fakeCgroups (t: { teardown: (fn: () => Promise<void>) => void }, files: Record<string, string>): Promise<{ proc: string, root: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-cgroup-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true })
    await writeFile(join(dir, path), content)
  }
  return { proc: join(dir, 'proc-cgroup'), root: join(dir, 'sys') }
}

t.test('cgroup v2: the smallest memory.max from the process\'s group up to the root', async t => {
  const { proc, root } = await fakeCgroups(t, {
    'proc-cgroup': '0::/kubepods/pod1/app\n',
    'sys/kubepods/memory.max': '4294967296\n',
    'sys/kubepods/pod1/memory.max': '2147483648\n',
    'sys/kubepods/pod1/app/memory.max': 'max\n'
  })
  t.equal(cgroupMemoryLimit(proc, root), 2 * GiB)
  t.same(processMemoryLimit({ procCgroup: proc, cgroupRoot: root, physicalBytes: 16 * GiB }), { bytes: 2 * GiB, source: 'cgroup' })
  t.same(processMemoryLimit({ procCgroup: proc, cgroupRoot: root, physicalBytes: 1 * GiB }), { bytes: 1 * GiB, source: 'physical' }, 'a limit above physical memory does not count')
})

t.test('no limit set: physical memory', async t => {
  const { proc, root } = await fakeCgroups(t, { 'proc-cgroup': '0::/\n', 'sys/memory.max': 'max\n' })
  t.equal(cgroupMemoryLimit(proc, root), undefined)
  t.same(processMemoryLimit({ procCgroup: proc, cgroupRoot: root, physicalBytes: 8 * GiB }), { bytes: 8 * GiB, source: 'physical' })
  t.equal(cgroupMemoryLimit(join(root, 'missing'), root), undefined, 'no /proc/self/cgroup (not Linux)')
})

t.test('cgroup v1 (hybrid hosts): memory.limit_in_bytes, its "unlimited" value ignored', async t => {
  const { proc, root } = await fakeCgroups(t, {
    'proc-cgroup': '4:memory:/docker/abc\n1:cpu:/\n0::/\n',
    'sys/memory/docker/abc/memory.limit_in_bytes': '1073741824\n',
    'sys/memory/memory.limit_in_bytes': '9223372036854771712\n'
  })
  t.equal(cgroupMemoryLimit(proc, root), 1 * GiB)
})

t.test('the default budget leaves room for the process, the cache and running inferences', async t => {
  const reserve = { cacheBytes: 64 * 1024 ** 2, concurrentInferences: 2 }
  t.equal(defaultVoiceMemoryBudget(8 * GiB, reserve), Math.floor(8 * GiB * 0.9) - PROCESS_BASE_BYTES - reserve.cacheBytes - 2 * ACTIVATION_BYTES)
  t.equal(defaultVoiceMemoryBudget(256 * 1024 ** 2, reserve), MIN_BUDGET_BYTES, 'a tiny container still gets the minimum')
})

t.test('configuration: budget, caps, idle time and preload list', async t => {
  const config = loadServiceConfig({ TTS_VOICE_MEMORY_BYTES: '1000000', TTS_MAX_CONCURRENT_INFERENCES: '3', TTS_WORKER_IDLE_SECONDS: '0', TTS_PRELOAD_VOICES: 'en_US-a-medium, en_GB-b-low' })
  t.equal(config.voiceMemoryBytes, 1_000_000)
  t.equal(config.maxConcurrentInferences, 3)
  t.equal(config.workerIdleMs, 0)
  t.same(config.preloadVoices, ['en_US-a-medium', 'en_GB-b-low'])
  const defaults = loadServiceConfig({})
  t.equal(defaults.maxLoadedVoices, 64)
  t.equal(defaults.workerIdleMs, 60_000)
  t.same(defaults.preloadVoices, [])
  t.ok(defaults.voiceMemoryBytes >= MIN_BUDGET_BYTES)
  t.equal(loadServiceConfig({ TTS_PRELOAD_VOICES: '*' }).preloadVoices, '*')
  t.throws(() => loadServiceConfig({ TTS_PRELOAD_VOICES: 'en_US-a-medium,../etc/passwd' }), {
    constructor: ConfigError,
    message: 'Expected voice names separated by commas (like en_US-lessac-medium,en_GB-alba-medium), or * for TTS_PRELOAD_VOICES but received "en_US-a-medium,../etc/passwd" (string)'
  })
  t.throws(() => loadServiceConfig({ TTS_VOICE_MEMORY_BYTES: '2GB' }), /Expected an integer from 1 to 9007199254740991 for TTS_VOICE_MEMORY_BYTES but received "2GB"/)
  t.throws(() => loadServiceConfig({ TTS_MAX_CONCURRENT_INFERENCES: '0' }), /TTS_MAX_CONCURRENT_INFERENCES/)
})
