/**
 * Runs of equal values in a per-frame series (contact labels, pinned-point codes): the `[start, end)`
 * frame ranges where a value holds. Engine-free; set-up and report code, not the per-frame path.
 */

/**
 * The maximal runs of frames where `values[f] === code`, or where `values[f]` is non-zero when `code`
 * is omitted, as `[start, end)` pairs in frame order.
 */
export function runsOf(values: ArrayLike<number>, code?: number): [number, number][] {
  const out: [number, number][] = [];
  let start = -1;
  for (let f = 0; f <= values.length; f++) {
    const on = f < values.length && (code === undefined ? values[f] !== 0 : values[f] === code);
    if (on && start < 0) start = f;
    else if (!on && start >= 0) {
      out.push([start, f]);
      start = -1;
    }
  }
  return out;
}
