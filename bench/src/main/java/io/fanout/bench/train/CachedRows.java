package io.fanout.bench.train;

import io.fanout.features.CachePolicy;
import io.fanout.features.FeatureFiles;
import io.fanout.features.RowCache;
import io.fanout.features.StoreFeatureRows;
import io.fanout.store.FeatureParams;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.Backend;
import io.fanout.tensor.PagedFeatureRows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The benchmark's features behind a {@code belady} {@link RowCache} whose pages the backend reads
 * in place: the generated rows are written once to a temporary feature file (a store's layout), and
 * closing deletes it after closing the cache and freeing the pages.
 */
final class CachedRows implements AutoCloseable {
  private final Path dir;
  private final PagedFeatureRows pages;
  private final RowCache cache;

  private CachedRows(Path dir, PagedFeatureRows pages, RowCache cache) {
    this.dir = dir;
    this.pages = pages;
    this.cache = cache;
  }

  /**
   * Writes {@code rows x dim} floats and opens a {@code belady} cache of {@code fraction} of their
   * bytes, read on {@code ioThreads} threads.
   */
  static CachedRows open(
      Backend be, float[] table, int rows, int dim, double fraction, int ioThreads) {
    return open(be, table, rows, dim, fraction, ioThreads, CachePolicy.BELADY);
  }

  /** As above, with the cache's {@code policy}. */
  static CachedRows open(
      Backend be,
      float[] table,
      int rows,
      int dim,
      double fraction,
      int ioThreads,
      CachePolicy policy) {
    Path dir;
    try {
      dir = Files.createTempDirectory("fanout-bench-cache");
      Path file = dir.resolve("features.bin");
      try (FileChannel ch =
          FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        ch.write(ByteBuffer.allocate(StoreLayout.HEADER_BYTES));
        ByteBuffer buf = ByteBuffer.allocateDirect(1 << 22).order(ByteOrder.LITTLE_ENDIAN);
        long total = (long) rows * dim;
        for (long at = 0; at < total; ) {
          int len = (int) Math.min(buf.capacity() / 4, total - at);
          buf.clear();
          buf.asFloatBuffer().put(table, (int) at, len);
          buf.limit(4 * len);
          while (buf.hasRemaining()) {
            ch.write(buf);
          }
          at += len;
        }
      }
      FeatureParams params = FeatureParams.plain(StoreLayout.ENCODING_F32, dim);
      PagedFeatureRows pages = StoreFeatureRows.pages(be, params);
      try {
        long bytes = (long) (fraction * rows * (double) params.rowBytes());
        RowCache cache =
            new RowCache(
                FeatureFiles.of(new Path[] {file}, new long[] {0, rows}, params, ioThreads),
                policy,
                Math.max(params.rowBytes(), bytes),
                pages);
        return new CachedRows(dir, pages, cache);
      } catch (RuntimeException e) {
        pages.close();
        throw e;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("writing the benchmark's feature file failed", e);
    }
  }

  PagedFeatureRows pages() {
    return pages;
  }

  RowCache cache() {
    return cache;
  }

  /** The cache's counters. */
  Map<String, Object> report(double fraction) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("feature_cache", cache.policy().id());
    out.put("feature_cache_fraction", fraction);
    out.put("feature_cache_rows", cache.capacityRows());
    out.put("feature_cache_hits", cache.hits());
    out.put("feature_cache_misses", cache.misses());
    out.put("feature_cache_rows_read", cache.files().rowsRead());
    out.put("feature_cache_bytes_read", cache.files().bytesRead());
    out.put("feature_cache_page_slots", pages.numRows());
    return out;
  }

  @Override
  public void close() {
    try {
      cache.close();
    } finally {
      pages.close();
      try (var files = Files.list(dir)) {
        for (Path p : (Iterable<Path>) files::iterator) {
          Files.deleteIfExists(p);
        }
        Files.deleteIfExists(dir);
      } catch (IOException e) {
        throw new UncheckedIOException("removing " + dir + " failed", e);
      }
    }
  }
}
