package io.fanout.spark.prepare;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.spark.partition.HashPartitioner;
import io.fanout.store.IdRankTableWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EndpointLookupTest {
  @TempDir Path tmp;

  /** Writes the tables of ids {@code from .. from + n) over {@code parts} hash partitions. */
  static long[] writeTables(Path staging, long from, int n, int parts) throws IOException {
    List<List<Long>> byPart = new ArrayList<>();
    for (int p = 0; p < parts; p++) {
      byPart.add(new ArrayList<>());
    }
    for (long id = from; id < from + n; id++) {
      byPart.get(HashPartitioner.partitionOf(id, true, parts)).add(id);
    }
    Files.createDirectories(staging.resolve(EndpointLookup.DIR));
    long[] firsts = new long[parts + 1];
    for (int p = 0; p < parts; p++) {
      List<Long> ids = byPart.get(p);
      IdRankTableWriter w =
          new IdRankTableWriter(staging.resolve(EndpointLookup.tableFile(p)), ids.size());
      for (long id : ids) {
        w.add(id);
      }
      w.finish();
      firsts[p + 1] = firsts[p] + ids.size();
    }
    return firsts;
  }

  /** The dense ids of {@code ids} through a fresh lookup (a task's). */
  static long[] dense(Path staging, long[] firsts, long... ids) {
    long[] out = new long[ids.length];
    new EndpointLookup(staging.toString(), firsts, true)
        .dense(ids, ids.length, out, new int[ids.length]);
    return out;
  }

  @Test
  void idsFindTheirPartitionsRanksAndMissingIdsMinusOne() throws IOException {
    long[] firsts = writeTables(tmp, 100, 50, 3);
    long[] ids = new long[52];
    for (int i = 0; i < 50; i++) {
      ids[i] = 100 + i;
    }
    ids[50] = 99;
    ids[51] = 150;
    long[] d = dense(tmp, firsts, ids);
    assertThat(java.util.Arrays.stream(d, 0, 50).sorted().toArray())
        .isEqualTo(java.util.stream.LongStream.range(0, 50).toArray());
    assertThat(d[50]).isEqualTo(-1);
    assertThat(d[51]).isEqualTo(-1);
    for (int i = 0; i < 50; i++) {
      int p = HashPartitioner.partitionOf(ids[i], true, 3);
      assertThat(d[i]).isBetween(firsts[p], firsts[p + 1] - 1);
    }
  }

  @Test
  void aRerunWritingTheSameStagingPathIsNotServedTheOldMapping() throws IOException {
    Path staging = tmp.resolve("run");
    long[] firsts = writeTables(staging, 0, 20, 2);
    assertThat(dense(staging, firsts, 5)[0]).isNotNegative();
    assertThat(dense(staging, firsts, 1005)[0]).isEqualTo(-1);
    io.fanout.store.FileTrees.deleteRecursively(staging);
    long[] again = writeTables(staging, 1000, 30, 2);
    assertThat(dense(staging, again, 5)[0]).isEqualTo(-1);
    assertThat(dense(staging, again, 1005)[0]).isNotNegative();
  }

  @Test
  void denseInAPartitionAgreesWithTheHashedLookupAndMissesOtherPartitionsIds() throws IOException {
    long[] firsts = writeTables(tmp, -40, 200, 4);
    long[] ids = java.util.stream.LongStream.range(-45, 165).toArray();
    long[] hashed = dense(tmp, firsts, ids);
    EndpointLookup lookup = new EndpointLookup(tmp.toString(), firsts, true);
    for (int p = 0; p < 4; p++) {
      long[] in = new long[ids.length];
      lookup.denseIn(p, ids, ids.length, in);
      for (int i = 0; i < ids.length; i++) {
        boolean here = HashPartitioner.partitionOf(ids[i], true, 4) == p;
        assertThat(in[i]).as("id %d in partition %d", ids[i], p).isEqualTo(here ? hashed[i] : -1);
      }
    }
  }
}
