/**
 * The BVH MOTION data scanner: the hot loop of {@link parseBvh}.
 *
 * Design (speed and memory): the text is never split into line or token arrays. It is fed through a
 * fixed-size byte buffer in line-aligned chunks (a string is UTF-8 encoded chunk by chunk with
 * `TextEncoder.encodeInto`; bytes are copied chunk by chunk), and each chunk is scanned by index with an
 * inline decimal parser: digits accumulate into an integer mantissa `m`, scaled once by an exact power
 * of ten. While `m <= 2^53 - 1` and the decimal exponent is within +-22, that single IEEE division or
 * multiplication is correctly rounded and equals `Number(token)` (Clinger's fast path: W. D. Clinger,
 * "How to read floating point numbers accurately", PLDI 1990); otherwise the token goes to `Number()`.
 * One frame of values lives in a scratch `Float64Array`; each complete frame is handed to a callback.
 * Memory is the chunk buffer plus what the callback keeps, whatever the file size.
 *
 * Errors: any anomaly in a frame line (non-number, NaN/Infinity, wrong count) re-reads that one line
 * as text on the error path to produce a precise message.
 */
import { isSeparator, parseDecimal } from './bvhNumber';

const POW10 = new Float64Array(23);
for (let i = 0, p = 1; i < 23; i++, p *= 10) POW10[i] = p; // 10^0..10^22, exact in binary64

/** Characters per chunk (a chunk is extended to the end of a longer line). */
const CHUNK = 1 << 16;

let buf = new Uint8Array(3 * CHUNK + 8);

// Math functions as module constants: inside a vm context (jest) every global lookup in a hot loop
// goes through the context's interceptor, which made the frame conversion 5x slower.
const { floor, round, sin, cos } = Math;

const HALF_DEG = Math.PI / 360; // degrees -> half-angle radians
const TWO_OVER_PI = 2 / Math.PI;
// pi/2 in two parts: PIO2_1 has 33 significant bits, so k * PIO2_1 is exact for |k| < 2^20.
const PIO2_1 = 1.5707963267341256;
const PIO2_1T = 6.077100506506192e-11;
/**
 * The engine's TextEncoder/TextDecoder when it has them (Node, browsers), read off `globalThis` so this file
 * type-checks without DOM or Node types: a bare V8 or QuickJS (PuerTS, the Unity bundle) has neither.
 */
const textCodecs = globalThis as unknown as {
  TextEncoder?: new () => { encodeInto(s: string, b: Uint8Array): { read: number; written: number } };
  TextDecoder?: new (label: string, options: { ignoreBOM: boolean }) => { decode(b: Uint8Array): string };
};
const encoder = typeof textCodecs.TextEncoder === 'function' ? new textCodecs.TextEncoder() : null;

/** Text of bytes (UTF-8, a BOM kept as U+FEFF; Latin-1 where TextDecoder is missing, as in a bare V8). */
export function decodeBytes(b: Uint8Array): string {
  const Decoder = textCodecs.TextDecoder;
  if (typeof Decoder === 'function') return new Decoder('utf-8', { ignoreBOM: true }).decode(b);
  let s = '';
  for (let i = 0; i < b.length; i += 8192) s += String.fromCharCode(...b.subarray(i, i + 8192));
  return s;
}

/** Write `s` into `out` as UTF-8 (characters above U+00FF become 0xFF when there is no TextEncoder). */
function encodeInto(s: string, out: Uint8Array): number {
  if (encoder) return encoder.encodeInto(s, out).written;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    out[i] = Math.min(c, 255);
  }
  return s.length;
}

export interface MotionScanContext {
  /** Values per frame. */
  channelCount: number;
  /** Declared frame count. */
  frames: number;
  /** Line of `Frames:` (for count mismatches). */
  framesLine: number;
  /** Called once per frame with the frame's values (file units, degrees) in file order. */
  onFrame: (vals: Float64Array, f: number) => void;
  /** Throws a BvhParseError at `line`. */
  fail: (line: number, detail: string) => never;
  /** Human label of channel k, e.g. `channel 5 ('Hips' Zrotation)`. */
  label: (k: number) => string;
}

