package io.fanout.spark.ml;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.OptionDef;
import io.fanout.conf.SharedOptions;
import io.fanout.conf.options.NegativeMode;
import io.fanout.conf.options.PrepareOptions;
import io.fanout.conf.options.SampleOptions;
import io.fanout.conf.options.SelfLoopPolicy;
import io.fanout.conf.options.TrainCommandOptions;
import io.fanout.nn.ActivationKind;
import io.fanout.nn.DecoderKind;
import io.fanout.nn.EmbeddingMode;
import io.fanout.nn.FeatureNormKind;
import io.fanout.nn.ModelKind;
import io.fanout.nn.typed.HgnSettings;
import io.fanout.sample.Fanouts;
import io.fanout.sample.TypedFanouts;
import io.fanout.train.Defaults;
import java.io.Serializable;
import java.util.List;
import java.util.Map;
import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntArrayParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.Params;

/**
 * The Params of the GNN stages of this package, made for one owner (their parent is the owner's
 * uid) and given their defaults from the command line's option definitions ({@code
 * io.fanout.conf.options}): a default changed there changes here. The Params of the other kind of
 * stage are null.
 */
public final class GnnParamSet implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Which stages own the set: they share {@link GnnStageParams} and add their own. */
  enum Kind {
    /** {@link GnnClassifierParams}. */
    CLASSIFIER,
    /** {@link GnnLinkParams}. */
    LINK,
    /** {@link TypedGnnParams}: node classification on a typed graph. */
    TYPED_CLASSIFIER;

    /** Whether the stage trains a one-type graph ({@link GnnGraphParams}). */
    boolean oneType() {
      return this != TYPED_CLASSIFIER;
    }

    /** Whether the stage classifies nodes ({@link GnnNodeParams}). */
    boolean node() {
      return this != LINK;
    }
  }

  final Kind kind;

  final Param<String> idCol;
  final Param<String> featuresCol;
  final Param<String> labelCol;
  final Param<String> splitCol;
  final Param<String> srcCol;
  final Param<String> dstCol;
  final BooleanParam undirected;
  final BooleanParam dedupe;
  final Param<String> selfLoops;
  final IntArrayParam fanouts;
  final IntParam batchSize;
  final IntParam sampleEpochs;
  final Param<String> modelType;
  final IntParam hidden;
  final DoubleParam dropout;
  final Param<String> activation;
  final Param<String> featureNorm;
  final DoubleParam learningRate;
  final DoubleParam weightDecay;
  final IntParam epochs;
  final LongParam seed;
  final Param<String> workDir;
  final Param<String> predictionCol;
  final Param<String> probabilityCol;
  final Param<String> embeddingCol;
  final Param<String> edgeSplit;
  final Param<String> negatives;
  final IntParam numNegatives;
  final Param<String> decoder;
  final Param<String> scoreCol;
  final Param<String> targetType;
  final Param<String> relationFanouts;
  final BooleanParam addReverse;
  final Param<String> learnedEmbeddings;
  final IntParam heads;
  final DoubleParam attnSlope;
  final DoubleParam attnDropout;
  final DoubleParam attnResidual;
  final IntParam inputWidth;
  final IntParam earlyStop;
  final IntParam bases;
  final Param<String> labelsCol;

  GnnParamSet(Params owner, Kind kind) {
    this.kind = kind;
    String who = owner.getClass().getSimpleName();
    boolean link = !kind.node();
    boolean typed = !kind.oneType();
    idCol = column(owner, who, "idCol", "vertex id column (long, int or string)");
    featuresCol =
        column(
            owner, who, "featuresCol", "vertex features: ML Vector, array<float> or array<double>");
    labelCol =
        link
            ? null
            : column(
                owner,
                who,
                "labelCol",
                "vertex label column: integer, or a double holding an integer (-1 or null ="
                    + " unlabeled)");
    splitCol =
        link
            ? null
            : column(
                owner,
                who,
                "splitCol",
                "vertex split column (train, val, test, none): the vertices of 'train' are the training"
                    + " seeds; when the DataFrame has no such column every labeled vertex is one");
    srcCol = column(owner, who, "srcCol", "edge source column of the edges DataFrame");
    dstCol = column(owner, who, "dstCol", "edge destination column of the edges DataFrame");
    undirected =
        typed ? null : new BooleanParam(owner, "undirected", "add the reverse of every edge");
    dedupe = typed ? null : new BooleanParam(owner, "dedupe", "keep one copy of repeated edges");
    selfLoops =
        typed
            ? null
            : new Param<>(
                owner,
                "selfLoops",
                "what to do with edges v -> v: keep or drop",
                new ParamCheck<String>(who, "selfLoops", SelfLoopPolicy::parse));
    fanouts =
        typed
            ? null
            : new IntArrayParam(
                owner,
                "fanouts",
                "neighbors sampled per node and hop, hop 1 first (-1 = all); one per layer",
                new ParamCheck<int[]>(who, "fanouts", f -> Fanouts.parse(Fanouts.format(f))));
    batchSize =
        new IntParam(
            owner,
            "batchSize",
            "seeds per training mini-batch",
            new ParamCheck<>(who, "batchSize", ParamCheck.atLeast(1)));
    sampleEpochs =
        new IntParam(
            owner,
            "sampleEpochs",
            "epochs of sampled mini-batches; training cycles through them",
            new ParamCheck<>(who, "sampleEpochs", ParamCheck.atLeast(1)));
    modelType =
        new Param<>(
            owner,
            "modelType",
            typed ? "GNN architecture: rgcn, hsage or hgn" : "GNN architecture: sage, gcn or gat",
            typed
                ? new ParamCheck<String>(who, "modelType", GnnParamSet::typedModel)
                : new ParamCheck<String>(who, "modelType", GnnParamSet::oneTypeModel));
    hidden =
        new IntParam(
            owner,
            "hidden",
            "hidden width",
            new ParamCheck<>(who, "hidden", ParamCheck.atLeast(1)));
    dropout =
        new DoubleParam(
            owner,
            "dropout",
            "dropout on every layer's input, in [0, 1)",
            new ParamCheck<>(who, "dropout", ParamCheck.fraction()));
    activation =
        typed
            ? null
            : new Param<>(
                owner,
                "activation",
                "activation between layers",
                new ParamCheck<String>(who, "activation", ActivationKind::parse));
    featureNorm =
        new Param<>(
            owner,
            "featureNorm",
            "row normalization of the input features",
            new ParamCheck<String>(who, "featureNorm", FeatureNormKind::parse));
    learningRate =
        new DoubleParam(
            owner,
            "learningRate",
            "Adam learning rate",
            new ParamCheck<>(who, "learningRate", ParamCheck.positive()));
    weightDecay =
        new DoubleParam(
            owner,
            "weightDecay",
            "L2 weight decay added to the gradients",
            new ParamCheck<>(who, "weightDecay", ParamCheck.nonNegative()));
    epochs =
        new IntParam(
            owner,
            "epochs",
            "training epochs in total",
            new ParamCheck<>(who, "epochs", ParamCheck.atLeast(1)));
    seed = new LongParam(owner, "seed", "seed of sampling, initialization and dropout");
    workDir =
        new Param<>(
            owner,
            "workDir",
            "folder for the graph store, shards and model that fit writes; empty = a new folder"
                + " under spark.local.dir (else java.io.tmpdir), left in place",
            new ParamCheck<String>(who, "workDir", ParamCheck.anyText()));
    predictionCol =
        link
            ? null
            : column(owner, who, "predictionCol", "output column of the predicted class (double)");
    probabilityCol =
        link
            ? null
            : column(
                owner, who, "probabilityCol", "output column of the class probabilities (Vector)");
    embeddingCol =
        link
            ? null
            : new Param<>(
                owner,
                "embeddingCol",
                "output column of the node embeddings (Vector: the last hidden layer); empty = none",
                new ParamCheck<String>(who, "embeddingCol", ParamCheck.anyText()));
    edgeSplit =
        !link
            ? null
            : new Param<>(
                owner,
                "edgeSplit",
                "TRAIN,VAL,TEST fractions of the edges, the val and test edges held out of the"
                    + " graph; empty = "
                    + PrepareOptions.DEFAULT_EDGE_SPLIT,
                new ParamCheck<String>(who, "edgeSplit", ParamCheck.edgeSplit()));
    negatives =
        !link
            ? null
            : new Param<>(
                owner,
                "negatives",
                "how a training edge's negative destinations are drawn: uniform, degree or in-batch",
                new ParamCheck<String>(who, "negatives", NegativeMode::parse));
    numNegatives =
        !link
            ? null
            : new IntParam(
                owner,
                "numNegatives",
                "negatives per training edge",
                new ParamCheck<>(who, "numNegatives", ParamCheck.atLeast(1)));
    decoder =
        !link
            ? null
            : new Param<>(
                owner,
                "decoder",
                "the pair scorer: dot or mlp",
                new ParamCheck<String>(who, "decoder", DecoderKind::parse));
    scoreCol =
        !link ? null : column(owner, who, "scoreCol", "output column of the pair score (double)");
    targetType =
        !typed
            ? null
            : new Param<>(
                owner,
                "targetType",
                "the vertex type fit's and transform's DataFrame holds, whose vertices are"
                    + " classified",
                new ParamCheck<String>(who, "targetType", ParamCheck.anyText()));
    relationFanouts =
        !typed
            ? null
            : new Param<>(
                owner,
                "fanouts",
                "neighbors sampled per node, relation and hop, hop 1 first: 'rel=10,5;*=10,5' (* ="
                    + " every relation not named; -1 = all, 0 = none), or one list for every"
                    + " relation",
                new ParamCheck<String>(who, "fanouts", TypedFanouts::checkText));
    addReverse =
        !typed
            ? null
            : new BooleanParam(
                owner,
                "addReverse",
                "add relation rev_NAME, the flip of relation NAME, for every relation without a"
                    + " reverse");
    learnedEmbeddings =
        !typed
            ? null
            : new Param<>(
                owner,
                "learnedEmbeddings",
                "which vertices learn one vector of hidden floats each instead of reading features:"
                    + " auto (the types without features), all, off",
                new ParamCheck<String>(who, "learnedEmbeddings", EmbeddingMode::parse));
    heads =
        new IntParam(
            owner,
            "heads",
            typed
                ? "hgn: attention heads of every hidden layer, each of the hidden width"
                : "gat: attention heads of every hidden layer, which split the hidden width"
                    + " between them",
            new ParamCheck<>(who, "heads", ParamCheck.atLeast(1)));
    attnSlope =
        new DoubleParam(
            owner,
            "attnSlope",
            (typed ? "hgn" : "gat")
                + ": negative slope of the LeakyReLU on the attention scores, in [0, 1)",
            new ParamCheck<>(who, "attnSlope", ParamCheck.fraction()));
    attnDropout =
        new DoubleParam(
            owner,
            "attnDropout",
            (typed ? "hgn" : "gat") + ": dropout on the attention weights in training, in [0, 1)",
            new ParamCheck<>(who, "attnDropout", ParamCheck.fraction()));
    attnResidual =
        !typed
            ? null
            : new DoubleParam(
                owner,
                "attnResidual",
                "hgn: Simple-HGN's edge residual beta in [0, 1): a hidden layer after the first"
                    + " mixes beta times the previous layer's attention weights into its own (0:"
                    + " off)",
                new ParamCheck<>(who, "attnResidual", ParamCheck.fraction()));
    inputWidth =
        !typed
            ? null
            : new IntParam(
                owner,
                "inputWidth",
                "hgn: width of the per-type input projections and learned embedding rows, the"
                    + " first layer's input (0: hidden, one head's width)",
                new ParamCheck<>(who, "inputWidth", ParamCheck.atLeast(0)));
    earlyStop =
        !typed
            ? null
            : new IntParam(
                owner,
                "earlyStop",
                "end training once this many epochs in a row bring no better validation Micro-F1"
                    + " (the target type's val vertices); 0: off",
                new ParamCheck<>(who, "earlyStop", ParamCheck.atLeast(0)));
    bases =
        !typed
            ? null
            : new IntParam(
                owner,
                "bases",
                "rgcn: relation weights as combinations of this many shared bases (0: one full"
                    + " weight per relation)",
                new ParamCheck<>(who, "bases", ParamCheck.atLeast(0)));
    labelsCol =
        !typed
            ? null
            : new Param<>(
                owner,
                "labelsCol",
                "the target type's column of integer arrays, each vertex's set of classes"
                    + " (multi-label; null or empty = unlabeled), read instead of labelCol; empty ="
                    + " none",
                new ParamCheck<String>(who, "labelsCol", ParamCheck.anyText()));
  }

  /** Sets every Param's default on {@code owner}, from the option definitions. */
  void setDefaults(Params owner) {
    owner.setDefault(idCol, PrepareOptions.ID_COLUMN.defaultValue());
    owner.setDefault(featuresCol, PrepareOptions.FEATURES_COLUMN.defaultValue());
    owner.setDefault(srcCol, PrepareOptions.SRC_COLUMN.defaultValue());
    owner.setDefault(dstCol, PrepareOptions.DST_COLUMN.defaultValue());
    owner.setDefault(batchSize, parsed(SampleOptions.BATCH_SIZE));
    owner.setDefault(sampleEpochs, parsed(SampleOptions.EPOCHS));
    owner.setDefault(hidden, parsed(TrainCommandOptions.HIDDEN));
    owner.setDefault(dropout, parsed(TrainCommandOptions.DROPOUT));
    if (kind.oneType()) {
      owner.setDefault(undirected, parsed(PrepareOptions.UNDIRECTED));
      owner.setDefault(dedupe, parsed(PrepareOptions.DEDUPE));
      owner.setDefault(selfLoops, PrepareOptions.SELF_LOOPS.defaultValue());
      owner.setDefault(fanouts, Fanouts.parse(SampleOptions.FANOUTS.defaultValue()));
      owner.setDefault(modelType, TrainCommandOptions.MODEL.defaultValue());
      owner.setDefault(activation, TrainCommandOptions.ACTIVATION.defaultValue());
      owner.setDefault(heads, parsed(TrainCommandOptions.HEADS));
      owner.setDefault(attnSlope, parsed(TrainCommandOptions.ATTN_SLOPE));
      owner.setDefault(attnDropout, parsed(TrainCommandOptions.ATTN_DROPOUT));
    } else {
      owner.setDefault(targetType, SampleOptions.SEED_TYPE.defaultValue());
      owner.setDefault(relationFanouts, SampleOptions.FANOUTS.defaultValue());
      owner.setDefault(addReverse, parsed(PrepareOptions.ADD_REVERSE));
      owner.setDefault(modelType, Defaults.TYPED_MODEL.id());
      owner.setDefault(learnedEmbeddings, TrainCommandOptions.LEARNED_EMBEDDINGS.defaultValue());
      // train's own defaults for --model hgn, which are not those of the options (gat's)
      owner.setDefault(heads, HgnSettings.DEFAULT.heads());
      owner.setDefault(attnSlope, widened(HgnSettings.DEFAULT.slope()));
      owner.setDefault(attnDropout, widened(HgnSettings.DEFAULT.attnDropout()));
      owner.setDefault(attnResidual, parsed(TrainCommandOptions.ATTN_RESIDUAL));
      owner.setDefault(inputWidth, parsed(TrainCommandOptions.INPUT_WIDTH));
      owner.setDefault(earlyStop, parsed(TrainCommandOptions.EARLY_STOP));
      owner.setDefault(bases, parsed(TrainCommandOptions.BASES));
      owner.setDefault(labelsCol, PrepareOptions.LABELS_COLUMN.defaultValue());
    }
    owner.setDefault(featureNorm, TrainCommandOptions.FEATURE_NORM.defaultValue());
    owner.setDefault(learningRate, parsed(TrainCommandOptions.LR));
    owner.setDefault(weightDecay, parsed(TrainCommandOptions.WEIGHT_DECAY));
    owner.setDefault(epochs, parsed(TrainCommandOptions.EPOCHS));
    owner.setDefault(seed, parsed(TrainCommandOptions.SEED));
    owner.setDefault(workDir, SharedOptions.WORK_DIR.defaultValue());
    if (kind.node()) {
      owner.setDefault(labelCol, PrepareOptions.LABEL_COLUMN.defaultValue());
      owner.setDefault(splitCol, PrepareOptions.SPLIT_COLUMN.defaultValue());
      owner.setDefault(predictionCol, "prediction");
      owner.setDefault(probabilityCol, "probability");
      owner.setDefault(embeddingCol, "");
    } else {
      owner.setDefault(edgeSplit, PrepareOptions.EDGE_SPLIT.defaultValue());
      owner.setDefault(negatives, SampleOptions.NEGATIVES.defaultValue());
      owner.setDefault(numNegatives, parsed(SampleOptions.NUM_NEGATIVES));
      owner.setDefault(decoder, TrainCommandOptions.DECODER.defaultValue());
      owner.setDefault(scoreCol, "score");
    }
  }

  private static Param<String> column(Params owner, String who, String name, String doc) {
    return new Param<>(owner, name, doc, new ParamCheck<String>(who, name, ParamCheck.column()));
  }

  /** The parsed default of {@code def}, as the command line resolves it. */
  private static <T> T parsed(OptionDef<T> def) {
    return FanoutConf.of("defaults", List.of(def), Map.of()).get(def);
  }

  /** A float setting as the double its text parses to (0.05f as 0.05), as an option gives it. */
  private static double widened(float v) {
    return Double.parseDouble(Float.toString(v));
  }

  /** The typed stage trains the typed architectures only. */
  private static void typedModel(String raw) {
    if (!ModelKind.parse(raw).typed()) {
      throw new IllegalArgumentException(
          "expected rgcn, hsage or hgn (sage, gcn and gat train one-type graphs: GnnClassifier)");
    }
  }

  /** The one-type stages train one-type graphs: the typed architectures are refused. */
  private static void oneTypeModel(String raw) {
    if (ModelKind.parse(raw).typed()) {
      throw new IllegalArgumentException(
          "expected sage, gcn or gat (rgcn, hsage and hgn train typed graphs: TypedGnnClassifier)");
    }
  }
}
