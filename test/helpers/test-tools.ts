// The programs and libraries some tests need from the machine (Debian's
// Chromium, mpg123, faad, libavcodec59, binutils, a C compiler), found the
// way scripts/ensure-test-tools.sh finds them: programs on PATH, so hiding
// one from PATH shows what a machine without it does. A test that needs a
// missing one never passes in silence: under CI (the CI variable set, as
// .ci/run runs) it fails naming what is missing; on a developer's machine it
// skips, and the reporter lists the skip with its reason.

import { spawnSync } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import { delimiter, join } from 'node:path'
import t, { type Test } from 'tap'
import { AVCODEC_LIBRARY } from '../../src/audio/avcodec.js'

/** Where each tool comes from: Debian's package, as ensure-test-tools.sh installs it. */
const PACKAGES = {
  chromium: 'chromium',
  mpg123: 'mpg123',
  faad: 'faad',
  readelf: 'binutils',
  nm: 'binutils',
  cc: 'gcc'
} as const

export type TestProgram = keyof typeof PACKAGES

/** True when CI is set (to anything but "" or "false"): then nothing the tests need may be absent. */
export const UNDER_CI = (process.env.CI ?? '') !== '' && process.env.CI !== 'false'

/** A program's path on PATH, or undefined. */
export function onPath (program: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue
    const candidate = join(dir, program)
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {
      // Not in this folder (or not executable): the next one.
    }
  }
  return undefined
}

/** The path of a program a test needs; throws naming it when it is absent
 * (call it where the test is not skipped, i.e. after needs()). */
export function programPath (program: TestProgram): string {
  const path = onPath(program)
  if (path === undefined) throw new Error(missingMessage([program]))
  return path
}

function missingMessage (programs: readonly TestProgram[]): string {
  const packages = [...new Set(programs.map(p => PACKAGES[p]))]
  return `${programs.join(', ')} not found on PATH (apt-get install -y ${packages.join(' ')}, or bash scripts/ensure-test-tools.sh)`
}

/** Why the programs (and libavcodec59, when asked for) cannot be used here, or false. */
export function whyUnavailable (programs: readonly TestProgram[], options: { avcodec?: boolean } = {}): string | false {
  const reasons: string[] = []
  const missing = programs.filter(p => onPath(p) === undefined)
  if (missing.length > 0) reasons.push(missingMessage(missing))
  if (options.avcodec === true && !avcodecInstalled()) reasons.push(`${AVCODEC_LIBRARY} not found by ldconfig (apt-get install -y libavcodec59)`)
  return reasons.length === 0 ? false : reasons.join('; ')
}

/** Whether the dynamic linker knows libavcodec59, as ensure-test-tools.sh
 * asks; not by loading it, since a file may test the process before its
 * load (a loaded libavcodec stays loaded). */
function avcodecInstalled (): boolean {
  const listing = spawnSync('ldconfig', ['-p'], { encoding: 'utf8' })
  const text = listing.error === undefined ? listing.stdout : spawnSync('/sbin/ldconfig', ['-p'], { encoding: 'utf8' }).stdout ?? ''
  return text.includes(`${AVCODEC_LIBRARY} `)
}

/** The root test's failure for something missing under CI, once per reason. */
const failed = new Set<string>()
function failUnderCi (reason: string): void {
  if (failed.has(reason)) return
  failed.add(reason)
  t.fail(`needed by this file but missing (CI is set, so this fails rather than skips): ${reason}`)
}

/** Options for a subtest that needs something: nothing when it is there;
 * else a skip with the reason, and under CI also a failure of the file. */
export function unless (reason: string | false): { skip: string | false } {
  if (reason === false) return { skip: false }
  if (UNDER_CI) failUnderCi(reason)
  return { skip: reason }
}

/** The same for a whole file (its code at the top level): true when it can
 * run; else false, after planning no tests with the reason (a skip) or,
 * under CI, failing. */
export function fileCanRun (reason: string | false): boolean {
  if (reason === false) return true
  if (UNDER_CI) failUnderCi(reason)
  else t.plan(0, reason)
  return false
}

/** Inside a running subtest, for something found missing only by trying
 * (a mount): a skip with the reason, or under CI a failure. The subtest must
 * not have asserted anything yet. */
export function stopUnavailable (test: Test, reason: string): void {
  if (UNDER_CI) test.fail(`missing (CI is set, so this fails rather than skips): ${reason}`)
  else test.plan(0, reason)
}
