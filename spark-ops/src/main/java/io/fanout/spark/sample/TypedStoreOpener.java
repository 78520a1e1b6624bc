package io.fanout.spark.sample;

import io.fanout.graph.TypedGraph;
import io.fanout.graph.TypedStorePartition;
import java.nio.file.Path;

/**
 * How {@code sample} recognises and opens a typed (heterogeneous) graph store: the seam between the
 * sampling job and the typed store format. Instantiated by class name on the driver and in every
 * task (public no-argument constructor), so implementations hold no state that matters. The Spark
 * conf key {@link io.fanout.spark.internal.Hooks#TYPED_STORE_OPENER} replaces {@link #DEFAULT}.
 */
public interface TypedStoreOpener {
  /** The opener used when the conf names none. */
  String DEFAULT = StoreTypedOpener.class.getName();

  /** Whether {@code store} is a typed graph store (one-type stores take the one-type path). */
  boolean isTyped(Path store);

  /** Opens {@code store} for reads; callers cache it per JVM and never close it mid-run. */
  TypedGraph open(Path store, boolean verify);

  /** The identity of the store's content, which changes whenever the store does. */
  String fingerprint(Path store);

  /**
   * Opens partition {@code part} of type {@code type} ({@link TypedGraph#partitionStarts}) on its
   * own, for the tasks of {@code sample --mode partitioned}; callers cache it per JVM. Default: a
   * view over the whole graph {@link #open} gives.
   */
  default TypedStorePartition openPartition(Path store, int type, int part) {
    TypedGraph g = open(store, false);
    long[] starts = g.partitionStarts(type);
    return TypedStorePartition.view(g, type, starts[part], starts[part + 1]);
  }
}
