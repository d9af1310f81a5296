// The reference spawner's bots and the rules the real spawner applies to
// them: unique names (case-insensitive), levels that only create lower
// levels, a cap on the number of bots, no orphans. Containers are simulated:
// actions only change the recorded status.

import { randomBytes, randomUUID } from 'node:crypto'
import { fullName, nameKey, parseFullName, type BotName } from '../shared/bot-names.js'
import { badRequest, botNotFound, conflict, forbidden } from './errors.js'

/** From highest to lowest: a parent may only create bots of a strictly later level. */
export const LEVELS = ['GOVERNOR', 'BUILDER', 'ACTOR'] as const
export type Level = typeof LEVELS[number]
const ACTIONS = ['start', 'stop', 'restart'] as const
export type Action = typeof ACTIONS[number]

export interface ContainerState {
  containerId: string
  containerName: string
  status: 'created' | 'running' | 'exited'
  running: boolean
}

export interface StoredBot {
  first: string
  last: string
  level: Level
  parent: string | null
  password: string
  email: string
  uuid: string
  model: string
  containerStatus: ContainerState[]
}

export interface NewBotFields {
  level?: string
  parent?: string
  email?: string
  model?: string
}

const DEFAULT_MODEL = 'Ruth'

/** Each state change of a container, by action. */
const AFTER_ACTION: Record<Action, Pick<ContainerState, 'status' | 'running'>> = {
  start: { status: 'running', running: true },
  stop: { status: 'exited', running: false },
  restart: { status: 'running', running: true }
}

export class BotStore {
  readonly maxBots: number
  // Insertion order is creation order, which GET /api/bot reports.
  #bots = new Map<string, StoredBot>()

  constructor (maxBots: number, bots: readonly StoredBot[] = []) {
    this.maxBots = maxBots
    for (const bot of bots) this.#bots.set(nameKey(bot), bot)
  }

  all (): StoredBot[] {
    return [...this.#bots.values()]
  }

  list (): string[] {
    return this.all().map(fullName)
  }

  get (name: BotName): StoredBot {
    return this.#find(name)
  }

  childrenOf (bot: StoredBot): string[] {
    const key = nameKey(bot)
    return this.all().filter((other) => other.parent !== null && other.parent.toLowerCase() === key).map(fullName)
  }

  create (name: BotName, fields: NewBotFields): StoredBot {
    const level = parseLevel(fields.level)
    if (this.#bots.has(nameKey(name))) throw forbidden('Bot already exists.')
    if (this.#bots.size >= this.maxBots) throw forbidden(`Maximum number of bots reached: ${this.maxBots}.`)
    const parent = this.#parentFor(fields.parent, level)
    const bot: StoredBot = {
      first: name.first,
      last: name.last,
      level,
      parent: parent === undefined ? null : fullName(parent),
      password: randomBytes(12).toString('base64url'),
      email: blankToUndefined(fields.email) ?? `${name.first}.${name.last}@localhost`.toLowerCase(),
      uuid: randomUUID(),
      model: blankToUndefined(fields.model) ?? DEFAULT_MODEL,
      containerStatus: [{
        containerId: randomBytes(6).toString('hex'),
        containerName: `bot-${name.first}-${name.last}`.toLowerCase(),
        status: 'created',
        running: false
      }]
    }
    this.#bots.set(nameKey(name), bot)
    return bot
  }

  act (name: BotName, action: string | undefined): { bot: StoredBot, action: Action } {
    const known = ACTIONS.find((candidate) => candidate === action)
    if (known === undefined) throw badRequest(`Unknown action: ${action ?? '<none>'}. Expected start, stop or restart.`)
    const bot = this.#find(name)
    bot.containerStatus = bot.containerStatus.map((container) => ({ ...container, ...AFTER_ACTION[known] }))
    return { bot, action: known }
  }

  /** A parent with children is refused (409): deleting it would orphan them. */
  remove (name: BotName): StoredBot {
    const bot = this.#find(name)
    const children = this.childrenOf(bot)
    if (children.length > 0) {
      throw conflict(`Bot ${fullName(bot)} still has children: ${children.join(', ')}. Delete them first.`)
    }
    this.#bots.delete(nameKey(bot))
    return bot
  }

  #find (name: BotName): StoredBot {
    const bot = this.#bots.get(nameKey(name))
    if (bot === undefined) throw botNotFound(fullName(name))
    return bot
  }

  #parentFor (requested: string | undefined, level: Level): StoredBot | undefined {
    const parentName = blankToUndefined(requested)
    if (parentName === undefined) return undefined
    const parsed = parseFullName(parentName)
    const parent = parsed === undefined ? undefined : this.#bots.get(nameKey(parsed))
    if (parent === undefined) throw forbidden(`Parent bot not found: ${parentName}.`)
    if (LEVELS.indexOf(parent.level) >= LEVELS.indexOf(level)) {
      throw forbidden(`Parent bot level ${parent.level} cannot create level ${level}.`)
    }
    return parent
  }
}

function blankToUndefined (value: string | undefined): string | undefined {
  const trimmed = value?.trim()
  return trimmed === undefined || trimmed === '' ? undefined : trimmed
}

function parseLevel (value: string | undefined): Level {
  const level = blankToUndefined(value)
  if (level === undefined) return 'ACTOR'
  const known = LEVELS.find((candidate) => candidate === level)
  if (known === undefined) throw badRequest(`Unknown level: ${level}. Expected GOVERNOR, BUILDER or ACTOR.`)
  return known
}
