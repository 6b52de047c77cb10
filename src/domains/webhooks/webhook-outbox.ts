// Outbox CTEs: the event is written by the statement that makes the change, if subscribed to.

export const NEW_EVENT_ID = `'msg_' || replace(gen_random_uuid()::text, '-', '')`;

const SENDS = `webhook_event_sends AS (
     INSERT INTO webhook_sends (event_id, webhook_id)
     SELECT e.id, w.id
       FROM webhook_event e
       JOIN webhooks w ON w.project_id = e.project_id AND w.test = e.test AND w.enabled
                      AND e.type = ANY(w.events))`;

function subscribed(projectId: string, test: string, type: string): string {
  return `EXISTS (SELECT 1 FROM webhooks w
                   WHERE w.project_id = ${projectId} AND w.test = ${test} AND w.enabled
                     AND ${type} = ANY(w.events))`;
}

const POST_IS_TEST = `(SELECT p.test FROM posts p WHERE p.id = c.id)`;

/** Final rows of `changed` (`id`, `project_id`, `status`); `data` is filled after the commit. */
export function postEventOutbox(changed: string): string {
  return `webhook_event AS (
     INSERT INTO webhook_events (id, project_id, type, post_id, test)
     SELECT ${NEW_EVENT_ID}, c.project_id, 'post.' || c.status, c.id, ${POST_IS_TEST}
       FROM ${changed} c
      WHERE c.status IN ('published', 'failed')
        AND ${subscribed('c.project_id', POST_IS_TEST, `'post.' || c.status`)}
     RETURNING id, project_id, type, test),
   ${SENDS}`;
}

/** An account event for each row of `changed` (accounts), with the account's channel refs. */
function accountEventOutbox(changed: string, type: string, fields: Record<string, string>): string {
  const extra = Object.entries(fields)
    .map(([name, column]) => `'${name}', ${column},\n              `)
    .join('');
  return `webhook_event AS (
     INSERT INTO webhook_events (id, project_id, type, data)
     SELECT ${NEW_EVENT_ID}, c.project_id, '${type}',
            jsonb_build_object(
              'project_id', c.project_id,
              'account_id', c.id,
              ${extra}'channel_refs', coalesce(
                (SELECT jsonb_agg(ch.platform || ':' || ch.account_id || ':' || ch.channel_id
                                  ORDER BY ch.id)
                   FROM channels ch WHERE ch.account_id = c.id), '[]'::jsonb))
       FROM ${changed} c
      WHERE ${subscribed('c.project_id', 'false', `'${type}'`)}
     RETURNING id, project_id, type, test),
   ${SENDS}`;
}

/** For accounts just flagged in `changed` (`id`, `project_id`); always live events. */
export function reconnectEventOutbox(changed: string): string {
  return accountEventOutbox(changed, 'channel.needs_reconnect', {});
}

/** A connection through OAuth completed, for each row of `changed` (`id`, `project_id`, `platform`). */
export function connectedEventOutbox(changed: string): string {
  return accountEventOutbox(changed, 'account.connected', { platform: 'c.platform' });
}
