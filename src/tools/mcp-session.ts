// One MCP conversation: the initialize handshake, then ping, tools/list and
// tools/call. Transports own the wire (HTTP or stdio); this owns the
// protocol state and answers one decoded message at a time.

import { randomUUID } from 'node:crypto'
import { expectedMessage, isPlainObject } from '../validate.js'
import { checkArguments } from './arguments.js'
import type { BotName } from '../shared/bot-names.js'
import type { OwnershipMode } from './config.js'
import { SERVER_INSTRUCTIONS, TOOL_DEFINITIONS, describeTool, findTool } from './definitions.js'
import { JsonRpcError, internalError, invalidParams, invalidRequest, methodNotFound } from './errors.js'
import { failure, success, type Dispatchable, type JsonRpcId, type JsonRpcResponse } from './jsonrpc.js'
import type { Logger } from '../shared/logger.js'
import type { AnswerHold } from './answer-budget.js'
import { redactResult, refused, toCallToolResult, type DataToolResult } from './result.js'
import type { SpawnerClient } from './spawner-client.js'
import type { ToolMetrics } from './metrics.js'
import { limitSpawnerCalls, type SpawnerCallLimits } from './spawner-limits.js'

/** Newest first; a client asking for another version is offered the newest. */
export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const

const SERVER_INFO = { name: 'chorus-tools', title: 'Chorus bot spawner tools', version: '0.1.0' } as const

/** What every session of one server shares. */
export interface McpServerContext {
  spawner: SpawnerClient
  identity: BotName | undefined
  /** Which tools the ownership rule guards (see config.ts). */
  ownership: OwnershipMode
  logger: Logger
  /** Strings that must never leave the server (the spawner token). */
  secrets: readonly string[]
  /** Most messages one batch may hold. */
  maxBatch: number
  /** How many spawner calls may run at once, per session and in total. */
  calls: SpawnerCallLimits
  /** Counts tool calls for GET /metrics (the HTTP transport's); none on stdio. */
  metrics?: ToolMetrics
}

export class McpSession {
  readonly id = randomUUID()
  #context: McpServerContext
  #protocolVersion: string | undefined
  #inFlight = new Map<JsonRpcId, AbortController>()
  #spawner: SpawnerClient

  constructor (context: McpServerContext) {
    this.#context = context
    this.#spawner = limitSpawnerCalls(context.spawner, context.calls)
  }

  get protocolVersion (): string | undefined {
    return this.#protocolVersion
  }

  /** Whether a request of this session is being answered. */
  get busy (): boolean {
    return this.#inFlight.size > 0
  }

  /** The answer owed for `message`, or undefined for a notification. Never
   * throws. A tool's result takes its bytes from `hold`, the answer's share
   * of the server's answer budget (answer-budget.ts). */
  async dispatch (message: Dispatchable, signal?: AbortSignal, hold?: AnswerHold): Promise<JsonRpcResponse | undefined> {
    if (message.kind === 'notification') {
      this.#notice(message.method, message.params)
      return undefined
    }
    const controller = new AbortController()
    this.#inFlight.set(message.id, controller)
    const combined = signal === undefined ? controller.signal : AbortSignal.any([signal, controller.signal])
    try {
      return success(message.id, await this.#answer(message.method, message.params, combined, hold))
    } catch (error) {
      if (error instanceof JsonRpcError) return failure(message.id, error, this.#context.secrets)
      this.#context.logger.error({ err: error, method: message.method }, 'request failed unexpectedly')
      return failure(message.id, internalError())
    } finally {
      this.#inFlight.delete(message.id)
    }
  }

  async #answer (method: string, params: unknown, signal: AbortSignal, hold: AnswerHold | undefined): Promise<unknown> {
    if (method === 'ping') return {}
    if (method === 'initialize') return this.#initialize(params)
    if (method !== 'tools/list' && method !== 'tools/call') throw methodNotFound(method)
    if (this.#protocolVersion === undefined) throw invalidRequest('Invalid Request: send initialize first')
    if (method === 'tools/list') return { tools: TOOL_DEFINITIONS.map(describeTool) }
    return await this.#callTool(params, signal, hold)
  }

  #initialize (params: unknown): unknown {
    if (this.#protocolVersion !== undefined) throw invalidRequest('Invalid Request: the session is already initialized')
    if (!isPlainObject(params)) throw invalidParams(expectedMessage('an object', 'params', params), { field: 'params' })
    const requested = params.protocolVersion
    if (typeof requested !== 'string') {
      throw invalidParams(expectedMessage('a string', 'params.protocolVersion', requested), { field: 'params.protocolVersion' })
    }
    const supported: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS
    this.#protocolVersion = supported.includes(requested) ? requested : SUPPORTED_PROTOCOL_VERSIONS[0]
    return {
      protocolVersion: this.#protocolVersion,
      capabilities: { tools: { listChanged: false } },
      serverInfo: SERVER_INFO,
      instructions: SERVER_INSTRUCTIONS
    }
  }

  async #callTool (params: unknown, signal: AbortSignal, hold: AnswerHold | undefined): Promise<unknown> {
    if (!isPlainObject(params)) throw invalidParams(expectedMessage('an object', 'params', params), { field: 'params' })
    const name = params.name
    const tool = typeof name === 'string' ? findTool(name) : undefined
    if (tool === undefined) {
      const names = TOOL_DEFINITIONS.map((candidate) => candidate.name).join(', ')
      throw invalidParams(expectedMessage(`one of ${names}`, 'params.name', name), { field: 'params.name' })
    }
    const args = checkArguments(tool.inputSchema, params.arguments)
    const started = performance.now()
    const { identity, ownership, logger, secrets } = this.#context
    const result = redactResult(await tool.run(args, { spawner: this.#spawner, identity, ownership, signal }), secrets)
    const ms = performance.now() - started
    this.#context.metrics?.called(tool.name, result.ok, ms / 1000)
    logger.info({ tool: tool.name, ok: result.ok, status: result.status, ms: Math.round(ms) }, 'tool called')
    return held(result, hold)
  }

  #notice (method: string, params: unknown): void {
    // A cancelled request stops its spawner call; its answer is then moot.
    if (method === 'notifications/cancelled' && isPlainObject(params)) {
      const id = params.requestId
      if (typeof id === 'string' || typeof id === 'number') this.#inFlight.get(id)?.abort()
    }
  }
}

/** The result as MCP sends it, if the answer's budget has room for the
 * bytes it takes in the answer (its text and its structured copy, as
 * written); else a refusal that says why. */
function held (result: DataToolResult, hold: AnswerHold | undefined): ReturnType<typeof toCallToolResult> {
  const answer = toCallToolResult(result)
  const bytes = Buffer.byteLength(JSON.stringify(answer))
  if (hold === undefined || hold.take(bytes)) return answer
  const { budget } = hold
  return toCallToolResult(refused(`The tool server holds ${budget.held} bytes of answers not yet sent, at most ${budget.limit} (CHORUS_TOOLS_MAX_ANSWER_BYTES): this result of ${bytes} bytes was dropped. Call the tool again, alone or later.`))
}
