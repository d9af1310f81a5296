// The soak's second process: the reference spawner and the tool server,
// started through the same command functions `chorus spawner` and `chorus
// tools` run, in one process whose event-loop delay is measured here (no
// outside observer can see it). The parent talks to it over IPC
// (protocol.ts); each 'sample' answers for the interval since the last
// one. SIGTERM (or the parent going away) stops both servers.

import { monitorEventLoopDelay } from 'node:perf_hooks'
import { PassThrough } from 'node:stream'
import { runSpawnerCommand } from '../../src/spawner/cli.js'
import { runToolsCommand } from '../../src/tools/cli.js'
import { LOOP_RESOLUTION_MS, type HostMessage } from './protocol.js'

/** The first JSON log line with this `msg`, from a command's stderr. */
async function listeningUrl (stream: PassThrough, message: string): Promise<string> {
  let buffered = ''
  return await new Promise((resolve) => {
    const read = (chunk: Buffer): void => {
      buffered += chunk.toString('utf8')
      const lines = buffered.split('\n')
      buffered = lines.pop() ?? ''
      for (const line of lines) {
        const entry = JSON.parse(line) as { msg?: string, url?: string }
        if (entry.msg !== message || typeof entry.url !== 'string') continue
        // Later lines (one per request at info) are drained unread, not kept.
        stream.off('data', read)
        stream.resume()
        resolve(entry.url)
        return
      }
    }
    stream.on('data', read)
  })
}

async function main (): Promise<void> {
  if (process.send === undefined) throw new Error('the soak tool host runs as a child of bench/soak/main.ts, with an IPC channel')
  const stop = new AbortController()
  process.once('disconnect', () => { stop.abort() })

  const spawnerLog = new PassThrough()
  const spawnerUrl = listeningUrl(spawnerLog, 'reference spawner listening')
  const spawner = runSpawnerCommand(['--host', '127.0.0.1', '--port', '0', '--max-bots', '100000'], { env: {}, stderr: spawnerLog, signal: stop.signal })
  const { port } = new URL(await spawnerUrl)

  const toolsLog = new PassThrough()
  const toolsUrl = listeningUrl(toolsLog, 'tools server listening')
  const tools = runToolsCommand([
    '--host', '127.0.0.1', '--port', '0', '--spawner-host', '127.0.0.1', '--spawner-port', port,
    '--first-name', 'Soak', '--last-name', 'Root',
    // The capacity probe opens sessions far faster than the per-address
    // limit allows (it exists against floods from one address; this whole
    // soak is one address): without this, the probe's 429s spill into the
    // run's first minute.
    '--sessions-per-minute', '1000000'
  ], { env: {}, stderr: toolsLog, signal: stop.signal })

  const delay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS })
  delay.enable()
  process.on('message', (message: { kind?: string }) => {
    if (message.kind !== 'sample') return
    const answer: HostMessage = { kind: 'loop', p99Ms: delay.percentile(99) / 1e6 - LOOP_RESOLUTION_MS, maxMs: delay.max / 1e6 - LOOP_RESOLUTION_MS }
    delay.reset()
    process.send?.(answer)
  })
  const ready: HostMessage = { kind: 'ready', toolsUrl: await toolsUrl, spawnerUrl: await spawnerUrl }
  process.send(ready)
  const codes = await Promise.all([tools, spawner])
  delay.disable()
  process.exitCode = codes.some((code) => code !== 0) ? 1 : 0
  process.disconnect()
}

await main()
