package io.fanout.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.store.Checksums;
import io.fanout.store.InvalidInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShardFileRoundTripTest {
  @TempDir Path dir;

  private static byte[] bytes(SplittableRandom r, int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) r.nextInt(256);
    }
    return b;
  }

  private static List<EncodedBatch> batches(int count, boolean features) {
    SplittableRandom r = new SplittableRandom(7);
    List<EncodedBatch> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add(
          new EncodedBatch(
              3,
              i,
              r.nextInt(100),
              bytes(r, 16),
              bytes(r, r.nextInt(4000)),
              bytes(r, 40),
              bytes(r, r.nextInt(9000)),
              bytes(r, 12),
              features ? bytes(r, 500) : null));
    }
    return out;
  }

  private void write(Path file, List<EncodedBatch> rows, CompressionCodecName codec) {
    try (ShardFileWriter w =
        new ShardFileWriter(file, codec, Map.of("fanout.shard.version", "1"))) {
      for (EncodedBatch b : rows) {
        w.write(b);
      }
    }
  }

  @Test
  void rowsComeBackInOrderWithEveryColumn() {
    for (boolean features : new boolean[] {false, true}) {
      for (CompressionCodecName codec :
          new CompressionCodecName[] {
            CompressionCodecName.UNCOMPRESSED, CompressionCodecName.ZSTD
          }) {
        List<EncodedBatch> rows = batches(25, features);
        Path file = dir.resolve("s-" + features + "-" + codec + ".parquet");
        write(file, rows, codec);
        List<EncodedBatch> back = new ArrayList<>();
        try (ShardFileReader r = new ShardFileReader(file)) {
          assertThat(r.rowCount()).isEqualTo(25);
          r.forEachRemaining(back::add);
        }
        assertThat(back).hasSize(rows.size());
        for (int i = 0; i < rows.size(); i++) {
          EncodedBatch a = rows.get(i);
          EncodedBatch b = back.get(i);
          assertThat(b.epoch()).isEqualTo(a.epoch());
          assertThat(b.batch()).isEqualTo(a.batch());
          assertThat(b.numSeeds()).isEqualTo(a.numSeeds());
          assertThat(b.layerSizes()).isEqualTo(a.layerSizes());
          assertThat(b.nodes()).isEqualTo(a.nodes());
          assertThat(b.indptr()).isEqualTo(a.indptr());
          assertThat(b.indices()).isEqualTo(a.indices());
          assertThat(b.labels()).isEqualTo(a.labels());
          assertThat(b.features()).isEqualTo(a.features());
        }
      }
    }
  }

  @Test
  void sameRowsGiveByteIdenticalFiles() throws Exception {
    List<EncodedBatch> rows = batches(10, true);
    write(dir.resolve("a.parquet"), rows, CompressionCodecName.UNCOMPRESSED);
    write(dir.resolve("b.parquet"), rows, CompressionCodecName.UNCOMPRESSED);
    assertThat(Files.readAllBytes(dir.resolve("a.parquet")))
        .isEqualTo(Files.readAllBytes(dir.resolve("b.parquet")));
  }

  @Test
  void emptyShardHasNoRows() {
    Path file = dir.resolve("empty.parquet");
    write(file, List.of(), CompressionCodecName.UNCOMPRESSED);
    try (ShardFileReader r = new ShardFileReader(file)) {
      assertThat(r.hasNext()).isFalse();
    }
  }

  @Test
  void notParquetIsAClearError() throws Exception {
    Path file = dir.resolve("junk.parquet");
    Files.write(file, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
    assertThatThrownBy(() -> new ShardFileReader(file))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(file.toString());
  }

  private static ShardManifest.Part entry(Path file) throws Exception {
    ShardManifest.Part p = new ShardManifest.Part();
    p.path = "epoch-0000/" + file.getFileName();
    p.bytes = Files.size(file);
    p.crc32c = Checksums.crc32c(file);
    return p;
  }

  private static List<EncodedBatch> readAll(ShardFileReader r) {
    List<EncodedBatch> out = new ArrayList<>();
    try (r) {
      r.forEachRemaining(out::add);
    }
    return out;
  }

  private static void assertSameRows(List<EncodedBatch> back, List<EncodedBatch> rows) {
    assertThat(back).hasSize(rows.size());
    for (int i = 0; i < rows.size(); i++) {
      assertThat(back.get(i).nodes()).isEqualTo(rows.get(i).nodes());
      assertThat(back.get(i).indices()).isEqualTo(rows.get(i).indices());
      assertThat(back.get(i).features()).isEqualTo(rows.get(i).features());
    }
  }

  @Test
  void aVerifiedPartReadsTheSameRowsFromItsMapping() throws Exception {
    List<EncodedBatch> rows = batches(25, true);
    Path file = dir.resolve("v.parquet");
    write(file, rows, CompressionCodecName.ZSTD);
    assertSameRows(readAll(ShardFileReader.verified(file, entry(file), "m.json")), rows);
    // Chunks of 16 bytes: every read of Parquet's crosses chunk boundaries.
    assertSameRows(readAll(new ShardFileReader(file, new MappedInputFile(file, 4))), rows);
    assertThat(Checksums.hex(new MappedInputFile(file, 4).crc32c()))
        .isEqualTo(Checksums.crc32c(file));
  }

  @Test
  void aFlippedByteAnywhereIsRefusedBeforeAnyRowIsRead() throws Exception {
    Path file = dir.resolve("c.parquet");
    write(file, batches(5, false), CompressionCodecName.UNCOMPRESSED);
    ShardManifest.Part good = entry(file);
    byte[] orig = Files.readAllBytes(file);
    // In the leading magic, in a page, in the footer.
    for (int at : new int[] {1, orig.length / 2, orig.length - 12}) {
      byte[] bad = orig.clone();
      bad[at] ^= 0x04;
      Files.write(file, bad);
      String actual = Checksums.crc32c(file);
      assertThatThrownBy(() -> ShardFileReader.verified(file, good, "SHARDS/manifest.json"))
          .isInstanceOf(InvalidInputException.class)
          .hasMessage(
              file
                  + ": CRC32C "
                  + actual
                  + ", expected "
                  + good.crc32c
                  + " from SHARDS/manifest.json; the shard part is damaged: rerun sample with"
                  + " --overwrite");
    }
    Files.write(file, java.util.Arrays.copyOf(orig, orig.length - 1));
    assertThatThrownBy(() -> ShardFileReader.verified(file, good, "SHARDS/manifest.json"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("truncated")
        .hasMessageContaining("rerun sample with --overwrite");
    Files.write(file, orig);
    good.crc32c = null;
    assertThatThrownBy(() -> ShardFileReader.verified(file, good, "SHARDS/manifest.json"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("without a crc32c");
  }
}
