// The store's SQL, each text prepared once and kept. node-sqlite3-wasm's Database.run/get/all
// prepare, run and finalize their SQL on every call: parsing it took 12.6-13.7 ms of the service's
// thread per warm invocation, in every read and write on its path. The store has a few dozen fixed
// texts, and its lists' texts vary with the selector's values, so the newest CAPACITY are kept.
import type { BindValues, Database, Statement } from 'node-sqlite3-wasm';

export type Row = Record<string, unknown>;

/** What the store asks of SQLite: a Database does it too, preparing each time (the schema's migration uses one). */
export interface Sql {
  run(sql: string, values?: BindValues): void;
  get(sql: string, values?: BindValues): Row | null | undefined;
  all(sql: string, values?: BindValues): Row[];
}

const CAPACITY = 128;

export class PreparedStatements implements Sql {
  /** By SQL text, least recently used first. */
  readonly #statements = new Map<string, Statement>();

  constructor(private readonly db: Database) {}

  run(sql: string, values?: BindValues): void {
    this.#use(sql, (statement) => statement.run(values));
  }

  /**
   * The first row, of a query that has at most one. Read to its end, so the statement is done and
   * holds no read transaction open until its next use, as a statement stopped at its first row would.
   */
  get(sql: string, values?: BindValues): Row | undefined {
    return this.all(sql, values)[0];
  }

  all(sql: string, values?: BindValues): Row[] {
    return this.#use(sql, (statement) => statement.all(values) as Row[]);
  }

  /** Finalizes every statement: before the database closes, which would otherwise stay open for them. */
  close(): void {
    for (const statement of this.#statements.values()) finalizeQuietly(statement);
    this.#statements.clear();
  }

  #use<T>(sql: string, work: (statement: Statement) => T): T {
    const statement = this.#statement(sql);
    try {
      return work(statement);
    } catch (err) {
      // A statement whose step failed fails its next reset with the same error: it is not used again.
      this.#statements.delete(sql);
      finalizeQuietly(statement);
      throw err;
    }
  }

  #statement(sql: string): Statement {
    const kept = this.#statements.get(sql);
    if (kept) {
      this.#statements.delete(sql);
      this.#statements.set(sql, kept);
      return kept;
    }
    const statement = this.db.prepare(sql);
    this.#statements.set(sql, statement);
    if (this.#statements.size > CAPACITY) {
      const [oldest, dropped] = this.#statements.entries().next().value as [string, Statement];
      this.#statements.delete(oldest);
      finalizeQuietly(dropped);
    }
    return statement;
  }
}

/** Finalizing reports the statement's last error again, which its use has already thrown. */
function finalizeQuietly(statement: Statement): void {
  try {
    statement.finalize();
  } catch {
    // reported where it happened
  }
}
