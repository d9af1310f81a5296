// The folder rules (rules.ts, the one place they are written; the table in
// docs/architecture.md must say the same), against the import statements of
// src/**/*.ts and of the load-test harness (bench/**/*.ts):
// each folder imports only what the table allows, the protocol adapters never
// import the synthesizer (SYNTHESIS_INTERNALS), the tool server and the
// reference spawner never import each other, no two folders import each
// other, directly or round a longer loop (http and service once did), and
// nothing in src/ imports the harness, which the package leaves out.

import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import t from 'tap'
import { PACKAGE_ROOT } from '../../src/package-root.js'
import { ALLOWED_IMPORTS, APART, PROTOCOL_ADAPTERS, SYNTHESIS_INTERNALS, THIN_ADAPTER_LINES, THIN_ADAPTERS } from './rules.js'

const SRC = join(PACKAGE_ROOT, 'src')
const BENCH = join(PACKAGE_ROOT, 'bench')

function sourceFiles (folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap(entry => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.c?ts$/.test(entry.name) ? [path] : []
  })
}

/**
 * The area a path is in: a folder of src by name, "." for files at src's
 * root, "bench" for the whole harness, and anything else by its path from
 * the project root (so an import out of src into scripts/ or test/ shows).
 */
function area (path: string): string {
  const fromBench = relative(BENCH, path)
  if (!fromBench.startsWith('..')) return 'bench'
  const parts = relative(SRC, path).split('/')
  if (parts[0] === '..') return relative(PACKAGE_ROOT, path)
  return parts.length > 1 ? parts[0] : '.'
}

// Static imports, side-effect imports and re-exports (`from '…'`) and dynamic `import('…')`.
const SPECIFIER = /(?:\bfrom\s+|\bimport\s*\(\s*|^import\s+)'(\.{1,2}\/[^']+)'/gm

/** area → the other areas it imports. */
function areaGraph (): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>()
  for (const file of [...sourceFiles(SRC), ...sourceFiles(BENCH)]) {
    const from = area(file)
    const edges = graph.get(from) ?? new Set<string>()
    graph.set(from, edges)
    for (const match of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      const to = area(resolve(dirname(file), match[1]))
      if (to !== from) edges.add(to)
    }
  }
  return graph
}

/** Every loop of areas, each as a path that ends where it starts. */
function cycles (graph: Map<string, Set<string>>): string[][] {
  const found: string[][] = []
  const visit = (node: string, path: string[]): void => {
    for (const next of graph.get(node) ?? []) {
      if (next === path[0]) found.push([...path, next])
      // Each loop once: it is reported from its smallest member.
      else if (!path.includes(next) && next > path[0]) visit(next, [...path, next])
    }
  }
  for (const start of graph.keys()) visit(start, [start])
  return found
}

const graph = areaGraph()

const ALLOWED = ALLOWED_IMPORTS

t.test('each folder imports only what the architecture table allows', async t => {
  t.same([...graph.keys()].filter(name => name !== '.').sort(), Object.keys(ALLOWED).sort(), 'the table names every folder')
  for (const [folder, allowed] of Object.entries(ALLOWED)) {
    const extra = [...graph.get(folder) ?? []].filter(to => to !== '.' && !allowed.includes(to))
    t.same(extra, [], `${folder} imports only ${allowed.join(', ') || 'src\'s root files'}`)
  }
})

t.test('the scan sees the folders and their imports', async t => {
  t.ok(graph.get('http')?.has('synthesis'), 'http imports synthesis')
  t.ok(graph.get('service')?.has('http'), 'service imports http')
  t.ok(graph.get('bench')?.has('service') && graph.get('bench')?.has('tools'), 'the harness (bench/) imports the service and the tool server')
  t.ok(graph.get('tools')?.has('shared') && graph.get('spawner')?.has('shared'), 'both servers import the shared kit')
})

t.test('nothing in src imports the harness or anything else outside src: the package ships src without them', async t => {
  const outside = [...graph].filter(([name]) => name !== 'bench').flatMap(([name, edges]) =>
    [...edges].filter(to => to !== '.' && (to === 'bench' || !(to in ALLOWED))).map(to => `${name} → ${to}`))
  t.same(outside, [], 'src/cli.ts loads bench/cli.js by URL only, at run time')
})

