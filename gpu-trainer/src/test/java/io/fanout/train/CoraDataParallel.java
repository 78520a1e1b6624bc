package io.fanout.train;

import io.fanout.nn.LrSchedule;
import io.fanout.nn.ModelConfig;
import io.fanout.store.StoreLayout;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * The data-parallel cora run of {@link DataParallelTrainerTest} and {@code CudaDataParallelTest}: a
 * two-layer sage model, 40 epochs, 140 training seeds in batches of 35 with fanouts 15 and 10.
 */
final class CoraDataParallel {
  final TestData d;
  final int[] train;
  final ModelConfig cfg;
  final TrainOptions opts = new TrainOptions(40, 0.01f, 5e-4f, LrSchedule.parse("constant"), 3L);

  CoraDataParallel() throws IOException {
    d = TestData.load("cora");
    train = d.vertices.ofSplit(StoreLayout.SPLIT_TRAIN);
    cfg = new ModelConfig("sage", d.features.dim(), 128, d.classes, 2, 0.5f, "relu", "l2");
  }

  /**
   * Trains {@code t} on rank {@code rank}'s share of {@code workers} of every epoch into {@code
   * dir}.
   */
  void fit(Trainer t, int rank, int workers, Path dir) {
    SampledEpochs all =
        new SampledEpochs(
            d.csr,
            d.vertices,
            d.features,
            train,
            new int[] {15, 10},
            35,
            opts.seed(),
            true,
            cfg.featureNorm(),
            1);
    t.fit(
        new ShardedEpochData(all, rank, workers),
        null,
        dir,
        false,
        Map.of("dataset", "cora"),
        null,
        0);
  }
}
