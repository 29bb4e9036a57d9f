/**
 * A small line diff for `crdDiff`'s message: enough to show a reviewer which fields changed, without a dependency.
 * Longest-common-subsequence over lines; CRD files are a few hundred lines, so the quadratic table is cheap.
 */

const CONTEXT_LINES = 2;
const MAX_OUTPUT_LINES = 60;

interface Edit {
  op: ' ' | '-' | '+';
  line: string;
  /** Line number in the old text where the edit applies, for `@@` markers. */
  oldNumber: number;
}

function edits(before: readonly string[], after: readonly string[]): Edit[] {
  const width = after.length + 1;
  // common[i * width + j]: length of the longest common subsequence of before[i..] and after[j..].
  const common = new Uint32Array((before.length + 1) * width);
  const lcs = (i: number, j: number): number => common[i * width + j] ?? 0;
  for (let i = before.length - 1; i >= 0; i--) {
    for (let j = after.length - 1; j >= 0; j--) {
      common[i * width + j] = before[i] === after[j] ? lcs(i + 1, j + 1) + 1 : Math.max(lcs(i + 1, j), lcs(i, j + 1));
    }
  }
  const result: Edit[] = [];
  let i = 0;
  let j = 0;
  for (;;) {
    const removed = before[i];
    const added = after[j];
    if (removed === undefined && added === undefined) return result;
    if (removed !== undefined && removed === added) {
      result.push({ op: ' ', line: removed, oldNumber: i + 1 });
      i++;
      j++;
    } else if (removed !== undefined && (added === undefined || lcs(i + 1, j) >= lcs(i, j + 1))) {
      result.push({ op: '-', line: removed, oldNumber: i + 1 });
      i++;
    } else if (added !== undefined) {
      result.push({ op: '+', line: added, oldNumber: i + 1 });
      j++;
    }
  }
}

/** Changed lines of `after` against `before`, prefixed `-`/`+`, with a little context and `@@ line N` markers. */
export function lineDiff(before: string, after: string): string {
  const all = edits(before.split('\n'), after.split('\n'));
  const near = (index: number): boolean =>
    all.slice(Math.max(0, index - CONTEXT_LINES), index + CONTEXT_LINES + 1).some((edit) => edit.op !== ' ');
  const output: string[] = [];
  let previous = -2;
  all.forEach((edit, index) => {
    if (!near(index)) return;
    if (index !== previous + 1) output.push(`@@ line ${edit.oldNumber}`);
    output.push(`${edit.op} ${edit.line}`);
    previous = index;
  });
  if (output.length <= MAX_OUTPUT_LINES) return output.join('\n');
  return `${output.slice(0, MAX_OUTPUT_LINES).join('\n')}\n… ${output.length - MAX_OUTPUT_LINES} more lines`;
}
