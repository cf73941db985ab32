/**
 * Bounded little-endian byte reader and writer for NatNet packets. Engine-free (Uint8Array/DataView only).
 *
 * Every read checks the bytes left first and throws {@link NatNetDecodeError} naming the field and the byte
 * offset (from the start of the packet, header included) instead of reading past the end; every element count
 * is checked against the bytes left (count * minimum element size) before anything is allocated, so a
 * corrupt count can never allocate more than the packet could hold.
 *
 * Byte order: NatNet is little-endian throughout (NATNET.md §2; sources: whoenig/NatNetSDKCrossplatform @
 * 4218ed0668d8 : include/NatNetTypes.h `sPacket`; Vortex5Root/NatNetSDK_4.1.0 @ 6764d860f7e6 :
 * natnetsdk/NatNetClient.py `get_message_id`).
 */

/** Thrown for a malformed, truncated or inconsistent packet. `field` names the field, `offset` its byte offset. */
export class NatNetDecodeError extends Error {
  readonly field: string;
  readonly offset: number;
  /** What is wrong, without the field and offset. */
  readonly detail: string;
  constructor(field: string, offset: number, message: string) {
    super(`NatNet ${field} at byte ${offset}: ${message}`);
    this.name = 'NatNetDecodeError';
    this.field = field;
    this.offset = offset;
    this.detail = message;
  }
}

const TWO32 = 4294967296;

/** A cursor over `bytes[start, end)`; offsets reported in errors are relative to `bytes[0]`. */
export class ByteReader {
  bytes: Uint8Array;
  view: DataView;
  pos: number;
  end: number;

  constructor(bytes: Uint8Array, start = 0, end = bytes.length) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = start;
    this.end = end;
  }

  /** Point the reader at other bytes (reuses the reader; allocates a DataView only when the buffer changes). */
  reset(bytes: Uint8Array, start = 0, end = bytes.length): void {
    if (bytes !== this.bytes) {
      this.bytes = bytes;
      this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    }
    this.pos = start;
    this.end = end;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  /** Throw unless `n` more bytes are available for `field`. */
  need(n: number, field: string): void {
    if (n > this.end - this.pos) {
      throw new NatNetDecodeError(field, this.pos, `needs ${n} bytes, ${this.end - this.pos} left`);
    }
  }

  /**
   * Read an int32 element count and check it: not negative, at most `max`, and `count * minElementBytes`
   * no more than the bytes left. Call before allocating or looping.
   */
  count(field: string, minElementBytes: number, max = 0x7fffffff): number {
    const at = this.pos;
    const n = this.i32(field);
    if (n < 0) throw new NatNetDecodeError(field, at, `negative count ${n}`);
    if (n > max) throw new NatNetDecodeError(field, at, `count ${n} exceeds the limit ${max}`);
    if (n * minElementBytes > this.end - this.pos) {
      throw new NatNetDecodeError(
        field,
        at,
        `count ${n} needs at least ${n * minElementBytes} bytes, ${this.end - this.pos} left`,
      );
    }
    return n;
  }

  u8(field: string): number {
    this.need(1, field);
    return this.bytes[this.pos++];
  }
  i16(field: string): number {
    this.need(2, field);
    const v = this.view.getInt16(this.pos, true);
    this.pos += 2;
    return v;
  }
  u16(field: string): number {
    this.need(2, field);
    const v = this.view.getUint16(this.pos, true);
    this.pos += 2;
    return v;
  }
  i32(field: string): number {
    this.need(4, field);
    const v = this.view.getInt32(this.pos, true);
    this.pos += 4;
    return v;
  }
  u32(field: string): number {
    this.need(4, field);
    const v = this.view.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }
  /** Unsigned 64-bit integer as a double (exact below 2^53, ~285 years of 1 MHz ticks). */
  u64(field: string): number {
    this.need(8, field);
    const lo = this.view.getUint32(this.pos, true);
    const hi = this.view.getUint32(this.pos + 4, true);
    this.pos += 8;
    return hi * TWO32 + lo;
  }
  f32(field: string): number {
    this.need(4, field);
    const v = this.view.getFloat32(this.pos, true);
    this.pos += 4;
    return v;
  }
  f64(field: string): number {
    this.need(8, field);
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }
  skip(n: number, field: string): void {
    this.need(n, field);
    this.pos += n;
  }

  /** A NUL-terminated UTF-8 string; the NUL must lie within the bytes left. */
  cstring(field: string): string {
    const start = this.pos;
    let i = start;
    const end = this.end;
    const b = this.bytes;
    while (i < end && b[i] !== 0) i++;
    if (i >= end) throw new NatNetDecodeError(field, start, 'string has no terminating NUL before the end');
    this.pos = i + 1;
    return utf8(b, start, i);
  }

  /** A fixed-size NUL-padded string field of `size` bytes (the text ends at the first NUL). */
  fixedString(size: number, field: string): string {
    this.need(size, field);
    const start = this.pos;
    let i = start;
    const end = start + size;
    while (i < end && this.bytes[i] !== 0) i++;
    this.pos = end;
    return utf8(this.bytes, start, i);
  }
}

