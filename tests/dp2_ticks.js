// demoparser2's side of test_source2_ticks_dp2.py: parseTicks(FILE, PROPS)
// as JSON lines on stdout ({"error": "..."} when it fails on the file).
// Usage: node dp2_ticks.js FILE P1,P2,...   (NODE_PATH: where it is installed)
const { parseTicks } = require('@laihoe/demoparser2');
const [file, props] = process.argv.slice(2);
let rows;
try {
  rows = parseTicks(file, props.split(','));
} catch (e) {
  console.log(JSON.stringify({ error: String(e && e.message ? e.message : e) }));
  process.exit(0);
}
const out = [];
for (const r of rows) out.push(JSON.stringify(r, (k, v) => (typeof v === 'bigint' ? v.toString() : v)));
process.stdout.write(out.join('\n') + (out.length ? '\n' : ''));
