// Money. espeak-ng reads the symbol where it stands: "$5" is "dollar five",
// "$5.99" "dollar five point nine nine", "€20" "euros twenty", "$10k"
// "dollar ten kay". The amount is moved before its currency's name, cents
// and pence read as such: "$5.99" → "5 dollars 99 cents", "$0.50" → "50
// cents", "$2.5 million" → "2.5 million dollars", "$10k" → "10 thousand
// dollars", "$20/month" → "20 dollars per month". Digits stay digits:
// espeak reads numbers well.

import { matchEdits, replaceMatch, type Rule } from './rule.js'
import { isOne, NUMBER } from './spoken-number.js'

interface Currency { one: string, many: string, minorOne?: string, minorMany?: string }

const DOLLAR: Currency = { one: 'dollar', many: 'dollars', minorOne: 'cent', minorMany: 'cents' }
const EURO: Currency = { one: 'euro', many: 'euros', minorOne: 'cent', minorMany: 'cents' }
const POUND: Currency = { one: 'pound', many: 'pounds', minorOne: 'penny', minorMany: 'pence' }
const YEN: Currency = { one: 'yen', many: 'yen' }

const SYMBOLS: Record<string, Currency> = { $: DOLLAR, '€': EURO, '£': POUND, '¥': YEN }
const CODES: Record<string, Currency> = {
  USD: { ...DOLLAR, one: 'US dollar', many: 'US dollars' }, EUR: EURO, GBP: POUND, JPY: YEN
}
const SCALES: Record<string, string> = {
  k: 'thousand', K: 'thousand', m: 'million', M: 'million', b: 'billion', B: 'billion', bn: 'billion', thousand: 'thousand', million: 'million', billion: 'billion', trillion: 'trillion'
}
const PERIODS: Record<string, string> = { hr: 'hour', hour: 'hour', day: 'day', wk: 'week', week: 'week', mo: 'month', month: 'month', yr: 'year', year: 'year' }

const SCALE = String.raw`(?:\s?(?<scale>[kKmMbB]|bn)(?![\w])|\s(?<word>thousand|million|billion|trillion)\b)`
const PER = String.raw`(?:\s?\/\s?(?<per>hr|hour|day|wk|week|mo|month|yr|year)\b)`
const SYMBOL_AMOUNT = new RegExp(String.raw`(?<![\w$€£¥])(?<symbol>[$€£¥])\s?(?<amount>${NUMBER})(?![\d.,]\d)${SCALE}?${PER}?`, 'g')
const CODE_AMOUNT = new RegExp(String.raw`(?<![\w.,])(?<amount>${NUMBER})${SCALE}?\s(?<code>USD|EUR|GBP|JPY)\b${PER}?`, 'g')

function spoken (currency: Currency, amount: string, scale: string | undefined, per: string | undefined): string {
  const tail = per === undefined ? '' : ` per ${PERIODS[per]}`
  if (scale !== undefined) return `${amount} ${SCALES[scale]} ${currency.many}${tail}`
  const [whole, fraction] = amount.split('.')
  // Two decimals are a minor unit ("5.99": 99 cents); other decimals are read as a number.
  if (fraction?.length === 2 && currency.minorMany !== undefined) {
    const minor = Number(fraction)
    const minorName = minor === 1 ? currency.minorOne : currency.minorMany
    const major = `${whole} ${isOne(whole) ? currency.one : currency.many}`
    if (minor === 0) return major + tail
    return (Number(whole.replaceAll(',', '')) === 0 ? `${minor} ${minorName}` : `${major} ${minor} ${minorName}`) + tail
  }
  return `${amount} ${isOne(amount) ? currency.one : currency.many}${tail}`
}

const symbolAmounts: Rule = text => matchEdits(text, SYMBOL_AMOUNT, m => {
  const g = m.groups as Record<string, string | undefined>
  return replaceMatch(m, spoken(SYMBOLS[g.symbol as string], g.amount as string, g.scale ?? g.word, g.per))
})

const codeAmounts: Rule = text => matchEdits(text, CODE_AMOUNT, m => {
  const g = m.groups as Record<string, string | undefined>
  return replaceMatch(m, spoken(CODES[g.code as string], g.amount as string, g.scale ?? g.word, g.per))
})

export const MONEY_RULES: readonly Rule[] = [symbolAmounts, codeAmounts]
