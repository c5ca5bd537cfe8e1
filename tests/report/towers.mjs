// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
//
// The default flame graph of a busy capture in a real browser (issue 28):
// headless Chromium driven by playwright-core loads report's SVG of
// progs/kinds (200 short processes, 100 short threads, three kinds) and
// checks that each kind's leaf is one wide frame whose whole name is drawn,
// as glyphs in the screenshot, and that a merged thread frame's details line
// says how many threads it holds.
//
// node towers.mjs SVG SHOT LEAF...   (FXS_NODE_MODULES: where tests/browser/npm.sh
//   installed playwright-core)
import { checker, withChromium } from './chromium.mjs';

const [svgPath, shotPath, ...leaves] = process.argv.slice(2);
const check = checker('towers');

await withChromium(async (browser) => {
	const page = await browser.newPage();
	await page.goto('file://' + svgPath);
	await page.screenshot({ path: shotPath });
	const png = (await page.screenshot()).toString('base64');
	for (const leaf of leaves) {
		// The frames whose title names the leaf: one, wide, its name drawn whole.
		const f = await page.evaluate((leaf) => {
			const gs = [...document.querySelectorAll('g')].filter((g) =>
				g.querySelector('title') && g.querySelector('title').textContent.startsWith(leaf + ' ('));
			if (gs.length !== 1) return { n: gs.length };
			const r = gs[0].querySelector('rect').getBoundingClientRect();
			const t = gs[0].querySelector('text');
			return { n: 1, x: r.x, y: r.y, w: r.width, h: r.height,
				 text: t ? t.textContent : '', tw: t ? t.getBBox().width : 0 };
		}, leaf);
		check(f.n === 1, `${leaf} is one frame (${f.n})`);
		check(f.w > 250, `${leaf}'s frame is a tower, not a sliver (${Math.round(f.w)} px wide)`);
		check(f.text === leaf && f.tw > 0, `${leaf}'s name is drawn whole ('${f.text}')`);
		// Glyphs in the screenshot: dark text pixels inside the frame's box.
		const dark = await page.evaluate(async ([b64, f]) => {
			const img = new Image();
			img.src = 'data:image/png;base64,' + b64;
			await img.decode();
			const c = document.createElementNS('http://www.w3.org/1999/xhtml', 'canvas');
			c.width = img.width;
			c.height = img.height;
			const ctx = c.getContext('2d');
			ctx.drawImage(img, 0, 0);
			const d = ctx.getImageData(Math.floor(f.x), Math.floor(f.y), Math.ceil(f.w),
						   Math.ceil(f.h)).data;
			let n = 0;
			for (let i = 0; i < d.length; i += 4)
				if (d[i] < 80 && d[i + 1] < 80 && d[i + 2] < 80) n++;
			return n;
		}, [png, f]);
		check(dark > 30, `${leaf}'s name shows in the screenshot (${dark} text pixels)`);
	}
	// The merged thread frame of the 100 "gamma" threads says so on hover.
	const gamma = await page.evaluate(() => {
		const g = [...document.querySelectorAll('g')].find((g) =>
			g.querySelector('title') && g.querySelector('title').textContent.startsWith('gamma ('));
		if (!g) return null;
		const b = g.querySelector('rect').getBoundingClientRect();
		return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
	});
	check(gamma, 'a "gamma" thread frame');
	await page.mouse.move(gamma.x, gamma.y);
	const details = await page.textContent('#details');
	const m = /; (\d+) threads in 1 process\)$/.exec(details);
	check(m && +m[1] >= 90, `its details line counts the threads (${details})`);
});
