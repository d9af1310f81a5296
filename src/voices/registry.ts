// The voice directory: which voices are installed right now. A voice is
// installed when `<name>.onnx` and a valid `<name>.onnx.json` are both in the
// folder. The folder is watched and rescanned, so dropping files in adds a
// voice and removing them takes it away, without a restart. Broken or
// half-present voices are left out and logged once per reason.

import { EventEmitter } from 'node:events'
import { watch, type FSWatcher } from 'node:fs'
import { mkdir, readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { Logger } from 'pino'
import { espeakHasVoice, loadVoiceConfig, type VoiceConfig } from '../engine/index.js'
import { modelHeaderProblem } from '../engine/onnx/model-header.js'
import { phonemeTableProblem } from '../engine/onnx/phoneme-table.js'
import { isValidVoiceName } from './voice-name.js'

export interface InstalledVoice {
  name: string
  modelPath: string
  configPath: string
  config: VoiceConfig
  modelBytes: number
  /** Changes when either file changes: a changed voice must be reloaded. */
  version: string
}

export interface RegistryEvents {
  added: [InstalledVoice]
  removed: [string]
  changed: [InstalledVoice]
}

const MODEL_SUFFIX = '.onnx'
const CONFIG_SUFFIX = '.onnx.json'

export class VoiceRegistry extends EventEmitter<RegistryEvents> {
  private voices = new Map<string, InstalledVoice>()
  private readonly reported = new Map<string, string>()
  private unusable = new Map<string, string>()
  private watcher: FSWatcher | undefined
  private timer: NodeJS.Timeout | undefined
  private scanning: Promise<void> | undefined
  private followUp: Promise<void> | undefined

  /** `refuse` names why a model of that many bytes can never load (over the
   * memory budget), so it is left out at the scan instead of failing, or
   * evicting healthy voices, when a request asks for it. */
  constructor (readonly dir: string, private readonly log: Logger, private readonly rescanMs: number,
    private readonly refuse: (modelBytes: number) => string | undefined = () => undefined) {
    super()
  }

  async start (): Promise<void> {
    // A fresh machine has no voice folder yet; make it so voices can be dropped in.
    await mkdir(this.dir, { recursive: true }).catch((error: Error) =>
      this.log.warn({ err: error, dir: this.dir }, 'cannot create the voice directory'))
    await this.rescan()
    try {
      // Watch events only trigger a rescan: they are unreliable on some file
      // systems (network mounts), which the periodic rescan covers.
      this.watcher = watch(this.dir, { persistent: false }, () => { void this.rescan() })
      this.watcher.on('error', error => this.log.warn({ err: error, dir: this.dir }, 'voice directory watch failed; relying on periodic rescans'))
    } catch (error) {
      this.log.warn({ err: error, dir: this.dir }, 'cannot watch the voice directory; relying on periodic rescans')
    }
    this.timer = setInterval(() => { void this.rescan() }, this.rescanMs)
    this.timer.unref()
  }

  close (): void {
    this.watcher?.close()
    if (this.timer !== undefined) clearInterval(this.timer)
  }

  get (name: string): InstalledVoice | undefined {
    return this.voices.get(name)
  }

  /** Installed voice names, sorted. */
  names (): string[] {
    return [...this.voices.keys()].sort()
  }

  all (): InstalledVoice[] {
    return this.names().map(name => this.voices.get(name) as InstalledVoice)
  }

  /** Rescans the folder. A call during a scan waits for a fresh scan after
   * it (shared by every such call), so it always sees the folder as it is. */
  async rescan (): Promise<void> {
    if (this.scanning === undefined) return await this.startScan()
    this.followUp ??= this.scanning.then(() => {
      this.followUp = undefined
      return this.startScan()
    })
    return await this.followUp
  }

  private startScan (): Promise<void> {
    this.scanning = this.scan().finally(() => { this.scanning = undefined })
    return this.scanning
  }

  /** Logs why a voice is left out, once per reason. */
  private report (name: string, reason: string): undefined {
    if (this.reported.get(name) === reason) return undefined
    this.reported.set(name, reason)
    this.log.warn({ voice: name, dir: this.dir, reason }, 'voice left out')
    return undefined
  }

  /** Voices whose model is in the folder but that are left out (an empty
   * model, no config, a config that does not parse), with the reason. */
  leftOut (): Map<string, string> {
    return new Map(this.unusable)
  }

  private async scan (): Promise<void> {
    let files: string[]
    try {
      files = await readdir(this.dir)
    } catch (error) {
      this.report('(directory)', `cannot read ${this.dir}: ${(error as Error).message}`)
      files = []
    }
    const candidates = new Set<string>()
    for (const file of files) {
      if (file.endsWith(CONFIG_SUFFIX)) candidates.add(file.slice(0, -CONFIG_SUFFIX.length))
      else if (file.endsWith(MODEL_SUFFIX)) candidates.add(file.slice(0, -MODEL_SUFFIX.length))
    }
    const next = new Map<string, InstalledVoice>()
    for (const name of candidates) {
      const voice = await this.inspect(name, files)
      if (voice !== undefined) next.set(name, voice)
    }
    const previous = this.voices
    this.voices = next
    // Voices whose files are there but unusable, as of this scan.
    // A config without its model is not a voice (a half-removed one is gone).
    this.unusable = new Map([...candidates]
      .filter(name => !next.has(name) && isValidVoiceName(name) && this.reported.has(name) && files.includes(name + MODEL_SUFFIX))
      .map(name => [name, this.reported.get(name) as string]))
    for (const [name, voice] of next) {
      const before = previous.get(name)
      if (before === undefined) {
        this.reported.delete(name)
        this.log.info({ voice: name }, 'voice available')
        this.emit('added', voice)
      } else if (before.version !== voice.version) {
        this.emit('changed', voice)
      }
    }
    for (const name of previous.keys()) {
      if (!next.has(name)) {
        this.log.info({ voice: name }, 'voice removed')
        this.emit('removed', name)
      }
    }
  }

  private async inspect (name: string, files: string[]): Promise<InstalledVoice | undefined> {
    if (!isValidVoiceName(name)) {
      this.report(name, 'the file name is not a valid voice name')
      return undefined
    }
    const modelPath = join(this.dir, name + MODEL_SUFFIX)
    const configPath = join(this.dir, name + CONFIG_SUFFIX)
    if (!files.includes(name + MODEL_SUFFIX)) return this.report(name, `${name}${MODEL_SUFFIX} is missing`)
    if (!files.includes(name + CONFIG_SUFFIX)) return this.report(name, `${name}${CONFIG_SUFFIX} is missing`)
    try {
      const [model, configStat] = await Promise.all([stat(modelPath), stat(configPath)])
      if (!model.isFile() || model.size === 0) return this.report(name, `${name}${MODEL_SUFFIX} is empty or not a file`)
      const version = `${model.size}:${model.mtimeMs}:${configStat.size}:${configStat.mtimeMs}`
      const known = this.voices.get(name)
      if (known?.version === version) return known
      // Before any load: a garbage or oversized file must cost its first kilobytes, not its size.
      const problem = await modelHeaderProblem(modelPath, model.size)
      if (problem !== undefined) return this.report(name, `${name}${MODEL_SUFFIX}: ${problem}`)
      const refused = this.refuse(model.size)
      if (refused !== undefined) return this.report(name, `${name}${MODEL_SUFFIX}: ${refused}`)
      const config = await loadVoiceConfig(configPath)
      if (config.phonemeType === 'espeak' && espeakHasVoice(config.espeakVoice) === false) {
        return this.report(name, `espeak-ng has no voice named ${JSON.stringify(config.espeakVoice)} (espeak.voice in ${name}${CONFIG_SUFFIX})`)
      }
      // Ids past the model's phoneme table would fail every run (or read
      // another row): compared here, from the model's fields without its weights.
      const misfit = await phonemeTableProblem(modelPath, model.size, config, configPath)
      if (misfit !== undefined) return this.report(name, misfit)
      return { name, modelPath, configPath, config, modelBytes: model.size, version }
    } catch (error) {
      return this.report(name, (error as Error).message)
    }
  }
}
