/**
 * Which web pages may talk to the project's servers (the remote control, the viewer, the puppet page
 * server): a browser sends an `Origin` header with every WebSocket upgrade and cross-origin request, so
 * a page on any web site the operator happens to open could otherwise drive the remote control on
 * 127.0.0.1. Rules, in order:
 * - no `Origin` header: not a browser (a script, a tool, Unity): allowed;
 * - an origin on the allow-list (`scheme://host[:port]`, compared lower-case without a trailing slash;
 *   `*` allows every origin): allowed;
 * - the project's own pages: `http://` on one of `pagePorts` (the server's own port for the viewer and
 *   the puppet page; the viewer's port for the remote control) with a loopback host (`localhost`,
 *   127.x.x.x, `[::1]`) or an IP literal equal to the request's `Host` (a LAN device that opened the
 *   viewer by address; a name is not trusted, so DNS rebinding to 127.0.0.1 gets no further): allowed;
 * - anything else (also `null`, a file:// page): refused with 403.
 */
import { isIP } from 'node:net';

/** `scheme://host[:port]` lower-case, without trailing slashes (the form browsers send). */
export function normalizeOrigin(origin: string): string {
  return origin.trim().toLowerCase().replace(/\/+$/, '');
}

function hostnameOf(host: string): string {
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']'));
  const colon = host.lastIndexOf(':');
  return colon >= 0 && host.indexOf(':') === colon ? host.slice(0, colon) : host;
}

function isLoopback(hostname: string): boolean {
  return (
    hostname === 'localhost' || hostname === '::1' || (isIP(hostname) === 4 && hostname.startsWith('127.'))
  );
}

export interface OriginPolicy {
  /** Extra allowed origins (`*`: any). */
  allowed: readonly string[];
  /** Ports of the project's own pages. */
  pagePorts: Iterable<number>;
}

/**
 * Null when the request may proceed, else why not (for the 403 body and the log line).
 * @param origin the `Origin` header (undefined: none)
 * @param hostHeader the request's `Host` header
 */
export function originRefusal(
  origin: string | string[] | undefined,
  hostHeader: string | undefined,
  policy: OriginPolicy,
): string | null {
  if (origin === undefined) return null;
  const o = normalizeOrigin(Array.isArray(origin) ? origin.join(',') : origin);
  for (const a of policy.allowed) {
    const n = normalizeOrigin(a);
    if (n === '*' || n === o) return null;
  }
  let url: URL | null = null;
  try {
    url = new URL(o);
  } catch {
    url = null;
  }
  if (url && url.protocol === 'http:' && url.pathname === '/' && o === `${url.protocol}//${url.host}`) {
    const port = url.port === '' ? 80 : Number(url.port);
    const hostname = url.hostname.replace(/^\[|\]$/g, '');
    const own = [...policy.pagePorts].includes(port);
    const host = hostHeader ? hostnameOf(hostHeader.trim().toLowerCase()) : '';
    if (own && (isLoopback(hostname) || (isIP(hostname) !== 0 && hostname === host))) return null;
  }
  return `origin ${o} is not on the allow-list`;
}

/** Throws a RangeError naming `what` when an entry of the allow-list is not `*` or `scheme://host[:port]`. */
export function checkAllowedOrigins(list: readonly string[], what: string): void {
  for (const a of list) {
    const n = normalizeOrigin(a);
    if (n === '*' || n === 'null') continue;
    let ok = false;
    try {
      const u = new URL(n);
      ok = /^[a-z][a-z0-9+.-]*:$/.test(u.protocol) && u.host !== '' && n === `${u.protocol}//${u.host}`;
    } catch {
      ok = false;
    }
    if (!ok) throw new RangeError(`${what}: '${a}': need an origin such as http://127.0.0.1:8064 (or *)`);
  }
}
