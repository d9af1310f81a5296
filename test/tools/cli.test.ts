// The commands as processes and as functions: they serve until SIGTERM or
// SIGINT (or an abort, in process), then close and return 0; a port that
// cannot be bound is exit code 1.

import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Writable } from 'node:stream'
import t from 'tap'
import { runSpawnerCommand } from '../../src/spawner/cli.js'
import { runToolsCommand } from '../../src/tools/cli.js'
import { callTool, connectHttp, startReferenceSpawner } from './helpers.js'
import { CHILD_HANG_GUARD_MS, REQUEST_HANG_GUARD_MS } from '../helpers/hang-guard.js'
import { nodeCommand, TSX_ARGS } from '../helpers/tsx.js'
import { testSource } from '../helpers/source-tree.js'

const RUNNER = testSource('tools/fixtures/run-tools.ts')

/** A stream that resolves the first log line matching `pattern`. */
function logWatcher (pattern: RegExp): { stream: Writable, line: Promise<Record<string, unknown>>, text: () => string } {
  let text = ''
  let found: (value: Record<string, unknown>) => void = () => {}
  const line = new Promise<Record<string, unknown>>((resolve) => { found = resolve })
  const stream = new Writable({
    write (chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8')
      for (const candidate of text.split('\n')) if (pattern.test(candidate)) found(JSON.parse(candidate))
      done()
    }
  })
  return { stream, line, text: () => text }
}

/** `promise`, or a failure naming `what` after `ms`: only ends a hang. */
async function within<T> (promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const limit = new Promise<never>((_resolve, reject) => { timer = setTimeout(() => { reject(new Error(`${what}: no result within ${ms} ms`)) }, ms) })
  try {
    return await Promise.race([promise, limit])
  } finally {
    clearTimeout(timer)
  }
}

t.test('chorus tools over HTTP as a process: serves until SIGTERM, then exits 0', async (t) => {
  const spawner = await startReferenceSpawner(t)
  const child = spawn(...nodeCommand([...TSX_ARGS, RUNNER, '--host', '127.0.0.1', '--port', '0', '--spawner-host', '127.0.0.1', '--spawner-port', String(spawner.port)]), {
    env: { PATH: process.env.PATH ?? '', CHORUS_TOOLS_TOKEN: 'process-token', SPAWNER_TOKEN: 'unused-spawner-token' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  const killer = setTimeout(() => { child.kill('SIGKILL') }, CHILD_HANG_GUARD_MS)
  t.teardown(() => { clearTimeout(killer); child.kill('SIGKILL') })
  const exited = once(child, 'exit') as Promise<[number | null, string | null]>
  const log = logWatcher(/tools server listening/)
  child.stderr.pipe(log.stream)
  let stdout = ''
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString('utf8') })

  const listening = await within(log.line, CHILD_HANG_GUARD_MS, 'listening log line')
  t.match(listening, { url: /^http:\/\/127\.0\.0\.1:\d+\/mcp$/, auth: true, spawnerAuth: true, spawner: `http://127.0.0.1:${spawner.port}/` })
  const client = await connectHttp(t, String(listening.url), { authorization: 'Bearer process-token' })
  t.same((await callTool(client, 'bot_list')).result, { ok: true, message: 'Listed 0 bots.', payloadJson: '[]' })
  await client.close()

  child.kill('SIGTERM')
  const [code] = await within(exited, CHILD_HANG_GUARD_MS, 'exit after SIGTERM')
  t.equal(code, 0)
  t.match(log.text(), /"msg":"shutting down"/)
  t.notMatch(log.text(), /process-token|unused-spawner-token/, 'no token in the logs')
  t.equal(stdout, '', 'nothing on stdout')
})

t.test('chorus tools in process: an abort stops it; a taken port is exit code 1', async (t) => {
  const spawner = await startReferenceSpawner(t)
  const stop = new AbortController()
  const log = logWatcher(/tools server listening/)
  const running = runToolsCommand(['--host', '127.0.0.1', '--port', '0', '--spawner-host', '127.0.0.1', '--spawner-port', String(spawner.port)],
    { env: {}, stderr: log.stream, signal: stop.signal })
  const listening = await within(log.line, CHILD_HANG_GUARD_MS, 'listening log line')
  const health = await fetch(String(listening.url).replace(/\/mcp$/, '/healthz'), { signal: AbortSignal.timeout(REQUEST_HANG_GUARD_MS) })
  t.equal(health.status, 200)
  stop.abort()
  t.equal(await within(running, CHILD_HANG_GUARD_MS, 'tools command'), 0)
  t.notMatch(log.text(), /beyond loopback/, 'no exposure warning on 127.0.0.1')

  const blocker = createServer()
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { blocker.close() })
  const taken = (blocker.address() as AddressInfo).port
  const fatal = logWatcher(/cannot listen/)
  t.equal(await within(runToolsCommand(['--host', '127.0.0.1', '--port', String(taken)], { env: {}, stderr: fatal.stream }), CHILD_HANG_GUARD_MS, 'taken port'), 1)
  t.match(await fatal.line, { level: 60, err: { code: 'EADDRINUSE' } })
})

t.test('chorus spawner in process: serves the API until aborted', async (t) => {
  const stop = new AbortController()
  const log = logWatcher(/reference spawner listening/)
  const running = runSpawnerCommand(['--host', '127.0.0.1', '--port', '0', '--token', 'spawner-token', '--max-bots', '2'], { env: {}, stderr: log.stream, signal: stop.signal })
  const listening = await within(log.line, CHILD_HANG_GUARD_MS, 'listening log line')
  t.match(listening, { auth: true, stateFile: null, bots: 0 })
  const url = String(listening.url)
  const denied = await fetch(`${url}/api/bot`, { signal: AbortSignal.timeout(REQUEST_HANG_GUARD_MS) })
  t.equal(denied.status, 401)
  const listed = await fetch(`${url}/api/bot`, { headers: { authorization: 'Bearer spawner-token' }, signal: AbortSignal.timeout(REQUEST_HANG_GUARD_MS) })
  t.same(await listed.json(), [])
  stop.abort()
  t.equal(await within(running, CHILD_HANG_GUARD_MS, 'spawner command'), 0)
  t.notMatch(log.text(), 'spawner-token')
})
