#!/usr/bin/env bash
# The quick start (`npm run quickstart`): write local defaults to .env, install, build, create and
# migrate the database, seed a demo user, project, Telegram account and channels, serve, and once
# the service answers print a live API key, a test key and curl lines that publish a test post.
# Needs Node 20.18+ and a running PostgreSQL and Redis. Running it again keeps every row and
# prints fresh keys; earlier keys stay valid because APP_SECRET is generated once and kept.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }
fail() { printf '\nquickstart: %s\n' "$*" >&2; exit 1; }

# --- Environment: local defaults go to .env (git-ignored), which the service, the CLI and the ---
# TypeORM CLI read themselves, so every README command works in a new shell. A variable already
# set in the environment wins over .env, here and in every command. Only missing lines are added.
env_file=.env
added=()
[ -f "$env_file" ] || (umask 077 && : >"$env_file")
chmod 600 "$env_file"
has_line() { grep -qE "^[[:space:]]*(export[[:space:]]+)?$1=" "$env_file"; }
default() {
  local name="$1" value="$2"
  has_line "$name" && return 0
  if [ -s "$env_file" ] && [ -n "$(tail -c1 "$env_file")" ]; then echo >>"$env_file"; fi
  printf '%s=%s\n' "$name" "$value" >>"$env_file"
  added+=("$name")
}
default PORT "${PORT:-3000}"
default DATABASE_URL "${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/herald}"
default REDIS_URL "${REDIS_URL:-redis://127.0.0.1:6379}"
default REDIS_KEY_PREFIX "${REDIS_KEY_PREFIX:-herald}"
default MEDIA_STORAGE_DIR "${MEDIA_STORAGE_DIR:-.herald/media}"
default PUBLIC_BASE_URL "${PUBLIC_BASE_URL:-http://localhost:${PORT:-3000}}"
if ! has_line APP_SECRET; then
  if [ -n "${APP_SECRET:-}" ]; then
    secret="$APP_SECRET"
  elif [ -s .herald/app-secret ]; then
    secret="$(cat .herald/app-secret)" # kept by earlier quick starts: their keys stay valid
  else
    secret="$(node -e "process.stdout.write(require('node:crypto').randomBytes(32).toString('hex'))")"
  fi
  default APP_SECRET "$secret"
  unset secret
fi
if [ "${#added[@]}" -gt 0 ]; then
  echo "Wrote local defaults to $env_file: ${added[*]} (keep APP_SECRET: keys and stored bot tokens depend on it)"
fi

# One effective setting (the environment's, else .env's), as every command will see it.
setting() { node -e 'process.loadEnvFile(".env"); process.stdout.write(process.env[process.argv[1]] ?? "")' "$1"; }
public_base_url="$(setting PUBLIC_BASE_URL)"
mkdir -p "$(setting MEDIA_STORAGE_DIR)"

# Addresses are printed without their passwords; APP_SECRET is never printed.
redact() { printf '%s' "$1" | sed -E 's#://([^:@/]*):[^@/]*@#://\1:***@#'; }
cat <<EOF
Herald quick start (settings: the environment, else $env_file)
  DATABASE_URL      $(redact "$(setting DATABASE_URL)")
  REDIS_URL         $(redact "$(setting REDIS_URL)")
  REDIS_KEY_PREFIX  $(setting REDIS_KEY_PREFIX)
  PORT              $(setting PORT)
  PUBLIC_BASE_URL   $public_base_url
  MEDIA_STORAGE_DIR $(setting MEDIA_STORAGE_DIR)
  APP_SECRET        set
EOF

# --- 0. The port must be free: a quick start run again while Herald serves would rebuild dist/
# under the running service and then fail to listen.
port="$(setting PORT)"
if ! node -e "
const server = require('node:net').createServer();
server.once('error', (error) => process.exit(error.code === 'EADDRINUSE' ? 1 : 0));
server.listen(Number(process.argv[1]), () => server.close());
" "$port"; then
  fail "port $port is in use: is Herald already running? Stop it (Ctrl+C where it runs), or choose another port: PORT=3001 npm run quickstart"
fi

# --- 1. Dependencies (skipped when node_modules matches package-lock.json; same stamp as npm test).
stamp=node_modules/.herald-lock-hash
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  step "Dependencies are current (npm ci skipped)"
else
  step "Installing dependencies (npm ci)"
  npm ci --no-audit --no-fund || fail "npm ci failed (above)"
  echo "$want" >"$stamp"
fi

# --- 2. PostgreSQL and Redis must answer; the database is created when missing. ----------------
step "Checking Redis"
node -e "
const Redis = require('ioredis');
process.loadEnvFile('.env');
const redis = new Redis(process.env.REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 3000 });
redis.on('error', () => {});
redis.connect().then(() => redis.ping()).then(
  () => { console.log('Redis answers'); redis.disconnect(); },
  (error) => { console.error('Redis does not answer at REDIS_URL: ' + error.message); process.exit(1); },
);
" || fail "start Redis (or set REDIS_URL) and run again"

step "Creating the database if it is missing"
node -e "
process.loadEnvFile('.env');
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

# --- 4. Demo data and fresh keys (seed-demo is idempotent); printed last, once Herald answers. --
step "Seeding the demo user, project, Telegram account and channels (npm run cli -- seed-demo)"
summary="$(npm run cli --silent -- seed-demo)" || fail "seeding failed (above)"

# --- 5. Serve, and print the summary when the service answers, after its start-up logs. ---------
step "Starting Herald on ${public_base_url} (npm run start:prod)"
npm run start:prod --silent &
server=$!
trap 'kill -TERM "$server" 2>/dev/null || true' INT TERM
until node -e "
fetch('http://127.0.0.1:' + process.argv[1] + '/health/live').then(
  (res) => process.exit(res.ok ? 0 : 1),
  () => process.exit(1),
);
" "$port"; do
  kill -0 "$server" 2>/dev/null || { wait "$server" || true; fail "Herald stopped while starting (above)"; }
  sleep 0.5
done
cat <<EOF

==> Herald is ready
$summary

API documentation: ${public_base_url}/api/docs
The integrators' guide: docs/integrating.md. Herald runs until Ctrl+C.
EOF
wait "$server"
