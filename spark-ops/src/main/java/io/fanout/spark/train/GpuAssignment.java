package io.fanout.spark.train;

import io.fanout.store.InvalidInputException;
import io.fanout.tensor.BackendKind;
import java.util.Map;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.resource.ResourceInformation;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Which accelerator a training task runs on, from Spark's resource scheduling ({@code
 * spark.executor.resource.gpu.amount}, {@code spark.task.resource.gpu.amount}, {@code
 * TaskContext.resources()}): the device ordinal is passed to the backend provider, so tasks sharing
 * an executor use the GPUs Spark gave them and never all default to device 0.
 */
public final class GpuAssignment {
  /** Spark's resource name for GPUs. */
  public static final String RESOURCE = "gpu";

  private GpuAssignment() {}

  /**
   * The device ordinal for a task on {@code backend}.
   *
   * @param taskAddresses the task's {@code gpu} resource addresses (empty or null when none)
   * @param executorGpus {@code spark.executor.resource.gpu.amount} (0 when unset)
   * @return -1 for the CPU backends and where Spark schedules no GPUs (the backend's default
   *     device); else the first assigned address as an ordinal
   * @throws InvalidInputException when executors have GPUs but the task was assigned none, or an
   *     address is not a device ordinal
   */
  public static int ordinal(String backend, String[] taskAddresses, long executorGpus) {
    if (backend.startsWith("cpu")) {
      return -1;
    }
    if (taskAddresses == null || taskAddresses.length == 0) {
      if (executorGpus > 0) {
        throw new InvalidInputException(
            "spark.executor.resource.gpu.amount is "
                + executorGpus
                + " but this training task was assigned no '"
                + RESOURCE
                + "' resource, so every task would use device 0; set"
                + " spark.task.resource.gpu.amount (for example 1) or pass --backend cpu");
      }
      return -1;
    }
    String first = taskAddresses[0].trim();
    try {
      int ordinal = Integer.parseInt(first);
      if (ordinal >= 0) {
        return ordinal;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new InvalidInputException(
        "Spark assigned GPU address '"
            + first
            + "' to this training task; expected a device ordinal such as 0 (check the GPU"
            + " discovery script of spark.executor.resource.gpu.discoveryScript)");
  }

  /** {@link #ordinal} for the task running on this thread ({@code -1} outside a task). */
  public static int forCurrentTask(BackendKind backend) {
    TaskContext tc = TaskContext.get();
    if (tc == null) {
      return -1;
    }
    Map<String, ResourceInformation> res = CollectionConverters.asJava(tc.resources());
    ResourceInformation gpu = res.get(RESOURCE);
    SparkEnv env = SparkEnv.get();
    long executorGpus =
        env == null ? 0 : env.conf().getLong("spark.executor.resource." + RESOURCE + ".amount", 0);
    return ordinal(backend.id(), gpu == null ? null : gpu.addresses(), executorGpus);
  }
}
