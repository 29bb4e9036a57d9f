// Helm template text from a Kubernetes object, without writing YAML by hand: the object is changed to carry markers
// (a scalar whose value is an expression, or a mapping key whose line becomes a block of template lines), serialized
// by the YAML library, and each marker is then replaced by its template text at the indentation the library chose.
import { stringify } from 'yaml';

// The library quotes these (a plain scalar cannot start with @), with either quote; the quotes go with the marker.
const SCALAR = /(["']?)@@helm:s(\d+)@@\1/g;
const BLOCK_LINE = /^(\s*)(["']?)@@helm:b(\d+)@@\2: null$/;

/** Template lines for a block, given the indentation (in spaces) of the line the block replaces. */
export type BlockLines = (indent: number) => string[];

export class TemplateMarkers {
  private readonly scalars: string[] = [];
  private readonly blocks: BlockLines[] = [];

  /** A value to put where template text (`{{ .Values.x }}`) must be: a whole scalar (unquoted then) or part of a string. */
  scalar(templateText: string): string {
    this.scalars.push(templateText);
    return `@@helm:s${String(this.scalars.length - 1)}@@`;
  }

  /** A key to add to a mapping (with the value null): its line is replaced by `lines`, at its indentation. */
  block(lines: BlockLines): string {
    this.blocks.push(lines);
    return `@@helm:b${String(this.blocks.length - 1)}@@`;
  }

  /** The object as template text: markers replaced, nothing else changed. */
  render(object: unknown): string {
    const text = stringify(object, { lineWidth: 0 });
    return text.split('\n').flatMap((line) => {
      const block = BLOCK_LINE.exec(line);
      const lines = block === null ? undefined : this.blocks[Number(block[3])];
      if (block !== null && lines !== undefined) {
        const indent = (block[1] ?? '').length;
        return lines(indent).map((l) => `${' '.repeat(indent)}${l}`);
      }
      if (line.includes('@@helm:b')) throw new Error(`a block marker is not alone on its line (a marker key must not be first in a list item): ${line}`);
      return [line.replace(SCALAR, (match, _quote, index: string) => this.scalars[Number(index)] ?? match)];
    }).join('\n');
  }
}

/** Text that Helm must print as it is: `{{` would start a template action. A raw string (backquotes) needs no escaping inside either YAML quote style. */
export const escapeTemplateText = (text: string): string => text.replaceAll("{{", "{{`{{`}}");
