package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.nn.ModelConfig;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link InductiveCheck}: what a scoring store must share with the training store, by name. */
class InductiveCheckTest {
  @TempDir Path tmp;

  static final Path TRAINED = Path.of("trained-store");
  static final Path SCORING = Path.of("scoring-store");

  static StoreManifest store(Consumer<StoreManifest> change) {
    StoreManifest m = new StoreManifest();
    m.vertices = 10;
    m.edges = 20;
    m.featureDim = 8;
    m.classes = 3;
    m.inputFingerprint = "input";
    m.options.put("undirected", "true");
    m.options.put("dedupe", "true");
    m.options.put("self-loops", "drop");
    change.accept(m);
    return m;
  }

  Checkpoint checkpoint(StoreManifest trainedOn) {
    Map<String, String> meta = new TreeMap<>();
    new ModelConfig("sage", 8, 4, 3, 2, 0f, "relu", "l2")
        .toMap()
        .forEach((k, v) -> meta.put("model." + k, v));
    if (trainedOn != null) {
      meta.put("identity.graph", StoreFingerprints.of(trainedOn));
    }
    Checkpoint.write(tmp, meta, 1, 1, new float[0], new float[0], new float[0]);
    return Checkpoint.read(tmp);
  }

  void check(StoreManifest trained, Checkpoint ck, StoreManifest scoring) {
    InductiveCheck.require(tmp, ck, TRAINED, trained, SCORING, scoring);
  }

  @Test
  void aStoreWithMoreVerticesAndEdgesOrWithoutLabelsPasses() {
    StoreManifest trained = store(m -> {});
    Checkpoint ck = checkpoint(trained);
    assertThatCode(
            () ->
                check(
                    trained,
                    ck,
                    store(
                        m -> {
                          m.vertices = 12;
                          m.edges = 30;
                          m.inputFingerprint = "other input";
                        })))
        .doesNotThrowAnyException();
    assertThatCode(() -> check(trained, ck, store(m -> m.classes = 0))).doesNotThrowAnyException();
  }

  @Test
  void eachDisagreementIsNamed() {
    StoreManifest trained = store(m -> {});
    Checkpoint ck = checkpoint(trained);
    assertThatThrownBy(() -> check(trained, ck, store(m -> m.featureDim = 4)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("feature dim mismatch: " + SCORING + " has feature_dim 4")
        .hasMessageContaining("whose feature_dim is 8");
    assertThatThrownBy(() -> check(trained, ck, store(m -> m.featureEncoding = "f16")))
        .hasMessageContaining("feature encoding mismatch")
        .hasMessageContaining("holds f16 features")
        .hasMessageContaining("which holds f32");
    assertThatThrownBy(() -> check(trained, ck, store(m -> m.classes = 5)))
        .hasMessageContaining("class count mismatch")
        .hasMessageContaining("labels of 5 classes")
        .hasMessageContaining("predicts 3");
    assertThatThrownBy(() -> check(trained, ck, store(m -> m.options.put("undirected", "false"))))
        .hasMessageContaining("graph option mismatch")
        .hasMessageContaining("undirected = 'false'");
    assertThatThrownBy(() -> check(trained, ck, store(m -> m.options.put("self-loops", "keep"))))
        .hasMessageContaining("self-loops = 'keep'");
    assertThatThrownBy(() -> check(trained, ck, store(m -> m.weighted = true)))
        .hasMessageContaining("graph option mismatch")
        .hasMessageContaining("has edge weights");
  }

  @Test
  void quantizedStoresMustShareTheirParameters() {
    Consumer<StoreManifest> int8 =
        m -> {
          m.featureEncoding = "int8";
          m.files.add(new StoreManifest.FileEntry(StoreLayout.FEATURE_PARAMS, 64, "0000abcd"));
        };
    StoreManifest trained = store(int8);
    Checkpoint ck = checkpoint(trained);
    assertThatCode(() -> check(trained, ck, store(int8))).doesNotThrowAnyException();
    assertThatThrownBy(
            () ->
                check(
                    trained,
                    ck,
                    store(
                        m -> {
                          m.featureEncoding = "int8";
                          m.files.add(
                              new StoreManifest.FileEntry(
                                  StoreLayout.FEATURE_PARAMS, 64, "1111abcd"));
                        })))
        .hasMessageContaining("quantized with other parameters");
  }

  @Test
  void theTrainingStoreIsCheckedByTheCheckpointsRecord() {
    StoreManifest trained = store(m -> {});
    StoreManifest another = store(m -> m.inputFingerprint = "another input");
    assertThatThrownBy(() -> check(another, checkpoint(trained), trained))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("was not trained on " + TRAINED);
    assertThatThrownBy(() -> check(trained, checkpoint(null), trained))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("does not record the store it was trained on");
  }
}
