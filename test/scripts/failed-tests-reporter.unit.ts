// The reporter of `npm test` (test/helpers/failed-tests-reporter.mjs): the
// TAP stream passes through unchanged, and the closing lines name every
// skip and todo with its reason and every failure, at whatever depth, so a
// test that skipped on a machine without a tool is seen in the log.

import { Readable } from 'node:stream'
import { text } from 'node:stream/consumers'
import t from 'tap'
import { importSource } from '../helpers/source-tree.js'

const { default: FailedTestsReporter } = await importSource<typeof import('../helpers/failed-tests-reporter.mjs')>('test/helpers/failed-tests-reporter.mjs')

// What tap 21 prints for a file with a skip, a todo, a nested skip, a plan
// of zero, a failure, and a file planned empty (copied from a run).
const TAP = `TAP version 14
1..2
# Subtest: test/a.test.ts
    ok 1 - needs a browser # SKIP chromium not found on PATH
    ok 2 - later # TODO not built yet
    # Subtest: inner
        ok 1 - deep # SKIP deep reason
        1..1
    ok 3 - inner # time=17.148ms
    # Subtest: plan zero
        1..0 # nothing to run here
    ok 4 - plan zero # SKIP nothing to run here
    ok 5 - plain skip # SKIP
    # Subtest: broken
        not ok 1 - one is two
          ---
          source: |
            not ok 9 - quoted source that reads like TAP # SKIP no
          ...
        1..1
    not ok 6 - broken # time=1ms
    1..6
not ok 1 - test/a.test.ts # time=39.36ms

# Subtest: test/b.test.ts
    1..0 # no faad here
ok 2 - test/b.test.ts # SKIP no faad here

`

async function report (input: string, chunk = input.length): Promise<string> {
  const pieces = Array.from({ length: Math.ceil(input.length / chunk) }, (_, i) => input.slice(i * chunk, (i + 1) * chunk))
  return await text(Readable.from(pieces).pipe(new FailedTestsReporter()))
}

t.test('skips and todos with their reasons, then failures, after the stream unchanged', async t => {
  const out = await report(TAP)
  t.ok(out.startsWith(TAP), 'the TAP stream passes through as it came')
  t.equal(out.slice(TAP.length), [
    '# Skipped (5):',
    '#   skip test/a.test.ts > needs a browser: chromium not found on PATH',
    '#   skip test/a.test.ts > inner > deep: deep reason',
    '#   skip test/a.test.ts > plan zero: nothing to run here',
    '#   skip test/a.test.ts > plain skip: (no reason given)',
    '#   skip test/b.test.ts: no faad here',
    '# Todo (1):',
    '#   todo test/a.test.ts > later: not built yet',
    '# Failed (1):',
    '#   not ok test/a.test.ts > broken > one is two',
    ''
  ].join('\n'))
  t.equal(await report(TAP, 7), out, 'the same when lines arrive in pieces')
})

t.test('a clean run closes with nothing added', async t => {
  const clean = 'TAP version 14\n1..1\n# Subtest: test/c.test.ts\n    ok 1 - fine\n    1..1\nok 1 - test/c.test.ts\n'
  t.equal(await report(clean), clean)
})
