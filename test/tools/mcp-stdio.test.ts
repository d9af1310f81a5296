// The tool server over stdio, spawned as a process: through the official
// client's stdio transport, and raw, line by line.

import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import t from 'tap'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { callTool, startReferenceSpawner, type Teardown } from './helpers.js'
import { CHILD_HANG_GUARD_MS } from '../helpers/hang-guard.js'
import { nodeCommand, TSX_ARGS } from '../helpers/tsx.js'
import { testSource } from '../helpers/source-tree.js'

const RUNNER = testSource('tools/fixtures/run-tools.ts')

function childEnv (extra: Record<string, string>): Record<string, string> {
  // Only what the child needs: no stray SPAWNER_* or identity from the outer shell.
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...extra }
}

async function connectStdio (t: Teardown, args: string[], env: Record<string, string>): Promise<{ client: Client, stderr: () => string }> {
  const [command, commandArgs] = nodeCommand([...TSX_ARGS, RUNNER, '--stdio', ...args])
  const transport = new StdioClientTransport({
    command,
    args: commandArgs,
    env: childEnv(env),
    stderr: 'pipe'
  })
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8') })
  const client = new Client({ name: 'chorus-tests', version: '0.0.0' })
  await client.connect(transport)
  t.teardown(async () => { await client.close() })
  return { client, stderr: () => stderr }
}

t.test('every tool through the official stdio client', async (t) => {
  const spawner = await startReferenceSpawner(t, { token: 'stdio-token' })
  spawner.store.create({ first: 'Me', last: 'Gov' }, { level: 'GOVERNOR' })
  const { client, stderr } = await connectStdio(t, ['--spawner-host', '127.0.0.1', '--spawner-port', String(spawner.port)], {
    SPAWNER_TOKEN: 'stdio-token',
    OPENSIM_BOT_FIRST: 'Me',
    OPENSIM_BOT_LAST: 'Gov'
  })
  const { tools } = await client.listTools()
  t.equal(tools.length, 7)

  t.same((await callTool(client, 'bot_list')).result, { ok: true, message: 'Listed 1 bot.', payloadJson: '["Me Gov"]' })
  t.equal((await callTool(client, 'bot_create', { first: 'Kid', last: 'Builder', level: 'builder' })).result.message,
    'Created bot Kid Builder (level BUILDER, parent Me Gov).')
  t.match(JSON.parse((await callTool(client, 'bot_get', { first: 'Kid', last: 'Builder' })).result.payloadJson ?? ''), { parent: 'Me Gov' })
  t.equal((await callTool(client, 'bot_start', { first: 'Kid', last: 'Builder' })).result.ok, true)
  t.equal((await callTool(client, 'BotStop', { first: 'Kid', last: 'Builder' })).result.ok, true)
  t.equal((await callTool(client, 'bot_restart', { first: 'Kid', last: 'Builder' })).result.ok, true)
  t.equal(spawner.store.get({ first: 'Kid', last: 'Builder' }).containerStatus[0]?.status, 'running')
  t.equal((await callTool(client, 'bot_delete', { first: 'Kid', last: 'Builder' })).result.ok, true)
  t.equal((await callTool(client, 'bot_start', { first: 'No', last: 'Body' })).result.ok, false)

  const unknown = client.callTool({ name: 'bot_fly', arguments: {} })
  await t.rejects(unknown, { code: -32602 })

  t.match(stderr(), /"msg":"tools server on stdio"/, 'logs go to stderr')
  t.notMatch(stderr(), 'stdio-token', 'the token is never logged')
})

t.test('raw lines: bad messages get errors, stdout holds only JSON-RPC', async (t) => {
  const spawner = await startReferenceSpawner(t)
  const child = spawn(...nodeCommand([...TSX_ARGS, RUNNER, '--stdio', '--spawner-host', '127.0.0.1', '--spawner-port', String(spawner.port)]), {
    env: childEnv({}),
    stdio: ['pipe', 'pipe', 'pipe']
  })
  const killer = setTimeout(() => { child.kill('SIGKILL') }, CHILD_HANG_GUARD_MS)
  t.teardown(() => { clearTimeout(killer); child.kill('SIGKILL') })
  const lines = createInterface({ input: child.stdout })
  const closed = once(lines, 'close')
  const exited = once(child, 'exit') as Promise<[number | null]>
  const received: unknown[] = []
  const nonJson: string[] = []
  lines.on('line', (line) => {
    try {
      received.push(JSON.parse(line))
    } catch {
      nonJson.push(line)
    }
  })

  const send = (text: string): void => { child.stdin.write(text + '\n') }
  send('this is not json')
  send('{"jsonrpc":"2.0","id":1,"method":"tools/list"}')
  send('{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}')
  send('')
  send('{"jsonrpc":"2.0","method":"notifications/initialized"}')
  send('[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":4,"method":"nope"}]')
  send('{"jsonrpc":"2.0","id":5,"method":"initialize","params":{"protocolVersion":"2024-11-05"}}')
  send('{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"bot_get","arguments":{"first":"a/b","last":"c"}}}')
  send('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"bot_list"}}')
  send(JSON.stringify(Array.from({ length: 33 }, (_, index) => ({ jsonrpc: '2.0', id: 100 + index, method: 'ping' }))))
  child.stdin.end()
  const [code] = await exited
  t.equal(code, 0, 'exits cleanly when stdin closes')
  await closed

  t.same(nonJson, [], 'nothing but JSON on stdout')
  const byId = new Map((received.flat() as Array<{ id: unknown }>).map((message) => [message.id, message]))
  t.match(received[0], { jsonrpc: '2.0', id: null, error: { code: -32700 } }, 'a parse error, answered in order')
  t.match(byId.get(1), { error: { code: -32600, message: 'Invalid Request: send initialize first' } })
  t.match(byId.get(2), { result: { protocolVersion: '2024-11-05', serverInfo: { name: 'chorus-tools' } } })
  t.same(received.find(Array.isArray), [
    { jsonrpc: '2.0', id: 3, result: {} },
    { jsonrpc: '2.0', id: 4, error: { code: -32601, message: 'Method not found: nope' } }
  ])
  t.match(byId.get(5), { error: { code: -32600, message: 'Invalid Request: the session is already initialized' } })
  t.match(byId.get(6), { result: { isError: true, structuredContent: { ok: false, message: /without "\/"/ } } })
  t.match(byId.get(7), { result: { isError: false, structuredContent: { ok: true, payloadJson: '[]' } } })
  t.ok(received.some((message) => JSON.stringify(message) ===
    '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a batch may hold at most 32 messages but this one holds 33"}}'),
  'a batch over the maximum gets one error, none of its pings an answer')
  t.notOk(byId.has(100))
  t.equal(received.length, 8, 'no answers to notifications or blank lines')
})
