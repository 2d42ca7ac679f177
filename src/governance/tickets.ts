// Tickets (spec "Ticket"): one open ticket per attack path, `tk-<id>`, opened by an admin with an owner,
// closed later; kept per tenant by the governance backend (src/governance/store.ts: by default
// DATA_DIR/governance/<tenant>/tickets.json, or TICKETS_PATH; written whole, atomically).
import { randomBytes } from 'node:crypto';
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
  private readonly cache = new Map<string, Ticket[]>();

  constructor(private readonly documents: DocumentStore<Ticket>) {}

  list(tenant: string): Ticket[] {
    let tickets = this.cache.get(tenant);
    if (!tickets) {
      tickets = this.documents.load(tenant);
      this.cache.set(tenant, tickets);
    }
    return tickets;
  }

  openFor(tenant: string, pathId: string): Ticket | undefined {
    return this.list(tenant).find((t) => t.pathId === pathId && t.state === 'open');
  }

  get(tenant: string, id: string): Ticket | undefined {
    return this.list(tenant).find((t) => t.id === id);
  }

  create(
    tenant: string,
    fields: Omit<Ticket, 'id' | 'state' | 'closedAt' | 'closedBy' | 'dispatch'>,
  ): Ticket {
    const ticket: Ticket = {
      id: `tk-${randomBytes(8).toString('hex')}`,
      state: 'open',
      closedAt: null,
      closedBy: null,
      dispatch: null,
      ...fields,
    };
    this.list(tenant).push(ticket);
    this.save(tenant);
    return ticket;
  }

  update(tenant: string, ticket: Ticket): void {
    const tickets = this.list(tenant);
    const at = tickets.findIndex((t) => t.id === ticket.id);
    if (at >= 0) tickets[at] = ticket;
    this.save(tenant);
  }

  private save(tenant: string): void {
    this.documents.save(tenant, this.list(tenant));
  }
}

/** Sends a ticket to TICKET_WEBHOOK_URL; the answer (or the failure) is recorded, never thrown. */
export async function dispatchTicket(
  url: string,
  event: 'ticket.opened' | 'ticket.closed',
  tenant: string,
  ticket: Ticket,
  now: number,
): Promise<Ticket['dispatch']> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ event, tenant, ticket }),
      signal: AbortSignal.timeout(5000),
    });
    return {
      status: response.status,
      error: response.ok ? null : `answered ${response.status}`,
      at: new Date(now).toISOString(),
    };
  } catch (error) {
    return { status: null, error: (error as Error).message, at: new Date(now).toISOString() };
  }
}
