package io.fanout.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IdRankTableTest {
  @TempDir Path tmp;

  /** Writes {@code ids} in order, so id {@code ids[i]} has rank {@code i}. */
  Path write(String name, long[] ids) {
    Path f = tmp.resolve(name);
    IdRankTableWriter w = new IdRankTableWriter(f, ids.length);
    for (long id : ids) {
      w.add(id);
    }
    w.finish();
    return f;
  }

  /** Every id finds its rank, and ids not in the table find -1, against a hash map. */
  void check(String name, long[] ids, long[] absent) {
    IdRankTable t = IdRankTable.open(write(name, ids));
    assertThat(t.size()).isEqualTo(ids.length);
    for (int i = 0; i < ids.length; i++) {
      assertThat(t.rank(ids[i])).as("id %d", ids[i]).isEqualTo(i);
    }
    for (long a : absent) {
      assertThat(t.rank(a)).as("absent id %d", a).isEqualTo(-1);
    }
  }

  @Test
  void emptyAndSingleTables() {
    check("empty", new long[0], new long[] {0, 1, -1, Long.MIN_VALUE});
    check("one", new long[] {42}, new long[] {0, 41, 43, Long.MAX_VALUE});
    check("extremes", new long[] {Long.MIN_VALUE, Long.MAX_VALUE, 0, -1}, new long[] {1, -2});
  }

  @Test
  void randomIdsAgainstAHashMap() {
    SplittableRandom r = new SplittableRandom(7);
    for (int n : new int[] {2, 3, 100, 4096, 200_000}) {
      Map<Long, Integer> seen = new HashMap<>();
      long[] ids = new long[n];
      for (int i = 0; i < n; ) {
        // a narrow range for small n forces neighbors, a wide one random bits
        long id = n < 5000 ? r.nextLong(-3L * n, 3L * n) : r.nextLong();
        if (seen.putIfAbsent(id, i) == null) {
          ids[i++] = id;
        }
      }
      long[] absent = new long[1000];
      for (int i = 0; i < absent.length; ) {
        long a = n < 5000 ? r.nextLong(-3L * n, 3L * n) : r.nextLong();
        if (!seen.containsKey(a)) {
          absent[i++] = a;
        }
      }
      check("random-" + n, ids, absent);
    }
  }

  @Test
  void idsSharingAHomeSlotProbeOnward() {
    // eight ids with home slot 14 of a 16-slot table wrap around its end; a ninth is absent
    long mask = IdRankTable.capacity(8) - 1;
    assertThat(mask).isEqualTo(15);
    long[] ids = new long[9];
    int found = 0;
    for (long id = 0; found < ids.length; id++) {
      if (IdRankTable.slot(id, mask) == 14) {
        ids[found++] = id;
      }
    }
    check("colliding", java.util.Arrays.copyOf(ids, 8), new long[] {ids[8]});
  }

  @Test
  void theLoadStaysAtMostThreeQuartersAndTheSizeIsPlanned() {
    for (long n : new long[] {0, 1, 2, 3, 4, 5, 6, 7, 1000, 1 << 20, IdRankTable.MAX_IDS}) {
      long slots = IdRankTable.capacity(n);
      assertThat(Long.bitCount(slots)).isEqualTo(1);
      assertThat(slots).isGreaterThanOrEqualTo(4);
      assertThat(slots).isGreaterThan(n);
      assertThat(4 * n).isLessThanOrEqualTo(3 * slots);
      assertThat(IdRankTable.fileBytes(n)).isEqualTo(64 + 16 * slots);
    }
    assertThat(IdRankTable.fileBytes(IdRankTable.MAX_IDS)).isEqualTo(64 + (1L << 30));
    assertThat(Files.exists(write("sized", new long[] {5, 6, 7}))).isTrue();
    assertThat(tmp.resolve("sized").toFile().length()).isEqualTo(IdRankTable.fileBytes(3));
  }

  @Test
  void theWriterCountsItsIds() {
    IdRankTableWriter w = new IdRankTableWriter(tmp.resolve("short"), 2);
    w.add(1);
    assertThatThrownBy(w::finish).hasMessageContaining("1 ids added, 2 announced");
    w.add(2);
    assertThatThrownBy(() -> w.add(3)).hasMessageContaining("more than the 2 ids announced");
    assertThatThrownBy(() -> new IdRankTableWriter(tmp.resolve("big"), IdRankTable.MAX_IDS + 1))
        .hasMessageContaining("an id rank table holds 0 .. " + IdRankTable.MAX_IDS);
  }

  @Test
  void filesThatAreNotTablesAreRejectedNamingThem() throws IOException {
    Path f = write("table", new long[] {1, 2, 3});
    byte[] bytes = Files.readAllBytes(f);

    Path cut = tmp.resolve("cut");
    Files.write(cut, java.util.Arrays.copyOf(bytes, bytes.length - 16));
    assertThatThrownBy(() -> IdRankTable.open(cut))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(cut.toString())
        .hasMessageContaining("expected an id rank table");

    Path magic = tmp.resolve("magic");
    byte[] m = bytes.clone();
    m[0] ^= 1;
    Files.write(magic, m);
    assertThatThrownBy(() -> IdRankTable.open(magic))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("bad magic");

    Path full = tmp.resolve("full");
    byte[] c = bytes.clone();
    ByteBuffer.wrap(c).order(ByteOrder.LITTLE_ENDIAN).putLong(8, 1000);
    Files.write(full, c);
    assertThatThrownBy(() -> IdRankTable.open(full))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("holds 1000 ids in 8 slots");
  }
}
