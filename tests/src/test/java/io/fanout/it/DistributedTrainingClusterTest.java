package io.fanout.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.bench.dist.SyntheticTraining;
import io.fanout.dist.Checkpoints;
import io.fanout.dist.MeshAllReduce;
import io.fanout.dist.PeerException;
import io.fanout.spark.train.BarrierRunner;
import io.fanout.train.GradientReducer;
import java.io.IOException;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Distributed training on {@code local-cluster[2,1,1024]}: two executor JVMs, one worker each,
 * gradients over TCP between them.
 */
@Tag("cluster")
class DistributedTrainingClusterTest {
  private static SparkSession spark;

  /** 1200 examples in batches of 25: 48 batches, 24 global steps of 2 batches per epoch. */
  static final SyntheticTraining.Model MODEL =
      new SyntheticTraining.Model(17L, 1200, 16, 5, 25, 0.5f, 0.9f);

  static final int EPOCHS = 2;

  @BeforeAll
  static void start() {
    spark =
        LocalClusterSession.start(
            "dist-it",
            2,
            1024,
            Map.of(
                "spark.barrier.sync.timeout", "120s",
                "spark.scheduler.barrier.maxConcurrentTasksCheck.interval", "2s"));
  }

  @AfterAll
  static void stop() {
    LocalClusterSession.stop(spark);
  }

  static List<SyntheticTraining.Summary> train(
      String ckpt, int every, SyntheticTraining.Listener listener) {
    return BarrierRunner.run(
        spark,
        new BarrierRunner.Settings(2, 60_000, 0),
        new SyntheticTraining(MODEL, EPOCHS, 0, ckpt, every, true, listener));
  }

  @Test
  void replicasStayIdenticalAfterEveryStepAndMatchOneProcessWithTheGlobalBatch() {
    List<SyntheticTraining.Summary> res = train(null, 0, null);
    assertThat(res).hasSize(2);
    SyntheticTraining.Summary a = res.get(0);
    SyntheticTraining.Summary b = res.get(1);
    assertThat(a.result().rank()).isZero();
    assertThat(b.result().rank()).isOne();
    assertThat(a.executorId()).as("one worker per executor").isNotEqualTo(b.executorId());
    assertThat(a.result().stepChecksums()).hasSize(EPOCHS * 24);
    assertThat(b.result().stepChecksums()).containsExactly(a.result().stepChecksums());
    assertThat(Arrays.equals(a.parameters(), b.parameters())).isTrue();

    // One process, global batch of 2 x 25: same examples per step, other summation order.
    SyntheticTraining.Summary single =
        new SyntheticTraining(MODEL, EPOCHS, 2, null, 0, false, null)
            .train(GradientReducer.LOCAL, null, 0);
    float[] p = a.parameters();
    float[] q = single.parameters();
    for (int i = 0; i < p.length; i++) {
      assertThat(p[i]).as("parameter %d", i).isCloseTo(q[i], within(q[i]));
    }
    assertThat(a.accuracy()).isGreaterThan(0.85);
  }

  /** The documented tolerance against one process: 1e-4 absolute plus 1e-3 relative. */
  static org.assertj.core.data.Offset<Float> within(float ref) {
    return org.assertj.core.data.Offset.offset(1e-4f + 1e-3f * Math.abs(ref));
  }

