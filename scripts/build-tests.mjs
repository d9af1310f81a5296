// `npm test`'s pretest step: compile the sources and the tests into dist/
// (tsc, incremental: a second build with nothing changed takes a few
// seconds), then delete compiled test files whose source is gone, so tap
// never runs a test that no longer exists. The tests run compiled because
// tsx's hooks cost ~0.5 s of CPU in each of the ~190 test processes.

import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, rmSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const tsc = spawnSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: root, stdio: 'inherit' })
if (tsc.status !== 0) process.exit(tsc.status ?? 1)

const compiledTests = join(root, 'dist', 'test')
for (const entry of readdirSync(compiledTests, { recursive: true, withFileTypes: true })) {
  const match = /^(.*)\.js(\.map)?$/.exec(entry.name)
  if (!entry.isFile() || match === null) continue
  const path = join(entry.parentPath, entry.name)
  const source = join(root, 'test', relative(compiledTests, entry.parentPath), `${match[1]}.ts`)
  if (!existsSync(source)) rmSync(path)
}
