// No function in src/ is longer than 60 lines (docs/architecture.md,
// "Budget"): a longer one is a list of steps that wants names. Read with
// TypeScript's own parser, so arrow functions, methods and constructors
// count alike; a function's lines run from its first token to its last.

import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import t from 'tap'
import ts from 'typescript'
import { PACKAGE_ROOT } from '../../src/package-root.js'

const LIMIT = 60
const SRC = join(PACKAGE_ROOT, 'src')

function sourceFiles (folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap(entry => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.c?ts$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : []
  })
}

/** Every function-like node with a body, as `file:line name (n lines)`, longer than `limit`. */
export function longFunctions (path: string, text: string, limit: number): string[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true)
  const found: string[] = []
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line
      const last = file.getLineAndCharacterOfPosition(node.getEnd()).line
      const name = node.name !== undefined ? node.name.getText(file) : '(anonymous)'
      if (last - first + 1 > limit) found.push(`${relative(PACKAGE_ROOT, path)}:${first + 1} ${name} (${last - first + 1} lines)`)
    }
    ts.forEachChild(node, visit)
  }
  visit(file)
  return found
}

t.test('the check finds a long function, an arrow function and a method', async t => {
  const body = Array.from({ length: 61 }, (_, i) => `  const v${i} = ${i}`).join('\n')
  const text = `function long () {\n${body}\n}\nconst arrow = () => {\n${body}\n}\nclass C {\n  method () {\n${body}\n  }\n}\nfunction short () {\n  return 1\n}\n`
  const found = longFunctions(join(SRC, 'example.ts'), text, LIMIT)
  t.same(found.map(line => line.split(' ')[1]), ['long', '(anonymous)', 'method'])
})

t.test(`no function in src/ is longer than ${LIMIT} lines`, async t => {
  const found = sourceFiles(SRC).flatMap(path => longFunctions(path, readFileSync(path, 'utf8'), LIMIT))
  t.same(found, [], 'functions over the limit')
})
