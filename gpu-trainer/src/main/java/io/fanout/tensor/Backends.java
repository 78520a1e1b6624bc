package io.fanout.tensor;

import java.util.ServiceLoader;
import java.util.logging.Logger;

/**
 * Chooses the tensor backend: {@code -Dfanout.backend=NAME} forces a provider; otherwise the
 * available provider with the highest {@link BackendProvider#priority()}, and the CPU backend when
 * no other provider is available.
 */
public final class Backends {
  private static final Logger LOG = Logger.getLogger(Backends.class.getName());

  private Backends() {}

  /** The selected backend (a new instance). */
  public static Backend select() {
    String forced = System.getProperty("fanout.backend");
    BackendProvider best = null;
    StringBuilder seen = new StringBuilder();
    for (BackendProvider p : ServiceLoader.load(BackendProvider.class)) {
      seen.append(seen.length() == 0 ? "" : ", ").append(p.name());
      if (forced != null) {
        if (p.name().equals(forced)) {
          if (!p.available()) {
            throw new IllegalStateException("backend '" + forced + "' is not available here");
          }
          best = p;
        }
        continue;
      }
      if (p.available() && (best == null || p.priority() > best.priority())) {
        best = p;
      }
    }
    if (forced != null && best == null) {
      throw new IllegalStateException(
          "no backend named '"
              + forced
              + "'; installed: "
              + seen
              + (seen.length() == 0 ? "cpu" : ""));
    }
    Backend b = best == null ? new CpuBackend() : best.create();
    LOG.info("tensor backend: " + b.name());
    return b;
  }
}
