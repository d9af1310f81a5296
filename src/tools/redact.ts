// Redaction of secrets from text that leaves the server. A misbehaving
// spawner may echo our token back, and not always verbatim: upper- or
// lower-cased, percent-encoded (with either case of hex digits), or escaped
// inside a JSON string (`\"`, `\/`, `\u0041`). Each character of the secret
// may appear in any of those forms, mixed within one echo, so the pattern
// offers every form per character. The pattern has no quantifiers, so
// matching stays linear in the text for a given secret.

const REDACTED = '[redacted]'

const patterns = new Map<string, RegExp>()

/** `text` with every echo of every secret replaced by [redacted]; blank secrets are ignored. */
export function redactSecrets (text: string, secrets: readonly string[]): string {
  let redacted = text
  for (const secret of secrets) {
    if (secret === '') continue
    redacted = redacted.replace(patternFor(secret), REDACTED)
  }
  return redacted
}

function patternFor (secret: string): RegExp {
  let pattern = patterns.get(secret)
  if (pattern === undefined) {
    // Case-insensitive: covers case-changed echoes and both cases of hex digits.
    pattern = new RegExp([...secret].map(characterForms).join(''), 'gi')
    patterns.set(secret, pattern)
  }
  // A global RegExp keeps lastIndex between uses; String.replace resets it.
  return pattern
}

function characterForms (character: string): string {
  const forms = new Set<string>([escapeRegExp(character)])
  const utf8 = [...Buffer.from(character, 'utf8')].map((byte) => '%' + hex(byte, 2)).join('')
  forms.add(utf8)
  const utf16 = Array.from({ length: character.length }, (_, index) => '\\\\u' + hex(character.charCodeAt(index), 4)).join('')
  forms.add(utf16)
  const shortEscape = JSON_SHORT_ESCAPES[character]
  if (shortEscape !== undefined) forms.add(escapeRegExp(shortEscape))
  return `(?:${[...forms].join('|')})`
}

// The characters JSON may also write as a backslash and one character.
const JSON_SHORT_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '/': '\\/' }

function hex (value: number, width: number): string {
  return value.toString(16).padStart(width, '0')
}

function escapeRegExp (text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')
}
