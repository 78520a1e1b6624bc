package io.fanout.spark.sample;

import io.fanout.graph.TypedGraph;
import java.nio.file.Path;

/**
 * The default {@link TypedStoreOpener}: the typed graph stores {@code prepare} writes. Until that
 * format is on the classpath every store is one-type here, so {@code sample} keeps the one-type
 * path.
 */
public final class StoreTypedOpener implements TypedStoreOpener {
  @Override
  public boolean isTyped(Path store) {
    return false;
  }

  @Override
  public TypedGraph open(Path store, boolean verify) {
    throw new UnsupportedOperationException(store + " is not a typed graph store");
  }

  @Override
  public String fingerprint(Path store) {
    throw new UnsupportedOperationException(store + " is not a typed graph store");
  }
}
