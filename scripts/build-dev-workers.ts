// Bundles the worker threads' TypeScript entries for runs from the sources
// (tests, tsx), so a thread starts from one plain JavaScript file instead of
// registering tsx and compiling every module again (src/dev-workers.mjs says
// when a bundle is used); and the `chorus` command, which tests start as a
// child process dozens of times (test/helpers/chorus-command.ts). Each bundle's manifest lists the files it was made
// from with a hash of the exact bytes bundled: an edit to any of them, to
// this builder, to the tsconfig or to esbuild makes the threads fall back to
// the sources until the next build. Skipped when every manifest is current;
// safe when several processes build at once (files are written under new
// names and renamed into place, and a bundle's name is its content's hash).
//   tsx scripts/build-dev-workers.ts

import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build, type Plugin } from 'esbuild'
import { BUNDLE_DIR, freshBundle, manifestPath, SOURCE_ROOT, sourcesHash } from '../src/dev-workers.mjs'

/** Every TypeScript file a worker thread starts from when run from the sources. */
export const WORKER_ENTRIES = [
  'src/pool/worker.ts',
  'src/audio/encoder-worker.ts',
  'src/engine/onnx/cut-worker.ts',
  'bench/ceiling-worker.ts',
  'test/helpers/engine-worker.ts',
  'test/helpers/error-thrower.ts'
]

/** The `chorus` command. Bundled apart from the workers with its dynamic
 * imports kept as chunks of their own: a child that only checks its flags
 * loads what the compiled command loads, not every command's libraries. */
export const COMMAND_ENTRY = 'src/bin.cts'

/** Files that shape every bundle without being bundled. */
const BUILD_INPUTS = [
  'scripts/build-dev-workers.ts',
  'src/dev-workers.mjs',
  'tsconfig.json',
  'node_modules/esbuild/package.json'
]

/** Bundles of earlier sources are removed only after this long, so a thread
 * that read an older manifest a moment ago can still load its bundle. */
const OLD_BUNDLE_MS = 24 * 3600_000

interface Manifest {
  bundle: string
  sources: string[]
  hash: string
}

/** Each module sees its own file's URL in import.meta, as it does under tsx:
 * paths the sources resolve from import.meta.url (the addon, the cutter's
 * worker, the package root) stay those of the sources. */
function sourceMeta (contents: Map<string, Buffer>): Plugin {
  return {
    name: 'source-meta',
    setup (builder) {
      builder.onLoad({ filter: /\.[cm]?ts$/ }, async args => {
        const bytes = await readFile(args.path)
        contents.set(relative(SOURCE_ROOT, args.path), bytes)
        const text = bytes.toString('utf8')
        const url = JSON.stringify(pathToFileURL(args.path).href)
        const replaced = text
          .replaceAll('import.meta.url', url)
          .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)))
          .replaceAll('import.meta.filename', JSON.stringify(args.path))
        return { contents: replaced, loader: 'ts' }
      })
    }
  }
}

async function writeAtomically (path: string, data: Uint8Array | string): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  const temporary = `${path}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`
  await writeFile(temporary, data)
  await rename(temporary, path)
}

/** Bundles each of `entries` (paths from the project's root) and writes each
 * bundle, then its manifest. With `split`, dynamic imports become chunks, and
 * every entry's manifest lists every file of the build: a chunk's sources
 * make its entry stale too. */
export async function buildDevWorkers (entries = WORKER_ENTRIES, { split = false } = {}): Promise<void> {
  const fixed = new Map(await Promise.all(BUILD_INPUTS.map(async file => [file, await readFile(join(SOURCE_ROOT, file))] as const)))
  const contents = new Map<string, Buffer>()
  const result = await build({
    absWorkingDir: SOURCE_ROOT,
    entryPoints: entries,
    outbase: SOURCE_ROOT,
    outdir: BUNDLE_DIR,
    entryNames: '[dir]/[name]-[hash]',
    chunkNames: 'chunks/[name]-[hash]',
    splitting: split,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Packages load from node_modules as they do under tsx; only our sources are bundled.
    packages: 'external',
    // Error classes and their names stay as written: nothing is renamed apart.
    keepNames: true,
    sourcemap: 'inline',
    sourcesContent: false,
    metafile: true,
    write: false,
    logLevel: 'warning',
    plugins: [sourceMeta(contents)]
  })
  const outputs = new Map(result.outputFiles.map(file => [relative(SOURCE_ROOT, file.path), file.contents]))
  // A dynamically imported module is an entry point of esbuild's own: any output not asked for is a chunk.
  const isAsked = (meta: { entryPoint?: string }): boolean => meta.entryPoint !== undefined && entries.includes(meta.entryPoint)
  const chunks = Object.entries(result.metafile.outputs).filter(([, meta]) => !isAsked(meta))
  const chunkInputs = chunks.flatMap(([, meta]) => Object.keys(meta.inputs))
  // Chunks first: an entry's manifest is written only once what it imports is in place.
  for (const [output] of chunks) await writeAtomically(join(SOURCE_ROOT, output), outputs.get(output) ?? missing(output))
  for (const [output, meta] of Object.entries(result.metafile.outputs)) {
    if (!isAsked(meta) || meta.entryPoint === undefined) continue
    const bytes = outputs.get(output) ?? missing(output)
    const bundle = relative(BUNDLE_DIR, join(SOURCE_ROOT, output))
    const inputs = [...new Set([...Object.keys(meta.inputs), ...chunkInputs])].sort()
    const sources = [...inputs, ...BUILD_INPUTS, ...chunks.map(([chunk]) => chunk), output]
    const read = (file: string): Uint8Array => fixed.get(file) ?? contents.get(file) ?? outputs.get(file) ?? missing(file)
    const manifest: Manifest = { bundle, sources, hash: sourcesHash(sources, read) }
    await writeAtomically(join(SOURCE_ROOT, output), bytes)
    await writeAtomically(manifestPath(join(SOURCE_ROOT, meta.entryPoint)), `${JSON.stringify(manifest, null, 2)}\n`)
  }
}

function missing (file: string): never {
  throw new Error(`${file} is in a bundle but was not read or written while bundling`)
}

/** Removes bundles and chunks no manifest names, once they are old enough that no thread is about to load them. */
async function removeOldBundles (): Promise<void> {
  const current = new Set<string>()
  const files: string[] = []
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) await walk(path)
      else if (entry.name.endsWith('.mjs')) files.push(path)
      else if (entry.name.endsWith('.json')) {
        for (const source of (JSON.parse(await readFile(path, 'utf8')) as Manifest).sources) current.add(join(SOURCE_ROOT, source))
      }
    }
  }
  await walk(BUNDLE_DIR)
  for (const file of files) {
    if (current.has(file)) continue
    // Another build may have removed it already.
    const written = (await stat(file).catch(() => undefined))?.mtimeMs
    if (written !== undefined && Date.now() - written > OLD_BUNDLE_MS) await rm(file, { force: true })
  }
}

const isFresh = (entry: string): boolean => freshBundle(join(SOURCE_ROOT, entry)) !== undefined

/** Builds the bundles unless every one is current. */
export async function ensureDevWorkers (): Promise<void> {
  const workers = WORKER_ENTRIES.every(isFresh)
  const command = isFresh(COMMAND_ENTRY)
  if (workers && command) return
  await Promise.all([workers || buildDevWorkers(), command || buildDevWorkers([COMMAND_ENTRY], { split: true })])
  await removeOldBundles()
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = performance.now()
  await ensureDevWorkers()
  console.log(`worker bundles in ${BUNDLE_DIR} (${((performance.now() - started) / 1000).toFixed(1)} s)`)
}
