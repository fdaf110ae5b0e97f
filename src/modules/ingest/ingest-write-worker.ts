/** The ingest writer thread (see sqliteWriterThread in ingest-writer.ts): writes SQLite batches on its own connection. */
import { parentPort, workerData } from 'node:worker_threads';
import { openSqlite } from '../../db/sqlite-database.ts';
import { sqliteAlertWrites } from '../alerts/alert-writer-sqlite.ts';
import { runSqliteBatch, type WorkerReply, type WorkerRequest } from './ingest-writer.ts';

const port = parentPort;
if (!port) throw new Error('ingest-write-worker.ts runs as a worker thread');
const { raw } = openSqlite((workerData as { file: string }).file);
const writes = sqliteAlertWrites(raw);

port.on('message', async (m: WorkerRequest | 'close') => {
  if (m === 'close') {
    raw.close();
    port.close();
    return;
  }
  let reply: WorkerReply;
  try {
    // No pause: this thread answers nothing else, and a batch that never awaits cannot interleave with the next message's.
    reply = { id: m.id, ok: true, batch: await runSqliteBatch(raw, writes, m.jobs, null) };
  } catch (error) {
    reply = { id: m.id, ok: false, error };
  }
  port.postMessage(reply);
});
