package io.fanout.bench.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.features.FeatureFiles;
import io.fanout.features.RowLayout;
import io.fanout.graph.RowDecoder;
import io.fanout.store.FeatureEncoder;
import io.fanout.store.FeatureParams;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.CpuBackend;
import io.fanout.train.FeatureAccessMode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rows past one Java array: the benchmark writes them, encoded, to a file row by row (checked here
 * on small files, several threads, rows at their ids and moved), and a run of more values than one
 * array holds is refused before anything is generated unless it reads them from device memory.
 */
class RowsPastOneArrayTest {
  @TempDir Path tmp;

  @Test
  void theFileHoldsTheGeneratedRowsEncoded() {
    int n = 3001;
    int dim = 7;
    int[] position = new int[n];
    for (int i = 0; i < n; i++) {
      position[i] = i;
    }
    SplittableRandom rnd = new SplittableRandom(9);
    for (int i = n - 1; i > 0; i--) {
      int j = rnd.nextInt(i + 1);
      int t = position[i];
      position[i] = position[j];
      position[j] = t;
    }
    int file = 0;
    for (int enc : new int[] {StoreLayout.ENCODING_F32, StoreLayout.ENCODING_F16}) {
      FeatureParams params = FeatureParams.plain(enc, dim);
      FeatureEncoder encoder = new FeatureEncoder(params);
      RowDecoder decoder = RowDecoder.of(params);
      for (RowLayout layout : new RowLayout[] {RowLayout.IDENTITY, RowLayout.of(position)}) {
        Path p = tmp.resolve("rows-" + file++ + ".feat");
        LayoutFeatureFile.write(p, n, params, layout, 3);
        int[] ids = {0, n - 1, 1234, 5, n - 2};
        float[] got = new float[ids.length * dim];
        int[] at = new int[ids.length];
        for (int i = 0; i < ids.length; i++) {
          at[i] = i * dim;
        }
        try (FeatureFiles f =
            FeatureFiles.of(
                new Path[] {p},
                new long[] {0, n},
                params,
                1,
                false,
                io.fanout.features.ReadCoalescing.BUFFERED,
                layout)) {
          f.read(ids, at, ids.length, got);
        }
        for (int i = 0; i < ids.length; i++) {
          float[] row = new float[dim];
          for (int c = 0; c < dim; c++) {
            row[c] = BenchGraph.feature(ids[i], c, dim);
          }
          byte[] bytes = new byte[params.rowBytes()];
          encoder.encode(row, 0, bytes);
          float[] want = new float[dim];
          decoder.decode(ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN), 0, want, 0);
          float[] one = new float[dim];
          System.arraycopy(got, i * dim, one, 0, dim);
          assertThat(one).as("enc %d, row %d", enc, ids[i]).isEqualTo(want);
        }
      }
    }
  }

  @Test
  void moreValuesThanOneArrayAreRefusedUnlessReadFromDeviceMemory() {
    // 17 M x 128 = 2.18 G values: refused before the graph is generated
    assertThat(BenchGraph.rowsFitOneArray(17_000_000, 128)).isFalse();
    assertThat(BenchGraph.rowsFitOneArray(16_000_000, 128)).isTrue();
    assertThat(BenchGraph.rowsFitOneArray(111_059_956, 128)).isFalse();
    for (FeatureAccessMode m :
        new FeatureAccessMode[] {FeatureAccessMode.GATHER, FeatureAccessMode.DEVICE}) {
      TrainBenchmark.Settings s =
          new TrainBenchmark.Settings(
              17_000_000, 100, 128, 8, new int[] {2}, 16, 1, 0, 1, 1, 8, 0, m, 0, 4);
      assertThatThrownBy(() -> TrainBenchmark.run(s, new CpuBackend()))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("--backend cuda");
    }
  }
}
