// Commands that start a server run until SIGTERM or SIGINT (or, in tests, an
// AbortSignal), then close and return their exit code instead of calling
// process.exit, so the caller decides how the process ends. The signal's
// reason is what stopped it: "SIGTERM", "SIGINT" or "abort".

export interface Shutdown {
  signal: AbortSignal
  dispose: () => void
}

export function shutdownOn (external?: AbortSignal): Shutdown {
  const controller = new AbortController()
  const onTerm = (): void => { controller.abort('SIGTERM') }
  const onInt = (): void => { controller.abort('SIGINT') }
  const onAbort = (): void => { controller.abort('abort') }
  process.once('SIGTERM', onTerm)
  process.once('SIGINT', onInt)
  external?.addEventListener('abort', onAbort, { once: true })
  if (external?.aborted === true) onAbort()
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGTERM', onTerm)
      process.off('SIGINT', onInt)
      external?.removeEventListener('abort', onAbort)
    }
  }
}

export async function untilAborted (signal: AbortSignal): Promise<void> {
  if (signal.aborted) return
  await new Promise<void>((resolve) => { signal.addEventListener('abort', () => { resolve() }, { once: true }) })
}
