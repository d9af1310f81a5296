// MCP Streamable HTTP on Koa, answering with application/json only (no SSE):
// POST carries one JSON-RPC message or a batch; a session id is issued on
// initialize and required after it; GET answers 405 since there is no
// server-to-client stream; DELETE ends a session. New sessions are bounded
// per remote address per minute (429) and in number (503 when every one is
// active), both with Retry-After.

import Koa from 'koa'
import Router from '@koa/router'
import type { ToolsHttpConfig } from './config.js'
import {
  JsonRpcError, ServerBusyError, forbiddenOrigin, invalidRequest, notAcceptable, tooManySessions, unauthorized, unsupportedMediaType
} from './errors.js'
import { errorMiddleware } from './http-errors.js'
import { accessLog } from '../shared/access-log.js'
import { bearerMatches } from '../shared/bearer.js'
import { readBody } from '../shared/body.js'
import { listen, type RunningServer } from '../shared/listen.js'
import { answerPayload, decodePayload, failure, type DecodedPayload } from './jsonrpc.js'
import { McpSession, SUPPORTED_PROTOCOL_VERSIONS, type McpServerContext } from './mcp-session.js'
import { WindowLimiter } from './rate-limit.js'
import { DEFAULT_SESSION_LIMITS, SessionStore } from './session-store.js'

export interface ToolsHttpOptions {
  config: ToolsHttpConfig
  context: McpServerContext
  sessions?: SessionStore
  /** Largest POST body accepted; JSON-RPC messages for these tools are tiny. */
  maxBodyBytes?: number
}

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024
const SESSION_HEADER = 'Mcp-Session-Id'
const MINUTE_MS = 60_000

function createToolsHttpApp (options: ToolsHttpOptions): Koa {
  const { config, context } = options
  const sessions = options.sessions ?? new SessionStore({ ...DEFAULT_SESSION_LIMITS, maxSessions: config.maxSessions })
  const newSessions = new WindowLimiter(config.sessionsPerMinute, MINUTE_MS)
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
  const app = new Koa()
  app.on('error', (error: unknown) => { context.logger.error({ err: error }, 'tool server bug') })
  app.use(errorMiddleware())
  app.use(accessLog(context.logger))

  const router = new Router()
  router.get('/healthz', (ctx) => { ctx.body = { status: 'ok' } })
  const metrics = context.metrics
  if (metrics !== undefined) {
    // Counts only (no bot names, no tokens), so as open as /healthz.
    router.get('/metrics', async (ctx) => {
      ctx.type = metrics.registry.contentType
      ctx.body = await metrics.registry.metrics()
    })
  }
  const guard = [checkOrigin(config.allowedOrigins), checkToken(config.token)]
  router.post(config.path, ...guard, async (ctx) => {
    await handlePost(ctx, { context, sessions, newSessions, maxBodyBytes })
  })
  router.get(config.path, ...guard, (ctx) => {
    ctx.set('Allow', 'POST, DELETE')
    ctx.status = 405
    ctx.body = { error: 'Method Not Allowed: this server does not offer an SSE stream', code: 'ERR_METHOD_NOT_ALLOWED' }
  })
  router.delete(config.path, ...guard, (ctx) => {
    const id = ctx.get(SESSION_HEADER)
    if (id === '' || !sessions.delete(id)) {
      ctx.status = 404
      ctx.body = { error: 'Session not found', code: 'ERR_SESSION_NOT_FOUND' }
      return
    }
    ctx.status = 204
  })
  app.use(router.routes())
  app.use(router.allowedMethods())
  return app
}

export async function startToolsHttpServer (options: ToolsHttpOptions): Promise<RunningServer> {
  return await listen(createToolsHttpApp(options), options.config.host, options.config.port)
}

/** MCP servers must refuse foreign browser origins, against DNS rebinding. */
function checkOrigin (allowed: readonly string[]): Koa.Middleware {
  return async (ctx, next) => {
    const origin = ctx.get('Origin')
    if (origin !== '' && !allowed.includes(origin)) throw forbiddenOrigin(origin)
    await next()
  }
}

