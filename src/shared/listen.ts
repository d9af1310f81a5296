// Listening and closing, for every server: a server on a host and port (0
// picks one), and a close that lets requests in progress finish for a grace
// period, then ends whatever connections remain.

import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type Koa from 'koa'
import { urlHost } from './config-values.js'

export interface RunningServer {
  server: Server
  /** Base URL, e.g. http://127.0.0.1:8999; a server on every interface (0.0.0.0) is reached on 127.0.0.1. */
  url: string
  port: number
  close: () => Promise<void>
}

export interface ListenOptions {
  /** How long requests in progress may take to finish once closing starts. */
  graceMs?: number
  /** A slow client cannot hold a request open longer than this (headers: at most 60 s of it). */
  requestTimeoutMs?: number
}

/** Grace period for requests in progress when the server closes, unless told otherwise. */
const CLOSE_GRACE_MS = 2000

export async function listen (app: Pick<Koa, 'callback'>, host: string, port: number, options: ListenOptions = {}): Promise<RunningServer> {
  const server = createServer(app.callback())
  if (options.requestTimeoutMs !== undefined) {
    server.requestTimeout = options.requestTimeoutMs
    server.headersTimeout = Math.min(60_000, options.requestTimeoutMs)
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  let closing: Promise<void> | undefined
  const close = async (): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      const force = setTimeout(() => { server.closeAllConnections() }, options.graceMs ?? CLOSE_GRACE_MS)
      force.unref()
      server.close(() => {
        clearTimeout(force)
        resolve()
      })
      server.closeIdleConnections()
    })
    await closing
  }
  const reachable = address.address === '0.0.0.0' ? '127.0.0.1' : address.address
  return { server, url: `http://${urlHost(reachable)}:${address.port}`, port: address.port, close }
}
