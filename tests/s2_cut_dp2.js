// demoparser2's side of test_source2_cut_dp2.sh: parseTicks and
// parseEvents on an original and on clips of it; each clip's output must
// equal the original's over the clip's ticks (the rows of the ticks the
// clip has, every event from the signon's to its last tick). Prints one
// JSON line per clip: {"clip", "ok", "rows", "events", "first", "last",
// "why"} ({"error"} when demoparser2 fails on the original).
// Usage: node s2_cut_dp2.js ORIGINAL CLIP...   (NODE_PATH: where it is installed)
const { parseTicks, parseEvents } = require('@laihoe/demoparser2');
const [orig, ...clips] = process.argv.slice(2);
const PROPS = ['X', 'Y', 'Z', 'pitch', 'yaw', 'health', 'team_num', 'name', 'steamid', 'balance',
  'active_weapon', 'armor_value', 'is_alive', 'life_state', 'score', 'last_place_name'];
const ser = (x) => JSON.stringify(x, (k, v) => (typeof v === 'bigint' ? v.toString() : v));
let rows, events;
try {
  rows = parseTicks(orig, PROPS);
  events = parseEvents(orig, ['all']);
} catch (e) {
  console.log(ser({ error: String(e && e.message ? e.message : e) }));
  process.exit(0);
}
for (const clip of clips) {
  const out = { clip };
  try {
    const r = parseTicks(clip, PROPS);
    const ev = parseEvents(clip, ['all']);
    const ticks = r.map((x) => x.tick);
    const first = Math.min(...ticks), last = Math.max(...ticks);
    const want = rows.filter((x) => x.tick >= first && x.tick <= last);
    const wantEv = events.filter((x) => (x.tick >= first || x.tick < 0) && x.tick <= last);
    out.first = first;
    out.last = last;
    out.rows = r.length;
    out.events = ev.length;
    out.ok = r.length > 0 && ser(want) === ser(r) && ser(wantEv) === ser(ev);
    if (!out.ok) {
      const a = ser(want) === ser(r) ? wantEv : want, b = ser(want) === ser(r) ? ev : r;
      let i = 0;
      while (i < a.length && i < b.length && ser(a[i]) === ser(b[i])) i++;
      out.why = `${a === want ? 'rows' : 'events'} differ at ${i}: original ${ser(a[i])} clip ${ser(b[i])}`.slice(0, 600);
    }
  } catch (e) {
    out.ok = false;
    out.why = 'demoparser2 fails on the clip: ' + String(e && e.message ? e.message : e);
  }
  console.log(ser(out));
}
