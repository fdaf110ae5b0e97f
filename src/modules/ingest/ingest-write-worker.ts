/** The ingest writer thread (see sqliteWriterThread in ingest-writer.ts): writes SQLite batches on its own connection. */
import { workerData } from 'node:worker_threads';
import { openSqlite } from '../../db/sqlite-database.ts';
import { serveThread } from '../../lib/thread.ts';
import { sqliteAlertWrites } from '../alerts/alert-writer-sqlite.ts';
import type { WriteOp } from '../alerts/alert-writer-types.ts';
import { runSqliteBatch } from './ingest-writer.ts';

const { raw } = openSqlite((workerData as { file: string }).file);
const writes = sqliteAlertWrites(raw);

// No pause: this thread answers nothing else, and a batch that never awaits cannot interleave with the next message's.
serveThread((jobs: WriteOp[][]) => runSqliteBatch(raw, writes, jobs, null), () => raw.close());