/**
 * Scan the frame lines of `src` from index `start` (string: UTF-16 index; bytes: byte index) to the end.
 * `line0` is the 1-based number of the line before `start`. Blank lines (spaces, tabs, CR) are skipped and
 * are not frames. Line ends: LF, CRLF or a lone CR.
 * @throws via `ctx.fail` on a malformed frame line or a frame count other than `ctx.frames`.
 */
export function scanMotion(
  src: string | Uint8Array,
  start: number,
  line0: number,
  ctx: MotionScanContext,
): void {
  const vals = new Float64Array(ctx.channelCount);
  const st: ScanState = { line: line0, f: 0 };
  const total = src.length;
  let a = start;
  while (a < total) {
    const b = chunkEnd(src, a);
    let len: number;
    if (typeof src === 'string') {
      const piece = src.substring(a, b);
      if (buf.length < 3 * piece.length + 8) buf = new Uint8Array(3 * piece.length + 8);
      len = encodeInto(piece, buf);
    } else {
      if (buf.length < b - a + 8) buf = new Uint8Array(b - a + 8);
      buf.set(src.subarray(a, b));
      len = b - a;
    }
    buf[len] = 10; // sentinel line end
    scanChunk(buf, len, vals, st, ctx, src, b);
    a = b;
  }
  if (st.f !== ctx.frames) {
    ctx.fail(ctx.framesLine, `Frames: ${ctx.frames} declared but ${st.f} frame lines found`);
  }
}

interface ScanState {
  line: number;
  f: number;
}

/** End (exclusive) of the chunk starting at `a`: just after a line end, about CHUNK units later. */
function chunkEnd(src: string | Uint8Array, a: number): number {
  const total = src.length;
  const lim = a + CHUNK;
  if (lim >= total) return total;
  const s = src as string & Uint8Array; // both have lastIndexOf/indexOf; values differ by type
  const LF = typeof src === 'string' ? '\n' : 10;
  const CR = typeof src === 'string' ? '\r' : 13;
  let i = s.lastIndexOf(LF as never, lim);
  if (i < a) {
    i = s.lastIndexOf(CR as never, lim);
    if (i < a) {
      // a line longer than a chunk: extend to its end
      const n = s.indexOf(LF as never, lim);
      const r = s.indexOf(CR as never, lim);
      i = n < 0 ? r : r < 0 ? n : Math.min(n, r);
      if (i < 0) return total;
    }
  }
  if (i + 1 < total && code(src, i) === 13 && code(src, i + 1) === 10) i++;
  return i + 1;
}

function code(src: string | Uint8Array, i: number): number {
  return typeof src === 'string' ? src.charCodeAt(i) : src[i];
}

