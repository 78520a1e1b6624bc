package io.fanout.spark.prepare;

import io.fanout.store.StoreManifest;
import java.nio.file.Path;

/**
 * What a {@code prepare} or {@code quantize} run produced, which {@code
 * io.fanout.spark.PrepareResult} presents to callers.
 *
 * @param store the store directory
 * @param manifest the store's manifest; null for a dry run
 * @param skipped true when a complete store from the same inputs and options was already there
 * @param seconds wall-clock seconds of the run
 * @param plan a dry run's plan; null otherwise
 */
public record PrepareOutcome(
    Path store, StoreManifest manifest, boolean skipped, double seconds, PreparePlan plan) {

  /** A store written or kept (no plan). */
  PrepareOutcome(Path store, StoreManifest manifest, boolean skipped, double seconds) {
    this(store, manifest, skipped, seconds, null);
  }
}
