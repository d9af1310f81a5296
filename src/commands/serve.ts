// chorus serve: the TTS service until SIGTERM or SIGINT.

import { existsSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { tuneMalloc } from '../engine/memory/index.js'
import { ConfigError } from '../errors.js'
import { DEFAULT_VOICE_DIR, loadServiceConfig, type ServiceConfig } from '../service/config.js'
import type { Env } from '../shared/config-values.js'
import { createLogger } from '../shared/logger.js'
import { startService, type RunningService } from '../service/server.js'
import { shutdownOn, untilAborted } from '../shared/shutdown.js'
import { installBundledVoices } from '../voices/bundled.js'

const SERVE_USAGE = `usage: chorus serve

Runs the TTS HTTP service until SIGTERM or SIGINT. Configured by environment
variables (README, Configuration), among them:
  TTS_HTTP_HOST, TTS_HTTP_PORT   where to listen (default 0.0.0.0:8995)
  TTS_VOICE_DIR                  the voice folder (default ./${DEFAULT_VOICE_DIR})
  TTS_DEFAULT_VOICE              the voice for requests without one
  -h, --help                     show this help`

/** The listen failures an operator can fix, as what to do about them. */
function listenProblem (error: unknown, config: ServiceConfig): ConfigError | undefined {
  const code = (error as NodeJS.ErrnoException).code
  const where = `${config.host}:${config.port}`
  if (code === 'EADDRINUSE') return new ConfigError(`Cannot listen on ${where}: the port is in use by another process; stop it or set TTS_HTTP_PORT to a free port`)
  if (code === 'EACCES') return new ConfigError(`Cannot listen on ${where}: not allowed (ports below 1024 need privileges); set TTS_HTTP_PORT to a port above 1023`)
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new ConfigError(`Cannot listen on ${where}: the host name ${config.host} does not resolve; set TTS_HTTP_HOST to an address of this machine (0.0.0.0 for all)`)
  if (code === 'EADDRNOTAVAIL') return new ConfigError(`Cannot listen on ${where}: ${config.host} is not an address of this machine; set TTS_HTTP_HOST to one (0.0.0.0 for all)`)
  return undefined
}

export async function serve (argv: string[], env: Env): Promise<number | undefined> {
  const { values } = parseArgs({ args: argv, options: { help: { type: 'boolean', short: 'h' } } })
  if (values.help === true) {
    console.log(SERVE_USAGE)
    return 0
  }
  const config = loadServiceConfig(env)
  // The process's malloc settings are the service's to choose, before its
  // threads allocate (docs/memory.md, "malloc").
  const malloc = tuneMalloc()
  const log = createLogger('chorus-tts', config.logLevel, process.stdout)
  log.info({ malloc }, 'malloc tuned')
  if (config.installBundled && existsSync(config.bundledVoiceDir)) {
    await installBundledVoices(config.bundledVoiceDir, config.voiceDir, log)
  }
  let service: RunningService
  try {
    service = await startService(config, log)
  } catch (error) {
    throw listenProblem(error, config) ?? error
  }
  const shutdown = shutdownOn()
  await untilAborted(shutdown.signal)
  shutdown.dispose()
  log.info({ signal: shutdown.signal.reason }, 'signal received')
  await service.close()
  return 0
}
