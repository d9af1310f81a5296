// `chorus spawner [--host --port --token --state-file --max-bots]`: runs the
// reference spawner until SIGTERM or SIGINT. Returns an exit code: 0 after
// a clean shutdown, 1 when it cannot start, 2 for a configuration error.

import { commandConfig, type CommandIo } from '../shared/command-io.js'
import { createLogger } from '../shared/logger.js'
import { shutdownOn, untilAborted } from '../shared/shutdown.js'
import { parseSpawnerConfig, SPAWNER_DEFAULTS } from './config.js'
import { startSpawnerServer } from './server.js'
import { StateFile } from './state-file.js'
import { BotStore } from './store.js'

const SPAWNER_USAGE = `Usage: chorus spawner [flags]

A reference bot spawner: GET/POST/PATCH/DELETE /api/bot[/{first}/{last}], as the
real spawner behaves, with simulated containers.

Flags (each overrides its environment variable):
  --host <host>          CHORUS_SPAWNER_HOST       (default ${SPAWNER_DEFAULTS.host})
  --port <port>          CHORUS_SPAWNER_PORT       (default ${SPAWNER_DEFAULTS.port})
  --token <token>        CHORUS_SPAWNER_TOKEN or SPAWNER_TOKEN (default unset: no auth)
  --state-file <path>    CHORUS_SPAWNER_STATE_FILE (default unset: memory only)
  --max-bots <n>         CHORUS_SPAWNER_MAX_BOTS   (default ${SPAWNER_DEFAULTS.maxBots})
  --log-level <level>    CHORUS_LOG_LEVEL          (default info)
`

export async function runSpawnerCommand (argv: string[], io: CommandIo): Promise<number> {
  const config = commandConfig('spawner', SPAWNER_USAGE, () => parseSpawnerConfig(argv, io.env), io)
  if (typeof config === 'number') return config
  const logger = createLogger('chorus-spawner', config.logLevel, io.stderr)
  const stateFile = config.stateFile === undefined ? undefined : new StateFile(config.stateFile)
  let store: BotStore
  try {
    store = new BotStore(config.maxBots, await stateFile?.load())
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    const stderr = io.stderr ?? process.stderr
    stderr.write(`chorus spawner: cannot use --state-file ${config.stateFile ?? ''}: ${reason}\n`)
    return 2
  }
  const shutdown = shutdownOn(io.signal)
  try {
    let server
    try {
      server = await startSpawnerServer({ host: config.host, port: config.port, token: config.token, store, stateFile, logger })
    } catch (error) {
      logger.fatal({ err: error, host: config.host, port: config.port }, 'spawner cannot listen')
      return 1
    }
    logger.info({ url: server.url, auth: config.token !== undefined, stateFile: config.stateFile ?? null, bots: store.list().length }, 'reference spawner listening')
    await untilAborted(shutdown.signal)
    logger.info('shutting down')
    await server.close()
    return 0
  } finally {
    shutdown.dispose()
  }
}
