package io.fanout.spark.train;

import io.fanout.dist.MeshAllReduce;
import io.fanout.dist.ReducerDecorator;
import io.fanout.dist.VerifyingReducer;
import io.fanout.spark.internal.Hooks;
import io.fanout.train.GradientReducer;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * A replica's gradient reducer as the run's options ask for it, for any trainer: the barrier
 * stage's {@link MeshAllReduce}, checked by a {@link VerifyingReducer} with {@code --dist-verify}
 * and wrapped by the {@link Hooks#REDUCER_DECORATOR} hook when one is set; {@link
 * GradientReducer#LOCAL} for the only replica.
 */
final class ReplicaReducer {
  /** The only replica: nothing is exchanged or checked. */
  static final ReplicaReducer LOCAL = new ReplicaReducer(null, false, null);

  private final MeshAllReduce mesh;
  private final boolean verify;
  private final String decorator;
  private VerifyingReducer verifier;

  /**
   * @param mesh the stage's reducer; null for the only replica
   * @param decorator the {@link ReducerDecorator} class name, or null
   */
  ReplicaReducer(MeshAllReduce mesh, boolean verify, String decorator) {
    this.mesh = mesh;
    this.verify = verify;
    this.decorator = decorator;
  }

  /**
   * The reducer a trainer of the model whose parameters {@code params} reads uses; {@code modelDir}
   * is handed to the decorator hook.
   */
  GradientReducer wire(Supplier<float[]> params, Path modelDir) {
    if (mesh == null) {
      return GradientReducer.LOCAL;
    }
    GradientReducer reducer = mesh;
    if (verify) {
      verifier = new VerifyingReducer(mesh, params);
      reducer = verifier;
    }
    return decorator == null
        ? reducer
        : Hooks.instantiate(Hooks.REDUCER_DECORATOR, decorator, ReducerDecorator.class)
            .decorate(reducer, modelDir);
  }

  /**
   * With {@code --dist-verify}, compares the replicas' final parameters now, while the model is
   * still open; otherwise nothing.
   */
  void verifyNow() {
    if (verifier != null) {
      verifier.verifyNow();
    }
  }
}
