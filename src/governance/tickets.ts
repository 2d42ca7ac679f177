// Tickets (spec "Ticket"): one open ticket per attack path, `tk-<id>`, opened by an admin with an owner,
// closed later; kept per tenant by the governance backend (src/governance/store.ts: by default
// DATA_DIR/governance/<tenant>/tickets.json, or TICKETS_PATH; written whole, atomically).
import { randomBytes } from 'node:crypto';
import { postWebhook } from './outbound-webhook.js';
import type { DocumentStore } from './store.js';

export interface Ticket {
  id: string;
  pathId: string;
  owner: string;
  state: 'open' | 'closed';
  /** the route when the ticket was opened, for the work board */
  route: { start: string; target: string; score: number; priority: string };
  createdAt: string;
  createdBy: string;
  closedAt: string | null;
  closedBy: string | null;
  /** what TICKET_WEBHOOK_URL answered, when it is set */
  dispatch: { status: number | null; error: string | null; at: string } | null;
}

export class TicketStore {
  constructor(private readonly documents: DocumentStore<Ticket>) {}

  list(tenant: string): Ticket[] {
    return this.documents.load(tenant);
  }

  /** Brings the board up to date with the stored one (another replica's writes), before a read. */
  refresh(tenant: string): Promise<void> {
    return this.documents.refresh(tenant);
  }

  openFor(tenant: string, pathId: string): Ticket | undefined {
    return this.list(tenant).find((t) => t.pathId === pathId && t.state === 'open');
  }

  get(tenant: string, id: string): Ticket | undefined {
    return this.list(tenant).find((t) => t.id === id);
  }

  /**
   * Opens a ticket, unless the path already has an open one as stored (opened on another replica a moment
   * ago, too): then that one is answered and nothing is written.
   */
  async create(
    tenant: string,
    fields: Omit<Ticket, 'id' | 'state' | 'closedAt' | 'closedBy' | 'dispatch'>,
  ): Promise<{ ticket: Ticket; created: boolean }> {
    const ticket: Ticket = {
      id: `tk-${randomBytes(8).toString('hex')}`,
      state: 'open',
      closedAt: null,
      closedBy: null,
      dispatch: null,
      ...fields,
    };
    const { result } = await this.documents.mutate(tenant, (current) => {
      const open = current.find((t) => t.pathId === fields.pathId && t.state === 'open');
      return open
        ? { next: current, result: { ticket: open, created: false } }
        : { next: [...current, ticket], result: { ticket, created: true } };
    });
    return result;
  }

  /**
   * Changes a stored ticket: `edit` gets the ticket as stored and returns it changed, or a reason it may
   * not change (e.g. closed meanwhile). Undefined when no such ticket is stored.
   */
  async change(
    tenant: string,
    id: string,
    edit: (ticket: Ticket) => Ticket | string,
  ): Promise<Ticket | string | undefined> {
    const { result } = await this.documents.mutate<Ticket | string | undefined>(tenant, (current) => {
      const at = current.findIndex((t) => t.id === id);
      if (at < 0) return { next: current, result: undefined };
      const edited = edit({ ...current[at] });
      if (typeof edited === 'string') return { next: current, result: edited };
      const next = [...current];
      next[at] = edited;
      return { next, result: edited };
    });
    return result;
  }
}

/**
 * Sends a ticket to its tenant's URL (TICKET_WEBHOOK_URL(S)), signed with TICKET_WEBHOOK_SECRET when set
 * (src/governance/outbound-webhook.ts); the answer (or the failure, a redirect included) is recorded, never
 * thrown.
 */
export async function dispatchTicket(
  url: string,
  event: 'ticket.opened' | 'ticket.closed',
  tenant: string,
  ticket: Ticket,
  now: number,
  secret?: string,
): Promise<Ticket['dispatch']> {
  const sent = await postWebhook(url, JSON.stringify({ event, tenant, ticket }), { secret, now });
  return { ...sent, at: new Date(now).toISOString() };
}