function checkToken (token: string | undefined): Koa.Middleware {
  return async (ctx, next) => {
    if (token !== undefined && !bearerMatches(ctx.get('Authorization'), token)) {
      ctx.set('WWW-Authenticate', 'Bearer')
      throw unauthorized()
    }
    await next()
  }
}

interface PostDeps {
  context: McpServerContext
  sessions: SessionStore
  newSessions: WindowLimiter
  maxBodyBytes: number
}

async function handlePost (ctx: Koa.Context, deps: PostDeps): Promise<void> {
  const accept = ctx.get('Accept')
  if (accept !== '' && !/application\/json|application\/\*|\*\/\*/i.test(accept)) throw notAcceptable()
  if (ctx.is('application/json') !== 'application/json') throw unsupportedMediaType()
  let payload: DecodedPayload
  try {
    payload = decodePayload(await readBody(ctx.req, deps.maxBodyBytes), deps.context.maxBatch)
  } catch (error) {
    if (error instanceof JsonRpcError) return rpcRefusal(ctx, 400, error)
    throw error
  }
  // The client may hang up mid-call: stop the spawner work it was waiting for.
  const hangUp = new AbortController()
  // The answer's results hold their bytes until it has been written, or its client left.
  const hold = deps.context.calls.answers.hold()
  ctx.res.once('close', () => {
    hold.release()
    if (!ctx.res.writableFinished) hangUp.abort()
  })

  const session = openSession(ctx, payload, deps)
  if (session === undefined) return
  const answer = await answerPayload(payload, async (message) => await session.dispatch(message, hangUp.signal, hold))
  if (isInitialize(payload)) {
    if (answer === undefined || Array.isArray(answer) || 'error' in answer) {
      deps.sessions.delete(session.id)
    } else {
      ctx.set(SESSION_HEADER, session.id)
    }
  }
  if (answer === undefined) {
    ctx.body = null
    ctx.status = 202
    return
  }
  ctx.body = answer
}

function isInitialize (payload: DecodedPayload): boolean {
  return payload.messages.some((message) => message.kind === 'request' && message.method === 'initialize')
}

/** The session the payload belongs to, a new one for initialize, or undefined once refused. */
function openSession (ctx: Koa.Context, payload: DecodedPayload, deps: PostDeps): McpSession | undefined {
  if (isInitialize(payload)) {
    if (payload.batch) {
      rpcRefusal(ctx, 400, invalidRequest('Invalid Request: initialize must be sent on its own, not in a batch'))
      return undefined
    }
    // The socket's address, not X-Forwarded-For, which any client can write.
    const retryAfter = deps.newSessions.take(ctx.req.socket.remoteAddress ?? '')
    if (retryAfter > 0) {
      busyRefusal(ctx, tooManySessions(deps.newSessions.limit, retryAfter))
      return undefined
    }
    const session = new McpSession(deps.context)
    try {
      deps.sessions.add(session)
    } catch (error) {
      if (!(error instanceof ServerBusyError)) throw error
      busyRefusal(ctx, error)
      return undefined
    }
    return session
  }
  const id = ctx.get(SESSION_HEADER)
  if (id === '') {
    rpcRefusal(ctx, 400, invalidRequest(`Bad Request: the ${SESSION_HEADER} header is required; send initialize first`))
    return undefined
  }
  const session = deps.sessions.get(id)
  if (session === undefined) {
    rpcRefusal(ctx, 404, invalidRequest('Session not found: it expired or was closed; send initialize again'))
    return undefined
  }
  const version = ctx.get('MCP-Protocol-Version')
  const supported: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS
  if (version !== '' && !supported.includes(version)) {
    rpcRefusal(ctx, 400, invalidRequest(`Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(version)}; supported: ${supported.join(', ')}`))
    return undefined
  }
  return session
}

/** Transport-level refusals are still JSON-RPC errors, which MCP clients show. */
function rpcRefusal (ctx: Koa.Context, status: number, error: JsonRpcError): void {
  ctx.status = status
  ctx.body = failure(null, error)
}

function busyRefusal (ctx: Koa.Context, error: ServerBusyError): void {
  ctx.set('Retry-After', String(error.retryAfterSeconds))
  rpcRefusal(ctx, error.httpStatus, error)
}
