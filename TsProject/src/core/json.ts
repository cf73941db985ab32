/**
 * A strict JSON parser (RFC 8259 grammar, https://www.rfc-editor.org/rfc/rfc8259) keeping each value's
 * offset, so that errors in settings and override files can name line:column and the field. Engine-free.
 */

/**
 * An error in a JSON file or object naming the place: `message` is `file:line:column: path: detail`
 * (`file: path: detail` when the value did not come from text). Settings and rig-profile errors extend it.
 */
export class JsonFieldError extends Error {
  /** The file name (or source) given. */
  readonly fileName: string;
  /** Path of the bad field, e.g. `headRotationOffset[1]`; '' for the whole file. */
  readonly path: string;
  /** 1-based line and column in the text, or 0 when not from text. */
  readonly line: number;
  readonly column: number;
  constructor(fileName: string, path: string, detail: string, line = 0, column = 0) {
    const where = line > 0 ? `${fileName}:${line}:${column}` : fileName;
    super(`${where}: ${path ? `${path}: ` : ''}${detail}`);
    this.name = 'JsonFieldError';
    this.fileName = fileName;
    this.path = path;
    this.line = line;
    this.column = column;
  }
}

/**
 * A parsed JSON value with `at`, the character offset where it starts in the text (for errors that name
 * line:column).
 */
export type JNode =
  | { kind: 'null'; at: number }
  | { kind: 'boolean'; value: boolean; at: number }
  | { kind: 'number'; value: number; at: number }
  | { kind: 'string'; value: string; at: number }
  | { kind: 'array'; items: JNode[]; at: number }
  | { kind: 'object'; keys: string[]; values: JNode[]; at: number };

/**
 * Deepest nesting of arrays and objects {@link JsonReader} accepts (64); deeper is an error naming the place.
 */
export const MAX_DEPTH = 64;

/**
 * Parses one JSON text (RFC 8259 grammar) into {@link JNode}s with their offsets; calls `fail(offset,
 * detail)` (which must throw) on the first error.
 */
export class JsonReader {
  private pos = 0;
  constructor(
    private readonly text: string,
    private readonly fail: (at: number, detail: string) => never,
  ) {}

  /**
   * Parse the whole text as one JSON value (a leading byte-order mark skipped); anything after it, or an
   * empty text, is an error through `fail`.
   */
  document(): JNode {
    if (this.text.charCodeAt(0) === 0xfeff) this.pos = 1; // a byte-order mark some editors write
    this.ws();
    if (this.pos >= this.text.length) this.fail(this.pos, 'the file is empty; expected a JSON object');
    const v = this.value(0);
    this.ws();
    if (this.pos < this.text.length) this.fail(this.pos, `unexpected ${this.here()} after the JSON value`);
    return v;
  }

  private here(): string {
    if (this.pos >= this.text.length) return 'end of file';
    return `character ${JSON.stringify(this.text[this.pos])}`;
  }

