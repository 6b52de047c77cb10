#!/usr/bin/env bash
# The whole test suite: checks that Chromium is there, installs dependencies when they are
# missing or stale (the service's, and Bluesky's reference PDS for its spec), checks that PostgreSQL
# and Redis answer, then runs every unit and end-to-end test. Each test file creates and migrates a
# database of its own, so nothing else needs setting up.
set -euo pipefail
cd "$(dirname "$0")/.."

# The queue dashboard's test drives a real browser; without it eight tests would fail late.
# (HERALD_TEST_CHROMIUM only lets the test of this check point elsewhere.)
chromium="${HERALD_TEST_CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$chromium" ]; then
  cat >&2 <<EOF2
npm test needs Chromium at $chromium (the queue dashboard's browser test). Install it:
  sudo apt-get install -y chromium      # Debian, Ubuntu
then run npm test again.
EOF2
  exit 1
fi

stamp=node_modules/.herald-lock-hash
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  # Plain `npm ci`: the lock holds every platform's packages (scripts/complete-lock.js).
  npm ci --no-audit --no-fund
  echo "$want" > "$stamp"
fi
# Bluesky's reference PDS for its spec, in test/support/pds (a no-op when it is current).
bash scripts/install-pds.sh

export TEST_ADMIN_DATABASE_URL="${TEST_ADMIN_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
export TEST_REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379}"

echo "Running the tests on Node $(node --version)"
results=$(mktemp)
status=0
npx jest --ci --maxWorkers=2 --json --outputFile="$results" "$@" || status=$?
# One plain closing line for CI: "tests: N passed, N failed, N skipped".
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests} skipped`);
' "$results" 2>/dev/null || true
rm -f "$results"
exit "$status"
