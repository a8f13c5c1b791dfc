// demoparser2 side of bench_source2_entities.sh: one full parse with
// entities (parseTicks on a few props) of FILE, in this process.
const { parseTicks } = require('@laihoe/demoparser2');
const file = process.argv[2];
try {
  const rows = parseTicks(file, ['X', 'Y', 'Z', 'health', 'team_num']);
  console.log(`rows ${rows.length}`);
} catch (e) {
  console.log(`error ${e && e.message ? e.message : e}`);
}