  private ws(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) this.pos++;
      else break;
    }
  }

  private value(depth: number): JNode {
    if (depth > MAX_DEPTH) this.fail(this.pos, `nested deeper than ${MAX_DEPTH} levels`);
    const t = this.text;
    const at = this.pos;
    const c = t[at];
    if (c === '{') return this.object(depth);
    if (c === '[') return this.array(depth);
    if (c === '"') return { kind: 'string', value: this.string(), at };
    if (c === '-' || (c >= '0' && c <= '9')) return this.number();
    for (const [word, node] of [
      ['true', { kind: 'boolean', value: true, at }],
      ['false', { kind: 'boolean', value: false, at }],
      ['null', { kind: 'null', at }],
    ] as const) {
      if (t.startsWith(word, at)) {
        this.pos += word.length;
        return node;
      }
    }
    if (at >= t.length) this.fail(at, 'unexpected end of file; expected a value');
    return this.fail(
      at,
      `unexpected ${this.here()}; expected a value (object, array, string, number, true, false or null)`,
    );
  }

  private object(depth: number): JNode {
    const at = this.pos++;
    const keys: string[] = [];
    const values: JNode[] = [];
    const seen = new Set<string>();
    this.ws();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return { kind: 'object', keys, values, at };
    }
    for (;;) {
      this.ws();
      if (this.text[this.pos] !== '"')
        this.fail(this.pos, `unexpected ${this.here()}; expected a "key" string`);
      const keyAt = this.pos;
      const key = this.string();
      if (seen.has(key)) this.fail(keyAt, `duplicate key ${JSON.stringify(key)}`);
      seen.add(key);
      this.ws();
      if (this.text[this.pos] !== ':') {
        this.fail(this.pos, `unexpected ${this.here()}; expected ':' after the key ${JSON.stringify(key)}`);
      }
      this.pos++;
      this.ws();
      keys.push(key);
      values.push(this.value(depth + 1));
      this.ws();
      const c = this.text[this.pos];
      if (c === ',') {
        this.pos++;
        continue;
      }
      if (c === '}') {
        this.pos++;
        return { kind: 'object', keys, values, at };
      }
      this.fail(this.pos, `unexpected ${this.here()}; expected ',' or '}' in the object`);
    }
  }

  private array(depth: number): JNode {
    const at = this.pos++;
    const items: JNode[] = [];
    this.ws();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return { kind: 'array', items, at };
    }
    for (;;) {
      this.ws();
      items.push(this.value(depth + 1));
      this.ws();
      const c = this.text[this.pos];
      if (c === ',') {
        this.pos++;
        continue;
      }
      if (c === ']') {
        this.pos++;
        return { kind: 'array', items, at };
      }
      this.fail(this.pos, `unexpected ${this.here()}; expected ',' or ']' in the array`);
    }
  }

  private string(): string {
    const t = this.text;
    const start = this.pos;
    this.pos++; // opening quote
    let out = '';
    let run = this.pos;
    for (;;) {
      if (this.pos >= t.length) this.fail(start, 'unterminated string');
      const c = t.charCodeAt(this.pos);
      if (c === 0x22) {
        out += t.slice(run, this.pos);
        this.pos++;
        return out;
      }
      if (c < 0x20) this.fail(this.pos, 'control character in a string (write it as an escape such as \\n)');
      if (c !== 0x5c) {
        this.pos++;
        continue;
      }
      out += t.slice(run, this.pos);
      const e = t[this.pos + 1];
      const simple: Record<string, string> = {
        '"': '"',
        '\\': '\\',
        '/': '/',
        b: '\b',
        f: '\f',
        n: '\n',
        r: '\r',
        t: '\t',
      };
      if (e !== undefined && e in simple) {
        out += simple[e];
        this.pos += 2;
      } else if (e === 'u') {
        const hex = t.slice(this.pos + 2, this.pos + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail(this.pos, 'bad \\u escape: need four hex digits');
        out += String.fromCharCode(Number.parseInt(hex, 16));
        this.pos += 6;
      } else {
        this.fail(this.pos, `bad escape \\${e ?? ''} in a string`);
      }
      run = this.pos;
    }
  }

  private number(): JNode {
    const at = this.pos;
    const m = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
    m.lastIndex = at;
    const found = m.exec(this.text);
    if (!found) this.fail(at, 'malformed number');
    const lexeme = found[0];
    this.pos = at + lexeme.length;
    const next = this.text[this.pos];
    if (next !== undefined && /[0-9.eE+-]/.test(next))
      this.fail(at, `malformed number '${lexeme}${next}...'`);
    const value = Number(lexeme);
    if (!Number.isFinite(value)) this.fail(at, `number ${lexeme} is out of the double range`);
    return { kind: 'number', value, at };
  }
}

/** 1-based line and column (UTF-16 units) of offset `at`; lines end at `\n`. */
export function lineColumn(text: string, at: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < at && i < text.length; i++) {
    if (text.charCodeAt(i) === 0x0a) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: at - start + 1 };
}

/**
 * Where the first syntax error of `text` is (1-based line and column, and what is wrong), or null when
 * `text` is valid JSON. For messages when `JSON.parse` gives no position (Node 20's "Unexpected token").
 */
export function locateJsonError(text: string): { line: number; column: number; detail: string } | null {
  let found: { line: number; column: number; detail: string } | null = null;
  const stop = new Error('stop');
  try {
    new JsonReader(text, (at, detail) => {
      found = { ...lineColumn(text, at), detail };
      throw stop;
    }).document();
  } catch (e) {
    if (e !== stop) throw e;
  }
  return found;
}
