const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

/**
 * The value of a Kubernetes resource quantity ("256Mi", "500m", "2", "1.5Gi", "1e3"), as a plain number: bytes for
 * memory, cores for CPU. Throws on anything else, naming the quantity.
 */
export function quantityValue(quantity: string | number): number {
  if (typeof quantity === 'number') return quantity;
  const match = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?)$/.exec(quantity.trim());
  if (!match?.[1]) throw new Error(`not a Kubernetes quantity: ${JSON.stringify(quantity)}`);
  const number = Number(match[1]);
  if (match[2]) return number * 10 ** Number(match[2].slice(1));
  const suffix = match[3] ?? '';
  return number * (BINARY[suffix] ?? DECIMAL[suffix] ?? 1);
}
