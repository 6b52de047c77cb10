/**
 * Usage of the key's user, in one round trip, each part read through an index whatever the size
 * of the tables: posts the user created (through either API) since the 1st of this month UTC,
 * live ones only (test posts are free), from the monthly counter the posts' own statements keep
 * (user-post-month.entity.ts); the projects GET /projects lists, owned ones and those the user
 * is a member of; keys neither revoked nor expired. The cost stays flat as the tables grow
 * (docs/performance.md#usage-in-one-query).
 */
export const USAGE_SQL = `
  SELECT
    coalesce((SELECT posts FROM user_post_months
               WHERE user_id = $1
                 AND month = date_trunc('month', now() AT TIME ZONE 'UTC')::date), 0) AS posts_this_month,
    (SELECT count(*)::int FROM (SELECT id FROM projects WHERE owner_id = $1
                                UNION
                                SELECT project_id FROM project_members WHERE user_id = $1) mine) AS projects_count,
    (SELECT count(*)::int FROM api_keys
      WHERE user_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())) AS api_keys_count`;
