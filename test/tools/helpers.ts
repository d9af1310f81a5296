// Shared fixtures of the tools tests: real servers on 127.0.0.1, port 0,
// closed at teardown; the official MCP client as the conformance oracle.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Writable } from 'node:stream'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { REQUEST_HANG_GUARD_MS } from '../helpers/hang-guard.js'
import { BotStore } from '../../src/spawner/store.js'
import { startSpawnerServer } from '../../src/spawner/server.js'
import type { StateFile } from '../../src/spawner/state-file.js'
import { startToolsHttpServer } from '../../src/tools/http-transport.js'
import { createLogger, type Logger } from '../../src/shared/logger.js'
import type { McpServerContext } from '../../src/tools/mcp-session.js'
import type { BotName } from '../../src/shared/bot-names.js'
import type { DataToolResult } from '../../src/tools/result.js'
import { createSpawnerClient } from '../../src/tools/spawner-client.js'
import { spawnerCallLimits } from '../../src/tools/spawner-limits.js'
import { TOOLS_DEFAULTS, type OwnershipMode, type SpawnerClientConfig, type ToolsHttpConfig } from '../../src/tools/config.js'

/** The slice of a tap Test these helpers need. */
export interface Teardown {
  teardown: (fn: () => unknown) => void
}

export interface MemoryLog {
  logger: Logger
  text: () => string
}

/** A logger whose lines stay in memory, to assert on what gets logged. */
export function memoryLogger (level: 'info' | 'debug' | 'silent' = 'info'): MemoryLog {
  const chunks: string[] = []
  const sink = new Writable({
    write (chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'))
      done()
    }
  })
  return { logger: createLogger('test', level, sink), text: () => chunks.join('') }
}

export interface ReferenceSpawner {
  port: number
  url: string
  store: BotStore
}

export async function startReferenceSpawner (t: Teardown, options: { token?: string, maxBots?: number, stateFile?: StateFile } = {}): Promise<ReferenceSpawner> {
  const store = new BotStore(options.maxBots ?? 100, await options.stateFile?.load())
  const server = await startSpawnerServer({
    host: '127.0.0.1',
    port: 0,
    token: options.token,
    store,
    stateFile: options.stateFile,
    logger: memoryLogger('silent').logger
  })
  t.teardown(server.close)
  return { port: server.port, url: server.url, store }
}

export interface RecordedRequest {
  method: string
  url: string
  headers: IncomingMessage['headers']
  body: string
}

export type FakeHandler = (request: RecordedRequest, response: ServerResponse) => void | Promise<void>

export interface FakeSpawner {
  port: number
  requests: RecordedRequest[]
}

/**
 * A stand-in for a third-party spawner that misbehaves in ways the reference
 * spawner never does: long or empty error bodies, slow answers, cycles.
 */
export async function startFakeSpawner (t: Teardown, handler: FakeHandler): Promise<FakeSpawner> {
  const requests: RecordedRequest[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') }
      requests.push(recorded)
      void Promise.resolve(handler(recorded, res)).catch(() => { res.destroy() })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => { resolve() }))
  })
  return { port: (server.address() as AddressInfo).port, requests }
}

export function sendJson (response: ServerResponse, status: number, body: unknown, reason?: string): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body)
  const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }
  if (reason === undefined) response.writeHead(status, headers)
  else response.writeHead(status, reason, headers)
  response.end(text)
}

/** A port with nothing listening: bound, then released. */
export async function closedPort (): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => { resolve() }))
  return port
}

export interface ToolsOptions {
  spawnerPort: number
  spawnerToken?: string
  identity?: BotName
  timeoutMs?: number
  retries?: number
  maxBodyBytes?: number
  token?: string
  allowedOrigins?: string[]
  logger?: Logger
  maxSessions?: number
  sessionsPerMinute?: number
  maxBatch?: number
  callsPerSession?: number
  spawnerCalls?: number
  maxAnswerBytes?: number
  ownership?: OwnershipMode
}