/** Scan one chunk `b[0..len)` (whole lines; `b[len]` is a sentinel LF). */
function scanChunk(
  b: Uint8Array,
  len: number,
  vals: Float64Array,
  st: ScanState,
  ctx: MotionScanContext,
  src: string | Uint8Array,
  chunkEndIndex: number,
): void {
  const C = ctx.channelCount;
  const frames = ctx.frames;
  let line = st.line;
  let f = st.f;
  let p = 0;
  while (p < len) {
    line++;
    const lineStart = p;
    let c = b[p];
    let k = 0;
    let bad = false;
    for (;;) {
      while (c === 32 || c === 9) c = b[++p];
      if (c === 10) break;
      if (c === 13) {
        if (b[p + 1] === 10) p++;
        break;
      }
      if (c === 11 || c === 12) {
        c = b[++p];
        continue;
      }
      if (k === C) {
        bad = true;
        break;
      }
      // --- one number
      // sign without a branch (signs are unpredictable): isNeg = 1 for '-', else 0
      const isNeg = ((c ^ 45) - 1) >>> 31;
      p += isNeg;
      if (c === 43) p++; // '+' (never after '-')
      c = b[p];
      const ns = p;
      let m = 0;
      let d = c - 48;
      while (d >= 0 && d <= 9) {
        m = m * 10 + d;
        d = b[++p] - 48;
      }
      let nd = p - ns;
      let e10 = 0;
      if (d === -2) {
        const fs = ++p;
        d = b[p] - 48;
        while (d >= 0 && d <= 9) {
          m = m * 10 + d;
          d = b[++p] - 48;
        }
        e10 = fs - p;
        nd -= e10;
      }
      c = d + 48;
      if (nd === 0) {
        bad = true;
        break;
      }
      if (c === 101 || c === 69) {
        c = b[++p];
        let eneg = false;
        if (c === 45 || c === 43) {
          eneg = c === 45;
          c = b[++p];
        }
        const es = p;
        let ev = 0;
        while (c >= 48 && c <= 57) {
          if (ev < 100000) ev = ev * 10 + (c - 48);
          c = b[++p];
        }
        if (p === es) {
          bad = true;
          break;
        }
        e10 += eneg ? -ev : ev;
      }
      if (!(c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12)) {
        bad = true;
        break;
      }
      let v: number;
      if (m <= 9007199254740991 && e10 >= -22 && e10 <= 22) v = e10 < 0 ? m / POW10[-e10] : m * POW10[e10];
      else {
        v = slowNumber(b, ns, p);
        if (v - v !== 0) {
          bad = true;
          break;
        }
      }
      vals[k++] = v * (1 - 2 * isNeg);
    }
    if (bad || (k !== C && k !== 0)) explainLine(b, lineStart, line, f, ctx);
    p++; // past the line end
    if (k === 0) continue; // blank line
    if (f === frames) {
      const extra = countFrameLines(b, lineStart, len) + countFrameLinesAfter(src, chunkEndIndex);
      ctx.fail(
        ctx.framesLine,
        `Frames: ${frames} declared but ${f + extra} frame lines found (extra data from line ${line})`,
      );
    }
    ctx.onFrame(vals, f);
    f++;
  }
  st.line = line;
  st.f = f;
}

/** Exact value of the digits b[from..to) (with sign handled by the caller) through Number(). */
function slowNumber(b: Uint8Array, from: number, to: number): number {
  let s = '';
  for (let i = from; i < to; i++) s += String.fromCharCode(b[i]);
  return Number(s);
}

/**
 * Error path: re-read one frame line as text and throw the precise problem. Frames are numbered from 0
 * (the first line after `Frame Time` is frame 0), as in every report of the project (cleanup.json, QA).
 */
function explainLine(
  b: Uint8Array,
  lineStart: number,
  line: number,
  f: number,
  ctx: MotionScanContext,
): never {
  let e = lineStart;
  while (b[e] !== 10 && !(b[e] === 13 && b[e + 1] !== 10)) e++;
  const text = decodeBytes(b.subarray(lineStart, e));
  const tokens = text.trim().split(/[\s]+/);
  for (let k = 0; k < tokens.length && k < ctx.channelCount; k++) {
    const v = parseDecimal(tokens[k]);
    if (Number.isNaN(v))
      ctx.fail(line, `frame ${f}: ${ctx.label(k)} value ${quote(tokens[k])} is not a number`);
    if (!Number.isFinite(v))
      ctx.fail(line, `frame ${f}: ${ctx.label(k)} value ${quote(tokens[k])} is not finite`);
  }
  return ctx.fail(line, `frame ${f} has ${tokens.length} values, expected ${ctx.channelCount}`);
}

