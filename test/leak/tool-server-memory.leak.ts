// Issue 42's finding 7: the tool server's memory under a hostile spawner.
// Four MCP sessions each send a batch of 32 tool calls at once, against a
// spawner that answers every call with the same body (2xx and 5xx by turn,
// chunked, so its size shows only as it comes). The tool server (`chorus
// tools`, a child process, so its peak is its own) reads at most
// SPAWNER_MAX_BODY_BYTES of an answer (64 KiB of a refusal), at most
// CHORUS_TOOLS_SPAWNER_CALLS at once, and holds results until their answers
// are written within CHORUS_TOOLS_MAX_ANSWER_BYTES. Judged against the same
// load with 1 KB answers, measured in the same run: the peak over it stays
// within the bound docs/security.md states, calls in flight × body limit × 3
// (the bytes arriving, those of finished calls the collector has not yet
// freed, their text) + the answer budget × 4 (results held, the answer's
// text and its bytes).

import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { PACKAGE_ROOT } from '../../src/package-root.js'
import { TSX_ARGS } from '../helpers/tsx.js'
import { figures, MB, most, repeat, ROUNDS } from './figures.js'

const SESSIONS = 4
const BATCH = 32
const HUGE = 120 * 1024 * 1024
const MAX_BODY = 4 * 1024 * 1024
const CALLS = 16
const MAX_ANSWER = 16 * 1024 * 1024
/** docs/security.md's bound on the tool server's peak over its idle memory. */
const READS = CALLS * MAX_BODY * 3
const BOUND = READS + MAX_ANSWER * 4

function statusBytes (pid: number, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  if (match === null) throw new Error(`no ${field} for ${pid}`)
  return Number(match[1]) * 1024
}

/** Writes `total` bytes of JSON-ish text as the reader takes them, until it
 * leaves; chunked, without Content-Length, so its size shows only as it comes. */
async function stream (response: ServerResponse, status: number, total: number): Promise<void> {
  response.writeHead(status, { 'content-type': 'application/json' })
  const chunk = Buffer.alloc(64 * 1024, '"')
  let written = 0
  while (written < total && !response.destroyed) {
    const piece = chunk.subarray(0, Math.min(chunk.length, total - written))
    written += piece.length
    if (!response.write(piece)) await Promise.race([once(response, 'drain'), once(response, 'close')])
  }
  if (!response.destroyed) response.end()
}

/** A spawner answering every call with `bytes` of body, 200 and 500 by turn. */
async function startSpawner (bytes: () => number): Promise<{ port: number, close: () => Promise<void> }> {
  let turn = 0
  const server = createServer((request, response) => {
    request.resume()
    void stream(response, turn++ % 2 === 0 ? 200 : 500, bytes()).catch(() => response.destroy())
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      server.closeAllConnections()
      await new Promise(resolve => server.close(resolve))
    }
  }
}

/** `url`: the MCP endpoint, as the server logs it. */
interface ToolServer { child: ChildProcess, url: string }

async function startTools (spawnerPort: number): Promise<ToolServer> {
  const child = spawn(process.execPath, [...TSX_ARGS, join(PACKAGE_ROOT, 'src/bin.cts'), 'tools', '--host', '127.0.0.1', '--port', '0'], {
    env: { PATH: process.env.PATH ?? '', SPAWNER_HOST: '127.0.0.1', SPAWNER_PORT: String(spawnerPort), SPAWNER_RETRIES: '0', SPAWNER_MAX_BODY_BYTES: String(MAX_BODY), CHORUS_TOOLS_SPAWNER_CALLS: String(CALLS), CHORUS_LOG_LEVEL: 'info', CHORUS_TOOLS_MAX_ANSWER_BYTES: String(MAX_ANSWER) },
    stdio: ['ignore', 'ignore', 'pipe']
  })
  let text = ''
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      text += String(chunk)
      const listening = /"url":"([^"]+)".*"tools server listening"/.exec(text)
      if (listening !== null) resolve(listening[1] as string)
    })
    child.once('exit', code => reject(new Error(`chorus tools exited with ${code}: ${text}`)))
  })
  return { child, url }
}

async function rpc (url: string, body: unknown, session?: string): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' }
  if (session !== undefined) headers['mcp-session-id'] = session
  return await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) })
}

/** Four sessions, each one batch of 32 bot_get calls at once; resolves once every answer was read. */
async function load (url: string): Promise<number> {
  const sessions = await Promise.all(Array.from({ length: SESSIONS }, async () => {
    const answer = await rpc(url, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'leak', version: '1' } } })
    await answer.arrayBuffer()
    return answer.headers.get('mcp-session-id') as string
  }))
  const batch = Array.from({ length: BATCH }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'bot_get', arguments: { first: 'Bot', last: `Number${i}` } } }))
  const answers = await Promise.all(sessions.map(async session => await (await rpc(url, batch, session)).json() as unknown[]))
  return answers.flat().length
}

/** Peak RSS over the tool server's idle RSS under the load, with `bytes` per spawner answer. */
async function peakOverIdle (t: Test, bytes: number): Promise<number> {
  const spawner = await startSpawner(() => bytes)
  const tools = await startTools(spawner.port)
  try {
    const pid = tools.child.pid as number
    await new Promise(resolve => setTimeout(resolve, 500))
    const idle = statusBytes(pid, 'VmRSS')
    t.equal(await load(tools.url), SESSIONS * BATCH, 'every call answered')
    return statusBytes(pid, 'VmHWM') - idle
  } finally {
    tools.child.kill('SIGTERM')
    await once(tools.child, 'exit')
    await spawner.close()
  }
}

t.test('4 sessions × 32-call batches: 120 MB answers, and 1 MiB answers read whole, stay within the stated bound over 1 KB answers', async t => {
  const small = await repeat(ROUNDS, async () => await peakOverIdle(t, 1024))
  const huge = await repeat(ROUNDS, async () => await peakOverIdle(t, HUGE))
  const whole = await repeat(ROUNDS, async () => await peakOverIdle(t, 1024 * 1024))
  figures(t, 'peak over idle, 1 KB answers', small, 'MB')
  figures(t, 'peak over idle, 120 MB answers (read up to the body limit)', huge, 'MB')
  figures(t, 'peak over idle, 1 MiB answers (read whole, held until written)', whole, 'MB')
  figures(t, 'bound: calls in flight × body limit × 3 + answer budget × 4', [BOUND], 'MB')
  t.ok(most(huge) <= most(small) + READS, `120 MB answers: ${(most(huge) / MB).toFixed(0)} MB ≤ ${(most(small) / MB).toFixed(0)} + ${(READS / MB).toFixed(0)} MB (no answer is held: every one is cut)`)
  t.ok(most(whole) <= most(small) + BOUND, `1 MiB answers: ${(most(whole) / MB).toFixed(0)} MB ≤ ${(most(small) / MB).toFixed(0)} + ${(BOUND / MB).toFixed(0)} MB`)
})
