// `chorus tools [--stdio] [flags]`: the bot spawner tool server, over MCP
// Streamable HTTP (default) or stdio. Returns an exit code: 0 after a clean
// shutdown, 1 when the server cannot start, 2 for a configuration error.

import { parseToolsConfig, TOOLS_DEFAULTS, type ToolsConfig } from './config.js'
import { commandConfig, type CommandIo } from '../shared/command-io.js'
import { startToolsHttpServer } from './http-transport.js'
import { exposureWarning } from './exposure.js'
import { createLogger, type Logger } from '../shared/logger.js'
import type { McpServerContext } from './mcp-session.js'
import { ToolMetrics } from './metrics.js'
import { fullName } from '../shared/bot-names.js'
import { shutdownOn, untilAborted } from '../shared/shutdown.js'
import { createSpawnerClient } from './spawner-client.js'
import { spawnerCallLimits } from './spawner-limits.js'
import { serveStdio } from './stdio-transport.js'

const TOOLS_USAGE = `Usage: chorus tools [--stdio] [flags]

Serves the bot spawner tools over MCP: Streamable HTTP on POST ${TOOLS_DEFAULTS.path}
(port ${TOOLS_DEFAULTS.port}), or newline-delimited JSON-RPC on stdin/stdout with --stdio.

Flags (each overrides its environment variable):
  --stdio                      serve on stdin/stdout instead of HTTP
  --host <host>                CHORUS_TOOLS_HOST     (default ${TOOLS_DEFAULTS.host})
  --port <port>                CHORUS_TOOLS_PORT     (default ${TOOLS_DEFAULTS.port})
  --path <path>                CHORUS_TOOLS_PATH     (default ${TOOLS_DEFAULTS.path})
  --spawner-host <host>        SPAWNER_HOST          (default ${TOOLS_DEFAULTS.spawnerHost})
  --spawner-port <port>        SPAWNER_PORT          (default ${TOOLS_DEFAULTS.spawnerPort})
  --spawner-token <token>      SPAWNER_TOKEN         (default unset)
  --spawner-timeout-ms <ms>    SPAWNER_TIMEOUT_MS    (default ${TOOLS_DEFAULTS.spawnerTimeoutMs})
  --spawner-retries <n>        SPAWNER_RETRIES       (default ${TOOLS_DEFAULTS.spawnerRetries}, GET only)
  --spawner-max-body-bytes <n> SPAWNER_MAX_BODY_BYTES (default ${TOOLS_DEFAULTS.spawnerMaxBodyBytes}; a longer answer is cut off)
  --first-name <name>          OPENSIM_BOT_FIRST or BOT_FIRSTNAME (the active bot)
  --last-name <name>           OPENSIM_BOT_LAST or BOT_LASTNAME
  --log-level <level>          CHORUS_LOG_LEVEL      (default info)
  --max-sessions <n>           CHORUS_TOOLS_MAX_SESSIONS        (default ${TOOLS_DEFAULTS.maxSessions})
  --sessions-per-minute <n>    CHORUS_TOOLS_SESSIONS_PER_MINUTE (default ${TOOLS_DEFAULTS.sessionsPerMinute}, per remote address)
  --max-batch <n>              CHORUS_TOOLS_MAX_BATCH           (default ${TOOLS_DEFAULTS.maxBatch} messages)
  --calls-per-session <n>      CHORUS_TOOLS_CALLS_PER_SESSION   (default ${TOOLS_DEFAULTS.callsPerSession} spawner calls at once)
  --spawner-calls <n>          CHORUS_TOOLS_SPAWNER_CALLS       (default ${TOOLS_DEFAULTS.spawnerCalls} spawner calls at once, in total)
  --max-answer-bytes <n>       CHORUS_TOOLS_MAX_ANSWER_BYTES    (default ${TOOLS_DEFAULTS.maxAnswerBytes}: tool results held until
                               their answers are written, in total; past it a result is refused)
  --ownership actions|strict   CHORUS_TOOLS_OWNERSHIP           (default actions: the rule guards start, stop
                               and restart; strict: delete and create under a parent too)
Environment only:
  CHORUS_TOOLS_TOKEN           bearer token required on ${TOOLS_DEFAULTS.path}
  CHORUS_TOOLS_ALLOWED_ORIGINS browser origins allowed on ${TOOLS_DEFAULTS.path}, comma-separated
`

export async function runToolsCommand (argv: string[], io: CommandIo): Promise<number> {
  const config = commandConfig('tools', TOOLS_USAGE, () => parseToolsConfig(argv, io.env), io)
  if (typeof config === 'number') return config
  const logger = createLogger('chorus-tools', config.logLevel, io.stderr)
  const context: McpServerContext = {
    spawner: createSpawnerClient(config.spawner, [config.http.token]),
    identity: config.identity,
    ownership: config.ownership,
    logger,
    secrets: [config.spawner.token, config.http.token].filter((secret): secret is string => secret !== undefined),
    maxBatch: config.limits.maxBatch,
    calls: spawnerCallLimits(config.limits.callsPerSession, config.limits.spawnerCalls, config.limits.maxAnswerBytes),
    ...(config.transport === 'http' ? { metrics: new ToolMetrics() } : {})
  }
  const shutdown = shutdownOn(io.signal)
  try {
    return config.transport === 'stdio'
      ? await runStdio(config, context, io, shutdown.signal)
      : await runHttp(config, context, shutdown.signal)
  } finally {
    shutdown.dispose()
  }
}

function describeStart (config: ToolsConfig, context: McpServerContext): Record<string, unknown> {
  return {
    spawner: context.spawner.baseUrl,
    spawnerAuth: config.spawner.token !== undefined,
    identity: config.identity === undefined ? null : fullName(config.identity),
    ownership: config.ownership
  }
}

async function runStdio (config: ToolsConfig, context: McpServerContext, io: CommandIo, signal: AbortSignal): Promise<number> {
  context.logger.info(describeStart(config, context), 'tools server on stdio')
  await serveStdio({ input: io.stdin ?? process.stdin, output: io.stdout ?? process.stdout, context, signal })
  context.logger.info('stdin closed, tools server stopped')
  return 0
}

async function runHttp (config: ToolsConfig, context: McpServerContext, signal: AbortSignal): Promise<number> {
  const logger: Logger = context.logger
  let server
  try {
    server = await startToolsHttpServer({ config: config.http, context })
  } catch (error) {
    logger.fatal({ err: error, host: config.http.host, port: config.http.port }, 'tools server cannot listen')
    return 1
  }
  logger.info({ ...describeStart(config, context), url: server.url + config.http.path, auth: config.http.token !== undefined }, 'tools server listening')
  const exposure = exposureWarning(config.http)
  if (exposure !== undefined) logger.warn({ host: config.http.host }, exposure)
  await untilAborted(signal)
  logger.info('shutting down')
  await server.close()
  return 0
}

