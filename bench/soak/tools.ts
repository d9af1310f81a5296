// The soak's tool traffic: agents cycling a small bot tree through the tool
// server and the reference spawner, over raw JSON-RPC on MCP Streamable HTTP.
// One cycle creates a builder under the active bot and an actor under it,
// starts, reads, stops and lists, then deletes both (children first). A few
// sessions are shared by the cycles and one is replaced every so often, as
// agents come and go. Latencies go into a fixed-size histogram, so a long run
// holds no per-call records.

import { createHistogram, type RecordableHistogram } from 'node:perf_hooks'
import { ChorusError } from '../../src/errors.js'

const ROOT_BOT = { first: 'Soak', last: 'Root' } as const

const SESSIONS = 4
/** Every this many cycles, one session is closed and a new one opened. */
const SESSION_TURNOVER = 50
const CALL_TIMEOUT_MS = 30_000

export interface ToolsFigures {
  cycles: number
  calls: number
  errors: number
  /** Call latencies in microseconds. */
  latency: RecordableHistogram
  lastError?: string
}

/** A session and the cycles using it: a replaced one is closed when the last of them ends. */
interface Session {
  id: Promise<string>
  users: number
  retired: boolean
}

export class ToolsDriver {
  readonly figures: ToolsFigures = { cycles: 0, calls: 0, errors: 0, latency: createHistogram() }
  #mcpUrl: string
  #sessions: Session[] = []
  #nextId = 0

  constructor (toolsUrl: string) {
    this.#mcpUrl = toolsUrl
    for (let index = 0; index < SESSIONS; index++) this.#sessions.push(this.#newSession())
  }

  /** Makes the active bot exist in the spawner: the tools create bots under it. */
  static async createRoot (spawnerUrl: string): Promise<void> {
    const response = await fetch(`${spawnerUrl}/api/bot/${ROOT_BOT.first}/${ROOT_BOT.last}`, {
      method: 'POST',
      body: new URLSearchParams({ level: 'GOVERNOR' }),
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS)
    })
    if (!response.ok) throw new ChorusError('ERR_SOAK', `creating the root bot failed: ${response.status} ${await response.text()}`)
  }

  /** One create/start/stop/delete cycle with names unique to `index`. */
  async cycle (index: number): Promise<void> {
    const slot = index % SESSIONS
    if (index > 0 && index % SESSION_TURNOVER === 0) {
      const old = this.#sessions[slot]
      old.retired = true
      this.#sessions[slot] = this.#newSession()
      if (old.users === 0) await this.#close(old)
    }
    const current = this.#sessions[slot]
    current.users++
    try {
      await this.#steps(await current.id, index)
    } finally {
      current.users--
      if (current.retired && current.users === 0) await this.#close(current)
    }
    this.figures.cycles++
  }

  async #steps (session: string, index: number): Promise<void> {
    const builder = { first: `B${index}`, last: 'Soak' }
    const actor = { first: `A${index}`, last: 'Soak' }
    const steps: Array<[string, Record<string, string>]> = [
      ['bot_create', { ...builder, level: 'BUILDER' }],
      ['bot_create', { ...actor, level: 'ACTOR', parent: `${builder.first} ${builder.last}` }],
      ['bot_start', actor],
      ['bot_get', actor],
      ['bot_stop', actor],
      ['bot_list', {}],
      ['bot_delete', actor],
      ['bot_delete', builder]
    ]
    for (const [tool, args] of steps) await this.#call(session, tool, args)
  }

  async close (): Promise<void> {
    for (const session of this.#sessions) await this.#close(session)
  }

  async #call (session: string, tool: string, args: Record<string, string>): Promise<void> {
    const started = performance.now()
    this.figures.calls++
    let failure: string | undefined
    try {
      const response = await this.#post({
        method: 'POST',
        headers: { 'mcp-session-id': session },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++this.#nextId, method: 'tools/call', params: { name: tool, arguments: args } })
      })
      const answer = await response.json() as { result?: { structuredContent?: { ok?: boolean, message?: string } }, error?: { message?: string } }
      const result = answer.result?.structuredContent
      if (response.status !== 200) failure = `${tool}: HTTP ${response.status}`
      else if (result?.ok !== true) failure = `${tool}: ${result?.message ?? answer.error?.message ?? 'no result'}`
    } catch (error) {
      failure = `${tool}: ${error instanceof Error ? error.message : String(error)}`
    }
    this.figures.latency.record(Math.max(1, Math.round((performance.now() - started) * 1000)))
    if (failure !== undefined) this.#fail(failure)
  }

  async #open (): Promise<string> {
    const response = await this.#post({
      method: 'POST',
      body: JSON.stringify({ jsonrpc: '2.0', id: ++this.#nextId, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'chorus-soak', version: '1' } } })
    })
    const id = response.headers.get('mcp-session-id')
    await response.body?.cancel()
    if (response.status !== 200 || id === null) throw new ChorusError('ERR_SOAK', `initialize failed: HTTP ${response.status}`)
    return id
  }

  #newSession (): Session {
    const session: Session = { id: this.#open(), users: 0, retired: false }
    // A failed initialize surfaces in the cycles that await it, not as an unhandled rejection.
    session.id.catch(() => undefined)
    return session
  }

  async #close (session: Session): Promise<void> {
    try {
      const response = await this.#post({ method: 'DELETE', headers: { 'mcp-session-id': await session.id } })
      if (response.status !== 204) this.#fail(`closing a session: HTTP ${response.status}`)
    } catch (error) {
      this.#fail(`closing a session: ${error instanceof Error ? error.message : String(error)}`)
    }
  }

  #fail (what: string): void {
    this.figures.errors++
    this.figures.lastError = what
  }

  async #post (init: { method: string, headers?: Record<string, string>, body?: string }): Promise<Response> {
    return await fetch(this.#mcpUrl, {
      method: init.method,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...init.headers },
      body: init.body,
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS)
    })
  }
}
