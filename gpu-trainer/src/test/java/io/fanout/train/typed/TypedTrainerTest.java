package io.fanout.train.typed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.fanout.graph.ArrayTypedGraph;
import io.fanout.graph.TypedGraph;
import io.fanout.nn.EmbeddingMode;
import io.fanout.nn.LrSchedule;
import io.fanout.nn.typed.SimpleTypedSampler;
import io.fanout.nn.typed.TypedModel;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.nn.typed.TypedModelKind;
import io.fanout.nn.typed.TypedTestGraphs;
import io.fanout.store.InvalidInputException;
import io.fanout.tensor.Backend;
import io.fanout.tensor.CheckingBackend;
import io.fanout.tensor.CpuBackend;
import io.fanout.train.EarlyStop;
import io.fanout.train.EarlyStopChecks;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Typed training: bit-identical parameters and embeddings for the same seed, the checking backend
 * equal to the CPU bit for bit, exact resume from a checkpoint, multi-label targets.
 */
class TypedTrainerTest {
  @TempDir Path dir;

  private static final TypedTrainOptions OPTS = new TypedTrainOptions(3, 6, 0.02f, 1e-4f, 5);

  private static TypedModelConfig config(TypedGraph g, TypedModelKind kind, int bases) {
    return TypedModelConfig.of(g.schema(), 0, kind, 8, 2, 0.2f, bases, EmbeddingMode.AUTO);
  }

  private static TypedSampler sampler(TypedGraph g) {
    SimpleTypedSampler s = new SimpleTypedSampler(g, 0, new int[] {4, 3}, 9);
    return s::sample;
  }

  /** The parameters, then every embedding table's values, after training {@code opts}. */
  private static float[] train(
      Backend be, TypedModelKind kind, int bases, TypedTrainOptions opts, Path modelDir) {
    ArrayTypedGraph g = TypedTestGraphs.small(3);
    try (TypedModel m = new TypedModel(config(g, kind, bases), be);
        TypedTrainer t = new TypedTrainer(m, g, sampler(g), opts)) {
      m.init(opts.seed());
      t.fit(modelDir, null);
      return TypedModelState.of(m);
    }
  }

  @Test
  void sameSeedGivesBitIdenticalParameters() {
    for (TypedModelKind kind : TypedModelKind.values()) {
      float[] a = train(new CpuBackend(), kind, 0, OPTS, null);
      float[] b = train(new CpuBackend(), kind, 0, OPTS, null);
      assertThat(b).as(kind.id()).containsExactly(a);
      float[] c =
          train(new CpuBackend(), kind, 0, new TypedTrainOptions(3, 6, 0.02f, 1e-4f, 6), null);
      assertThat(Arrays.equals(a, c)).as("another seed").isFalse();
    }
  }

  @Test
  void checkingBackendEqualsCpuBitForBit() {
    for (int bases : new int[] {0, 2}) {
      float[] cpu = train(new CpuBackend(), TypedModelKind.RGCN, bases, OPTS, null);
      try (CheckingBackend checked = new CheckingBackend(new CpuBackend())) {
        float[] chk = train(checked, TypedModelKind.RGCN, bases, OPTS, null);
        assertThat(chk).as("bases %d", bases).containsExactly(cpu);
        assertThat(checked.unclosed()).isZero();
      }
    }
    for (TypedModelKind kind : new TypedModelKind[] {TypedModelKind.HSAGE, TypedModelKind.HGN}) {
      float[] cpu = train(new CpuBackend(), kind, 0, OPTS, null);
      try (CheckingBackend checked = new CheckingBackend(new CpuBackend())) {
        assertThat(train(checked, kind, 0, OPTS, null)).as(kind.id()).containsExactly(cpu);
        assertThat(checked.unclosed()).as(kind.id()).isZero();
      }
    }
  }

