package io.fanout.nn;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Architecture of a GNN: everything needed to rebuild it from a checkpoint.
 *
 * @param kind {@code sage} (GraphSAGE, mean aggregator) or {@code gcn} (mean over the neighbors and
 *     the node itself)
 * @param inDim input feature dimension
 * @param hidden hidden width
 * @param classes output classes
 * @param layers GNN layers = number of sampled hops
 * @param dropout dropout probability on every layer's input
 * @param activation {@code relu} or {@code elu}, after every layer but the last
 * @param featureNorm {@code none}, {@code l1} or {@code l2}: row normalization of input features
 * @param decoder link prediction's decoder, {@code dot} ({@link DotDecoder}, no parameters; also
 *     every node classifier's) or {@code mlp} ({@link MlpDecoder}, parameters after the layers'),
 *     recorded in {@link #toMap} only when {@code mlp}, so dot models keep their identity
 */
public record ModelConfig(
    String kind,
    int inDim,
    int hidden,
    int classes,
    int layers,
    float dropout,
    String activation,
    String featureNorm,
    String decoder) {

  /** Link prediction's parameter-free default decoder. */
  public static final String DOT = "dot";

  /** A configuration with the {@code dot} decoder (every node classifier's). */
  public ModelConfig(
      String kind,
      int inDim,
      int hidden,
      int classes,
      int layers,
      float dropout,
      String activation,
      String featureNorm) {
    this(kind, inDim, hidden, classes, layers, dropout, activation, featureNorm, DOT);
  }

  public ModelConfig {
    kind = kind.toLowerCase(Locale.ROOT);
    if (!kind.equals("sage") && !kind.equals("gcn")) {
      throw new IllegalArgumentException("model must be sage or gcn, got '" + kind + "'");
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
    if (!(dropout >= 0f && dropout < 1f)) {
      throw new IllegalArgumentException("dropout must be in [0, 1), got " + dropout);
    }
    io.fanout.tensor.Activation.parse(activation);
    if (!featureNorm.equals("none") && !featureNorm.equals("l1") && !featureNorm.equals("l2")) {
      throw new IllegalArgumentException("feature norm must be none, l1 or l2, got " + featureNorm);
    }
    decoder = decoder.toLowerCase(Locale.ROOT);
    if (!decoder.equals(DOT) && !decoder.equals(MlpDecoder.NAME)) {
      throw new IllegalArgumentException("decoder must be dot or mlp, got '" + decoder + "'");
    }
  }

  /** Whether the model ends in an {@link MlpDecoder}. */
  public boolean mlpDecoder() {
    return decoder.equals(MlpDecoder.NAME);
  }

  /** The configuration as string pairs, for checkpoints. */
  public Map<String, String> toMap() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("kind", kind);
    m.put("in_dim", Integer.toString(inDim));
    m.put("hidden", Integer.toString(hidden));
    m.put("classes", Integer.toString(classes));
    m.put("layers", Integer.toString(layers));
    m.put("dropout", Float.toString(dropout));
    m.put("activation", activation);
    m.put("feature_norm", featureNorm);
    if (mlpDecoder()) {
      m.put("decoder", decoder);
    }
    return m;
  }

  public static ModelConfig fromMap(Map<String, String> m) {
    return new ModelConfig(
        m.get("kind"),
        Integer.parseInt(m.get("in_dim")),
        Integer.parseInt(m.get("hidden")),
        Integer.parseInt(m.get("classes")),
        Integer.parseInt(m.get("layers")),
        Float.parseFloat(m.get("dropout")),
        m.get("activation"),
        m.get("feature_norm"),
        m.getOrDefault("decoder", DOT));
  }
}
