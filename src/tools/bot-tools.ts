// What each tool does: check the bot rules, apply the ownership rule where it
// holds, make one spawner call and turn its outcome into a DataToolResult.

import { expectedMessage } from '../validate.js'
import type { ToolArguments } from './arguments.js'
import { fullName, hasControlCharacters, parseFullName, unmetNameRule, type BotName } from '../shared/bot-names.js'
import type { OwnershipMode } from './config.js'
import { checkOwnership } from './ownership.js'
import { refused, spawnerRejected, spawnerUnreachable, succeeded, type DataToolResult } from './result.js'
import type { BotAction, CreateBotFields, SpawnerClient, SpawnerOutcome } from './spawner-client.js'

export interface ToolContext {
  spawner: SpawnerClient
  /** The active bot; undefined when no identity is configured. */
  identity: BotName | undefined
  /** Which tools the ownership rule guards (see config.ts). */
  ownership: OwnershipMode
  signal?: AbortSignal
}

export type ToolHandler = (args: ToolArguments, context: ToolContext) => Promise<DataToolResult>

/** A value the tool cannot use, reported to the agent as ok=false. */
class RuleViolation extends Error {}

export const listBots: ToolHandler = async (_args, { spawner, signal }) =>
  toResult(await spawner.listBots(signal), (body) => `Listed ${countOf(body)}.`)

export const getBot: ToolHandler = async (args, { spawner, signal }) =>
  await withName(args, async (name) =>
    toResult(await spawner.getBot(name, signal), () => `Read bot ${fullName(name)}.`))

export const createBot: ToolHandler = async (args, { spawner, identity, ownership, signal }) =>
  await withName(args, async (name) => {
    const fields = createFields(args, identity)
    const parent = fields.parent === undefined ? 'no parent' : `parent ${fields.parent}`
    if (ownership === 'strict') {
      // A new bot joins the tree of its parent: in strict mode only under the active bot's own tree.
      const owner = fields.parent === undefined ? undefined : parseFullName(fields.parent)
      if (owner === undefined) return refused(`Refusing to create ${fullName(name)} with no parent: in strict ownership mode a new bot must join the active bot's tree.`)
      const decision = await checkOwnership(spawner, identity, owner, signal)
      if (!decision.allowed) return refused(`Refusing to create ${fullName(name)} under ${fields.parent}: ${decision.reason}.`)
    }
    return toResult(await spawner.createBot(name, fields, signal), () => `Created bot ${fullName(name)} (level ${fields.level}, ${parent}).`)
  })

export const startBot = actionHandler('start', 'Started')
export const stopBot = actionHandler('stop', 'Stopped')
export const restartBot = actionHandler('restart', 'Restarted')

export const deleteBot: ToolHandler = async (args, { spawner, identity, ownership, signal }) =>
  await withName(args, async (name) => {
    if (ownership === 'strict') {
      const decision = await checkOwnership(spawner, identity, name, signal)
      if (!decision.allowed) return refused(`Refusing to delete ${fullName(name)}: ${decision.reason}.`)
    }
    return toResult(await spawner.deleteBot(name, signal), () => `Deleted bot ${fullName(name)}.`)
  })

function actionHandler (action: BotAction, done: string): ToolHandler {
  return async (args, { spawner, identity, signal }) =>
    await withName(args, async (name) => {
      const decision = await checkOwnership(spawner, identity, name, signal)
      if (!decision.allowed) return refused(`Refusing to ${action} ${fullName(name)}: ${decision.reason}.`)
      return toResult(await spawner.actOnBot(name, action, signal), () => `${done} bot ${fullName(name)}.`)
    })
}

async function withName (args: ToolArguments, run: (name: BotName) => Promise<DataToolResult>): Promise<DataToolResult> {
  try {
    return await run({ first: namePart(args, 'first'), last: namePart(args, 'last') })
  } catch (error) {
    if (error instanceof RuleViolation) return refused(error.message)
    throw error
  }
}

function namePart (args: ToolArguments, key: string): string {
  const value = args[key] ?? ''
  const rule = unmetNameRule(value.trim())
  if (rule !== undefined) throw new RuleViolation(expectedMessage(rule, key, value))
  return value.trim()
}

// Optional text arguments: blank counts as omitted, as agents often send "".
function optionalText (args: ToolArguments, key: string): string | undefined {
  const value = args[key]?.trim()
  if (value === undefined || value === '') return undefined
  if (hasControlCharacters(value)) throw new RuleViolation(expectedMessage('text without control characters', key, args[key]))
  return value
}

function createFields (args: ToolArguments, identity: BotName | undefined): CreateBotFields {
  const level = optionalText(args, 'level')
  if (level === undefined) throw new RuleViolation(expectedMessage('a level (GOVERNOR, BUILDER or ACTOR)', 'level', args.level))
  const fields: CreateBotFields = { level: level.toUpperCase() }
  const parent = optionalText(args, 'parent')
  if (parent !== undefined) {
    const parsed = parseFullName(parent)
    if (parsed === undefined) throw new RuleViolation(expectedMessage('a full name "First Last"', 'parent', args.parent))
    fields.parent = fullName(parsed)
  } else if (identity !== undefined) {
    fields.parent = fullName(identity)
  }
  const email = optionalText(args, 'email')
  if (email !== undefined) fields.email = email
  const model = optionalText(args, 'model')
  if (model !== undefined) fields.model = model
  return fields
}

function toResult (outcome: SpawnerOutcome, describe: (body: string) => string): DataToolResult {
  switch (outcome.kind) {
    case 'ok': return succeeded(describe(outcome.body), outcome.body)
    case 'rejected': return spawnerRejected(outcome.status, outcome.reason, outcome.body)
    case 'unreachable': return spawnerUnreachable(outcome.error)
  }
}

function countOf (body: string): string {
  try {
    const parsed: unknown = JSON.parse(body)
    if (Array.isArray(parsed)) return parsed.length === 1 ? '1 bot' : `${parsed.length} bots`
  } catch {
    // Not JSON: the raw body still goes back to the agent as payloadJson.
  }
  return 'bots'
}