  @Test
  void resumeFromCheckpointIsExact() {
    float[] straight =
        train(
            new CpuBackend(),
            TypedModelKind.RGCN,
            2,
            new TypedTrainOptions(4, 6, 0.02f, 0f, 5),
            null);
    Path md = dir.resolve("model");
    train(new CpuBackend(), TypedModelKind.RGCN, 2, new TypedTrainOptions(2, 6, 0.02f, 0f, 5), md);
    assertThat(md.resolve("checkpoint.emb-2.bin")).exists();
    float[] resumed =
        train(
            new CpuBackend(),
            TypedModelKind.RGCN,
            2,
            new TypedTrainOptions(4, 6, 0.02f, 0f, 5),
            md);
    assertThat(resumed).containsExactly(straight);
  }

  @Test
  void resumeRefusesOtherOptions() {
    Path md = dir.resolve("model2");
    train(new CpuBackend(), TypedModelKind.RGCN, 0, OPTS, md);
    assertThatThrownBy(
            () ->
                train(
                    new CpuBackend(),
                    TypedModelKind.RGCN,
                    0,
                    new TypedTrainOptions(5, 6, 0.05f, 1e-4f, 5),
                    md))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("lr=0.02");
  }

  /** The state after each of {@code opts.epochs()} epochs trained one by one. */
  private static float[][] epochStates(TypedTrainOptions opts) {
    ArrayTypedGraph g = TypedTestGraphs.small(3);
    try (TypedModel m = new TypedModel(config(g, TypedModelKind.RGCN, 0), new CpuBackend());
        TypedTrainer t = new TypedTrainer(m, g, sampler(g), opts)) {
      m.init(opts.seed());
      float[][] out = new float[opts.epochs()][];
      for (int e = 0; e < opts.epochs(); e++) {
        t.trainEpoch(e);
        out[e] = TypedModelState.of(m);
      }
      return out;
    }
  }

  private static final int PATIENCE = 2;

  /**
   * Trains with {@code --early-stop} {@link #PATIENCE} up to {@code epochs} into {@code md}, from
   * its checkpoint when there is one.
   */
  private static TypedTrainer.FitResult trainStopping(int epochs, Path md) {
    ArrayTypedGraph g = TypedTestGraphs.small(3);
    TypedTrainOptions opts = new TypedTrainOptions(epochs, 6, 0.02f, 1e-4f, 5);
    try (TypedModel m = new TypedModel(config(g, TypedModelKind.RGCN, 0), new CpuBackend());
        TypedTrainer t =
            new TypedTrainer(m, g, sampler(g), opts).stopEarly(new EarlyStop(PATIENCE))) {
      m.init(opts.seed());
      return t.fit(md, null);
    }
  }

  /** The state of the model in checkpoint {@code name} of {@code md}. */
  private static float[] restored(Path md, String name) {
    TypedCheckpoint.Loaded l = TypedCheckpoint.read(md, name);
    try (TypedModel m = new TypedModel(l.config(), new CpuBackend())) {
      TypedCheckpoint.restore(md, l, m, null);
      return TypedModelState.of(m);
    }
  }

