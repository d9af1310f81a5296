// scripts/tools-entrypoint.sh, run directly: SPAWNER_HOST, SPAWNER_PORT and
// SPAWNER_TOKEN become --spawner-host, --spawner-port and --spawner-token
// for the tool server, ahead of the container's own arguments.

import { execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { chmod, mkdtemp, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { promisify } from 'node:util'
import t from 'tap'
import { parseToolsConfig } from '../../src/tools/config.js'
import { startReferenceSpawner, type Teardown } from './helpers.js'
import { CHILD_HANG_GUARD_MS } from '../helpers/hang-guard.js'
import { TSX_MAIN_THREAD } from '../helpers/tsx.js'
import { testSource } from '../helpers/source-tree.js'
import { PACKAGE_ROOT } from '../../src/package-root.js'

const ROOT = PACKAGE_ROOT
const SCRIPT = join(ROOT, 'scripts', 'tools-entrypoint.sh')
const RUNNER = testSource('tools/fixtures/run-tools.ts')
const run = promisify(execFile)

/** An executable that prints each argument it was given on its own line. */
async function fakeTarget (t: Teardown, body = 'for arg in "$@"; do printf \'%s\\n\' "$arg"; done'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-entrypoint-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  const path = join(dir, 'target')
  await writeFile(path, `#!/bin/sh\n${body}\n`)
  await chmod(path, 0o755)
  return path
}

async function argsPassed (target: string, env: Record<string, string>, args: string[] = []): Promise<string[]> {
  const { stdout } = await run('/bin/sh', [SCRIPT, ...args], { env: { PATH: process.env.PATH ?? '', CHORUS_TOOLS_EXEC: target, ...env }, timeout: 5000 })
  return stdout === '' ? [] : stdout.replace(/\n$/, '').split('\n')
}

t.test('the script is executable, as a container entrypoint must be', async (t) => {
  t.ok(((await stat(SCRIPT)).mode & 0o111) !== 0)
})

t.test('maps the three variables to the three flags', async (t) => {
  const target = await fakeTarget(t)
  const args = await argsPassed(target, { SPAWNER_HOST: 'spawner.internal', SPAWNER_PORT: '9001', SPAWNER_TOKEN: 'tok with $pecial "chars"' }, ['--stdio'])
  t.same(args, ['--spawner-host', 'spawner.internal', '--spawner-port', '9001', '--spawner-token', 'tok with $pecial "chars"', '--stdio'])
})

t.test('unset or empty variables add no flag', async (t) => {
  const target = await fakeTarget(t)
  t.same(await argsPassed(target, {}), [])
  t.same(await argsPassed(target, { SPAWNER_HOST: '', SPAWNER_PORT: '8993' }), ['--spawner-port', '8993'])
  t.same(await argsPassed(target, { SPAWNER_TOKEN: 'only-token' }, ['--port', '1']), ['--spawner-token', 'only-token', '--port', '1'])
})

t.test('the mapped flags configure the tool server, and container arguments win', async (t) => {
  const target = await fakeTarget(t)
  const args = await argsPassed(target, { SPAWNER_HOST: 'from-env', SPAWNER_PORT: '9001', SPAWNER_TOKEN: ' tok ' }, ['--spawner-port', '9002'])
  const config = parseToolsConfig(args, {})
  t.same(config.spawner, { host: 'from-env', port: 9002, token: 'tok', timeoutMs: 10000, retries: 2, maxBodyBytes: 4 * 1024 * 1024 })
})

t.test('the exec replaces the shell and keeps the exit code', async (t) => {
  const target = await fakeTarget(t, 'exit 3')
  await t.rejects(run('/bin/sh', [SCRIPT], { env: { PATH: process.env.PATH ?? '', CHORUS_TOOLS_EXEC: target }, timeout: 5000 }), { code: 3 })
})

t.test('end to end: the entrypoint starts a tool server that reaches the spawner', async (t) => {
  const spawner = await startReferenceSpawner(t, { token: 'entry-token' })
  const target = await fakeTarget(t, `exec "${process.execPath}" --import "${TSX_MAIN_THREAD}" "${RUNNER}" "$@"`)
  const child = spawn('/bin/sh', [SCRIPT, '--stdio'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', CHORUS_TOOLS_EXEC: target, SPAWNER_HOST: '127.0.0.1', SPAWNER_PORT: String(spawner.port), SPAWNER_TOKEN: 'entry-token' },
    stdio: ['pipe', 'pipe', 'pipe']
  })
  const killer = setTimeout(() => { child.kill('SIGKILL') }, CHILD_HANG_GUARD_MS)
  t.teardown(() => { clearTimeout(killer); child.kill('SIGKILL') })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8') })
  const answers: Array<{ id: number, result?: { structuredContent?: unknown } }> = []
  createInterface({ input: child.stdout }).on('line', (line) => { answers.push(JSON.parse(line)) })
  const exited = once(child, 'exit') as Promise<[number | null]>

  child.stdin.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}\n')
  child.stdin.write('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bot_list","arguments":{}}}\n')
  child.stdin.end()
  const [code] = await exited
  t.equal(code, 0)
  t.same(answers.find((answer) => answer.id === 2)?.result?.structuredContent, { ok: true, message: 'Listed 0 bots.', payloadJson: '[]' })
  t.match(stderr, /"spawnerAuth":true/)
  t.notMatch(stderr, 'entry-token')
})
