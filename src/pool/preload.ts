// TTS_PRELOAD_VOICES: voices loaded at start-up, in the background, so the
// first request for each does not pay for its load. One voice at a time (a
// load is CPU-bound; the service is already answering). Preloading never
// evicts to make room: a voice that does not fit the budget beside those
// already loaded (by its estimate) is skipped, so `*` loads every installed
// voice that fits. Like any load, one that reports more than its estimate
// pushes least recently used idle voices out.

import type { Logger } from 'pino'
import type { VoiceRegistry } from '../voices/registry.js'
import type { PoolManager } from './pool-manager.js'

export interface PreloadStatus {
  state: 'loading' | 'done'
  loaded: string[]
  /** Not installed, or failed to load (the log says why). */
  failed: string[]
  /** Installed but beyond the memory budget or the voice cap. */
  skipped: string[]
}

export class Preloader {
  private readonly current: PreloadStatus = { state: 'done', loaded: [], failed: [], skipped: [] }
  private stopped = false
  private running: Promise<void> | undefined

  constructor (private readonly pools: PoolManager, private readonly registry: VoiceRegistry, private readonly log: Logger) {}

  get status (): PreloadStatus {
    return { state: this.current.state, loaded: [...this.current.loaded], failed: [...this.current.failed], skipped: [...this.current.skipped] }
  }

  /** Starts preloading once `after` has settled (the default voice's load:
   * it comes first); `*` means every installed voice. Returns at once, the
   * state already 'loading', so readiness does not load these voices itself meanwhile. */
  start (selection: readonly string[] | '*', after: Promise<unknown> = Promise.resolve()): void {
    const names = selection === '*' ? this.registry.names() : [...selection]
    if (names.length === 0) return
    this.current.state = 'loading'
    this.running = after.then(async () => await this.run(names), async () => await this.run(names)).finally(() => {
      this.current.state = 'done'
      this.log.info({ loaded: this.current.loaded, failed: this.current.failed, skipped: this.current.skipped }, 'preloading done')
    })
  }

  private async run (names: string[]): Promise<void> {
    for (const name of names) {
      if (this.stopped) return
      const voice = this.registry.get(name)
      if (voice === undefined) {
        this.log.warn({ voice: name }, 'cannot preload a voice that is not installed')
        this.current.failed.push(name)
        continue
      }
      try {
        if (await this.pools.loadWithoutEvicting(voice)) this.current.loaded.push(name)
        else {
          this.log.warn({ voice: name, budgetBytes: this.pools.budgetBytes, usedBytes: this.pools.usedBytes }, 'not preloaded: it does not fit beside the voices already loaded')
          this.current.skipped.push(name)
        }
      } catch (error) {
        this.log.error({ err: error, voice: name }, 'preloading the voice failed')
        this.current.failed.push(name)
      }
    }
  }

  /** Loads nothing more; resolves once the load under way has settled. */
  async stop (): Promise<void> {
    this.stopped = true
    await this.running
  }
}
