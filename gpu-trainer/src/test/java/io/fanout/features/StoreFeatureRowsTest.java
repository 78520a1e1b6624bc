package io.fanout.features;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.GraphStore;
import io.fanout.graph.RowDecoder;
import io.fanout.graph.StoreFixtures;
import io.fanout.store.FeatureParams;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.tensor.CpuBackend;
import io.fanout.tensor.FeatureRows;
import io.fanout.tensor.HostRowDecoder;
import io.fanout.tensor.RowEncoding;
import io.fanout.tensor.RowFiles;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store-free descriptions the tensor backends read, built from a graph store. */
class StoreFeatureRowsTest {
  @TempDir Path tmp;

  private static FeatureParams[] everyEncoding(int dim) {
    float[] min = new float[dim];
    float[] max = new float[dim];
    float[][] books = new float[(dim + 2) / 3][];
    for (int c = 0; c < dim; c++) {
      min[c] = -1 - c;
      max[c] = 1 + c;
    }
    for (int g = 0; g < books.length; g++) {
      books[g] = new float[4 * Math.min(3, dim - 3 * g)];
      for (int i = 0; i < books[g].length; i++) {
        books[g][i] = 0.25f * i - g;
      }
    }
    return new FeatureParams[] {
      FeatureParams.plain(StoreLayout.ENCODING_F32, dim),
      FeatureParams.plain(StoreLayout.ENCODING_F16, dim),
      FeatureParams.affine(StoreLayout.ENCODING_INT8, min, max),
      FeatureParams.affine(StoreLayout.ENCODING_INT4, min, max),
      FeatureParams.pq(dim, 3, 4, books)
    };
  }

  @Test
  void encodingCarriesWhatTheKernelsRead() {
    for (FeatureParams p : everyEncoding(7)) {
      RowEncoding e = StoreFeatureRows.encoding(p);
      assertThat(e.kind().label()).isEqualTo(StoreLayout.encodingName(p.encoding));
      assertThat(e.dim()).isEqualTo(p.dim);
      assertThat(e.rowBytes()).isEqualTo(p.rowBytes());
      assertThat(e.groupSize()).isEqualTo(p.groupSize);
      assertThat(e.centroids()).isEqualTo(p.centroids);
      assertThat(e.scale()).isSameAs(p.scale());
      assertThat(e.offset()).isSameAs(p.offset());
      assertThat(e.codebooks()).isSameAs(p.codebooks());
    }
    assertThat(StoreFeatureRows.encoding(FeatureParams.plain(StoreLayout.ENCODING_F32, 5)))
        .usingRecursiveComparison()
        .isEqualTo(RowEncoding.f32(5));
  }

  @Test
  void decoderIsTheStoresDecoder() {
    SplittableRandom r = new SplittableRandom(7);
    for (FeatureParams p : everyEncoding(7)) {
      int codes = p.encoding == StoreLayout.ENCODING_PQ ? p.centroids : 256;
      byte[] row = new byte[3 + p.rowBytes()];
      for (int i = 0; i < row.length; i++) {
        row[i] = (byte) r.nextInt(codes);
      }
      ByteBuffer b = ByteBuffer.wrap(row).order(ByteOrder.LITTLE_ENDIAN);
      float[] want = new float[p.dim + 1];
      float[] got = new float[p.dim + 1];
      RowDecoder.of(p).decode(b, 3, want, 1);
      HostRowDecoder d = StoreFeatureRows.decoder(p);
      d.decode(b, 3, got, 1);
      assertThat(got).as(StoreLayout.encodingName(p.encoding)).isEqualTo(want);
    }
  }

  @Test
  void filesAreThePartitionsFeatureFiles() {
    Path dir = tmp.resolve("store");
    StoreFixtures.write(dir, StoreFixtures.random(3, 50, 3, 4), new int[] {20, 10, 20});
    try (GraphStore g = GraphStore.open(dir)) {
      RowFiles f = StoreFeatureRows.files(g);
      StoreManifest m = g.manifest();
      assertThat(f.files()).hasSize(3);
      for (int p = 0; p < 3; p++) {
        StoreManifest.Partition e = m.partitionTable.get(p);
        assertThat(f.files()[p]).isEqualTo(g.dataRoot().resolve(StoreLayout.featuresFile(e.index)));
        assertThat(f.starts()[p]).isEqualTo(e.firstVertex);
        assertThat(f.starts()[p + 1]).isEqualTo(e.firstVertex + e.numVertices);
      }
      assertThat(f.numRows()).isEqualTo(50);
      assertThat(f.headerBytes()).isEqualTo(StoreLayout.HEADER_BYTES);
      assertThat(f.encoding().kind()).isEqualTo(RowEncoding.Kind.F32);
      assertThat(f.dim()).isEqualTo(4);
    }
  }

  @Test
  void mapReadsTheStoresRowsAndRefusesAStoreWithoutFeatures() {
    Path dir = tmp.resolve("bare");
    StoreFixtures.write(dir, StoreFixtures.random(3, 20, 3, 0), new int[] {20});
    CpuBackend be = new CpuBackend();
    try (GraphStore g = GraphStore.open(dir)) {
      assertThatThrownBy(() -> StoreFeatureRows.map(be, g))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("has no features (feature_dim 0)");
    }
    Path with = tmp.resolve("with");
    StoreFixtures.write(with, StoreFixtures.random(3, 20, 3, 4), new int[] {10, 10});
    try (GraphStore g = GraphStore.open(with);
        FeatureRows rows = StoreFeatureRows.map(be, g)) {
      assertThat(rows.dim()).isEqualTo(4);
      assertThat(rows.numRows()).isEqualTo(20);
    }
  }
}
