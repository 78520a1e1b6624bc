package io.fanout.spark.train;

import java.io.Serializable;

/**
 * What each distributed-training worker runs inside the barrier stage. It is serialized to the
 * executors, so it must be {@link Serializable} and capture only small, serializable values.
 *
 * @param <R> a small per-worker result collected to the driver (one per worker)
 */
@FunctionalInterface
public interface WorkerFunction<R extends Serializable> extends Serializable {
  R run(WorkerContext ctx) throws Exception;
}
