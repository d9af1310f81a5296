// Runs scripts/docker-entrypoint.sh directly with /bin/sh against a scratch
// app folder whose dist/src/bin.cjs only records how it was called.

import { spawn } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { PACKAGE_ROOT } from '../../src/package-root.js'

const ENTRYPOINT = join(PACKAGE_ROOT, 'scripts/docker-entrypoint.sh')
const scratch = await mkdtemp(join(tmpdir(), 'chorus-entrypoint-'))
t.teardown(() => rm(scratch, { recursive: true, force: true }))

const appDir = join(scratch, 'app')
await mkdir(join(appDir, 'dist/src'), { recursive: true })
// CommonJS, so it needs no package.json. Exit codes per command come from
// FAKE_EXIT_<COMMAND>.
await writeFile(join(appDir, 'dist/src/bin.cjs'), `
const { appendFileSync } = require('node:fs')
const args = process.argv.slice(2)
appendFileSync(process.env.FAKE_RECORD, JSON.stringify({ args, pid: process.pid, voiceDir: process.env.TTS_VOICE_DIR }) + '\\n')
process.exit(Number(process.env['FAKE_EXIT_' + (args[0] || '').toUpperCase()] || 0))
`)

interface Call { args: string[], pid: number, voiceDir?: string }

let runs = 0
async function entrypoint (args: string[], env: Record<string, string> = {}): Promise<{ code: number | null, pid: number, calls: Call[] }> {
  const record = join(scratch, `record-${++runs}.jsonl`)
  const child = spawn('/bin/sh', [ENTRYPOINT, ...args], {
    env: { PATH: process.env.PATH ?? '', CHORUS_APP_DIR: appDir, CHORUS_NODE: process.execPath, FAKE_RECORD: record, TTS_VOICE_DIR: '/test-voices', ...env },
    stdio: 'inherit',
    timeout: 10_000
  })
  const code = await new Promise<number | null>(resolve => child.on('exit', resolve))
  const text = await readFile(record, 'utf8').catch(() => '')
  return { code, pid: child.pid as number, calls: text.split('\n').filter(line => line !== '').map(line => JSON.parse(line) as Call) }
}

t.test('the script is executable', async t => {
  t.ok(((await stat(ENTRYPOINT)).mode & 0o111) !== 0)
})

t.test('copies the bundled voices, then execs the service by default', async t => {
  const { code, pid, calls } = await entrypoint([])
  t.equal(code, 0)
  t.same(calls.map(c => c.args), [['voices', 'install-bundled'], ['serve']], 'copy first, then serve')
  t.equal(calls[1]?.pid, pid, 'the service replaces the shell (exec), so it gets the signals')
  t.not(calls[0]?.pid, pid, 'the copy is a child process')
  t.equal(calls[0]?.voiceDir, '/test-voices', 'the environment reaches the CLI')
})

t.test('the given command is exec\'d after the copy, and its exit code is the script\'s', async t => {
  const cli = join(appDir, 'dist/src/bin.cjs')
  const { code, pid, calls } = await entrypoint([process.execPath, cli, 'say', 'hello world'], { FAKE_EXIT_SAY: '7' })
  t.equal(code, 7)
  t.same(calls.map(c => c.args), [['voices', 'install-bundled'], ['say', 'hello world']], 'arguments kept whole')
  t.equal(calls[1]?.pid, pid)
})

t.test('the default service\'s exit code propagates', async t => {
  const { code } = await entrypoint([], { FAKE_EXIT_SERVE: '5' })
  t.equal(code, 5)
})

t.test('a failed copy stops the container with its exit code; nothing else runs', async t => {
  const { code, calls } = await entrypoint([], { FAKE_EXIT_VOICES: '3' })
  t.equal(code, 3)
  t.same(calls.map(c => c.args), [['voices', 'install-bundled']])
})

t.test('CHORUS_INSTALL_BUNDLED=0 skips the copy', async t => {
  const { code, calls } = await entrypoint([], { CHORUS_INSTALL_BUNDLED: '0' })
  t.equal(code, 0)
  t.same(calls.map(c => c.args), [['serve']])
})
