import { inspect } from 'node:util';

const REDACTED = '[REDACTED]';

/**
 * The Prism user and password. The password sits in a private field and comes out only as a Basic `Authorization`
 * value, so logging or serialising the configuration (`JSON.stringify`, `console.log`, pino) can never show it.
 */
export class PrismCredentials {
  readonly username: string;
  readonly #password: string;

  constructor(username: string, password: string) {
    this.username = username;
    this.#password = password;
  }

  /** The `Authorization` header value for Basic authentication. Never log it. */
  basicAuthorization(): string {
    return `Basic ${Buffer.from(`${this.username}:${this.#password}`).toString('base64')}`;
  }

  toJSON(): { username: string; password: string } {
    return { username: this.username, password: REDACTED };
  }

  [inspect.custom](): string {
    return `PrismCredentials { username: ${JSON.stringify(this.username)}, password: ${REDACTED} }`;
  }
}
