/** One round trip, each part through an index; live posts since the 1st of this month UTC only. */
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
