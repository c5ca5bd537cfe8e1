// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
//
// What the report's browser tests (svg.mjs, towers.mjs) share: a check that
// says each result and stops at the first failure, and headless Chromium
// driven by playwright-core (from FXS_NODE_MODULES, where tests/browser/npm.sh
// installed it) in a fresh profile directory.
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// check(cond, what): "ok: what", or "FAIL: name: what" and an exception.
export function checker(name) {
	return function check(cond, what) {
		if (!cond) {
			console.log(`FAIL: ${name}: ${what}`);
			process.exitCode = 1;
			throw new Error(what);
		}
		console.log(`   ok: ${what}`);
	};
}

// fn(browser) in headless Chromium (CHROMIUM, default /usr/bin/chromium); the
// browser is closed and its profile removed however fn ends.
export async function withChromium(fn) {
	const require = createRequire(process.env.FXS_NODE_MODULES + '/');
	const { chromium } = require('playwright-core');
	// A fresh profile directory (playwright passes it as --user-data-dir).
	const profile = mkdtempSync(join(tmpdir(), 'fxs-chromium-'));
	const browser = await chromium.launchPersistentContext(profile, {
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		headless: true,
		viewport: { width: 1200, height: 900 },
		args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
		       '--disable-component-update', '--no-first-run'],
	});
	try {
		await fn(browser);
	} finally {
		await browser.close();
		rmSync(profile, { recursive: true, force: true });
	}
}
