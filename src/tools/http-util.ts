// Small HTTP helpers both Chorus servers here use (the tool server and the
// reference spawner): a bounded body reader, a constant-time bearer check
// and a listener that closes cleanly.

import { createHash, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type Koa from 'koa'
import { isChorusError } from '../errors.js'
import { payloadTooLarge, requestAborted } from './errors.js'
import { urlHost } from './config-values.js'

/** Reads the whole body as UTF-8, refusing (413) more than `limit` bytes. */
export async function readBody (request: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(request.headers['content-length'])
  if (Number.isFinite(declared) && declared > limit) throw payloadTooLarge(limit)
  const chunks: Buffer[] = []
  let size = 0
  try {
    for await (const chunk of request) {
      const buffer = chunk as Buffer
      size += buffer.length
      if (size > limit) throw payloadTooLarge(limit)
      chunks.push(buffer)
    }
  } catch (error) {
    throw isChorusError(error) ? error : requestAborted(error)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/**
 * Whether an Authorization header carries exactly this bearer token. Both
 * sides are hashed first so the comparison takes the same time whatever the
 * length or content of the guess.
 */
export function bearerMatches (header: string | undefined, token: string): boolean {
  const presented = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '')?.[1] ?? ''
  const digest = (text: string): Buffer => createHash('sha256').update(text).digest()
  return timingSafeEqual(digest(presented), digest(token))
}

export interface RunningServer {
  server: Server
  /** Base URL, e.g. http://127.0.0.1:8999 */
  url: string
  port: number
  close: () => Promise<void>
}

/** Grace period for requests in progress when the server closes. */
const CLOSE_GRACE_MS = 2000

export async function listen (app: Koa, host: string, port: number): Promise<RunningServer> {
  const server = createServer(app.callback())
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
      const force = setTimeout(() => { server.closeAllConnections() }, CLOSE_GRACE_MS)
      force.unref()
      server.close(() => {
        clearTimeout(force)
        resolve()
      })
      server.closeIdleConnections()
    })
    await closing
  }
  return { server, url: `http://${urlHost(address.address)}:${address.port}`, port: address.port, close }
}