/** Decode UTF-8 bytes `[start, end)`; invalid sequences become U+FFFD (no TextDecoder in a bare engine). */
export function utf8(b: Uint8Array, start: number, end: number): string {
  let s = '';
  let i = start;
  while (i < end) {
    const c = b[i++];
    if (c < 0x80) {
      s += String.fromCharCode(c);
      continue;
    }
    let need = 0;
    let cp = 0;
    if (c >= 0xc2 && c <= 0xdf) {
      need = 1;
      cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      cp = c & 0x07;
    } else {
      s += '\ufffd';
      continue;
    }
    let ok = i + need <= end;
    for (let k = 0; ok && k < need; k++) {
      const d = b[i + k];
      if ((d & 0xc0) !== 0x80) ok = false;
      else cp = (cp << 6) | (d & 0x3f);
    }
    if (
      !ok ||
      cp > 0x10ffff ||
      (cp >= 0xd800 && cp <= 0xdfff) ||
      (need === 2 && cp < 0x800) ||
      (need === 3 && cp < 0x10000)
    ) {
      s += '\ufffd';
      continue;
    }
    i += need;
    s += String.fromCodePoint(cp);
  }
  return s;
}

/** UTF-8 encoding of `s` (no TextEncoder in a bare engine). */
export function utf8Bytes(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0xfffd;
    if (cp < 0x80) out.push(cp);
    else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
    else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
    else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
  }
  return out;
}

/** Growable little-endian writer; {@link ByteWriter.bytes} is a view valid until the next write. */
export class ByteWriter {
  private buf: Uint8Array;
  private view: DataView;
  pos = 0;

  constructor(initial = 1024) {
    this.buf = new Uint8Array(initial);
    this.view = new DataView(this.buf.buffer);
  }

  reset(): void {
    this.pos = 0;
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.pos + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  u8(v: number): void {
    this.ensure(1);
    this.buf[this.pos++] = v & 0xff;
  }
  i16(v: number): void {
    this.ensure(2);
    this.view.setInt16(this.pos, v, true);
    this.pos += 2;
  }
  u16(v: number): void {
    this.ensure(2);
    this.view.setUint16(this.pos, v, true);
    this.pos += 2;
  }
  i32(v: number): void {
    this.ensure(4);
    this.view.setInt32(this.pos, v, true);
    this.pos += 4;
  }
  u32(v: number): void {
    this.ensure(4);
    this.view.setUint32(this.pos, v >>> 0, true);
    this.pos += 4;
  }
  /** Unsigned 64-bit from a non-negative integer double (< 2^53). */
  u64(v: number): void {
    this.ensure(8);
    const hi = Math.floor(v / TWO32);
    this.view.setUint32(this.pos, v - hi * TWO32, true);
    this.view.setUint32(this.pos + 4, hi >>> 0, true);
    this.pos += 8;
  }
  f32(v: number): void {
    this.ensure(4);
    this.view.setFloat32(this.pos, v, true);
    this.pos += 4;
  }
  f64(v: number): void {
    this.ensure(8);
    this.view.setFloat64(this.pos, v, true);
    this.pos += 8;
  }
  cstring(s: string): void {
    const b = utf8Bytes(s);
    this.ensure(b.length + 1);
    for (let i = 0; i < b.length; i++) this.buf[this.pos++] = b[i] === 0 ? 0x3f : b[i];
    this.buf[this.pos++] = 0;
  }
  /** `s` in a NUL-padded field of `size` bytes (truncated to size - 1 bytes). */
  fixedString(s: string, size: number): void {
    const b = utf8Bytes(s);
    this.ensure(size);
    const n = Math.min(b.length, size - 1);
    for (let i = 0; i < size; i++) this.buf[this.pos + i] = i < n ? b[i] : 0;
    this.pos += size;
  }
  /** Write an int32 placeholder, returning its position for {@link ByteWriter.patchI32}. */
  placeholder(): number {
    const at = this.pos;
    this.i32(0);
    return at;
  }
  patchI32(at: number, v: number): void {
    this.view.setInt32(at, v, true);
  }
  patchU16(at: number, v: number): void {
    this.view.setUint16(at, v, true);
  }
  /** The bytes written so far (a view into the internal buffer, valid until the next write or reset). */
  bytes(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }
}
