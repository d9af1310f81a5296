// Structured logs for every server and command, one JSON object per line,
// named for the program that writes them. On stderr unless a destination is
// given: in stdio mode stdout belongs to JSON-RPC and a single stray line
// would break the client; the TTS service passes stdout, its container's log.

import { pino, type DestinationStream, type Logger } from 'pino'
import type { LogLevel } from './config-values.js'

export type { Logger }

export function createLogger (name: string, level: LogLevel, destination?: DestinationStream): Logger {
  return pino({
    name,
    level,
    // Belt and braces: nothing should log these, but if it did they stay out.
    redact: { paths: ['token', '*.token', 'authorization', '*.authorization', '*.headers.authorization'], censor: '[redacted]' }
  }, destination ?? pino.destination({ fd: 2, sync: true }))
}
