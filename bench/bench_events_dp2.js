// demoparser2's side of bench_events.sh: a worker that runs parseEvent on
// request, in this process (module load excluded, done before the first
// request). Each stdin line is JSON [file, event, playerProps, otherProps];
// each reply line is "cpu_us wall_us rows" for that call (process.cpuUsage:
// user + system), or "error MESSAGE".
const { parseEvent } = require('@laihoe/demoparser2');
const readline = require('readline');
const rl = readline.createInterface({ input: process.stdin });
console.log('ready');
rl.on('line', (line) => {
  const [file, name, player, other] = JSON.parse(line);
  try {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    const r = parseEvent(file, name, player, other);
    const wall = Number(process.hrtime.bigint() - t0) / 1e3;
    const c = process.cpuUsage(c0);
    console.log(`${c.user + c.system} ${wall.toFixed(0)} ${r.length}`);
  } catch (e) {
    console.log(`error ${e && e.message ? e.message : e}`);
  }
});
