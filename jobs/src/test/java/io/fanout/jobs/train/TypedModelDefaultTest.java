package io.fanout.jobs.train;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.spark.ml.TypedGnnClassifier;
import io.fanout.train.Defaults;
import org.junit.jupiter.api.Test;

/**
 * The architecture of typed graphs where none is named is one: {@code quickstart}'s on a typed
 * dataset and the Spark ML {@link TypedGnnClassifier}'s default {@code modelType}, both {@link
 * Defaults#TYPED_MODEL}.
 */
class TypedModelDefaultTest {
  @Test
  void theTypedQuickstartAndTheSparkMlStageDefaultToTheSameModel() {
    assertThat(TypedEndToEnd.Settings.defaults().model()).isEqualTo(Defaults.TYPED_MODEL.id());
    assertThat(new TypedGnnClassifier().getModelType()).isEqualTo(Defaults.TYPED_MODEL.id());
  }
}
