// Commands that start a server run until SIGTERM or SIGINT (or, in tests, an
// AbortSignal), then close and return their exit code instead of calling
// process.exit, so the caller decides how the process ends.

export interface Shutdown {
  signal: AbortSignal
  dispose: () => void
}

export function shutdownOn (external?: AbortSignal): Shutdown {
  const controller = new AbortController()
  const stop = (): void => { controller.abort() }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
  external?.addEventListener('abort', stop, { once: true })
  if (external?.aborted === true) stop()
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGTERM', stop)
      process.off('SIGINT', stop)
      external?.removeEventListener('abort', stop)
    }
  }
}

export async function untilAborted (signal: AbortSignal): Promise<void> {
  if (signal.aborted) return
  await new Promise<void>((resolve) => { signal.addEventListener('abort', () => { resolve() }, { once: true }) })
}
