/** The ingest writer thread (see sqliteWriterThread in ingest-writer.ts): writes SQLite batches on its own connection. */
import { parentPort, workerData } from 'node:worker_threads';
import { openSqlite } from '../../db/sqlite-database.ts';
import { sqliteStatements } from './ingest-repo.ts';
import { runSqliteBatch, type WorkerReply, type WorkerRequest } from './ingest-writer.ts';

const port = parentPort;
if (!port) throw new Error('ingest-write-worker.ts runs as a worker thread');
const { raw } = openSqlite((workerData as { file: string }).file);
const statements = sqliteStatements(raw);

port.on('message', async (m: WorkerRequest | 'close') => {
  if (m === 'close') {
    raw.close();
    port.close();
    return;
  }
  let reply: WorkerReply;
  try {
    // No pause: this thread answers nothing else, and a batch that never awaits cannot interleave with the next message's.
    reply = { id: m.id, ok: true, out: await runSqliteBatch(raw, statements, m.jobs, null) };
  } catch (error) {
    reply = { id: m.id, ok: false, error };
  }
  port.postMessage(reply);
});
