package io.fanout.train;

import io.fanout.nn.GnnModel;
import io.fanout.nn.ModelConfig;
import io.fanout.tensor.Backend;
import java.util.ArrayList;
import java.util.List;

/**
 * The owner of one run's model and backend (train, evaluate, infer): {@link #close} closes what the
 * run registered with {@link #own} (a trainer, feature-row mappings) in reverse order, then frees
 * the model's tensors, then closes the backend (a GPU context and its pools), each step even when
 * one before it failed; the first failure is thrown with the others suppressed.
 */
final class ModelLease implements AutoCloseable {
  private final Backend backend;
  private final GnnModel model;
  private final List<AutoCloseable> owned = new ArrayList<>();
  private boolean closed;

  private ModelLease(Backend backend, GnnModel model) {
    this.backend = backend;
    this.model = model;
  }

  /** A new model of {@code cfg} on {@code backend}; closes the backend when that fails. */
  static ModelLease open(ModelConfig cfg, Backend backend) {
    GnnModel m;
    try {
      m = new GnnModel(cfg, backend);
    } catch (RuntimeException | Error e) {
      try {
        backend.close();
      } catch (RuntimeException x) {
        e.addSuppressed(x);
      }
      throw e;
    }
    return new ModelLease(backend, m);
  }

  GnnModel model() {
    return model;
  }

  Backend backend() {
    return backend;
  }

  /** Registers {@code r} to be closed before the model and the backend; returns it. */
  <T extends AutoCloseable> T own(T r) {
    owned.add(r);
    return r;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    Throwable first = null;
    for (int i = owned.size() - 1; i >= 0; i--) {
      first = closeOne(owned.get(i), first);
    }
    first = closeOne(model, first);
    first = closeOne(backend, first);
    if (first instanceof RuntimeException r) {
      throw r;
    }
    if (first instanceof Error e) {
      throw e;
    }
    if (first != null) {
      throw new IllegalStateException("releasing the model failed: " + first.getMessage(), first);
    }
  }

  private static Throwable closeOne(AutoCloseable c, Throwable first) {
    try {
      c.close();
    } catch (Exception | Error e) {
      if (first == null) {
        return e;
      }
      first.addSuppressed(e);
    }
    return first;
  }
}