export function spawnerConfig (options: ToolsOptions): SpawnerClientConfig {
  return {
    host: '127.0.0.1',
    port: options.spawnerPort,
    token: options.spawnerToken,
    timeoutMs: options.timeoutMs ?? 2000,
    retries: options.retries ?? 0,
    maxBodyBytes: options.maxBodyBytes ?? TOOLS_DEFAULTS.spawnerMaxBodyBytes
  }
}

export function toolsContext (options: ToolsOptions): McpServerContext {
  return {
    spawner: createSpawnerClient(spawnerConfig(options), [options.token]),
    identity: options.identity,
    ownership: options.ownership ?? 'actions',
    logger: options.logger ?? memoryLogger('silent').logger,
    secrets: [options.spawnerToken, options.token].filter((secret): secret is string => secret !== undefined),
    maxBatch: options.maxBatch ?? TOOLS_DEFAULTS.maxBatch,
    calls: spawnerCallLimits(options.callsPerSession ?? TOOLS_DEFAULTS.callsPerSession, options.spawnerCalls ?? TOOLS_DEFAULTS.spawnerCalls, options.maxAnswerBytes ?? TOOLS_DEFAULTS.maxAnswerBytes)
  }
}

export interface ToolsServer {
  url: string
  mcpUrl: string
  /** What its sessions share: the spawner call limits' counts among it. */
  context: McpServerContext
}

export async function startTools (t: Teardown, options: ToolsOptions): Promise<ToolsServer> {
  const config: ToolsHttpConfig = {
    host: '127.0.0.1',
    port: 0,
    path: '/mcp',
    token: options.token,
    allowedOrigins: options.allowedOrigins ?? [],
    maxSessions: options.maxSessions ?? TOOLS_DEFAULTS.maxSessions,
    // Tests open many sessions from 127.0.0.1; the ones about this limit set it.
    sessionsPerMinute: options.sessionsPerMinute ?? 1_000_000
  }
  const context = toolsContext(options)
  const server = await startToolsHttpServer({ config, context })
  t.teardown(server.close)
  return { url: server.url, mcpUrl: `${server.url}/mcp`, context }
}

export async function connectHttp (t: Teardown, mcpUrl: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'chorus-tests', version: '0.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers } }))
  t.teardown(async () => { await client.close() })
  return client
}

/** Tools server + official client over HTTP, against a given spawner port. */
export async function toolsClient (t: Teardown, options: ToolsOptions): Promise<Client> {
  const tools = await startTools(t, options)
  return await connectHttp(t, tools.mcpUrl)
}

export interface ToolOutcome {
  result: DataToolResult
  isError: boolean
  text: string
}

/** Calls a tool and checks that the text content and structuredContent agree. */
export async function callTool (client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolOutcome> {
  const raw = await client.callTool({ name, arguments: args })
  const content = raw.content as Array<{ type: string, text: string }>
  const text = content[0]?.text ?? ''
  const result = raw.structuredContent as unknown as DataToolResult
  if (JSON.stringify(JSON.parse(text)) !== JSON.stringify(result)) throw new Error('text content and structuredContent differ')
  return { result, isError: raw.isError === true, text }
}

export interface RawAnswer {
  status: number
  headers: Headers
  text: string
  body: any
}

/** One raw POST to /mcp, no SDK in between; the body is sent as given when a string. */
export async function postMcp (url: string, body: unknown, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_HANG_GUARD_MS)
  })
  const text = await response.text()
  let parsed: unknown
  try {
    parsed = text === '' ? undefined : JSON.parse(text)
  } catch {
    parsed = undefined
  }
  return { status: response.status, headers: response.headers, text, body: parsed }
}

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } }
} as const

/** Initializes a raw session; returns the headers every later POST of it needs. */
export async function openRawSession (mcpUrl: string): Promise<Record<string, string>> {
  const init = await postMcp(mcpUrl, INITIALIZE)
  const id = init.headers.get('mcp-session-id')
  if (init.status !== 200 || id === null) throw new Error(`initialize failed: ${init.status} ${init.text}`)
  return { 'mcp-session-id': id }
}
