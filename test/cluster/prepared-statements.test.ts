// The embedded store's kept statements: each SQL text prepared once, none left holding a read open,
// none reused after a failed step, the least recently used finalized past the capacity, all on close.
import assert from 'node:assert/strict';
import sqlite from 'node-sqlite3-wasm';
import type { Database, Statement } from 'node-sqlite3-wasm';
import { PreparedStatements } from '../../src/cluster/embedded/prepared-statements.js';

describe('embedded store: prepared statements', function () {
  let db: Database;
  let prepared: Statement[];
  let sql: PreparedStatements;

  beforeEach(function () {
    db = new sqlite.Database(':memory:');
    db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT)');
    prepared = [];
    const prepare = db.prepare.bind(db);
    db.prepare = (text: string) => {
      const statement = prepare(text);
      prepared.push(statement);
      return statement;
    };
    sql = new PreparedStatements(db);
  });
  afterEach(function () {
    sql.close();
    if (db.isOpen) db.close();
  });

  it('prepares each SQL text once and answers as the database does', function () {
    for (const [k, v] of [['a', '1'], ['b', '2'], ['c', '3']]) sql.run('INSERT INTO t (k, v) VALUES (?, ?)', [k, v]);
    assert.deepEqual(sql.get('SELECT v FROM t WHERE k = ?', ['b']), { v: '2' });
    assert.equal(sql.get('SELECT v FROM t WHERE k = ?', ['z']), undefined);
    assert.deepEqual(sql.all('SELECT k FROM t ORDER BY k'), [{ k: 'a' }, { k: 'b' }, { k: 'c' }]);
    assert.deepEqual(sql.all('SELECT k FROM t ORDER BY k'), db.all('SELECT k FROM t ORDER BY k'));
    // Three texts of its own; the database's own all() above prepared a fourth.
    assert.equal(prepared.length, 4);
  });

  it('leaves no read open after a single row is asked for', function () {
    sql.run('INSERT INTO t (k, v) VALUES (?, ?)', ['a', '1']);
    sql.run('INSERT INTO t (k, v) VALUES (?, ?)', ['b', '2']);
    assert.deepEqual(sql.get('SELECT k FROM t ORDER BY k'), { k: 'a' });
    // A statement still reading the table would lock it: "database table is locked".
    db.exec('DROP TABLE t');
  });

  it('does not reuse a statement whose step failed', function () {
    const insert = 'INSERT INTO t (k, v) VALUES (?, ?)';
    sql.run(insert, ['a', '1']);
    assert.throws(() => sql.run(insert, ['a', 'again']), /UNIQUE constraint failed/);
    assert.equal(prepared[0].isFinalized, true);
    sql.run(insert, ['b', '2']);
    assert.deepEqual(sql.all('SELECT k, v FROM t ORDER BY k'), [{ k: 'a', v: '1' }, { k: 'b', v: '2' }]);
    // Inside a transaction too: the failed write is undone with the rest, the next one works.
    db.exec('BEGIN IMMEDIATE');
    sql.run(insert, ['c', '3']);
    assert.throws(() => sql.run(insert, ['c', 'again']), /UNIQUE constraint failed/);
    db.exec('ROLLBACK');
    sql.run(insert, ['c', '3']);
    assert.equal(sql.get('SELECT COUNT(*) AS n FROM t')?.n, 3);
  });

  it('keeps the 128 most recently used and finalizes the rest, and every one on close', function () {
    const text = (i: number) => `SELECT ${i} AS n`;
    for (let i = 0; i <= 128; i += 1) assert.deepEqual(sql.get(text(i)), { n: i });
    assert.equal(prepared[0].isFinalized, true, 'the least recently used, finalized');
    assert.equal(prepared.filter((s) => s.isFinalized).length, 1);
    sql.get(text(1));
    assert.equal(prepared.length, 129, 'one kept is not prepared again');
    sql.get(text(0));
    assert.equal(prepared.length, 130, 'one dropped is prepared again');
    assert.equal(prepared[2].isFinalized, true, 'and the least recently used then is dropped: 2, as 1 was used since');
    sql.close();
    assert.ok(prepared.every((s) => s.isFinalized));
    db.close();
  });
});
