package io.fanout.spark;

import io.fanout.store.StoreManifest;
import java.nio.file.Path;

/** What {@code prepare} produced: the store, its manifest, and whether the run was skipped. */
public final class PrepareResult {
  private final Path store;
  private final StoreManifest manifest;
  private final boolean skipped;

  public PrepareResult(Path store, StoreManifest manifest, boolean skipped) {
    this.store = store;
    this.manifest = manifest;
    this.skipped = skipped;
  }

  public Path store() {
    return store;
  }

  public StoreManifest manifest() {
    return manifest;
  }

  /** True when a complete store from the same inputs and options was already there. */
  public boolean skipped() {
    return skipped;
  }
}