  @Test
  void aKilledExecutorEndsInACompletedRunWithTheSameParameters(@TempDir Path tmp)
      throws IOException {
    List<SyntheticTraining.Summary> clean = train(tmp.resolve("clean").toString(), 10, null);
    long want = clean.get(0).result().finalChecksum();

    Path ckpt = tmp.resolve("killed");
    String marker = tmp.resolve("killed-once").toString();
    // Rank 1's executor JVM exits once, mid-epoch 1 (global step 33 of 48, checkpoint at 30).
    SyntheticTraining.Listener killOnce =
        (rank, epoch, step, global, checksum) -> {
          if (rank == 1 && global == 33) {
            try {
              Files.createFile(Paths.get(marker));
            } catch (java.nio.file.FileAlreadyExistsException e) {
              return;
            } catch (IOException e) {
              throw new java.io.UncheckedIOException(e);
            }
            Runtime.getRuntime().halt(17);
          }
        };
    List<SyntheticTraining.Summary> res = train(ckpt.toString(), 10, killOnce);
    assertThat(Files.exists(Paths.get(marker))).as("the executor was killed").isTrue();
    for (SyntheticTraining.Summary s : res) {
      assertThat(s.stageAttempt()).as("the stage was retried").isPositive();
      assertThat(s.result().resumedFromGlobalStep()).isEqualTo(30L);
      assertThat(s.result().finalGlobalStep()).isEqualTo(48L);
      assertThat(s.result().finalChecksum()).isEqualTo(want);
    }
    assertThat(new Checkpoints(ckpt).list())
        .last()
        .extracting(f -> f.getFileName().toString())
        .isEqualTo("step-000000000048.ckpt");
  }

  @Test
  void aPeerThatNeverConnectsFailsWithATimeoutNamingIt(@TempDir Path tmp) throws IOException {
    // A barrier stage whose rank 1 publishes an endpoint but never connects, on attempt 0 only.
    String report = tmp.resolve("rank0-error.txt").toString();
    long started = System.nanoTime();
    scala.reflect.ClassTag<Object> tag = scala.reflect.ClassTag$.MODULE$.Any();
    List<Object> out =
        new org.apache.spark.api.java.JavaRDD<>(
                new JavaSparkContext(spark.sparkContext())
                    .parallelize(List.of(0, 1), 2)
                    .rdd()
                    .barrier()
                    .mapPartitions(new NeverConnects(report), false, tag),
                tag)
            .repartition(1)
            .collect();
    assertThat(out).containsExactly(2, 2);
    String err = Files.readString(Paths.get(report), StandardCharsets.UTF_8);
    assertThat(err)
        .contains("rank 0: timed out after 2000 ms waiting for rank 1 (127.0.0.1:")
        .contains("to connect");
    assertThat((System.nanoTime() - started) / 1e9).as("seconds").isLessThan(60);
  }

  /** Rank 1 stays away on attempt 0; rank 0 records the error it gets. Both succeed later. */
  static final class NeverConnects
      extends scala.runtime.AbstractFunction1<
          scala.collection.Iterator<Integer>, scala.collection.Iterator<Object>>
      implements java.io.Serializable {
    private final String report;

    NeverConnects(String report) {
      this.report = report;
    }

    @Override
    public scala.collection.Iterator<Object> apply(scala.collection.Iterator<Integer> it) {
      BarrierTaskContext ctx = BarrierTaskContext.get();
      int rank = ctx.partitionId();
      try (ServerSocketChannel server = MeshAllReduce.listen("127.0.0.1", 0)) {
        String[] eps = ctx.allGather(MeshAllReduce.endpointOf("127.0.0.1", server));
        if (rank == 1 && ctx.stageAttemptNumber() == 0) {
          // Never connect; leave once Spark kills the attempt (or after 20 s).
          for (int i = 0; i < 200 && !ctx.isInterrupted(); i++) {
            Thread.sleep(100);
          }
          throw new IllegalStateException("rank 1 stayed away");
        }
        try (MeshAllReduce ring =
            MeshAllReduce.connect(
                rank, Arrays.asList(eps), server, ctx.stageAttemptNumber(), 2000)) {
          return scala.jdk.javaapi.CollectionConverters.asScala(
              List.<Object>of(ring.worldSize()).iterator());
        } catch (PeerException e) {
          Files.writeString(Paths.get(report), e.getMessage(), StandardCharsets.UTF_8);
          throw e;
        }
      } catch (IOException | InterruptedException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  @Test
  void theSingleProcessReferenceIsDeterministic() {
    SyntheticTraining t = new SyntheticTraining(MODEL, 1, 2, null, 0, false, null);
    assertThat(t.train(GradientReducer.LOCAL, null, 0).result().finalChecksum())
        .isEqualTo(t.train(GradientReducer.LOCAL, null, 0).result().finalChecksum());
    assertThatThrownBy(() -> new BarrierRunner.Settings(0, 1, 0)).hasMessageContaining("workers");
  }
}
