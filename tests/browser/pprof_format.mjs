// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// A second, independent pprof decoder: the npm package pprof-format reads
// fxsampler's profile of the gen_profile fixture, and every field issue 11
// asks for is checked against what gen_profile says it wrote.
//
// usage: node pprof_format.mjs PROFILE.pb.gz FACTS   (FXS_NODE_MODULES: where npm put it)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import zlib from 'node:zlib';

const require = createRequire(process.env.FXS_NODE_MODULES + '/');
const { Profile } = require('pprof-format');

const [pbPath, factsPath] = process.argv.slice(2);
const facts = Object.fromEntries(
  fs.readFileSync(factsPath, 'utf8').trim().split('\n').map((l) => l.split('=')));
const num = (v) => Number(v);

const p = Profile.decode(zlib.gunzipSync(fs.readFileSync(pbPath)));
const str = (i) => p.stringTable.strings[num(i)];

// As Go's CPU profiles: two sample types, the period in cpu nanoseconds.
assert.deepEqual(p.sampleType.map((t) => [str(t.type), str(t.unit)]),
  [['samples', 'count'], ['cpu', 'nanoseconds']]);
assert.deepEqual([str(p.periodType.type), str(p.periodType.unit)], ['cpu', 'nanoseconds']);
assert.equal(num(p.period), num(facts.period_ns));
assert.equal(num(p.timeNanos), num(facts.time_nanos));
assert.equal(num(p.durationNanos), num(facts.duration_nanos));

// Values: samples, and samples x period.
const total = num(facts.main_samples) + num(facts.worker_samples);
let count = 0, cpu = 0;
for (const s of p.sample) {
  assert.equal(s.value.length, 2);
  assert.equal(num(s.value[1]), num(s.value[0]) * num(facts.period_ns));
  count += num(s.value[0]);
  cpu += num(s.value[1]);
}
assert.equal(count, total);
assert.equal(cpu, total * num(facts.period_ns));

// Labels: thread and process names, pid and tid numbers.
const byThread = {};
for (const s of p.sample) {
  const l = Object.fromEntries(s.label.map((x) => [str(x.key), num(x.str) ? str(x.str) : num(x.num)]));
  assert.equal(l.pid, num(facts.pid));
  assert.equal(l.process, 'gen_profile');
  assert.ok(l.thread === 'gen-main' || l.thread === 'gen-worker', `thread ${l.thread}`);
  assert.equal(l.tid, num(l.thread === 'gen-main' ? facts.pid : facts.worker));
  byThread[l.thread] = (byThread[l.thread] || 0) + num(s.value[0]);
}
assert.deepEqual(byThread, { 'gen-main': num(facts.main_samples), 'gen-worker': num(facts.worker_samples) });

// Tables: ids 1..n, each entry used, nothing written twice.
const ids = (v) => v.map((x) => num(x.id));
const oneToN = (v) => assert.deepEqual(ids(v), v.map((_, i) => i + 1));
oneToN(p.location);
oneToN(p.function);
oneToN(p.mapping);
const usedLocs = new Set(p.sample.flatMap((s) => s.locationId.map(num)));
assert.equal(usedLocs.size, p.location.length, 'an unused location');
const usedFuncs = new Set(p.location.flatMap((l) => l.line.map((x) => num(x.functionId))));
assert.equal(usedFuncs.size, p.function.length, 'an unused function');
const locKeys = new Set(p.location.map((l) => `${l.mappingId}:${l.address}:${l.line.map((x) => x.functionId)}`));
assert.equal(locKeys.size, p.location.length, 'a location written twice');
const funcKeys = new Set(p.function.map((f) => `${str(f.name)}\0${str(f.filename)}`));
assert.equal(funcKeys.size, p.function.length, 'a function written twice');
// The two threads run the same three functions at the same pcs: 4 locations.
assert.equal(p.location.length, 4);
assert.deepEqual(p.function.map((f) => str(f.name)).sort(),
  ['fxs_gen_leaf_a', 'fxs_gen_leaf_b', 'fxs_gen_mid', 'main']);
assert.ok(!p.stringTable.strings.includes('[truncated]'), 'an unused [truncated]');

// The mapping of the binary carries its GNU build id.
const exe = p.mapping.filter((m) => str(m.filename).endsWith('/gen_profile'));
assert.equal(exe.length, 1);
assert.equal(str(exe[0].buildId), facts.build_id);
assert.ok(exe[0].hasFunctions);

console.log(`pprof-format: ${p.sample.length} samples, ${count} counted, ` +
  `${p.location.length} locations, ${p.function.length} functions: ok`);
