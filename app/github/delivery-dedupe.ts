// GitHub deliveries already taken, by `X-GitHub-Delivery` (issue 31: a delivery replayed three times was
// handled three times). A delivery is claimed once verified; a claimed id answers 200 `duplicate` and is not
// handled again. The newest WEBHOOK_DELIVERY_MEMORY ids are kept, across restarts: in a file under DATA_DIR
// (embedded) or in PostgreSQL (DB_DSN: every replica sees every other's claims). A delivery that could not be
// taken after its claim (no leader to hand it to) is forgotten, so GitHub's redelivery is handled.
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Db } from '../../src/db/postgres.js';

export interface DeliveryLedger {
  /** true when the id is new (now claimed), false when it was taken before */
  claim(id: string): Promise<boolean>;
  /** Gives a claim back (the delivery was not taken after all). */
  forget(id: string): Promise<void>;
}

/** Embedded: DATA_DIR/state/github-deliveries.log, one id a line, rewritten when twice the memory. */
export class FileDeliveryLedger implements DeliveryLedger {
  private readonly ids = new Set<string>();
  private readonly file: string;
  private lines = 0;

  constructor(
    dataDir: string,
    private readonly memory: number,
  ) {
    this.file = path.join(dataDir, 'state', 'github-deliveries.log');
    if (existsSync(this.file))
      for (const line of readFileSync(this.file, 'utf8').split('\n')) {
        if (!line) continue;
        this.lines++;
        if (line.startsWith('-')) this.ids.delete(line.slice(1));
        else this.add(line);
      }
  }

  private add(id: string): void {
    this.ids.delete(id);
    this.ids.add(id);
    // A Set iterates in insertion order: the first is the oldest.
    if (this.ids.size > this.memory) this.ids.delete(this.ids.values().next().value!);
  }

  private write(line: string): void {
    mkdirSync(path.dirname(this.file), { recursive: true });
    appendFileSync(this.file, `${line}\n`);
    if (++this.lines <= 2 * this.memory) return;
    const temp = `${this.file}.tmp`;
    writeFileSync(temp, [...this.ids].map((id) => `${id}\n`).join(''));
    renameSync(temp, this.file);
    this.lines = this.ids.size;
  }

  async claim(id: string): Promise<boolean> {
    if (this.ids.has(id)) return false;
    this.add(id);
    this.write(id);
    return true;
  }

  async forget(id: string): Promise<void> {
    if (!this.ids.delete(id)) return;
    this.write(`-${id}`);
  }
}

/** Scale-out: the `github_deliveries` table (migration 005), pruned to the memory every 100 claims. */
export class PgDeliveryLedger implements DeliveryLedger {
  private claims = 0;

  constructor(
    private readonly db: Db,
    private readonly memory: number,
  ) {}

  async claim(id: string): Promise<boolean> {
    const { rowCount } = await this.db.query(
      'insert into github_deliveries (id) values ($1) on conflict (id) do nothing',
      [id],
    );
    if (++this.claims % 100 === 0)
      await this.db.query(
        'delete from github_deliveries where received_at < (select received_at from github_deliveries order by received_at desc offset $1 limit 1)',
        [this.memory],
      );
    return rowCount === 1;
  }

  async forget(id: string): Promise<void> {
    await this.db.query('delete from github_deliveries where id = $1', [id]);
  }
}