function quote(s: string): string {
  return JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}...` : s);
}

/** Non-blank lines in b[from..len) (error path). */
function countFrameLines(b: Uint8Array, from: number, len: number): number {
  let count = 0;
  let blank = true;
  for (let i = from; i <= len; i++) {
    const c = b[i];
    if (c === 10 || (c === 13 && b[i + 1] !== 10)) {
      if (!blank) count++;
      blank = true;
    } else if (!isSeparator(c)) blank = false;
  }
  return count;
}

/** Non-blank lines in src[from..) (error path). */
function countFrameLinesAfter(src: string | Uint8Array, from: number): number {
  let count = 0;
  let blank = true;
  for (let i = from; i <= src.length; i++) {
    const c = i < src.length ? code(src, i) : 10;
    if (c === 10 || (c === 13 && (i + 1 >= src.length || code(src, i + 1) !== 10))) {
      if (!blank) count++;
      blank = true;
    } else if (!isSeparator(c)) blank = false;
  }
  return count;
}

// ---------------------------------------------------------------------------------------------
// Channel values -> local pose

/** Quadrant tables: sin(x) = QSS[t] s + QSC[t] c, cos(x) = QCS[t] s + QCC[t] c for x = r + t pi/2. */
const QSS = new Float64Array([1, 0, -1, 0]);
const QSC = new Float64Array([0, 1, 0, -1]);
const QCS = new Float64Array([0, -1, 0, 1]);
const QCC = new Float64Array([1, 0, -1, 0]);

/** Channel layout of a frame, per joint (see `buildPlan` in bvh.ts). */
export interface FramePlan {
  /** `posSlot[3j + axis]`: frame index of joint j's position channel for that axis, -1 when absent. */
  posSlot: Int32Array;
  /** `rotSlot[3j + k]`: frame index of the k-th angle of joint j's rotation sequence, -1 when absent (0 degrees). */
  rotSlot: Int32Array;
  /** `axes[3j..3j+2]`: joint j's rotation sequence (0 X, 1 Y, 2 Z), first = outermost. */
  axes: Int32Array;
  /** +1 when joint j's sequence is a cyclic permutation of XYZ, else -1. */
  parity: Float64Array;
  /** 1 when joint j has at least one rotation channel. */
  hasRot: Uint8Array;
}

/**
 * The per-frame conversion from channel values to a local pose, as a callback for {@link scanMotion}:
 * frame `f`, joint `j` gets translation = position channel * `unitScale` (or `restT`, i.e. OFFSET *
 * unitScale, for an axis without a channel) and rotation `R_a0(v0) * R_a1(v1) * R_a2(v2)` from its
 * rotation channels in order (degrees). This is the quaternion of `quatFromEuler` (src/core/quat.ts),
 * written out so that the hot loop makes no calls (tested against it for every order, to float32
 * rounding):
 *
 * - sin and cos of each half angle, absolute error below 2e-9: reduction by multiples of pi/2 with a
 *   two-part constant (Cody-Waite; the split of pi/2 is fdlibm's `pio2_1`/`pio2_1t`, e_rem_pio2.c),
 *   the Taylor polynomials of sin to x^9 and cos to x^10 on [-pi/4, pi/4] (remainders
 *   (pi/4)^11/11! < 2e-9 and (pi/4)^12/12! < 1.2e-10), the quadrant by table; |angle| > 10^6 degrees
 *   uses Math.sin/cos. About 3x faster than Math.sin + Math.cos in V8 (7 vs 24 ns per angle).
 * - the product: with `s_k, c_k` the half-angle sines/cosines, unit axes `e_k` and parity `p = +1` when
 *   the sequence is a cyclic permutation of XYZ (so `e0 x e1 = p e2`): `e0: c2 A + p s2 B`,
 *   `e1: c2 B - p s2 A`, `e2: W s2 + c2 D`, `w: W c2 - D s2` with `A = s0 c1`, `B = c0 s1`,
 *   `D = p s0 s1`, `W = c0 c1` (Hamilton products of the three axis rotations).
 */
export function frameConverter(
  plan: FramePlan,
  restT: Float64Array,
  unitScale: number,
  rotations: Float32Array,
  translations: Float32Array,
  channelValues: Float64Array | undefined,
  channelCount: number,
): (vals: Float64Array, f: number) => void {
  const n = plan.hasRot.length;
  const { posSlot, axes, parity, hasRot } = plan;
  // half-angle sin/cos table: one entry per rotation channel, plus a last entry for "no channel" (0 degrees)
  const rotCh: number[] = [];
  const angIdx = new Int32Array(3 * n);
  for (let j = 0; j < n; j++) {
    for (let k = 0; k < 3; k++) {
      const s = plan.rotSlot[3 * j + k];
      angIdx[3 * j + k] = s >= 0 ? rotCh.push(s) - 1 : -1;
    }
  }
  const R = rotCh.length;
  for (let i = 0; i < 3 * n; i++) if (angIdx[i] < 0) angIdx[i] = R;
  const rotChannel = Int32Array.from(rotCh);
  const HS = new Float64Array(R + 1);
  const HC = new Float64Array(R + 1);
  HC[R] = 1;
  const st = { posSlot, axes, parity, hasRot, angIdx, rotChannel, HS, HC, restT, rotations, translations };
  return (vals: Float64Array, f: number) => {
    if (channelValues) channelValues.set(vals, f * channelCount);
    convertFrame(vals, f, n, R, unitScale, st);
  };
}

interface ConvertState {
  posSlot: Int32Array;
  axes: Int32Array;
  parity: Float64Array;
  hasRot: Uint8Array;
  angIdx: Int32Array;
  rotChannel: Int32Array;
  HS: Float64Array;
  HC: Float64Array;
  restT: Float64Array;
  rotations: Float32Array;
  translations: Float32Array;
}

function convertFrame(
  vals: Float64Array,
  f: number,
  n: number,
  R: number,
  unitScale: number,
  st: ConvertState,
): void {
  const { posSlot, axes, parity, hasRot, angIdx, rotChannel, HS, HC, restT, rotations, translations } = st;
  for (let i = 0; i < R; i++) {
    const deg = vals[rotChannel[i]];
    const x = deg * HALF_DEG;
    if (!(deg < 1e6 && deg > -1e6)) {
      HS[i] = sin(x);
      HC[i] = cos(x);
      continue;
    }
    const kq = floor(x * TWO_OVER_PI + 0.5); // (Math.round is 2x slower in V8)
    const r = x - kq * PIO2_1 - kq * PIO2_1T;
    const r2 = r * r;
    const s = r * (1 + r2 * (-1 / 6 + r2 * (1 / 120 + r2 * (-1 / 5040 + r2 * (1 / 362880)))));
    const c = 1 + r2 * (-1 / 2 + r2 * (1 / 24 + r2 * (-1 / 720 + r2 * (1 / 40320 + r2 * (-1 / 3628800)))));
    const t = kq & 3;
    HS[i] = QSS[t] * s + QSC[t] * c;
    HC[i] = QCS[t] * s + QCC[t] * c;
  }
  const tb = f * n * 3;
  const rb = f * n * 4;
  for (let j = 0; j < n; j++) {
    const j3 = 3 * j;
    let s = posSlot[j3];
    translations[tb + j3] = s >= 0 ? vals[s] * unitScale : restT[j3];
    s = posSlot[j3 + 1];
    translations[tb + j3 + 1] = s >= 0 ? vals[s] * unitScale : restT[j3 + 1];
    s = posSlot[j3 + 2];
    translations[tb + j3 + 2] = s >= 0 ? vals[s] * unitScale : restT[j3 + 2];
    const o = rb + 4 * j;
    if (hasRot[j] === 0) {
      rotations[o + 3] = 1;
      continue;
    }
    let a = angIdx[j3];
    const s0 = HS[a];
    const c0 = HC[a];
    a = angIdx[j3 + 1];
    const s1 = HS[a];
    const c1 = HC[a];
    a = angIdx[j3 + 2];
    const s2 = HS[a];
    const c2 = HC[a];
    const p = parity[j];
    const A = s0 * c1;
    const B = c0 * s1;
    const D = p * s0 * s1;
    const W = c0 * c1;
    rotations[o + axes[j3]] = c2 * A + p * s2 * B;
    rotations[o + axes[j3 + 1]] = c2 * B - p * s2 * A;
    rotations[o + axes[j3 + 2]] = W * s2 + c2 * D;
    rotations[o + 3] = W * c2 - D * s2;
  }
}

// ---------------------------------------------------------------------------------------------
// Frame text output

/**
 * Appends ASCII frame text into a fixed byte buffer and turns each full buffer into a string, so
 * writing a large clip makes one string per 64 KiB instead of one per number.
 */
export class AsciiFrameWriter {
  private buf = new Uint8Array(CHUNK + 64);
  private n = 0;
  private readonly parts: string[] = [];

  /**
   * Append `v` rounded to 6 decimals (`Math.round(v * 1e6) / 1e6`) in plain decimal without trailing
   * zeros (`-0` and values rounding to 0 as `0`), e.g. `-407.123`, `0.000001`, `90`. Values of 2^53 / 1e6
   * (about 9e9) or more are written by `String()`. `v` must be finite.
   */
  number(v: number): void {
    if (this.n > CHUNK) this.flush();
    const b = this.buf;
    let r = round(v * 1e6);
    if (r === 0) {
      b[this.n++] = 48;
      return;
    }
    if (!(r < 9007199254740991 && r > -9007199254740991)) {
      this.text(String(Math.round(v * 1e6) / 1e6));
      return;
    }
    let p = this.n;
    if (r < 0) {
      b[p++] = 45;
      r = -r;
    }
    if (r <= 2147483647) {
      // |v| < 2147.48: int32 arithmetic (divisions by constants compile to multiplications)
      const ri = r | 0;
      let ip = (ri / 1000000) | 0;
      let fp = ri - ip * 1000000;
      let digits = 1;
      for (let t = ip; t >= 10; t = (t / 10) | 0) digits++;
      for (let i = p + digits - 1; i >= p; i--) {
        const q = (ip / 10) | 0;
        b[i] = 48 + ip - q * 10;
        ip = q;
      }
      p += digits;
      if (fp !== 0) {
        b[p++] = 46;
        let end = p + 6;
        for (let i = end - 1; i >= p; i--) {
          const q = (fp / 10) | 0;
          b[i] = 48 + fp - q * 10;
          fp = q;
        }
        while (b[end - 1] === 48) end--;
        p = end;
      }
      this.n = p;
      return;
    }
    const ip = floor(r / 1e6);
    let fp = r - ip * 1e6;
    let digits = 1;
    for (let t = ip; t >= 10; t = floor(t / 10)) digits++;
    let q = ip;
    for (let i = digits - 1; i >= 0; i--) {
      const d = q % 10;
      b[p + i] = 48 + d;
      q = (q - d) / 10;
    }
    p += digits;
    if (fp > 0) {
      b[p++] = 46;
      let div = 100000;
      while (fp > 0) {
        const d = floor(fp / div);
        b[p++] = 48 + d;
        fp -= d * div;
        div /= 10;
      }
    }
    this.n = p;
  }

  /** Append one ASCII character code. */
  char(c: number): void {
    if (this.n > CHUNK) this.flush();
    this.buf[this.n++] = c;
  }

  /** Append a short ASCII string. */
  text(s: string): void {
    if (this.n + s.length > CHUNK) this.flush();
    if (s.length > 64) {
      this.flush();
      this.parts.push(s);
      return;
    }
    for (let i = 0; i < s.length; i++) this.buf[this.n++] = s.charCodeAt(i);
  }

  private flush(): void {
    if (this.n === 0) return;
    this.parts.push(decodeBytes(this.buf.subarray(0, this.n)));
    this.n = 0;
  }

  /** Everything written so far, as one string. */
  finish(): string {
    this.flush();
    return this.parts.join('');
  }
}
