package io.fanout.train.typed;

import io.fanout.graph.TypedGraph;
import io.fanout.nn.ModelKind;
import java.nio.file.Path;

/** The small typed runs the typed training tests share. */
final class TypedTestRuns {
  private TypedTestRuns() {}

  /**
   * A verified run of a width-8 R-GCN (dropout 0.2, learning rate 0.02, weight decay 1e-4, seed 5)
   * on {@code g} from {@code shards} into {@code modelDir}; the epochs and anything else the test
   * sets itself.
   */
  static TypedTrainRun.Builder rgcn(TypedGraph g, Path shards, Path modelDir) {
    return TypedTrainRun.Request.builder(g, shards, modelDir)
        .model(ModelKind.RGCN)
        .hidden(8)
        .dropout(0.2f)
        .lr(0.02f)
        .weightDecay(1e-4f)
        .seed(5)
        .verify(true);
  }
}
