package io.fanout.features;

import io.fanout.graph.TypedGraphStore;
import io.fanout.store.FeatureParams;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.tensor.Backend;
import io.fanout.tensor.FeatureRows;
import io.fanout.tensor.RowFiles;
import java.nio.file.Path;

/**
 * A typed store's feature rows as a tensor backend reads them in place ({@code train
 * --feature-access zero-copy|device} on a typed store): per featured type the rows of that type's
 * own feature files, in its own encoding, through the backend call of the one-type store ({@link
 * Backend#mapFeatureRows}, {@link Backend#residentFeatureRows}) with the type's {@link RowFiles}
 * and the type's own gather, which maps ids through the type's recorded row order.
 */
public final class TypedStoreFeatureRows {
  private TypedStoreFeatureRows() {}

  /**
   * Type {@code t}'s rows read by {@code be} in place: mapped ({@code resident} false, {@code
   * zero-copy}) or copied once into {@code be}'s memory ({@code device}).
   *
   * @throws InvalidInputException when the type has no features, or its rows are stored in a {@code
   *     feature_layout} and {@code be} addresses rows by id (a device)
   * @throws UnsupportedOperationException when {@code be} cannot read rows in place
   */
  public static FeatureRows open(Backend be, TypedGraphStore store, int t, boolean resident) {
    String name = store.schema().type(t).name();
    FeatureParams p = store.featureParams(t);
    if (p == null) {
      throw new InvalidInputException(
          store.root()
              + ": type '"
              + name
              + "' has no features; --feature-access zero-copy and device read a type's feature"
              + " rows");
    }
    if (!store.featureRowOrder(t).isIdentity() && !StoreFeatureRows.readsThroughHostGather(be)) {
      throw new InvalidInputException(
          store.root()
              + ": the feature rows of type '"
              + name
              + "' are stored in layout "
              + store.manifest().types.get(t).featureLayout
              + "; --feature-access zero-copy and device on "
              + be.name()
              + " read rows at their ids, so they are not built for it: use --feature-access"
              + " gather, or a store without --feature-layout");
    }
    RowFiles files = files(store, t);
    return resident
        ? be.residentFeatureRows(files, store.features(t)::gather)
        : be.mapFeatureRows(files, store.features(t)::gather);
  }

  /** Type {@code t}'s feature files, one per partition of the type, with its type-local rows. */
  public static RowFiles files(TypedGraphStore store, int t) {
    StoreManifest.TypeEntry te = store.manifest().types.get(t);
    long[] starts = store.partitionStarts(t);
    Path[] paths = new Path[te.partitions];
    String dir = StoreLayout.typeDir(te.name) + "/";
    for (int p = 0; p < te.partitions; p++) {
      paths[p] = store.dataRoot().resolve(dir + StoreLayout.featuresFile(p));
    }
    return StoreFeatureRows.files(paths, starts, store.featureParams(t));
  }

  /** The bytes of every featured type's encoded rows together. */
  public static long encodedBytes(TypedGraphStore store) {
    long n = 0;
    for (int t = 0; t < store.schema().numTypes(); t++) {
      FeatureParams p = store.featureParams(t);
      n += p == null ? 0 : store.schema().type(t).count() * (long) p.rowBytes();
    }
    return n;
  }
}
