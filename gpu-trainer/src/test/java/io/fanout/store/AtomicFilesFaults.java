package io.fanout.store;

import java.nio.file.Path;
import java.util.function.Consumer;

/** Lets tests of other packages inject a crash just before {@link AtomicFiles} renames a file. */
public final class AtomicFilesFaults {
  private AtomicFilesFaults() {}

  /** Calls {@code hook} with each target before its rename; throwing simulates a crash there. */
  public static void beforeRename(Consumer<Path> hook) {
    AtomicFiles.beforeRename = hook;
  }

  /** Removes the hook. */
  public static void clear() {
    AtomicFiles.beforeRename = p -> {};
  }
}
