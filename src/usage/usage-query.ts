/**
 * D12, for the key's user, in one round trip: posts the user created (through either API) since
 * the 1st of this month UTC, live ones only (D22: test posts are free); the projects GET /projects lists; keys neither revoked nor expired.
 */
export const USAGE_SQL = `
  SELECT
    (SELECT count(*)::int FROM posts
      WHERE created_by_user_id = $1 AND NOT test
        AND created_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC') AS posts_this_month,
    (SELECT count(*)::int FROM projects p
      WHERE p.owner_id = $1
         OR EXISTS (SELECT 1 FROM project_members m WHERE m.project_id = p.id AND m.user_id = $1)) AS projects_count,
    (SELECT count(*)::int FROM api_keys
      WHERE user_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())) AS api_keys_count`;
