// MCP over stdio: newline-delimited JSON-RPC on stdin, answers on stdout,
// one session for the life of the process. Requests run concurrently and
// may be answered out of order, which JSON-RPC allows (ids pair them up).

import { createInterface } from 'node:readline'
import type { Readable, Writable } from 'node:stream'
import { JsonRpcError, invalidRequest } from './errors.js'
import { answerPayload, decodePayload, failure, type JsonRpcResponse } from './jsonrpc.js'
import type { AnswerHold } from './answer-budget.js'
import { McpSession, type McpServerContext } from './mcp-session.js'

export interface StdioOptions {
  input: Readable
  output: Writable
  context: McpServerContext
  /** Stops reading; answers already under way are still written. */
  signal?: AbortSignal
  /** Longest line accepted, in characters. */
  maxLineLength?: number
}

const DEFAULT_MAX_LINE_LENGTH = 1024 * 1024

/** Serves until the input ends (the client closed stdin) or `signal` aborts. */
export async function serveStdio (options: StdioOptions): Promise<void> {
  const { input, output, context } = options
  const maxLineLength = options.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH
  const session = new McpSession(context)
  const pending = new Set<Promise<void>>()
  let writable = true
  output.on('error', (error) => {
    // The client went away (EPIPE): nothing more can be delivered.
    writable = false
    context.logger.warn({ err: error }, 'stdout closed')
  })
  // Each line's results hold their bytes until the line has gone to the OS (answer-budget.ts).
  const write = (answer: JsonRpcResponse | JsonRpcResponse[] | undefined, hold: AnswerHold): void => {
    if (answer === undefined || !writable) return hold.release()
    output.write(JSON.stringify(answer) + '\n', () => hold.release())
  }

  const lines = createInterface({ input, crlfDelay: Infinity })
  const stop = (): void => { lines.close() }
  options.signal?.addEventListener('abort', stop, { once: true })
  if (options.signal?.aborted === true) stop()

  for await (const line of lines) {
    if (line.trim() === '') continue
    const hold = context.calls.answers.hold()
    const work = answerLine(line, session, maxLineLength, context.maxBatch, hold).then(answer => write(answer, hold), (error: unknown) => {
      hold.release()
      context.logger.error({ err: error }, 'stdio message failed unexpectedly')
    })
    pending.add(work)
    void work.finally(() => pending.delete(work))
  }
  options.signal?.removeEventListener('abort', stop)
  await Promise.allSettled(pending)
}

async function answerLine (line: string, session: McpSession, maxLineLength: number, maxBatch: number, hold: AnswerHold): Promise<JsonRpcResponse | JsonRpcResponse[] | undefined> {
  if (line.length > maxLineLength) return failure(null, invalidRequest(`Invalid Request: a message must be at most ${maxLineLength} characters`))
  try {
    return await answerPayload(decodePayload(line, maxBatch), async (message) => await session.dispatch(message, undefined, hold))
  } catch (error) {
    if (error instanceof JsonRpcError) return failure(null, error)
    throw error
  }
}
