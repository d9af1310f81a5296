// npm run normalizer:measure [-- --failures]
// What espeak-ng (en-us, the phonemizer every English Piper voice uses)
// reads right in test/fixtures/normalizer/corpus.json, before and after
// normalizeForSpeech, judged as scripts/lib/normalizer-corpus.ts says (the
// test test/text/normalize-corpus.unit.ts asserts every item the same way).
// Prints the table docs/normalizer.md shows; --failures lists every miss.

import { parseArgs } from 'node:util'
import { normalizeForSpeech } from '../src/text/normalize/index.js'
import { phonemesOf as phonemes, readCorpus } from './lib/normalizer-corpus.js'

const { values: flags } = parseArgs({ options: { failures: { type: 'boolean', default: false } } })
const corpus = readCorpus()

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
