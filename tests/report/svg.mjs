// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
//
// The flame graph in a real browser: headless Chromium driven by
// playwright-core loads report's SVG, zooms on a scripted click, resets,
// searches through the Search button's prompt, reads the details line on
// hover, and checks a screenshot's pixels.
//
// node svg.mjs SVG INVERTED_SVG SHOT ZOOM_FN SEARCH_RE SHARE   (FXS_NODE_MODULES:
//   where tests/browser/npm.sh installed playwright-core)
//   ZOOM_FN    a function frame to click (its title starts with "ZOOM_FN (")
//   SEARCH_RE  what to type into the search prompt
//   SHARE      the matched share the folded stacks give, e.g. "97.12%"
import { checker, withChromium } from './chromium.mjs';

const [svgPath, invPath, shotPath, zoomFn, searchRe, share] = process.argv.slice(2);
const check = checker('svg');

await withChromium(async (browser) => {
	const page = await browser.newPage();
	const requests = [];
	page.on('request', (r) => { if (!r.url().startsWith('file:')) requests.push(r.url()); });
	const errors = [];
	page.on('pageerror', (e) => errors.push(String(e)));
	await page.goto('file://' + svgPath);
	check(await page.evaluate(() => !!window.fxs && window.fxs.frames.length > 0),
	      'the script ran and found the frames');

	// The geometry of the frame whose title starts with name, and whether it shows.
	const frame = (name) => page.evaluate((name) => {
		const g = [...document.querySelectorAll('g')].find((g) =>
			g.querySelector('title') && g.querySelector('title').textContent.startsWith(name + ' ('));
		if (!g) return null;
		const r = g.querySelector('rect');
		return { w: +r.getAttribute('width'), x: +r.getAttribute('x'), y: +r.getAttribute('y'),
			 shown: g.style.display !== 'none', title: g.querySelector('title').textContent,
			 fill: r.getAttribute('fill'), text: g.querySelector('text') ? g.querySelector('text').textContent : '' };
	}, name);
	const all = await frame('all');
	check(all && Math.abs(all.w - 1180) < 0.01, 'the root spans the width');
	const before = await frame(zoomFn);
	check(before && before.w < 1180, `${zoomFn} is narrower than the root before the click`);
	// A frame outside the zoomed one: the first that does not overlap it.
	const outside = await page.evaluate((t) => {
		const f = window.fxs.frames.find((x) => x.info === t);
		const o = window.fxs.frames.find((x) => x.s + x.n <= f.s || x.s >= f.s + f.n);
		return o ? o.info : null;
	}, before.title);

	// Click to zoom: a real mouse click on the frame's rectangle.
	const box = await page.evaluate((t) => {
		const f = window.fxs.frames.find((x) => x.info === t);
		const b = f.r.getBoundingClientRect();
		return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
	}, before.title);
	await page.mouse.move(box.x, box.y);
	check((await page.textContent('#details')) === before.title,
	      'hovering a frame shows its details line');
	await page.mouse.click(box.x, box.y);
	const after = await frame(zoomFn);
	check(Math.abs(after.w - 1180) < 0.01, `a click on ${zoomFn} zooms it to the full width (${before.w} -> ${after.w})`);
	check(after.text.startsWith(zoomFn.slice(0, 10)), 'its label is fitted again');
	if (outside) {
		const o = await page.evaluate((t) => window.fxs.frames.find((x) => x.info === t).g.style.display, outside);
		check(o === 'none', `a frame outside it is hidden (${outside})`);
	}
	check(await page.isVisible('#unzoom'), 'Reset zoom shows');
	await page.click('#unzoom');
	const reset = await frame(zoomFn);
	check(Math.abs(reset.w - before.w) < 0.01 && !(await page.isVisible('#unzoom')),
	      'Reset zoom restores the widths');

	// Search through the prompt, as a user does.
	page.once('dialog', (d) => d.accept(searchRe));
	await page.click('#search');
	const matched = await page.textContent('#matched');
	check(matched.startsWith(`Matched: ${share} `), `the search shows the matched share (${matched})`);
	const hit = await page.evaluate(() => document.querySelectorAll('g.hit').length);
	check(hit > 0, `${hit} frames highlighted`);

	// The screenshot: not blank, the palette drawn, the search highlight visible.
	await page.screenshot({ path: shotPath });
	const png = (await page.screenshot()).toString('base64');
	const stats = await page.evaluate(async (b64) => {
		const img = new Image();
		img.src = 'data:image/png;base64,' + b64;
		await img.decode();
		const c = document.createElementNS('http://www.w3.org/1999/xhtml', 'canvas');
		c.width = img.width;
		c.height = img.height;
		const ctx = c.getContext('2d');
		ctx.drawImage(img, 0, 0);
		const d = ctx.getImageData(0, 0, c.width, c.height).data;
		const colors = new Set();
		let magenta = 0, hot = 0;
		for (let i = 0; i < d.length; i += 4) {
			colors.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
			if (d[i] === 230 && d[i + 1] === 0 && d[i + 2] === 230) magenta++;
			if (d[i] >= 205 && d[i + 1] < 230 && d[i + 2] < 55) hot++;
		}
		return { colors: colors.size, magenta, hot, w: img.width, h: img.height };
	}, png);
	check(stats.colors > 20, `the screenshot is not blank (${stats.colors} colours, ${stats.w}x${stats.h})`);
	check(stats.magenta > 500, `the highlighted frames show (${stats.magenta} magenta pixels)`);
	check(stats.hot > 500, `function frames show in the hot palette (${stats.hot} pixels)`);

	// The icicle: the root on top, its children below it.
	await page.goto('file://' + invPath);
	const iall = await frame('all'), ifn = await frame(zoomFn);
	check(iall && ifn && iall.y < ifn.y, `--svg-inverted puts the root on top (${iall.y} < ${ifn.y})`);
	check(errors.length === 0, `no script errors (${errors.join('; ')})`);
	check(requests.length === 0, `no network requests (${requests.join(' ')})`);
});
