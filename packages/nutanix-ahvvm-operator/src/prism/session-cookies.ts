/**
 * The Prism session: the first request authenticates with Basic credentials and Prism answers with session cookies
 * (`NTNX_IGW_SESSION`, `JSESSIONID`, or the IAMv2 `NTNX_*_IAM_*` ones); later requests send only those cookies, so
 * Prism does not check the password on every call. When a session expires Prism answers 401 and the client logs in
 * again with Basic credentials. Only Basic credentials use it: an API key is sent on every request instead.
 */
export class SessionCookies {
  #cookies = new Map<string, string>();

  /** The `Cookie` header to send, or undefined when there is no session yet (send Basic credentials). */
  header(): string | undefined {
    if (this.#cookies.size === 0) return undefined;
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  /** Takes the cookies of a response's `Set-Cookie` headers; attributes (Expires, Path …) are not needed. */
  remember(setCookie: readonly string[]): void {
    for (const line of setCookie) {
      const pair = line.split(';', 1)[0] ?? '';
      const separator = pair.indexOf('=');
      if (separator <= 0) continue;
      this.#cookies.set(pair.slice(0, separator).trim(), pair.slice(separator + 1).trim());
    }
  }

  /**
   * Drops the session after a 401 on `rejectedHeader`. A concurrent request may already have logged in again and
   * stored a fresh session; that one is kept.
   */
  forget(rejectedHeader: string): void {
    if (this.header() === rejectedHeader) this.#cookies = new Map();
  }
}
