// One request's abort signal: it fires when the request's time is up or its
// client goes away, so that synthesis stops rather than runs for nobody.

import type { Context } from 'koa'
import { SynthesisCancelledError } from '../engine/errors.js'
import { requestTimedOut } from '../synthesis/errors.js'

class ClientGoneError extends SynthesisCancelledError {
  constructor () {
    super('The client closed the connection')
  }
}

/** Aborts when the request's time is up or its client goes away. */
export function requestSignal (ctx: Context, timeoutMs: number): { signal: AbortSignal, done: () => void } {
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(requestTimedOut()), timeoutMs)
  const onClose = () => { if (!ctx.res.writableFinished) controller.abort(new ClientGoneError()) }
  ctx.res.once('close', onClose)
  return {
    signal: controller.signal,
    done: () => {
      clearTimeout(timer)
      ctx.res.off('close', onClose)
    }
  }
}

/** The abort's reason when the work was stopped from outside, else the error. */
export function outcome (error: unknown, signal: AbortSignal): unknown {
  return signal.aborted && error instanceof SynthesisCancelledError ? signal.reason : error
}
