package io.fanout.bench.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.FanoutConfigException;
import io.fanout.store.InvalidInputException;
import io.fanout.tensor.CpuBackend;
import io.fanout.train.FeatureAccessMode;
import io.fanout.train.HotBy;
import io.fanout.train.HotReuse;
import io.fanout.train.ReuseBackward;
import io.fanout.train.ReuseRefresh;
import io.fanout.train.ReuseRows;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The Spark-free bench-train entry point's argument parsing. */
class TrainBenchmarkMainTest {
  @Test
  void readsOptionValuePairs() {
    assertThat(TrainBenchmarkMain.parse(new String[] {"--backend", "cuda", "--batches", "5"}))
        .containsEntry("backend", "cuda")
        .containsEntry("batches", "5")
        .hasSize(2);
  }

  /** The options are bench-train's definitions, with its defaults. */
  @Test
  void readsBenchTrainsDefinitions() {
    io.fanout.conf.FanoutConf c = TrainBenchmarkMain.conf(TrainBenchmarkMain.parse(new String[0]));
    assertThat(c.get(io.fanout.conf.options.BenchTrainOptions.NUM_VERTICES)).isEqualTo(2_500_000L);
    assertThat(c.get(io.fanout.conf.options.BenchTrainOptions.FANOUTS)).isEqualTo("15,10,5");
    assertThat(c.get(io.fanout.conf.options.BenchTrainOptions.LOADER_ONLY)).isZero();
    assertThat(io.fanout.conf.options.BenchTrainOptions.SPARK_FREE)
        .contains(
            io.fanout.conf.options.TrainCommandOptions.BACKEND,
            io.fanout.conf.options.TrainCommandOptions.PRECISION,
            io.fanout.conf.options.BenchTrainOptions.SGEMM_SIZE)
        .hasSize(30);
    assertThat(c.get(io.fanout.conf.options.BenchTrainOptions.SGEMM_SIZE)).isEqualTo(2048);
  }

  /**
   * The peer options are bench-train's definitions: values checked by them (option errors, exit 2)
   * and by the run (input errors, exit 2) before anything is exported.
   */
  @Test
  void peerOptionsAreBenchTrainsAndBadValuesAreRefused(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
    io.fanout.conf.FanoutConf c =
        TrainBenchmarkMain.conf(
            TrainBenchmarkMain.parse(
                new String[] {
                  "--peer",
                  "torch",
                  "--peer-rounds",
                  "2",
                  "--export-batches",
                  "/tmp/x",
                  "--peer-script",
                  "s.py",
                  "--dropout",
                  "0"
                }));
    assertThat(c.get(io.fanout.conf.options.BenchTrainOptions.PEER))
        .isEqualTo(io.fanout.conf.options.TrainPeer.TORCH);
    assertThat(c.get(io.fanout.conf.options.BenchTrainOptions.PEER_ROUNDS)).isEqualTo(2);
    assertThat(c.get(io.fanout.conf.options.BenchTrainOptions.EXPORT_BATCHES)).isEqualTo("/tmp/x");
    assertThat(c.get(io.fanout.conf.options.BenchTrainOptions.PEER_SCRIPT)).isEqualTo("s.py");
    assertThatThrownBy(
            () ->
                TrainBenchmarkMain.conf(java.util.Map.of("peer", "pytorch"))
                    .get(io.fanout.conf.options.BenchTrainOptions.PEER))
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageContaining("expected one of none|torch");
    assertThatThrownBy(
            () ->
                TrainBenchmarkMain.conf(java.util.Map.of("peer-rounds", "x"))
                    .get(io.fanout.conf.options.BenchTrainOptions.PEER_ROUNDS))
        .isInstanceOf(FanoutConfigException.class);
    assertThatThrownBy(() -> TrainBenchmarkMain.parse(new String[] {"--peer-script"}))
        .isInstanceOf(InvalidInputException.class);
    TrainBenchmark.Settings s = settings(FeatureAccessMode.AUTO);
    CpuBackend cpu = new CpuBackend();
    assertThatThrownBy(() -> new PeerBenchmarkRun(s, cpu, 1f, "", null, 1))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--dropout must be in [0, 1)");
    assertThatThrownBy(() -> new PeerBenchmarkRun(s, cpu, 0f, "", null, 0))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--peer-rounds must be at least 1");
    assertThatThrownBy(
            () ->
                TrainBenchmarkMain.peerRun(
                    TrainBenchmarkMain.conf(
                        java.util.Map.of(
                            "peer", "torch", "peer-script", dir.resolve("no.py").toString())),
                    s,
                    cpu))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("no.py: no such file");
    // export only: no peer, the batches and the table in the directory
    java.util.Map<String, Object> r =
        new PeerBenchmarkRun(s, cpu, 0f, dir.resolve("e").toString(), null, 1).run(System.err);
    assertThat(r).containsEntry("batches", 1);
    assertThat(dir.resolve("e").resolve(PeerExport.FEATURES)).exists();
  }

