/** The ingest writer thread (see sqliteWriterThread in ingest-writer.ts): writes SQLite batches on its own connection. */
import { parentPort, workerData } from 'node:worker_threads';
import { openSqlite } from '../../db/sqlite-database.ts';
import { sqliteStatements } from './ingest-repo.ts';
import { runSqliteBatch, type WorkerReply, type WorkerRequest } from './ingest-writer.ts';

const port = parentPort;
if (!port) throw new Error('ingest-write-worker.ts runs as a worker thread');
const { raw } = openSqlite((workerData as { file: string }).file);
const statements = sqliteStatements(raw);

port.on('message', (m: WorkerRequest | 'close') => {
  if (m === 'close') {
    raw.close();
    port.close();
    return;
  }
  let reply: WorkerReply;
  try {
    reply = { id: m.id, ok: true, out: runSqliteBatch(raw, statements, m.jobs) };
  } catch (error) {
    reply = { id: m.id, ok: false, error };
  }
  port.postMessage(reply);
});
