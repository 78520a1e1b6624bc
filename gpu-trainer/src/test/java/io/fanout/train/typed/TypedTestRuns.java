package io.fanout.train.typed;

import io.fanout.graph.TypedGraph;
import io.fanout.graph.TypedGraphStore;
import io.fanout.nn.ModelKind;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;

/** The small typed runs the typed training tests share. */
final class TypedTestRuns {
  private TypedTestRuns() {}

  /**
   * A verified run of a width-8 R-GCN (dropout 0.2, learning rate 0.02, weight decay 1e-4, seed 5)
   * on {@code g} from {@code shards} into {@code modelDir}; the epochs and anything else the test
   * sets itself.
   */
  static TypedTrainRequest.Builder rgcn(TypedGraph g, Path shards, Path modelDir) {
    return TypedTrainRequest.builder(g, shards, modelDir)
        .model(ModelKind.RGCN)
        .hidden(8)
        .dropout(0.2f)
        .lr(0.02f)
        .weightDecay(1e-4f)
        .seed(5)
        .verify(true);
  }

  /**
   * Trains the run {@code request} makes on the typed store at {@code store}; the bytes of the
   * checkpoint it writes, the run's log appended to {@code log} (null: none kept).
   */
  static byte[] train(
      Path store, Function<TypedGraph, TypedTrainRequest> request, StringBuilder log)
      throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Path modelDir;
    try (TypedGraphStore g = TypedGraphStore.open(store, false);
        PrintStream progress = new PrintStream(out, true, StandardCharsets.UTF_8)) {
      TypedTrainRequest r = request.apply(g);
      modelDir = r.modelDir();
      TypedTrainRun.train(r, progress, () -> false);
    }
    if (log != null) {
      log.append(out.toString(StandardCharsets.UTF_8));
    }
    return Files.readAllBytes(modelDir.resolve("checkpoint.bin"));
  }
}