  @Test
  void unknownOrDanglingOptionsAreInputErrors() {
    assertThatThrownBy(() -> TrainBenchmarkMain.parse(new String[] {"--verify-rounds", "1"}))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("got '--verify-rounds'");
    assertThatThrownBy(() -> TrainBenchmarkMain.parse(new String[] {"--backend"}))
        .isInstanceOf(InvalidInputException.class);
  }

  @Test
  void reuseOptionsTakeTrainsDefaultsAndBadValuesAreOptionErrors() {
    HotReuse none = TrainBenchmarkMain.reuse(TrainBenchmarkMain.parse(new String[0]));
    assertThat(none.enabled()).isFalse();
    assertThat(none)
        .isEqualTo(
            new HotReuse(
                0,
                HotReuse.AUTO_STALENESS,
                HotBy.FREQUENCY,
                ReuseRefresh.AUTO,
                ReuseBackward.NONE,
                ReuseRows.INPUTS));
    assertThat(
            TrainBenchmarkMain.reuse(
                TrainBenchmarkMain.parse(
                    new String[] {
                      "--reuse-hot", "0.05", "--staleness", "8", "--hot-by", "in-degree"
                    })))
        .isEqualTo(
            new HotReuse(
                0.05, 8, HotBy.IN_DEGREE, ReuseRefresh.AUTO, ReuseBackward.NONE, ReuseRows.INPUTS));
    // the deferred backward applies to outputs, which auto then picks
    assertThat(
            TrainBenchmarkMain.reuse(
                    TrainBenchmarkMain.parse(
                        new String[] {"--reuse-hot", "0.05", "--reuse-backward", "deferred"}))
                .rows())
        .isEqualTo(ReuseRows.OUTPUTS);
    assertThatThrownBy(
            () ->
                TrainBenchmarkMain.reuse(
                    TrainBenchmarkMain.parse(new String[] {"--reuse-hot", "x"})))
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageContaining("option 'reuse-hot' of bench-train has value 'x'");
    assertThatThrownBy(
            () ->
                TrainBenchmarkMain.reuse(
                    TrainBenchmarkMain.parse(new String[] {"--staleness", "0"})))
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageContaining("option 'staleness' of bench-train has value '0'");
  }

  @Test
  void featureAccessIsGatherOrZeroCopyAndZeroCopyNeedsCuda() {
    assertThat(TrainBenchmarkMain.parse(new String[] {"--feature-access", "zero-copy"}))
        .containsEntry("feature-access", "zero-copy");
    assertThatThrownBy(
            () ->
                TrainBenchmarkMain.conf(java.util.Map.of("feature-access", "mapped"))
                    .get(io.fanout.conf.options.TrainCommandOptions.FEATURE_ACCESS))
        .hasMessageContaining("expected one of gather|zero-copy");
    assertThatThrownBy(
            () -> TrainBenchmark.run(settings(FeatureAccessMode.ZERO_COPY), new CpuBackend()))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("zero-copy is measured on the CUDA backend only");
    assertThatThrownBy(
            () ->
                HotReuseBenchmark.run(
                    settings(FeatureAccessMode.ZERO_COPY),
                    new CpuBackend(),
                    new HotReuse(0.1, 4, HotBy.FREQUENCY),
                    1))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("zero-copy is measured on the CUDA backend only");
  }

