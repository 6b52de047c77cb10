import type { DataSource, EntityManager } from 'typeorm';
import { rowsOf, Statement } from '../../infrastructure/database/prepared';
import { reconnectEventOutbox } from '../webhooks/webhook-outbox';

/** Only the change from connected writes the account's channel.needs_reconnect: once. */
export const FLAG_NEEDS_RECONNECT = new Statement(
  `WITH changed AS (
     UPDATE accounts SET needs_reconnect = true
      WHERE id = $1 AND NOT needs_reconnect
      RETURNING id, project_id),
   ${reconnectEventOutbox('changed')}
   SELECT id FROM changed`,
);

/** In the manager's transaction when given one. */
export async function flagNeedsReconnect(
  db: DataSource | EntityManager,
  accountId: number,
): Promise<void> {
  await rowsOf(db, FLAG_NEEDS_RECONNECT, [accountId]);
}
