// The normalizer's corpus (test/fixtures/normalizer/corpus.json) and how an
// item is judged: right when espeak-ng (en-us, the phonemizer every English
// Piper voice uses) reads the normalized text with the phonemes of the
// reading the item is meant to have (`expected`, written out in words espeak
// reads unambiguously), sentence breaks included. Shared by
// scripts/measure-normalizer.ts (the table in docs/normalizer.md) and
// test/text/normalize-corpus.unit.ts (which asserts every item).

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { initRuntime } from '../../src/engine/runtime.js'
import { PACKAGE_ROOT } from '../../src/package-root.js'

export interface CorpusItem { category: string, text: string, expected: string }

export const CORPUS_PATH = join(PACKAGE_ROOT, 'test/fixtures/normalizer/corpus.json')

export function readCorpus (): CorpusItem[] {
  return JSON.parse(readFileSync(CORPUS_PATH, 'utf8')) as CorpusItem[]
}

/** espeak-ng's en-us phonemes of a text, its sentences joined by " | ". */
export function phonemesOf (text: string): string {
  return initRuntime().binding.phonemize(text, 'en-us').map(s => s.trim()).join(' | ')
}
