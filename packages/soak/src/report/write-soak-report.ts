import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TopLevelSpec } from 'vega-lite';
import { machineLoadChart } from './machine-load-chart.ts';
import { queueDepthChart } from './queue-depth-chart.ts';
import { renderChartSvg } from './render-chart.ts';
import type { SoakReportInput } from './report-input.ts';
import { rssChart } from './rss-chart.ts';
import { buildSoakReport } from './soak-report.ts';
import { renderSoakReportMarkdown, type ChartLink } from './soak-report-markdown.ts';
import { switchLatencyChart } from './switch-latency-chart.ts';

/**
 * Writes the soak's report into `outDir` (created if missing): soak-report.json for machines, soak-report.md for
 * people, and beside them the charts it shows, rss.svg, switch-latency.svg, queue-depth.svg and machine-load.svg. Returns their paths.
 */
export async function writeSoakReport(outDir: string, input: SoakReportInput): Promise<{ jsonPath: string; markdownPath: string; charts: string[] }> {
  const charts: (ChartLink & { spec: TopLevelSpec })[] = [
    { title: 'Operator RSS over time', file: 'rss.svg', spec: rssChart(input.processSamples, input.faults, input.startedAt) },
    { title: 'MaintPage switch latency', file: 'switch-latency.svg', spec: switchLatencyChart(input.switchLatencyMs) },
    { title: 'Work queue depth over time', file: 'queue-depth.svg', spec: queueDepthChart(input.queueDepth, input.faults, input.startedAt) },
    { title: 'Machine load over time', file: 'machine-load.svg', spec: machineLoadChart(input.machineLoad, input.faults, input.startedAt) },
  ];
  await mkdir(outDir, { recursive: true });
  // One chart after the other: rendering is CPU-bound, so side by side would only interleave it.
  for (const chart of charts) await writeFile(join(outDir, chart.file), await renderChartSvg(chart.spec));

  const report = buildSoakReport(input);
  const jsonPath = join(outDir, 'soak-report.json');
  const markdownPath = join(outDir, 'soak-report.md');
  await writeFile(jsonPath, `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(markdownPath, renderSoakReportMarkdown(report, charts));
  return { jsonPath, markdownPath, charts: charts.map((chart) => join(outDir, chart.file)) };
}
