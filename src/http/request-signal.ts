// A request's client, as an abort signal: it fires when the client goes
// away before its answer was written, so that synthesis stops rather than
// runs for nobody. The request's time is the speech service's.

import type { Context } from 'koa'
import { SynthesisCancelledError } from '../synthesis/errors.js'

/** Aborts when the client goes away; call done() once the response has ended. */
export function clientSignal (ctx: Context): { signal: AbortSignal, done: () => void } {
  const controller = new AbortController()
  const onClose = (): void => { if (!ctx.res.writableFinished) controller.abort(new SynthesisCancelledError('The client closed the connection')) }
  ctx.res.once('close', onClose)
  return { signal: controller.signal, done: () => ctx.res.off('close', onClose) }
}