t.test('the tool server and the reference spawner do not import each other', async t => {
  for (const [a, b] of APART) {
    t.notOk(graph.get(a)?.has(b), `${a} → ${b}`)
    t.notOk(graph.get(b)?.has(a), `${b} → ${a}`)
    t.notOk(ALLOWED[a]?.includes(b) === true || ALLOWED[b]?.includes(a) === true, `the rules keep ${a} and ${b} apart`)
  }
})

t.test('the protocol adapters import nothing from the pool or the engine', async t => {
  for (const folder of PROTOCOL_ADAPTERS) {
    t.same(['pool', 'engine'].filter(to => ALLOWED[folder]?.includes(to)), [], `the rules give ${folder} neither`)
    t.same(['pool', 'engine'].filter(to => graph.get(folder)?.has(to)), [], `${folder}'s imports reach neither`)
  }
})

/** The files of src a file imports, as paths from src (`synthesis/synthesizer.ts`). */
function importedFiles (file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(SPECIFIER)].map(match => relative(SRC, resolve(dirname(file), match[1])).replace(/\.js$/, '.ts'))
}

t.test('the protocol adapters never import the synthesizer: they ask the speech service', async t => {
  t.ok(importedFiles(join(SRC, 'service/server.ts')).includes('synthesis/synthesizer.ts'), 'the scan sees the composition root build it')
  const reached = sourceFiles(SRC).filter(file => PROTOCOL_ADAPTERS.includes(area(file))).flatMap(file =>
    importedFiles(file).filter(path => SYNTHESIS_INTERNALS.includes(path)).map(path => `${relative(SRC, file)} → ${path}`))
  t.same(reached, [])
})

/** Lines of code: neither blank nor a comment (// lines, and /** … *\/ blocks' lines). */
function codeLines (file: string): number {
  return readFileSync(file, 'utf8').split('\n').filter(line => !/^\s*(\/\/.*|\/?\*.*)?$/.test(line)).length
}

t.test(`each thin protocol adapter is at most ${THIN_ADAPTER_LINES} lines of code`, async t => {
  for (const folder of THIN_ADAPTERS) {
    t.ok(PROTOCOL_ADAPTERS.includes(folder), `${folder} is a protocol adapter (no pool, no engine)`)
    const lines = sourceFiles(join(SRC, folder)).reduce((sum, file) => sum + codeLines(file), 0)
    t.ok(lines > 0 && lines <= THIN_ADAPTER_LINES, `${folder}: ${lines} lines of code`)
  }
})

/** docs/architecture.md's table: folder → the folders its Imports cell names (in backquotes; "nothing" for none). */
function documentedImports (): Map<string, string[]> {
  const table = new Map<string, string[]>()
  for (const line of readFileSync(join(PACKAGE_ROOT, 'docs/architecture.md'), 'utf8').split('\n')) {
    const cells = line.split('|').map(cell => cell.trim())
    if (cells.length < 5 || !cells[1]?.startsWith('`')) continue
    const folders = [...(cells[1] ?? '').matchAll(/`([a-z]+)\/`/g)].map(match => match[1] as string)
    const imports = [...(cells[3] ?? '').matchAll(/`([a-z]+)`/g)].map(match => match[1] as string)
    for (const folder of folders) table.set(folder, imports)
  }
  return table
}

t.test('docs/architecture.md\'s table says what the rules say', async t => {
  const text = readFileSync(join(PACKAGE_ROOT, 'docs/architecture.md'), 'utf8')
  for (const path of SYNTHESIS_INTERNALS) t.ok(text.includes(`\`${path}\``), `it names ${path}, which no protocol adapter imports`)
  const documented = documentedImports()
  t.same([...documented.keys()].sort(), Object.keys(ALLOWED).sort(), 'one row for every folder')
  for (const [folder, allowed] of Object.entries(ALLOWED)) {
    t.same([...documented.get(folder) ?? []].sort(), [...allowed].sort(), `${folder}'s row`)
  }
})

t.test('no folder imports service but the entry points; no loop between folders', async t => {
  const importers = [...graph].filter(([, edges]) => edges.has('service')).map(([name]) => name).sort()
  t.same(importers.filter(name => !['.', 'bench', 'commands'].includes(name)), [], 'service is imported only by the CLI, its commands and the harness')
  // src's root files (errors.ts, validate.ts, cli.ts) are not a folder: the
  // catalogue is imported by everyone and cli.ts imports the commands.
  const folders = new Map([...graph].filter(([name]) => name !== '.').map(([name, edges]) => [name, new Set([...edges].filter(to => to !== '.'))]))
  t.same(cycles(folders).map(loop => loop.join(' → ')), [])
})
