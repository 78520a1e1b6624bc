package io.fanout.train;

import io.fanout.nn.ActivationKind;
import io.fanout.nn.FeatureNormKind;
import io.fanout.nn.LrSchedule;
import io.fanout.nn.ModelKind;

/**
 * The documented default hyperparameters (see {@code docs/training.md}), chosen on cora, citeseer,
 * amazon_photo and coauthor_cs: GraphSAGE with 2 layers sampled with fanouts 25,10. The one source
 * of the defaults of {@code bin/fanout train}, {@code quickstart} and {@code TrainSpec.defaults}.
 */
public final class Defaults {
  private Defaults() {}

  public static final ModelKind MODEL = ModelKind.SAGE;

  /**
   * The architecture of typed graphs where none is named: that of {@code quickstart} on a typed
   * dataset and of the Spark ML {@code TypedGnnClassifier} ({@code train} itself needs {@code
   * --model} on a typed store, since its default, {@link #MODEL}, is a one-type architecture).
   */
  public static final ModelKind TYPED_MODEL = ModelKind.RGCN;

  public static final int HIDDEN = 256;
  public static final double DROPOUT = 0.5;
  public static final ActivationKind ACTIVATION = ActivationKind.RELU;
  public static final FeatureNormKind FEATURE_NORM = FeatureNormKind.L2;

  /**
   * How a training step gets its input features: {@code auto} resolves per run to {@code device}
   * (the encoded rows copied once into device memory), {@code zero-copy} (read in place from the
   * mapped store) or {@code gather} (gathered on the host and uploaded), see {@link
   * FeatureAccessChoice}.
   */
  public static final FeatureAccessMode FEATURE_ACCESS = FeatureAccessMode.AUTO;

  public static final double LR = 0.005;
  public static final double WEIGHT_DECAY = 5e-4;
  public static final LrSchedule SCHEDULE = LrSchedule.CONSTANT;
  public static final int EPOCHS = 50;
  public static final int BATCH_SIZE = 512;

  /** Recommended fanouts for {@code sample} (2 layers). */
  public static final int[] FANOUTS = {25, 10};

  /** Fanouts of sampled inference per layer. */
  public static final int INFERENCE_FANOUT = 20;
}
