#!/usr/bin/env bash
# The quick start (`npm run quickstart`): install, build, create and migrate the database, seed a
# demo user, project, Telegram account and channels, print a working API key, then serve.
# Needs Node 20 and a running PostgreSQL and Redis. Running it again keeps every row and prints
# a fresh key; earlier keys stay valid because APP_SECRET is generated once and kept.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }
fail() { printf '\nquickstart: %s\n' "$*" >&2; exit 1; }

# --- Environment: anything already set wins; these are only local defaults. ---------------------
export PORT="${PORT:-3000}"
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/herald}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
export MEDIA_STORAGE_DIR="${MEDIA_STORAGE_DIR:-.herald/media}"
export PUBLIC_BASE_URL="${PUBLIC_BASE_URL:-http://localhost:${PORT}}"

secret_file=.herald/app-secret
mkdir -p .herald "$MEDIA_STORAGE_DIR"
if [ -z "${APP_SECRET:-}" ]; then
  if [ ! -s "$secret_file" ]; then
    (umask 077 && node -e "process.stdout.write(require('node:crypto').randomBytes(32).toString('hex'))" >"$secret_file")
    echo "Generated APP_SECRET into $secret_file (keep it: keys and stored bot tokens depend on it)"
  fi
  APP_SECRET="$(cat "$secret_file")"
  export APP_SECRET
  secret_source="$secret_file"
else
  secret_source="the environment"
fi

# Addresses are printed without their passwords.
redact() { printf '%s' "$1" | sed -E 's#://([^:@/]*):[^@/]*@#://\1:***@#'; }
cat <<EOF
Herald quick start
  DATABASE_URL      $(redact "$DATABASE_URL")
  REDIS_URL         $(redact "$REDIS_URL")
  PORT              $PORT
  PUBLIC_BASE_URL   $PUBLIC_BASE_URL
  MEDIA_STORAGE_DIR $MEDIA_STORAGE_DIR
  APP_SECRET        from $secret_source
EOF

# --- 1. Dependencies (skipped when node_modules matches package-lock.json; same stamp as npm test).
stamp=node_modules/.herald-lock-hash
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  step "Dependencies are current (npm ci skipped)"
else
  step "Installing dependencies (npm ci)"
  ci_log="$(mktemp)"
  if npm ci --no-audit --no-fund >"$ci_log" 2>&1; then
    grep -E '^(added|removed|changed) ' "$ci_log" || true
  else
    # npm ci refuses a lock file that lacks other platforms' optional packages (npm/cli#4828);
    # npm install still installs the locked versions, and --no-save leaves the lock file alone.
    grep -m 3 -E '^npm (error|ERR!) [^ ]' "$ci_log" >&2 || true
    step "npm ci refused to install (above); installing with npm install --no-save instead"
    npm install --no-save --no-audit --no-fund
  fi
  rm -f "$ci_log"
  echo "$want" >"$stamp"
fi

# --- 2. PostgreSQL and Redis must answer; the database is created when missing. ----------------
step "Checking Redis"
node -e "
const Redis = require('ioredis');
const redis = new Redis(process.env.REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 3000 });
redis.on('error', () => {});
redis.connect().then(() => redis.ping()).then(
  () => { console.log('Redis answers'); redis.disconnect(); },
  (error) => { console.error('Redis does not answer at REDIS_URL: ' + error.message); process.exit(1); },
);
" || fail "start Redis (or set REDIS_URL) and run again"

step "Creating the database if it is missing"
node -e "
const { Client } = require('pg');
const target = new URL(process.env.DATABASE_URL);
const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
if (!name) { console.error('DATABASE_URL names no database'); process.exit(1); }
async function tryConnect(url) {
  const client = new Client({ connectionString: url });
  await client.connect();
  return client;
}
(async () => {
  try {
    await (await tryConnect(target.href)).end();
    console.log('Database ' + name + ' exists');
    return;
  } catch (error) {
    if (error.code !== '3D000') throw error; // 3D000: the database does not exist
  }
  const admin = new URL(target.href);
  admin.pathname = '/postgres';
  const client = await tryConnect(admin.href);
  try {
    await client.query('CREATE DATABASE \"' + name.replace(/\"/g, '\"\"') + '\"');
    console.log('Created database ' + name);
  } finally {
    await client.end();
  }
})().catch((error) => { console.error('PostgreSQL: ' + error.message); process.exit(1); });
" || fail "start PostgreSQL (or set DATABASE_URL) and run again"

# --- 3. Build, then migrate with the built data source (dist/ormconfig.js). ---------------------
step "Building (npm run build)"
npm run build --silent

step "Applying migrations (npm run migration:run)"
migration_log="$(mktemp)"
if ! npm run migration:run --silent >"$migration_log" 2>&1; then
  tail -n 30 "$migration_log" >&2
  rm -f "$migration_log"
  fail "migrations failed (above)"
fi
# The TypeORM CLI echoes every statement; only its summary lines are worth showing.
grep -E '^(Migration .* has been executed|No migrations are pending)' "$migration_log" || true
rm -f "$migration_log"

# --- 4. Demo data and a fresh API key (seed-demo is idempotent). --------------------------------
step "Seeding the demo user, project, Telegram account and channels (npm run cli -- seed-demo)"
npm run cli --silent -- seed-demo

# --- 5. Serve. ----------------------------------------------------------------------------------
step "Starting Herald on ${PUBLIC_BASE_URL} (npm run start:prod; Ctrl+C stops it)"
echo "    API documentation: ${PUBLIC_BASE_URL}/api/docs"
exec npm run start:prod --silent
