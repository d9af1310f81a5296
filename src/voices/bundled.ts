// Seeds a voice folder with the voices shipped inside the image. The voice
// folder belongs to the user (a Docker volume): a voice is copied only if
// neither of its files is there, nothing there is ever replaced, and each file
// appears atomically (copied under a temporary name, then moved in), the
// .onnx.json last, so a server scanning the folder never sees half a voice.

import { constants } from 'node:fs'
import { copyFile, link, mkdir, open, readdir, rename, rm } from 'node:fs/promises'
import { VoiceInstallError } from './errors.js'
import { isValidVoiceName, temporaryPath, voiceFiles } from './voice-name.js'
import { pathExists } from './path-exists.js'

/** The part of a logger (pino's, for one) the voice installers use: a
 * message that reads whole, and the same facts as fields for machines. */
export interface InstallLog {
  info (fields: Record<string, unknown>, message: string): void
  warn (fields: Record<string, unknown>, message: string): void
}

export const SILENT_LOG: InstallLog = { info () {}, warn () {} }

export interface BundledInstallResult {
  /** Voices copied into the voice folder. */
  copied: string[]
  /** Voices left alone, and why. */
  skipped: Array<{ name: string, reason: string }>
}

export async function installBundledVoices (bundledDir: string, voiceDir: string,
  log: InstallLog = SILENT_LOG): Promise<BundledInstallResult> {
  const result: BundledInstallResult = { copied: [], skipped: [] }
  const entries = await listFolder(bundledDir)
  if (entries === undefined) {
    log.warn({ bundledDir }, `no bundled voices: ${bundledDir} does not exist`)
    return result
  }
  const { complete, incomplete } = bundledVoices(entries)
  for (const name of incomplete) {
    const reason = `incomplete in ${bundledDir} (needs ${name}.onnx and ${name}.onnx.json)`
    result.skipped.push({ name, reason })
    log.warn({ voice: name, reason }, `bundled voice ${name} skipped: ${reason}`)
  }
  await ensureFolder(voiceDir)
  for (const name of complete) {
    const skipped = await copyVoice(name, bundledDir, voiceDir)
    if (skipped === undefined) {
      result.copied.push(name)
      log.info({ voice: name, voiceDir }, `bundled voice ${name} copied into ${voiceDir}`)
    } else {
      result.skipped.push({ name, reason: skipped })
      log.info({ voice: name, reason: skipped }, `bundled voice ${name} left alone: ${skipped}`)
    }
  }
  return result
}

/** The folder's entry names, or undefined if it does not exist. */
async function listFolder (dir: string): Promise<string[] | undefined> {
  try {
    return await readdir(dir)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new VoiceInstallError(dir, `Cannot list bundled voices in ${dir}: ${(error as Error).message}`, { cause: error })
  }
}

/** Voice names with both files, and those with only one, sorted. Entries
 * that are not a valid voice's file are ignored. */
function bundledVoices (entries: string[]): { complete: string[], incomplete: string[] } {
  const present = new Set(entries)
  const names = new Set<string>()
  for (const entry of entries) {
    const name = entry.endsWith('.onnx.json') ? entry.slice(0, -'.onnx.json'.length) : entry.endsWith('.onnx') ? entry.slice(0, -'.onnx'.length) : undefined
    if (isValidVoiceName(name)) names.add(name)
  }
  const sorted = [...names].sort()
  const isComplete = (name: string): boolean => present.has(`${name}.onnx`) && present.has(`${name}.onnx.json`)
  return { complete: sorted.filter(isComplete), incomplete: sorted.filter(name => !isComplete(name)) }
}

/** Copies one voice; returns why it was left alone, or undefined if copied. */
async function copyVoice (name: string, bundledDir: string, voiceDir: string): Promise<string | undefined> {
  const from = voiceFiles(bundledDir, name)
  const to = voiceFiles(voiceDir, name)
  for (const path of [to.model, to.config]) {
    if (await pathExists(path)) return `${path} already exists`
  }
  if (!await copyNoClobber(from.model, to.model)) return `${to.model} appeared while copying`
  if (!await copyNoClobber(from.config, to.config)) return `${to.config} appeared while copying`
  return undefined
}

/** Copies source to a temporary sibling of target, flushes it to disk and
 * moves it in unless target exists. Returns false if target was there. */
async function copyNoClobber (source: string, target: string): Promise<boolean> {
  const temp = temporaryPath(target)
  try {
    await copyFile(source, temp, constants.COPYFILE_EXCL)
    const handle = await open(temp, 'r+')
    try {
      await handle.sync()
    } finally {
      await handle.close()
    }
    return await placeNoClobber(temp, target)
  } catch (error) {
    throw new VoiceInstallError(target, `Cannot copy ${source} to ${target}: ${(error as Error).message}`, { cause: error })
  } finally {
    await rm(temp, { force: true })
  }
}

// Filesystems that refuse hard links (some FUSE and network mounts).
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS'])

// link() fails if target exists, where rename() would silently replace it:
// with a volume shared by several containers starting at once, another
// entrypoint may place the same file between our check and our move. Where
// hard links are unsupported, a last check before rename() narrows that
// window to microseconds.
async function placeNoClobber (temp: string, target: string): Promise<boolean> {
  try {
    await link(temp, target)
    return true
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EEXIST') return false
    if (code === undefined || !NO_HARD_LINKS.has(code)) throw error
  }
  if (await pathExists(target)) return false
  await rename(temp, target)
  return true
}


async function ensureFolder (dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true })
  } catch (error) {
    throw new VoiceInstallError(dir, `Cannot create voice folder ${dir}: ${(error as Error).message}`, { cause: error })
  }
}
