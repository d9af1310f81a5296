// Runs the unit files of a folder (`*.unit.ts`, compiled `*.unit.js`) in
// one test process: tap starts each test file in a process of its own, and
// before a file's first test that process has spent ~1.3 CPU-s on tap and
// @tapjs/processinfo's module hooks (which tap always loads), more than most
// unit files' whole run. `npx tap test/x/y.unit.ts` still runs one alone.
// docs/testing.md, "Unit files", says which files are unit files.

import { readdir } from 'node:fs/promises'
import { dirname, extname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import t from 'tap'

/** Loads every unit file beside `runnerUrl` (the calling module's URL), in name order. */
export async function runUnitFiles (runnerUrl: string): Promise<void> {
  const runner = fileURLToPath(runnerUrl)
  const folder = dirname(runner)
  const suffix = `.unit${extname(runner)}`
  const files = (await readdir(folder)).filter(name => name.endsWith(suffix)).sort()
  // tap ends its root test as soon as nothing is queued, which a file's
  // top-level await (a temporary folder, a server) would allow between two
  // files. The files load inside this subtest, their tests queue behind it;
  // so a unit file must not await its own tests at its top level.
  await t.test(`the unit files of ${folder}`, async t => {
    for (const name of files) await import(pathToFileURL(join(folder, name)).href)
    t.ok(files.length > 0, files.join(', '))
  })
}
