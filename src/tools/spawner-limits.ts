// Bounds on how many spawner calls run at once: per session and across the
// server. One POST may hold a batch of tool calls, and each tool call makes
// one spawner call at a time (the ownership walk is sequential), so gating
// every spawner call bounds the fan-out whatever the batch holds. Calls
// beyond the bound wait their turn; a cancelled one stops waiting.

import { AnswerBudget } from './answer-budget.js'
import { Semaphore, type Release } from './semaphore.js'
import type { SpawnerClient, SpawnerOutcome } from './spawner-client.js'

export interface SpawnerCallLimits {
  /** Spawner calls one session may have in flight. */
  perSession: number
  /** Shared by every session of the server. */
  total: Semaphore
  /** The results' bytes held until their answers are written, every session together. */
  answers: AnswerBudget
  /** Calls waiting for a slot (a session's or the server's), every session together. */
  queue: { waiting: number }
}

export function spawnerCallLimits (perSession: number, total: number, answerBytes: number): SpawnerCallLimits {
  return { perSession, total: new Semaphore(total), answers: new AnswerBudget(answerBytes), queue: { waiting: 0 } }
}

/** `client` with every call gated by the session's own semaphore, then the server's. */
export function limitSpawnerCalls (client: SpawnerClient, limits: SpawnerCallLimits): SpawnerClient {
  const session = new Semaphore(limits.perSession)
  const gated = async (signal: AbortSignal | undefined, call: () => Promise<SpawnerOutcome>): Promise<SpawnerOutcome> => {
    const releases: Release[] = []
    limits.queue.waiting++
    try {
      // Always session first, then server: one order, so no two calls wait on each other in a cycle.
      releases.push(await session.acquire(signal))
      releases.push(await limits.total.acquire(signal))
    } catch {
      for (const release of releases) release()
      return { kind: 'unreachable', error: `Request cancelled while waiting for a free spawner call slot: ${client.baseUrl}` }
    } finally {
      limits.queue.waiting--
    }
    try {
      return await call()
    } finally {
      for (const release of releases.reverse()) release()
    }
  }
  return {
    baseUrl: client.baseUrl,
    listBots: async (signal) => await gated(signal, async () => await client.listBots(signal)),
    getBot: async (name, signal) => await gated(signal, async () => await client.getBot(name, signal)),
    createBot: async (name, fields, signal) => await gated(signal, async () => await client.createBot(name, fields, signal)),
    actOnBot: async (name, action, signal) => await gated(signal, async () => await client.actOnBot(name, action, signal)),
    deleteBot: async (name, signal) => await gated(signal, async () => await client.deleteBot(name, signal))
  }
}
