/**
 * Fast, exact decimal number scanning for the BVH reader.
 *
 * Grammar (JSON-like, plus a leading `+` and a bare leading or trailing dot):
 * `[+-]? (digits ('.' digits?)? | '.' digits) ([eE] [+-]? digits)?`, e.g. `12`, `-0.5`, `.03333`, `1.`,
 * `1e-05`, `-2.5E+2`. `NaN`, `Infinity`, hex and empty strings are not numbers.
 *
 * Exactness: up to 15 significant digits the mantissa `m` is an exact integer (< 2^53), and for a
 * decimal exponent `|e| <= 22` the power `10^|e|` is an exact double, so the single IEEE operation
 * `m * 10^e` or `m / 10^-e` is correctly rounded and equals `Number(text)` (Clinger's fast path:
 * W. D. Clinger, "How to read floating point numbers accurately", PLDI 1990). Longer mantissas and
 * larger exponents fall back to `Number()` on the validated substring, so every result is the
 * correctly rounded double.
 */

const POW10 = new Float64Array(23);
for (let i = 0, p = 1; i < 23; i++, p *= 10) POW10[i] = p; // 10^0..10^22, all exact in binary64

/**
 * `scanState[0]` is the end index of the last number scanned by {@link scanNumber}; `-1` when the text
 * at the start position is not a valid number (then the value returned is NaN). Module-level so the
 * scan allocates nothing.
 */
export const scanState = new Int32Array(1);

/** True for the characters that may follow a number: end of text, space, tab, CR, LF, vertical tab, form feed. */
export function isSeparator(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12;
}

/**
 * Scan one decimal number starting at `pos` in `text` (which must not be whitespace) and ending
 * before `end` or before a separator (see {@link isSeparator}). Returns its value and sets
 * `scanState[0]` to the index after it; on malformed input (letters, a lone sign or dot, a
 * dangling exponent, a non-separator straight after the number) returns NaN and sets `scanState[0] = -1`.
 * Values too large for a double come back as +-Infinity (the caller decides whether that is an
 * error). Allocates nothing except on the rare `Number()` fallback.
 */
export function scanNumber(text: string, pos: number, end: number): number {
  const start = pos;
  let c = text.charCodeAt(pos);
  let neg = false;
  if (c === 45 /* - */ || c === 43 /* + */) {
    neg = c === 45;
    pos++;
    c = pos < end ? text.charCodeAt(pos) : -1;
  }
  let mant = 0;
  let sig = 0; // significant digits accumulated (leading zeros not counted)
  let digits = 0; // all mantissa digits seen
  let e10 = 0;
  while (c >= 48 && c <= 57) {
    if (mant !== 0 || c !== 48) {
      mant = mant * 10 + (c - 48);
      sig++;
    }
    digits++;
    pos++;
    c = pos < end ? text.charCodeAt(pos) : -1;
  }
  if (c === 46 /* . */) {
    pos++;
    c = pos < end ? text.charCodeAt(pos) : -1;
    while (c >= 48 && c <= 57) {
      if (mant !== 0 || c !== 48) {
        mant = mant * 10 + (c - 48);
        sig++;
      }
      digits++;
      e10--;
      pos++;
      c = pos < end ? text.charCodeAt(pos) : -1;
    }
  }
  if (digits === 0) {
    scanState[0] = -1;
    return Number.NaN;
  }
  if (c === 101 || c === 69 /* e E */) {
    pos++;
    c = pos < end ? text.charCodeAt(pos) : -1;
    let eneg = false;
    if (c === 45 || c === 43) {
      eneg = c === 45;
      pos++;
      c = pos < end ? text.charCodeAt(pos) : -1;
    }
    let ev = 0;
    let edigits = 0;
    while (c >= 48 && c <= 57) {
      if (ev < 100000) ev = ev * 10 + (c - 48);
      edigits++;
      pos++;
      c = pos < end ? text.charCodeAt(pos) : -1;
    }
    if (edigits === 0) {
      scanState[0] = -1;
      return Number.NaN;
    }
    e10 += eneg ? -ev : ev;
  }
  if (pos < end && !isSeparator(c)) {
    scanState[0] = -1;
    return Number.NaN;
  }
  scanState[0] = pos;
  let v: number;
  if (mant === 0) v = 0;
  else if (sig <= 15 && e10 >= -22 && e10 <= 22) v = e10 < 0 ? mant / POW10[-e10] : mant * POW10[e10];
  else return Number(text.slice(start, pos)); // exact slow path (long mantissa or large exponent)
  return neg ? -v : v;
}

/**
 * Parse a whole string as one decimal number with the grammar above (surrounding whitespace
 * allowed). Returns NaN when it is not exactly one number.
 */
export function parseDecimal(s: string): number {
  let a = 0;
  let b = s.length;
  while (a < b && isSeparator(s.charCodeAt(a))) a++;
  while (b > a && isSeparator(s.charCodeAt(b - 1))) b--;
  if (a === b) return Number.NaN;
  const v = scanNumber(s, a, b);
  return scanState[0] === b ? v : Number.NaN;
}
