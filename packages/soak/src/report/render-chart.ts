import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

/**
 * A vega-lite chart as SVG markup, headless: the `none` renderer needs neither a DOM nor the optional `canvas`
 * package (vega then estimates text widths), and every chart's data is inline, so nothing is loaded from anywhere.
 */
export async function renderChartSvg(spec: TopLevelSpec): Promise<string> {
  const view = new View(parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
