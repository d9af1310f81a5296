// Facts about numbers as written that several rules share.

/** A number as models write it: digits, thousands commas, a decimal part. */
export const NUMBER = String.raw`\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?`

/** Whether a written amount is exactly one (a singular unit or currency). */
export function isOne (written: string): boolean {
  return /^0*1(?:\.0*)?$/.test(written)
}

/** English ordinal suffix of a day or count: 1st, 2nd, 3rd, 4th, 11th, 22nd. */
export function ordinal (n: number): string {
  const tens = n % 100
  if (tens >= 11 && tens <= 13) return `${n}th`
  return `${n}${['th', 'st', 'nd', 'rd'][n % 10] ?? 'th'}`
}
