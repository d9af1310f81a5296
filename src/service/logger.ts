// Structured JSON logs (one object per line). Request texts never go out at
// info level; tokens never at all.

import { pino, type Logger } from 'pino'

export function createLogger (level: string, destination?: NodeJS.WritableStream): Logger {
  return pino({
    level,
    base: { service: 'chorus-tts' },
    redact: { paths: ['req.headers.authorization', '*.token', 'token'], censor: '[redacted]' }
  }, destination as pino.DestinationStream | undefined)
}
