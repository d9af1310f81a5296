// The reference spawner's HTTP API: the contract the tools call, behaving as
// the real spawner does (paths, form bodies, JSON answers, `{"error": ...}`
// refusals) so that tools and agents can be developed and tested without it.

import Koa from 'koa'
import Router, { type RouterMiddleware } from '@koa/router'
import { expectedMessage } from '../validate.js'
import { INTERNAL_ERROR_MESSAGE, jsonErrors } from '../shared/json-errors.js'
import { accessLog } from '../shared/access-log.js'
import { bearerMatches } from '../shared/bearer.js'
import { readBody } from '../shared/body.js'
import { listen, type RunningServer } from '../shared/listen.js'
import type { Logger } from '../shared/logger.js'
import { unmetNameRule, type BotName } from '../shared/bot-names.js'
import { badRequest } from './errors.js'
import type { StateFile } from './state-file.js'
import type { BotStore, StoredBot } from './store.js'

export interface SpawnerServerOptions {
  host: string
  port: number
  /** When set, /api/* needs `Authorization: Bearer <token>`. */
  token?: string
  store: BotStore
  stateFile?: StateFile
  logger: Logger
}

/** Form bodies here hold four short fields. */
const MAX_BODY_BYTES = 64 * 1024

function createSpawnerApp (options: SpawnerServerOptions): Koa {
  const { store, stateFile, logger } = options
  const app = new Koa()
  app.on('error', (error: unknown) => { logger.error({ err: error }, 'spawner bug') })
  app.use(errors())
  app.use(accessLog(logger))

  const persist = async (): Promise<void> => { await stateFile?.save(store.all()) }
  const router = new Router()
  router.get('/healthz', (ctx) => { ctx.body = { status: 'ok', bots: store.list().length } })

  const api = new Router({ prefix: '/api' })
  api.use(requireToken(options.token))
  api.get('/bot', (ctx) => { ctx.body = store.list() })
  api.get('/bot/:first/:last', (ctx) => {
    const bot = store.get(botName(ctx.params))
    ctx.body = detailView(bot, store.childrenOf(bot))
  })
  api.post('/bot/:first/:last', async (ctx) => {
    const name = botName(ctx.params)
    const form = await readForm(ctx)
    const bot = store.create(name, {
      level: form.get('level') ?? undefined,
      parent: form.get('parent') ?? undefined,
      email: form.get('email') ?? undefined,
      model: form.get('model') ?? undefined
    })
    await persist()
    const { first, last, level, parent, password, email, uuid, model } = bot
    ctx.body = { first, last, level, parent, password, email, uuid, model }
  })
  api.patch('/bot/:first/:last', async (ctx) => {
    const name = botName(ctx.params)
    const form = await readForm(ctx)
    const { bot, action } = store.act(name, form.get('action') ?? undefined)
    await persist()
    ctx.body = { first: bot.first, last: bot.last, action, ok: true }
  })
  api.delete('/bot/:first/:last', async (ctx) => {
    const bot = store.remove(botName(ctx.params))
    await persist()
    ctx.body = { first: bot.first, last: bot.last, deleted: true }
  })

  app.use(router.routes()).use(router.allowedMethods())
  app.use(api.routes()).use(api.allowedMethods())
  return app
}

export async function startSpawnerServer (options: SpawnerServerOptions): Promise<RunningServer> {
  return await listen(createSpawnerApp(options), options.host, options.port)
}

function detailView (bot: StoredBot, children: string[]): Record<string, unknown> {
  const { first, last, level, parent, email, uuid, model, containerStatus } = bot
  return { first, last, level, parent, children, email, uuid, model, containerStatus }
}

function botName (params: Record<string, string | undefined>): BotName {
  const part = (key: 'first' | 'last'): string => {
    const value = params[key] ?? ''
    const rule = unmetNameRule(value)
    if (rule !== undefined) throw badRequest(expectedMessage(rule, key, value))
    return value
  }
  return { first: part('first'), last: part('last') }
}

async function readForm (ctx: Koa.Context): Promise<URLSearchParams> {
  const text = await readBody(ctx.req, MAX_BODY_BYTES)
  if (text !== '' && ctx.is('application/x-www-form-urlencoded') === false) {
    throw badRequest('Expected an application/x-www-form-urlencoded body.')
  }
  return new URLSearchParams(text)
}

/** The real spawner's refusals are `{"error": "<reason>"}` and nothing more. */
function errors (): Koa.Middleware {
  return jsonErrors({
    known: error => ({ error: error.message }),
    internal: { error: INTERNAL_ERROR_MESSAGE },
    unrouted: (_status, message) => ({ error: `${message}.` })
  })
}

function requireToken (token: string | undefined): RouterMiddleware {
  return async (ctx, next) => {
    if (token !== undefined && !bearerMatches(ctx.get('Authorization'), token)) {
      ctx.status = 401
      ctx.set('WWW-Authenticate', 'Bearer')
      ctx.body = { error: 'Unauthorized' }
      return
    }
    await next()
  }
}
