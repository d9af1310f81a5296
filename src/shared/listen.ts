// Listening and closing: a server on a host and port (0 picks one), and a
// close that lets requests in progress finish for a grace period, then ends
// whatever connections remain.

import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type Koa from 'koa'
import { urlHost } from './config-values.js'

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
