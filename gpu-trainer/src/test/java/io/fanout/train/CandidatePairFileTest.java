package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Candidate pairs pass through the driver in chunks: spilled and read back in order, and scored
 * into the same file, under the same request, whatever the chunk size.
 */
class CandidatePairFileTest {
  @TempDir Path tmp;

  /** {@code n} pairs of long ids: dense ids {@code (i, n - 1 - i)}, ids {@code (1000 + i, -5i)}. */
  private static CandidatePairFile numbers(int n, int chunk) {
    try (CandidatePairFile.Writer w = CandidatePairFile.create("long", chunk)) {
      for (int i = 0; i < n; i++) {
        w.add(i, n - 1 - i, 1000L + i, -5L * i);
      }
      return w.finish();
    }
  }

  /** Pair {@code i}'s original ids as written to the scores file, "src dst". */
  private static String ids(CandidatePairs p, int i) {
    Group g = new SimpleGroupFactory(p.declare(Types.buildMessage()).named("t")).newGroup();
    p.fill(g, i);
    return g.getValueToString(0, 0) + " " + g.getValueToString(1, 0);
  }

  /** Every pair of {@code f}, "first+i: dense ids / original ids", checking the chunk bound. */
  private static List<String> pairs(CandidatePairChunks f, int chunk) {
    List<String> out = new ArrayList<>();
    f.forEach(
        (first, p) -> {
          assertThat(first).isEqualTo(out.size());
          assertThat(p.size()).isLessThanOrEqualTo(chunk);
          for (int i = 0; i < p.size(); i++) {
            out.add((first + i) + ": " + p.src()[i] + " " + p.dst()[i] + " / " + ids(p, i));
          }
        });
    return out;
  }

  @Test
  void chunksComeBackInOrderOnEveryPass() {
    try (CandidatePairFile f = numbers(10, 3)) {
      assertThat(f.size()).isEqualTo(10);
      List<Long> firsts = new ArrayList<>();
      f.forEach((first, p) -> firsts.add(first));
      assertThat(firsts).containsExactly(0L, 3L, 6L, 9L);
      List<String> once = pairs(f, 3);
      assertThat(once).hasSize(10).startsWith("0: 0 9 / 1000 0").endsWith("9: 9 0 / 1009 -45");
      assertThat(pairs(f, 3)).isEqualTo(once);
    }
  }

  @Test
  void stringIdsRoundTripAndAnEmptyInputIsOneEmptyChunk() {
    Path file;
    try (CandidatePairFile.Writer w = CandidatePairFile.create("string", 2)) {
      w.add(1, 2, "ä-1", "");
      w.add(3, 0, "x", "y,z");
      w.add(4, 4, "", "long id");
      try (CandidatePairFile f = w.finish()) {
        file = f.file();
        assertThat(pairs(f, 2))
            .containsExactly("0: 1 2 / ä-1 ", "1: 3 0 / x y,z", "2: 4 4 /  long id");
      }
    }
    assertThat(file).doesNotExist();
    List<Integer> sizes = new ArrayList<>();
    try (CandidatePairFile f = numbers(0, 3)) {
      f.forEach((first, p) -> sizes.add(p.size()));
    }
    assertThat(sizes).containsExactly(0);
  }

  @Test
  void anUnfinishedSpillIsDeleted() {
    Path file;
    try (CandidatePairFile.Writer w = CandidatePairFile.create("int", 4)) {
      w.add(0, 1, 7, 8);
      try (CandidatePairFile f = w.finish()) {
        file = f.file();
      }
    }
    assertThat(file).doesNotExist();
  }

  @Test
  void aTableOfManyChunksGivesTheScoresFileAndRequestOfOneChunk() throws Exception {
    int n = 23;
    PairScoring.Scorer scorer =
        p -> {
          float[] s = new float[p.size()];
          for (int i = 0; i < s.length; i++) {
            s[i] = p.src()[i] * 0.5f - p.dst()[i] / 3f;
          }
          return s;
        };
    Path whole = tmp.resolve("whole");
    Path chunked = tmp.resolve("chunked");
    String wholeDigest;
    String chunkedDigest;
    try (CandidatePairFile one = numbers(n, CandidatePairFile.CHUNK);
        CandidatePairFile many = numbers(n, 4)) {
      assertThat(PairScoreWriter.write(one, scorer, whole, "r")).isEqualTo(n);
      assertThat(PairScoreWriter.write(many, scorer, chunked, "r")).isEqualTo(n);
      wholeDigest = digest(one);
      chunkedDigest = digest(many);
    }
    // the fingerprint of the pairs is the SHA-256 of all their dense ids, however they come
    java.nio.ByteBuffer all = java.nio.ByteBuffer.allocate(8 * n);
    for (int i = 0; i < n; i++) {
      all.putInt(i).putInt(n - 1 - i);
    }
    assertThat(wholeDigest).isEqualTo(io.fanout.store.Checksums.sha256(all.array()));
    assertThat(chunkedDigest).isEqualTo(wholeDigest);
    for (String f : new String[] {PairScoreWriter.FILE, IdKeyedParquet.SUCCESS}) {
      assertThat(Files.readAllBytes(chunked.resolve(f)))
          .as(f)
          .isEqualTo(Files.readAllBytes(whole.resolve(f)));
    }
  }

  private static String digest(CandidatePairChunks f) throws Exception {
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    f.forEach((first, p) -> p.digest(sha));
    return HexFormat.of().formatHex(sha.digest());
  }
}
