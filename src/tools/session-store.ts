// Sessions of the HTTP transport, keyed by the Mcp-Session-Id issued on
// initialize. Bounded in count and idle time so that clients which never
// say goodbye cannot grow the server without limit, and so that a flood of
// newcomers cannot end the sessions agents are using: only a session that is
// not active may make room for a new one.

import { sessionsFull } from './errors.js'
import type { McpSession } from './mcp-session.js'

export interface SessionStoreLimits {
  maxSessions: number
  /** A session unused this long is dropped. */
  idleMs: number
  /**
   * A session used this recently, or with a call in flight, is active: it is
   * never evicted to make room for a newcomer.
   */
  activeMs: number
}

export const DEFAULT_SESSION_LIMITS: SessionStoreLimits = { maxSessions: 1000, idleMs: 60 * 60 * 1000, activeMs: 60 * 1000 }

interface Entry {
  session: McpSession
  lastUsed: number
}

export class SessionStore {
  // A Map keeps insertion order; touching a session re-inserts it, so the
  // entries run from the one idle longest to the one used last.
  #sessions = new Map<string, Entry>()
  #limits: SessionStoreLimits
  #now: () => number

  constructor (limits: SessionStoreLimits = DEFAULT_SESSION_LIMITS, now: () => number = Date.now) {
    this.#limits = limits
    this.#now = now
  }

  get size (): number {
    return this.#sessions.size
  }

  /**
   * Adds a session; when the store is full, the session idle longest that is
   * not active makes room. Throws ServerBusyError (503) when every session is active.
   */
  add (session: McpSession): void {
    this.#evictIdle()
    if (this.#sessions.size >= this.#limits.maxSessions) {
      const victim = this.#leastRecentInactive()
      if (victim === undefined) throw sessionsFull(this.#limits.maxSessions, this.#secondsUntilOneIsInactive())
      this.#sessions.delete(victim)
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
      if (!entry.session.busy) this.#sessions.delete(id)
    }
  }

  #leastRecentInactive (): string | undefined {
    const cutoff = this.#now() - this.#limits.activeMs
    for (const [id, entry] of this.#sessions) {
      // Entries are in order of last use: from here on, every one is recent.
      if (entry.lastUsed > cutoff) return undefined
      if (!entry.session.busy) return id
    }
    return undefined
  }

  /** When the session used longest ago will have been quiet for activeMs, at least 1 s. */
  #secondsUntilOneIsInactive (): number {
    const oldest = [...this.#sessions.values()].find((entry) => !entry.session.busy)
    const waitMs = oldest === undefined ? this.#limits.activeMs : oldest.lastUsed + this.#limits.activeMs - this.#now()
    return Math.max(1, Math.ceil(waitMs / 1000))
  }
}
