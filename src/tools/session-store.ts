// Sessions of the HTTP transport, keyed by the Mcp-Session-Id issued on
// initialize. Bounded in count and idle time so that clients which never
// say goodbye cannot grow the server without limit.

import type { McpSession } from './mcp-session.js'

export interface SessionStoreLimits {
  maxSessions: number
  idleMs: number
}

export const DEFAULT_SESSION_LIMITS: SessionStoreLimits = { maxSessions: 1000, idleMs: 60 * 60 * 1000 }

export class SessionStore {
  // A Map keeps insertion order; touching a session re-inserts it, so the
  // first entry is always the one idle longest.
  #sessions = new Map<string, { session: McpSession, lastUsed: number }>()
  #limits: SessionStoreLimits
  #now: () => number

  constructor (limits: SessionStoreLimits = DEFAULT_SESSION_LIMITS, now: () => number = Date.now) {
    this.#limits = limits
    this.#now = now
  }

  get size (): number {
    return this.#sessions.size
  }

  add (session: McpSession): void {
    this.#evictIdle()
    while (this.#sessions.size >= this.#limits.maxSessions) {
      const oldest = this.#sessions.keys().next().value
      if (oldest === undefined) break
      this.#sessions.delete(oldest)
    }
    this.#sessions.set(session.id, { session, lastUsed: this.#now() })
  }

  /** The live session with this id, marked as used; undefined when unknown or expired. */
  get (id: string): McpSession | undefined {
    this.#evictIdle()
    const entry = this.#sessions.get(id)
    if (entry === undefined) return undefined
    this.#sessions.delete(id)
    this.#sessions.set(id, { session: entry.session, lastUsed: this.#now() })
    return entry.session
  }

  delete (id: string): boolean {
    return this.#sessions.delete(id)
  }

  #evictIdle (): void {
    const cutoff = this.#now() - this.#limits.idleMs
    for (const [id, entry] of this.#sessions) {
      if (entry.lastUsed > cutoff) break
      this.#sessions.delete(id)
    }
  }
}
