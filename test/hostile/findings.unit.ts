// The hostile suite's index (findings.ts) stays true: every numbered finding
// of issues 27 and 42 has tests, and every test it names still exists, so
// the suite cannot quietly lose a reproduction when a test is renamed or removed.

import { readFile } from 'node:fs/promises'
import t from 'tap'
import { FINDINGS, hostileFiles } from './findings.js'

t.test('issue 27\'s findings 1 to 8 and issue 42\'s 1 to 9, each with at least one test', async t => {
  t.same(FINDINGS.filter(finding => finding.issue === 27).map(finding => finding.finding), [1, 2, 3, 4, 5, 6, 7, 8])
  t.same(FINDINGS.filter(finding => finding.issue === 42).map(finding => finding.finding), [1, 2, 3, 4, 5, 6, 7, 8, 9])
  for (const finding of FINDINGS) t.ok(finding.tests.length > 0 && finding.tests.every(test => test.titles.length > 0), `issue ${finding.issue}, finding ${finding.finding}`)
})

t.test('every named test exists in its file', async t => {
  for (const finding of FINDINGS) {
    for (const { file, titles } of [...finding.tests, ...finding.measured ?? []]) {
      const text = await readFile(file, 'utf8')
      for (const title of titles) {
        // A title as it stands in the source, quoted with ' or ` (an apostrophe escaped).
        const quoted = [title, title.replaceAll("'", "\\'")].some(form => text.includes(`t.test('${form}`) || text.includes(`t.test(\`${form}`))
        t.ok(quoted, `issue ${finding.issue}, finding ${finding.finding}: ${file} has "${title}"`)
      }
    }
  }
})

t.test('the suite runs each file once', async t => {
  const files = hostileFiles()
  t.equal(new Set(files).size, files.length)
  t.ok(files.includes('test/hostile/smaller-findings.test.ts'))
  t.notOk(files.some(file => file.startsWith('test/leak/')), 'measurements run apart, each alone')
})
