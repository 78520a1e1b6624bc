package io.fanout.tensor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Transposes built ahead on the helper thread are the ones built in place, bit for bit; writing an
 * array drops the builds that read it; recycled buffers carry nothing over.
 */
class TransposeAheadTest {
  /** A random CSR of {@code rows} rows over {@code srcRows} sources: {@code [indptr, indices]}. */
  private static int[][] csr(Random r, int rows, int srcRows, int maxDegree) {
    int[] indptr = new int[rows + 1];
    int[] indices = new int[Math.max(1, rows * maxDegree)];
    for (int i = 0; i < rows; i++) {
      int deg = r.nextInt(maxDegree + 1);
      for (int d = 0; d < deg; d++) {
        indices[indptr[i] + d] = r.nextInt(srcRows);
      }
      indptr[i + 1] = indptr[i] + deg;
    }
    return new int[][] {indptr, indices};
  }

  private static TransposeAhead.Key key(int[] indptr, int[] indices, int rows, int minSrcRows) {
    return new TransposeAhead.Key(indptr, 0, indices, 0, rows, minSrcRows);
  }

  private static int[] used(TransposedCsr t) {
    return Arrays.copyOf(t.packed(), t.packedLength());
  }

  private static int[] reference(int[][] g, int rows, int minSrc) {
    return used(TransposedCsr.build(g[0], 0, g[1], 0, rows, minSrc));
  }

  @Test
  void preparedTransposesAreTheInPlaceOnesInAnyOrder() {
    Random r = new Random(11);
    try (TransposeAhead ahead = new TransposeAhead("test-transpose")) {
      for (int round = 0; round < 5; round++) {
        int[][] a = csr(r, 300, 900, 6);
        int[][] b = csr(r, 40, 300, 12);
        int[][] empty = csr(r, 0, 1, 1);
        ahead.prepare(key(a[0], a[1], 300, 0));
        ahead.prepare(key(b[0], b[1], 40, 40));
        ahead.prepare(key(empty[0], empty[1], 0, 0));
        ahead.prepare(key(a[0], a[1], 300, 0)); // the same key again: one build
        assertThat(ahead.pending()).isEqualTo(3);
        TransposedCsr tb = ahead.take(key(b[0], b[1], 40, 40));
        assertThat(used(tb)).isEqualTo(reference(b, 40, 40));
        TransposedCsr ta = ahead.take(key(a[0], a[1], 300, 0));
        assertThat(used(ta)).isEqualTo(reference(a, 300, 0));
        TransposedCsr te = ahead.take(key(empty[0], empty[1], 0, 0));
        assertThat(te.srcRows()).isZero();
        assertThat(te.packedLength()).isEqualTo(1);
        assertThat(ahead.pending()).isZero();
        // recycled into the next round's builds, which must not see these contents
        ahead.release(ta);
        ahead.release(tb);
        ahead.release(te);
      }
    }
  }

  @Test
  void otherArgumentsBuildInPlaceAndLeaveThePreparedOne() {
    Random r = new Random(12);
    int[][] a = csr(r, 100, 200, 5);
    try (TransposeAhead ahead = new TransposeAhead("test-transpose")) {
      ahead.prepare(key(a[0], a[1], 100, 0));
      // a prefix of the rows and a larger minimum are other transposes
      assertThat(used(ahead.take(key(a[0], a[1], 60, 0)))).isEqualTo(reference(a, 60, 0));
      assertThat(used(ahead.take(key(a[0], a[1], 100, 250)))).isEqualTo(reference(a, 100, 250));
      assertThat(ahead.pending()).isEqualTo(1);
      assertThat(used(ahead.take(key(a[0], a[1], 100, 0)))).isEqualTo(reference(a, 100, 0));
    }
  }

  @Test
  void writingAnArrayDropsTheBuildsThatReadIt() {
    Random r = new Random(13);
    int[][] a = csr(r, 2000, 5000, 8);
    int[][] b = csr(r, 50, 80, 4);
    try (TransposeAhead ahead = new TransposeAhead("test-transpose")) {
      for (int round = 0; round < 20; round++) {
        ahead.prepare(key(a[0], a[1], 2000, 0));
        ahead.prepare(key(b[0], b[1], 50, 0));
        // an upload into a's indices: the build reading them is waited for and dropped first
        ahead.invalidate(a[1]);
        assertThat(ahead.pending()).isEqualTo(1);
        int[][] next = csr(r, 2000, 5000, 8);
        System.arraycopy(next[1], 0, a[1], 0, a[1].length);
        System.arraycopy(next[0], 0, a[0], 0, a[0].length);
        assertThat(used(ahead.take(key(a[0], a[1], 2000, 0)))).isEqualTo(reference(a, 2000, 0));
        assertThat(used(ahead.take(key(b[0], b[1], 50, 0)))).isEqualTo(reference(b, 50, 0));
        ahead.invalidate(b[0]); // nothing pending reads it: a no-op
      }
    }
  }

  @Test
  void aFailedBuildFailsItsTakeAndNotAnInvalidate() {
    int[] indptr = {0, 2};
    int[] indices = {1, -3};
    try (TransposeAhead ahead = new TransposeAhead("test-transpose")) {
      ahead.prepare(key(indptr, indices, 1, 0));
      assertThatThrownBy(() -> ahead.take(key(indptr, indices, 1, 0)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("negative CSR index -3 at edge 1");
      ahead.prepare(key(indptr, indices, 1, 0));
      ahead.invalidate(indices);
      assertThat(ahead.pending()).isZero();
    }
  }

  @Test
  void closeWaitsForThePendingBuildsAndRefusesNewOnes() throws Exception {
    Random r = new Random(14);
    int[][] a = csr(r, 5000, 20000, 10);
    TransposeAhead ahead = new TransposeAhead("test-transpose-close");
    ahead.prepare(key(a[0], a[1], 5000, 0));
    Thread helper =
        Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.getName().equals("test-transpose-close"))
            .findFirst()
            .orElseThrow();
    assertThat(helper.isDaemon()).isTrue();
    ahead.close();
    assertThat(ahead.pending()).isZero();
    helper.join(10_000);
    assertThat(helper.isAlive()).isFalse();
    assertThatThrownBy(() -> ahead.prepare(key(a[0], a[1], 5000, 0)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("transpose helper is closed");
  }

  @Test
  void aDirtyScratchBuildsTheFreshTranspose() {
    Random r = new Random(15);
    int[] scratch = new int[100_000];
    Arrays.fill(scratch, 7);
    for (int k = 0; k < 10; k++) {
      int rows = 1 + r.nextInt(500);
      int[][] g = csr(r, rows, 1 + r.nextInt(2000), 1 + r.nextInt(10));
      int min = r.nextBoolean() ? rows : 0;
      TransposedCsr t = TransposedCsr.build(g[0], 0, g[1], 0, rows, min, scratch);
      assertThat(t.packed()).isSameAs(scratch);
      assertThat(used(t)).isEqualTo(reference(g, rows, min));
    }
    int[] small = new int[3];
    int[][] g = csr(r, 50, 60, 3);
    assertThat(TransposedCsr.build(g[0], 0, g[1], 0, 50, 0, small).packed()).isNotSameAs(small);
  }
}
