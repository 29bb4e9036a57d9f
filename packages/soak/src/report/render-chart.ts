import { parse, View } from 'vega';
import { compile, type Config, type TopLevelSpec } from 'vega-lite';

/** Labels in full: operator names and fault kinds are long, and cut short several read alike ("db-pod-delete-duri…"). */
const REPORT_CHART_CONFIG: Config = { legend: { labelLimit: 0 }, axis: { labelLimit: 0 } };

/**
 * A vega-lite chart as SVG markup, headless: the `none` renderer needs neither a DOM nor the optional `canvas`
 * package (vega then estimates text widths), and every chart's data is inline, so nothing is loaded from anywhere.
 */
export async function renderChartSvg(spec: TopLevelSpec): Promise<string> {
  const view = new View(parse(compile(spec, { config: REPORT_CHART_CONFIG }).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