  @Test
  void earlyStopEndsWhereItsMetricsSayKeepsTheBestEpochAndResumesToTheSameStop() {
    int epochs = 16;
    Path md = dir.resolve("early");
    TypedTrainer.FitResult r = trainStopping(epochs, md);
    List<JsonNode> lines = EarlyStopChecks.read(md);
    int[] bs = EarlyStopChecks.bestAndStop(lines, "val_micro_f1", PATIENCE);
    int best = bs[0];
    int stop = bs[1];
    assertThat(stop).as("the run stops before its last epoch").isBetween(PATIENCE, epochs - 2);
    assertThat(lines).hasSize(stop + 1);
    assertThat(r.epochsRun()).isEqualTo(stop + 1);
    assertThat(r.bestEpoch()).isEqualTo(best + 1);
    assertThat(lines.get(stop).get("stopped_early").asBoolean()).isTrue();
    // typed metrics lines count epochs from 1
    assertThat(lines.get(stop).get("best_epoch").asInt()).isEqualTo(best + 1);
    assertThat(lines.get(stop - 1).has("stopped_early")).isFalse();
    float[][] states = epochStates(new TypedTrainOptions(stop + 1, 6, 0.02f, 1e-4f, 5));
    assertThat(restored(md, "best.bin")).containsExactly(states[best]);
    assertThat(restored(md, "checkpoint.bin")).containsExactly(states[stop]);

    // resuming the stopped run trains nothing and changes no file
    Map<String, byte[]> before = EarlyStopChecks.files(md);
    assertThat(trainStopping(epochs, md).epochsRun()).isZero();
    Map<String, byte[]> after = EarlyStopChecks.files(md);
    assertThat(after).containsOnlyKeys(before.keySet());
    before.forEach((f, bytes) -> assertThat(after.get(f)).as(f).isEqualTo(bytes));

    // interrupted after `stop` epochs (patience - 1 of them without a better score): the resumed
    // run counts on from the checkpoint and ends as the uninterrupted one, file for file
    Path cut = dir.resolve("cut");
    trainStopping(stop, cut);
    assertThat(trainStopping(epochs, cut).epochsRun()).isEqualTo(1);
    Map<String, byte[]> resumed = EarlyStopChecks.files(cut);
    assertThat(resumed).containsOnlyKeys(before.keySet());
    for (String f : before.keySet()) {
      if (!f.equals("metrics.jsonl")) { // its lines hold no timings, but compare them as lines
        assertThat(resumed.get(f)).as(f).isEqualTo(before.get(f));
      }
    }
    assertThat(EarlyStopChecks.read(cut)).isEqualTo(lines);
  }

  @Test
  void aScheduleSetsEachEpochsRateAndResumeKeepsIt() {
    // cosine over 2 epochs: the base rate in epoch 0, half of it in epoch 1
    TypedTrainOptions cosine = new TypedTrainOptions(2, 6, 0.02f, 1e-4f, 5, LrSchedule.COSINE);
    float[][] c = epochStates(cosine);
    float[][] k = epochStates(new TypedTrainOptions(2, 6, 0.02f, 1e-4f, 5));
    assertThat(c[0]).containsExactly(k[0]);
    assertThat(Arrays.equals(c[1], k[1])).isFalse();
    assertThat(train(new CpuBackend(), TypedModelKind.RGCN, 0, cosine, null)).containsExactly(c[1]);

    Path md = dir.resolve("cosine");
    train(
        new CpuBackend(),
        TypedModelKind.RGCN,
        0,
        new TypedTrainOptions(1, 6, 0.02f, 1e-4f, 5, LrSchedule.COSINE),
        md);
    assertThat(train(new CpuBackend(), TypedModelKind.RGCN, 0, cosine, md)).containsExactly(c[1]);
    assertThatThrownBy(
            () ->
                train(
                    new CpuBackend(),
                    TypedModelKind.RGCN,
                    0,
                    new TypedTrainOptions(3, 6, 0.02f, 1e-4f, 5),
                    md))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("schedule=cosine");
  }

  @Test
  void aCheckpointWrittenBeforeSchedulesResumesAsConstant() {
    TypedTrainOptions constant = new TypedTrainOptions(2, 6, 0.02f, 1e-4f, 5);
    float[][] k = epochStates(constant);
    Path md = dir.resolve("before-schedules");
    train(
        new CpuBackend(), TypedModelKind.RGCN, 0, new TypedTrainOptions(1, 6, 0.02f, 1e-4f, 5), md);
    // the checkpoint as runs before the schedule existed wrote it: no identity.schedule
    io.fanout.train.Checkpoint c = io.fanout.train.Checkpoint.read(md);
    java.util.Map<String, String> meta = new java.util.LinkedHashMap<>(c.meta());
    assertThat(meta.remove("identity.schedule")).isEqualTo("constant");
    io.fanout.train.Checkpoint.write(
        md, meta, c.epochs(), c.step(), c.params(), c.firstMoment(), c.secondMoment());
    assertThat(train(new CpuBackend(), TypedModelKind.RGCN, 0, constant, md)).containsExactly(k[1]);
    assertThatThrownBy(
            () ->
                train(
                    new CpuBackend(),
                    TypedModelKind.RGCN,
                    0,
                    new TypedTrainOptions(3, 6, 0.02f, 1e-4f, 5, LrSchedule.COSINE),
                    md))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("schedule=constant");
  }

