// `chorus voices install|remove` and the installer they share with the
// admin API, on a fake mirror read through a file: URL: install and removal,
// what a bad checksum leaves (nothing), bad usage, and a voice folder on a
// read-only file system (a real one: a tmpfs mounted read-only, where this
// runs as root and may mount; root ignores permission bits). Where it may
// not mount, that check fails under CI and skips elsewhere.

import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'
import { voices } from '../../src/commands/voices.js'
import { VoiceFolderReadOnlyError } from '../../src/voices/errors.js'
import { VoiceInstaller } from '../../src/voices/installer.js'
import { stopUnavailable } from '../helpers/test-tools.js'
import { makeMirror } from './fixtures/mirror.js'

const run = promisify(execFile)
const scratch = await mkdtemp(join(tmpdir(), 'chorus-voices-cli-'))
t.teardown(() => rm(scratch, { recursive: true, force: true }))
const mirror = await makeMirror([{ name: 'en_US-one-medium' }, { name: 'en_US-two-medium' }, { name: 'en_US-badmd5-medium', defect: 'md5' }], scratch)
const voiceDir = join(scratch, 'voices')
const env = { TTS_VOICE_DIR: voiceDir, TTS_VOICE_SOURCE: pathToFileURL(mirror.dir).href, TTS_VOICE_CATALOG: mirror.catalogPath }
const listing = async (dir = voiceDir): Promise<string[]> => (await readdir(dir).catch(() => [])).sort()

// console output is for a person; these tests assert on exit codes and files.
t.beforeEach(t => {
  t.intercept(console, 'log', { value: () => {} })
  t.intercept(console, 'error', { value: () => {} })
})

t.test('install and remove several voices', async t => {
  t.equal(await voices(['install', 'en_US-one-medium', 'en_US-two-medium'], env), 0)
  t.same(await listing(), ['en_US-one-medium.onnx', 'en_US-one-medium.onnx.json', 'en_US-two-medium.onnx', 'en_US-two-medium.onnx.json'])
  t.equal(await voices(['install', 'en_US-one-medium'], env), 0, 'already installed: nothing to do')
  t.equal(await voices(['remove', 'en_US-one-medium', 'en_US-two-medium'], env), 0)
  t.same(await listing(), [])
  t.equal(await voices(['remove', 'en_US-one-medium'], env), 1, 'not installed')
})

t.test('a bad checksum fails with exit 1 and leaves nothing', async t => {
  const errors: string[] = []
  t.intercept(console, 'error', { value: (line: string) => errors.push(line) })
  t.equal(await voices(['install', 'en_US-badmd5-medium'], env), 1)
  t.match(errors.at(-1), /^chorus voices install: MD5 mismatch for .*en_US-badmd5-medium\.onnx/)
  t.same(await listing(), [])
})

t.test('bad usage names what was expected', async t => {
  await t.rejects(voices(['install'], env), { message: 'Expected at least one voice name like en_US-lessac-medium for chorus voices install but received "" (string)' })
  await t.rejects(voices(['remove', '../etc/passwd'], env), { message: 'Expected a voice name like en_US-lessac-medium for chorus voices remove (name 1) but received "../etc/passwd" (string)' })
  await t.rejects(voices(['list', 'en_US-one-medium'], env), { code: 'ERR_INVALID_ARGUMENT' })
})

t.test('a voice folder on a read-only file system is refused before any download', async t => {
  const mountPoint = join(scratch, 'read-only')
  await mkdir(mountPoint)
  try {
    await run('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'chorus-test', mountPoint])
  } catch (error) {
    // Mounting needs root (CAP_SYS_ADMIN), as .ci/run has.
    return stopUnavailable(t, `cannot mount a read-only tmpfs here: ${(error as Error).message.split('\n')[0] ?? ''}`)
  }
  t.teardown(async () => { await run('umount', [mountPoint]) })
  const installer = new VoiceInstaller({ voiceDir: mountPoint, catalogPath: mirror.catalogPath, source: env.TTS_VOICE_SOURCE })
  for (const attempt of [() => installer.install('en_US-one-medium'), async () => await installer.remove('en_US-one-medium')]) {
    const error = await attempt().then(() => undefined, (e: unknown) => e)
    t.type(error, VoiceFolderReadOnlyError)
    t.match(error, { code: 'ERR_VOICE_DIR_READ_ONLY', status: 409, details: { reason: 'a read-only file system' } })
  }
  t.equal(await voices(['install', 'en_US-one-medium'], { ...env, TTS_VOICE_DIR: mountPoint }), 1)
})