  /**
   * With a feature-cache fraction the rows go to a feature file and are read through a belady cache
   * whose pages the backend reads in place (here the CPU's heap pages): every batch row is a hit or
   * a miss, each miss one row read, and the cache holds the fraction's rows.
   */
  @Tag("slow")
  @Test
  void aFeatureCacheFractionReadsTheRowsThroughTheCachesPages() {
    TrainBenchmark.Settings s =
        new TrainBenchmark.Settings(
            3000,
            20000,
            8,
            8,
            new int[] {4, 3},
            64,
            6,
            1,
            2,
            2,
            8,
            0,
            FeatureAccessMode.ZERO_COPY,
            0.05,
            3,
            64);
    java.util.Map<String, Object> out = TrainBenchmark.run(s, new CpuBackend());
    assertThat(out)
        .containsEntry("feature_cache", "belady")
        .containsEntry("feature_cache_rows", 150);
    long hits = ((Number) out.get("feature_cache_hits")).longValue();
    long misses = ((Number) out.get("feature_cache_misses")).longValue();
    assertThat(hits).isPositive();
    assertThat(misses).isPositive();
    assertThat(out.get("feature_cache_rows_read")).isEqualTo(misses);
    assertThat(out.get("feature_cache_bytes_read")).isEqualTo(misses * 8 * 4);
    assertThatThrownBy(
            () ->
                new TrainBenchmark.Settings(
                    100,
                    400,
                    8,
                    8,
                    new int[] {2},
                    16,
                    1,
                    0,
                    1,
                    1,
                    8,
                    0,
                    FeatureAccessMode.GATHER,
                    0.05,
                    4))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("needs --feature-access zero-copy");
  }

  private static TrainBenchmark.Settings settings(FeatureAccessMode access) {
    return new TrainBenchmark.Settings(100, 400, 8, 8, new int[] {2}, 16, 1, 0, 1, 1, 8, 0, access);
  }

  /** The loader alone: every batch of every round comes, in order; bad round counts refused. */
  @Test
  void theLoaderAloneReportsItsBatchesPerRound() {
    TrainBenchmark.Settings s =
        new TrainBenchmark.Settings(
            2_000,
            20_000,
            8,
            16,
            new int[] {4, 3},
            64,
            7,
            0,
            3,
            1,
            8,
            0,
            FeatureAccessMode.ZERO_COPY,
            0,
            1);
    java.util.Map<String, Object> out = LoaderBenchmark.run(s, 2);
    assertThat(out).containsEntry("batches", 7).containsEntry("loader_threads", 3);
    assertThat((double) out.get("ms_per_batch")).isPositive();
    assertThat((long) out.get("mean_nodes_per_batch")).isGreaterThan(64L);
    // parts of 3 batches, as shard files of 3 batches: the same 7 batches
    java.util.Map<String, Object> parts = LoaderBenchmark.run(s, 1, 3);
    assertThat(parts).containsEntry("batches_per_part", 3);
    assertThat(parts.get("mean_nodes_per_batch"))
        .isEqualTo(LoaderBenchmark.run(s, 1).get("mean_nodes_per_batch"));
    assertThatThrownBy(() -> LoaderBenchmark.run(s, 1, 0))
        .hasMessageContaining("batches per part must be at least 1, got 0");
    assertThatThrownBy(() -> LoaderBenchmark.run(s, 0))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--loader-only expects a number of rounds of at least 1, got 0");
  }
}
