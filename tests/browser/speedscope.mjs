// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// fxsampler's --perf-script output in speedscope, in headless Chromium: the
// page loads the file the way speedscope's own command line hands it over,
// shows one profile per thread in its time-ordered view, and speedscope's
// export of what it parsed has every sample, in time order, with its stack.
//
// usage: node speedscope.mjs PERF_SCRIPT FACTS   (FXS_NODE_MODULES, FXS_CHROMIUM)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(process.env.FXS_NODE_MODULES + '/');
const { chromium } = require('playwright-core');

const [scriptPath, factsPath] = process.argv.slice(2);
const facts = Object.fromEntries(
  fs.readFileSync(factsPath, 'utf8').trim().split('\n').map((l) => l.split('=')));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fxs-speedscope-'));
const release = path.join(process.env.FXS_NODE_MODULES, 'speedscope/dist/release/index.html');
const loader = path.join(tmp, 'profile.js');

fs.writeFileSync(loader, `speedscope.loadFileFromBase64(${JSON.stringify(path.basename(scriptPath))}, ` +
  `${JSON.stringify(fs.readFileSync(scriptPath).toString('base64'))})`);

const ctx = await chromium.launchPersistentContext(path.join(tmp, 'profile-dir'), {
  executablePath: process.env.FXS_CHROMIUM || '/usr/bin/chromium',
  headless: true,
  acceptDownloads: true,
  // The network is closed: no background connections, no updates, no sync.
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--no-first-run', '--disable-quic', '--disable-sync'],
});
try {
  const page = ctx.pages()[0] || (await ctx.newPage());
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  const t0 = Date.now();
  const step = (what) => process.env.FXS_VERBOSE && console.log(`${Date.now() - t0} ms: ${what}`);
  await page.goto(`file://${release}#localProfilePath=${loader}`);
  const mainName = `gen-main pid: ${facts.pid} tid: ${facts.pid}`;
  const workerName = `gen-worker pid: ${facts.pid} tid: ${facts.worker}`;
  // The profile selector names the thread shown; speedscope opens in Time Order.
  await page.getByText('Time Order').first().waitFor({ timeout: 20000 });
  await page.getByText(mainName).first().waitFor({ timeout: 20000 });
  step('shown');
  assert.deepEqual(errors, []);

  const [download] = await Promise.all([
    page.waitForEvent('download', { timeout: 20000 }),
    page.getByText('Export').first().click(),
  ]);
  const file = path.join(tmp, 'export.json');
  await download.saveAs(file);
  step('exported');
  const exp = JSON.parse(fs.readFileSync(file, 'utf8'));
  const frames = exp.shared.frames.map((f) => f.name);
  const byName = Object.fromEntries(exp.profiles.map((p) => [p.name, p]));
  assert.deepEqual(Object.keys(byName).sort(), [mainName, workerName].sort());

  // Speedscope exports what it parsed as open/close events in time order.
  // Neighbouring samples differ in their leaf, so each sample opens one leaf.
  const leaves = (p) => p.events.filter((e) => e.type === 'O' &&
    frames[e.frame].startsWith('fxs_gen_leaf_')).map((e) => [frames[e.frame], e.at]);
  const check = (p, n, first) => {
    const l = leaves(p);
    assert.equal(p.type, 'evented');
    assert.equal(l.length, n, `${p.name}: ${l.length} samples`);
    l.forEach(([name, at], i) => {
      assert.equal(name, (i % 2 === 0) === (first === 'b') ? 'fxs_gen_leaf_b' : 'fxs_gen_leaf_a',
        `${p.name}: sample ${i}`);
      if (i) assert.ok(at > l[i - 1][1], `${p.name}: sample ${i} out of time order`);
    });
    // Every sample under main;fxs_gen_mid, opened once each.
    const opens = p.events.filter((e) => e.type === 'O').map((e) => frames[e.frame]);
    assert.equal(opens.filter((f) => f === 'main').length, 1);
    assert.equal(opens.filter((f) => f === 'fxs_gen_mid').length, 1);
    // 1 ms apart: the thread spans (n - 1) ms of the timeline.
    const span = p.endValue - p.startValue;
    assert.ok(Math.abs(span - (n - 1) * num(facts.period_ns) / 1e9) < 1e-6, `span ${span}`);
    return l.length;
  };
  const nMain = check(byName[mainName], num(facts.main_samples), 'b');
  const nWorker = check(byName[workerName], num(facts.worker_samples), 'a');
  await page.screenshot({ path: path.join(tmp, 'speedscope.png') });
  console.log(`speedscope: ${nMain} + ${nWorker} samples in time order: ok`);
} finally {
  await ctx.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}

function num(v) {
  return Number(v);
}
