package io.fanout.spark.sample;

import io.fanout.graph.TypedGraph;
import io.fanout.graph.TypedGraphStore;
import io.fanout.graph.TypedStorePartition;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreManifest;
import java.nio.file.Path;

/**
 * The default {@link TypedStoreOpener}: the typed graph stores {@code prepare} writes ({@link
 * TypedGraphStore}, manifest format {@code fanout-typed-graph-store}). A path without a readable
 * store manifest is not typed here, so the one-type path reports what is wrong with it.
 */
public final class StoreTypedOpener implements TypedStoreOpener {
  @Override
  public boolean isTyped(Path store) {
    try {
      return TypedGraphStore.isTyped(store);
    } catch (InvalidInputException e) {
      return false;
    }
  }

  @Override
  public TypedGraph open(Path store, boolean verify) {
    return TypedGraphStore.open(store, verify);
  }

  @Override
  public TypedStorePartition openPartition(Path store, int type, int part) {
    return TypedGraphStore.openPartition(store, type, part);
  }

  @Override
  public String fingerprint(Path store) {
    return StoreManifest.read(store).fingerprint();
  }
}
