// What every HTTP answer of the service carries, whatever route made it:
// the replica's name (so affinity behind a proxy can be measured from the
// answers alone), and, once the drain has begun, "Connection: close", so a
// proxy's pooled keep-alive connections leave this replica as their
// answers end instead of carrying new requests into it.

import type { Server, ServerResponse } from 'node:http'
import type Koa from 'koa'

export const REPLICA_HEADER = 'X-Chorus-Replica'

/** Koa's request handler; the service runs it on an HTTP/1.1 server only. */
type Handler = ReturnType<Koa['callback']>

export interface FrontDoor {
  app: Pick<Koa, 'callback'>
  /** From now on answers close their connection; idle ones close as they go idle. */
  beginDrain: (server: Server) => void
  readonly draining: boolean
}

export function frontDoor (app: Pick<Koa, 'callback'>, replicaName: string): FrontDoor {
  let draining = false
  let drainingServer: Server | undefined
  /** Answers under way: those whose headers are not out yet close their connection too. */
  const open = new Set<ServerResponse>()
  const wrap = (handle: Handler): Handler => async (request, answer) => {
    const response = answer as ServerResponse
    response.setHeader(REPLICA_HEADER, replicaName)
    if (draining) response.shouldKeepAlive = false
    open.add(response)
    // An answer whose headers went out before the drain keeps its
    // connection: it is closed once idle. (The routes' own close listeners
    // are ten already: one more is expected, not a leak.)
    response.setMaxListeners(response.getMaxListeners() + 1)
    response.once('close', () => {
      open.delete(response)
      if (draining) setImmediate(() => drainingServer?.closeIdleConnections())
    })
    await handle(request, answer)
  }
  return {
    app: { callback: () => wrap(app.callback()) },
    beginDrain: server => {
      draining = true
      drainingServer = server
      for (const response of open) if (!response.headersSent) response.shouldKeepAlive = false
      server.closeIdleConnections()
    },
    get draining () { return draining }
  }
}
