package io.fanout.dist;

import io.fanout.train.GradientReducer;
import java.nio.file.Path;

/**
 * Wraps the gradient reducer of each distributed-training worker, for instrumentation such as the
 * fault injection of the multi-executor tests. An implementation is named by class in the Spark
 * conf and instantiated on every worker through its public no-argument constructor.
 */
public interface ReducerDecorator {
  /**
   * The reducer the worker's trainer uses instead of {@code reducer} (which it must delegate to).
   *
   * @param modelDir the run's model directory, shared by all workers
   */
  GradientReducer decorate(GradientReducer reducer, Path modelDir);
}
