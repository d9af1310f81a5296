// The ownership rule: a bot may start, stop or restart only itself and its
// descendants. The spawner knows each bot's parent, so the rule walks up
// from the target, one GET per generation, until it meets the active bot.

import { fullName, parseFullName, sameBot, nameKey, type BotName } from '../shared/bot-names.js'
import { isPlainObject } from '../validate.js'
import { spawnerRejected, spawnerUnreachable } from './result.js'
import type { SpawnerClient } from './spawner-client.js'

export type OwnershipDecision = { allowed: true } | { allowed: false, reason: string }

/** Deeper than any real hierarchy; a bound in case a spawner invents ancestors forever. */
const MAX_ANCESTRY_DEPTH = 64

export async function checkOwnership (
  spawner: SpawnerClient,
  active: BotName | undefined,
  target: BotName,
  signal?: AbortSignal
): Promise<OwnershipDecision> {
  if (active === undefined) {
    return deny('no active bot identity is configured (set OPENSIM_BOT_FIRST and OPENSIM_BOT_LAST, or --first-name and --last-name)')
  }
  const visited = new Set<string>()
  let current = target
  for (let depth = 0; depth <= MAX_ANCESTRY_DEPTH; depth++) {
    if (sameBot(current, active)) return { allowed: true }
    if (visited.has(nameKey(current))) return deny(`its chain of parents has a cycle at ${fullName(current)}`)
    visited.add(nameKey(current))
    const parent = await readParent(spawner, current, signal)
    if ('reason' in parent) return deny(parent.reason)
    if (parent.name === undefined) {
      return deny(`it is neither the active bot ${fullName(active)} nor one of its descendants (its chain of parents ends at ${fullName(current)})`)
    }
    current = parent.name
  }
  return deny(`its chain of parents is longer than ${MAX_ANCESTRY_DEPTH} generations`)
}

function deny (reason: string): OwnershipDecision {
  return { allowed: false, reason }
}

/** The bot's parent, undefined for a root bot, or why it could not be learnt. */
async function readParent (spawner: SpawnerClient, bot: BotName, signal?: AbortSignal): Promise<{ name: BotName | undefined } | { reason: string }> {
  const readFailed = (why: string): { reason: string } => ({ reason: `reading bot ${fullName(bot)} failed: ${why}` })
  const outcome = await spawner.getBot(bot, signal)
  if (outcome.kind === 'unreachable') return readFailed(spawnerUnreachable(outcome.error).message)
  if (outcome.kind === 'rejected') return readFailed(spawnerRejected(outcome.status, outcome.reason, outcome.body).message)
  let record: unknown
  try {
    record = JSON.parse(outcome.body)
  } catch {
    return readFailed('the spawner did not answer with JSON')
  }
  if (!isPlainObject(record)) return readFailed('the spawner did not answer with a JSON object')
  const parent = record.parent
  if (parent === undefined || parent === null || parent === '') return { name: undefined }
  const name = typeof parent === 'string' ? parseFullName(parent) : undefined
  if (name === undefined) {
    return { reason: `bot ${fullName(bot)} has a parent that is not in "First Last" form: ${JSON.stringify(parent)}` }
  }
  return { name }
}
