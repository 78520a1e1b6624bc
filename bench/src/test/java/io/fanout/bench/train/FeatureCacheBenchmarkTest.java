package io.fanout.bench.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.fanout.graph.GraphStore;
import io.fanout.graph.NeighborSkew;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The benchmark's encoded store, written row by row from the generator without a float copy. */
class FeatureCacheBenchmarkTest {
  @TempDir Path tmp;

  @Test
  void encodedStoreHoldsTheGeneratedRowsEncoded() throws Exception {
    int n = 3000;
    int dim = 12;
    BenchGraph held = BenchGraph.generate(n, 30_000, dim, true);
    BenchGraph lazy = BenchGraph.generate(n, 30_000, dim, false);
    assertThat(lazy.features()).isNull();
    for (int v = 0; v < n; v += 7) {
      for (int c = 0; c < dim; c++) {
        assertThat(BenchGraph.feature(v, c, dim)).isEqualTo(held.features()[v * dim + c]);
      }
    }
    Path f32 = tmp.resolve("f32");
    VerificationBenchmark.writeStore(
        f32, held.csr(), held.features(), dim, held.vertices(), held.classes());
    for (int enc : new int[] {StoreLayout.ENCODING_INT8, StoreLayout.ENCODING_INT4}) {
      Path dir = tmp.resolve("enc" + enc);
      FeatureCacheBenchmark.writeEncodedStore(dir, lazy, lazy.encodedParams(enc));
      try (GraphStore g = GraphStore.open(dir);
          GraphStore ref = GraphStore.open(f32)) {
        assertThat(g.manifest().featureEncoding).isEqualTo(StoreLayout.encodingName(enc));
        assertThat(g.manifest().featureDim).isEqualTo(dim);
        assertThat(g.manifest().vertices).isEqualTo(n);
        assertThat(g.manifest().edges).isEqualTo(held.csr().numEdges());
        // the graph files are the f32 store's, byte for byte; only the features differ
        assertThat(
                Files.mismatch(
                    g.dataRoot().resolve(StoreLayout.csrFile(0)),
                    ref.dataRoot().resolve(StoreLayout.csrFile(0))))
            .isEqualTo(-1L);
        assertThat(
                Files.mismatch(
                    g.dataRoot().resolve(StoreLayout.nodesFile(0)),
                    ref.dataRoot().resolve(StoreLayout.nodesFile(0))))
            .isEqualTo(-1L);
        float[] scale = g.featureParams().scale();
        float[] offset = g.featureParams().offset();
        int levels = enc == StoreLayout.ENCODING_INT8 ? 255 : 15;
        float[] min = new float[dim];
        float[] max = new float[dim];
        java.util.Arrays.fill(min, Float.MAX_VALUE);
        java.util.Arrays.fill(max, -Float.MAX_VALUE);
        for (int i = 0; i < n * dim; i++) {
          min[i % dim] = Math.min(min[i % dim], held.features()[i]);
          max[i % dim] = Math.max(max[i % dim], held.features()[i]);
        }
        for (int c = 0; c < dim; c++) {
          assertThat(offset[c]).isEqualTo(min[c]);
          assertThat(scale[c]).isEqualTo((float) (((double) max[c] - min[c]) / levels));
        }
        int[] all = new int[n];
        for (int v = 0; v < n; v++) {
          all[v] = v;
        }
        float[] got = new float[n * dim];
        g.features().gather(all, 0, n, got, 0);
        double worst = 0;
        for (int i = 0; i < n * dim; i++) {
          double err = Math.abs(got[i] - held.features()[i]);
          assertThat(err).isLessThanOrEqualTo(scale[i % dim] / 2 + 1e-6);
          worst = Math.max(worst, err / scale[i % dim]);
        }
        assertThat(worst).as("the bound is not vacuous").isGreaterThan(0.4);
      }
    }
  }

  @Test
  void cacheSizesAreNamedByTheirPercentage() {
    assertThat(FeatureCacheBenchmark.pct(0.05)).isEqualTo("5pct");
    assertThat(FeatureCacheBenchmark.pct(0.2)).isEqualTo("20pct");
    assertThat(FeatureCacheBenchmark.pct(0.01)).isEqualTo("1pct");
    assertThat(FeatureCacheBenchmark.pct(0.005)).isEqualTo("0.5pct");
  }

  @Test
  void badSettingsAreRejected() {
    assertThatThrownBy(() -> settings("f64", List.of("none"), 0.05))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--encoding");
    assertThatThrownBy(() -> settings("int8", List.of("none", "fifo"), 0.05))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("fifo");
    assertThatThrownBy(() -> settings("int8", List.of("belady"), 1.5))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--cache-fractions");
    for (double skew : new double[] {0.5, 65, Double.NaN}) {
      assertThatThrownBy(() -> settings(skew))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("--skew must be in [1, 64]");
    }
  }

  @Test
  void theSkewSetsHowManyNeighborEntriesTheMostNamedVerticesHold() {
    int n = 20_000;
    BenchGraph plain = BenchGraph.generate(n, 200_000, 2, false);
    BenchGraph two = BenchGraph.generate(n, 200_000, 2, false, 2);
    for (long p = 0; p < plain.csr().numEdges(); p++) {
      assertThat(two.csr().neighbor(p)).isEqualTo(plain.csr().neighbor(p));
    }
    // 50 neighbor entries a vertex, so that the counts' own noise adds little to the share
    for (double skew : new double[] {1, 2, 4}) {
      BenchGraph g = BenchGraph.generate(n, 1_000_000, 2, false, skew);
      assertThat(NeighborSkew.hotShare(g.csr(), 0.05))
          .as("skew %s", skew)
          .isCloseTo(Math.pow(0.05, 1 / skew), within(0.02));
    }
    assertThat(settings(4).inputs(null)).containsEntry("skew", "4.0");
    assertThat(settings(2).inputs(null)).doesNotContainKey("skew");
  }

  private static FeatureCacheBenchmark.Settings settings(
      String encoding, List<String> runs, double fraction) {
    return settings(encoding, runs, fraction, 2);
  }

  private static FeatureCacheBenchmark.Settings settings(double skew) {
    return settings("f32", List.of("none"), 0.05, skew);
  }

  private static FeatureCacheBenchmark.Settings settings(
      String encoding, List<String> runs, double fraction, double skew) {
    return new FeatureCacheBenchmark.Settings(
        100,
        1000,
        skew,
        4,
        4,
        new int[] {2},
        8,
        2,
        1,
        1,
        1,
        new double[] {fraction},
        32,
        encoding,
        false,
        runs,
        false,
        null,
        false,
        false);
  }
}
