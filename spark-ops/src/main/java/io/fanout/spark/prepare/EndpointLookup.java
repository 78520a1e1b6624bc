package io.fanout.spark.prepare;

import io.fanout.spark.partition.HashPartitioner;
import io.fanout.store.IdRankTable;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Dense ids of edge endpoints for {@code --id-lookup task}: the csr-writing tasks find an original
 * id's partition as the hash partitioner placed it ({@link HashPartitioner#partitionOf}), then its
 * rank in the {@link IdRankTable} the vertex task of that partition wrote into the staging folder.
 * Each table is mapped once per JVM, on first use, and shared by the tasks an executor runs (as
 * {@code StoreCache} shares stores): a mapping per task would count the same pages once per mapping
 * in the process's RSS, fault them in again, and pile up mappings until they are collected. The
 * page cache holds the tables.
 *
 * <p>One instance per task (it is not thread-safe); it is serialized with the task's closure before
 * any table is mapped.
 */
final class EndpointLookup implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Staging subfolder of the tables; removed before the store is published. */
  static final String DIR = "_id_rank";

  private final String staging;
  private final long[] firsts;
  private final boolean longIds;
  private transient IdRankTable[] tables;

  /**
   * @param longIds whether ids are {@code bigint} (else {@code int})
   */
  EndpointLookup(String staging, long[] firsts, boolean longIds) {
    this.staging = staging;
    this.firsts = firsts;
    this.longIds = longIds;
  }

  static String tableFile(int partition) {
    return DIR + "/" + String.format(Locale.ROOT, "part-%05d.ids", partition);
  }

  /**
   * The dense ids of {@code ids[0 .. n)} into {@code dense}, -1 for an id no vertex has, and the
   * partition of each into {@code partitions}. A block at a time, hashes first, then probes: in a
   * profile of {@code bench-prepare} at 5 M / 50 M the lookups fell from 18% to 12% of the task
   * threads' samples against one id at a time.
   */
  void dense(long[] ids, int n, long[] dense, int[] partitions) {
    int parts = firsts.length - 1;
    for (int i = 0; i < n; i++) {
      partitions[i] = HashPartitioner.partitionOf(ids[i], longIds, parts);
    }
    for (int i = 0; i < n; i++) {
      int p = partitions[i];
      int r = table(p).rank(ids[i]);
      dense[i] = r < 0 ? -1 : firsts[p] + r;
    }
  }

  /**
   * The dense ids of {@code ids[0 .. n)}, all known to hash to {@code partition}, into {@code
   * dense}, -1 for an id the partition does not hold.
   */
  void denseIn(int partition, long[] ids, int n, long[] dense) {
    IdRankTable t = table(partition);
    long first = firsts[partition];
    for (int i = 0; i < n; i++) {
      int r = t.rank(ids[i]);
      dense[i] = r < 0 ? -1 : first + r;
    }
  }

  private IdRankTable table(int partition) {
    if (tables == null) {
      tables = new IdRankTable[firsts.length - 1];
    }
    IdRankTable t = tables[partition];
    if (t == null) {
      t = shared(Paths.get(staging).resolve(tableFile(partition)));
      tables[partition] = t;
    }
    return t;
  }

  /** Mapped tables by path, with the file's identity when mapped; the newest runs' only. */
  private static final Map<String, Mapped> MAPPED =
      new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Mapped> e) {
          return size() > MAX_MAPPED;
        }
      };

  /** Tables kept mapped per JVM: those of a few runs of 1000+ partitions. */
  private static final int MAX_MAPPED = 4096;

  private record Mapped(String identity, IdRankTable table) {}

  /**
   * The JVM's mapping of the table at {@code path}, mapped anew when the file there is not the one
   * mapped (a rerun writing the same staging path).
   */
  private static synchronized IdRankTable shared(Path path) {
    String identity;
    try {
      BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class);
      identity = a.fileKey() + "@" + a.lastModifiedTime().toMillis() + "/" + a.size();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the id rank table " + path, e);
    }
    String name = path.toString();
    Mapped m = MAPPED.get(name);
    if (m == null || !identity.equals(m.identity)) {
      m = new Mapped(identity, IdRankTable.open(path));
      MAPPED.put(name, m);
    }
    return m.table;
  }
}
