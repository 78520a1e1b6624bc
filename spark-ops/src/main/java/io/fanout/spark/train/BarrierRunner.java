package io.fanout.spark.train;

import io.fanout.dist.MeshAllReduce;
import io.fanout.spark.internal.JobLabels;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.channels.ServerSocketChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.BarrierTaskInfo;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.rdd.RDD;
import org.apache.spark.resource.ResourceInformation;
import org.apache.spark.sql.SparkSession;
import scala.Tuple2;
import scala.collection.Iterator;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction1;

/**
 * Runs one {@link WorkerFunction} per worker in a Spark barrier stage (the TorchDistributor /
 * XGBoost4J-Spark model): all workers are scheduled together or not at all, and if any task fails
 * Spark kills the others and retries the whole stage.
 *
 * <p>Each task opens a server socket on its executor's host, publishes {@code host:port} through
 * exactly one {@link BarrierTaskContext#allGather} call (about a second in Spark 4.0, so never per
 * step), connects a {@link MeshAllReduce} to the others (rank = partition id), runs the function,
 * and closes sockets in {@code finally}. With GPU scheduling ({@code
 * spark.task.resource.gpu.amount=1}) the task's GPU address is passed to the function.
 */
public final class BarrierRunner {
  private BarrierRunner() {}

  /** Settings of one barrier run. */
  public record Settings(int workers, long timeoutMillis, int port) implements Serializable {
    public Settings {
      if (workers <= 0) {
        throw new IllegalArgumentException("workers must be positive, got " + workers);
      }
      if (timeoutMillis <= 0) {
        throw new IllegalArgumentException(
            "dist-timeout-ms must be positive, got " + timeoutMillis);
      }
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("dist-port must be in 0..65535, got " + port);
      }
    }
  }

  /**
   * The worker count for {@code requested} (the {@code workers} option): itself when positive, else
   * one per task slot of a cluster master, else 1 for {@code local} masters.
   */
  public static int resolveWorkers(SparkSession spark, int requested) {
    if (requested < 0) {
      throw new io.fanout.conf.FanoutConfigException(
          "option 'workers' is " + requested + ", expected 0 (automatic) or a positive count");
    }
    if (requested > 0) {
      return requested;
    }
    return isLocal(spark) ? 1 : spark.sparkContext().defaultParallelism();
  }

  /** True for {@code local}, {@code local[N]} and {@code local[*]} masters (one JVM). */
  public static boolean isLocal(SparkSession spark) {
    String m = spark.sparkContext().master();
    return m.equals("local") || m.startsWith("local[");
  }

  /**
   * Runs {@code fn} on {@code settings.workers()} workers and returns their results by rank. Blocks
   * until the stage succeeds or Spark gives up retrying it. If the job fails or is cancelled, the
   * workers' tasks have ended when this throws.
   */
  public static <R extends Serializable> List<R> run(
      SparkSession spark, Settings settings, WorkerFunction<R> fn) {
    SparkContext sc = spark.sparkContext();
    int n = settings.workers();
    List<Integer> ranks = new ArrayList<>();
    IntStream.range(0, n).forEach(ranks::add);
    RDD<Integer> rdd = new JavaSparkContext(sc).parallelize(ranks, n).rdd();
    ClassTag<Tuple2<Integer, R>> tag = ClassTag$.MODULE$.apply(Tuple2.class);
    // A barrier ResultStage is never retried; a barrier ShuffleMapStage is (the whole stage, up
    // to spark.stage.maxConsecutiveAttempts). Hence the one-partition shuffle after it.
    RDD<Tuple2<Integer, R>> barrier =
        rdd.barrier().mapPartitions(new Task<>(settings, fn), false, tag);
    List<Tuple2<Integer, R>> pairs =
        JobLabels.call(
            sc,
            "train",
            "data-parallel training on " + n + " workers (barrier stage)",
            1,
            1,
            () ->
                TaskWatch.run(sc, () -> new JavaRDD<>(barrier, tag).repartition(1).collectAsync()));
    List<R> out = new ArrayList<>(Collections.nCopies(n, null));
    for (Tuple2<Integer, R> p : pairs) {
      out.set(p._1(), p._2());
    }
    return out;
  }

  /** The body of each barrier task. */
  private static final class Task<R extends Serializable>
      extends AbstractFunction1<Iterator<Integer>, Iterator<Tuple2<Integer, R>>>
      implements Serializable {
    private final Settings settings;
    private final WorkerFunction<R> fn;

    Task(Settings settings, WorkerFunction<R> fn) {
      this.settings = settings;
      this.fn = fn;
    }

    @Override
    public Iterator<Tuple2<Integer, R>> apply(Iterator<Integer> partition) {
      BarrierTaskContext ctx = BarrierTaskContext.get();
      BarrierTaskInfo[] infos = ctx.getTaskInfos();
      int rank = ctx.partitionId();
      String host = hostOf(infos[rank].address());
      ServerSocketChannel server = null;
      MeshAllReduce ring = null;
      try {
        server = MeshAllReduce.listen(host, settings.port());
        String[] endpoints = ctx.allGather(MeshAllReduce.endpointOf(host, server));
        long session = ((long) ctx.stageId() << 32) | ctx.stageAttemptNumber();
        ring =
            MeshAllReduce.connect(
                rank, Arrays.asList(endpoints), server, session, settings.timeoutMillis());
        Runnable abort = ctx::killTaskIfInterrupted;
        ring.abortCheck(abort);
        WorkerContext wc =
            new WorkerContext(
                rank,
                endpoints.length,
                ring,
                gpuOf(ctx),
                ctx.stageAttemptNumber(),
                host,
                abort,
                ctx::isInterrupted);
        R result = fn.run(wc);
        return CollectionConverters.asScala(List.of(new Tuple2<>(rank, result)).iterator());
      } catch (IOException e) {
        throw new UncheckedIOException(
            "distributed worker " + rank + " on " + host + " failed: " + e, e);
      } catch (RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new IllegalStateException(
            "distributed worker " + rank + " on " + host + " failed: " + e, e);
      } finally {
        if (ring != null) {
          ring.close();
        }
        if (server != null) {
          try {
            server.close();
          } catch (IOException ignored) {
            // closing
          }
        }
      }
    }
  }

  /** {@code host} from a task address that may be {@code host} or {@code host:port}. */
  static String hostOf(String address) {
    int colon = address.lastIndexOf(':');
    if (colon > 0 && address.indexOf(':') == colon) {
      return address.substring(0, colon);
    }
    return address;
  }

  private static String gpuOf(BarrierTaskContext ctx) {
    Map<String, ResourceInformation> res = CollectionConverters.asJava(ctx.resources());
    ResourceInformation gpu = res.get("gpu");
    return gpu == null || gpu.addresses().length == 0 ? null : gpu.addresses()[0];
  }
}
