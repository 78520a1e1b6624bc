package io.fanout.tensor;

import io.fanout.store.InvalidInputException;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.logging.Logger;

/**
 * Chooses the tensor backend by name ({@code train --backend}): {@code cpu}, {@code cpu-checked}, a
 * provider's name such as {@code cuda}, or {@code auto}. {@code auto} takes the available provider
 * of highest {@link BackendProvider#priority()} (CUDA when it reports a usable device) and
 * otherwise the CPU, logging one line that says why; {@code -Dfanout.backend=NAME} replaces {@code
 * auto} (a hook for tests and benchmarks). Naming a backend that is missing or unusable is an
 * {@link InvalidInputException} (exit 2 on the command line).
 */
public final class Backends {
  private static final Logger LOG = Logger.getLogger(Backends.class.getName());

  /** The choice that picks the best available backend. */
  public static final String AUTO = "auto";

  private Backends() {}

  /** The backend {@code auto} (or {@code -Dfanout.backend}) picks, on its default device. */
  public static Backend select() {
    return select(AUTO, -1);
  }

  /**
   * A new backend for {@code choice} on device {@code ordinal} ({@code < 0}: the provider's
   * default; ignored by the CPU backends).
   */
  public static Backend select(BackendKind choice, int ordinal) {
    return select(choice.id(), ordinal);
  }

  /**
   * A new backend for {@code choice} (a {@link BackendKind}'s id or a provider's name) on device
   * {@code ordinal} ({@code < 0}: the provider's default; ignored by the CPU backends).
   */
  public static Backend select(String choice, int ordinal) {
    return select(choice, ordinal, providers());
  }

  static List<BackendProvider> providers() {
    List<BackendProvider> all = new ArrayList<>();
    for (BackendProvider p : ServiceLoader.load(BackendProvider.class)) {
      all.add(p);
    }
    return all;
  }

  static Backend select(String choice, int ordinal, List<BackendProvider> providers) {
    String name = choice;
    if (AUTO.equals(name)) {
      name = System.getProperty("fanout.backend", AUTO);
    }
    StringBuilder fallback = new StringBuilder();
    Backend b =
        AUTO.equals(name) ? auto(ordinal, providers, fallback) : named(name, ordinal, providers);
    LOG.info(
        "tensor backend: "
            + b.name()
            + (ordinal >= 0 && !(b instanceof CpuBackend) ? " on device " + ordinal : "")
            + (fallback.length() > 0 ? " (auto chose the CPU: " + fallback + ")" : ""));
    return b;
  }

  /** The best available provider's backend, else the CPU with the reason in {@code why}. */
  private static Backend auto(int ordinal, List<BackendProvider> providers, StringBuilder why) {
    BackendProvider best = null;
    for (BackendProvider p : providers) {
      if (p.priority() <= 0) {
        continue;
      }
      if (p.available()) {
        if (best == null || p.priority() > best.priority()) {
          best = p;
        }
      } else {
        why.append(why.length() == 0 ? "" : "; ").append(p.name()).append(": ");
        why.append(p.unavailableReason());
      }
    }
    if (best != null) {
      return best.create(ordinal);
    }
    if (why.length() == 0) {
      why.append("no GPU backend is installed");
    }
    return new CpuBackend();
  }

  private static Backend named(String name, int ordinal, List<BackendProvider> providers) {
    StringBuilder installed = new StringBuilder();
    for (BackendProvider p : providers) {
      installed.append(installed.length() == 0 ? "" : ", ").append(p.name());
      if (!p.name().equals(name)) {
        continue;
      }
      if (!p.available()) {
        throw new InvalidInputException(
            "backend '"
                + name
                + "' cannot run here: "
                + p.unavailableReason()
                + "; use --backend cpu (or auto to fall back to the CPU)");
      }
      return p.create(ordinal);
    }
    throw new InvalidInputException(
        "no backend named '"
            + name
            + "' is installed (installed: "
            + installed
            + ")"
            + (name.equals("cuda")
                ? "; the CUDA backend needs its jar and JCuda on the class path"
                : "")
            + "; use --backend cpu or auto");
  }
}
