package io.fanout.features;

import io.fanout.graph.GraphStore;
import io.fanout.graph.RowDecoder;
import io.fanout.store.FeatureParams;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.tensor.Backend;
import io.fanout.tensor.FeatureRows;
import io.fanout.tensor.HostRowDecoder;
import io.fanout.tensor.PagedFeatureRows;
import io.fanout.tensor.RowEncoding;
import io.fanout.tensor.RowFiles;
import java.nio.file.Path;

/**
 * A graph store's feature rows as a tensor backend reads them in place ({@code --feature-access
 * zero-copy}): builds the store-free descriptions the backends take ({@link RowEncoding}, {@link
 * RowFiles}) from the store's manifest and {@link FeatureParams}, and hands the CPU backends the
 * store's own decoder and gather, so every reader decodes a row the same way.
 */
public final class StoreFeatureRows {
  private StoreFeatureRows() {}

  /**
   * The store's rows, in any encoding, read by {@code be} in place (see {@link FeatureRows}).
   *
   * @throws InvalidInputException when the store has no features
   * @throws UnsupportedOperationException when {@code be} cannot read rows in place
   */
  public static FeatureRows map(Backend be, GraphStore store) {
    requireFeatures(store);
    requireRowsAtIdsFor(be, store);
    return be.mapFeatureRows(files(store), store.features()::gather);
  }

  /**
   * The store's rows, in any encoding, copied once into {@code be}'s own memory and read there
   * ({@code --feature-access device}, see {@link Backend#residentFeatureRows}).
   *
   * @throws InvalidInputException when the store has no features
   */
  public static FeatureRows resident(Backend be, GraphStore store) {
    requireFeatures(store);
    requireRowsAtIdsFor(be, store);
    return be.residentFeatureRows(files(store), store.features()::gather);
  }

  /**
   * Fails when {@code be} reads the files itself (a device: its kernels address rows by id) and the
   * store keeps its rows in a {@code feature_layout}; the CPU backends read through the store's
   * gather, which maps ids to rows.
   */
  private static void requireRowsAtIdsFor(Backend be, GraphStore store) {
    if (!store.featureRowOrder().isIdentity() && !readsThroughHostGather(be)) {
      throw new InvalidInputException(
          store.root()
              + ": feature rows are stored in layout "
              + store.manifest().featureLayout
              + "; --feature-access zero-copy and device on "
              + be.name()
              + " read rows at their ids, so they are not built for it: use --feature-access"
              + " gather or --feature-cache, or a store without --feature-layout");
    }
  }

  /** Whether {@code be} reads mapped rows through the host gather it is given (CPU backends). */
  static boolean readsThroughHostGather(Backend be) {
    return be instanceof io.fanout.tensor.CpuBackend
        || be instanceof io.fanout.tensor.CheckingBackend;
  }

  /** The bytes of the store's encoded feature rows (0 without features). */
  public static long encodedBytes(GraphStore store) {
    FeatureParams p = store.featureParams();
    return p == null ? 0 : store.manifest().vertices * (long) p.rowBytes();
  }

  /** Pages for a feature cache's rows encoded with {@code params}, read by {@code be} in place. */
  public static PagedFeatureRows pages(Backend be, FeatureParams params) {
    return be.pagedFeatureRows(encoding(params), decoder(params));
  }

  /**
   * Fails unless {@code store} holds feature rows; zero-copy reads them in any encoding (f32 as
   * stored, quantized rows decoded by the backend as the host gather decodes them).
   */
  public static void requireFeatures(GraphStore store) {
    StoreManifest m = store.manifest();
    if (m.featureDim <= 0) {
      throw new InvalidInputException(
          store.root()
              + " has no features (feature_dim "
              + m.featureDim
              + "); --feature-access zero-copy and device read the store's feature rows");
    }
  }

  /** The store's feature files, one per partition, with the rows each holds. */
  public static RowFiles files(GraphStore store) {
    StoreManifest m = store.manifest();
    int n = m.partitionTable.size();
    Path[] paths = new Path[n];
    long[] starts = new long[n + 1];
    for (int p = 0; p < n; p++) {
      StoreManifest.Partition e = m.partitionTable.get(p);
      paths[p] = store.dataRoot().resolve(StoreLayout.featuresFile(e.index));
      starts[p] = e.firstVertex;
      starts[p + 1] = e.firstVertex + e.numVertices;
    }
    return new RowFiles(paths, starts, StoreLayout.HEADER_BYTES, encoding(store.featureParams()));
  }

  /**
   * Files outside a store, in the store's file layout, holding rows encoded with {@code params}.
   */
  public static RowFiles files(Path[] paths, long[] starts, FeatureParams params) {
    return new RowFiles(paths, starts, StoreLayout.HEADER_BYTES, encoding(params));
  }

  /** The description of rows encoded with {@code params} that the backends read. */
  public static RowEncoding encoding(FeatureParams params) {
    RowEncoding.Kind kind =
        switch (params.encoding) {
          case StoreLayout.ENCODING_F32 -> RowEncoding.Kind.F32;
          case StoreLayout.ENCODING_F16 -> RowEncoding.Kind.F16;
          case StoreLayout.ENCODING_INT8 -> RowEncoding.Kind.INT8;
          case StoreLayout.ENCODING_INT4 -> RowEncoding.Kind.INT4;
          case StoreLayout.ENCODING_PQ -> RowEncoding.Kind.PQ;
          default ->
              throw new IllegalArgumentException("unknown feature encoding " + params.encoding);
        };
    return new RowEncoding(
        kind,
        params.dim,
        params.rowBytes(),
        params.groupSize,
        params.centroids,
        params.scale(),
        params.offset(),
        params.codebooks());
  }

  /** The store's decoder of rows encoded with {@code params}, for the CPU backends. */
  public static HostRowDecoder decoder(FeatureParams params) {
    return RowDecoder.of(params)::decode;
  }
}
