// demoparser2 side of bench_source2_entities.sh: full parses with entities
// (parseTicks on a few props) of FILE in this process, REPS times (default
// 1). Prints the row count and the best in-process time of one parse
// (module load and process start-up excluded), the figure to set against
// zdem's in-process time (bench_source2_entities, best of 5).
const { parseTicks } = require('@laihoe/demoparser2');
const file = process.argv[2];
const reps = Number(process.argv[3] || 1);
try {
  let best = Infinity;
  let rows = 0;
  for (let i = 0; i < reps; i++) {
    const t0 = process.hrtime.bigint();
    rows = parseTicks(file, ['X', 'Y', 'Z', 'health', 'team_num']).length;
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (ms < best) best = ms;
  }
  console.log(`rows ${rows} inproc_ms ${best.toFixed(2)}`);
} catch (e) {
  console.log(`error ${e && e.message ? e.message : e}`);
}
