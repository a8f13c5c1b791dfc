// demoparser2's side of bench_ticks.sh: parseTicks(FILE, X Y Z health
// team_num), best of N in this process (module load excluded). Prints:
// best_ms rows rss_before_kb peak_kb, or "error MESSAGE".
const { parseTicks } = require('@laihoe/demoparser2');
const [file, nArg] = process.argv.slice(2);
const n = Number(nArg || 5);
const before = Math.round(process.memoryUsage().rss / 1024);
let best = null, rows = 0;
try {
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    const r = parseTicks(file, ['X', 'Y', 'Z', 'health', 'team_num']);
    const dt = Number(process.hrtime.bigint() - t0) / 1e6;
    rows = r.length;
    if (best === null || dt < best) best = dt;
  }
} catch (e) {
  console.log(`error ${e && e.message ? e.message : e}`);
  process.exit(0);
}
console.log(`${best.toFixed(3)} ${rows} ${before} ${process.resourceUsage().maxRSS}`);
