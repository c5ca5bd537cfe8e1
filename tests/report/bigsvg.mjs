// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
//
// The flame graph of a big capture in a real browser (issue 39): headless
// Chromium driven by playwright-core loads report's SVG of a generated
// capture of many processes and mostly distinct stacks, within a time a
// user waits, with the frames too narrow to see merged into one whose title
// counts them; a click zooms a process frame, Reset zoom restores it, and
// the search finds the process and shows its share of the samples.
//
// node bigsvg.mjs SVG PROCESS SHARE   (FXS_NODE_MODULES: where tests/browser/npm.sh
//   installed playwright-core)
//   PROCESS  a process frame (its title starts with "PROCESS (")
//   SHARE    its share of the samples the folded stacks give, e.g. "14.29%"
import { checker, withChromium } from './chromium.mjs';

const [svgPath, proc, share] = process.argv.slice(2);
const check = checker('bigsvg');

await withChromium(async (browser) => {
	const page = await browser.newPage();
	const errors = [];
	page.on('pageerror', (e) => errors.push(String(e)));
	const t0 = Date.now();
	await page.goto('file://' + svgPath);
	const frames = await page.evaluate(() => window.fxs ? window.fxs.frames.length : 0);
	const ms = Date.now() - t0;
	check(frames > 1000, `the script ran and found ${frames} frames`);
	check(ms < 60000, `it loaded in ${ms} ms`);
	const merged = await page.evaluate(() => [...document.querySelectorAll('title')]
		.map((t) => t.textContent).filter((t) => /^\[\d+ frames, each under a pixel\] \(\d+ samples?, /.test(t)).length);
	check(merged > 0, `${merged} frames stand for runs of frames under a pixel, with their count and samples`);

	const box = (name) => page.evaluate((name) => {
		const f = window.fxs.frames.find((x) => x.info.startsWith(name + ' ('));
		if (!f) return null;
		// deep stacks make the graph taller than the window: bring the frame into view
		f.r.scrollIntoView({ block: 'center' });
		const b = f.r.getBoundingClientRect();
		return { x: b.x + b.width / 2, y: b.y + b.height / 2, w: +f.r.getAttribute('width') };
	}, name);
	const before = await box(proc);
	check(before && before.w < 1180, `${proc} is narrower than the root (${before && before.w})`);
	await page.mouse.click(before.x, before.y);
	const after = await box(proc);
	check(Math.abs(after.w - 1180) < 0.01, `a click on ${proc} zooms it to the full width`);
	await page.click('#unzoom');
	const reset = await box(proc);
	check(Math.abs(reset.w - before.w) < 0.01, 'Reset zoom restores the widths');

	page.once('dialog', (d) => d.accept('^' + proc + '$'));
	await page.click('#search');
	const matched = await page.textContent('#matched');
	check(matched.startsWith(`Matched: ${share} `), `the search shows ${proc}'s share (${matched})`);
	check(errors.length === 0, `no script errors (${errors.join('; ')})`);
});
