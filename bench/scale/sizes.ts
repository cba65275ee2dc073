import { Client } from 'pg';

/** Size on disk of one table, bytes (heap + TOAST + indexes, summed over its partitions if any). */
export interface TableSize {
  table: string;
  totalBytes: number;
  indexBytes: number;
}

/**
 * The tables of the database's `public` schema with their size on disk, largest first. A
 * partitioned table counts its partitions (`pg_partition_tree`), and partitions are not listed
 * on their own, so the figures hold whatever the storage layout is.
 */
export async function tableSizes(url: string): Promise<TableSize[]> {
  const pg = new Client({ connectionString: url });
  await pg.connect();
  try {
    const { rows } = await pg.query<{ table: string; total: string; indexes: string }>(`
      SELECT c.relname AS "table",
             CASE WHEN c.relkind = 'p'
                  THEN (SELECT coalesce(sum(pg_total_relation_size(t.relid)), 0) FROM pg_partition_tree(c.oid) t)
                  ELSE pg_total_relation_size(c.oid) END AS total,
             CASE WHEN c.relkind = 'p'
                  THEN (SELECT coalesce(sum(pg_indexes_size(t.relid)), 0) FROM pg_partition_tree(c.oid) t)
                  ELSE pg_indexes_size(c.oid) END AS indexes
        FROM pg_class c
       WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
       ORDER BY 2 DESC`);
    return rows.map((r) => ({ table: r.table, totalBytes: Number(r.total), indexBytes: Number(r.indexes) }));
  } finally {
    await pg.end();
  }
}
