/**
 * The work both floors of the read benchmark do for `GET /api/public/v1/projects` and
 * `GET /api/public/v1/usage`, exactly as Herald does it: parse the key, SELECT it by public id,
 * HMAC-SHA-256 and constant-time compare, the throttled `last_used_at` write, the same named SQL
 * and the same JSON. Used by bench/baseline-server.ts (bare node:http) and
 * bench/framework-server.ts (a minimal NestJS + Express app). Configured by DATABASE_URL and
 * APP_SECRET.
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { Pool, types } from 'pg';
import { PERMISSION_FLAGS } from '../src/access/permissions';
import { USAGE_SQL } from '../src/domains/analytics/usage-query';

const KEY_SHAPE = /^hrld_live_([A-Za-z0-9]{16})\.([A-Za-z0-9]{32,128})$/;
const DB_TIMESTAMP =
  /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?(?:Z|[+-]00(?::?00)?)?$/;
const TIMESTAMPTZ_OID = 1184;
const LAST_USED_WRITE_INTERVAL_MS = 60_000;
/** Herald's pool size (DATABASE_POOL_SIZE's default), so both servers get the same connections. */
const POOL_SIZE = 20;
/** And Herald's idle time (DATABASE_POOL_IDLE_MS's default): both keep their connections alike. */
const POOL_IDLE_MS = 300_000;

const appSecret = process.env.APP_SECRET ?? '';
const hashKey = Buffer.from(hkdfSync('sha256', appSecret, 'herald', 'herald/token-hash', 32));

const pool = new Pool({
  connectionString: process.env.DATABASE_URL,
  max: POOL_SIZE,
  idleTimeoutMillis: POOL_IDLE_MS,
  options: '-c TimeZone=UTC',
  types: {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === TIMESTAMPTZ_OID
        ? (value: string) => value
        : types.getTypeParser(oid, format)) as typeof types.getTypeParser,
  },
});

export interface KeyRow {
  id: number;
  secret_hash: string;
  user_id: number;
}

interface ProjectRow {
  id: number;
  name: string;
  timezone: string;
  owner_id: number;
  created_at: string;
}

const lastWritten = new Map<number, number>();

export async function authenticate(header: string | undefined): Promise<KeyRow | null> {
  const bearer = header ? /^Bearer ([^\s]+)$/i.exec(header.trim()) : null;
  const parsed = bearer ? KEY_SHAPE.exec(bearer[1]) : null;
  if (!parsed) return null;
  const { rows } = await pool.query<KeyRow>({
    name: 'key',
    text: `SELECT k.id, k.public_id, k.secret_hash, k.scopes, k.user_id, k.last_used_at,
            u.email, u.name, u.is_admin
       FROM api_keys k JOIN users u ON u.id = k.user_id
      WHERE k.public_id = $1 AND k.revoked_at IS NULL
        AND (k.expires_at IS NULL OR k.expires_at > now())`,
    values: [parsed[1]],
  });
  const row = rows[0];
  const presented = createHmac('sha256', hashKey).update(parsed[2]).digest();
  const stored = row ? Buffer.from(row.secret_hash, 'hex') : Buffer.alloc(0);
  if (!row || stored.length !== presented.length || !timingSafeEqual(presented, stored))
    return null;
  touch(row.id);
  return row;
}

function touch(id: number): void {
  const now = Date.now();
  const last = lastWritten.get(id);
  if (last !== undefined && now - last < LAST_USED_WRITE_INTERVAL_MS) return;
  lastWritten.set(id, now);
  pool
    .query(
      `UPDATE api_keys SET last_used_at = now()
        WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
      [id],
    )
    .catch(() => undefined);
}

function formatTimestamp(raw: string): string {
  const match = DB_TIMESTAMP.exec(raw);
  if (!match) throw new Error(`Unexpected timestamp: ${raw}`);
  return `${match[1]}T${match[2]}.${(match[3] ?? '').padEnd(6, '0')}`;
}

export async function projects(userId: number): Promise<unknown> {
  const { rows } = await pool.query<ProjectRow>({
    name: 'projects',
    text: `SELECT p.id, p.name, p.timezone, p.owner_id, p.appearance, p.wallpaper, p.created_at, m.role,
            ${PERMISSION_FLAGS.map((flag) => `m.${flag}`).join(', ')}
       FROM projects p
       LEFT JOIN project_members m ON m.project_id = p.id AND m.user_id = $1
      WHERE p.owner_id = $1 OR m.user_id IS NOT NULL ORDER BY p.id`,
    values: [userId],
  });
  const items = rows.map((row) => ({
    id: row.id,
    name: row.name,
    timezone: row.timezone,
    created_at: formatTimestamp(row.created_at),
    is_owner: row.owner_id === userId,
  }));
  return { items, count: items.length };
}

export async function usage(userId: number): Promise<unknown> {
  // The very statement Herald's AnalyticsRepository sends: the three usage figures in one round trip.
  const { rows } = await pool.query({ name: 'usage', text: USAGE_SQL, values: [userId] });
  return rows[0];
}
