// Where a lexicon applies without being named: to every request
// (global), to one voice's, to one API key's; or only where a request names
// it (named, the default). Written in the admin API as `global`,
// `voice:<name>`, `key:<name>` or `named`.

import { invalid } from '../validate.js'

export type LexiconScope =
  | { kind: 'named' }
  | { kind: 'global' }
  | { kind: 'voice', voice: string }
  | { kind: 'key', key: string }

const NAME = /^[A-Za-z0-9._@+-]{1,128}$/

export function parseScope (value: string | undefined, field = 'scope'): LexiconScope | undefined {
  if (value === undefined || value === '') return undefined
  if (value === 'named' || value === 'global') return { kind: value }
  const [kind, name] = [value.slice(0, value.indexOf(':')), value.slice(value.indexOf(':') + 1)]
  if ((kind === 'voice' || kind === 'key') && NAME.test(name)) return kind === 'voice' ? { kind, voice: name } : { kind, key: name }
  throw invalid('named, global, voice:<voice name> or key:<API key name>', field, value)
}

export function scopeText (scope: LexiconScope): string {
  switch (scope.kind) {
    case 'voice': return `voice:${scope.voice}`
    case 'key': return `key:${scope.key}`
    default: return scope.kind
  }
}
