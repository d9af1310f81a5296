// npm run normalizer:measure [-- --failures]
// What espeak-ng (en-us, the phonemizer every English Piper voice uses)
// reads right in test/fixtures/normalizer/corpus.json, before and after
// normalizeForSpeech. An item is right when the phonemes of its text equal
// those of the reading it is meant to have (`expected`, written out in
// words espeak reads unambiguously), sentence breaks included. Prints the
// table docs/normalizer.md shows; --failures lists every miss.

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { initRuntime } from '../src/engine/runtime.js'
import { PACKAGE_ROOT } from '../src/package-root.js'
import { normalizeForSpeech } from '../src/text/normalize/index.js'

interface CorpusItem { category: string, text: string, expected: string }

const { values: flags } = parseArgs({ options: { failures: { type: 'boolean', default: false } } })
const corpus = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'test/fixtures/normalizer/corpus.json'), 'utf8')) as CorpusItem[]
const { binding } = initRuntime()
const phonemes = (text: string): string => binding.phonemize(text, 'en-us').map(s => s.trim()).join(' | ')

const rows = new Map<string, { items: number, raw: number, normalized: number, unchanged: number }>()
const misses: string[] = []
for (const item of corpus) {
  const row = rows.get(item.category) ?? { items: 0, raw: 0, normalized: 0, unchanged: 0 }
  rows.set(item.category, row)
  const normalized = normalizeForSpeech(item.text, { language: 'en-us' }).text
  const want = phonemes(item.expected)
  const raw = phonemes(item.text)
  const after = phonemes(normalized)
  row.items++
  if (raw === want) row.raw++
  if (after === want) row.normalized++
  if (normalized === item.text) row.unchanged++
  if (after !== want) misses.push(`${item.category}: ${JSON.stringify(item.text)} → ${JSON.stringify(normalized)}\n  got  ${after}\n  want ${want}`)
}

const total = { items: 0, raw: 0, normalized: 0, unchanged: 0 }
console.log('| Category | Items | espeak-ng right, raw | right, normalized | text unchanged |')
console.log('|---|---:|---:|---:|---:|')
for (const [category, row] of rows) {
  for (const key of Object.keys(total) as (keyof typeof total)[]) total[key] += row[key]
  console.log(`| ${category} | ${row.items} | ${row.raw} | ${row.normalized} | ${row.unchanged} |`)
}
console.log(`| **all** | ${total.items} | ${total.raw} | ${total.normalized} | ${total.unchanged} |`)
if (flags.failures) for (const miss of misses) console.log(miss)
