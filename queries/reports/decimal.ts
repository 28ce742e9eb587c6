// Exact sums of PostgreSQL numeric texts, so that sums of partial sums read as the same doubles as the
// database's own total would: a numeric sum is exact, and a float sum of its parts is not.
const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/** Integer texts below 2^53 add exactly as doubles; anything else goes through BigInt at a common scale. */
export function sumDecimalTexts(texts: string[]): string {
  let n = 0;
  for (const t of texts) n += Number(t);
  if (Number.isSafeInteger(n) && texts.every((t) => DECIMAL.test(t) && !t.includes('.') && Number.isSafeInteger(Number(t)))) return String(n);
  const parts = texts.map((t) => {
    const m = DECIMAL.exec(t);
    if (!m) throw new Error(`not a decimal: ${t}`);
    return { sign: m[1], int: m[2], frac: m[3] ?? '' };
  });
  const scale = Math.max(...parts.map((p) => p.frac.length));
  let total = 0n;
  for (const p of parts) {
    const v = BigInt(p.int + p.frac.padEnd(scale, '0'));
    total += p.sign ? -v : v;
  }
  const negative = total < 0n;
  const digits = (negative ? -total : total).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return negative ? `-${text}` : text;
}
