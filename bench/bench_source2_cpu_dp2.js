// demoparser2's side of bench_source2_cpu.sh: a worker that runs parseTicks
// (X Y Z health team_num: a full parse with entities) on request, in this
// process (module load done before the first request). Each stdin line is a
// file; each reply line is "cpu_us rows" for that call (process.cpuUsage:
// user + system), or "error MESSAGE".
const { parseTicks } = require('@laihoe/demoparser2');
const readline = require('readline');
const rl = readline.createInterface({ input: process.stdin });
console.log('ready');
rl.on('line', (file) => {
  try {
    const c0 = process.cpuUsage();
    const r = parseTicks(file, ['X', 'Y', 'Z', 'health', 'team_num']);
    const c = process.cpuUsage(c0);
    console.log(`${c.user + c.system} ${r.length}`);
  } catch (e) {
    console.log(`error ${e && e.message ? e.message : e}`);
  }
});
