import { readFile } from 'node:fs/promises';

/**
 * How long a token read from a file is used before the file is read again. The kubelet rewrites a projected
 * ServiceAccount token well before it expires (at 80% of its lifetime); client-go re-reads token files once a minute.
 */
export const TOKEN_FILE_MAX_AGE_MS = 60_000;

/**
 * A bearer token kept in a file that is replaced while the operator runs: the in-cluster ServiceAccount token, or a
 * kubeconfig user's `tokenFile`.
 */
export class TokenFile {
  readonly path: string;
  #token: string;
  #readAt: number;
  #reading: Promise<void> | undefined;

  private constructor(path: string, token: string) {
    this.path = path;
    this.#token = token;
    this.#readAt = Date.now();
  }

  /**
   * Reads the file now; an unreadable or empty file is an error, unless a `fallback` token is given (a kubeconfig user
   * with both `token` and `tokenFile`: client-go sends the token until the file can be read).
   */
  static async open(path: string, description: string, fallback?: string): Promise<TokenFile> {
    try {
      return new TokenFile(path, await readToken(path));
    } catch (error) {
      if (fallback !== undefined) return new TokenFile(path, fallback);
      throw new Error(`${description}: ${(error as Error).message}`, { cause: error });
    }
  }

  /** The token, read again if the last read is a minute old. */
  async token(): Promise<string> {
    if (Date.now() - this.#readAt >= TOKEN_FILE_MAX_AGE_MS) await this.reread();
    return this.#token;
  }

  /**
   * Reads the file again now (after a 401: the token may have been rotated). A failed read keeps the last token, as
   * client-go does: the kubelet replaces the file atomically, so a failure is the volume's, and the old token may
   * still be valid; the next read is tried a minute later.
   */
  reread(): Promise<void> {
    this.#reading ??= readToken(this.path)
      .then(
        (token) => {
          this.#token = token;
        },
        () => undefined,
      )
      .finally(() => {
        this.#readAt = Date.now();
        this.#reading = undefined;
      });
    return this.#reading;
  }
}

async function readToken(path: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read token file ${path}: ${(error as Error).message}`, { cause: error });
  }
  const token = text.trim();
  if (token === '') throw new Error(`token file ${path} is empty`);
  return token;
}
