#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The one npm install of the test tiers that run node: check-browser
# (pprof-format, speedscope, playwright-core) and check-report's SVG test
# (playwright-core). tests/browser/package.json pins the versions; they go
# into $OUTPUT/npm with its own cache, once: a later run with the same
# versions installed installs nothing.
#
#   tests/browser/npm.sh      prints the node_modules directory; exits 1 with
#                             the reason on stderr when npm is missing or the
#                             install fails
#
# Run from the top of the source tree.
set -eu

OUTPUT=${OUTPUT:-.output}
pkg=$(pwd)/tests/browser/package.json
dir=$(pwd)/$OUTPUT/npm

[ -f "$pkg" ] || { echo "npm.sh: run from the top of the source tree" >&2; exit 1; }
command -v node >/dev/null 2>&1 || { echo "npm.sh: node not found" >&2; exit 1; }

# Whether every pinned package is installed at its version.
installed()
{
	node -e '
		const fs = require("fs"), path = require("path");
		const [pkg, dir] = process.argv.slice(1);
		const want = JSON.parse(fs.readFileSync(pkg)).dependencies;
		for (const [name, version] of Object.entries(want)) {
			let have;
			try {
				have = JSON.parse(fs.readFileSync(
					path.join(dir, "node_modules", name, "package.json"))).version;
			} catch (e) {}
			if (have !== version)
				process.exit(1);
		}' "$pkg" "$dir"
}

if ! installed; then
	command -v npm >/dev/null 2>&1 || { echo "npm.sh: npm not found" >&2; exit 1; }
	echo "== npm install (tests/browser/package.json) into $OUTPUT/npm" >&2
	mkdir -p "$dir"
	cp "$pkg" "$dir/package.json"
	npm install --prefix "$dir" --cache "$dir/cache" --no-audit --no-fund \
		--loglevel=error >&2 || { echo "npm.sh: npm install failed" >&2; exit 1; }
	installed || { echo "npm.sh: npm installed other versions than package.json pins" >&2; exit 1; }
fi
echo "$dir/node_modules"
