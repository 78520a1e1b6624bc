package io.fanout.nn;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Architecture of a GNN: everything needed to rebuild it from a checkpoint.
 *
 * @param kind {@link ModelKind#SAGE} (GraphSAGE, mean aggregator), {@link ModelKind#GCN} (mean over
 *     the neighbors and the node itself) or {@link ModelKind#GAT} (graph attention)
 * @param inDim input feature dimension
 * @param hidden hidden width
 * @param classes output classes
 * @param layers GNN layers = number of sampled hops
 * @param dropout dropout probability on every layer's input
 * @param activation after every layer but the last
 * @param featureNorm row normalization of input features
 * @param decoder link prediction's decoder, {@link DecoderKind#DOT} ({@link DotDecoder}, no
 *     parameters; also every node classifier's) or {@link DecoderKind#MLP} ({@link MlpDecoder},
 *     parameters after the layers'), recorded in {@link #toMap} only when {@code mlp}, so dot
 *     models keep their identity
 * @param attention a {@link ModelKind#GAT} model's heads and slope ({@link AttentionConfig#DEFAULT}
 *     for the others), recorded in {@link #toMap} only for {@code gat}; its output heads only when
 *     more than one and its residual only when on, so a checkpoint without them is a model of one
 *     output head and no residual. A residual still {@code auto} is off here: the trainer resolves
 *     it from the training split before it builds the model ({@link AttentionConfig#resolve})
 * @param embeddingRows 0: the input is the store's feature rows; else the input is a learned {@link
 *     EmbeddingTable} of this many rows (one per vertex) of {@code inDim} floats, trained with the
 *     model ({@code --learned-embeddings}); recorded in {@link #toMap} only when not 0
 */
public record ModelConfig(
    ModelKind kind,
    int inDim,
    int hidden,
    int classes,
    int layers,
    float dropout,
    ActivationKind activation,
    FeatureNormKind featureNorm,
    DecoderKind decoder,
    AttentionConfig attention,
    long embeddingRows) {

  /** A configuration whose input is the store's feature rows (no learned embedding table). */
  public ModelConfig(
      ModelKind kind,
      int inDim,
      int hidden,
      int classes,
      int layers,
      float dropout,
      ActivationKind activation,
      FeatureNormKind featureNorm,
      DecoderKind decoder,
      AttentionConfig attention) {
    this(
        kind,
        inDim,
        hidden,
        classes,
        layers,
        dropout,
        activation,
        featureNorm,
        decoder,
        attention,
        0L);
  }

  /** A configuration with the default attention shape (used by {@code gat} only). */
  public ModelConfig(
      ModelKind kind,
      int inDim,
      int hidden,
      int classes,
      int layers,
      float dropout,
      ActivationKind activation,
      FeatureNormKind featureNorm,
      DecoderKind decoder) {
    this(
        kind,
        inDim,
        hidden,
        classes,
        layers,
        dropout,
        activation,
        featureNorm,
        decoder,
        AttentionConfig.DEFAULT);
  }

  /** A configuration with the {@code dot} decoder (every node classifier's). */
  public ModelConfig(
      ModelKind kind,
      int inDim,
      int hidden,
      int classes,
      int layers,
      float dropout,
      ActivationKind activation,
      FeatureNormKind featureNorm) {
    this(kind, inDim, hidden, classes, layers, dropout, activation, featureNorm, DecoderKind.DOT);
  }

  /** As the constructor above, the modes by their ids ({@code sage}, {@code relu}, {@code l2}). */
  public ModelConfig(
      String kind,
      int inDim,
      int hidden,
      int classes,
      int layers,
      float dropout,
      String activation,
      String featureNorm) {
    this(kind, inDim, hidden, classes, layers, dropout, activation, featureNorm, "dot");
  }

  /** As the canonical constructor, the modes by their ids. */
  public ModelConfig(
      String kind,
      int inDim,
      int hidden,
      int classes,
      int layers,
      float dropout,
      String activation,
      String featureNorm,
      String decoder) {
    this(
        ModelKind.parse(kind),
        inDim,
        hidden,
        classes,
        layers,
        dropout,
        ActivationKind.parse(activation),
        FeatureNormKind.parse(featureNorm),
        DecoderKind.parse(decoder));
  }

  public ModelConfig {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(activation, "activation");
    Objects.requireNonNull(featureNorm, "featureNorm");
    Objects.requireNonNull(decoder, "decoder");
    Objects.requireNonNull(attention, "attention");
    if (kind.typed()) {
      throw new io.fanout.store.InvalidInputException(
          "--model "
              + kind.id()
              + " trains typed graph stores (several vertex types or relations, prepare"
              + " --graph-spec); this graph has one vertex type and one relation: use sage, gcn or"
              + " gat");
    }
    if (inDim <= 0 || hidden <= 0 || classes <= 1 || layers <= 0) {
      throw new IllegalArgumentException(
          "need inDim, hidden, layers > 0 and classes > 1, got inDim="
              + inDim
              + " hidden="
              + hidden
              + " classes="
              + classes
              + " layers="
              + layers);
    }
    if (embeddingRows < 0) {
      throw new IllegalArgumentException("embeddingRows must be >= 0, got " + embeddingRows);
    }
    if (embeddingRows > 0 && featureNorm != FeatureNormKind.NONE) {
      throw new IllegalArgumentException(
          "a learned input embedding takes no feature norm, got " + featureNorm.id());
    }
    if (!(dropout >= 0f && dropout < 1f)) {
      throw new IllegalArgumentException("dropout must be in [0, 1), got " + dropout);
    }
    if (attention.residual() == GatResidual.AUTO) {
      // the trainer resolves auto from the training split first (TrainRun); unresolved, it is off
      attention = attention.resolve(0, 1);
    }
    if (kind == ModelKind.GAT && layers > 1 && hidden % attention.heads() != 0) {
      throw new IllegalArgumentException(
          "gat splits the hidden width over its heads: hidden "
              + hidden
              + " is not a multiple of "
              + attention.heads()
              + " heads");
    }
  }

  /** Whether the input is a learned embedding table rather than the store's feature rows. */
  public boolean learnedInput() {
    return embeddingRows > 0;
  }

  /** Whether the model ends in an {@link MlpDecoder}. */
  public boolean mlpDecoder() {
    return decoder == DecoderKind.MLP;
  }

  /** The configuration as string pairs, for checkpoints: each mode by its id. */
  public Map<String, String> toMap() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("kind", kind.id());
    m.put("in_dim", Integer.toString(inDim));
    m.put("hidden", Integer.toString(hidden));
    m.put("classes", Integer.toString(classes));
    m.put("layers", Integer.toString(layers));
    m.put("dropout", Float.toString(dropout));
    m.put("activation", activation.id());
    m.put("feature_norm", featureNorm.id());
    if (mlpDecoder()) {
      m.put("decoder", decoder.id());
    }
    if (kind == ModelKind.GAT) {
      m.put("heads", Integer.toString(attention.heads()));
      m.put("attn_slope", Float.toString(attention.slope()));
      m.put("attn_dropout", Float.toString(attention.dropout()));
      if (attention.outputHeads() != 1) {
        m.put("out_heads", Integer.toString(attention.outputHeads()));
      }
      if (attention.residualOn()) {
        m.put("gat_residual", "true");
      }
    }
    if (learnedInput()) {
      m.put("embedding_rows", Long.toString(embeddingRows));
    }
    return m;
  }

  public static ModelConfig fromMap(Map<String, String> m) {
    AttentionConfig attention =
        m.containsKey("heads")
            ? new AttentionConfig(
                Integer.parseInt(m.get("heads")),
                Float.parseFloat(m.get("attn_slope")),
                Float.parseFloat(m.get("attn_dropout")),
                Integer.parseInt(m.getOrDefault("out_heads", "1")),
                Boolean.parseBoolean(m.getOrDefault("gat_residual", "false"))
                    ? GatResidual.ON
                    : GatResidual.OFF)
            : AttentionConfig.DEFAULT;
    return new ModelConfig(
        ModelKind.parse(m.get("kind")),
        Integer.parseInt(m.get("in_dim")),
        Integer.parseInt(m.get("hidden")),
        Integer.parseInt(m.get("classes")),
        Integer.parseInt(m.get("layers")),
        Float.parseFloat(m.get("dropout")),
        ActivationKind.parse(m.get("activation")),
        FeatureNormKind.parse(m.get("feature_norm")),
        DecoderKind.parse(m.getOrDefault("decoder", DecoderKind.DOT.id())),
        attention,
        Long.parseLong(m.getOrDefault("embedding_rows", "0")));
  }

  /** This configuration with the attention shape {@code a}. */
  public ModelConfig withAttention(AttentionConfig a) {
    return new ModelConfig(
        kind,
        inDim,
        hidden,
        classes,
        layers,
        dropout,
        activation,
        featureNorm,
        decoder,
        a,
        embeddingRows);
  }

  /**
   * This configuration with a learned input table of {@code rows} rows of {@code inDim} floats
   * ({@code 0}: the store's features), feature norm {@code none} when learned.
   */
  public ModelConfig withEmbeddingRows(long rows) {
    return new ModelConfig(
        kind,
        inDim,
        hidden,
        classes,
        layers,
        dropout,
        activation,
        rows > 0 ? FeatureNormKind.NONE : featureNorm,
        decoder,
        attention,
        rows);
  }
}
