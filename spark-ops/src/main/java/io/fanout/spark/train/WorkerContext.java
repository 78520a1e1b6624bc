package io.fanout.spark.train;

import io.fanout.dist.MeshAllReduce;
import java.util.function.BooleanSupplier;

/**
 * What a worker gets inside the barrier stage: its rank, the world size, the connected gradient
 * reducer, the GPU Spark assigned to the task (if any) and a check that aborts when Spark kills the
 * task.
 */
public final class WorkerContext {
  private final int rank;
  private final int worldSize;
  private final MeshAllReduce reducer;
  private final String gpu;
  private final int stageAttempt;
  private final String host;
  private final Runnable abortCheck;
  private final BooleanSupplier cancelled;

  WorkerContext(
      int rank,
      int worldSize,
      MeshAllReduce reducer,
      String gpu,
      int stageAttempt,
      String host,
      Runnable abortCheck,
      BooleanSupplier cancelled) {
    this.rank = rank;
    this.worldSize = worldSize;
    this.reducer = reducer;
    this.gpu = gpu;
    this.stageAttempt = stageAttempt;
    this.host = host;
    this.abortCheck = abortCheck;
    this.cancelled = cancelled;
  }

  public int rank() {
    return rank;
  }

  public int worldSize() {
    return worldSize;
  }

  /** Connected to every other worker; closed by the stage when the function returns. */
  public MeshAllReduce reducer() {
    return reducer;
  }

  /**
   * The address of the GPU assigned to this task by Spark resource scheduling ({@code
   * spark.task.resource.gpu.amount=1}), e.g. {@code "0"}, or null when none was requested.
   */
  public String gpu() {
    return gpu;
  }

  /** 0 for the first attempt of the barrier stage, then 1, 2, ... after failures. */
  public int stageAttempt() {
    return stageAttempt;
  }

  /** The executor's host, as published to the other workers. */
  public String host() {
    return host;
  }

  /** Throws when Spark has killed this task (e.g. another worker of the stage failed). */
  public Runnable abortCheck() {
    return abortCheck;
  }

  /**
   * True once Spark has killed this task (its job was cancelled, or another worker failed); the
   * function should then stop at its next convenient point.
   */
  public boolean cancelled() {
    return cancelled.getAsBoolean();
  }
}
