package io.fanout.train;

import io.fanout.nn.ModelConfig;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * The checks of inductive inference: a checkpoint trained on one graph store scoring the vertices
 * of another, for example a store that adds vertices or edges to the training graph. The model's
 * inputs must mean what they meant in training, so the scoring store must agree with the training
 * store on the feature width and encoding (and the quantization parameters of an encoded store), on
 * how edges were shaped (undirected, dedupe, self-loops, weights) and, when it holds labels, on the
 * classes. Row normalization of the features is the model's own ({@code model.feature_norm}),
 * applied alike to every store.
 */
final class InductiveCheck {
  private InductiveCheck() {}

  /**
   * The recorded {@code prepare} options (a store manifest's {@code options}, by option name) that
   * decide what an edge or a neighborhood is.
   */
  private static final List<String> GRAPH_OPTIONS = List.of("undirected", "dedupe", "self-loops");

  /**
   * Checks that the checkpoint {@code ck} of {@code modelDir} was trained on {@code trainedOn}
   * (manifest {@code trained}) and may score {@code scoringRoot} (manifest {@code scoring}).
   *
   * @throws InvalidInputException naming the first disagreement and both stores
   */
  static void require(
      Path modelDir,
      Checkpoint ck,
      Path trainedOn,
      StoreManifest trained,
      Path scoringRoot,
      StoreManifest scoring) {
    String recorded = ck.meta().get("identity.graph");
    String actual = StoreFingerprints.of(trained);
    if (recorded == null) {
      throw new InvalidInputException(
          "the model in "
              + modelDir
              + " does not record the store it was trained on, so "
              + trainedOn
              + " cannot be checked as its training store; inductive inference needs a"
              + " checkpoint of a current train");
    }
    if (!recorded.equals(actual)) {
      throw new InvalidInputException(
          "the model in "
              + modelDir
              + " was not trained on "
              + trainedOn
              + " (its training store has fingerprint "
              + recorded
              + ", that store "
              + actual
              + "); give the store the model was trained on");
    }
    ModelConfig cfg = ck.modelConfig();
    String where = " but the model in " + modelDir + " was trained on " + trainedOn;
    if (scoring.featureDim != trained.featureDim) {
      throw new InvalidInputException(
          "feature dim mismatch: "
              + scoringRoot
              + " has feature_dim "
              + scoring.featureDim
              + where
              + ", whose feature_dim is "
              + trained.featureDim
              + "; the new vertices need features of the same width, in the same order");
    }
    if (!Objects.equals(scoring.featureEncoding, trained.featureEncoding)) {
      throw new InvalidInputException(
          "feature encoding mismatch: "
              + scoringRoot
              + " holds "
              + scoring.featureEncoding
              + " features"
              + where
              + ", which holds "
              + trained.featureEncoding
              + "; prepare the scoring store with the same feature encoding");
    }
    StoreManifest.FileEntry p = scoring.file(StoreLayout.FEATURE_PARAMS);
    StoreManifest.FileEntry q = trained.file(StoreLayout.FEATURE_PARAMS);
    String pc = p == null ? null : p.crc32c;
    String qc = q == null ? null : q.crc32c;
    if (!Objects.equals(pc, qc)) {
      throw new InvalidInputException(
          "feature encoding mismatch: the "
              + scoring.featureEncoding
              + " features of "
              + scoringRoot
              + " were quantized with other parameters ("
              + StoreLayout.FEATURE_PARAMS
              + ")"
              + where
              + "; the same codes would decode to other values");
    }
    if (scoring.classes != 0 && scoring.classes != cfg.classes()) {
      throw new InvalidInputException(
          "class count mismatch: "
              + scoringRoot
              + " has labels of "
              + scoring.classes
              + " classes but the model in "
              + modelDir
              + " predicts "
              + cfg.classes());
    }
    for (String o : GRAPH_OPTIONS) {
      String a = scoring.options.get(o);
      String b = trained.options.get(o);
      if (!Objects.equals(a, b)) {
        throw new InvalidInputException(
            "graph option mismatch: "
                + scoringRoot
                + " was prepared with "
                + o
                + " = '"
                + a
                + "'"
                + where
                + ", prepared with '"
                + b
                + "'; prepare the scoring store with the training store's graph options");
      }
    }
    if (scoring.weighted != trained.weighted) {
      throw new InvalidInputException(
          "graph option mismatch: "
              + scoringRoot
              + (scoring.weighted ? " has" : " has no")
              + " edge weights"
              + where
              + ", which has"
              + (trained.weighted ? "" : " none"));
    }
  }
}
