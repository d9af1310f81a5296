// The catalogue of tools as agents see them: wire names, the aliases older
// agents call, descriptions an agent can act on, and JSON Schemas. The names
// and shapes are a contract with existing agents.

import type { ArgumentsSchema } from './arguments.js'
import * as bots from './bot-tools.js'
import type { ToolHandler } from './bot-tools.js'
import { DATA_TOOL_RESULT_SCHEMA } from './result.js'

export interface ToolAnnotations {
  title: string
  readOnlyHint: boolean
  destructiveHint: boolean
  idempotentHint: boolean
  openWorldHint: boolean
}

export interface ToolDefinition {
  name: string
  /** Also accepted by tools/call; never listed. */
  alias: string
  title: string
  description: string
  inputSchema: ArgumentsSchema
  annotations: ToolAnnotations
  run: ToolHandler
}

/** Sent with initialize: the rules that hold across tools. */
export const SERVER_INSTRUCTIONS = [
  'These tools manage bots through the bot spawner. A bot is named by first and last name; its full name is "First Last".',
  'Run bot_list first to check that the spawner is reachable before creating or deleting bots.',
  'Give exact parent full names so that the hierarchy is deterministic; bot_create defaults the parent to you, the active bot.',
  'Use bot_get to reconcile the runtime state of a bot (its containers) with the state you want.',
  'bot_start, bot_stop and bot_restart only act on you or your descendants.',
  'Delete children before their parents.',
  'Every tool returns JSON {ok, message, ...}: payloadJson is the spawner\'s raw answer on success; status and excerpt when the spawner refused; error when it could not be reached.'
].join(' ')

const first = { type: 'string', description: 'The bot\'s first name, e.g. "Ada" for "Ada Lovelace".' } as const
const last = { type: 'string', description: 'The bot\'s last name, e.g. "Lovelace" for "Ada Lovelace".' } as const

function namedBotSchema (): ArgumentsSchema {
  return { type: 'object', properties: { first, last }, required: ['first', 'last'], additionalProperties: false }
}

function annotations (title: string, effect: 'read' | 'create' | 'change' | 'destroy', idempotent: boolean): ToolAnnotations {
  return {
    title,
    readOnlyHint: effect === 'read',
    destructiveHint: effect === 'destroy',
    idempotentHint: idempotent,
    // The spawner is one known service, not an open world of outside entities.
    openWorldHint: false
  }
}

const OWNERSHIP = 'Allowed only for you (the active bot) and your descendants; any other bot is refused without contacting it.'
const RECONCILE = 'Container changes can take a moment: use bot_get afterwards to see the actual state.'

export const TOOL_DEFINITIONS: readonly ToolDefinition[] = [
  {
    name: 'bot_list',
    alias: 'BotList',
    title: 'List bots',
    description: 'List the full names of every bot the spawner manages. Run this first to check that the spawner is reachable before creating or deleting bots. payloadJson holds the spawner\'s JSON array of full names.',
    inputSchema: { type: 'object', properties: {}, required: [], additionalProperties: false },
    annotations: annotations('List bots', 'read', true),
    run: bots.listBots
  },
  {
    name: 'bot_get',
    alias: 'BotGet',
    title: 'Get a bot',
    description: 'Read one bot: level, parent, children, email, model and the state of its containers (containerStatus). The spawner is the authority on runtime state: use this to reconcile what is running with what you want, e.g. after bot_start or bot_stop.',
    inputSchema: namedBotSchema(),
    annotations: annotations('Get a bot', 'read', true),
    run: bots.getBot
  },
  {
    name: 'bot_create',
    alias: 'BotCreate',
    title: 'Create a bot',
    description: 'Create a bot under a parent bot. Levels, from highest: GOVERNOR, BUILDER, ACTOR; a parent can only create bots of a lower level than its own. Give the parent\'s exact full name ("First Last") so that the hierarchy is deterministic; when omitted, the parent is you, the active bot. Run bot_list first to check connectivity and that the name is free.',
    inputSchema: {
      type: 'object',
      properties: {
        first,
        last,
        level: { type: 'string', description: 'GOVERNOR, BUILDER or ACTOR (case does not matter).' },
        parent: { type: 'string', description: 'Exact full name of the parent bot, "First Last". Defaults to you, the active bot.' },
        email: { type: 'string', description: 'Optional e-mail address of the bot; the spawner picks one when omitted.' },
        model: { type: 'string', description: 'Optional model (avatar appearance) name; the spawner picks one when omitted.' }
      },
      required: ['first', 'last', 'level'],
      additionalProperties: false
    },
    annotations: annotations('Create a bot', 'create', false),
    run: bots.createBot
  },
  {
    name: 'bot_start',
    alias: 'BotStart',
    title: 'Start a bot',
    description: `Start the containers of a bot. ${OWNERSHIP} ${RECONCILE}`,
    inputSchema: namedBotSchema(),
    annotations: annotations('Start a bot', 'change', true),
    run: bots.startBot
  },
  {
    name: 'bot_stop',
    alias: 'BotStop',
    title: 'Stop a bot',
    description: `Stop the containers of a bot. ${OWNERSHIP} ${RECONCILE}`,
    inputSchema: namedBotSchema(),
    annotations: annotations('Stop a bot', 'destroy', true),
    run: bots.stopBot
  },
  {
    name: 'bot_restart',
    alias: 'BotRestart',
    title: 'Restart a bot',
    description: `Restart all containers of a bot. ${OWNERSHIP} ${RECONCILE}`,
    inputSchema: namedBotSchema(),
    annotations: annotations('Restart a bot', 'destroy', false),
    run: bots.restartBot
  },
  {
    name: 'bot_delete',
    alias: 'BotDelete',
    title: 'Delete a bot',
    description: 'Delete a bot and its containers. Delete children before their parent: the spawner refuses to delete a bot that still has children. Run bot_list first to check connectivity. This cannot be undone.',
    inputSchema: namedBotSchema(),
    annotations: annotations('Delete a bot', 'destroy', false),
    run: bots.deleteBot
  }
]

/** A tool by wire name or alias. */
export function findTool (name: string): ToolDefinition | undefined {
  return TOOL_DEFINITIONS.find((tool) => tool.name === name || tool.alias === name)
}

/** The tools/list entry of a tool. */
export function describeTool (tool: ToolDefinition): Record<string, unknown> {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: DATA_TOOL_RESULT_SCHEMA,
    annotations: tool.annotations
  }
}
