import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Log } from './log.ts';

/**
 * The HTML page from `--content-file`, kept in memory and re-read when it changes.
 *
 * The kubelet updates a ConfigMap volume by writing a new timestamped directory and renaming the `..data` symlink
 * onto it; the file itself (`page.html -> ..data/page.html`) is never written. So the watch is on the directory, where
 * that rename shows up, and every event re-reads the file through its path. A read that fails (the file missing or
 * half-swapped) keeps the last good page.
 */
export class PageFile {
  readonly path: string;
  readonly #log: Log;
  #html: string | undefined;
  #watcher: FSWatcher | undefined;
  /** Reads run one at a time; an event during a read asks for one more. */
  #reading: Promise<void> | undefined;
  #events = 0;

  private constructor(path: string, log: Log) {
    this.path = path;
    this.#log = log;
  }

  /** Reads the file and starts watching it. A file that cannot be read yet leaves `html` undefined, not an error. */
  static async open(path: string, log: Log): Promise<PageFile> {
    const file = new PageFile(path, log);
    file.#watcher = watch(dirname(path), { persistent: false }, () => {
      file.#scheduleRead();
    });
    file.#watcher.on('error', (error) => {
      log('error', 'watching the page file failed; the page will not be reloaded', { path, error: error.message });
    });
    await file.#read();
    return file;
  }

  /** The page, or `undefined` when the file has never been readable. */
  get html(): string | undefined {
    return this.#html;
  }

  /** Resolves once reads caused by events so far are done (for tests and shutdown). */
  async settled(): Promise<void> {
    while (this.#reading !== undefined) await this.#reading;
  }

  close(): void {
    this.#watcher?.close();
  }

  #scheduleRead(): void {
    this.#events++;
    if (this.#reading !== undefined) return;
    this.#reading = (async () => {
      let readFor: number;
      do {
        readFor = this.#events;
        await this.#read();
      } while (readFor !== this.#events);
      this.#reading = undefined;
    })();
  }

  async #read(): Promise<void> {
    let html: string;
    try {
      html = await readFile(this.path, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      this.#log(this.#html === undefined ? 'warn' : 'info', 'cannot read the page file; keeping the current page', {
        path: this.path,
        code,
      });
      return;
    }
    if (html === this.#html) return;
    const first = this.#html === undefined;
    this.#html = html;
    this.#log('info', first ? 'page loaded' : 'page reloaded', { path: this.path, bytes: Buffer.byteLength(html) });
  }
}