  @Test
  void checkpointRestoresTheModel() {
    Path md = dir.resolve("model3");
    ArrayTypedGraph g = TypedTestGraphs.small(3);
    F1Scores before;
    try (TypedModel m = new TypedModel(config(g, TypedModelKind.HSAGE, 0), new CpuBackend());
        TypedTrainer t = new TypedTrainer(m, g, sampler(g), OPTS)) {
      m.init(OPTS.seed());
      t.fit(md, null);
      before = t.evaluate(io.fanout.store.StoreLayout.SPLIT_TEST);
    }
    TypedCheckpoint.Loaded l = TypedCheckpoint.read(md, "checkpoint.bin");
    try (TypedModel m = new TypedModel(l.config(), new CpuBackend())) {
      TypedCheckpoint.restore(md, l, m, null);
      int[] test = TypedEvaluation.seeds(g, 0, io.fanout.store.StoreLayout.SPLIT_TEST);
      F1Scores after =
          TypedEvaluation.scores(m, g, sampler(g), test, OPTS.batchSize(), OPTS.seed());
      assertThat(after.toString()).isEqualTo(before.toString());
    }
  }

  @Test
  void multiLabelTrainingLowersTheLoss() {
    TypedGraph g = MultiLabelGraph.of(TypedTestGraphs.small(4));
    TypedModelConfig cfg =
        TypedModelConfig.of(g.schema(), 0, TypedModelKind.RGCN, 8, 2, 0f, 0, EmbeddingMode.AUTO);
    assertThat(cfg.multiLabel()).isTrue();
    SimpleTypedSampler s = new SimpleTypedSampler(g, 0, new int[] {4, 3}, 9);
    try (TypedModel m = new TypedModel(cfg, new CpuBackend());
        TypedTrainer t =
            new TypedTrainer(m, g, s::sample, new TypedTrainOptions(1, 100, 0.05f, 0f, 1))) {
      m.init(1);
      double first = t.trainEpoch(0);
      double last = first;
      for (int e = 1; e < 60; e++) {
        last = t.trainEpoch(e);
      }
      assertThat(last).isLessThan(first * 0.5);
      F1Scores train = t.evaluate(io.fanout.store.StoreLayout.SPLIT_TRAIN);
      assertThat(train.microF1()).isGreaterThan(0.8);
    }
  }

  @Test
  void multiLabelTargetsMatchTheHostLoss() {
    TypedGraph g = MultiLabelGraph.of(TypedTestGraphs.small(4));
    io.fanout.sample.TypedMiniBatch b =
        new SimpleTypedSampler(g, 0, new int[] {2, 2}, 9).sample(0, 0, new int[] {0, 1, 2, 5});
    int rows = 4;
    int classes = 4;
    float[] logits = new float[rows * classes];
    for (int i = 0; i < logits.length; i++) {
      logits[i] = (i % 7) * 0.5f - 1.5f;
    }
    float[] want = new float[logits.length];
    double ref =
        MultiLabelLoss.lossAndGradient(
            logits, rows, classes, b.labelPtr(), b.labelIds(), want, 0.25f);
    CpuBackend cpu = new CpuBackend();
    float[] got = new float[logits.length];
    double loss =
        cpu.sigmoidCrossEntropy(
            cpu.wrap(logits),
            rows,
            classes,
            cpu.wrap(TypedTrainer.targets(b, classes)),
            cpu.wrap(new float[logits.length]),
            cpu.wrap(got),
            0.25f);
    assertThat(loss).isCloseTo(ref, org.assertj.core.api.Assertions.within(1e-5));
    for (int i = 0; i < got.length; i++) {
      assertThat(got[i]).isCloseTo(want[i], org.assertj.core.api.Assertions.within(1e-6f));
    }
  }
}
